"""A ``pyomo.kernel`` block as arrays: what the bulk loaders hand to HiGHS and SCIP in one pass.

optrules builds its formulations as ``pyomo.kernel`` blocks whose large constraint families are
``matrix_constraint`` objects (a scipy.sparse matrix over a tuple of variables), so nothing is
created per row of data. :func:`compile_kernel` reads such a block without looking at the rows one
by one:

    min / max   constant + c^T x + sum_k q_k x_{i_k} x_{j_k}                  (objective)
    s.t.        row_lower <= A x <= row_upper                                  (linear rows)
                lower_r <= a_r^T x + sum_k q_{r,k} x_{i_k} x_{j_k} <= upper_r  (quadratic rows)
                col_lower <= x <= col_upper,   x_j integer for j in ``integer``

Matrix constraints become blocks of A as they are; any other active constraint (a few, e.g. the
bilinear definitions of CL or a user's added cut) is read through Pyomo's standard representation,
linear ones into A and quadratic ones into ``quadratic_rows``. A fixed variable gets lower = upper =
its value. An expression that is neither linear nor quadratic is an error. A matrix constraint is
loaded whole when it is active (Pyomo lets single rows be deactivated too; those are loaded anyway,
so deactivate the container or rebuild the block).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np
import scipy.sparse as sp

from optrules.solvers.registry import SolverError

__all__ = ["QuadraticRow", "StandardForm", "compile_kernel", "is_kernel_block"]


def is_kernel_block(model: Any) -> bool:
    """True for a ``pyomo.kernel`` block (without importing Pyomo just to find out)."""
    import sys

    block = sys.modules.get("pyomo.core.kernel.block")
    return block is not None and isinstance(model, block.IBlock)


@dataclass(frozen=True)
class QuadraticRow:
    """``lower <= sum linear_coef * x[linear_index] + sum quad_coef * x[quad_i] * x[quad_j] <= upper``."""

    linear_index: np.ndarray
    linear_coef: np.ndarray
    quad_i: np.ndarray
    quad_j: np.ndarray
    quad_coef: np.ndarray
    lower: float
    upper: float


@dataclass
class StandardForm:
    """The arrays of a model (module docstring); column j is ``variables[j]``."""

    variables: list[Any]
    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray
    A: sp.csr_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    c: np.ndarray
    constant: float = 0.0
    q_i: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    q_j: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    q_coef: np.ndarray = field(default_factory=lambda: np.zeros(0))
    quadratic_rows: list[QuadraticRow] = field(default_factory=list)
    maximize: bool = False

    @property
    def n_cols(self) -> int:
        return len(self.variables)

    @property
    def is_mip(self) -> bool:
        return bool(self.integer.any())

    def start(self) -> np.ndarray:
        """The variables' current values (NaN where a variable has none)."""
        return np.array([np.nan if v.value is None else float(v.value) for v in self.variables], dtype=float)

    def load(self, x: np.ndarray) -> None:
        """Set every variable's value from the solution vector ``x``."""
        for var, value in zip(self.variables, np.asarray(x, dtype=float).tolist()):
            var.value = value

    def objective_at(self, x: np.ndarray) -> float:
        """The objective at the point ``x``."""
        x = np.asarray(x, dtype=float)
        value = self.constant + float(self.c @ x)
        if self.q_coef.size:
            value += float(self.q_coef @ (x[self.q_i] * x[self.q_j]))
        return value


def _bound(value: Any, default: float) -> float:
    return default if value is None else float(value)


def _leaves(container: Any) -> Iterator[Any]:
    """Active leaf objects and matrix constraints under a kernel container, in declaration order."""
    from pyomo.core.kernel.matrix_constraint import matrix_constraint

    for child in container.children():
        if not child.active:
            continue
        if isinstance(child, matrix_constraint) or not child._is_container:
            yield child
        else:
            yield from _leaves(child)


def compile_kernel(block: Any) -> StandardForm:
    """The :class:`StandardForm` of a ``pyomo.kernel`` block (see the module docstring)."""
    from pyomo.core.kernel.constraint import IConstraint
    from pyomo.core.kernel.matrix_constraint import matrix_constraint
    from pyomo.core.kernel.objective import IObjective, maximize
    from pyomo.core.kernel.variable import IVariable
    from pyomo.repn import generate_standard_repn

    variables = list(block.components(ctype=IVariable, active=None))
    column = {id(v): j for j, v in enumerate(variables)}
    n = len(variables)
    col_lower = np.array([_bound(v.lb, -np.inf) for v in variables], dtype=float)
    col_upper = np.array([_bound(v.ub, np.inf) for v in variables], dtype=float)
    integer = np.array([v.is_integer() for v in variables], dtype=bool)
    for j, v in enumerate(variables):
        if v.fixed:
            col_lower[j] = col_upper[j] = float(v.value)

    def columns_of(vars_: Any) -> np.ndarray:
        try:
            return np.fromiter((column[id(v)] for v in vars_), dtype=np.int64)
        except KeyError:
            raise SolverError("a constraint uses a variable that is not declared on the model's block") from None

    blocks, lowers, uppers = [], [], []
    small_rows: list[tuple[np.ndarray, np.ndarray, float, float]] = []
    quadratic_rows: list[QuadraticRow] = []
    for leaf in _leaves(block):
        if leaf.ctype is not IConstraint:
            continue
        if isinstance(leaf, matrix_constraint):
            A = leaf.A
            cols = columns_of(leaf.x)
            blocks.append(sp.csr_matrix((A.data, cols[A.indices], A.indptr), shape=(A.shape[0], n)))
            lower = np.array(leaf.lb, dtype=float)
            equality = np.asarray(leaf.equality, dtype=bool)
            lowers.append(lower)
            uppers.append(np.where(equality, lower, np.array(leaf.ub, dtype=float)))
            continue
        repn = generate_standard_repn(leaf.body, quadratic=True, compute_values=True)
        if repn.nonlinear_expr is not None:
            raise SolverError(f"constraint {leaf.name!r} is neither linear nor quadratic; the bulk loaders "
                              "take linear and quadratic expressions only")
        constant = float(repn.constant)
        lower = _bound(leaf.lb, -np.inf) - constant
        upper = _bound(leaf.ub, np.inf) - constant
        lin_idx = columns_of(repn.linear_vars)
        lin_coef = np.array(repn.linear_coefs, dtype=float)
        if repn.quadratic_vars:
            qi = columns_of(pair[0] for pair in repn.quadratic_vars)
            qj = columns_of(pair[1] for pair in repn.quadratic_vars)
            quadratic_rows.append(QuadraticRow(lin_idx, lin_coef, qi, qj,
                                               np.array(repn.quadratic_coefs, dtype=float), lower, upper))
        else:
            small_rows.append((lin_idx, lin_coef, lower, upper))
    if small_rows:
        indptr = np.cumsum([0] + [len(r[0]) for r in small_rows])
        blocks.append(sp.csr_matrix((np.concatenate([r[1] for r in small_rows]),
                                     np.concatenate([r[0] for r in small_rows]), indptr),
                                    shape=(len(small_rows), n)))
        lowers.append(np.array([r[2] for r in small_rows], dtype=float))
        uppers.append(np.array([r[3] for r in small_rows], dtype=float))
    A = sp.vstack(blocks, format="csr") if blocks else sp.csr_matrix((0, n))
    row_lower = np.concatenate(lowers) if lowers else np.zeros(0)
    row_upper = np.concatenate(uppers) if uppers else np.zeros(0)

    objectives = [o for o in block.components(ctype=IObjective, active=True)]
    if len(objectives) != 1:
        raise SolverError(f"a Pyomo model needs exactly one active objective, found {len(objectives)}")
    objective = objectives[0]
    repn = generate_standard_repn(objective.expr, quadratic=True, compute_values=True)
    if repn.nonlinear_expr is not None:
        raise SolverError("the objective is neither linear nor quadratic; the bulk loaders take linear and "
                          "quadratic objectives only")
    c = np.zeros(n)
    np.add.at(c, columns_of(repn.linear_vars), np.array(repn.linear_coefs, dtype=float))
    q_i = columns_of(pair[0] for pair in repn.quadratic_vars)
    q_j = columns_of(pair[1] for pair in repn.quadratic_vars)
    return StandardForm(variables, col_lower, col_upper, integer, A, row_lower, row_upper, c,
                        float(repn.constant), q_i, q_j, np.array(repn.quadratic_coefs, dtype=float),
                        quadratic_rows, objective.sense == maximize)
