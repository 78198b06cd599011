"""The pricing problem of Boolean rules via column generation (Dash, Günlük & Wei, NeurIPS 2018, Section 2).

Given the master LP's duals, find the conjunction of at most D literals with the least reduced cost.
Data: the literal truth table T (rows x literals; rows are the distinct training rows), a net cost
g_r per row of covering it (its negatives' cost minus the dual mu_r of its positives; rows with
g_r = 0 are left out) and a price kappa per unit of complexity (the clause's own 1 and one per literal):

    min   kappa (1 + sum_j z_j) + sum_r g_r delta_r                                   (5)
    s.t.  delta_r + z_j <= 1                for r with g_r < 0, j with T_rj = 0       (6)
          delta_r + sum_{j: T_rj = 0} z_j >= 1    for r with g_r > 0                   (7)
          sum_j z_j <= D                                                               (8)
          z_j in {0, 1};  0 <= delta_r <= 1                                            (9)

z selects the literals; delta_r = 1 when the clause covers row r (it satisfies every chosen
literal). (6) lets a row the clause should cover count only if no chosen literal is false on it;
(7) forces a row it should not cover to count unless some chosen literal excludes it. For binary z
the optimal delta is binary, so only z is declared integer. The optimum is the least reduced cost
over all conjunctions of at most D literals; a dual bound >= 0 proves that no column can improve
the master LP. (The numbers (5)-(9) continue the master's (1)-(4); docs/methods/column_generation.md
says which of them could be checked against the paper's text.) Built as a Pyomo model of ``MatrixConstraint`` blocks (one block per family).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from optrules.models.matrix import linear_objective, matrix_constraint
from optrules.solvers import ProblemClass
from optrules.solvers.standard_form import members

__all__ = ["PricingModel", "build", "problem_class"]


def problem_class() -> ProblemClass:
    return ProblemClass.MILP


@dataclass
class PricingModel:
    """The Pyomo model of (5)-(9) and its literal variables z, in literal order."""

    model: Any
    z: list[Any]

    def chosen(self) -> np.ndarray:
        """The literals of the solution held in the model (z_j > 0.5)."""
        return np.flatnonzero(np.array([0.0 if v.value is None else v.value for v in self.z]) > 0.5)

    def set_start(self, literals: np.ndarray, truth: np.ndarray) -> None:
        """Warm start at the clause of ``literals``; ``truth`` is T restricted to the model's rows."""
        chosen = np.zeros(len(self.z))
        chosen[np.asarray(literals, dtype=int)] = 1.0
        for var, value in zip(self.z, chosen.tolist()):
            var.set_value(value, skip_validation=True)
        covered = truth[:, np.asarray(literals, dtype=int)].all(axis=1).astype(float)
        for var, value in zip(self.model.delta.values(), covered.tolist()):
            var.set_value(value, skip_validation=True)


def build(truth: np.ndarray, gain: np.ndarray, kappa: float, max_literals: int) -> PricingModel:
    """(5)-(9) over the rows of ``truth`` (bool, rows x literals) with net costs ``gain`` (g_r, no zeros)."""
    import pyomo.environ as pyo
    from pyomo.common.gc_manager import PauseGC

    truth = np.asarray(truth, dtype=bool)
    gain = np.asarray(gain, dtype=float)
    n_rows, n_literals = truth.shape
    with PauseGC():
        m = pyo.ConcreteModel(name="rule_pricing")
        m.z = pyo.Var(range(n_literals), domain=pyo.Binary)
        m.delta = pyo.Var(range(n_rows), bounds=(0, 1))
        z, delta = list(members(m.z)), list(members(m.delta))
        m.objective = linear_objective(np.concatenate([np.full(n_literals, float(kappa)), gain]), [*z, *delta],
                                       float(kappa))  # (5)
        columns = [*delta, *z]
        wanted = np.flatnonzero(gain < 0)
        rows, literals = np.nonzero(~truth[wanted])
        if rows.size:  # (6): one row per (wanted row, literal false on it)
            pairs = rows.size
            A = sp.csr_matrix((np.ones(2 * pairs), (np.repeat(np.arange(pairs), 2),
                                                     np.column_stack([wanted[rows], n_rows + literals]).ravel())),
                              shape=(pairs, n_rows + n_literals))
            m.cover_only_if = matrix_constraint(A, columns, upper=1.0)
        unwanted = np.flatnonzero(gain > 0)
        if unwanted.size:  # (7): delta_r + (literals false on r) >= 1
            excluded = sp.csr_matrix(~truth[unwanted], dtype=float)
            selector = sp.csr_matrix((np.ones(unwanted.size), (np.arange(unwanted.size), unwanted)),
                                     shape=(unwanted.size, n_rows))
            m.exclude_or_count = matrix_constraint(sp.hstack([selector, excluded], format="csr"), columns, lower=1.0)
        if n_literals:
            m.length = matrix_constraint(np.ones((1, n_literals)), z, upper=float(max_literals))  # (8)
    return PricingModel(m, z)
