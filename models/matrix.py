"""Constraint blocks from arrays for the Pyomo formulations: ``lower <= A x <= upper`` as one Pyomo
``MatrixConstraint`` (``pyomo.core.base.matrix_constraint``), which stores the CSR arrays and makes
no expression per row. ``optrules.solvers`` loads such blocks into HiGHS and SCIP as arrays.

Pyomo's ``MatrixConstraint`` still makes one row object per row when it is added to a model; here
the row objects are made the first time anything asks for a row (indexing or iterating the block, a
row's dual, a row deactivated), not by the bulk loaders, which read the arrays. Measured (Pyomo
6.10.1, on a loaded machine): 15,722 rows cost 4 ms of objects and 2 ms more to read their flags, 6 million rows 3.7 s
and 1.7 s.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["matrix_constraint"]


def matrix_constraint(A: Any, x: Sequence[Any], lower: Any = None, upper: Any = None) -> Any:
    """``lower <= A @ x <= upper`` over the Pyomo variables ``x`` (one per column of ``A``).

    ``A`` is a scipy.sparse matrix or a dense array; ``lower`` / ``upper`` a number, an array with one
    entry per row, or None (no bound). Add the result to a model like any component
    (``m.SC1 = matrix_constraint(...)``).
    """
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
                             bounds(lower, -np.inf), bounds(upper, np.inf), list(x))


@functools.cache
def _rows_on_demand() -> type:
    """The ``MatrixConstraint`` whose row objects are made on demand (made here, on first use, so that
    importing this module does not import Pyomo)."""
    import weakref

    from pyomo.common.gc_manager import PauseGC
    from pyomo.core.base.matrix_constraint import MatrixConstraint, _MatrixConstraintData

    not_made = object()

    class MatrixConstraintRowsOnDemand(MatrixConstraint):
        """A ``MatrixConstraint`` whose rows (Pyomo's ``_data``) are made the first time they are
        read; :attr:`rows_made` tells a reader of the arrays whether any row object exists (until
        then no row can have been deactivated or given a dual)."""

        def construct(self, data: Any = None) -> None:
            if not self._constructed:
                self._constructed = True
                self.__dict__["_rows"] = not_made  # made by the first read of _data

        @property
        def _data(self) -> Any:
            rows = self.__dict__.get("_rows")
            if rows is not_made:  # (not None: Pyomo's clone sets an uncopyable field to None, and fails on it)
                reference = weakref.ref(self)
                with PauseGC():
                    rows = tuple(_MatrixConstraintData(i, reference) for i in range(len(self._lower)))
                self.__dict__["_rows"] = rows
            return rows

        @_data.setter
        def _data(self, value: Any) -> None:
            self.__dict__["_rows"] = value

        @property
        def rows_made(self) -> bool:
            return self.__dict__.get("_rows") is not not_made

    return MatrixConstraintRowsOnDemand
