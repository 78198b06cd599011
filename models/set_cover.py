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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from optrules.cover import CoverInstance
from optrules.solvers import ProblemClass

__all__ = ["build", "extract", "problem_class", "SetCoverSolution"]


def problem_class(relax: bool = False) -> ProblemClass:
    return ProblemClass.LP if relax else ProblemClass.MILP


def build(instance: CoverInstance, max_rules: int | None = None, relax: bool = False,
          start: np.ndarray | None = None) -> pyo.ConcreteModel:
    """The Pyomo model (SC0)-(SC4) of ``instance``; ``start`` (candidate indices) presets a warm start."""
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
    if start is not None:
        _set_start(m, instance, covering, np.asarray(start, dtype=int))
    return m


def _set_start(m: pyo.ConcreteModel, instance: CoverInstance, covering: list[list[int]],
               start: np.ndarray) -> None:
    chosen = np.zeros(instance.n_candidates, dtype=bool)
    chosen[start] = True
    for j in m.J:
        m.x[j].set_value(float(chosen[j]))
    for i in m.P:
        m.u[i].set_value(0.0 if chosen[covering[i]].any() else 1.0)
    for i in m.N:
        m.v[i].set_value(1.0 if chosen[covering[i]].any() else 0.0)


@dataclass(frozen=True)
class SetCoverSolution:
    """The candidates chosen (x_j > 0.5; for the relaxation the fractional values are in ``x``)."""

    selected: np.ndarray
    x: np.ndarray
    objective: float


def extract(m: pyo.ConcreteModel) -> SetCoverSolution:
    x = np.array([pyo.value(m.x[j], exception=False) or 0.0 for j in m.J], dtype=float)
    return SetCoverSolution(np.flatnonzero(x > 0.5), x, float(pyo.value(m.SC0)))
