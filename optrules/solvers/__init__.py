"""Solver layer: solve any declarative model with any capable solver, and report honestly.

A formulation module builds a Pyomo model (its large constraint families as ``MatrixConstraint``
blocks of numpy arrays) or a ``cvxpy.Problem`` and declares its :class:`ProblemClass`;
:func:`solve` checks that the chosen solver is installed and can handle that class through that
modelling interface, translates the unified options once per backend, loads the model into the
solver, runs it within the caller's deadline, loads the solution back when one exists, and returns a
:class:`SolveReport`.

The report keeps *what solution exists* (:class:`Status`) apart from *why the solver stopped*
(``termination``). A run stopped by a limit is never reported as optimal: with an incumbent it is
``Status.FEASIBLE`` with the incumbent objective, best bound and gap; without one it is
``Status.NO_SOLUTION`` and the model's variable values are left untouched.

Modules: ``report`` (the result types), ``registry`` (which solver solves what, installed or not),
``options`` (unified and native options), ``standard_form`` (a Pyomo model as arrays), ``highs`` /
``scip`` (the bulk loaders), ``pyomo_environ`` / ``cvxpy_backend`` (the other interfaces), ``solving``
(:func:`solve`). The public names are imported on first use (:mod:`optrules.lazy`), so that a module
of the layer (the child process of ``highs_process``) loads without the others; no module bears a
public name, which importing the module would otherwise replace.
The solver matrix, option names and the measured backend behaviour are in ``docs/solvers.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from optrules.lazy import lazy_exports

if TYPE_CHECKING:
    from optrules.solvers.options import check_solver_options
    from optrules.solvers.registry import (INTERFACES, SOLVERS, Backend, SolverError, SolverNotInstalledError,
                                           SolverSpec, UnknownSolverError, UnsupportedProblemError, available_solvers)
    from optrules.solvers.report import ProblemClass, SolveReport, Status, relative_gap
    from optrules.solvers.solving import solve

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
    "check_solver_options",
    "relative_gap",
    "solve",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "optrules.solvers.options": ("check_solver_options",),
    "optrules.solvers.registry": ("INTERFACES", "SOLVERS", "Backend", "SolverError", "SolverNotInstalledError",
                                  "SolverSpec", "UnknownSolverError", "UnsupportedProblemError", "available_solvers"),
    "optrules.solvers.report": ("ProblemClass", "SolveReport", "Status", "relative_gap"),
    "optrules.solvers.solving": ("solve",),
})
