"""When an exact solve's answer gives way to the heuristic warm start it was given.

Every exact selection (the set cover, the rule master of column generation, CL-bigM and CL) passes a
heuristic solution to its solver as a start and returns that start instead of the solver's answer
when the solver returned none, returned one worse than the start, or stopped at a limit with nothing
better. Objectives are compared within the solvers' tolerance (:data:`optrules.solvers.report.GAP_EPS`,
relative): an optimum 4e-8 above the start (SCIP on a CL-bigM model) is the start's value, proven,
not a fallback.
"""

from __future__ import annotations

from optrules.solvers import SolveReport, Status
from optrules.solvers.report import GAP_EPS

__all__ = ["start_fallback_reason"]


def start_fallback_reason(report: SolveReport, objective: float | None, start_objective: float, solver: str,
                          start: str) -> str:
    """Why ``start`` (its name in words, e.g. "the greedy start") is returned instead of the solver's
    solution of value ``objective`` (None: no solution), or "" when the solver's solution is kept: a
    proven optimum no worse than the start, or a better incumbent."""
    tolerance = GAP_EPS * max(1.0, abs(start_objective))
    if objective is None:
        return f"{solver} returned no solution ({report.status.value}: {report.termination}); {start} is returned"
    if objective > start_objective + tolerance:
        return (f"{solver}'s solution ({report.status.value}, {objective:.6g}) is worse than {start} "
                f"({start_objective:.6g}), which is returned")
    if report.status is not Status.OPTIMAL and objective >= start_objective - tolerance:
        return f"{solver} stopped ({report.termination}) with no incumbent better than {start}, which is returned"
    return ""
