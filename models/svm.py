"""The linear SVM of the CLSVM paper (Carrizosa, Nogales-Gomez and Romero Morales, (1)-(6)), in cvxpy.

    min   sum_{j,k} omega_{j,k}^2 / 2 + sum_{j'} omega'_{j'}^2 / 2 + (C / W) sum_i w_i xi_i    (1)
    s.t.  y_i (sum_{j,k} omega_{j,k} x_{i,j,k} + omega'^T x'_i + b) >= 1 - xi_i     for all i (2)
          xi_i >= 0                                                               for all i (3)
          omega, omega', b free                                                       (4)-(6)

``dummies`` holds the 0/1 columns x_{i,j,k}: one per category for SVM_O, or one per cluster for
"the SVM on the clustered dataset" (Figure 1, x-bar_{i,j,l} = sum_k z_{j,k,l} x_{i,j,k}), which is
CL (7)-(14) with z fixed. ``numeric`` holds x'_i. ``weights`` are the sample weights w_i >= 0
and W = sum_i w_i their total: without weights (w_i = 1, W = n) (1) is the paper's
(C / n) sum_i xi_i; a sample of integer weight w counts as w copies of it (the copies' constraints
(2) coincide, so their xi are equal at every optimum and the loss of the copies is w xi_i out of a
total W). A sample of weight 0 keeps its constraint (2), which xi_i >= 0, free of cost, always
satisfies: it changes nothing. A convex QP (problem class QP): cvxpy, solved by
Clarabel, OSQP, HiGHS or SCIP through ``optrules.solvers``. C is a ``cvxpy.Parameter``, so a C sweep
re-solves without rebuilding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from optrules.solvers import ProblemClass
from optrules.weights import validate_sample_weight

if TYPE_CHECKING:
    import cvxpy as cp

__all__ = ["SVMModel", "SVMSolution", "build", "extract", "objective_value", "problem_class", "sample_weights",
           "weighted_sum"]


def problem_class() -> ProblemClass:
    return ProblemClass.QP


def sample_weights(weights: np.ndarray | None, n: int) -> tuple[np.ndarray, float]:
    """The weights w_i of the hinge losses in (1) and their total W, checked: ones and n when None;
    otherwise n finite values >= 0 with a positive total."""
    w = validate_sample_weight(weights, n, "weights")
    return w, float(w.sum())


def weighted_sum(xi: cp.Expression, weights: np.ndarray) -> cp.Expression:
    """sum_i w_i xi_i in cvxpy; with every weight 1 the plain ``cp.sum(xi)``, so that the unweighted
    models keep their canonical form bit for bit (``weights @ xi`` canonicalises differently)."""
    import cvxpy as cp

    return cp.sum(xi) if (weights == 1.0).all() else weights @ xi


@dataclass
class SVMModel:
    """The cvxpy problem and its variables (omega, omega', b, xi) and the parameter C."""

    problem: cp.Problem
    omega: cp.Variable | None
    omega_numeric: cp.Variable | None
    b: cp.Variable
    xi: cp.Variable
    C: cp.Parameter


@dataclass(frozen=True)
class SVMSolution:
    omega: np.ndarray
    omega_numeric: np.ndarray
    b: float
    objective: float


def build(dummies: np.ndarray, numeric: np.ndarray, y: np.ndarray, C: float,
          weights: np.ndarray | None = None) -> SVMModel:
    """SVM (1)-(6) on 0/1 ``dummies`` (n x D) and ``numeric`` (n x J') with labels ``y`` in {-1, +1}
    and sample ``weights`` (None: ones)."""
    import cvxpy as cp

    n = len(y)
    y = np.asarray(y, dtype=float)
    w, total = sample_weights(weights, n)
    omega = cp.Variable(dummies.shape[1], name="omega") if dummies.shape[1] else None
    omega_numeric = cp.Variable(numeric.shape[1], name="omega_numeric") if numeric.shape[1] else None
    b = cp.Variable(name="b")
    xi = cp.Variable(n, name="xi")
    c_param = cp.Parameter(nonneg=True, value=float(C), name="C")
    score = b
    penalty = 0
    if omega is not None:
        score = score + dummies @ omega
        penalty = penalty + cp.sum_squares(omega) / 2
    if omega_numeric is not None:
        score = score + numeric @ omega_numeric
        penalty = penalty + cp.sum_squares(omega_numeric) / 2
    objective = cp.Minimize(penalty + c_param / total * weighted_sum(xi, w))  # (1)
    constraints = [
        cp.multiply(y, score) >= 1 - xi,  # (2)
        xi >= 0,  # (3)
    ]
    return SVMModel(cp.Problem(objective, constraints), omega, omega_numeric, b, xi, c_param)


def extract(model: SVMModel) -> SVMSolution:
    def values(var: cp.Variable | None) -> np.ndarray:
        return np.zeros(0) if var is None else np.asarray(var.value, dtype=float).ravel()

    return SVMSolution(values(model.omega), values(model.omega_numeric), float(model.b.value),
                       float(model.problem.value))


def objective_value(omega: np.ndarray, omega_numeric: np.ndarray, b: float, dummies: np.ndarray,
                    numeric: np.ndarray, y: np.ndarray, C: float, weights: np.ndarray | None = None) -> float:
    """(1) at the point (omega, omega', b) with the optimal xi_i = max(0, 1 - y_i f(x_i))."""
    w, total = sample_weights(weights, len(y))
    score = dummies @ omega + numeric @ omega_numeric + b
    hinge = np.maximum(0.0, 1.0 - np.asarray(y, dtype=float) * score)
    return float(omega @ omega / 2 + omega_numeric @ omega_numeric / 2 + C / total * (w * hinge).sum())
