"""Constraint blocks from arrays for the Pyomo formulations: ``lower <= A x <= upper`` as one Pyomo
``MatrixConstraint`` (``pyomo.core.base.matrix_constraint``), which stores the CSR arrays and makes
no expression per row. ``optrules.solvers`` loads such blocks into HiGHS and SCIP as arrays."""

from __future__ import annotations

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
    from pyomo.core.base.matrix_constraint import MatrixConstraint

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

    return MatrixConstraint(A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64),
                            bounds(lower, -np.inf), bounds(upper, np.inf), list(x))
