"""CL-bigM of the CLSVM paper (Carrizosa, Nogales-Gomez and Romero Morales, (16)-(28)) and its relaxation.

CL's bilinear term omegabar_{j,l} z_{j,k,l} becomes a variable omegatilde_{j,k,l} tied to it by big-M
constraints; M_j is a bound on |omegabar_{j,l}| valid at every optimum (``optrules.exact.clsvm``
derives it from a feasible point, see docs/methods/clsvm.md):

    min   sum_{j,l} omegabar_{j,l}^2 / 2 + sum_{j'} omega'_{j'}^2 / 2 + (C / n) sum_i xi_i        (16)
    s.t.  y_i (sum_{j,l} omegatilde_{j,k_j(i),l} + omega'^T x'_i + b) >= 1 - xi_i   for all i   (17)
          sum_l z_{j,k,l} = 1                                              for all j, k   (18)
          omegatilde_{j,k,l} <= omegabar_{j,l} + M_j (1 - z_{j,k,l})                         (19)
          omegatilde_{j,k,l} >= omegabar_{j,l} - M_j (1 - z_{j,k,l})                         (20)
          omegatilde_{j,k,l} <= M_j z_{j,k,l}                                                (21)
          omegatilde_{j,k,l} >= -M_j z_{j,k,l}                                               (22)
          xi_i >= 0;  z in {0, 1};  omegabar, omega', omegatilde, b free                (23)-(28)
          z_{j,0,0} = 1 (symmetry breaking);  |omegabar_{j,l}| <= M_j (valid at every optimum)

A convex MIQP (problem class MIQP): :func:`build` declares it in Pyomo for SCIP (or Gurobi).
With z in [0, 1] it is a convex QP: :func:`build_relaxation` declares that in cvxpy (Clarabel,
OSQP, HiGHS or SCIP), where it builds and solves about ten times faster than through Pyomo;
``build(..., relax=True)`` gives the same relaxation in Pyomo for cross-checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cvxpy as cp
import numpy as np
import pyomo.environ as pyo

from optrules.models.cl import ClusterData, CLSolution, numeric_score, shared_components
from optrules.models.cl import set_start as cl_set_start
from optrules.solvers import ProblemClass

__all__ = ["BigMRelaxation", "build", "build_relaxation", "extract_relaxation", "problem_class", "set_start"]


def problem_class(relax: bool = False) -> ProblemClass:
    return ProblemClass.QP if relax else ProblemClass.MIQP


def _bounds(data: ClusterData, M: float | Sequence[float]) -> np.ndarray:
    bounds = np.broadcast_to(np.asarray(M, dtype=float), (len(data.n_categories),)).copy()
    if (bounds <= 0).any() or not np.isfinite(bounds).all():
        raise ValueError(f"big-M values must be positive and finite, got {bounds.tolist()}")
    return bounds


def build(data: ClusterData, C: float, M: float | Sequence[float], relax: bool = False) -> pyo.ConcreteModel:
    """CL-bigM (16)-(28) in Pyomo; ``M`` is one bound or one per clustered feature."""
    bounds = _bounds(data, M)
    m = pyo.ConcreteModel(name="CL_bigM_relaxation" if relax else "CL_bigM")
    shared_components(m, data, relax)
    m.C.set_value(float(C))
    L = data.clusters
    for (j, l) in m.JL:
        m.omegabar[j, l].setlb(-bounds[j])
        m.omegabar[j, l].setub(bounds[j])
    m.omegatilde = pyo.Var(m.JKL, bounds=lambda m, j, k, l: (-bounds[j], bounds[j]))  # (27)
    features = range(len(data.n_categories))

    def eq17(m, i):
        clustered = pyo.quicksum(m.omegatilde[j, int(data.codes[j][i]), l] for j in features for l in range(L))
        return float(data.y[i]) * (clustered + numeric_score(m, data, i) + m.b) >= 1 - m.xi[i]

    m.eq17 = pyo.Constraint(m.I, rule=eq17)
    m.eq19 = pyo.Constraint(m.JKL, rule=lambda m, j, k, l:
                            m.omegatilde[j, k, l] <= m.omegabar[j, l] + bounds[j] * (1 - m.z[j, k, l]))
    m.eq20 = pyo.Constraint(m.JKL, rule=lambda m, j, k, l:
                            m.omegatilde[j, k, l] >= m.omegabar[j, l] - bounds[j] * (1 - m.z[j, k, l]))
    m.eq21 = pyo.Constraint(m.JKL, rule=lambda m, j, k, l: m.omegatilde[j, k, l] <= bounds[j] * m.z[j, k, l])
    m.eq22 = pyo.Constraint(m.JKL, rule=lambda m, j, k, l: m.omegatilde[j, k, l] >= -bounds[j] * m.z[j, k, l])
    return m


def set_start(m: pyo.ConcreteModel, data: ClusterData, assignment: list[np.ndarray],
              cluster_scores: list[np.ndarray], omega_numeric: np.ndarray, b: float) -> None:
    """CL's start (``optrules.models.cl.set_start``) plus omegatilde_{j,k,l} = z_{j,k,l} omegabar_{j,l}."""
    cl_set_start(m, data, assignment, cluster_scores, omega_numeric, b)
    for (j, k, l) in m.JKL:
        m.omegatilde[j, k, l].set_value(float(cluster_scores[j][l]) if assignment[j][k] == l else 0.0)


@dataclass
class BigMRelaxation:
    """The cvxpy relaxation: categories of all clustered features stacked (K = sum_j K_j rows)."""

    problem: cp.Problem
    omegabar: cp.Variable  #: J x L
    omegatilde: cp.Variable  #: K x L
    z: cp.Variable  #: K x L
    omega_numeric: cp.Variable | None
    b: cp.Variable
    xi: cp.Variable
    C: cp.Parameter
    n_categories: tuple[int, ...]


def build_relaxation(data: ClusterData, C: float, M: float | Sequence[float]) -> BigMRelaxation:
    """The continuous relaxation of CL-bigM (z in [0, 1]), a convex QP, in cvxpy."""
    bounds = _bounds(data, M)
    n, L = data.n, data.clusters
    sizes = data.n_categories
    J, K = len(sizes), int(sum(sizes))
    if J == 0:
        raise ValueError("CL-bigM needs at least one clustered feature")
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    feature_of = np.repeat(np.arange(J), sizes)  # category row -> its feature
    expand = np.zeros((K, J))
    expand[np.arange(K), feature_of] = 1.0
    one_hot = np.zeros((n, K))
    for j, code in enumerate(data.codes):
        one_hot[np.arange(n), offsets[j] + code] = 1.0
    big = bounds[feature_of][:, None]  # K x 1

    omegabar = cp.Variable((J, L), name="omegabar")
    omegatilde = cp.Variable((K, L), name="omegatilde")
    z = cp.Variable((K, L), name="z")
    omega_numeric = cp.Variable(data.numeric.shape[1], name="omega_numeric") if data.numeric.shape[1] else None
    b = cp.Variable(name="b")
    xi = cp.Variable(n, name="xi")
    c_param = cp.Parameter(nonneg=True, value=float(C), name="C")
    per_category = expand @ omegabar  # K x L: omegabar_{j(k), l}
    score = one_hot @ cp.sum(omegatilde, axis=1) + b
    penalty = cp.sum_squares(omegabar) / 2
    if omega_numeric is not None:
        score = score + data.numeric @ omega_numeric
        penalty = penalty + cp.sum_squares(omega_numeric) / 2
    constraints = [
        cp.multiply(data.y.astype(float), score) >= 1 - xi,  # (17)
        cp.sum(z, axis=1) == 1,  # (18)
        omegatilde <= per_category + cp.multiply(big, 1 - z),  # (19)
        omegatilde >= per_category - cp.multiply(big, 1 - z),  # (20)
        omegatilde <= cp.multiply(big, z),  # (21)
        omegatilde >= -cp.multiply(big, z),  # (22)
        xi >= 0,  # (23)
        z >= 0, z <= 1,  # (24) relaxed
        z[offsets, 0] == 1,  # symmetry breaking
        cp.abs(omegabar) <= bounds[:, None],
    ]
    problem = cp.Problem(cp.Minimize(penalty + c_param / n * cp.sum(xi)), constraints)  # (16)
    return BigMRelaxation(problem, omegabar, omegatilde, z, omega_numeric, b, xi, c_param, tuple(sizes))


def extract_relaxation(model: BigMRelaxation) -> CLSolution:
    z_all = np.clip(np.asarray(model.z.value, dtype=float), 0.0, 1.0)
    bounds = np.cumsum((0,) + model.n_categories)
    z = tuple(z_all[bounds[j]:bounds[j + 1]] for j in range(len(model.n_categories)))
    scores = tuple(np.asarray(model.omegabar.value, dtype=float))
    numeric = np.zeros(0) if model.omega_numeric is None else np.asarray(model.omega_numeric.value, dtype=float)
    return CLSolution(scores, numeric, float(model.b.value), z, float(model.problem.value))
