"""The entry point :func:`solve`: check the request, run the backend, judge its outcome honestly."""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import Any, Mapping

from optrules.solvers.cvxpy_backend import run_cvxpy
from optrules.solvers.highs import run_highs
from optrules.solvers.options import WHOLE_SECONDS, check_unified, native_options, native_time_limit
from optrules.solvers.pyomo_environ import run_pyomo, run_pyomo_legacy
from optrules.solvers.registry import Backend, SolverError, as_class, backend_for, version_string
from optrules.solvers.report import GAP_EPS, Outcome, ProblemClass, SolveReport, Status, relative_gap
from optrules.solvers.scip import run_scip
from optrules.solvers.standard_form import compile_model

__all__ = ["SOLVE_LOCK", "solve", "judge", "report_note"]

logger = logging.getLogger("optrules.solvers")

#: Held during every solver call. Solver output is silenced by redirecting the process's file
#: descriptors, which two threads cannot do at once (measured: two Pyomo/HiGHS solves in two threads
#: fail), so solves in one process run one at a time; run processes (joblib's default backend,
#: Dask workers) to solve in parallel.
SOLVE_LOCK = threading.RLock()

_LIMITS = frozenset({"time_limit", "iteration_limit", "node_limit", "solution_limit", "memory_limit",
                     "objective_limit", "restart_limit", "gap_limit", "interrupted"})
_CONTINUOUS_CONVEX = frozenset({ProblemClass.LP, ProblemClass.QP})


def _interface_of(model: Any) -> str:
    """'pyomo' or 'cvxpy', without importing either library just to find out."""
    cvxpy = sys.modules.get("cvxpy")
    if cvxpy is not None and isinstance(model, cvxpy.Problem):
        return "cvxpy"
    block = sys.modules.get("pyomo.core.base.block")
    if block is not None and isinstance(model, block.BlockData):
        return "pyomo"
    raise SolverError(f"model must be a Pyomo ConcreteModel or a cvxpy Problem, got {type(model).__name__}")


def _check_model(model: Any, interface: str, problem_class: ProblemClass) -> bool:
    """Refuse models that contradict their declaration before any solver sees them.

    Returns True when the objective is maximised.
    """
    if interface == "pyomo":
        import pyomo.environ as pyo

        objectives = list(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
        if len(objectives) != 1:
            raise SolverError(f"a Pyomo model needs exactly one active Objective, found {len(objectives)}")
        discrete = any(not v.is_continuous() for v in model.component_data_objects(pyo.Var, descend_into=True))
        maximized = objectives[0].sense == pyo.maximize
    else:
        import cvxpy

        discrete = model.is_mixed_integer()
        maximized = isinstance(model.objective, cvxpy.Maximize)
    if discrete and not problem_class.is_discrete:
        raise SolverError(
            f"the model has integer variables but problem_class is {problem_class.value}; "
            "declare the mixed-integer class"
        )
    return maximized


#: The largest relative gap any supported solver leaves by default at a claimed optimum (HiGHS' and
#: Gurobi's 1e-4; SCIP, CBC and GLPK close it): a claim further from its bound is not a proof.
DEFAULT_MIP_GAP = 1e-4


def judge(out: Outcome, problem_class: ProblemClass, backend: Backend,
          mip_gap: float | None = None) -> tuple[Status, str, float | None, float | None]:
    """Status, termination, gap and bound from a backend outcome. Never upgrades a limit to optimal.
    OPTIMAL means proven within :data:`DEFAULT_MIP_GAP`, the tolerance every supported solver calls
    optimal by default: a stop within a looser ``mip_gap`` the user asked for is a limit like any
    other, FEASIBLE with termination ``gap_limit``, and so is any stop SCIP calls ``gaplimit``; a claimed
    optimum whose returned point is further from the bound than the tolerance in effect is FEASIBLE
    with termination ``optimum_not_verified`` (HiGHS 1.16 once called a warm start optimal at 10.85
    while its value was 12.6, 7.9% from its bound)."""
    term, objective, bound = out.termination, out.objective, out.bound
    if term == "infeasible":
        return Status.INFEASIBLE, term, None, None
    if term == "unbounded":
        return Status.UNBOUNDED, term, None, None
    if term == "infeasible_or_unbounded":
        return Status.ERROR, term, None, None
    if not out.has_solution or objective is None:
        if term in _LIMITS:
            return Status.NO_SOLUTION, term, None, bound
        if term == "optimal":
            term = "error: optimal status without a solution"
        return Status.ERROR, term, None, bound
    if term in ("optimal", "gap_limit", "locally_optimal"):
        if problem_class.is_nonconvex and not backend.global_optimum:
            return Status.FEASIBLE, "locally_optimal", None, None  # a local optimum proves nothing here
        term = "optimal" if term == "locally_optimal" else term  # convex: local is global
        if bound is None and problem_class in _CONTINUOUS_CONVEX:
            bound = objective  # LP/QP: certified by the solver's primal-dual tolerances
        gap = relative_gap(objective, bound)
        if gap is not None:
            if gap <= GAP_EPS:
                gap, term = 0.0, "optimal"
            elif (problem_class.is_discrete or problem_class.is_nonconvex) and \
                    gap > DEFAULT_MIP_GAP * (1 + 1e-6) + GAP_EPS:  # a global solver's branch and bound
                # a stop the solver itself called a gap limit claims no optimum, even where it measured
                # its gap on another form of the objective (cvxpy hands SCIP the objective without its constant)
                within = term == "gap_limit" or (mip_gap is not None and gap <= mip_gap * (1 + 1e-6) + GAP_EPS)
                return Status.FEASIBLE, "gap_limit" if within else "optimum_not_verified", gap, bound
            else:
                term = "gap_limit"  # proven within the default tolerance, not exactly: the gap is shown
        return Status.OPTIMAL, term, gap, bound
    return Status.FEASIBLE, term, relative_gap(objective, bound), bound


def report_note(status: Status, out: Outcome, bound: float | None, backend: Backend, problem_class: ProblemClass,
                termination: str = "", gap: float | None = None, solver: str = "") -> str:
    """Why a claimed optimum is not counted as one, why a report has no bound (when the backend did
    not already say), or the backend's own note."""
    if termination == "optimum_not_verified":
        verdict = (f"{solver} reported an optimum, but the solution it returned is {100 * gap:.2f}% from the "
                   "bound, beyond the gap tolerance: not proven")
        return f"{out.note}; {verdict}" if out.note else verdict
    if out.note or bound is not None or status in (Status.INFEASIBLE, Status.UNBOUNDED):
        return out.note
    if problem_class.is_nonconvex and not backend.global_optimum:
        return f"{backend.engine} is a local solver: a local optimum of a nonconvex problem carries no bound"
    if status is Status.ERROR:
        return "the solver failed: no bound"
    return "the solver reported no finite bound"


def solve(
    model: Any,
    problem_class: ProblemClass | str,
    solver: str = "highs",
    options: Mapping[str, Any] | None = None,
    *,
    warm_start: bool = False,
    build_seconds: float = 0.0,
    deadline: float | None = None,
) -> SolveReport:
    """Solve ``model`` with ``solver`` and report what was found.

    Args:
        model: a Pyomo ``ConcreteModel`` with exactly one active Objective (HiGHS and SCIP load it
            in bulk, ``MatrixConstraint`` blocks as arrays) or a ``cvxpy.Problem``.
        problem_class: the class the formulation declares; the solver must handle it.
        solver: a name from ``SOLVERS``.
        options: unified options ``time_limit`` (s), ``mip_gap`` (relative), ``threads``, ``seed``,
            ``verbose`` (default False: solver output silenced); other keys go to the solver unchanged.
        warm_start: pass the model's current variable values as a starting solution.
        build_seconds: time the caller spent building the model, copied into the report.
        deadline: a ``time.perf_counter()`` instant the whole call must end by (with ``time_limit``,
            the earlier of the two). The solver gets what is left after loading (through Pyomo's
            own interfaces, used for Gurobi, CBC, GLPK and Ipopt, the limit counts from the call).

    Returns:
        A :class:`SolveReport`. When it has a solution, the values are loaded into ``model``;
        otherwise the model's variable values are left as they were.

    Raises:
        UnknownSolverError, SolverNotInstalledError, UnsupportedProblemError: bad solver choice,
            raised before any solving. SolverError: invalid options or a model that contradicts
            ``problem_class``. A failure inside the solver is reported as ``Status.ERROR``.
    """
    problem_class = as_class(problem_class)
    interface = _interface_of(model)
    spec, backend = backend_for(solver, problem_class, interface)
    opts = check_unified(options)
    maximize = _check_model(model, interface, problem_class)
    native = native_options(opts, backend.options)
    verbose = opts["verbose"]

    with SOLVE_LOCK:  # one solve at a time per process (see SOLVE_LOCK)
        start = time.perf_counter()
        if "time_limit" in opts:
            ends = start + opts["time_limit"]
            deadline = ends if deadline is None else min(deadline, ends)
        out = _run(model, interface, backend, native, verbose, warm_start, maximize, deadline, solver)
        seconds = time.perf_counter() - start
    if out.termination.startswith("error: "):  # a crash, or an option the solver refused at its run
        logger.warning("solver %s failed: %s", solver, out.termination[len("error: "):])

    gap_option = backend.options.get("mip_gap")  # the gap asked for, unified or in the solver's own name
    asked_gap = native.get(gap_option) if gap_option is not None else opts.get("mip_gap")
    status, termination, gap, bound = judge(out, problem_class, backend,
                                            None if asked_gap is None else float(asked_gap))
    solve_seconds = seconds - out.load_seconds if out.solve_seconds is None else out.solve_seconds
    return SolveReport(
        solver=spec.name,
        solver_version=out.version,
        problem_class=problem_class,
        status=status,
        termination=termination,
        objective=out.objective if status in (Status.OPTIMAL, Status.FEASIBLE) else None,
        best_bound=bound,
        gap=gap,
        solve_seconds=solve_seconds,
        build_seconds=float(build_seconds),
        options=opts,
        load_seconds=out.load_seconds,
        time_limit=out.time_limit,
        note=report_note(status, out, bound, backend, problem_class, termination, gap, spec.name),
    )


def _run(model: Any, interface: str, backend: Backend, native: dict[str, Any], verbose: bool,
         warm_start: bool, maximize: bool, deadline: float | None, solver: str) -> Outcome:
    """One solver call through the model's interface; a crash inside the solver becomes an outcome."""
    version = version_string(backend)
    try:
        if backend.module == "highspy" and "threads" in native:
            # HiGHS keeps one thread scheduler per process and fails (status kNotset) when a
            # later run asks for another thread count; rebuild it for this run's count.
            import highspy

            highspy.Highs.resetGlobalScheduler(True)
        if interface == "cvxpy":
            return run_cvxpy(model, backend, native, verbose, warm_start, maximize, deadline, version)
        if backend.bulk:
            began = time.perf_counter()
            form = compile_model(model)
            compiled = time.perf_counter() - began
            run = run_highs if backend.module == "highspy" else run_scip
            out = run(form, native, verbose, warm_start, deadline, version)
            out.load_seconds += compiled
            return out
        limit = None
        if deadline is not None and backend.options.get("time_limit"):
            native = dict(native)
            name = backend.options["time_limit"]
            left = deadline - time.perf_counter()
            if name in WHOLE_SECONDS and left < 1:
                return Outcome("time_limit", False, version=version, solve_seconds=0.0, time_limit=0.0,
                               note=f"{solver} takes its time limit in whole seconds and less than one was "
                                    "left of the budget; it did not run")
            limit = native[name] = native_time_limit(name, max(left, 1e-3))
        if backend.legacy:
            out = run_pyomo_legacy(model, backend, native, verbose, warm_start, maximize, limit)
        else:
            out = run_pyomo(model, backend, native, verbose, warm_start)
        if out.time_limit is None:  # the solver's own limit, where the interface did not set a smaller one
            out.time_limit = limit
        return out
    except SolverError:
        raise
    except Exception as exc:  # a solver crash is a result to report, not a reason to lose a CV run
        return Outcome(f"error: {type(exc).__name__}: {exc}", False, version=version)
