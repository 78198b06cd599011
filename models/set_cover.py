"""Weighted set-cover ILP that selects rules exactly (problem class MILP; its LP relaxation: LP).

Data (an ``optrules.cover.CoverInstance``, usually already reduced): rows i with positive weight
p_i and negative weight n_i, candidate rules j with cost c_j, and J(i), the candidates covering row i.

    min   alpha * sum_i p_i u_i + (1 - alpha) * sum_i n_i v_i + sum_j c_j x_j + constant     (SC0)
    s.t.  u_i + sum_{j in J(i)} x_j >= 1          for every row i with p_i > 0             (SC1)
          v_i >= x_j                              for every row i with n_i > 0, j in J(i)  (SC2)
          sum_j x_j <= k                          when a rule budget k is given            (SC3)
          x_j in {0, 1};  u_i, v_i in [0, 1]                                               (SC4)

x_j selects rule j; u_i = 1 when row i's positives stay uncovered; v_i = 1 when row i's negatives
are covered. For binary x the optimal u and v are binary, so only x is declared integer. With
``relax=True`` x lies in [0, 1]: the LP relaxation, whose optimum bounds the ILP from below.
(SC2) is the disaggregated form; it gives a tighter relaxation than one aggregated constraint per row.

The relaxation of (SC1)-(SC2) is still weak: it covers a positive row with many rules at x = 1/m each
while a negative row they share pays only max x_j = 1/m. Pairs of a positive row k and a negative
row i give valid inequalities that close this:

          v_i + u_k + sum_{j in J(k) minus J(i)} x_j >= 1                                     (SC5)

(if row k is covered, either by a rule that also covers row i, so v_i = 1, or by one that does
not, which the sum counts). There are |P| x |N| of them; :meth:`SetCoverModel.add_pair_cuts` adds a
batch of chosen pairs as one block, and ``optrules.exact.set_cover`` separates the violated ones in
a few LP rounds before branching.

Both modelling layers build the same matrices (:func:`matrices`), each family of constraints as one
block, never an expression per row: ``modeller="pyomo"`` a Pyomo model of ``MatrixConstraint``
blocks (loaded as arrays by ``optrules.solvers``), ``modeller="cvxpy"`` a ``cvxpy.Problem`` of
sparse ``A @ x`` constraints. docs/solvers.md has the measured build and load
times of both.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from optrules.cover import CoverInstance
from optrules.models.matrix import linear_objective, matrix_constraint
from optrules.solvers import ProblemClass
from optrules.solvers.standard_form import members

__all__ = ["AUTO_MODELLER", "DEFAULT_MODELLER", "MODELLERS", "SetCoverMatrices", "SetCoverModel", "SetCoverSolution", "build", "extract", "matrices",
           "problem_class", "resolve_modeller"]

MODELLERS = ("pyomo", "cvxpy")
#: ``modeller="auto"``: the faster layer for the solver (:func:`resolve_modeller`).
AUTO_MODELLER = "auto"
DEFAULT_MODELLER = AUTO_MODELLER


def resolve_modeller(modeller: str, solver: str) -> str:
    """The layer that builds the model: ``modeller`` itself, or for ``"auto"`` the faster one for
    ``solver`` (build and load together, benchmarks/set_cover.py; docs/solvers.md has the figures):
    cvxpy for HiGHS, whose affine problems optrules reads straight into HiGHS' arrays, Pyomo for
    any other solver (optrules' SCIP loader takes the arrays and the greedy start in bulk; cvxpy's
    SCIP interface adds the rows one at a time and passes no start)."""
    if modeller != AUTO_MODELLER:
        return modeller
    return "cvxpy" if solver == "highs" else "pyomo"


def problem_class(relax: bool = False) -> ProblemClass:
    return ProblemClass.LP if relax else ProblemClass.MILP


@dataclass(frozen=True)
class SetCoverMatrices:
    """The data of (SC0)-(SC3) as arrays; columns are x (candidates), u (positive rows), v (negative rows).

    ``pos_rows`` / ``neg_rows`` are the instance rows of u and v; ``cover_pos`` is the (|P| x n)
    coverage of the positive rows, giving (SC1) as ``cover_pos @ x + u >= 1``; (SC2) has one row per
    pair (``pair_neg[r]``, ``pair_col[r]``): v_{pair_neg[r]} - x_{pair_col[r]} >= 0 (positions in v and x).
    Every block is assembled as CSR straight from index arrays (no scipy conversions or stacking:
    their fixed costs were a third of a small model's build).
    """

    instance: CoverInstance
    pos_rows: np.ndarray
    neg_rows: np.ndarray
    cover_pos: sp.csr_matrix
    pair_neg: np.ndarray
    pair_col: np.ndarray
    cost_x: np.ndarray
    cost_u: np.ndarray
    cost_v: np.ndarray
    constant: float

    @property
    def n_x(self) -> int:
        return self.cover_pos.shape[1]

    def sc1(self) -> sp.csr_matrix:
        """(SC1) over the columns (x, u): a positive row k is its coverage of x and +1 at u_k."""
        return self._rows_with_unit(self.cover_pos, self.n_x, self.n_x + self.pos_rows.size)

    def sc2(self) -> sp.csr_matrix:
        """(SC2) over the columns (x, v): -1 at x_j, +1 at v_i in each pair's row."""
        pairs, n_x = self.pair_neg.size, self.n_x
        indices = np.empty(2 * pairs, dtype=np.int64)
        indices[0::2], indices[1::2] = self.pair_col, n_x + self.pair_neg
        return sp.csr_matrix((np.tile([-1.0, 1.0], pairs), indices, 2 * np.arange(pairs + 1, dtype=np.int64)),
                             shape=(pairs, n_x + self.neg_rows.size))

    def cover_rows(self) -> sp.csr_matrix:
        """(SC1) then (SC2) over the columns (x, u, v) as one CSR matrix: (SC2)'s pair rows are -1 at
        x_j and +1 at v_i."""
        n_x, n_u, n_v = self.n_x, self.pos_rows.size, self.neg_rows.size
        sc1 = self._rows_with_unit(self.cover_pos, n_x, n_x + n_u + n_v)
        n_pairs = self.pair_neg.size
        indices = np.empty(2 * n_pairs, dtype=sc1.indices.dtype)
        indices[0::2], indices[1::2] = self.pair_col, n_x + n_u + self.pair_neg
        indptr = np.concatenate([sc1.indptr, sc1.indptr[-1] + 2 * np.arange(1, n_pairs + 1, dtype=sc1.indptr.dtype)])
        return sp.csr_matrix((np.concatenate([sc1.data, np.tile([-1.0, 1.0], n_pairs)]),
                              np.concatenate([sc1.indices, indices]), indptr), shape=(n_u + n_pairs, sc1.shape[1]))

    @staticmethod
    def _rows_with_unit(cover: sp.csr_matrix, first_unit: int, n_cols: int) -> sp.csr_matrix:
        """The rows of ``cover`` over ``n_cols`` columns, row k gaining a +1 at column first_unit + k
        (after its own entries, which all lie before it)."""
        n_rows = cover.shape[0]
        index = np.int32 if max(n_cols, cover.nnz + n_rows) < 2**31 else np.int64
        indptr = cover.indptr.astype(index) + np.arange(n_rows + 1, dtype=index)  # each row gains its unit last
        indices = np.empty(int(indptr[-1]), dtype=index)
        data = np.ones(indices.size)
        own = np.ones(indices.size, dtype=bool)
        own[indptr[1:] - 1] = False
        indices[own], data[own] = cover.indices, cover.data
        indices[~own] = first_unit + np.arange(n_rows, dtype=index)
        return sp.csr_matrix((data, indices, indptr), shape=(n_rows, n_cols))

    def pair_cut_rows(self, pairs: np.ndarray) -> sp.csr_matrix:
        """(SC5) of each (positive row k, negative row i) in ``pairs`` over the columns (x, u, v)."""
        coverage = self.instance.coverage
        k, i = pairs[:, 0], pairs[:, 1]
        only_k = sp.csr_matrix(coverage[k] & ~coverage[i], dtype=float)
        u_at = np.searchsorted(self.pos_rows, k)
        v_at = np.searchsorted(self.neg_rows, i)
        rows = np.arange(len(pairs))
        selector = sp.csr_matrix((np.ones(2 * len(pairs)), (np.concatenate([rows, rows]),
                                                            np.concatenate([u_at, self.pos_rows.size + v_at]))),
                                 shape=(len(pairs), self.pos_rows.size + self.neg_rows.size))
        return sp.hstack([only_k, selector], format="csr")


def matrices(instance: CoverInstance) -> SetCoverMatrices:
    """The arrays of (SC0)-(SC3) for ``instance``, in whole blocks."""
    coverage = instance.coverage
    pos_rows = np.flatnonzero(instance.pos_weight > 0)
    neg_rows = np.flatnonzero(instance.neg_weight > 0)
    rows, cols = _entries(coverage[pos_rows])
    indptr = np.zeros(pos_rows.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=pos_rows.size), out=indptr[1:])
    cover_pos = sp.csr_matrix((np.ones(cols.size), cols, indptr), shape=(pos_rows.size, coverage.shape[1]))
    pair_neg, pair_col = _entries(coverage[neg_rows])
    alpha = instance.alpha
    return SetCoverMatrices(instance, pos_rows, neg_rows, cover_pos, pair_neg, pair_col,
                            np.asarray(instance.cost, dtype=float), alpha * instance.pos_weight[pos_rows],
                            (1 - alpha) * instance.neg_weight[neg_rows], float(instance.constant))


def _entries(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of every True entry of a 2-D boolean ``block``, row by row (what
    ``np.nonzero`` gives, found in the flattened array: 3-6x faster with numpy 2.4 on coverage
    blocks of 184 x 331 to 40,000 x 500)."""
    return np.divmod(np.flatnonzero(block), block.shape[1])


@dataclass(frozen=True)
class SetCoverSolution:
    """The candidates chosen (x_j > 0.5; for the relaxation the fractional values are in ``x``)."""

    selected: np.ndarray
    x: np.ndarray


class SetCoverModel(ABC):
    """(SC0)-(SC5) of one instance in one modelling layer; ``model`` is what ``optrules.solvers.solve`` takes.

    A model starts with x binary (the ILP) or, with ``relax=True``, in [0, 1]; :meth:`set_integrality`
    switches it, :meth:`add_pair_cuts` adds (SC5) rows, :meth:`set_start` sets every variable to a
    selection's point (a warm start), :meth:`solution` and :meth:`row_values` read the values back.
    """

    modeller: str = ""

    def __init__(self, data: SetCoverMatrices, max_rules: int | None, relax: bool) -> None:
        self.data = data
        self.max_rules = max_rules
        self.integer = not relax

    @property
    @abstractmethod
    def model(self) -> Any:
        """The Pyomo model or cvxpy Problem to solve."""

    @property
    def problem_class(self) -> ProblemClass:
        return problem_class(relax=not self.integer)

    @abstractmethod
    def set_integrality(self, integer: bool) -> None:
        """x binary (the ILP) or in [0, 1] (the LP relaxation)."""

    @abstractmethod
    def add_pair_cuts(self, pairs: np.ndarray) -> None:
        """Add (SC5) for each (positive row k, negative row i) row of ``pairs``, as one block."""

    @abstractmethod
    def _values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The current values of x, u and v (0 where unset)."""

    @abstractmethod
    def _assign(self, x: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
        """Set x, u and v."""

    def set_start(self, start: np.ndarray) -> None:
        """Set the variables to the selection ``start`` (candidate indices): a warm start for the solver."""
        instance = self.data.instance
        chosen = np.zeros(instance.n_candidates, dtype=bool)
        chosen[np.asarray(start, dtype=int)] = True
        covered = instance.coverage[:, chosen].any(axis=1)
        self._assign(chosen.astype(float), (~covered[self.data.pos_rows]).astype(float),
                     covered[self.data.neg_rows].astype(float))

    def solution(self) -> SetCoverSolution:
        x = self._values()[0]
        return SetCoverSolution(np.flatnonzero(x > 0.5), x)

    def row_values(self) -> tuple[np.ndarray, np.ndarray]:
        """Current u (positive rows) and v (negative rows) as dense vectors over all rows (0 elsewhere)."""
        _, u_part, v_part = self._values()
        n_rows = self.data.instance.coverage.shape[0]
        u, v = np.zeros(n_rows), np.zeros(n_rows)
        u[self.data.pos_rows] = u_part
        v[self.data.neg_rows] = v_part
        return u, v


class PyomoSetCover(SetCoverModel):
    """A Pyomo model: indexed variables x, u, v; (SC1)-(SC3) and every batch of (SC5) cuts as
    ``MatrixConstraint`` blocks, (SC0) as a linear objective kept as an array (both
    ``optrules.models.matrix``)."""

    modeller = "pyomo"

    def __init__(self, data: SetCoverMatrices, max_rules: int | None, relax: bool) -> None:
        super().__init__(data, max_rules, relax)
        from pyomo.common.gc_manager import PauseGC

        with PauseGC():  # a build makes 10^5 objects or more: no collector passes over them meanwhile
            self._build(data, max_rules, relax)

    def _build(self, data: SetCoverMatrices, max_rules: int | None, relax: bool) -> None:
        import pyomo.environ as pyo

        self._pyo = pyo
        m = pyo.ConcreteModel(name="set_cover")
        m.x = pyo.Var(range(data.n_x), domain=pyo.UnitInterval if relax else pyo.Binary)
        m.u = pyo.Var(range(data.pos_rows.size), bounds=(0, 1))
        m.v = pyo.Var(range(data.neg_rows.size), bounds=(0, 1))
        self._x, self._u, self._v = list(members(m.x)), list(members(m.u)), list(members(m.v))
        m.SC0 = linear_objective(np.concatenate([data.cost_x, data.cost_u, data.cost_v]),
                                 [*self._x, *self._u, *self._v], data.constant)
        if data.pos_rows.size:
            m.SC1 = matrix_constraint(data.sc1(), [*self._x, *self._u], lower=1.0)
        if data.pair_neg.size:
            m.SC2 = matrix_constraint(data.sc2(), [*self._x, *self._v], lower=0.0)
        if max_rules is not None and data.n_x:
            m.SC3 = matrix_constraint(np.ones((1, data.n_x)), self._x, upper=float(max_rules))
        self._cut_blocks = 0
        self._model = m

    @property
    def model(self) -> Any:
        return self._model

    def set_integrality(self, integer: bool) -> None:
        domain = self._pyo.Binary if integer else self._pyo.UnitInterval
        for x in self._x:
            x.domain = domain
        self.integer = integer

    def add_pair_cuts(self, pairs: np.ndarray) -> None:
        if len(pairs):
            self._cut_blocks += 1
            self._model.add_component(f"SC5_{self._cut_blocks}", matrix_constraint(
                self.data.pair_cut_rows(np.asarray(pairs)), [*self._x, *self._u, *self._v], lower=1.0))

    def _values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        def values(variables: list[Any]) -> np.ndarray:
            return np.array([0.0 if v.value is None else v.value for v in variables], dtype=float)

        return values(self._x), values(self._u), values(self._v)

    def _assign(self, x: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
        for variables, values in ((self._x, x), (self._u, u), (self._v, v)):
            for var, value in zip(variables, values.tolist()):
                var.set_value(value, skip_validation=True)


class CvxpySetCover(SetCoverModel):
    """A ``cvxpy.Problem`` over one variable vector z = (x, u, v), all in [0, 1] and x binary for the
    ILP, with (SC1), (SC2) and (SC5) stacked into one sparse ``A @ z >= b`` block and (SC0) as
    ``c @ z``: the fewest expressions cvxpy has to canonicalise (measured 30% faster to load on
    german's 760-row instance than one variable and one block per family). cvxpy fixes a variable's
    integrality when it is made, so a switch between the ILP and its relaxation (or a new batch of
    cuts) makes the next :attr:`model` a new Problem."""

    modeller = "cvxpy"

    def __init__(self, data: SetCoverMatrices, max_rules: int | None, relax: bool) -> None:
        super().__init__(data, max_rules, relax)
        import cvxpy as cp

        self._cp = cp
        self._sizes = (data.n_x, data.pos_rows.size, data.neg_rows.size)
        self._rows = data.cover_rows()  # (SC1) then (SC2) over (x, u, v)
        self._rhs = np.concatenate([np.ones(data.pos_rows.size), np.zeros(data.pair_neg.size)])
        self._cost = np.concatenate([data.cost_x, data.cost_u, data.cost_v])
        self.z = self._new_z()
        self._cuts: list[sp.csr_matrix] = []
        self._problem: Any = None

    def _new_z(self) -> Any:
        boolean = (np.arange(self.data.n_x),) if self.integer and self.data.n_x else False
        return self._cp.Variable(sum(self._sizes), name="z", boolean=boolean, bounds=[0, 1])

    @property
    def model(self) -> Any:
        if self._problem is None:
            self._problem = self._build()
        return self._problem

    def _build(self) -> Any:
        cp, z = self._cp, self.z
        rows, rhs = self._rows, self._rhs
        if self._cuts:  # (SC5): only where both positive and negative rows exist
            rows = sp.vstack([rows, *self._cuts], format="csr")
            rhs = np.concatenate([rhs, np.ones(rows.shape[0] - rhs.size)])
        constraints = [rows @ z >= rhs] if rows.shape[0] else []  # (SC1), (SC2), (SC5)
        if self.max_rules is not None:
            constraints.append(cp.sum(z[:self.data.n_x]) <= self.max_rules)  # (SC3)
        return cp.Problem(cp.Minimize(self._cost @ z + self.data.constant), constraints)  # (SC0)

    def set_integrality(self, integer: bool) -> None:
        if integer == self.integer:
            return
        values = self.z.value
        self.integer = integer
        self.z = self._new_z()
        if values is not None:
            n_x = self.data.n_x
            x = np.round(values[:n_x]) if integer else np.clip(values[:n_x], 0.0, 1.0)
            self.z.value = np.concatenate([x, values[n_x:]])
        self._problem = None

    def add_pair_cuts(self, pairs: np.ndarray) -> None:
        if len(pairs):
            self._cuts.append(self.data.pair_cut_rows(np.asarray(pairs)))
            self._problem = None

    def _values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        z = np.zeros(self.z.shape) if self.z.value is None else np.asarray(self.z.value, dtype=float)
        n_x, n_u, _ = self._sizes
        return z[:n_x], z[n_x:n_x + n_u], z[n_x + n_u:]

    def _assign(self, x: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
        self.z.value = np.concatenate([x, u, v]).astype(float)


_MODELS: dict[str, type[SetCoverModel]] = {"pyomo": PyomoSetCover, "cvxpy": CvxpySetCover}


def build(instance: CoverInstance, max_rules: int | None = None, relax: bool = False,
          modeller: str = DEFAULT_MODELLER) -> SetCoverModel:
    """(SC0)-(SC4) of ``instance``, with no (SC5) inequality yet, in the chosen modelling layer."""
    if modeller not in _MODELS:
        raise ValueError(f"modeller must be one of {list(MODELLERS)}, got {modeller!r}")
    return _MODELS[modeller](matrices(instance), max_rules, relax)


def extract(model: SetCoverModel) -> SetCoverSolution:
    """The selection held in ``model`` (after a solve, the solver's)."""
    return model.solution()
