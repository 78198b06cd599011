"""Solver layer: solve any declarative model with any capable solver, and report honestly.

A formulation module builds a Pyomo ``ConcreteModel`` or a ``cvxpy.Problem`` and declares its
:class:`ProblemClass`; :func:`solve` checks that the chosen solver is installed and can handle that
class through that modelling interface, translates the unified options once per backend, runs
the solver, loads the solution into the model when one exists, and returns a :class:`SolveReport`.

The report keeps *what solution exists* (:class:`Status`) apart from *why the solver stopped*
(``termination``). A run stopped by a limit is never reported as optimal: with an incumbent it is
``Status.FEASIBLE`` with the incumbent objective, best bound and gap; without one it is
``Status.NO_SOLUTION`` and the model's variable values are left untouched.

The solver matrix, option names and the measured backend behaviour are in ``docs/solvers.md``.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import logging
import math
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, Callable, Mapping

__all__ = [
    "INTERFACES",
    "SOLVERS",
    "Backend",
    "ProblemClass",
    "SolveReport",
    "SolverError",
    "SolverNotInstalledError",
    "SolverSpec",
    "Status",
    "UnknownSolverError",
    "UnsupportedProblemError",
    "available_solvers",
    "solve",
]

logger = logging.getLogger(__name__)

#: Held during every solver call. Solver output is silenced by redirecting the process's file
#: descriptors (``capture_output(capture_fd=True)``), which two threads cannot do at once (measured:
#: two Pyomo/HiGHS solves in two threads fail), so solves in one process run one at a time; run
#: processes (joblib's default backend, Dask workers) to solve in parallel.
_SOLVE_LOCK = threading.RLock()

#: Modelling interfaces a model can come from.
INTERFACES: tuple[str, ...] = ("pyomo", "cvxpy")


class ProblemClass(str, Enum):
    """Mathematical class of a formulation, declared by the formulation module."""

    LP = "LP"
    QP = "QP"  #: convex quadratic objective, linear constraints
    MILP = "MILP"
    MIQP = "MIQP"  #: convex quadratic objective with integer variables
    MINLP = "MINLP"  #: nonconvex mixed-integer nonlinear, e.g. bilinear terms
    NLP = "NLP"  #: nonconvex continuous, e.g. a QCQP

    @property
    def is_discrete(self) -> bool:
        """True for classes with integer variables."""
        return self in (ProblemClass.MILP, ProblemClass.MIQP, ProblemClass.MINLP)

    @property
    def is_nonconvex(self) -> bool:
        """True for classes whose global optimum needs a global (spatial branch-and-bound) solver."""
        return self in (ProblemClass.MINLP, ProblemClass.NLP)


class Status(str, Enum):
    """What solution exists after a solve (why the solver stopped is ``SolveReport.termination``)."""

    OPTIMAL = "optimal"  #: proven optimal within the relative gap tolerance in effect
    FEASIBLE = "feasible"  #: an incumbent, not proven optimal (stopped at a limit, or only locally optimal)
    NO_SOLUTION = "no_solution"  #: stopped at a limit without any feasible solution
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    ERROR = "error"  #: the solver failed, or could not tell infeasible from unbounded


# --------------------------------------------------------------------------------------------
# Result type and errors
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SolveReport:
    """The outcome of one :func:`solve` call.

    ``objective`` and ``best_bound`` are in the model's own sense (min or max). ``gap`` is
    ``|objective - best_bound| / max(|objective|, 1e-10)``, ``0.0`` when proven optimal and
    ``None`` when either value is unknown. ``options`` holds the unified options used
    (including ``verbose`` and any pass-through keys).
    """

    solver: str
    solver_version: str
    problem_class: ProblemClass
    status: Status
    termination: str
    objective: float | None
    best_bound: float | None
    gap: float | None
    solve_seconds: float
    build_seconds: float
    options: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def has_solution(self) -> bool:
        """True when a feasible solution was found and loaded into the model."""
        return self.status in (Status.OPTIMAL, Status.FEASIBLE)

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serialisable dictionary; :meth:`from_dict` inverts it exactly."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["problem_class"] = self.problem_class.value
        data["status"] = self.status.value
        data["options"] = dict(self.options)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SolveReport:
        """Rebuild a report from :meth:`to_dict` output (also after a JSON round trip)."""
        names = {f.name for f in fields(cls)}
        missing, unknown = names - set(data), set(data) - names
        if missing or unknown:
            raise ValueError(
                f"SolveReport.from_dict: missing keys {sorted(missing)}, unknown keys {sorted(unknown)}"
            )

        def number(key: str) -> float | None:
            return None if data[key] is None else float(data[key])

        return cls(
            solver=str(data["solver"]),
            solver_version=str(data["solver_version"]),
            problem_class=ProblemClass(data["problem_class"]),
            status=Status(data["status"]),
            termination=str(data["termination"]),
            objective=number("objective"),
            best_bound=number("best_bound"),
            gap=number("gap"),
            solve_seconds=float(data["solve_seconds"]),
            build_seconds=float(data["build_seconds"]),
            options=dict(data["options"]),
        )


class SolverError(ValueError):
    """Base class of the solver layer's errors (a bad request, not a failed solve)."""


class UnknownSolverError(SolverError):
    """The solver name is not in :data:`SOLVERS`."""


class SolverNotInstalledError(SolverError):
    """The solver is known but not installed for the requested interface."""


class UnsupportedProblemError(SolverError):
    """The solver cannot solve this problem class through this modelling interface."""


# --------------------------------------------------------------------------------------------
# Registry: what each solver can solve, through which interface, under which option names
# --------------------------------------------------------------------------------------------

#: unified option name -> the backend's native option name
OptionTable = Mapping[str, str]


@dataclass(frozen=True)
class Backend:
    """How one solver is reached through one modelling interface."""

    interface: str  #: "pyomo" or "cvxpy"
    engine: str  #: Pyomo solver-factory name or cvxpy solver name
    classes: frozenset[ProblemClass]  #: problem classes it solves (measured, see docs/solvers.md)
    options: OptionTable  #: unified options it understands; the others are ignored
    module: str | None = None  #: Python distribution/module that must import (None: executable)
    legacy: bool = False  #: Pyomo: classic ``pyomo.environ.SolverFactory`` instead of pyomo.contrib.solver
    global_optimum: bool = True  #: False for local NLP solvers: their optimum of a nonconvex model is local


@dataclass(frozen=True)
class SolverSpec:
    """A solver known to optrules: its pip package, install hint and backends per interface."""

    name: str
    package: str  #: pip package that brings the solver
    install: str  #: install instruction shown in :class:`SolverNotInstalledError`
    backends: Mapping[str, Backend]  #: interface -> backend

    def classes(self, interface: str) -> frozenset[ProblemClass]:
        """Problem classes this solver handles through ``interface`` (empty if none)."""
        return self.backends[interface].classes if interface in self.backends else frozenset()


P = ProblemClass
_EVERY_CLASS = frozenset(ProblemClass)
_CONVEX = frozenset({P.LP, P.QP, P.MILP, P.MIQP})
_LINEAR = frozenset({P.LP, P.MILP})
_CONTINUOUS_CONVEX = frozenset({P.LP, P.QP})

_HIGHS: OptionTable = {"time_limit": "time_limit", "mip_gap": "mip_rel_gap", "threads": "threads",
                       "seed": "random_seed"}
_SCIP: OptionTable = {"time_limit": "limits/time", "mip_gap": "limits/gap", "threads": "lp/threads",
                      "seed": "randomization/randomseedshift"}
_GUROBI: OptionTable = {"time_limit": "TimeLimit", "mip_gap": "MIPGap", "threads": "Threads", "seed": "Seed"}
_CLARABEL: OptionTable = {"time_limit": "time_limit", "threads": "max_threads"}
_OSQP: OptionTable = {"time_limit": "time_limit"}
_IPOPT: OptionTable = {"time_limit": "max_wall_time"}
_CBC: OptionTable = {"time_limit": "sec", "mip_gap": "ratio", "threads": "threads", "seed": "randomCbcSeed"}
_GLPK: OptionTable = {"time_limit": "tmlim", "mip_gap": "mipgap"}

#: The registry, in order of preference. ``available_solvers`` keeps this order.
SOLVERS: dict[str, SolverSpec] = {
    "highs": SolverSpec("highs", "highspy", "pip install highspy", {
        "pyomo": Backend("pyomo", "highs", frozenset({P.LP, P.QP, P.MILP}), _HIGHS, "highspy"),
        "cvxpy": Backend("cvxpy", "HIGHS", frozenset({P.LP, P.QP, P.MILP}), _HIGHS, "highspy"),
    }),
    "scip": SolverSpec("scip", "pyscipopt", "pip install pyscipopt", {
        "pyomo": Backend("pyomo", "scip_direct", _EVERY_CLASS, _SCIP, "pyscipopt"),
        "cvxpy": Backend("cvxpy", "SCIP", _CONVEX, _SCIP, "pyscipopt"),
    }),
    "clarabel": SolverSpec("clarabel", "clarabel", "pip install clarabel", {
        "cvxpy": Backend("cvxpy", "CLARABEL", _CONTINUOUS_CONVEX, _CLARABEL, "clarabel"),
    }),
    "osqp": SolverSpec("osqp", "osqp", "pip install osqp", {
        "cvxpy": Backend("cvxpy", "OSQP", _CONTINUOUS_CONVEX, _OSQP, "osqp"),
    }),
    "gurobi": SolverSpec("gurobi", "gurobipy", "pip install gurobipy (a license is needed beyond small models)", {
        "pyomo": Backend("pyomo", "gurobi_direct_minlp", _EVERY_CLASS, _GUROBI, "gurobipy"),
        "cvxpy": Backend("cvxpy", "GUROBI", _CONVEX, _GUROBI, "gurobipy"),
    }),
    "ipopt": SolverSpec("ipopt", "cyipopt", "pip install cyipopt (Pyomo also needs its PyNumero "
                        "extension: `pyomo build-extensions`)", {
        "pyomo": Backend("pyomo", "cyipopt", frozenset({P.LP, P.QP, P.NLP}), _IPOPT, "cyipopt",
                         legacy=True, global_optimum=False),
    }),
    "cbc": SolverSpec("cbc", "cbc (executable)", "put the `cbc` executable on PATH "
                      "(conda install -c conda-forge coin-or-cbc, or apt install coinor-cbc)", {
        "pyomo": Backend("pyomo", "cbc", _LINEAR, _CBC, None, legacy=True),
    }),
    "glpk": SolverSpec("glpk", "glpk (executable)", "put the `glpsol` executable on PATH "
                       "(conda install -c conda-forge glpk, or apt install glpk-utils)", {
        "pyomo": Backend("pyomo", "glpk", _LINEAR, _GLPK, None, legacy=True),
    }),
}

_INSTALLED: dict[tuple[Any, ...], bool] = {}


def _installed(backend: Backend) -> bool:
    """Whether ``backend`` can run here: its module imports and its interface finds the solver."""
    key = (backend.interface, backend.engine, backend.module, backend.legacy)
    if key not in _INSTALLED:
        _INSTALLED[key] = _probe(backend)
    return _INSTALLED[key]


def _probe(backend: Backend) -> bool:
    try:
        if backend.module is not None:
            importlib.import_module(backend.module)
        if backend.interface == "cvxpy":
            import cvxpy

            return backend.engine in cvxpy.installed_solvers()
        import pyomo.environ as pyo  # also registers the pyomo.contrib.solver plugins

        if backend.engine == "cyipopt":
            # Pyomo's cyipopt interface also needs PyNumero's ASL library; without it `available()`
            # still says True (measured with the cyipopt-wheels wheel) but every solve fails.
            from pyomo.contrib.pynumero.asl import AmplInterface

            if not AmplInterface.available():
                return False
        if backend.legacy:
            return bool(pyo.SolverFactory(backend.engine).available(exception_flag=False))
        from pyomo.contrib.solver.common.factory import SolverFactory

        return bool(SolverFactory(backend.engine).available())
    except Exception:  # ImportError, or a broken installation: either way not usable
        return False


def available_solvers(problem_class: ProblemClass | str | None = None, interface: str | None = None) -> list[str]:
    """Names of installed solvers that can solve ``problem_class`` through ``interface``.

    Either filter may be None (any). The order is the registry's order of preference.
    """
    wanted = None if problem_class is None else _as_class(problem_class)
    if interface is not None and interface not in INTERFACES:
        raise SolverError(f"unknown interface {interface!r}; use one of {list(INTERFACES)}")
    names = []
    for name, spec in SOLVERS.items():
        for backend in spec.backends.values():
            if interface is not None and backend.interface != interface:
                continue
            if wanted is not None and wanted not in backend.classes:
                continue
            if _installed(backend):
                names.append(name)
                break
    return names


# --------------------------------------------------------------------------------------------
# Request checks
# --------------------------------------------------------------------------------------------


def _as_class(problem_class: ProblemClass | str) -> ProblemClass:
    try:
        return ProblemClass(problem_class)
    except ValueError:
        raise SolverError(
            f"unknown problem class {problem_class!r}; use one of {[c.value for c in ProblemClass]}"
        ) from None


def _interface_of(model: Any) -> str:
    """'pyomo' or 'cvxpy', without importing either library just to find out."""
    cvxpy = sys.modules.get("cvxpy")
    if cvxpy is not None and isinstance(model, cvxpy.Problem):
        return "cvxpy"
    block = sys.modules.get("pyomo.core.base.block")
    if block is not None and isinstance(model, block.BlockData):
        return "pyomo"
    raise SolverError(f"model must be a Pyomo ConcreteModel or a cvxpy Problem, got {type(model).__name__}")


def _backend(solver: str, problem_class: ProblemClass, interface: str) -> tuple[SolverSpec, Backend]:
    """The backend that will run, or the error that says what to use or install instead."""
    spec = SOLVERS.get(solver)
    if spec is None:
        raise UnknownSolverError(f"unknown solver {solver!r}; known solvers: {', '.join(SOLVERS)}")
    backend = spec.backends.get(interface)
    if backend is None or problem_class not in backend.classes:
        capable = available_solvers(problem_class, interface)
        how = (f"{solver} cannot solve {problem_class.value} problems through {interface}"
               if backend else f"{solver} has no {interface} interface")
        hint = f"installed solvers that can: {', '.join(capable)}" if capable else (
            f"no installed solver can solve {problem_class.value} through {interface}"
            + ("; build a Pyomo model and use scip" if interface == "cvxpy" else ""))
        raise UnsupportedProblemError(f"{how}; {hint}")
    if not _installed(backend):
        raise SolverNotInstalledError(
            f"solver {solver!r} is not installed for {interface}; install it with: {spec.install}"
        )
    return spec, backend


_UNIFIED = ("time_limit", "mip_gap", "threads", "seed", "verbose")


def _check_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validated unified options (numbers normalised, ``verbose`` defaulted to False)."""
    opts = dict(options or {})

    def real(x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

    def integer(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if "time_limit" in opts:
        if not (real(opts["time_limit"]) and opts["time_limit"] > 0):
            raise SolverError(f"time_limit must be a positive number of seconds, got {opts['time_limit']!r}")
        opts["time_limit"] = float(opts["time_limit"])
    if "mip_gap" in opts:
        if not (real(opts["mip_gap"]) and opts["mip_gap"] >= 0):
            raise SolverError(f"mip_gap must be a relative gap >= 0, got {opts['mip_gap']!r}")
        opts["mip_gap"] = float(opts["mip_gap"])
    if "threads" in opts and not (integer(opts["threads"]) and opts["threads"] >= 1):
        raise SolverError(f"threads must be an integer >= 1, got {opts['threads']!r}")
    if "seed" in opts and not (integer(opts["seed"]) and opts["seed"] >= 0):
        raise SolverError(f"seed must be an integer >= 0, got {opts['seed']!r}")
    opts.setdefault("verbose", False)
    if not isinstance(opts["verbose"], bool):
        raise SolverError(f"verbose must be True or False, got {opts['verbose']!r}")
    return opts


def _native_options(opts: Mapping[str, Any], table: OptionTable) -> dict[str, Any]:
    """Translate unified options through ``table``; unknown keys pass through unchanged."""
    native: dict[str, Any] = {}
    for key, value in opts.items():
        if key == "verbose":
            continue
        if key not in _UNIFIED:
            native[key] = value
        elif key in table:  # absent, e.g. mip_gap for a continuous solver: nothing to set
            native[table[key]] = value
    return native


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
        maximize = objectives[0].sense == pyo.maximize
    else:
        import cvxpy

        discrete = model.is_mixed_integer()
        maximize = isinstance(model.objective, cvxpy.Maximize)
    if discrete and not problem_class.is_discrete:
        raise SolverError(
            f"the model has integer variables but problem_class is {problem_class.value}; "
            "declare the mixed-integer class"
        )
    return maximize


# --------------------------------------------------------------------------------------------
# Backends: each returns an _Outcome in a common vocabulary
# --------------------------------------------------------------------------------------------


@dataclass
class _Outcome:
    termination: str  #: normalised word, see _judge
    has_solution: bool  #: a feasible point exists and was loaded into the model
    objective: float | None = None  #: incumbent, model sense
    bound: float | None = None  #: best bound, model sense
    version: str = "unknown"


_NO_POINT = frozenset({"infeasible", "unbounded", "infeasible_or_unbounded"})
_LIMITS = frozenset({"time_limit", "iteration_limit", "node_limit", "solution_limit", "memory_limit",
                     "objective_limit", "restart_limit", "gap_limit", "interrupted"})

_SCIP_WORDS = {
    "optimal": "optimal", "gaplimit": "gap_limit", "timelimit": "time_limit",
    "nodelimit": "node_limit", "totalnodelimit": "node_limit", "stallnodelimit": "node_limit",
    "memlimit": "memory_limit", "sollimit": "solution_limit", "bestsollimit": "solution_limit",
    "restartlimit": "restart_limit", "primallimit": "objective_limit", "duallimit": "objective_limit",
    "userinterrupt": "interrupted", "terminate": "interrupted", "infeasible": "infeasible",
    "unbounded": "unbounded", "inforunbd": "infeasible_or_unbounded", "unknown": "unknown",
}
_HIGHS_WORDS = {
    "kOptimal": "optimal", "kInfeasible": "infeasible", "kUnbounded": "unbounded",
    "kUnboundedOrInfeasible": "infeasible_or_unbounded", "kTimeLimit": "time_limit",
    "kIterationLimit": "iteration_limit", "kSolutionLimit": "solution_limit",
    "kObjectiveBound": "objective_limit", "kObjectiveTarget": "objective_limit",
    "kInterrupt": "interrupted", "kMemoryLimit": "memory_limit", "kUnknown": "unknown",
}
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


def _word(table: Mapping[str, str], raw: str, solver: str) -> str:
    return table.get(raw, f"error: {solver} status {raw}")


def _finite(x: Any) -> float | None:
    """``x`` as a float when it is a finite number, else None (solvers use +-inf and NaN for 'none')."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _version(backend: Backend, fallback: Any = None) -> str:
    """'<package> <version> (<interface> <version>)'."""
    iface = f"{backend.interface} {importlib.metadata.version(backend.interface)}"
    if backend.module is not None:
        try:
            return f"{backend.module} {importlib.metadata.version(backend.module)} ({iface})"
        except importlib.metadata.PackageNotFoundError:
            pass
    if isinstance(fallback, tuple):
        fallback = ".".join(map(str, fallback))
    return f"{backend.engine} {fallback or 'unknown'} ({iface})"


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
    instance first and hands it the values; ``solve`` then reuses that instance.
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


def _run_pyomo(model: Any, backend: Backend, native: dict[str, Any], verbose: bool, warm_start: bool) -> _Outcome:
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
    if backend.engine == "scip_direct" and hasattr(raw, "getStatus"):
        termination = _word(_SCIP_WORDS, raw.getStatus(), "SCIP")
    elif backend.engine == "highs" and hasattr(raw, "getModelStatus"):
        termination = _word(_HIGHS_WORDS, raw.getModelStatus().name, "HiGHS")
    else:
        termination = _word(_CONTRIB_WORDS, results.termination_condition.name, backend.engine)
    has_solution = results.solution_status.name in ("feasible", "optimal") and termination not in _NO_POINT
    objective = None
    if has_solution:
        results.solution_loader.load_vars()
        # The objective *at the loaded point*: Pyomo's SCIP interface minimises an auxiliary
        # variable t >= f(x), and SCIP's incumbent value is t, which can be far above f(x)
        # (measured: 100000.0 for a point whose objective is 487).
        objective = _pyomo_objective_value(model)
        if objective is None:
            objective = _finite(results.incumbent_objective)
    return _Outcome(termination, has_solution, objective, _finite(results.objective_bound),
                    _version(backend, opt.version()))


def _pyomo_objective_value(model: Any) -> float | None:
    import pyomo.environ as pyo

    objective = next(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
    return _finite(pyo.value(objective, exception=False))


def _run_pyomo_legacy(model: Any, backend: Backend, native: dict[str, Any], verbose: bool, warm_start: bool,
                      maximize: bool) -> _Outcome:
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
        objective = _pyomo_objective_value(model)
    bound = results.problem.upper_bound if maximize else results.problem.lower_bound
    return _Outcome(termination, has_solution, _finite(objective), _finite(bound),
                    _version(backend, opt.version()))


# cvxpy: read the solver's raw answer *before* cvxpy maps it (cvxpy maps a SCIP time limit to
# optimal_inaccurate and fills variables with garbage after a HiGHS time limit without incumbent).
# A reader returns (termination, has_solution, incumbent, dual bound), the last two in the
# solver's internal minimisation space.
def _read_highs(raw: Any) -> tuple[str, bool, float | None, float | None]:
    info = raw["info"]
    dual = info.mip_dual_bound if info.mip_node_count >= 0 else None  # -1 for LP/QP
    return (_word(_HIGHS_WORDS, raw["model_status"], "HiGHS"), info.primal_solution_status == 2,
            info.objective_function_value, dual)


def _read_scip(raw: Any) -> tuple[str, bool, float | None, float | None]:
    scip = raw["model"]
    has = scip.getNSols() > 0
    return (_word(_SCIP_WORDS, raw["scip_status"], "SCIP"), has,
            scip.getPrimalbound() if has else None, scip.getDualbound())


def _read_gurobi(raw: Any) -> tuple[str, bool, float | None, float | None]:
    grb = raw["model"]
    words = {2: "optimal", 3: "infeasible", 4: "infeasible_or_unbounded", 5: "unbounded",
             6: "objective_limit", 7: "iteration_limit", 8: "node_limit", 9: "time_limit",
             10: "solution_limit", 11: "interrupted", 15: "objective_limit", 17: "memory_limit"}
    has = grb.SolCount > 0
    try:
        bound = grb.ObjBound if grb.IsMIP else None
    except Exception:  # gurobipy raises when no bound is available
        bound = None
    return words.get(grb.Status, f"error: Gurobi status {grb.Status}"), has, grb.ObjVal if has else None, bound


def _read_clarabel(raw: Any) -> tuple[str, bool, float | None, float | None]:
    words = {"Solved": "optimal", "AlmostSolved": "inaccurate", "PrimalInfeasible": "infeasible",
             "AlmostPrimalInfeasible": "infeasible", "DualInfeasible": "unbounded",
             "AlmostDualInfeasible": "unbounded", "MaxIterations": "iteration_limit", "MaxTime": "time_limit",
             "CallbackTerminated": "interrupted"}
    status = str(raw.status)
    word = words.get(status, f"error: Clarabel status {status}")
    return word, word in ("optimal", "inaccurate"), None, None  # an interior-point iterate at a limit is not feasible


def _read_osqp(raw: Any) -> tuple[str, bool, float | None, float | None]:
    words = {"solved": "optimal", "solved inaccurate": "inaccurate", "primal infeasible": "infeasible",
             "primal infeasible inaccurate": "infeasible", "dual infeasible": "unbounded",
             "dual infeasible inaccurate": "unbounded", "maximum iterations reached": "iteration_limit",
             "run time limit reached": "time_limit", "interrupted": "interrupted"}
    status = str(raw.info.status)
    word = words.get(status, f"error: OSQP status {status}")
    return word, word in ("optimal", "inaccurate"), None, None  # an ADMM iterate at a limit is not feasible


_CVXPY_READERS: dict[str, Callable[[Any], tuple[str, bool, float | None, float | None]]] = {
    "HIGHS": _read_highs, "SCIP": _read_scip, "GUROBI": _read_gurobi,
    "CLARABEL": _read_clarabel, "OSQP": _read_osqp,
}


def _run_cvxpy(problem: Any, backend: Backend, native: dict[str, Any], verbose: bool, warm_start: bool,
               maximize: bool) -> _Outcome:
    """Solve a cvxpy Problem, reading the solver's raw status before cvxpy's own mapping."""
    import cvxpy
    from pyomo.common.tee import capture_output

    quiet = capture_output(capture_fd=True) if not verbose else contextlib.nullcontext()
    with quiet:  # highspy prints a banner on first use even when silenced
        data, chain, inverse = problem.get_problem_data(backend.engine, solver_opts=dict(native))
        raw = chain.solve_via_data(problem, data, warm_start, verbose, dict(native))
    version = _version(backend)
    termination, has_solution, primal, dual = _CVXPY_READERS[backend.engine](raw)
    if not has_solution or termination in _NO_POINT:
        return _Outcome(termination, False, version=version)
    try:
        with warnings.catch_warnings():  # cvxpy's "may be inaccurate" warning: the report says it better
            warnings.simplefilter("ignore", UserWarning)
            problem.unpack_results(raw, chain, inverse)
    except cvxpy.error.SolverError as exc:
        return _Outcome(f"error: {exc}", False, version=version)
    objective = _finite(problem.value)
    bound = None
    if objective is not None and _finite(primal) is not None and _finite(dual) is not None:
        # cvxpy hands every solver a minimisation (a maximised f becomes min -f), constants dropped
        bound = objective + (primal - dual if maximize else dual - primal)
    return _Outcome(termination, True, objective, bound, version)


# --------------------------------------------------------------------------------------------
# Status judgement and the entry point
# --------------------------------------------------------------------------------------------

_GAP_EPS = 1e-6  #: a relative gap at or below this (solver-tolerance level) is reported as exactly 0.0


def _gap(objective: float | None, bound: float | None) -> float | None:
    if objective is None or bound is None:
        return None
    return abs(objective - bound) / max(abs(objective), 1e-10)


def _judge(out: _Outcome, problem_class: ProblemClass,
           backend: Backend) -> tuple[Status, str, float | None, float | None]:
    """Status, termination, gap and bound from a backend outcome. Never upgrades a limit to optimal."""
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
        gap = _gap(objective, bound)
        if gap is not None:
            if gap <= _GAP_EPS:
                gap, term = 0.0, "optimal"
            else:
                term = "gap_limit"  # proven within the mip_gap tolerance in effect, not exactly
        return Status.OPTIMAL, term, gap, bound
    return Status.FEASIBLE, term, _gap(objective, bound), bound


def solve(
    model: Any,
    problem_class: ProblemClass | str,
    solver: str = "highs",
    options: Mapping[str, Any] | None = None,
    *,
    warm_start: bool = False,
    build_seconds: float = 0.0,
) -> SolveReport:
    """Solve ``model`` with ``solver`` and report what was found.

    Args:
        model: a Pyomo ``ConcreteModel`` with exactly one active Objective, or a ``cvxpy.Problem``.
        problem_class: the class the formulation declares; the solver must handle it.
        solver: a name from :data:`SOLVERS`.
        options: unified options ``time_limit`` (s), ``mip_gap`` (relative), ``threads``, ``seed``,
            ``verbose`` (default False: solver output silenced); other keys go to the solver unchanged.
        warm_start: pass the model's current variable values as a starting solution (MIP start
            for HiGHS, SCIP and Gurobi through Pyomo; cvxpy's own ``warm_start`` otherwise).
        build_seconds: time the caller spent building the model, copied into the report.

    Returns:
        A :class:`SolveReport`. When it has a solution, the values are loaded into ``model``;
        otherwise the model's variable values are left as they were.

    Raises:
        UnknownSolverError, SolverNotInstalledError, UnsupportedProblemError: bad solver choice,
            raised before any solving. SolverError: invalid options or a model that contradicts
            ``problem_class``. A failure inside the solver is reported as ``Status.ERROR``.
    """
    problem_class = _as_class(problem_class)
    interface = _interface_of(model)
    spec, backend = _backend(solver, problem_class, interface)
    opts = _check_options(options)
    maximize = _check_model(model, interface, problem_class)
    native = _native_options(opts, backend.options)
    verbose = opts["verbose"]

    with _SOLVE_LOCK:  # one solve at a time per process (see _SOLVE_LOCK)
        start = time.perf_counter()
        out = _run(model, interface, backend, native, opts, verbose, warm_start, maximize, solver)
        seconds = time.perf_counter() - start

    status, termination, gap, bound = _judge(out, problem_class, backend)
    return SolveReport(
        solver=spec.name,
        solver_version=out.version,
        problem_class=problem_class,
        status=status,
        termination=termination,
        objective=out.objective if status in (Status.OPTIMAL, Status.FEASIBLE) else None,
        best_bound=bound,
        gap=gap,
        solve_seconds=seconds,
        build_seconds=float(build_seconds),
        options=opts,
    )


def _run(model: Any, interface: str, backend: Backend, native: dict[str, Any], opts: dict[str, Any],
         verbose: bool, warm_start: bool, maximize: bool, solver: str) -> _Outcome:
    """One solver call through the model's interface; a crash inside the solver becomes an outcome."""
    try:
        if backend.module == "highspy" and "threads" in opts:
            # HiGHS keeps one thread scheduler per process and fails (status kNotset) when a
            # later run asks for another thread count; rebuild it for this run's count.
            import highspy

            highspy.Highs.resetGlobalScheduler(True)
        if interface == "cvxpy":
            out = _run_cvxpy(model, backend, native, verbose, warm_start, maximize)
        elif backend.legacy:
            out = _run_pyomo_legacy(model, backend, native, verbose, warm_start, maximize)
        else:
            out = _run_pyomo(model, backend, native, verbose, warm_start)
    except SolverError:
        raise
    except Exception as exc:  # a solver crash is a result to report, not a reason to lose a CV run
        logger.warning("solver %s failed: %s: %s", solver, type(exc).__name__, exc)
        out = _Outcome(f"error: {type(exc).__name__}: {exc}", False, version=_version(backend))
    return out

