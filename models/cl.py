"""CL, the Cluster formulation of the CLSVM paper (Carrizosa, Nogales-Gomez and Romero Morales, (7)-(14)).

    min   sum_{j,l} omegabar_{j,l}^2 / 2 + sum_{j'} omega'_{j'}^2 / 2 + (C / n) sum_i xi_i           (7)
    s.t.  y_i (sum_{j,l} omegabar_{j,l} z_{j,k_j(i),l} + omega'^T x'_i + b) >= 1 - xi_i   for all i   (8)
          sum_l z_{j,k,l} = 1                                                   for all j, k   (9)
          xi_i >= 0                                                                           (10)
          z in {0, 1}                                                                         (11)
          omegabar, omega', b free                                                      (12)-(14)
          z_{j,0,0} = 1: the first category of each feature in its first cluster  (symmetry breaking)

k_j(i) is the category of sample i in clustered feature j (sum_k z_{j,k,l} x_{i,j,k} = z_{j,k_j(i),l}).
(8) is bilinear, so CL is a nonconvex MINLP (problem class MINLP; SCIP solves it globally).
``relax=True`` gives its continuous relaxation, z in [0, 1]: a nonconvex QCQP (class NLP), solved
globally by SCIP or locally by Ipopt (``optrules.exact.cl_ipopt`` declares it for cyipopt).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from optrules.solvers import ProblemClass

__all__ = ["ClusterData", "CLSolution", "build", "extract", "numeric_score", "problem_class", "set_start",
           "shared_components"]


def problem_class(relax: bool = False) -> ProblemClass:
    return ProblemClass.NLP if relax else ProblemClass.MINLP


@dataclass(frozen=True)
class ClusterData:
    """Inputs of CL and CL-bigM.

    ``codes[j]`` gives k_j(i) for every sample (all >= 0 on training data); ``n_categories[j]`` is
    K_j; ``numeric`` is the n x J' matrix x'; ``y`` in {-1, +1}; ``clusters`` is L (every feature).
    """

    codes: tuple[np.ndarray, ...]
    n_categories: tuple[int, ...]
    numeric: np.ndarray
    y: np.ndarray
    clusters: int = 2

    def __post_init__(self) -> None:
        if self.clusters < 1:
            raise ValueError(f"clusters must be >= 1, got {self.clusters}")
        for j, (code, size) in enumerate(zip(self.codes, self.n_categories)):
            if code.size and (code.min() < 0 or code.max() >= size):
                raise ValueError(f"codes of clustered feature {j} must lie in 0..{size - 1}")

    @property
    def n(self) -> int:
        return len(self.y)

    def index_sets(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]], list[tuple[int, int, int]]]:
        """(j, l) pairs, (j, k) pairs and (j, k, l) triples."""
        L = self.clusters
        JL = [(j, l) for j in range(len(self.n_categories)) for l in range(L)]
        JK = [(j, k) for j, size in enumerate(self.n_categories) for k in range(size)]
        JKL = [(j, k, l) for j, k in JK for l in range(L)]
        return JL, JK, JKL


@dataclass(frozen=True)
class CLSolution:
    """assignment[j][k] = argmax_l z_{j,k,l}; z[j] is K_j x L (fractional for a relaxation)."""

    cluster_scores: tuple[np.ndarray, ...]
    omega_numeric: np.ndarray
    b: float
    z: tuple[np.ndarray, ...]
    objective: float

    @property
    def assignment(self) -> tuple[np.ndarray, ...]:
        return tuple(np.argmax(zj, axis=1) for zj in self.z)


def shared_components(m: pyo.ConcreteModel, data: ClusterData, relax: bool) -> None:
    """Sets, the variables shared by CL and CL-bigM, (7), (9), (10) and the symmetry breaking."""
    JL, JK, JKL = data.index_sets()
    m.I = pyo.RangeSet(0, data.n - 1)
    m.P = pyo.RangeSet(0, data.numeric.shape[1] - 1) if data.numeric.shape[1] else pyo.Set(initialize=[])
    m.JL = pyo.Set(dimen=2, initialize=JL, ordered=True)
    m.JK = pyo.Set(dimen=2, initialize=JK, ordered=True)
    m.JKL = pyo.Set(dimen=3, initialize=JKL, ordered=True)
    m.omegabar = pyo.Var(m.JL)  # (12)
    m.omega_numeric = pyo.Var(m.P)  # (13)
    m.b = pyo.Var()  # (14)
    m.xi = pyo.Var(m.I, domain=pyo.NonNegativeReals)  # (10)
    m.z = pyo.Var(m.JKL, domain=pyo.UnitInterval if relax else pyo.Binary)  # (11)
    n = data.n
    m.C = pyo.Param(initialize=0.0, mutable=True)
    m.obj = pyo.Objective(  # (7) / (16)
        expr=sum(m.omegabar[jl] ** 2 for jl in m.JL) / 2
        + sum(m.omega_numeric[p] ** 2 for p in m.P) / 2
        + m.C / n * pyo.quicksum(m.xi[i] for i in m.I),
        sense=pyo.minimize,
    )
    m.eq9 = pyo.Constraint(m.JK, rule=lambda m, j, k: sum(m.z[j, k, l] for l in range(data.clusters)) == 1)
    for j in range(len(data.n_categories)):  # symmetry breaking: first category in the first cluster
        m.z[j, 0, 0].fix(1)


def numeric_score(m: pyo.ConcreteModel, data: ClusterData, i: int):
    row = data.numeric[i]
    return pyo.quicksum(float(row[p]) * m.omega_numeric[p] for p in m.P if row[p] != 0.0)


def build(data: ClusterData, C: float, relax: bool = False) -> pyo.ConcreteModel:
    """CL (7)-(14) as a Pyomo model; ``relax=True``: z in [0, 1] (the QCQP relaxation)."""
    m = pyo.ConcreteModel(name="CL_relaxation" if relax else "CL")
    shared_components(m, data, relax)
    m.C.set_value(float(C))
    L = data.clusters
    features = range(len(data.n_categories))

    def eq8(m, i):
        y = float(data.y[i])
        clustered = pyo.quicksum(m.omegabar[j, l] * m.z[j, int(data.codes[j][i]), l]
                                 for j in features for l in range(L))
        return y * (clustered + numeric_score(m, data, i) + m.b) >= 1 - m.xi[i]

    m.eq8 = pyo.Constraint(m.I, rule=eq8)
    return m


def set_start(m: pyo.ConcreteModel, data: ClusterData, assignment: list[np.ndarray],
              cluster_scores: list[np.ndarray], omega_numeric: np.ndarray, b: float) -> None:
    """Set every variable of CL to the point given by a clustering and its scores (a warm start).

    xi is set to max(0, 1 - y_i f(x_i)), so the point is feasible; ``assignment[j][0]`` must be 0.
    """
    L = data.clusters
    score = np.full(data.n, float(b)) + data.numeric @ np.asarray(omega_numeric, dtype=float)
    for j, code in enumerate(data.codes):
        if assignment[j][0] != 0:
            raise ValueError("the start must put the first category of each feature in cluster 0")
        score += np.asarray(cluster_scores[j])[np.asarray(assignment[j])[code]]
        for l in range(L):
            m.omegabar[j, l].set_value(float(cluster_scores[j][l]))
        for k in range(data.n_categories[j]):
            for l in range(L):
                if not m.z[j, k, l].fixed:
                    m.z[j, k, l].set_value(1.0 if assignment[j][k] == l else 0.0)
    for p in m.P:
        m.omega_numeric[p].set_value(float(omega_numeric[p]))
    m.b.set_value(float(b))
    hinge = np.maximum(0.0, 1.0 - data.y * score)
    for i in m.I:
        m.xi[i].set_value(float(hinge[i]))


def extract(m: pyo.ConcreteModel, data: ClusterData) -> CLSolution:
    """The solution loaded in ``m`` (CL or CL-bigM)."""
    L = data.clusters

    def val(var) -> float:
        return float(pyo.value(var, exception=False) or 0.0)

    scores = tuple(np.array([val(m.omegabar[j, l]) for l in range(L)]) for j in range(len(data.n_categories)))
    z = tuple(np.array([[val(m.z[j, k, l]) for l in range(L)] for k in range(size)])
              for j, size in enumerate(data.n_categories))
    numeric = np.array([val(m.omega_numeric[p]) for p in m.P])
    return CLSolution(scores, numeric, val(m.b), z, float(pyo.value(m.obj)))
