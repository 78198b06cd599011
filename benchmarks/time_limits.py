"""Time limits that hold in wall time: each exact method fitted with time_limit 1, 10 and 60 s.

For every dataset x method x limit the fit runs ``--repeats`` times, each in a fresh process (the
child measures ``estimator.fit`` itself, as ``Ruleset.meta["fit_seconds"]``), and the table gives:

* ``fit s``: the median fit wall time (min-max over the repeats);
* ``exact s``: the median wall time of the exact part, which ``time_limit`` bounds (reduction, warm
  start, bound QPs, cut rounds, model build, load and solve, roundings);
* ``outside s``: the rest of the fit, which no limit bounds (input checks, candidate mining or
  LIBRE's weak learners, the scorecard design);
* ``fit ok`` / ``exact ok``: every repeat within ``time_limit * 1.1 + 2`` s;
* the statuses, fallbacks and median gap of the repeats.

Methods: ``setcover`` (candidates mined with the defaults, the set-cover ILP), ``libre-ilp``
(LIBRE's weak learners with the defaults, the set-cover ILP on their boundary), ``clm``, ``cl`` and
``cl-rr`` (C = 10, the defaults). Every fit uses all rows of the dataset.

    python benchmarks/time_limits.py [--repeats 3] [--limits 1 10 60] [--datasets german adult]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

METHODS = ("setcover", "libre-ilp", "clm", "cl", "cl-rr")
SLACK = (1.1, 2.0)  #: a fit is on time when it takes at most time_limit * 1.1 + 2 s


def child(dataset: str, method: str, limit: float) -> None:
    """Fit once and print the figures as JSON (run in a fresh process by the parent)."""
    import optrules
    from optrules.registry import make_estimator

    X, y = optrules.load(dataset)
    params: dict = {"solver_options": {"time_limit": limit}}
    if method == "libre-ilp":
        name, params["selection"] = "libre", "ilp"
    else:
        name = method
    if name in ("clm", "cl", "cl-rr"):
        params["C"] = 10.0
    estimator = make_estimator(name, **params)
    began = time.perf_counter()
    estimator.fit(X, y)
    wall = time.perf_counter() - began
    meta = estimator.ruleset_.meta
    print(json.dumps({"fit": wall, "exact": meta.get("exact_seconds"), "status": meta.get("status"),
                      "fallback": meta.get("fallback"), "gap": meta.get("gap"),
                      "stages": {k: v for k, v in meta.items() if k.endswith("_seconds")
                                 and k not in ("fit_seconds", "exact_seconds")}}))


def measure(dataset: str, method: str, limit: float, repeats: int) -> dict:
    runs = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, __file__, "--child", dataset, method, str(limit)],
                             capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    bound = limit * SLACK[0] + SLACK[1]
    fits = [r["fit"] for r in runs]
    exacts = [r["exact"] for r in runs]
    gaps = [r["gap"] for r in runs if r["gap"] is not None]
    stages = {k: statistics.median(r["stages"].get(k, 0.0) for r in runs) for k in runs[0]["stages"]}
    return {
        "dataset": dataset, "method": method, "time limit": limit,
        "fit s": f"{statistics.median(fits):.2f} ({min(fits):.2f}-{max(fits):.2f})",
        "exact s": statistics.median(exacts),
        "outside s": statistics.median(f - e for f, e in zip(fits, exacts)),
        "fit ok": "yes" if max(fits) <= bound else f"no (> {bound:g})",
        "exact ok": "yes" if max(exacts) <= bound else f"no (> {bound:g})",
        "status": ", ".join(f"{s} x{n}" for s, n in _counts(r["status"] for r in runs)),
        "fallback": ", ".join(f"{s} x{n}" for s, n in _counts(r["fallback"] or "-" for r in runs)),
        "gap %": 100 * statistics.median(gaps) if gaps else float("nan"),
        "stages (median s)": ", ".join(f"{k[:-8]} {v:.2f}" for k, v in stages.items()),
    }


def _counts(values) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for value in values:
        counts[str(value)] = counts.get(str(value), 0) + 1
    return list(counts.items())


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], float(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limits", type=float, nargs="+", default=[1.0, 10.0, 60.0])
    parser.add_argument("--datasets", nargs="+", default=["german", "adult"])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "time_limits.md"))
    args = parser.parse_args()
    rows = []
    for dataset in args.datasets:
        for method in args.methods:
            for limit in args.limits:
                rows.append(measure(dataset, method, limit, args.repeats))
                print(rows[-1], flush=True)
    table = markdown_table(rows)
    print(table)
    command = (f"python benchmarks/time_limits.py --repeats {args.repeats} --limits "
               f"{' '.join(f'{x:g}' for x in args.limits)} --datasets {' '.join(args.datasets)}"
               + ("" if args.methods == list(METHODS) else f" --methods {' '.join(args.methods)}"))
    write_report(args.out, "Time limits in wall time: exact fits at 1, 10 and 60 s", command,
                 f"{__doc__.split(chr(10) + chr(10), 1)[1].split('    python')[0]}\n{table}\n")


if __name__ == "__main__":
    main()
