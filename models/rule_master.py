"""The master problem of Boolean rules via column generation (Dash, Günlük & Wei, NeurIPS 2018, (1)-(4)).

Data: positive rows r with weight p_r (the training positives, identical rows merged), and clauses k
(conjunctions of literals) with their set of covered positive rows K(r) ∋ k, their objective cost
a_k and their complexity c_k (1 + number of literals):

    min   sum_r p_r xi_r + sum_k a_k w_k                                         (1)
    s.t.  xi_r + sum_{k in K(r)} w_k >= 1           for every positive row r      (2)
          sum_k c_k w_k <= C                         when a complexity budget C is given   (3)
          xi_r >= 0;  w_k in {0, 1}                                               (4)

xi_r = 1 when row r's positives stay uncovered. The paper's a_k is the number of training negatives
clause k covers (each selected clause pays for its negatives, so a negative covered by two
clauses counts twice: an upper bound on the errors that keeps a clause's cost independent of the
others); ``optrules.exact.column_generation`` adds a complexity penalty lambda * c_k to it. The
mapping to the package's set cover (``models/set_cover.py``) is not exact: there a negative row
counts once however many rules cover it (SC2, one row per (negative, rule) pair, which a new column
would extend), and (SC3) counts rules rather than their complexity. Hence its own model.

The LP relaxation (``relax=True``) has w_k >= 0 instead of (4). Its duals mu_r >= 0 of (2) and
lam >= 0 of (3) price a clause k: reduced cost  a_k + lam c_k - sum_{r covered by k} mu_r
(``optrules.models.rule_pricing``). Columns are added in batches (:meth:`RuleMaster.add_columns`);
each model is built from the arrays as whole blocks: ``modeller="pyomo"`` a Pyomo model of
``MatrixConstraint`` blocks with a ``dual`` suffix (HiGHS writes the duals into it),
``modeller="cvxpy"`` a ``cvxpy.Problem`` with sparse ``A @ w`` constraints (cvxpy's own duals).
The LP re-solves of column generation with HiGHS (:meth:`RuleMaster.solve_lp`) keep the same
arrays in one persistent HiGHS LP instead (``optrules.solvers.highs_lp``), new columns appended and
each solve starting from the last basis; the Pyomo model is then built only for the integer master.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from optrules.models.matrix import linear_objective, matrix_constraint
from optrules.solvers import ProblemClass, SolveReport, solve
from optrules.solvers.highs_lp import HighsLP
from optrules.solvers.standard_form import members

__all__ = ["MODELLERS", "RuleMaster"]

MODELLERS = ("pyomo", "cvxpy")


class RuleMaster:
    """(1)-(4) over the clauses added so far, as a Pyomo model or a cvxpy Problem (:attr:`model`).

    ``pos_weight``: p_r per positive row; ``max_complexity``: C of (3), or None for no budget.
    The model is rebuilt from the arrays when columns or the integrality change.
    """

    def __init__(self, pos_weight: np.ndarray, max_complexity: float | None = None, modeller: str = "pyomo") -> None:
        if modeller not in MODELLERS:
            raise ValueError(f"modeller must be one of {list(MODELLERS)}, got {modeller!r}")
        self.modeller = modeller
        self.pos_weight = np.asarray(pos_weight, dtype=float)
        self.max_complexity = max_complexity
        self.cover = sp.csc_matrix((self.pos_weight.size, 0), dtype=float)  # positive rows x clauses
        self.cost = np.zeros(0)
        self.complexity = np.zeros(0)
        self.integer = False
        self._model: Any = None
        self._start: np.ndarray | None = None
        self._session: HighsLP | None = None
        self._from_session = False

    @property
    def n_columns(self) -> int:
        return self.cost.size

    @property
    def problem_class(self) -> ProblemClass:
        return ProblemClass.MILP if self.integer else ProblemClass.LP

    def add_columns(self, cover: Any, cost: np.ndarray, complexity: np.ndarray) -> None:
        """Append clauses: ``cover`` (positive rows x new clauses, 0/1), their a_k and c_k."""
        cover = sp.csc_matrix(cover, dtype=float)
        if cover.shape[0] != self.pos_weight.size:
            raise ValueError(f"cover has {cover.shape[0]} rows, the master {self.pos_weight.size} positive rows")
        self.cover = sp.hstack([self.cover, cover], format="csc")
        self.cost = np.concatenate([self.cost, np.asarray(cost, dtype=float)])
        self.complexity = np.concatenate([self.complexity, np.asarray(complexity, dtype=float)])
        self._model = None

    def set_integrality(self, integer: bool) -> None:
        """w binary (the integer master (4)) or w >= 0 (the LP relaxation)."""
        if integer != self.integer:
            self.integer = integer
            self._model = None

    def set_start(self, selected: np.ndarray) -> None:
        """A warm start for the integer master: the clauses ``selected`` (column indices)."""
        self._start = np.asarray(selected, dtype=int)
        if self._model is not None:
            self._assign_start()

    @property
    def model(self) -> Any:
        if self._model is None:
            self._model = self._build_pyomo() if self.modeller == "pyomo" else self._build_cvxpy()
            if self._start is not None:
                self._assign_start()
        return self._model

    def _start_point(self) -> tuple[np.ndarray, np.ndarray]:
        w = np.zeros(self.n_columns)
        w[self._start] = 1.0
        xi = np.clip(1.0 - self.cover @ w, 0.0, 1.0)
        return w, xi

    def solve_lp(self, solver: str, options: dict[str, Any], deadline: float | None) -> SolveReport:
        """Solve the LP relaxation over the columns so far (persistently for Pyomo + HiGHS)."""
        self.set_integrality(False)
        self._from_session = self.modeller == "pyomo" and solver == "highs"
        if not self._from_session:
            return solve(self.model, self.problem_class, solver, options, deadline=deadline)
        R, budget = self.pos_weight.size, self.max_complexity is not None
        if self._session is None:
            lower = np.concatenate([np.ones(R), [-np.inf] if budget else []])
            upper = np.concatenate([np.full(R, np.inf), [float(self.max_complexity)] if budget else []])
            self._session = HighsLP(lower, upper, options)
            self._session.add_columns(self.pos_weight, np.zeros(R), np.full(R, np.inf),
                                      sp.vstack([sp.identity(R), sp.csr_matrix((int(budget), R))], format="csc"))
        new = slice(self._session.n_cols - R, self.n_columns)
        if new.start < new.stop:
            block = self.cover[:, new]
            if budget:
                block = sp.vstack([block, sp.csr_matrix(self.complexity[new][None, :])], format="csc")
            count = new.stop - new.start
            self._session.add_columns(self.cost[new], np.zeros(count), np.full(count, np.inf), block)
        return self._session.solve(deadline)

    # -- Pyomo ------------------------------------------------------------------------------------
    def _build_pyomo(self) -> Any:
        import pyomo.environ as pyo
        from pyomo.common.gc_manager import PauseGC

        with PauseGC():
            m = pyo.ConcreteModel(name="rule_master")
            K, R = self.n_columns, self.pos_weight.size
            m.w = pyo.Var(range(K), domain=pyo.Binary if self.integer else pyo.NonNegativeReals)
            m.xi = pyo.Var(range(R), domain=pyo.NonNegativeReals)
            self._w, self._xi = list(members(m.w)), list(members(m.xi))
            m.objective = linear_objective(np.concatenate([self.pos_weight, self.cost]), [*self._xi, *self._w])  # (1)
            if R:
                cover = sp.hstack([sp.identity(R, format="csr"), self.cover.tocsr()], format="csr")
                m.cover = matrix_constraint(cover, [*self._xi, *self._w], lower=1.0)  # (2)
            if self.max_complexity is not None and K:
                m.budget = matrix_constraint(self.complexity[None, :], self._w, upper=self.max_complexity)  # (3)
            if not self.integer:
                m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
        return m

    # -- cvxpy ------------------------------------------------------------------------------------
    def _build_cvxpy(self) -> Any:
        import cvxpy as cp

        K, R = self.n_columns, self.pos_weight.size
        self._cw = cp.Variable(K, name="w", boolean=True) if self.integer else cp.Variable(K, name="w", nonneg=True)
        self._cxi = cp.Variable(R, name="xi", nonneg=True)
        self._cover_con = self.cover.tocsr() @ self._cw + self._cxi >= 1  # (2)
        constraints = [self._cover_con]
        self._budget_con = None
        if self.max_complexity is not None and K:
            self._budget_con = self.complexity @ self._cw <= self.max_complexity  # (3)
            constraints.append(self._budget_con)
        return cp.Problem(cp.Minimize(self.pos_weight @ self._cxi + self.cost @ self._cw), constraints)  # (1)

    # -- values -----------------------------------------------------------------------------------
    def _assign_start(self) -> None:
        w, xi = self._start_point()
        if self.modeller == "pyomo":
            for var, value in zip([*self._w, *self._xi], np.concatenate([w, xi]).tolist()):
                var.set_value(value, skip_validation=True)
        else:
            self._cw.value, self._cxi.value = w, xi

    def values(self) -> np.ndarray:
        """The current w (0 where unset)."""
        if self._from_session and not self.integer:
            return self._session.values()[self.pos_weight.size:]
        if self.modeller == "pyomo":
            return np.array([0.0 if v.value is None else v.value for v in self._w], dtype=float)
        return np.zeros(self.n_columns) if self._cw.value is None else np.asarray(self._cw.value, dtype=float)

    def duals(self) -> tuple[np.ndarray, float]:
        """(mu, lam) of the last LP solve: mu_r >= 0 per positive row for (2), lam >= 0 for (3)."""
        if self.integer:
            raise ValueError("the integer master has no duals; solve the LP relaxation")
        if self._from_session:
            duals = self._session.row_duals()
            R = self.pos_weight.size
            mu, lam = duals[:R], (-duals[R] if duals.size > R else 0.0)
        elif self.modeller == "pyomo":
            m = self._model
            suffix = m.dual
            R = self.pos_weight.size
            mu = np.array([suffix.get(m.cover[r], 0.0) for r in range(R)], dtype=float) if R else np.zeros(0)
            lam = -suffix.get(m.budget[0], 0.0) if m.component("budget") is not None else 0.0
        else:
            mu = np.asarray(self._cover_con.dual_value, dtype=float).ravel()
            lam = float(self._budget_con.dual_value) if self._budget_con is not None else 0.0
        return np.maximum(mu, 0.0), max(float(lam), 0.0)
