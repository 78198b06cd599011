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
* ``first fit``            in a fresh process, after ``import optrules`` and ``make_estimator`` (so the
                           estimator's module, scikit-learn and pandas are imported before the clock),
                           the fit-only CPU seconds (``time.process_time``) of the first ``fit`` of
                           ``setcover-greedy``, ``libre`` and ``bottom-up`` (defaults, ``random_state=0``) on
                           ``synthetic.hidden_rule_data(10000, 10, noise=0.05, seed=0)`` (made before the
                           clock), then of a ``second fit`` of a new estimator on the same data in the
                           same process: their difference is the one-off cost of the first fit (the
                           kernels' modules and what they import, first calls). The child reports
                           whether a JIT compiler (numba, llvmlite) was imported;
* ``ripper``               with ``--ripper``, wittgenstein's RIPPER on the same data, fit only, in fresh
                           processes (the reference of the issue's speed targets), so that the first
                           fits' ratios to it come from the same run.

Medians of ``--repeats`` runs (default 5) after one warm-up run of each command (file cache,
``.pyc``; a checkout with numba kernels also fills numba's cache); CPU seconds are user + system of
the child (``os.wait4``), the figure to trust on a loaded machine. Prints the table and writes ``benchmarks/results/startup.md``.

    python benchmarks/startup.py [--reference DIR [--reference-name NAME]] [--repeats 5] [--ripper]

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
#: The methods whose first fit is timed, and the issue's targets for two of them: at least this many
#: times faster than RIPPER (CPU seconds of the fit).
FIT_METHODS = ("setcover-greedy", "libre", "bottom-up")
TARGET_OVER_RIPPER = {"setcover-greedy": 50.0, "libre": 30.0}
FIT_ROWS = 10_000
BENCHMARKS = Path(__file__).resolve().parent
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

#: A first and a second fit of one method in one fresh process; prints their fit-only seconds.
FIT_CHILD = """
import json, sys, time
sys.path.insert(0, {benchmarks!r})
from synthetic import POSITIVE, hidden_rule_data
X, y = hidden_rule_data({rows}, 10, noise=0.05, seed=0)
start = time.process_time()
import optrules
parameters = optrules.get_method({method!r}).estimator.parameters
params = {{key: value for key, value in (("positive", POSITIVE), ("random_state", 0)) if key in parameters}}
models = [optrules.make_estimator({method!r}, **params) for _ in range(2)]
imports = time.process_time() - start
seconds = []
for model in models:
    cpu, wall = time.process_time(), time.perf_counter()
    model.fit(X, y)
    seconds.append((time.process_time() - cpu, time.perf_counter() - wall))
assert str(models[0].ruleset_) == str(models[1].ruleset_)
print(json.dumps({{"imports": imports, "first": seconds[0][0], "second": seconds[1][0],
                  "first_wall": seconds[0][1], "rules": models[0].ruleset_.n_rules,
                  "jit": sorted({{"numba", "llvmlite"}} & {{m.partition(".")[0] for m in sys.modules}})}}))
"""

#: wittgenstein's RIPPER on the same data, fit only.
RIPPER_CHILD = """
import json, sys, time
sys.path.insert(0, {benchmarks!r})
import wittgenstein
from synthetic import POSITIVE, hidden_rule_data
X, y = hidden_rule_data({rows}, 10, noise=0.05, seed=0)
model = wittgenstein.RIPPER(random_state=0)
cpu, wall = time.process_time(), time.perf_counter()
model.fit(X, y, pos_class=POSITIVE)
print(json.dumps({{"first": time.process_time() - cpu, "first_wall": time.perf_counter() - wall,
                  "rules": len(model.ruleset_.rules)}}))
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


def measure(checkouts: dict[str, Path], repeats: int, ripper: bool) -> list[dict]:
    """One row per (figure, checkout): medians over ``repeats`` runs, checkouts alternating."""
    cli = {f"optrules {command}": ["-c", CLI_CHILD.format(watched=WATCHED), command]
           for command in ("--help", "methods", "datasets")}
    figures: dict[str, list[str]] = {"import optrules": ["-c", "import optrules"], **cli}
    fits = {f"first fit: {method}": ["-c", FIT_CHILD.format(benchmarks=str(BENCHMARKS), rows=FIT_ROWS, method=method)]
            for method in FIT_METHODS}
    samples: dict[tuple[str, str], list[dict]] = {}
    for figure, args in {**figures, **fits}.items():
        for label, checkout in checkouts.items():  # warm-up: file cache, .pyc (and numba's cache)
            run_child(checkout, args)
        for _ in range(repeats):
            for label, checkout in checkouts.items():
                result = run_child(checkout, args)
                if figure == "import optrules":
                    timed = run_child(checkout, ["-X", "importtime", *args])
                    result["importtime"] = importtime_microseconds(timed["stderr"]) / 1e6
                if figure in cli:
                    result["modules"] = watched_modules(result["stderr"])
                if figure in fits:
                    result.update(json.loads(result["stdout"].splitlines()[-1]))
                    result["modules"] = result.pop("jit")
                samples.setdefault((figure, label), []).append(result)
    if ripper:
        args = ["-c", RIPPER_CHILD.format(benchmarks=str(BENCHMARKS), rows=FIT_ROWS)]
        for _ in range(repeats):
            result = run_child(next(iter(checkouts.values())), args)
            result.update(json.loads(result["stdout"].splitlines()[-1]))
            samples.setdefault(("first fit: ripper (wittgenstein)", "-"), []).append(result)
    rows = []
    for (figure, label), runs in samples.items():
        median = {key: statistics.median(r[key] for r in runs) for key in runs[0]
                  if isinstance(runs[0][key], (int, float))}
        nan = float("nan")
        row = {"figure": figure, "checkout": label, "runs": len(runs), "wall s": median["wall"],
               "CPU s": median["cpu"], "importtime s": median.get("importtime", nan),
               "imports CPU s": median.get("imports", nan),
               "first fit CPU s": median.get("first", nan), "second fit CPU s": median.get("second", nan),
               "one-off CPU s": median["first"] - median["second"] if "second" in median else nan,
               "first fit wall s": median.get("first_wall", nan),
               "rules": f"{median['rules']:.0f}" if "rules" in median else "-",
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
        if (figure, labels[1]) not in by:
            continue
        new, old = by[(figure, labels[0])], by[(figure, labels[1])]
        out.append({"figure": figure, "wall ratio": new["wall s"] / old["wall s"],
                    "CPU ratio": new["CPU s"] / old["CPU s"],
                    "first fit CPU ratio": new["first fit CPU s"] / old["first fit CPU s"]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", help="another checkout (its optrules/ importable) measured alongside")
    parser.add_argument("--reference-name", default="reference",
                        help="what the results page calls the reference (e.g. 'main at 4593115')")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ripper", action="store_true",
                        help="also time wittgenstein's RIPPER on the fit data (optrules[peers])")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "startup.md"))
    args = parser.parse_args()
    checkouts = {"this checkout": Path(__file__).resolve().parent.parent}
    if args.reference:
        checkouts[args.reference_name] = Path(args.reference).resolve()
    rows = measure(checkouts, args.repeats, args.ripper)
    compared = ratios(rows, list(checkouts))
    this = {r["figure"]: r for r in rows if r["checkout"] == "this checkout"}
    stacks = {figure: sorted(set(r["imported"].split()) & set(SOLVER_STACKS)) for figure, r in this.items()
              if r["imported"] != "-" and not figure.startswith("first fit")}
    verdict = (f"Targets: `import optrules` <= {TARGET_IMPORT_SECONDS} s by `-X importtime` "
               f"(median {this['import optrules']['importtime s']:.3f} s), `optrules --help` <= "
               f"{TARGET_HELP_SECONDS} s wall (median {this['optrules --help']['wall s']:.3f} s); solver stacks "
               f"imported by the CLI listings: "
               + "; ".join(f"{figure}: {', '.join(found) or 'none'}" for figure, found in stacks.items()) + ".")
    ripper_row = next((r for r in rows if r["figure"].startswith("first fit: ripper")), None)
    if ripper_row is not None:
        verdict += " First fit in a fresh process against RIPPER's fit (CPU seconds, same run): " + "; ".join(
            f"{method} {ripper_row['first fit CPU s'] / this[f'first fit: {method}']['first fit CPU s']:.1f}x"
            + (f" (target >= {TARGET_OVER_RIPPER[method]:.0f}x)" if method in TARGET_OVER_RIPPER else "")
            for method in FIT_METHODS) + "."
    body = (f"{verdict}\n\n{markdown_table(rows)}\n\n"
            + (f"This checkout over {args.reference_name}, medians of the same run:\n\n"
               f"{markdown_table(compared)}\n\n" if compared else "")
            + "Each figure is a fresh process with the checkout first on PYTHONPATH; wall and CPU seconds are "
              "the whole child process (interpreter start-up included; CPU = user + system from `os.wait4`), "
              "`importtime s` the cumulative time `python -X importtime` gives `optrules`. The `first fit` rows "
              f"are fits on `hidden_rule_data({FIT_ROWS}, 10, noise=0.05, seed=0)`: `imports CPU s` is `import "
              "optrules` and `make_estimator` (the estimator's module, scikit-learn, pandas), `first fit CPU s` "
              "the first `fit` alone (`time.process_time`), `second fit CPU s` a second estimator's fit in the "
              "same process, `one-off CPU s` their difference (what the first fit pays once: the kernels' "
              "modules and what they import, first calls). `imported` lists the watched modules (solver "
              "stacks, scikit-learn, numba, pandas) left in `sys.modules` by a CLI command, and for the fits "
              "the JIT compilers (numba, llvmlite) in `sys.modules` after them.\n")
    command = ("python benchmarks/startup.py" + (f" --reference DIR --reference-name '{args.reference_name}'"
                                                  if args.reference else "")
               + (f" --repeats {args.repeats}" if args.repeats != 5 else "") + (" --ripper" if args.ripper else ""))
    print(body)
    write_report(args.out, "Start-up", command, body)


if __name__ == "__main__":
    main()
