"""When an exact solve's answer gives way to the heuristic warm start it was given.

Every exact selection (the set cover, the rule master of column generation, CL-bigM and CL) passes a
heuristic solution to its solver as a start, and returns that start instead of the solver's answer
when the solver returned none, returned one worse than the start, or stopped at a limit with nothing
better: a fallback, said with its reason. Objectives are compared within the solvers' tolerance,
:data:`optrules.solvers.report.GAP_EPS` times ``max(1, |start|)``: a proven optimum at most that far
above the start (SCIP's CL-bigM optimum lay 4e-8 above an optimal SVM_C start) proves the start
optimal; the start, whose value is the lower, is returned then, and it is no fallback.
"""

from __future__ import annotations

from dataclasses import dataclass

from optrules.solvers import SolveReport, Status
from optrules.solvers.report import GAP_EPS

__all__ = ["StartOrSolver", "start_or_solver"]


@dataclass(frozen=True)
class StartOrSolver:
    """``use_start``: return the start, not the solver's point; ``fallback_reason``: why the start is a
    fallback ("" when it is not one: the solver's point is returned, or the start is the proven optimum)."""

    use_start: bool
    fallback_reason: str


def start_or_solver(report: SolveReport, objective: float | None, start_objective: float, solver: str,
                    start: str) -> StartOrSolver:
    """Which point to return, the solver's of value ``objective`` (None: no solution) or ``start`` (its
    name in words, e.g. "the greedy start", of value ``start_objective``), for a minimisation."""
    tolerance = GAP_EPS * max(1.0, abs(start_objective))
    if objective is None:
        reason = f"{solver} returned no solution ({report.status.value}: {report.termination}); {start} is returned"
    elif objective > start_objective + tolerance:
        reason = (f"{solver}'s solution ({report.status.value}, {objective:.6g}) is worse than {start} "
                  f"({start_objective:.6g}), which is returned")
    elif report.status is not Status.OPTIMAL and objective >= start_objective - tolerance:
        reason = f"{solver} stopped ({report.termination}) with no incumbent better than {start}, which is returned"
    else:
        return StartOrSolver(objective > start_objective, "")  # a proven tie: the lower value is the start's
    return StartOrSolver(True, reason)
