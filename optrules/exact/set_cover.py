"""Exact rule selection: reduce the weighted set-cover instance, warm-start from greedy, solve the ILP.

The model itself is ``optrules.models.set_cover`` (equations SC0-SC4). Here we only orchestrate:

1. ``CoverInstance.reduce`` merges identical rows, drops duplicate/dominated candidates and folds
   rows covered by one candidate into costs (exact: the optimum and its value are unchanged);
2. the greedy weighted set cover on the reduced instance gives a feasible start, so a solver stopped
   at a limit still returns a selection at least as good as the heuristic's;
3. the ILP (or its LP relaxation, for a lower bound) is built and solved by the solver layer,
   and the selection is mapped back to the original candidates.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from optrules.cover import CoverInstance
from optrules.learners.selection import greedy_cover
from optrules.models import set_cover as model
from optrules.solvers import SolveReport, Status, solve

__all__ = ["SetCoverResult", "solve_set_cover"]


@dataclass(frozen=True)
class SetCoverResult:
    """Chosen candidates (original indices), their objective on the original instance, the solve report.

    ``from_start`` is True when the solver returned no solution of its own and the greedy start
    is what ``selected`` holds (the report's status then says ``no_solution``).
    """

    selected: np.ndarray
    objective: float
    report: SolveReport
    n_rows: int
    n_candidates: int
    from_start: bool = False


def solve_set_cover(instance: CoverInstance, max_rules: int | None = None, solver: str = "highs",
                    solver_options: dict | None = None, relax: bool = False,
                    atoms: np.ndarray | None = None) -> SetCoverResult:
    """Solve the set-cover ILP (or, with ``relax=True``, its LP relaxation) of ``instance`` exactly."""
    started = time.perf_counter()
    reduced = instance.reduce()
    small = reduced.instance
    small_atoms = None if atoms is None else np.asarray(atoms)[reduced.columns]
    start = greedy_cover(small, max_rules=max_rules, atoms=small_atoms)
    problem = model.problem_class(relax)
    if small.n_candidates == 0:
        # Nothing to decide: every candidate was useless, so the empty selection is optimal.
        report = SolveReport(solver="none", solver_version="", problem_class=problem, status=Status.OPTIMAL,
                             termination="no candidate left after reduction", objective=small.constant,
                             best_bound=small.constant, gap=0.0, solve_seconds=0.0,
                             build_seconds=time.perf_counter() - started, options={})
        return SetCoverResult(np.zeros(0, int), instance.objective([]), report, 0, 0)
    m = model.build(small, max_rules=max_rules, relax=relax, start=start)
    build_seconds = time.perf_counter() - started
    report = solve(m, problem, solver=solver, options=solver_options, warm_start=not relax,
                   build_seconds=build_seconds)
    from_start = not report.has_solution
    if from_start:
        chosen = start
    else:
        chosen = model.extract(m).selected
    selected = np.sort(reduced.columns[chosen])
    objective = report.objective if relax and report.has_solution else instance.objective(selected)
    return SetCoverResult(selected, float(objective), report, small.coverage.shape[0],
                          small.n_candidates, from_start)
