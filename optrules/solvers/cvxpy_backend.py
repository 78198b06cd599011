"""cvxpy problems: canonicalised once (``get_problem_data``, timed as the load), then handed to the
solver through cvxpy's own interface (``solve_via_data``) with what is left of the deadline.

The solver's raw answer is read *before* cvxpy maps it: cvxpy maps a SCIP time limit to
``optimal_inaccurate`` and fills variables with garbage after a HiGHS time limit without
incumbent. A reader returns (termination, has_solution, incumbent, dual bound, solver seconds,
note), the middle two in the solver's internal minimisation space; a reader also sees the native
options (HiGHS' node limit is told from its node count).
"""

from __future__ import annotations

import time
import warnings
from typing import Any, Callable

from optrules.solvers.highs import highs_word, limit_safe_options
from optrules.solvers.registry import Backend
from optrules.solvers.output import silenced
from optrules.solvers.report import Outcome, finite, time_left
from optrules.solvers.scip import limit_safe_options as scip_safe_options
from optrules.solvers.scip import NO_BOUND_NOTE, scip_dual_bound, scip_word

__all__ = ["run_cvxpy"]

_NO_POINT = ("infeasible", "unbounded", "infeasible_or_unbounded")
#: cvxpy's canonicalisation backend. Measured here (cvxpy 1.9.3): the set cover of 100k x 500 random
#: rows at 20% density canonicalises in 13.4 s with cvxpy's default "CPP", 9.9 s with "SCIPY" and
#: 8.3 s with "COO"; adult's SVM QP (48,842 x 100 dummies) in 0.38 / 0.23 / 0.26 s and its CL-bigM
#: relaxation in 0.44 / 0.34 / 0.37 s. "SCIPY" is fastest or within 20% of it on every one.
CANON_BACKEND = "SCIPY"
Reading = tuple[str, bool, "float | None", "float | None", "float | None", str]


def _read_highs(raw: Any, native: dict[str, Any]) -> Reading:
    info = raw["info"]
    is_mip = info.mip_node_count >= 0  # -1 for LP/QP
    dual = finite(info.mip_dual_bound) if is_mip else None
    word = highs_word(raw["model_status"], info, native)
    note = "HiGHS had no dual bound yet (it stopped before its root LP relaxation was solved)" \
        if is_mip and dual is None and word != "optimal" else ""
    return (word, info.primal_solution_status == 2, info.objective_function_value, dual,
            finite(raw.get("run_time")), note)


def _read_scip(raw: Any, native: dict[str, Any]) -> Reading:
    scip = raw["model"]
    has = scip.getNSols() > 0
    word, bound = scip_word(raw["scip_status"]), scip_dual_bound(scip)
    note = NO_BOUND_NOTE if bound is None and word not in ("optimal", "infeasible") else ""
    return word, has, scip.getPrimalbound() if has else None, bound, finite(scip.getSolvingTime()), note


def _read_gurobi(raw: Any, native: dict[str, Any]) -> Reading:
    grb = raw["model"]
    words = {2: "optimal", 3: "infeasible", 4: "infeasible_or_unbounded", 5: "unbounded",
             6: "objective_limit", 7: "iteration_limit", 8: "node_limit", 9: "time_limit",
             10: "solution_limit", 11: "interrupted", 15: "objective_limit", 17: "memory_limit"}
    has = grb.SolCount > 0
    try:
        bound = grb.ObjBound if grb.IsMIP else None
    except Exception:  # gurobipy raises when no bound is available
        bound = None
    return (words.get(grb.Status, f"error: Gurobi status {grb.Status}"), has, grb.ObjVal if has else None, bound,
            finite(grb.Runtime), "")


_INTERIOR_NOTE = "an interior-point iterate stopped at a limit is not a feasible point: no solution, no bound"


def _read_clarabel(raw: Any, native: dict[str, Any]) -> Reading:
    words = {"Solved": "optimal", "AlmostSolved": "inaccurate", "PrimalInfeasible": "infeasible",
             "AlmostPrimalInfeasible": "infeasible", "DualInfeasible": "unbounded",
             "AlmostDualInfeasible": "unbounded", "MaxIterations": "iteration_limit", "MaxTime": "time_limit",
             "CallbackTerminated": "interrupted"}
    status = str(raw.status)
    word = words.get(status, f"error: Clarabel status {status}")
    has = word in ("optimal", "inaccurate")
    return word, has, None, None, finite(getattr(raw, "solve_time", None)), "" if has else _INTERIOR_NOTE


def _read_osqp(raw: Any, native: dict[str, Any]) -> Reading:
    words = {"solved": "optimal", "solved inaccurate": "inaccurate", "primal infeasible": "infeasible",
             "primal infeasible inaccurate": "infeasible", "dual infeasible": "unbounded",
             "dual infeasible inaccurate": "unbounded", "maximum iterations reached": "iteration_limit",
             "run time limit reached": "time_limit", "interrupted": "interrupted"}
    status = str(raw.info.status)
    word = words.get(status, f"error: OSQP status {status}")
    has = word in ("optimal", "inaccurate")
    note = "" if has else "an ADMM iterate stopped at a limit is not a feasible point: no solution, no bound"
    return word, has, None, None, finite(getattr(raw.info, "run_time", None)), note


_READERS: dict[str, Callable[[Any, dict[str, Any]], Reading]] = {
    "HIGHS": _read_highs, "SCIP": _read_scip, "GUROBI": _read_gurobi,
    "CLARABEL": _read_clarabel, "OSQP": _read_osqp,
}


def run_cvxpy(problem: Any, backend: Backend, native: dict[str, Any], verbose: bool, warm_start: bool,
              maximize: bool, deadline: float | None, version: str) -> Outcome:
    """Canonicalise ``problem`` for ``backend``, solve it until ``deadline`` at the latest, and unpack
    the solution into the problem's variables when there is one."""
    import cvxpy

    limit_key = backend.options.get("time_limit")
    began = time.perf_counter()
    with silenced(verbose):  # highspy prints a banner on first use even when silenced
        data, chain, inverse = problem.get_problem_data(backend.engine, solver_opts=dict(native),
                                                        canon_backend=CANON_BACKEND)
        loaded = time.perf_counter()
        options = dict(native)
        limit = time_left(options.get(limit_key), deadline, loaded) if limit_key is not None else None
        safe_note = ""
        if backend.engine == "HIGHS":
            is_mip = bool(len(data.get("bool_vars_idx", ())) or len(data.get("int_vars_idx", ())))
            options, safe_note = limit_safe_options(options, is_mip, data["A"].nnz, limit is not None)
        elif backend.engine == "SCIP":
            options, safe_note = scip_safe_options(options, data["A"].nnz, limit is not None)
        if limit is not None:
            if limit <= 0:
                return Outcome.not_run(backend.engine, version, loaded - began)
            options[limit_key] = float(limit)
        raw = chain.solve_via_data(problem, data, warm_start, verbose, options)
        finished = time.perf_counter()
    termination, has_solution, primal, dual, solver_seconds, note = _READERS[backend.engine](raw, native)
    note = "; ".join(part for part in (note, safe_note) if part)
    # cvxpy builds the solver's own model inside solve_via_data: that part is load time too
    run = finished - loaded if solver_seconds is None else min(solver_seconds, finished - loaded)
    seconds = {"load_seconds": finished - began - run, "solve_seconds": run, "time_limit": limit}
    if not has_solution or termination in _NO_POINT:
        return Outcome(termination, False, version=version, note=note, **seconds)
    if backend.engine == "SCIP" and raw.get("status") == cvxpy.settings.SOLVER_ERROR and "primal" in raw:
        # cvxpy's SCIP interface files a stop at a solution, stall-node or memory limit with an
        # incumbent as a solver error and would not unpack it; the status words above are ours
        raw["status"] = cvxpy.settings.OPTIMAL_INACCURATE
    try:
        with warnings.catch_warnings():  # cvxpy's "may be inaccurate" warning: the report says it better
            warnings.simplefilter("ignore", UserWarning)
            problem.unpack_results(raw, chain, inverse)
    except cvxpy.error.SolverError as exc:
        return Outcome(f"error: {exc}", False, version=version, **seconds)
    objective = finite(problem.value)
    bound = None
    if objective is not None and finite(primal) is not None and finite(dual) is not None:
        # cvxpy hands every solver a minimisation (a maximised f becomes min -f), constants dropped
        bound = objective + (primal - dual if maximize else dual - primal)
    return Outcome(termination, True, objective, bound, version, note, **seconds)
