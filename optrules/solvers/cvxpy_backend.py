"""cvxpy problems: turned into the solver's data once (timed as the load), then solved.

An LP or MILP for HiGHS goes to HiGHS as arrays: read straight from the problem's expressions when
it is made of the affine pieces :mod:`optrules.solvers.cvxpy_affine` takes, else from cvxpy's
canonical conic form (``get_problem_data``: equality and inequality rows, column bounds, boolean and
integer columns). Either way the arrays go through :func:`optrules.solvers.highs.run_arrays`, the
Pyomo path's own: one ``passModel``, the starting point from the variables' values, the same time
limit handling (a large MIP under a limit runs in a child process stopped at the deadline). Every
other problem goes to the solver through cvxpy's own interface (``solve_via_data``) with what is left
of the deadline.

The solver's raw answer is read *before* cvxpy maps it: cvxpy maps a SCIP time limit to
``optimal_inaccurate`` and fills variables with garbage after a HiGHS time limit without
incumbent. A reader returns (termination, has_solution, incumbent, dual bound, solver seconds,
note), the middle two in the solver's internal minimisation space; a reader also sees the native
options (HiGHS' node limit is told from its node count).
"""

from __future__ import annotations

import time
import warnings
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

from optrules.solvers.cvxpy_affine import affine_form
from optrules.solvers.highs import NO_DUAL_BOUND_NOTE, HighsRun, highs_word, run_arrays
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
    word = highs_word(raw["model_status"], info.mip_node_count, native)
    note = NO_DUAL_BOUND_NOTE if is_mip and dual is None and word != "optimal" else ""
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
    form = affine_form(problem) if backend.engine == "HIGHS" else None
    data = None  # cvxpy's canonical data, for a problem the affine form declines
    if form is None:
        with silenced(verbose):  # highspy prints a banner on first use even when silenced
            data, chain, inverse = problem.get_problem_data(backend.engine, solver_opts=dict(native),
                                                            canon_backend=CANON_BACKEND)
    if form is not None or (backend.engine == "HIGHS" and cvxpy.settings.P not in data):  # an LP or a MILP
        if form is not None:
            arrays, start = form.arrays, (form.start() if warm_start else None)
        else:  # cvxpy's conic form
            arrays, start = _conic_highs_arrays(data), (_conic_start(problem, data) if warm_start else None)
        run = run_arrays(arrays, dict(native), start, began, deadline, verbose, version)
        if isinstance(run, Outcome):
            return run
        raw, limit_note = _highs_raw(run, int(arrays["shape"][1])), run.note
        reading = _READERS[backend.engine](raw, native)
        seconds = {"load_seconds": run.load_seconds, "solve_seconds": run.run_seconds, "time_limit": run.limit}
    else:
        with silenced(verbose):
            loaded = time.perf_counter()
            options = dict(native)
            limit = time_left(options.get(limit_key), deadline, loaded) if limit_key is not None else None
            limit_note = ""
            if backend.engine == "SCIP":
                options, limit_note = scip_safe_options(options, data["A"].nnz, limit is not None)
            if limit is not None:
                if limit <= 0:
                    return Outcome.not_run(backend.engine, version, loaded - began)
                options[limit_key] = float(limit)
            raw = chain.solve_via_data(problem, data, warm_start, verbose, options)
            finished = time.perf_counter()
        reading = _READERS[backend.engine](raw, native)
        solver_seconds = reading[4]
        # cvxpy builds the solver's own model inside solve_via_data: that part is load time too
        run_seconds = finished - loaded if solver_seconds is None else min(solver_seconds, finished - loaded)
        seconds = {"load_seconds": finished - began - run_seconds, "solve_seconds": run_seconds, "time_limit": limit}
    termination, has_solution, _, dual, _, note = reading
    note = "; ".join(part for part in (note, limit_note) if part)
    bound = None if termination in _NO_POINT else _solver_bound(dual, form, data, maximize)
    if not has_solution or termination in _NO_POINT:
        return Outcome(termination, False, bound=bound, version=version, note=note, **seconds)
    if form is not None:
        status = cvxpy.settings.OPTIMAL if termination == "optimal" else cvxpy.settings.USER_LIMIT
        form.unpack(problem, status, raw["solution"].col_value, raw["solution"].row_dual)
        return Outcome(termination, True, finite(problem.value), bound, version, note, **seconds)
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
    return Outcome(termination, True, finite(problem.value), bound, version, note, **seconds)


def _solver_bound(dual: float | None, form: Any, data: dict[str, Any] | None, maximize: bool) -> float | None:
    """A solver's bound moved into the problem's terms: the affine form hands HiGHS the whole
    objective, cvxpy's conic form hands its solver all of it but its constant d
    (``apply_parameters``); either minimises a maximised f as -f. (Moving it by the difference
    between the returned point's value and the solver's reported one assumed the solver reported
    the value of the point it returned: HiGHS 1.16 once reported 10.85 for a warm start worth
    12.6 and called it optimal, and that shift raised the bound to 12.6 over a true optimum of 11.6.)"""
    if dual is None:
        return None
    if form is None:
        from cvxpy import settings

        dual += float(np.asarray(data[settings.PARAM_PROB].apply_parameters()[1]))
    return -dual if maximize else dual


def _conic_highs_arrays(data: dict[str, Any]) -> dict[str, np.ndarray]:
    """cvxpy's conic data for HiGHS as :func:`optrules.solvers.highs_arrays.model_arrays`' arrays:
    minimise c^T x subject to A x = b on the first ``dims.zero`` rows and A x <= b on the others, the
    column bounds, and the boolean (within [0, 1]) and integer columns. cvxpy keeps the objective's
    constant for itself (it adds it back when it unpacks the solution)."""
    from cvxpy import settings

    A = data[settings.A].tocsc()
    n_rows, n_cols = A.shape
    b = np.asarray(data[settings.B], dtype=np.float64)
    lower, upper = data.get(settings.LOWER_BOUNDS), data.get(settings.UPPER_BOUNDS)
    col_lower = np.full(n_cols, -np.inf) if lower is None else np.array(lower, dtype=np.float64)
    col_upper = np.full(n_cols, np.inf) if upper is None else np.array(upper, dtype=np.float64)
    boolean = np.asarray(data.get(settings.BOOL_IDX, []), dtype=np.int32)
    col_lower[boolean] = np.maximum(col_lower[boolean], 0.0)
    col_upper[boolean] = np.minimum(col_upper[boolean], 1.0)
    integer = np.union1d(boolean, np.asarray(data.get(settings.INT_IDX, []), dtype=np.int32)).astype(np.int32)
    n_equal = int(data[settings.DIMS].zero)
    return {"shape": np.array([n_cols, n_rows], dtype=np.int64),
            "cost": np.asarray(data[settings.C], dtype=np.float64), "offset": np.zeros(1),
            "maximize": np.array([False]), "col_lower": col_lower, "col_upper": col_upper,
            "row_lower": np.concatenate([b[:n_equal], np.full(n_rows - n_equal, -np.inf)]), "row_upper": b,
            "a_start": A.indptr.astype(np.int32), "a_index": A.indices.astype(np.int32),
            "a_value": A.data.astype(np.float64), "integer": integer}


def _conic_start(problem: Any, data: dict[str, Any]) -> np.ndarray:
    """The starting point in the columns of cvxpy's conic form: each variable of ``problem`` with a
    value at its columns (cvxpy stacks a variable column-major), NaN (unknown) elsewhere. A variable
    cvxpy keeps in another number of columns (a symmetric matrix as its upper triangle) stays unknown."""
    from cvxpy import settings

    program = data[settings.PARAM_PROB]
    start = np.full(program.x.size, np.nan)
    sizes = {variable.id: variable.size for variable in program.variables}
    for variable in problem.variables():
        column = program.var_id_to_col.get(variable.id)
        if column is not None and variable.value is not None and sizes.get(variable.id) == variable.size:
            start[column:column + variable.size] = np.asarray(variable.value, dtype=np.float64).flatten(order="F")
    return start


def _highs_raw(run: HighsRun, n_rows: int) -> dict[str, Any]:
    """A HiGHS run in the shape of the raw answer of cvxpy's HiGHS interface: what ``_read_highs``
    reads, and what cvxpy unpacks on the conic path."""
    found = run.found
    info = SimpleNamespace(objective_function_value=found["objective"], mip_dual_bound=found["mip_dual_bound"],
                           mip_node_count=found["mip_node_count"],
                           primal_solution_status=found["primal_solution_status"], **found["iteration_counts"])
    solution = SimpleNamespace(col_value=found.get("col_value"), row_dual=found.get("row_dual", np.full(n_rows, np.nan)))
    return {"model_status": found["status"], "info": info, "solution": solution, "run_time": run.run_seconds}
