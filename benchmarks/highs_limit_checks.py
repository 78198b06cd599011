"""How long HiGHS goes without looking at its clock on a MIP, and whether a time limit holds.

Every instance is a set-cover ILP (SC0-SC4, no pair cuts, no warm start), read into HiGHS' arrays
as the package does. Each is solved twice under ``--time-limit`` seconds:

* **in this process**, straight through highspy, counting HiGHS' limit checks with its
  ``kCallbackMipInterrupt`` callback (HiGHS calls it where it checks its limits): the number of
  checks, the longest stretch between two of them (from the start of the run to the first, between
  checks, from the last to the end) and the wall time of the run;
* **through** ``optrules.solvers.solve``, which runs every HiGHS MIP under a limit in a child process
  stopped 5% of the limit plus 1 s after the deadline (``optrules.solvers.highs_process``): its wall
  time, status, objective, bound and gap, and whether the child was stopped.

A limit holds when the wall time is at most ``time_limit * 1.1 + 2`` s. With ``--repeats`` above 1
each figure is the worst (longest) of the repeats.

    python benchmarks/highs_limit_checks.py [--time-limit 10] [--repeats 1] [--instances LABEL ...]
        [--out results/highs_limit_checks.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)
from set_cover import real_instance, random_instance  # noqa: E402  (benchmarks/set_cover.py)
from time_limits import SLACK  # noqa: E402  (benchmarks/time_limits.py: on time within limit * 1.1 + 2 s)

from optrules.models import set_cover as model
from optrules.solvers import solve
from optrules.solvers.cvxpy_affine import affine_form
from optrules.solvers.highs_arrays import load_arrays, run_loaded, set_up

INSTANCES = {
    "german (500)": lambda: real_instance("german", 500)[0],
    "german (2000)": lambda: real_instance("german", 2000)[0],
    "random 200 x 500 5%": lambda: random_instance(200, 500, 0.05, 200),
    "random 400 x 500 10%": lambda: random_instance(400, 500, 0.10, 400),
    "random 800 x 500 5%": lambda: random_instance(800, 500, 0.05, 800),
    "random 1k x 500 20%": lambda: random_instance(1000, 500, 0.20, 1000),
}


def in_process(arrays: dict[str, np.ndarray], limit: float) -> dict[str, float]:
    """HiGHS run in this process on ``arrays``: its limit checks and wall time."""
    import highspy

    highs = load_arrays(arrays, highspy)
    set_up(highs, highspy, {}, None, False)
    checks: list[float] = []
    highs.setCallback(lambda *args: checks.append(time.perf_counter()), None)
    highs.startCallback(highspy.cb.HighsCallbackType.kCallbackMipInterrupt)
    began = time.perf_counter()
    run_loaded(highs, limit)
    ended = time.perf_counter()
    stamps = np.array([began, *checks, ended])
    return {"checks": len(checks), "longest": float(np.max(np.diff(stamps))), "wall": ended - began}


def through_package(instance, limit: float) -> dict:
    """The same model built by the package and solved by ``optrules.solvers.solve`` under ``limit``."""
    built = model.build(instance, modeller="cvxpy")
    began = time.perf_counter()
    report = solve(built.model, built.problem_class, "highs", {"time_limit": limit})
    return {"wall": time.perf_counter() - began, "status": report.status.value, "objective": report.objective,
            "bound": report.best_bound, "gap": report.gap, "stopped": "process was stopped" in report.note}


def on_time(wall: float, limit: float) -> bool:
    return wall <= limit * SLACK[0] + SLACK[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--instances", nargs="+", choices=sorted(INSTANCES), default=list(INSTANCES), metavar="LABEL")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "highs_limit_checks.md"))
    args = parser.parse_args(argv)
    limit, rows = args.time_limit, []
    for label in args.instances:
        instance = INSTANCES[label]().reduce().instance
        arrays = affine_form(model.build(instance, modeller="cvxpy").model).arrays
        here = [in_process(arrays, limit) for _ in range(args.repeats)]
        apart = [through_package(instance, limit) for _ in range(args.repeats)]
        worst = max(apart, key=lambda run: run["wall"])
        row = {"instance": label, "nonzeros": int(arrays["a_value"].size),
               "checks": min(run["checks"] for run in here),
               "longest s without a check": max(run["longest"] for run in here),
               "in process: wall s": max(run["wall"] for run in here),
               "in process: on time": "yes" if all(on_time(run["wall"], limit) for run in here) else "no",
               "optrules: wall s": worst["wall"],
               "optrules: on time": "yes" if all(on_time(run["wall"], limit) for run in apart) else "no",
               "status": ", ".join(sorted({run["status"] for run in apart})),
               "child stopped": sum(run["stopped"] for run in apart),
               "objective": worst["objective"], "bound": worst["bound"],
               "gap %": None if worst["gap"] is None else 100 * worst["gap"]}
        rows.append({key: (np.nan if value is None else value) for key, value in row.items()})
        print(rows[-1], flush=True)
    table = markdown_table(rows)
    print(table)
    command = "python benchmarks/highs_limit_checks.py " + " ".join(sys.argv[1:] if argv is None else argv)
    write_report(args.out, "HiGHS' limit checks on set-cover MIPs, and time limits through optrules", command.strip(),
                 __doc__.split("\n\n", 1)[1].rsplit("\n\n", 1)[0] + f"\n\nTime limit: {limit:g} s; on time: wall "
                 f"<= {limit:g} x {SLACK[0]} + {SLACK[1]:g} s; {args.repeats} run(s) each.\n\n{table}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
