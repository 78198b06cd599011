"""``optrules.fit(method="bottom-up")`` end to end on large synthetic data, this checkout against others.

Data as in ``libre_scalability.py`` (``make_data``: ``n`` features uniform on [0, 100], random labels,
exactly ``round(share * n)`` positives). Each fit runs in a fresh Python process whose ``PYTHONPATH``
is the checkout measured, so two versions of the package are timed on the same data in one run; the
runs of the checkouts alternate (A, B, A, B, ...), so that the machine's load falls on both alike.
The child times the call of ``optrules.fit`` only (imports and data generation excluded): wall
seconds, CPU seconds of the process (all threads: ChiMerge discretises features in parallel, so on a
shared machine CPU is the steadier measure) and ``ru_maxrss`` after the fit (peak MB, interpreter
and input data included).

Two settings of ``BottomUpClassifier`` (heuristic H1, alpha 0.7, ChiMerge threshold 6, ``top_k`` 500):

* ``paper``    the paper's Table 4 setting, as the pieces of ``libre_scalability.py`` time it:
               ``max_intervals=None`` (ChiMerge keeps about n / 50 bins per feature), ``conflicts="strict"``,
               ``min_gain=0``;
* ``defaults`` the estimator's own defaults for the other parameters (``max_intervals=5``,
               ``conflicts="majority"``, ``min_gain=0.01``): what a user who passes only those four gets.

Prints one row per (setting, checkout) with medians over the repeats (peak: maximum) and the ratio of
each checkout's median to the first checkout's, and writes ``benchmarks/results/libre_estimator_path.md``.

    python benchmarks/libre_estimator_path.py --repo /path/to/main [--repo .] [--rows 1000000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

HERE = Path(__file__).resolve().parent
SETTINGS = {
    "paper": {"max_intervals": None, "conflicts": "strict", "min_gain": 0.0},
    "defaults": {},
}
COMMON = {"heuristic": "H1", "alpha": 0.7, "chi2_threshold": 6.0, "top_k": 500, "positive": "pos"}
#: Wall-clock limit of one child (seconds).
RUN_TIMEOUT = 1800


def child(n: int, d: int, share: float, seed: int, setting: str) -> None:
    """One fit in this (fresh) process; prints its figures as one JSON line."""
    import resource
    import time
    import warnings

    import numpy as np

    sys.path.insert(0, str(HERE))
    from libre_scalability import make_data

    import optrules

    X, is_positive = make_data(n, d, share, seed)
    y = np.where(is_positive, "pos", "neg")
    started, cpu_started = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # random labels: a fit without rules warns, as it should
        ruleset = optrules.fit(X, y, method="bottom-up", **COMMON, **SETTINGS[setting])
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    print(json.dumps({"fit s": wall, "fit CPU s": cpu, "rules": len(ruleset.rules),
                      "conditions": sum(len(rule.conditions) for rule in ruleset.rules),
                      "peak MB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "module": optrules.__file__}))


def run_child(repo: Path, n: int, d: int, share: float, seed: int, setting: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(repo)}
    completed = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(n), str(d), str(share),
                                str(seed), setting], env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    if completed.returncode != 0:
        raise RuntimeError(f"child for {repo} failed:\n{completed.stderr[-2000:]}")
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    if not result["module"].startswith(str(repo)):
        raise RuntimeError(f"the child imported {result['module']}, not the checkout {repo}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=5, metavar=("N", "D", "SHARE", "SEED", "SETTING"), help=argparse.SUPPRESS)
    parser.add_argument("--repo", action="append", default=None,
                        help="a checkout to time (repeat; the first is the reference; default: this one)")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--share", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--settings", default="paper,defaults", help="comma-separated: paper, defaults")
    parser.add_argument("--out", default=str(HERE / "results" / "libre_estimator_path.md"))
    args = parser.parse_args()
    if args.child:
        n, d, share, seed, setting = args.child
        child(int(n), int(d), float(share), int(seed), setting)
        return

    repos = [Path(r).resolve() for r in (args.repo or [str(HERE.parent)])]
    settings = args.settings.split(",")
    runs: dict[tuple[str, Path], list[dict]] = {(s, r): [] for s in settings for r in repos}
    for setting in settings:
        for k in range(args.repeats):
            for repo in repos:  # alternate the checkouts, same data (seed) for each
                result = run_child(repo, args.rows, args.features, args.share, 1000 * args.features + k, setting)
                runs[(setting, repo)].append(result)
                print(setting, repo, result, flush=True)
    rows = []
    for setting in settings:
        reference = None
        for repo in repos:
            done = runs[(setting, repo)]
            row = {"setting": setting, "checkout": str(repo),
                   "rules": "/".join(sorted({str(r["rules"]) for r in done})),
                   "conditions": "/".join(sorted({str(r["conditions"]) for r in done})),
                   "fit s": statistics.median(r["fit s"] for r in done),
                   "fit CPU s": statistics.median(r["fit CPU s"] for r in done),
                   "peak MB": max(r["peak MB"] for r in done)}
            reference = reference or row
            row["CPU / first"] = row["fit CPU s"] / reference["fit CPU s"]
            row["wall / first"] = row["fit s"] / reference["fit s"]
            rows.append(row)
    table = markdown_table(rows)
    print(table)
    command = ("python benchmarks/libre_estimator_path.py " + " ".join(f"--repo {r}" for r in repos)
               + f" --rows {args.rows} --features {args.features} --share {args.share:g} --repeats {args.repeats}"
               + f" --settings {args.settings}")
    write_report(
        args.out, "LIBRE's estimator path end to end: optrules.fit(method=\"bottom-up\")", command,
        f"{args.rows:,} rows x {args.features} features uniform on [0, 100], random labels (positive share "
        f"{args.share:g}); `optrules.fit(X, y, method=\"bottom-up\", heuristic=\"H1\", alpha=0.7, "
        "chi2_threshold=6, top_k=500, positive=\"pos\")`, setting 'paper' with `max_intervals=None, "
        "conflicts=\"strict\", min_gain=0` (the paper's Table 4 setting, as libre_scalability.py's pieces), "
        "'defaults' with the estimator's other defaults. Each fit in a fresh process with the checkout on "
        "PYTHONPATH, the checkouts alternating on the same data; 'fit s' wall and 'fit CPU s' CPU seconds "
        "of the fit alone (all threads; medians of the repeats), 'peak MB' the child's ru_maxrss (maximum "
        "over the repeats), ratios against the first checkout's medians.\n\n" + table + "\n")


if __name__ == "__main__":
    main()
