"""Building the Cluster-SVM formulations through Pyomo and through cvxpy: build and load seconds.

For german (1,000 rows, 11 clustered features) and adult (48,842 rows, 8 clustered features), with
C = 10, L = 2 and the big-M of the constant classifier's objective, each formulation is built and
loaded into each solver that takes it through each layer, ``--repeats`` times (medians):

* CL-bigM (16)-(28), the MIQP: SCIP through Pyomo (optrules' loader, rows one by one from the CSR
  arrays) and through cvxpy (cvxpy's SCIP interface);
* its convex QP relaxation: HiGHS and SCIP through Pyomo, Clarabel, HiGHS and SCIP through cvxpy;
* CL (7)-(14), the MINLP: SCIP through Pyomo (cvxpy cannot express it).

'load' is the translation into the solver, measured by a solve stopped at once (a 1 ms time limit).

    python benchmarks/cluster_builds.py [--repeats 3] [--datasets german adult]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

import optrules
from optrules.estimators.clsvm import _inputs
from optrules.data import binarize_target, validate_features, validate_target
from optrules.exact.clsvm import big_m, constant_upper_bound
from optrules.models import cl, cl_bigm
from optrules.solvers import solve

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

C = 10.0
CASES = [  # formulation, modeller, solver
    ("CL-bigM MIQP", "pyomo", "scip"), ("CL-bigM MIQP", "cvxpy", "scip"),
    ("CL-bigM relaxation", "pyomo", "highs"), ("CL-bigM relaxation", "pyomo", "scip"),
    ("CL-bigM relaxation", "cvxpy", "clarabel"), ("CL-bigM relaxation", "cvxpy", "highs"),
    ("CL-bigM relaxation", "cvxpy", "scip"),
    ("CL MINLP", "pyomo", "scip"),
]


def cluster_data(name: str):
    X, y = optrules.load(name)
    frame, schema = validate_features(X)
    target = binarize_target(validate_target(y, len(frame)), y.attrs.get("positive"))
    return _inputs(frame, schema, target.is_positive, 2).data


def build(formulation: str, data, modeller: str):
    M = big_m(constant_upper_bound(data.y, C))
    if formulation == "CL MINLP":
        return cl.build(data, C, modeller=modeller)
    return cl_bigm.build(data, C, M, relax=formulation.endswith("relaxation"), modeller=modeller)


def measure(name: str, data, formulation: str, modeller: str, solver: str, repeats: int) -> dict:
    builds, loads = [], []
    for _ in range(repeats):
        began = time.perf_counter()
        model = build(formulation, data, modeller)
        builds.append(time.perf_counter() - began)
        report = solve(model.model, model.problem_class, solver, {"time_limit": 1e-3})
        loads.append(report.load_seconds)
    return {"dataset": name, "rows": data.n, "formulation": formulation, "modeller": modeller, "solver": solver,
            "build s": statistics.median(builds), "load s": statistics.median(loads),
            "build + load s": statistics.median(np.add(builds, loads))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", nargs="+", default=["german", "adult"])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "cluster_builds.md"))
    args = parser.parse_args()
    rows = []
    for name in args.datasets:
        data = cluster_data(name)
        for formulation, modeller, solver in CASES:
            rows.append(measure(name, data, formulation, modeller, solver, args.repeats))
            print(rows[-1], flush=True)
    table = markdown_table(rows)
    print(table)
    write_report(args.out, "Cluster-SVM formulations: build and load through Pyomo and cvxpy",
                 f"python benchmarks/cluster_builds.py --repeats {args.repeats} --datasets {' '.join(args.datasets)}",
                 f"Medians of {args.repeats} builds and loads (C = {C:g}, L = 2, big-M from the constant "
                 "classifier's objective).\n\n" + table + "\n")


if __name__ == "__main__":
    main()
