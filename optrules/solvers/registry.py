"""The solver registry: what each solver can solve, through which modelling interface, under which
option names, whether it is installed, and the errors a bad choice raises.

A Pyomo model goes to a backend with ``bulk=True`` (HiGHS, SCIP) through optrules' own loader,
which reads ``MatrixConstraint`` blocks as arrays (``optrules.solvers.standard_form``,
``optrules.solvers.highs``, ``optrules.solvers.scip``); to the others through Pyomo's own solver
interfaces, expression by expression.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass
from typing import Any, Mapping

from optrules.solvers.report import ProblemClass

__all__ = ["INTERFACES", "SOLVERS", "Backend", "SolverSpec", "OptionTable", "SolverError", "UnknownSolverError",
           "SolverNotInstalledError", "UnsupportedProblemError", "as_class", "available_solvers", "backend_for",
           "is_installed", "spec_for", "version_string"]

#: Modelling interfaces a model can come from.
INTERFACES: tuple[str, ...] = ("pyomo", "cvxpy")


class SolverError(ValueError):
    """Base class of the solver layer's errors (a bad request, not a failed solve)."""


class UnknownSolverError(SolverError):
    """The solver name is not in :data:`SOLVERS`."""


class SolverNotInstalledError(SolverError):
    """The solver is known but not installed for the requested interface."""


class UnsupportedProblemError(SolverError):
    """The solver cannot solve this problem class through this modelling interface."""


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
    bulk: bool = False  #: Pyomo: loaded by optrules' bulk loader instead of Pyomo's interface


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
        "pyomo": Backend("pyomo", "highs", frozenset({P.LP, P.QP, P.MILP}), _HIGHS, "highspy", bulk=True),
        "cvxpy": Backend("cvxpy", "HIGHS", frozenset({P.LP, P.QP, P.MILP}), _HIGHS, "highspy"),
    }),
    "scip": SolverSpec("scip", "pyscipopt", "pip install pyscipopt", {
        "pyomo": Backend("pyomo", "scip_direct", _EVERY_CLASS, _SCIP, "pyscipopt", bulk=True),
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
    "ipopt": SolverSpec("ipopt", "cyipopt", "pip install cyipopt-wheels (PyPI's only binary build of "
                        "cyipopt, bundling Ipopt; a development release) or conda install -c conda-forge "
                        "cyipopt; Pyomo also needs its PyNumero extension: `pyomo build-extensions`", {
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


def is_installed(backend: Backend) -> bool:
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


def as_class(problem_class: ProblemClass | str) -> ProblemClass:
    try:
        return ProblemClass(problem_class)
    except ValueError:
        raise SolverError(
            f"unknown problem class {problem_class!r}; use one of {[c.value for c in ProblemClass]}"
        ) from None


def available_solvers(problem_class: ProblemClass | str | None = None, interface: str | None = None) -> list[str]:
    """Names of installed solvers that can solve ``problem_class`` through ``interface``.

    Either filter may be None (any). The order is the registry's order of preference.
    """
    wanted = None if problem_class is None else as_class(problem_class)
    if interface is not None and interface not in INTERFACES:
        raise SolverError(f"unknown interface {interface!r}; use one of {list(INTERFACES)}")
    names = []
    for name, spec in SOLVERS.items():
        for backend in spec.backends.values():
            if interface is not None and backend.interface != interface:
                continue
            if wanted is not None and wanted not in backend.classes:
                continue
            if is_installed(backend):
                names.append(name)
                break
    return names


def spec_for(solver: str) -> SolverSpec:
    """The registry entry of ``solver``, or an error listing the known names."""
    spec = SOLVERS.get(solver) if isinstance(solver, str) else None
    if spec is None:
        raise UnknownSolverError(f"unknown solver {solver!r}; known solvers: {', '.join(SOLVERS)}")
    return spec


def backend_for(solver: str, problem_class: ProblemClass, interface: str,
                installed: bool = True) -> tuple[SolverSpec, Backend]:
    """The backend that will run, or the error that says what to use or install instead.

    ``installed=False`` checks the name and the capability only, which needs no import of the
    solver's package (for a configuration whose solver may never run)."""
    spec = spec_for(solver)
    backend = spec.backends.get(interface)
    if backend is None or problem_class not in backend.classes:
        capable = available_solvers(problem_class, interface)
        how = (f"{solver} cannot solve {problem_class.value} problems through {interface}"
               if backend else f"{solver} has no {interface} interface")
        hint = f"installed solvers that can: {', '.join(capable)}" if capable else (
            f"no installed solver can solve {problem_class.value} through {interface}"
            + ("; build a Pyomo model and use scip" if interface == "cvxpy" else ""))
        raise UnsupportedProblemError(f"{how}; {hint}")
    if installed and not is_installed(backend):
        raise SolverNotInstalledError(
            f"solver {solver!r} is not installed for {interface}; install it with: {spec.install}"
        )
    return spec, backend


_VERSIONS: dict[tuple[Any, ...], str] = {}


def version_string(backend: Backend, fallback: Any = None) -> str:
    """'<package> <version> (<interface> <version>)', e.g. 'highspy 1.16.0 (pyomo 6.10.1)'.

    Cached per backend: reading a package's metadata costs about a millisecond, every solve."""
    key = (backend.interface, backend.engine, backend.module, fallback if isinstance(fallback, (str, tuple)) else None)
    if key not in _VERSIONS:
        _VERSIONS[key] = _version_string(backend, fallback)
    return _VERSIONS[key]


def _version_string(backend: Backend, fallback: Any) -> str:
    interface = f"{backend.interface} {importlib.metadata.version(backend.interface)}"
    if backend.module is not None:
        try:
            return f"{backend.module} {importlib.metadata.version(backend.module)} ({interface})"
        except importlib.metadata.PackageNotFoundError:
            pass
    if isinstance(fallback, tuple):
        fallback = ".".join(map(str, fallback))
    return f"{backend.engine} {fallback or 'unknown'} ({interface})"
