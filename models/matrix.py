"""Pyomo components from arrays for the formulations: ``lower <= A x <= upper`` as one Pyomo
``MatrixConstraint`` (``pyomo.core.base.matrix_constraint``), which stores the CSR arrays and makes
no expression per row, and a linear objective ``constant + c @ x`` that keeps ``c`` as an array.
``optrules.solvers`` loads both into HiGHS and SCIP as arrays.

Pyomo's ``MatrixConstraint`` still makes one row object per row when it is added to a model; here
the row objects are made the first time anything asks for a row (indexing or iterating the block, a
row's dual, a row deactivated), not by the bulk loaders, which read the arrays. Measured (Pyomo
6.10.1, on a loaded machine): 15,722 rows cost 4 ms of objects and 2 ms more to read their flags, 6
million rows 3.7 s and 1.7 s. A row reads as a constraint with its relational expression, made from
the arrays, so Pyomo's LP and NL writers and pyomo.contrib.solver (the paths of CBC, GLPK, Ipopt and
Gurobi) take the blocks too, and a clone copies the rows with their flags; Pyomo's own
``MatrixConstraint`` rows have no expression, and those paths fail on them (Pyomo 6.10.1).

A linear objective over n variables is, as a Pyomo expression, n term objects made when the model is
built and read back one by one when it is loaded; :func:`linear_objective` makes that expression the
first time anything asks for it (Pyomo's writers, ``pyomo.environ.value``), not for the bulk
loaders, which read the array. Measured (Pyomo 6.10.1): 0.2 ms to make and 0.15 ms to read for the
596 variables of german's set cover, 0.4 ms and 0.35 ms for 1,500 variables.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp

from optrules.solvers.standard_form import all_variables

__all__ = ["linear_objective", "matrix_constraint"]


def matrix_constraint(A: Any, x: Sequence[Any], lower: Any = None, upper: Any = None) -> Any:
    """``lower <= A @ x <= upper`` over the Pyomo variables ``x`` (one per column of ``A``).

    ``A`` is a scipy.sparse matrix or a dense array; ``lower`` / ``upper`` a number, an array with one
    entry per row, or None (no bound). Add the result to a model like any component
    (``m.SC1 = matrix_constraint(...)``).
    """
    x = _variables(x)
    if not (sp.issparse(A) and A.format == "csr" and A.dtype == np.float64):
        A = sp.csr_matrix(A, dtype=float)
    A.sum_duplicates()  # in place; a no-op on a matrix already in canonical form
    rows, cols = A.shape
    if len(x) != cols:
        raise ValueError(f"A has {cols} columns but {len(x)} variables were given")

    def bounds(value: Any, missing: float) -> np.ndarray:
        if value is None:
            return np.full(rows, missing)
        out = np.broadcast_to(np.asarray(value, dtype=float), (rows,)).copy()
        if np.isnan(out).any():
            raise ValueError("constraint bounds must not be NaN")
        return out

    return _rows_on_demand()(A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64),
                             bounds(lower, -np.inf), bounds(upper, np.inf), x)


def _variables(x: Sequence[Any]) -> list[Any]:
    """``x`` as a list, checked to hold Pyomo variables (an indexed ``Var`` itself would list its
    indices)."""
    x = list(x)
    if not all_variables(x):
        raise TypeError("x must list Pyomo variables (for an indexed Var, list(m.x.values()))")
    return x


@functools.cache
def _rows_on_demand() -> type:
    """The ``MatrixConstraint`` whose row objects are made on demand (made here, on first use, so that
    importing this module does not import Pyomo)."""
    import weakref

    from pyomo.common.gc_manager import PauseGC
    from pyomo.core.base.matrix_constraint import MatrixConstraint, _MatrixConstraintData
    from pyomo.core.expr.relational_expr import inequality

    class MatrixRow(_MatrixConstraintData):
        """A row of the block as Pyomo's writers and solver interfaces read a constraint: its
        relational expression (Pyomo keeps it in ``_expr``, which ``MatrixConstraint`` rows lack, so
        the LP / NL writers and pyomo.contrib.solver failed on them), made from the block's arrays
        each time it is read."""

        __slots__ = ()

        @property
        def _expr(self) -> Any:
            lower, upper = float(self.lower), float(self.upper)
            if lower == upper:
                return self.body == lower
            if lower == -np.inf:
                return self.body <= upper  # with no bound at all, a row that reads as unbounded
            if upper == np.inf:
                return lower <= self.body
            return inequality(lower, self.body, upper)

        @_expr.setter
        def _expr(self, value: Any) -> None:  # Pyomo restores slots on a copy; the row's is derived
            pass

    class MatrixConstraintRowsOnDemand(MatrixConstraint):
        """A ``MatrixConstraint`` whose rows (Pyomo's ``_data``) are made the first time they are
        read; :attr:`rows_made` tells a reader of the arrays whether any row object exists (until
        then no row can have been deactivated or given a dual)."""

        def construct(self, data: Any = None) -> None:
            if not self._constructed:
                self._constructed = True
                self.__dict__.pop("_rows", None)  # none made: the first read of _data makes them

        @property
        def _data(self) -> Any:
            rows = self.__dict__.get("_rows")
            if rows is None and self._constructed:  # (a state without rows pickles and copies as one)
                reference = weakref.ref(self)
                with PauseGC():
                    rows = tuple(MatrixRow(i, reference) for i in range(len(self._lower)))
                self.__dict__["_rows"] = rows
            return rows

        @_data.setter
        def _data(self, value: Any) -> None:
            self.__dict__["_rows"] = value

        @property
        def rows_made(self) -> bool:
            return "_rows" in self.__dict__

        # Pyomo's component walkers (``component_data_objects``, which pyomo.contrib.solver uses)
        # call keys / values / items with ``sort``; MatrixConstraint takes them from ``Mapping``,
        # which refuses the argument.
        def keys(self, sort: Any = None, ordered: Any = None) -> range:
            return range(len(self._lower))

        def values(self, sort: Any = None, ordered: Any = None) -> tuple[Any, ...]:
            return self._data

        def items(self, sort: Any = None, ordered: Any = None) -> Any:
            return zip(self.keys(), self._data)

    MatrixRow.__qualname__ = "MatrixRow"  # found by name in this module when a pickled model is read
    MatrixConstraintRowsOnDemand.__qualname__ = "MatrixConstraintRowsOnDemand"
    MatrixConstraintRowsOnDemand.row_type = MatrixRow
    return MatrixConstraintRowsOnDemand


def __getattr__(name: str) -> type:
    """The Pyomo classes of this module, made on first use, by name (how pickle finds them)."""
    if name == "MatrixConstraintRowsOnDemand":
        return _rows_on_demand()
    if name == "MatrixRow":
        return _rows_on_demand().row_type
    if name == "LinearObjectiveOnDemand":
        return _objective_on_demand()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def linear_objective(c: Any, x: Sequence[Any], constant: float = 0.0, maximize: bool = False) -> Any:
    """``constant + c @ x`` to minimise (or maximise) over the Pyomo variables ``x`` (one per entry of
    ``c``), as a Pyomo objective: add it to a model like any component (``m.SC0 = linear_objective(...)``).
    Its expression is made when first read; :attr:`linear_terms` gives the arrays until the
    expression is replaced."""
    x = _variables(x)
    c = np.array(c, dtype=float).reshape(-1)  # a copy, read-only: the arrays and the expression stay one objective
    c.flags.writeable = False
    if len(x) != c.size:
        raise ValueError(f"c has {c.size} entries but {len(x)} variables were given")
    if not np.isfinite(c).all() or not np.isfinite(constant):
        raise ValueError("objective coefficients and constant must be finite")
    return _objective_on_demand()(c, x, float(constant), maximize)


@functools.cache
def _objective_on_demand() -> type:
    """The ``ScalarObjective`` whose expression is made on demand (made here, on first use, so that
    importing this module does not import Pyomo)."""
    from pyomo.core.base.objective import ScalarObjective
    from pyomo.core.expr.numeric_expr import LinearExpression
    from pyomo.environ import maximize as pyomo_maximize, minimize as pyomo_minimize

    class LinearObjectiveOnDemand(ScalarObjective):
        """A ``ScalarObjective`` holding ``constant + c @ x`` as arrays; Pyomo keeps an objective's
        expression in ``_args_``, which is made here the first time it is read. Setting a new
        expression (``objective.expr = ...``) replaces the arrays: :attr:`linear_terms` is None from then."""

        def __init__(self, c: np.ndarray, x: list[Any], constant: float, maximize: bool) -> None:
            super().__init__(sense=pyomo_maximize if maximize else pyomo_minimize)
            self.__dict__["_terms"] = (constant, x, c)
            self.__dict__["_made"] = None

        def construct(self, data: Any = None) -> None:
            if not self._constructed:
                self._constructed = True
                self.set_sense(self._init_sense(self.parent_block(), None))  # also registers the one member

        @property
        def _args_(self) -> tuple[Any]:
            made = self.__dict__.get("_made")
            if made is None:
                constant, x, c = self.__dict__["_terms"]
                made = (LinearExpression(constant=constant, linear_coefs=c.tolist(), linear_vars=x),)
                self.__dict__["_made"] = made
            return made

        @_args_.setter
        def _args_(self, value: tuple[Any]) -> None:
            self.__dict__["_made"] = value
            self.__dict__["_terms"] = None

        @property
        def linear_terms(self) -> tuple[float, list[Any], np.ndarray] | None:
            """(constant, variables, coefficients) of the objective, or None once its expression was replaced."""
            return self.__dict__.get("_terms")

    LinearObjectiveOnDemand.__qualname__ = "LinearObjectiveOnDemand"
    return LinearObjectiveOnDemand
