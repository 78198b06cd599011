"""A convex lower bound on CL's objective, used to tighten CL-bigM's big-M per feature (cvxpy, class QP).

At any feasible point of CL, category k of feature j scores omega_{j,k} = omegabar_{j,l} for its
cluster l, so the feature's penalty sum_l omegabar_{j,l}^2 / 2 is at least max_k omega_{j,k}^2 / 2.
Replacing the clustered scores by free per-category scores with that penalty therefore gives a
convex problem whose optimum is a lower bound on (7):

    min   sum_j mu_j max_k omega_{j,k}^2 / 2 + sum_{j'} omega'_{j'}^2 / 2 + (C / W) sum_i w_i xi_i   (LB)
    s.t.  y_i (sum_j omega_{j,k_j(i)} + omega'^T x'_i + b) >= 1 - xi_i,   xi_i >= 0

with mu_j = 1 for every feature and the hinge term of (7) itself, sample weights w_i >= 0 and their
total W included (w_i = 1, W = n without weights): the argument never looks at the hinge term, so
the bound holds for the weighted (7) as for the paper's. With mu_j = 0 for one feature j (its scores
free) the optimum LB_{-j} bounds from below everything in (7) except feature j's penalty, so at any
optimum of CL whose value is at most a feasible value UB,

    sum_l omegabar_{j,l}^2 / 2 <= UB - LB_{-j},   hence   |omegabar_{j,l}| <= M_j = sqrt(2 (UB - LB_{-j})).

mu is a ``cvxpy.Parameter``, so the J + 1 solves share one canonicalisation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from optrules.models.cl import ClusterData
from optrules.models.svm import weighted_sum
from optrules.solvers import ProblemClass

if TYPE_CHECKING:
    import cvxpy as cp

__all__ = ["LowerBoundModel", "build", "problem_class"]


def problem_class() -> ProblemClass:
    return ProblemClass.QP


@dataclass
class LowerBoundModel:
    problem: cp.Problem
    mu: cp.Parameter  #: one weight per clustered feature, 1 (penalised) or 0 (free)


def build(data: ClusterData, C: float) -> LowerBoundModel:
    """(LB) with every feature penalised (mu = 1); set ``model.mu.value`` to free features."""
    import cvxpy as cp

    n = data.n
    weights, total = data.hinge_weights()
    J = len(data.n_categories)
    omega = [cp.Variable(k, name=f"omega_{j}") for j, k in enumerate(data.n_categories)]
    mu = cp.Parameter(J, nonneg=True, value=np.ones(J), name="mu")
    b = cp.Variable(name="b")
    xi = cp.Variable(n, name="xi")
    score = b
    penalty = 0
    for j, (code, w) in enumerate(zip(data.codes, omega)):
        score = score + w[code]
        penalty = penalty + mu[j] * cp.max(cp.square(w)) / 2
    if data.numeric.shape[1]:
        v = cp.Variable(data.numeric.shape[1], name="omega_numeric")
        score = score + data.numeric @ v
        penalty = penalty + cp.sum_squares(v) / 2
    constraints = [cp.multiply(data.y.astype(float), score) >= 1 - xi, xi >= 0]
    return LowerBoundModel(cp.Problem(cp.Minimize(penalty + C / total * weighted_sum(xi, weights)), constraints), mu)
