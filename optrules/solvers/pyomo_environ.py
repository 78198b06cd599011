"""Pyomo models through Pyomo's own solver interfaces, for the solvers optrules does not load itself:
``pyomo.contrib.solver`` (Gurobi) and the classic ``SolverFactory`` (CBC, GLPK, cyipopt).

These translate the model expression by expression, inside the solver call, so here the time limit
counts from the call and the load is part of ``solve_seconds``. HiGHS and SCIP take the bulk loader
(``optrules.solvers.highs``, ``optrules.solvers.scip``) instead.

Pyomo reads neither why GLPK stopped nor its bound (a time-limit stop comes back as "feasible", with
bounds of +-inf); both are read from glpsol's log: its last branch-and-bound line,
``+ nodes: mip = incumbent >= bound gap% (...)`` (``<=`` when maximising), and the line naming the
stop. Pyomo names CBC's limits vaguely (a node limit "maxEvaluations", a solution limit "other", a
limit before any integer point "intermediateNonInteger"); CBC's log says which limit it was.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from optrules.solvers.highs import NO_DUAL_BOUND_NOTE, highs_word
from optrules.solvers.options import native_time_limit
from optrules.solvers.registry import Backend, SolverError, version_string
from optrules.solvers.report import Outcome, finite
from optrules.solvers.scip import scip_word

__all__ = ["cbc_log", "glpk_log", "objective_value", "run_pyomo", "run_pyomo_legacy"]

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
#: Pyomo's word for a stop at a limit before any integer point; the point it hands back then is the
#: LP relaxation's, which is no solution
_NO_INTEGER_POINT = "intermediateNonInteger"


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


def run_pyomo(model: Any, backend: Backend, native: dict[str, Any], verbose: bool, warm_start: bool) -> Outcome:
    """Solve through pyomo.contrib.solver: Gurobi, and HiGHS or SCIP only when their registry entry
    is set not to use the bulk loader (the tests do so to keep this path working)."""
    import pyomo.environ  # noqa: F401  registers the pyomo.contrib.solver plugins
    from pyomo.contrib.solver.common.factory import SolverFactory

    opt = SolverFactory(backend.engine)
    kwargs: dict[str, Any] = {"tee": verbose, "load_solutions": False,
                              "raise_exception_on_nonoptimal_result": False, "solver_options": native}
    if warm_start and "warmstart_discrete_vars" in opt.config:
        _require_discrete_values(model)
        kwargs["warmstart_discrete_vars"] = True
    results = opt.solve(model, **kwargs)

    raw = getattr(opt, "_solver_model", None)  # the solver's own status is more precise than Pyomo's
    bound = finite(results.objective_bound)
    note = ""
    if backend.engine == "scip_direct" and hasattr(raw, "getStatus"):
        termination = scip_word(raw.getStatus())
    elif backend.engine == "highs" and hasattr(raw, "getModelStatus"):
        info = raw.getInfo()
        termination = highs_word(raw.getModelStatus().name, info.mip_node_count, native)
        if bound is None and info.mip_node_count >= 0:  # Pyomo leaves HiGHS' MIP dual bound out at a limit
            bound = finite(info.mip_dual_bound)
            if bound is None:
                note = NO_DUAL_BOUND_NOTE
    else:
        termination = _word(_CONTRIB_WORDS, results.termination_condition.name, backend.engine)
    has_solution = results.solution_status.name in ("feasible", "optimal") and termination not in _NO_POINT
    objective = None
    if has_solution:
        results.solution_loader.load_vars()
        # The objective *at the loaded point*: Pyomo's SCIP interface minimises an auxiliary
        # variable t >= f(x), and SCIP's incumbent value is t, which can be far above f(x)
        # (measured: 100000.0 for a point whose objective is 487); Gurobi's is the same quantity.
        objective = objective_value(model)
        if objective is None:
            objective = finite(results.incumbent_objective)
    return Outcome(termination, has_solution, objective, bound, version_string(backend, opt.version()), note)


_CBC_STOP = re.compile(r"^Result - Stopped on (\w+) limit", re.MULTILINE)
_CBC_LIMITS = {"time": "time_limit", "node": "node_limit", "nodes": "node_limit", "iteration": "iteration_limit",
               "iterations": "iteration_limit", "solution": "solution_limit", "solutions": "solution_limit"}


def cbc_log(text: str) -> str | None:
    """The limit a CBC run stopped at (an optrules termination word) from its log's
    "Result - Stopped on ... limit", or None when the log names none."""
    match = _CBC_STOP.search(text)
    return _CBC_LIMITS.get(match.group(1)) if match else None


#: glpsol's words for a stop that Pyomo reads as "feasible": the limit, or the relative gap reached
#: (an optimum within the requested gap, which the report states with the bound read beside it)
_GLPK_STOPS = {"TIME LIMIT EXCEEDED": "time_limit", "RELATIVE MIP GAP TOLERANCE REACHED": "optimal"}
_GLPK_PROGRESS = re.compile(r"^\+\s*\d+:\s*(?:mip =|>>>>>)\s*(?:\S+|not found yet)\s+[<>]=\s+(\S+)")


def glpk_log(text: str) -> tuple[str | None, float | None]:
    """The stop (an optrules termination word, or None when the log names no stop Pyomo misreads) and
    the best bound (None when not printed: no branching, or "tree is empty" once solved) of a glpsol log."""
    stop, bound = None, None
    for line in text.splitlines():
        match = _GLPK_PROGRESS.match(line)
        if match:
            try:
                bound = float(match.group(1))
            except ValueError:  # "tree is empty": solved, no bound printed
                bound = None
        for words, word in _GLPK_STOPS.items():
            if line.startswith(words):
                stop = word
    return stop, finite(bound)


def run_pyomo_legacy(model: Any, backend: Backend, native: dict[str, Any], verbose: bool, warm_start: bool,
                     maximize: bool, time_limit: float | None = None) -> Outcome:
    """Solve through the classic Pyomo SolverFactory (CBC, GLPK executables; cyipopt).

    ``time_limit``: the seconds left for the solver (already among the ``native`` options). An
    executable gets them through Pyomo's ``timelimit``, which also ends the process when it runs 1 s
    (or 1%) past it: CBC checks its limit only in branch and bound, and its first LP solve and MIP
    start alone took 7.8 s under a 1.9 s limit (measured, german's set cover). So that the process
    ends by the time left, the solver's own limit is that less the 1 s (at least half of it; GLPK's
    in whole seconds, at least 1). A process ended so returns no solution. Pyomo's writing of the
    model file comes before and is not inside either limit."""
    import subprocess

    import pyomo.environ as pyo
    from pyomo.common.tempfiles import TempfileManager

    opt = pyo.SolverFactory(backend.engine)
    executable = backend.engine in ("cbc", "glpk")
    if executable and time_limit is not None:
        native = {k: v for k, v in native.items() if k != backend.options["time_limit"]}
    opt.options.update(native)
    kwargs: dict[str, Any] = {"tee": verbose, "load_solutions": False}
    if warm_start and opt.warm_start_capable():
        kwargs["warmstart"] = True
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "solver.log"
        if executable:
            kwargs["logfile"] = str(log)
            if time_limit is not None:
                time_limit = kwargs["timelimit"] = native_time_limit(backend.options["time_limit"],
                                                                     max(time_limit - 1, time_limit / 2))
        try:
            results = opt.solve(model, **kwargs)
        except subprocess.TimeoutExpired:
            TempfileManager.pop(remove=True)  # the files of the call, which Pyomo leaves when the process is ended
            return Outcome("time_limit", False, version=version_string(backend), time_limit=time_limit,
                           note=f"{backend.engine} ran past its {time_limit:.3g} s limit and was ended; no "
                                "solution was read")
        text = log.read_text() if log.exists() else ""
    raw = str(results.solver.termination_condition)
    termination = _word(_LEGACY_WORDS, raw, backend.engine)
    bound = finite(results.problem.upper_bound if maximize else results.problem.lower_bound)
    if backend.engine == "glpk":
        stop, logged_bound = glpk_log(text)
        termination = stop if stop is not None and termination == "feasible" else termination
        bound = bound if bound is not None else logged_bound
    elif backend.engine == "cbc":  # Pyomo's words for CBC's limits are vague ("maxEvaluations", "other")
        termination = cbc_log(text) or termination
    has_solution = len(results.solution) > 0 and termination not in _NO_POINT and raw != _NO_INTEGER_POINT
    objective = None
    if has_solution:
        model.solutions.load_from(results)
        objective = objective_value(model)
    return Outcome(termination, has_solution, finite(objective), bound, version_string(backend, opt.version()),
                   time_limit=time_limit)
