"""cvxpy's canonicalisation backends on the package's cvxpy models: which one loads them fastest.

Every cvxpy model the package solves is canonicalised once per solve (``Problem.get_problem_data``,
``optrules.solvers.cvxpy_backend``); cvxpy offers three backends for it (``canon_backend``:
``CPP``, ``SCIPY``, ``COO``). For each model below and each backend this times the
canonicalisation alone, ``--repeats`` times on fresh Problems (medians), the backends alternating
within each round:

* the set-cover ILP (SC0)-(SC4) of ``benchmarks/set_cover.py`` for HiGHS: german with 500 mined
  candidates (760 rows), random 10,000 x 500 and 100,000 x 500 at 20% density;
* adult's CL-bigM QP relaxation for Clarabel and its MIQP for SCIP (``benchmarks/cluster_builds.py``'s
  data: C = 10, L = 2);
* adult's SVM_O QP for Clarabel (every category its own dummy).

    python benchmarks/canon_backends.py [--repeats 3] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from optrules.exact.clsvm import big_m, constant_upper_bound
from optrules.models import cl_bigm, svm
from optrules.models import set_cover as set_cover_model

from cluster_builds import C, cluster_data  # noqa: E402  (benchmarks/cluster_builds.py)
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)
from set_cover import random_instance, real_instance  # noqa: E402  (benchmarks/set_cover.py)

BACKENDS = ("CPP", "SCIPY", "COO")


def cases(quick: bool) -> list[tuple[str, str, object]]:
    """(label, cvxpy solver name, a function making a fresh Problem) of every model timed."""
    german = real_instance("german", 500)[0].reduce().instance
    made = [("set cover german-500", "HIGHS", lambda: set_cover_model.build(german, modeller="cvxpy").model)]
    sizes = [10_000] if quick else [10_000, 100_000]
    for n in sizes:
        instance = random_instance(n, 500, 0.2, seed=n).reduce().instance
        made.append((f"set cover random {n // 1000}k x 500, 20%", "HIGHS",
                     lambda instance=instance: set_cover_model.build(instance, modeller="cvxpy").model))
    if not quick:
        data = cluster_data("adult")
        M = big_m(constant_upper_bound(data.y, C))
        made.append(("CL-bigM relaxation adult", "CLARABEL",
                     lambda: cl_bigm.build(data, C, M, relax=True, modeller="cvxpy").model))
        made.append(("CL-bigM MIQP adult", "SCIP", lambda: cl_bigm.build(data, C, M, modeller="cvxpy").model))
        dummies = np.hstack([np.eye(size)[code] for code, size in zip(data.codes, data.n_categories)])
        made.append(("SVM_O QP adult", "CLARABEL", lambda: svm.build(dummies, data.numeric, data.y, C).problem))
    return made


def measure(label: str, solver: str, make, repeats: int) -> dict:
    seconds: dict[str, list[float]] = {backend: [] for backend in BACKENDS}
    for _ in range(repeats):
        for backend in BACKENDS:
            problem = make()
            began = time.perf_counter()
            problem.get_problem_data(solver, canon_backend=backend)
            seconds[backend].append(time.perf_counter() - began)
    medians = {backend: statistics.median(values) for backend, values in seconds.items()}
    fastest = min(medians, key=medians.get)
    return {"model": label, "solver": solver, **{f"{b} s": medians[b] for b in BACKENDS},
            "fastest": fastest, **{f"{b} / fastest": medians[b] / medians[fastest] for b in BACKENDS}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="the small models only (a smoke run)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "canon_backends.md"))
    args = parser.parse_args()
    rows = []
    for label, solver, make in cases(args.quick):
        rows.append(measure(label, solver, make, args.repeats))
        print(rows[-1], flush=True)
    table = markdown_table(rows)
    print(table)
    write_report(args.out, "cvxpy's canonicalisation backends on the package's cvxpy models",
                 f"python benchmarks/canon_backends.py --repeats {args.repeats}{' --quick' if args.quick else ''}",
                 "Seconds of `Problem.get_problem_data(solver, canon_backend=...)` alone on a fresh Problem, "
                 f"medians of {args.repeats} rounds, the backends alternating within each round.\n\n{table}\n")


if __name__ == "__main__":
    main()
