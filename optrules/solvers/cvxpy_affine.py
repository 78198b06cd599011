"""A cvxpy LP or MILP read straight into HiGHS' arrays, without cvxpy's canonicalisation.

cvxpy's ``Problem.get_problem_data`` rewrites a problem through a chain of reductions that serves
every DCP atom. On a problem that is affine from the start it costs more than building the model:
4.7 ms for a two-rule set cover, 10 s for one of 6 million rows (cvxpy 1.9.3, docs/solvers.md). A
problem made only of

    vector or scalar variables (bounds, nonneg / nonpos, boolean / integer entries),
    constants and parameters with a value (numbers, numpy arrays, scipy.sparse matrices),
    A @ e, e @ A, multiply(c, e), e / c, e + e, -e, e[slice], e[index array], sum(e), a broadcast scalar,
    Minimize / Maximize of a scalar, and e <= e, e >= e, e == e, NonNeg, NonPos, Zero constraints,

is read here into the arrays of :func:`optrules.solvers.highs_arrays.model_arrays` (minimise
c^T x + offset, row_lower <= A x <= row_upper, column bounds, integer columns; a maximisation is
minimised negated, as cvxpy itself hands it to a solver). :func:`affine_form` returns None for any
other problem (a quadratic term, a matrix variable, an atom not listed), which then goes through
cvxpy's own chain. The answer is unpacked with cvxpy's ``Problem.unpack``: variable values, the
LP's constraint duals in cvxpy's signs, ``problem.status`` and ``problem.value``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from optrules.solvers.standard_form import stack_rows

__all__ = ["AffineForm", "affine_form"]

#: Variable attributes the reader knows; a variable with any other one set goes through cvxpy.
_KNOWN_ATTRIBUTES = frozenset({"nonneg", "nonpos", "boolean", "integer", "bounds"})


class _NotAffine(Exception):
    """The problem has something this reader does not take."""


@dataclass
class _Linear:
    """An affine expression of ``size`` entries: ``matrix @ x + offset`` over all columns x.

    ``first`` is set when the map is the identity onto columns first .. first + size - 1 (a variable
    or a contiguous slice of one); ``matrix`` is then made only when asked for, so that ``A @ z``
    becomes A with its column indices shifted rather than a sparse product."""

    size: int
    offset: np.ndarray
    n_cols: int
    stored: sp.csr_matrix | None = None
    first: int | None = None

    @property
    def matrix(self) -> sp.csr_matrix:
        if self.stored is None:
            if self.first is None:  # a constant
                self.stored = sp.csr_matrix((self.size, self.n_cols))
            else:
                self.stored = sp.csr_matrix((np.ones(self.size), self.first + np.arange(self.size),
                                             np.arange(self.size + 1)), shape=(self.size, self.n_cols))
        return self.stored

    @property
    def is_constant(self) -> bool:
        return self.first is None and (self.stored is None or self.stored.nnz == 0)

    def rows(self, which: Any) -> _Linear:
        """The entries ``which`` (a slice or an index array) of this expression."""
        offset = self.offset[which]
        if self.first is not None and isinstance(which, slice) and (which.step or 1) == 1:
            start = range(self.size)[which].start if offset.size else 0
            return _Linear(offset.size, offset, self.n_cols, first=self.first + start)
        return _Linear(offset.size, offset, self.n_cols, self.matrix[which] if not self.is_constant else None)

    def scaled(self, factor: np.ndarray) -> _Linear:
        """``factor * self`` entry by entry (``factor`` of size 1 or ``size``)."""
        factor = np.broadcast_to(np.asarray(factor, dtype=float), (self.size,))
        if self.is_constant:
            return _Linear(self.size, factor * self.offset, self.n_cols)
        matrix = self.matrix
        per_entry = np.repeat(factor, np.diff(matrix.indptr))  # each stored entry times its row's factor
        return _Linear(self.size, factor * self.offset, self.n_cols,
                       sp.csr_matrix((matrix.data * per_entry, matrix.indices, matrix.indptr), shape=matrix.shape))

    def times(self, constant: Any) -> _Linear:
        """``constant @ self`` for a 2-D constant (dense or sparse) with ``size`` columns."""
        constant = sp.csr_matrix(constant, dtype=float) if sp.issparse(constant) else np.asarray(constant, dtype=float)
        offset = np.asarray(constant @ self.offset, dtype=float).ravel()
        if self.is_constant:
            return _Linear(offset.size, offset, self.n_cols)
        if self.first is not None:  # the columns of ``constant``, moved over by ``first``
            if sp.issparse(constant):
                data, indices, indptr = constant.data, constant.indices, constant.indptr
            else:  # its nonzeros row by row, without scipy's conversion from a dense matrix
                rows, indices = np.nonzero(constant)
                data = constant[rows, indices]
                indptr = np.zeros(constant.shape[0] + 1, dtype=np.int64)
                np.cumsum(np.bincount(rows, minlength=constant.shape[0]), out=indptr[1:])
            matrix = sp.csr_matrix((data, indices + self.first, indptr), shape=(constant.shape[0], self.n_cols))
        else:
            matrix = sp.csr_matrix(constant) @ self.matrix
        return _Linear(offset.size, offset, self.n_cols, matrix)

    def broadcast(self, size: int) -> _Linear:
        """This expression with ``size`` entries: a one-entry expression repeated."""
        if self.size == size:
            return self
        if self.size != 1:
            raise _NotAffine(f"cannot broadcast {self.size} entries to {size}")
        picks = np.zeros(size, dtype=np.int64)
        return _Linear(size, self.offset[picks], self.n_cols, None if self.is_constant else self.matrix[picks])

    def plus(self, other: _Linear) -> _Linear:
        size = max(self.size, other.size)
        left, right = self.broadcast(size), other.broadcast(size)
        if right.is_constant:
            matrix = left.stored
            first = left.first
        elif left.is_constant:
            matrix, first = right.stored, right.first
        else:
            matrix, first = left.matrix + right.matrix, None
        return _Linear(size, left.offset + right.offset, self.n_cols, matrix, first)


@dataclass
class AffineForm:
    """The arrays of an affine cvxpy problem and what is needed to hand the answer back to it."""

    arrays: dict[str, np.ndarray]
    columns: list[tuple[Any, int]]  # (variable, its first column)
    duals: list[tuple[Any, int, int, float]]  # (constraint, first row, rows, sign from HiGHS' row dual)

    def start(self) -> np.ndarray:
        """The variables' current values in their columns (NaN where a variable has none)."""
        start = np.full(int(self.arrays["shape"][0]), np.nan)
        for variable, first in self.columns:
            if variable.value is not None:
                start[first:first + variable.size] = np.asarray(variable.value, dtype=float).ravel()
        return start

    def unpack(self, problem: Any, status: str, col_value: np.ndarray | None, row_dual: np.ndarray | None) -> None:
        """Hand HiGHS' answer to ``problem`` through cvxpy's ``Problem.unpack``: each variable's
        values (when there is a point), and for an LP each constraint's dual in cvxpy's signs
        (the multiplier of ``lhs - rhs <= 0`` and of ``expr >= 0`` is >= 0)."""
        from cvxpy.reductions.solution import Solution

        primal = {}
        if col_value is not None:
            x = np.asarray(col_value, dtype=float)
            primal = {variable.id: x[first:first + variable.size].reshape(variable.shape)
                      for variable, first in self.columns}
        duals = {}
        if col_value is not None and row_dual is not None and not self.arrays["integer"].size:
            y = np.asarray(row_dual, dtype=float)
            duals = {constraint.id: _shaped(sign * y[first:first + rows], constraint.shape)
                     for constraint, first, rows, sign in self.duals}
        problem.unpack(Solution(status, None, primal, duals, {}))


def _shaped(values: np.ndarray, shape: tuple[int, ...]) -> Any:
    """Values in a constraint's shape; a scalar constraint's as a float, as cvxpy gives it."""
    return float(values[0]) if shape == () else values.reshape(shape)


def affine_form(problem: Any) -> AffineForm | None:
    """The arrays of ``problem`` when it is affine and made of the pieces the module docstring
    lists, else None."""
    try:
        return _read(problem)
    except _NotAffine:
        return None


def _read(problem: Any) -> AffineForm:
    import cvxpy as cp

    variables = problem.variables()
    columns, n_cols = [], 0
    for variable in variables:
        unknown = [key for key, value in variable.attributes.items()
                   if key not in _KNOWN_ATTRIBUTES and value is not None and value is not False]
        if len(variable.shape) > 1 or unknown:
            raise _NotAffine("a matrix variable or an attribute the reader does not take")
        columns.append((variable, n_cols))
        n_cols += variable.size
    if n_cols == 0:  # nothing to decide: left to cvxpy, which handles a constant problem itself
        raise _NotAffine("no variable")
    first_column = {variable.id: first for variable, first in columns}
    reader = _Reader(first_column, n_cols)

    objective = reader.read(problem.objective.expr)
    if objective.size != 1 or not np.isfinite(objective.offset).all():
        raise _NotAffine("the objective is not a finite scalar")
    sign = -1.0 if isinstance(problem.objective, cp.Maximize) else 1.0

    blocks, lower, upper, duals, n_rows = [], [], [], [], 0
    for constraint in problem.constraints:
        rows, low, high, dual_sign = reader.constraint(constraint)
        blocks.append(rows.matrix)
        lower.append(low)
        upper.append(high)
        duals.append((constraint, n_rows, rows.size, dual_sign))
        n_rows += rows.size
    A = blocks[0] if len(blocks) == 1 else stack_rows([(b.data, b.indices, b.indptr) for b in blocks], n_cols)
    if not A.has_canonical_format:  # a constant with repeated or unsorted entries: HiGHS takes each once
        A = A.copy()  # (a lone block may share its arrays with a constant cvxpy keeps in the problem)
        A.sum_duplicates()
    col_lower, col_upper, integer = _column_bounds(columns, n_cols)
    cost = sign * np.asarray(objective.matrix.toarray(), dtype=float).ravel()
    arrays = {"shape": np.array([n_cols, n_rows], dtype=np.int64), "cost": cost,
              "offset": np.array([sign * float(objective.offset[0])]), "maximize": np.array([False]),
              "col_lower": col_lower, "col_upper": col_upper,
              "row_lower": np.concatenate(lower) if lower else np.zeros(0),
              "row_upper": np.concatenate(upper) if upper else np.zeros(0),
              "a_start": A.indptr.astype(np.int32), "a_index": A.indices.astype(np.int32),
              "a_value": A.data.astype(np.float64), "rowwise": np.array([True]), "integer": integer}
    return AffineForm(arrays, columns, duals)


def _column_bounds(columns: list[tuple[Any, int]], n_cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower and upper bound of every column and the integer columns (boolean entries within [0, 1])."""
    lower, upper = np.full(n_cols, -np.inf), np.full(n_cols, np.inf)
    integer = []
    for variable, first in columns:
        part = slice(first, first + variable.size)
        bounds = variable.attributes.get("bounds")
        if bounds is not None:
            for side, target in ((bounds[0], lower), (bounds[1], upper)):
                if side is not None:
                    target[part] = np.broadcast_to(np.asarray(_value(side), dtype=float), variable.shape).ravel()
        if variable.attributes.get("nonneg"):
            lower[part] = np.maximum(lower[part], 0.0)
        if variable.attributes.get("nonpos"):
            upper[part] = np.minimum(upper[part], 0.0)
        for kind, indices in (("boolean", variable.boolean_idx), ("integer", variable.integer_idx)):
            if len(indices):  # cvxpy's index tuples, flattened as cvxpy does (column-major)
                flat = first + np.ravel_multi_index(indices, max(variable.shape, (1,)), order="F")
                if kind == "boolean":
                    lower[flat] = np.maximum(lower[flat], 0.0)
                    upper[flat] = np.minimum(upper[flat], 1.0)
                integer.append(np.asarray(flat, dtype=np.int64).ravel())
    integer = np.unique(np.concatenate(integer)).astype(np.int32) if integer else np.zeros(0, dtype=np.int32)
    return lower, upper, integer


def _value(leaf: Any) -> Any:
    """The numeric value of a constant, a parameter or a plain number / array (complex values, which
    only leaves bring in, are left to cvxpy)."""
    value = getattr(leaf, "value", leaf)
    if value is None:
        raise _NotAffine("a parameter without a value")
    if np.iscomplexobj(value):
        raise _NotAffine("a complex constant")
    return value


class _Reader:
    """Reads cvxpy expressions into :class:`_Linear` maps over the problem's columns."""

    def __init__(self, first_column: dict[int, int], n_cols: int) -> None:
        import cvxpy as cp
        from cvxpy.atoms.affine.add_expr import AddExpression
        from cvxpy.atoms.affine.binary_operators import DivExpression, MulExpression, multiply
        from cvxpy.atoms.affine.index import index, special_index
        from cvxpy.atoms.affine.promote import Promote
        from cvxpy.atoms.affine.sum import Sum
        from cvxpy.atoms.affine.unary_operators import NegExpression

        self.first_column, self.n_cols = first_column, n_cols
        self.cp = cp
        self.handlers = {AddExpression: self._add, NegExpression: self._neg, MulExpression: self._matmul,
                         multiply: self._multiply, DivExpression: self._divide, index: self._index,
                         special_index: self._special_index, Sum: self._sum, Promote: self._promote}

    def read(self, expr: Any) -> _Linear:
        cp = self.cp
        if len(expr.shape) > 1:
            raise _NotAffine("a matrix-valued expression")
        if isinstance(expr, cp.Variable):
            return _Linear(expr.size, np.zeros(expr.size), self.n_cols, first=self.first_column[expr.id])
        if isinstance(expr, (cp.Constant, cp.Parameter)):
            value = _value(expr)
            value = value.toarray() if sp.issparse(value) else value
            return _Linear(expr.size, np.asarray(value, dtype=float).ravel(), self.n_cols)
        handler = self.handlers.get(type(expr))
        if handler is None:
            raise _NotAffine(f"{type(expr).__name__} is not read here")
        read = handler(expr)
        if read.size != expr.size:
            raise _NotAffine(f"{type(expr).__name__} read as {read.size} entries, not {expr.size}")
        return read

    def _constant_of(self, expr: Any) -> Any | None:
        """The value of a constant or parameter (kept sparse if it is), or None for anything else."""
        cp = self.cp
        if isinstance(expr, (cp.Constant, cp.Parameter)):
            return _value(expr)
        if type(expr).__name__ == "Promote" and isinstance(expr.args[0], (cp.Constant, cp.Parameter)):
            return np.broadcast_to(np.asarray(_value(expr.args[0]), dtype=float), expr.shape)
        return None

    def _add(self, expr: Any) -> _Linear:
        total = self.read(expr.args[0])
        for arg in expr.args[1:]:
            total = total.plus(self.read(arg))
        if total.size != expr.size:
            total = total.broadcast(expr.size)
        return total

    def _neg(self, expr: Any) -> _Linear:
        return self.read(expr.args[0]).scaled(np.array(-1.0))

    def _promote(self, expr: Any) -> _Linear:
        return self.read(expr.args[0]).broadcast(expr.size)

    def _matmul(self, expr: Any) -> _Linear:
        left, right = expr.args
        left_value, right_value = self._constant_of(left), self._constant_of(right)
        if left_value is not None and right_value is None:
            constant, inner, transposed = left_value, right, False
        elif right_value is not None and left_value is None:
            constant, inner, transposed = right_value, left, True
        else:
            raise _NotAffine("a product of two variables" if left_value is None else "a constant product")
        inner_map = self.read(inner)
        ndim = constant.ndim if sp.issparse(constant) else np.ndim(constant)
        if ndim == 0:
            return inner_map.scaled(np.asarray(constant, dtype=float))
        if ndim == 1:  # a dot product: one row
            constant = np.asarray(constant, dtype=float).reshape(1, -1)
        elif transposed:  # e @ A = A^T e
            constant = constant.T
        return inner_map.times(constant)

    def _multiply(self, expr: Any) -> _Linear:
        left, right = expr.args
        left_value, right_value = self._constant_of(left), self._constant_of(right)
        if left_value is not None and right_value is None:
            factor, inner = left_value, right
        elif right_value is not None and left_value is None:
            factor, inner = right_value, left
        else:
            raise _NotAffine("an elementwise product of two variables" if left_value is None else "a constant product")
        factor = np.asarray(factor.toarray() if sp.issparse(factor) else factor, dtype=float).ravel()
        inner_map = self.read(inner).broadcast(expr.size)
        return inner_map.scaled(factor)

    def _divide(self, expr: Any) -> _Linear:
        denominator = self._constant_of(expr.args[1])
        if denominator is None or sp.issparse(denominator):
            raise _NotAffine("a division by a variable")
        inner_map = self.read(expr.args[0]).broadcast(expr.size)
        return inner_map.scaled(1.0 / np.asarray(denominator, dtype=float).ravel())

    def _index(self, expr: Any) -> _Linear:
        inner = expr.args[0]
        if len(inner.shape) != 1 or len(expr.key) != 1 or not isinstance(expr.key[0], slice):
            raise _NotAffine("an index other than one slice of a vector")
        key = expr.key[0]
        if (key.step or 1) != 1:  # cvxpy writes x[::-1] as slice(n - 1, -1, -1): the stop is literal, not numpy's
            if key.start is None or key.stop is None:
                raise _NotAffine("a stepped slice without its bounds")
            return self.read(inner).rows(np.arange(key.start, key.stop, key.step))
        return self.read(inner).rows(key)

    def _special_index(self, expr: Any) -> _Linear:
        inner = expr.args[0]
        if len(inner.shape) != 1:
            raise _NotAffine("an index into a matrix")
        positions = np.arange(inner.size)[expr.key].ravel()
        return self.read(inner).rows(positions)

    def _sum(self, expr: Any) -> _Linear:
        if expr.axis is not None:
            raise _NotAffine("a sum along an axis")
        inner = self.read(expr.args[0])
        offset = np.array([inner.offset.sum()])
        if inner.is_constant:
            return _Linear(1, offset, self.n_cols)
        if inner.first is not None:  # the sum of a block of columns: one row of ones there
            ones = sp.csr_matrix((np.ones(inner.size), inner.first + np.arange(inner.size), [0, inner.size]),
                                 shape=(1, self.n_cols))
            return _Linear(1, offset, self.n_cols, ones)
        return _Linear(1, offset, self.n_cols, sp.csr_matrix(inner.matrix.sum(axis=0)))

    def constraint(self, constraint: Any) -> tuple[_Linear, np.ndarray, np.ndarray, float]:
        """A constraint's rows r (one per entry), their lower and upper bounds, and the sign that
        turns HiGHS' row dual into cvxpy's dual (HiGHS, minimising: >= 0 on a binding lower bound,
        <= 0 on an upper; cvxpy: the multiplier of lhs <= rhs, expr >= 0 or expr <= 0 is >= 0)."""
        cp = self.cp
        if isinstance(constraint, (cp.constraints.Inequality, cp.constraints.Equality)):
            left, right = (self.read(arg) for arg in constraint.args)
            size = max(left.size, right.size)
            equal = isinstance(constraint, cp.constraints.Equality)
            if left.is_constant and not equal:  # rhs - lhs >= 0: the large side is not negated
                return self._bounded(right.plus(left.scaled(np.array(-1.0))).broadcast(size), 0.0, np.inf, 1.0)
            rows = left.plus(right.scaled(np.array(-1.0))).broadcast(size)  # lhs - rhs
            return self._bounded(rows, 0.0 if equal else -np.inf, 0.0, -1.0)
        if isinstance(constraint, (cp.constraints.NonNeg, cp.constraints.NonPos, cp.constraints.Zero)):
            rows = self.read(constraint.args[0])
            if isinstance(constraint, cp.constraints.NonNeg):
                return self._bounded(rows, 0.0, np.inf, 1.0)
            return self._bounded(rows, 0.0 if isinstance(constraint, cp.constraints.Zero) else -np.inf, 0.0, -1.0)
        raise _NotAffine(f"a {type(constraint).__name__} constraint")

    @staticmethod
    def _bounded(rows: _Linear, lower: float, upper: float, sign: float) -> tuple[_Linear, np.ndarray, np.ndarray, float]:
        """``lower <= rows <= upper`` with the offset moved to the bounds (an infinite constant, such as
        ``x >= -inf``, is left to cvxpy, which drops or refuses such a row)."""
        if not np.isfinite(rows.offset).all():
            raise _NotAffine("an infinite or NaN constant in a constraint")
        return rows, lower - rows.offset, upper - rows.offset, sign
