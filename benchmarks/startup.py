"""Start-up: what a user waits for before the first result, each figure in fresh processes.

For each checkout (this one, and with ``--reference DIR`` another, e.g. an export of ``main``, in the
same run, the two alternating so that the machine's drift hits both alike), with the checkout first
on ``PYTHONPATH`` and the same interpreter:

* ``import optrules``      ``python -c "import optrules"``: wall and CPU seconds of the whole process
                           (interpreter start-up included), and the cumulative microseconds that
                           ``python -X importtime`` reports for ``optrules`` itself;
* ``optrules --help``, ``optrules methods``, ``optrules datasets``: the console script's entry
                           point (``from optrules.cli import main``), wall and CPU seconds, and the
                           solver stacks / scikit-learn / numba the command left in ``sys.modules``;
* ``first fit``            in a fresh process, ``optrules.fit(X, y, method="libre")`` on 2,000 x 10
                           uniform features with random balanced labels (data made before the clock
                           starts; the clock covers ``import optrules`` and the fit, so whatever the
                           package imports, eagerly or on first use, is in it on either checkout), then
                           a ``second fit`` of the same data in the same process: their difference is
                           the one-off cost (imports, numba cache loading, first calls). The child
                           reports the numba dispatchers' cache hits and misses, so a first fit that
                           compiled (a miss) shows as such;
* ``first fit, empty cache`` the same with ``NUMBA_CACHE_DIR`` set to a new empty directory, so every
                           kernel the fit needs compiles: what the numba cache saves a fresh process
                           (``--cold-repeats`` runs, default 3, as compiling is slow).

Medians of ``--repeats`` runs (default 5) after one warm-up run of each command (which also fills
the numba cache); CPU seconds are user + system of the child (``os.wait4``), the figure to trust on a
loaded machine. Prints the table and writes ``benchmarks/results/startup.md``.

    python benchmarks/startup.py [--reference DIR [--reference-name NAME]] [--repeats 5] [--cold-repeats 3]

(``git archive main | tar -x -C DIR`` makes a reference checkout; link ``DIR/optrules/models`` to
``../models`` as a source checkout needs.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

#: The issue's targets on this machine.
TARGET_IMPORT_SECONDS = 1.0
TARGET_HELP_SECONDS = 1.5
#: Modules whose presence in ``sys.modules`` after a command the table reports.
WATCHED = ("pyomo", "cvxpy", "highspy", "pyscipopt", "clarabel", "cyipopt", "sklearn", "numba", "pandas")
SOLVER_STACKS = ("pyomo", "cvxpy", "highspy", "pyscipopt", "clarabel", "cyipopt")
RUN_TIMEOUT = 600

#: Runs a CLI command as the console script does and prints the watched modules it imported.
CLI_CHILD = """
import sys
from optrules.cli import main
sys.argv[0] = "optrules"
try:
    code = main(sys.argv[1:])
finally:
    sys.stdout.flush()
    sys.stderr.write("WATCHED " + " ".join(m for m in {watched!r} if m in sys.modules) + "\\n")
sys.exit(code)
"""

#: A first and a second LIBRE fit in one fresh process; prints their seconds and the numba cache stats.
FIT_CHILD = """
import json, sys, time
import numpy as np
rng = np.random.default_rng(0)
X = rng.uniform(0.0, 100.0, size=(2000, 10))
y = np.zeros(2000, dtype=int)
y[:1000] = 1
rng.shuffle(y)
start = time.perf_counter()
import optrules
first_ruleset = optrules.fit(X, y, method="libre", random_state=0)
first = time.perf_counter() - start
start = time.perf_counter()
second_ruleset = optrules.fit(X, y, method="libre", random_state=0)
second = time.perf_counter() - start
assert str(first_ruleset) == str(second_ruleset)
from numba.core.registry import CPUDispatcher
hits = misses = 0
for name, module in list(sys.modules.items()):
    if name.startswith("optrules"):
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher):
                hits += sum(value.stats.cache_hits.values())
                misses += sum(value.stats.cache_misses.values())
print(json.dumps({"first": first, "second": second, "hits": hits, "misses": misses,
                  "rules": first_ruleset.n_rules}))
"""


def run_child(checkout: Path, args: list[str], env_extra: dict[str, str] | None = None) -> dict:
    """Run ``python ARGS`` with ``checkout`` first on the path; wall and CPU seconds, stdout, stderr."""
    env = {**os.environ, "PYTHONPATH": str(checkout), **(env_extra or {})}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen([sys.executable, *args], stdout=out, stderr=err, env=env, cwd=tempfile.gettempdir())
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if process.returncode != 0:
        raise RuntimeError(f"{args} in {checkout} exited {process.returncode}:\n{stderr[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "stdout": stdout, "stderr": stderr}


def importtime_microseconds(stderr: str) -> float:
    """The cumulative microseconds ``-X importtime`` reports for the top-level ``optrules``."""
    for line in reversed(stderr.splitlines()):
        fields = [f.strip() for f in line.removeprefix("import time:").split("|")]
        if len(fields) == 3 and fields[2] == "optrules":
            return float(fields[1])
    raise RuntimeError("no importtime line for optrules")


def watched_modules(stderr: str) -> list[str]:
    line = next(line for line in stderr.splitlines() if line.startswith("WATCHED"))
    return line.split()[1:]


def measure(checkouts: dict[str, Path], repeats: int, cold_repeats: int) -> list[dict]:
    """One row per (figure, checkout): medians over ``repeats`` runs, checkouts alternating."""
    cli = {f"optrules {command}": ["-c", CLI_CHILD.format(watched=WATCHED), command]
           for command in ("--help", "methods", "datasets")}
    figures: dict[str, list[str]] = {"import optrules": ["-c", "import optrules"], **cli}
    samples: dict[tuple[str, str], list[dict]] = {}
    for figure, args in figures.items():
        for label, checkout in checkouts.items():  # warm-up: file cache, .pyc and numba caches
            run_child(checkout, args)
        for _ in range(repeats):
            for label, checkout in checkouts.items():
                result = run_child(checkout, args)
                if figure == "import optrules":
                    timed = run_child(checkout, ["-X", "importtime", *args])
                    result["importtime"] = importtime_microseconds(timed["stderr"]) / 1e6
                if figure in cli:
                    result["modules"] = watched_modules(result["stderr"])
                samples.setdefault((figure, label), []).append(result)
    for label, checkout in checkouts.items():
        run_child(checkout, ["-c", FIT_CHILD])
    for _ in range(repeats):
        for label, checkout in checkouts.items():
            result = run_child(checkout, ["-c", FIT_CHILD])
            samples.setdefault(("libre fit", label), []).append({**result, **json.loads(result["stdout"])})
    for _ in range(cold_repeats):
        for label, checkout in checkouts.items():
            with tempfile.TemporaryDirectory() as cache:
                result = run_child(checkout, ["-c", FIT_CHILD], {"NUMBA_CACHE_DIR": cache})
            samples.setdefault(("libre fit, empty numba cache", label), []).append(
                {**result, **json.loads(result["stdout"])})
    rows = []
    for (figure, label), runs in samples.items():
        median = {key: statistics.median(r[key] for r in runs) for key in runs[0]
                  if isinstance(runs[0][key], (int, float))}
        row = {"figure": figure, "checkout": label, "runs": len(runs), "wall s": median["wall"],
               "CPU s": median["cpu"], "importtime s": median.get("importtime", float("nan")),
               "first fit s": median.get("first", float("nan")), "second fit s": median.get("second", float("nan")),
               "one-off s": median["first"] - median["second"] if "first" in median else float("nan"),
               "numba cache hits/misses": (f"{median['hits']:.0f}/{median['misses']:.0f}" if "hits" in median
                                           else "-"),
               "imported": (" ".join(sorted({m for r in runs for m in r["modules"]})) or "none")
               if "modules" in runs[0] else "-"}
        rows.append(row)
        print(row, flush=True)
    return rows


def ratios(rows: list[dict], labels: list[str]) -> list[dict]:
    """This checkout's medians over the reference's, figure by figure."""
    if len(labels) < 2:
        return []
    by = {(r["figure"], r["checkout"]): r for r in rows}
    out = []
    for figure in dict.fromkeys(r["figure"] for r in rows):
        new, old = by[(figure, labels[0])], by[(figure, labels[1])]
        out.append({"figure": figure, "wall ratio": new["wall s"] / old["wall s"],
                    "CPU ratio": new["CPU s"] / old["CPU s"],
                    "first-fit ratio": new["first fit s"] / old["first fit s"]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", help="another checkout (its optrules/ importable) measured alongside")
    parser.add_argument("--reference-name", default="reference",
                        help="what the results page calls the reference (e.g. 'main at 4593115')")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cold-repeats", type=int, default=3)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "startup.md"))
    args = parser.parse_args()
    checkouts = {"this checkout": Path(__file__).resolve().parent.parent}
    if args.reference:
        checkouts[args.reference_name] = Path(args.reference).resolve()
    rows = measure(checkouts, args.repeats, args.cold_repeats)
    compared = ratios(rows, list(checkouts))
    this = {r["figure"]: r for r in rows if r["checkout"] == "this checkout"}
    stacks = {figure: sorted(set(r["imported"].split()) & set(SOLVER_STACKS)) for figure, r in this.items()
              if r["imported"] != "-"}
    verdict = (f"Targets: `import optrules` <= {TARGET_IMPORT_SECONDS} s by `-X importtime` "
               f"(median {this['import optrules']['importtime s']:.3f} s), `optrules --help` <= "
               f"{TARGET_HELP_SECONDS} s wall (median {this['optrules --help']['wall s']:.3f} s); solver stacks "
               f"imported by the CLI listings: "
               + "; ".join(f"{figure}: {', '.join(found) or 'none'}" for figure, found in stacks.items()) + ".")
    body = (f"{verdict}\n\n{markdown_table(rows)}\n\n"
            + (f"This checkout over {args.reference_name}, medians of the same run:\n\n"
               f"{markdown_table(compared)}\n\n" if compared else "")
            + "Each figure is a fresh process with the checkout first on PYTHONPATH; wall and CPU seconds are "
              "the whole child process (interpreter start-up included; CPU = user + system from `os.wait4`), "
              "`importtime s` the cumulative time `python -X importtime` gives `optrules`. `first fit s` "
              "covers `import optrules` and the first fit (so every import the fit needs, eager or lazy); "
              "`one-off s` = first - second fit. "
              "`imported` lists the watched modules (solver stacks, scikit-learn, numba, pandas) left in "
              "`sys.modules` by the command. The empty-cache rows compile every numba kernel the fit needs.\n")
    command = "python benchmarks/startup.py" + (f" --reference DIR --reference-name '{args.reference_name}'"
                                                 if args.reference else "")
    print(body)
    write_report(args.out, "Start-up", command, body)


if __name__ == "__main__":
    main()
