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
not, which the sum counts). There are |P| x |N| of them; ``add_pair_cuts`` adds chosen pairs, and
``optrules.exact.set_cover`` separates the violated ones in a few LP rounds before branching.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from optrules.cover import CoverInstance
from optrules.solvers import ProblemClass

__all__ = ["build", "extract", "problem_class", "add_pair_cuts", "set_integrality", "row_values", "set_start",
           "SetCoverSolution"]


def problem_class(relax: bool = False) -> ProblemClass:
    return ProblemClass.LP if relax else ProblemClass.MILP


def build(instance: CoverInstance, max_rules: int | None = None, relax: bool = False) -> pyo.ConcreteModel:
    """The Pyomo model (SC0)-(SC5) of ``instance``, with no (SC5) inequality yet."""
    coverage = instance.coverage
    n_rows, n_cols = coverage.shape
    pos_rows = np.flatnonzero(instance.pos_weight > 0)
    neg_rows = np.flatnonzero(instance.neg_weight > 0)
    covering = [np.flatnonzero(coverage[i]).tolist() for i in range(n_rows)]

    m = pyo.ConcreteModel(name="set_cover")
    m.J = pyo.RangeSet(0, n_cols - 1) if n_cols else pyo.Set(initialize=[])
    m.P = pyo.Set(initialize=pos_rows.tolist())
    m.N = pyo.Set(initialize=neg_rows.tolist())
    m.NJ = pyo.Set(dimen=2, initialize=[(i, j) for i in neg_rows.tolist() for j in covering[i]])

    m.x = pyo.Var(m.J, domain=pyo.UnitInterval if relax else pyo.Binary)
    m.u = pyo.Var(m.P, bounds=(0, 1))
    m.v = pyo.Var(m.N, bounds=(0, 1))

    alpha = instance.alpha
    m.SC0 = pyo.Objective(
        expr=instance.constant
        + sum(alpha * float(instance.pos_weight[i]) * m.u[i] for i in m.P)
        + sum((1 - alpha) * float(instance.neg_weight[i]) * m.v[i] for i in m.N)
        + sum(float(instance.cost[j]) * m.x[j] for j in m.J),
        sense=pyo.minimize,
    )
    m.SC1 = pyo.Constraint(m.P, rule=lambda m, i: m.u[i] + sum(m.x[j] for j in covering[i]) >= 1)
    m.SC2 = pyo.Constraint(m.NJ, rule=lambda m, i, j: m.v[i] >= m.x[j])
    if max_rules is not None:
        m.SC3 = pyo.Constraint(expr=sum(m.x[j] for j in m.J) <= int(max_rules))
    m.SC5 = pyo.ConstraintList()
    return m


def add_pair_cuts(m: pyo.ConcreteModel, instance: CoverInstance, pairs: list[tuple[int, int]]) -> None:
    """Add (SC5) for each (positive row k, negative row i) in ``pairs``."""
    coverage = instance.coverage
    for k, i in pairs:
        only_k = np.flatnonzero(coverage[k] & ~coverage[i]).tolist()
        m.SC5.add(m.v[i] + m.u[k] + sum(m.x[j] for j in only_k) >= 1)


def set_integrality(m: pyo.ConcreteModel, integer: bool) -> None:
    """Switch x between binary (the ILP) and [0, 1] (the LP relaxation) in place."""
    for j in m.J:
        m.x[j].domain = pyo.Binary if integer else pyo.UnitInterval


def set_start(m: pyo.ConcreteModel, instance: CoverInstance, start: np.ndarray) -> None:
    """Set the variables to the selection ``start`` (candidate indices): a warm start for the solver."""
    chosen = np.zeros(instance.n_candidates, dtype=bool)
    chosen[np.asarray(start, dtype=int)] = True
    covered = instance.coverage[:, chosen].any(axis=1)
    for j in m.J:
        m.x[j].set_value(float(chosen[j]))
    for i in m.P:
        m.u[i].set_value(0.0 if covered[i] else 1.0)
    for i in m.N:
        m.v[i].set_value(1.0 if covered[i] else 0.0)


@dataclass(frozen=True)
class SetCoverSolution:
    """The candidates chosen (x_j > 0.5; for the relaxation the fractional values are in ``x``)."""

    selected: np.ndarray
    x: np.ndarray
    objective: float


def extract(m: pyo.ConcreteModel) -> SetCoverSolution:
    x = np.array([pyo.value(m.x[j], exception=False) or 0.0 for j in m.J], dtype=float)
    return SetCoverSolution(np.flatnonzero(x > 0.5), x, float(pyo.value(m.SC0)))


def row_values(m: pyo.ConcreteModel, instance: CoverInstance) -> tuple[np.ndarray, np.ndarray]:
    """Current u (positive rows) and v (negative rows) as dense vectors over all rows (0 elsewhere)."""
    n_rows = instance.coverage.shape[0]
    u, v = np.zeros(n_rows), np.zeros(n_rows)
    for i in m.P:
        u[i] = pyo.value(m.u[i], exception=False) or 0.0
    for i in m.N:
        v[i] = pyo.value(m.v[i], exception=False) or 0.0
    return u, v
