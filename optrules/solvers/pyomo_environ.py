"""``pyomo.environ`` models through Pyomo's own solver interfaces: ``pyomo.contrib.solver`` (HiGHS,
SCIP, Gurobi) and the classic ``SolverFactory`` (CBC, GLPK, cyipopt).

These translate the model expression by expression, which is fine for a user's model of modest
size; optrules' own formulations are ``pyomo.kernel`` blocks loaded in bulk instead
(``optrules.solvers.highs``, ``optrules.solvers.scip``). Translation happens inside the solver call,
so here the time limit counts from the call and the load is part of ``solve_seconds``.
"""

from __future__ import annotations

import warnings
from typing import Any

from optrules.solvers.highs import highs_word
from optrules.solvers.registry import Backend, SolverError, version_string
from optrules.solvers.report import Outcome, finite
from optrules.solvers.scip import scip_word

__all__ = ["objective_value", "run_pyomo", "run_pyomo_legacy"]

#: pyomo.contrib.solver TerminationCondition names, for backends without a raw status reader
_CONTRIB_WORDS = {
    "convergenceCriteriaSatisfied": "optimal", "maxTimeLimit": "time_limit",
    "iterationLimit": "iteration_limit", "objectiveLimit": "objective_limit",
    "provenInfeasible": "infeasible", "locallyInfeasible": "infeasible", "unbounded": "unbounded",
    "infeasibleOrUnbounded": "infeasible_or_unbounded", "interrupted": "interrupted",
    "licensingProblems": "error: licensing problem", "minStepLength": "min_step_length",
    "emptyModel": "error: empty model", "error": "error: solver error", "unknown": "unknown",
}
#: classic Pyomo TerminationCondition values
_LEGACY_WORDS = {
    "optimal": "optimal", "globallyOptimal": "optimal", "locallyOptimal": "locally_optimal",
    "maxTimeLimit": "time_limit", "maxIterations": "iteration_limit", "maxEvaluations": "iteration_limit",
    "minStepLength": "min_step_length", "infeasible": "infeasible", "locallyInfeasible": "infeasible",
    "unbounded": "unbounded", "infeasibleOrUnbounded": "infeasible_or_unbounded",
    "userInterrupt": "interrupted", "feasible": "feasible",
}
_NO_POINT = ("infeasible", "unbounded", "infeasible_or_unbounded")


def _word(table: dict[str, str], raw: str, solver: str) -> str:
    return table.get(raw, f"error: {solver} status {raw}")


def objective_value(model: Any) -> float | None:
    """The model's active objective at its current variable values."""
    import pyomo.environ as pyo

    objective = next(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
    return finite(pyo.value(objective, exception=False))


def _require_discrete_values(model: Any) -> None:
    import pyomo.environ as pyo

    empty = [v.name for v in model.component_data_objects(pyo.Var, descend_into=True)
             if not v.is_continuous() and v.value is None]
    if empty:
        raise SolverError(f"warm_start=True needs a value for every integer variable; unset: {empty[:5]}")


def _scip_full_start(opt: Any) -> None:
    """Replacement for ``ScipDirect._mipstart`` that also hands SCIP a *complete* start when it can.

    Pyomo passes only the integer values, as a partial solution that SCIP must complete with a
    sub-MIP after presolve; under a short time limit that never happens (measured: a 2300-variable
    set cover kept its trivial incumbent). A complete solution, including Pyomo's auxiliary
    objective variable, is checked as soon as SCIP transforms the problem.
    """
    import pyomo.environ as pyo

    type(opt)._mipstart(opt)  # Pyomo's partial start stays: the fallback if SCIP rejects the full one
    pairs = list(opt._pyomo_var_to_solver_var_map.items())  # (Pyomo var, SCIP var)
    if any(var.value is None for var, _ in pairs):
        return
    scip = opt._solver_model
    start = scip.createSol()
    for var, scip_var in pairs:
        scip.setSolVal(start, scip_var, var.value)
    scip.setSolVal(start, opt._obj_var, pyo.value(opt._objective.expr))
    scip.addSol(start)


def _highs_mip_start(opt: Any, model: Any) -> None:
    """Pass the model's current variable values to HiGHS as a (possibly partial) MIP start.

    pyomo.contrib.solver's HiGHS interface has no warm-start option, so this builds the HiGHS
    instance first and hands it the values; the solve then reuses that instance.
    """
    import numpy as np
    import pyomo.environ as pyo

    try:
        opt.set_instance(model)
        columns = opt._pyomo_var_to_solver_var_map  # id(var) -> HiGHS column (Pyomo 6.10 internals)
        highs = opt._solver_model
    except AttributeError:  # a Pyomo version with other internals: solve cold rather than fail
        warnings.warn("HiGHS MIP start unavailable with this Pyomo version; solving without it", stacklevel=3)
        return
    index, values = [], []
    for var in model.component_data_objects(pyo.Var, descend_into=True):
        col = columns.get(id(var))
        if col is not None and var.value is not None:
            index.append(col)
            values.append(float(var.value))
    highs.setSolution(len(index), np.array(index, dtype=np.int32), np.array(values, dtype=np.float64))


def run_pyomo(model: Any, backend: Backend, native: dict[str, Any], verbose: bool, warm_start: bool) -> Outcome:
    """Solve through pyomo.contrib.solver (HiGHS, SCIP, Gurobi)."""
    import pyomo.environ  # noqa: F401  registers the pyomo.contrib.solver plugins
    from pyomo.contrib.solver.common.factory import SolverFactory

    opt = SolverFactory(backend.engine)
    kwargs: dict[str, Any] = {"tee": verbose, "load_solutions": False,
                              "raise_exception_on_nonoptimal_result": False, "solver_options": native}
    if warm_start:
        if backend.engine == "highs":
            _highs_mip_start(opt, model)
        elif "warmstart_discrete_vars" in opt.config:
            _require_discrete_values(model)
            kwargs["warmstart_discrete_vars"] = True
            if backend.engine == "scip_direct" and hasattr(opt, "_mipstart"):
                opt._mipstart = lambda: _scip_full_start(opt)  # Pyomo 6.10 internals, see docstring
    results = opt.solve(model, **kwargs)

    raw = getattr(opt, "_solver_model", None)  # the solver's own status is more precise than Pyomo's
    bound = finite(results.objective_bound)
    note = ""
    if backend.engine == "scip_direct" and hasattr(raw, "getStatus"):
        termination = scip_word(raw.getStatus())
    elif backend.engine == "highs" and hasattr(raw, "getModelStatus"):
        info = raw.getInfo()
        termination = highs_word(raw.getModelStatus().name, info, native)
        if bound is None and info.mip_node_count >= 0:  # Pyomo leaves HiGHS' MIP dual bound out at a limit
            bound = finite(info.mip_dual_bound)
            if bound is None:
                note = "HiGHS had no dual bound yet (it stopped before its root LP relaxation was solved)"
    else:
        termination = _word(_CONTRIB_WORDS, results.termination_condition.name, backend.engine)
    has_solution = results.solution_status.name in ("feasible", "optimal") and termination not in _NO_POINT
    objective = None
    if has_solution:
        results.solution_loader.load_vars()
        # The objective *at the loaded point*: Pyomo's SCIP interface minimises an auxiliary
        # variable t >= f(x), and SCIP's incumbent value is t, which can be far above f(x)
        # (measured: 100000.0 for a point whose objective is 487).
        objective = objective_value(model)
        if objective is None:
            objective = finite(results.incumbent_objective)
    return Outcome(termination, has_solution, objective, bound, version_string(backend, opt.version()), note)


def run_pyomo_legacy(model: Any, backend: Backend, native: dict[str, Any], verbose: bool, warm_start: bool,
                     maximize: bool) -> Outcome:
    """Solve through the classic Pyomo SolverFactory (CBC, GLPK executables; cyipopt)."""
    import pyomo.environ as pyo

    opt = pyo.SolverFactory(backend.engine)
    opt.options.update(native)
    kwargs: dict[str, Any] = {"tee": verbose, "load_solutions": False}
    if warm_start and opt.warm_start_capable():
        kwargs["warmstart"] = True
    results = opt.solve(model, **kwargs)
    termination = _word(_LEGACY_WORDS, str(results.solver.termination_condition), backend.engine)
    has_solution = len(results.solution) > 0 and termination not in _NO_POINT
    objective = None
    if has_solution:
        model.solutions.load_from(results)
        objective = objective_value(model)
    bound = results.problem.upper_bound if maximize else results.problem.lower_bound
    return Outcome(termination, has_solution, finite(objective), finite(bound), version_string(backend, opt.version()))
