"""CL-bigM of the CLSVM paper (Carrizosa, Nogales-Gomez and Romero Morales, (16)-(28)) and its relaxation.

CL's bilinear term omegabar_{j,l} z_{j,k,l} becomes a variable omegatilde_{j,k,l} tied to it by big-M
constraints; M_j is a bound on |omegabar_{j,l}| valid at every optimum (``optrules.exact.clsvm``
derives it from a feasible point, see docs/methods/clsvm.md):

    min   sum_{j,l} omegabar_{j,l}^2 / 2 + sum_{j'} omega'_{j'}^2 / 2 + (C / W) sum_i w_i xi_i     (16)
    s.t.  y_i (sum_{j,l} omegatilde_{j,k_j(i),l} + omega'^T x'_i + b) >= 1 - xi_i   for all i   (17)
          sum_l z_{j,k,l} = 1                                              for all j, k   (18)
          omegatilde_{j,k,l} <= omegabar_{j,l} + M_j (1 - z_{j,k,l})                         (19)
          omegatilde_{j,k,l} >= omegabar_{j,l} - M_j (1 - z_{j,k,l})                         (20)
          omegatilde_{j,k,l} <= M_j z_{j,k,l}                                                (21)
          omegatilde_{j,k,l} >= -M_j z_{j,k,l}                                               (22)
          xi_i >= 0;  z in {0, 1};  omegabar, omega', omegatilde, b free                (23)-(28)
          z_{j,0,0} = 1 (symmetry breaking);  |omegabar_{j,l}|, |omegatilde_{j,k,l}| <= M_j (valid at every optimum)

with the sample weights w_i and their total W of (7) (``optrules.models.cl``; w_i = 1, W = n without
weights: the paper's (C / n) sum_i xi_i). M_j bounds |omegabar_{j,l}| through the objective value
(sum_l omegabar_{j,l}^2 / 2 <= (16) <= UB), which the weights do not change: the hinge term is >= 0
for any w_i >= 0. A convex MIQP (problem class MIQP, solved by SCIP or Gurobi); with z in [0, 1] (``relax=True``) a
convex QP (Clarabel, OSQP, HiGHS, SCIP). Both modelling layers build it from the same matrices, one
block per equation: (17) one row per sample (``optrules.models.cl.margin_rows``), (18) one row per
category, (19)-(22) one row per category and cluster. ``modeller="pyomo"``: Pyomo
``MatrixConstraint`` blocks; ``modeller="cvxpy"``: sparse ``A @ x`` constraints.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp

from optrules.models.cl import (ClusterData, ClusterModel, CLSolution, Layout, assignment_rows, margin_rows,
                                pyomo_cluster_model, pyomo_cluster_values, pyomo_point, start_point)
from optrules.models.matrix import matrix_constraint
from optrules.models.svm import weighted_sum
from optrules.solvers import ProblemClass

__all__ = ["MODELLERS", "DEFAULT_MODELLER", "BigMModel", "build", "extract", "linking_rows", "problem_class"]

MODELLERS = ("pyomo", "cvxpy")
#: Pyomo: the MIQP needs SCIP, which takes a MIP start only through optrules' Pyomo loader (cvxpy's
#: SCIP interface has none); the relaxation's solvers are all cvxpy's (strategies choose per model).
DEFAULT_MODELLER = "pyomo"


def problem_class(relax: bool = False) -> ProblemClass:
    return ProblemClass.QP if relax else ProblemClass.MIQP


def _bounds(data: ClusterData, M: float | Sequence[float]) -> np.ndarray:
    bounds = np.broadcast_to(np.asarray(M, dtype=float), (len(data.n_categories),)).copy()
    if (bounds <= 0).any() or not np.isfinite(bounds).all():
        raise ValueError(f"big-M values must be positive and finite, got {bounds.tolist()}")
    return bounds


def linking_rows(layout: Layout, L: int, M: np.ndarray) -> dict[str, tuple[sp.csr_matrix, float, float]]:
    """(19)-(22) as matrices over the columns (omegatilde (K*L), omegabar (J*L), z (K*L)) with their
    bounds: one row per category k and cluster l, M the bound of k's feature."""
    K, J = layout.K, layout.J
    rows = np.arange(K * L)
    k, l = np.divmod(rows, L)
    big = M[layout.feature_of[k]]
    tilde = sp.csr_matrix((np.ones(K * L), (rows, rows)), shape=(K * L, K * L))
    bar = sp.csr_matrix((np.ones(K * L), (rows, layout.feature_of[k] * L + l)), shape=(K * L, J * L))
    z = sp.csr_matrix((big, (rows, rows)), shape=(K * L, K * L))
    zero = sp.csr_matrix((K * L, J * L))
    return {
        "eq19": (sp.hstack([tilde, -bar, z], format="csr"), -np.inf, big),  # ot - ob + M z <= M
        "eq20": (sp.hstack([tilde, -bar, -z], format="csr"), -big, np.inf),  # ot - ob - M z >= -M
        "eq21": (sp.hstack([tilde, zero, -z], format="csr"), -np.inf, 0.0),  # ot - M z <= 0
        "eq22": (sp.hstack([tilde, zero, z], format="csr"), 0.0, np.inf),  # ot + M z >= 0
    }


class BigMModel(ClusterModel):
    """CL-bigM (or its relaxation) of one instance; ``M`` per clustered feature."""

    modeller = ""

    def __init__(self, data: ClusterData, C: float, M: np.ndarray, relax: bool) -> None:
        super().__init__(data, C, relax)
        self.M = M

    @property
    def problem_class(self) -> ProblemClass:
        return problem_class(self.relax)


class PyomoBigM(BigMModel):
    modeller = "pyomo"

    def __init__(self, data: ClusterData, C: float, M: np.ndarray, relax: bool) -> None:
        super().__init__(data, C, M, relax)
        from pyomo.common.gc_manager import PauseGC

        with PauseGC():
            self._model = self._build(data, C, M, relax)

    def _build(self, data: ClusterData, C: float, M: np.ndarray, relax: bool) -> Any:
        import pyomo.environ as pyo

        layout, L = self.layout, data.clusters
        m = pyomo_cluster_model(data, layout, C, relax, "CL_bigM_relaxation" if relax else "CL_bigM", M)
        m.omegatilde = pyo.Var(range(layout.K), range(L),  # (27), within +-M_j
                               bounds=lambda m, k, l: (-M[layout.feature_of[k]], M[layout.feature_of[k]]))
        m.eq17 = matrix_constraint(margin_rows(data, layout, L), [*m.omegatilde.values(), *m.omega_numeric.values(),
                                                                  m.b, *m.xi.values()], lower=1.0)
        columns = [*m.omegatilde.values(), *m.omegabar.values(), *m.z.values()]
        for name, (A, lower, upper) in linking_rows(layout, L, M).items():  # (19)-(22)
            m.add_component(name, matrix_constraint(A, columns, lower=lower, upper=upper))
        return m

    @property
    def model(self) -> Any:
        return self._model

    def set_start(self, assignment: Sequence[np.ndarray], cluster_scores: Sequence[np.ndarray],
                  omega_numeric: np.ndarray, b: float) -> None:
        point = start_point(self.data, self.layout, assignment, cluster_scores, omega_numeric, b)
        pyomo_point(self._model, point, ("omegabar", "z", "omegatilde", "omega_numeric", "b", "xi"))

    def values(self) -> dict[str, np.ndarray]:
        return pyomo_cluster_values(self._model, self.data, self.layout)


class CvxpyBigM(BigMModel):
    """Vector variables (omegabar and z, omegatilde flattened k-major), one sparse block per equation."""

    modeller = "cvxpy"

    def __init__(self, data: ClusterData, C: float, M: np.ndarray, relax: bool) -> None:
        super().__init__(data, C, M, relax)
        import cvxpy as cp

        layout, L, n, P = self.layout, data.clusters, data.n, data.numeric.shape[1]
        J, K = layout.J, layout.K
        w, total = data.hinge_weights()
        bound_bar = np.repeat(M, L)
        self.omegabar = cp.Variable(J * L, name="omegabar", bounds=[-bound_bar, bound_bar])
        self.omega_numeric = cp.Variable(P, name="omega_numeric") if P else None
        self.b = cp.Variable(1, name="b")
        self.xi = cp.Variable(n, name="xi", nonneg=True)  # (23)
        self.z = (cp.Variable(K * L, name="z", bounds=[0, 1]) if relax
                  else cp.Variable(K * L, name="z", boolean=True))  # (24)
        bound_tilde = np.repeat(M[layout.feature_of], L)
        self.omegatilde = cp.Variable(K * L, name="omegatilde", bounds=[-bound_tilde, bound_tilde])
        self.C_parameter = cp.Parameter(nonneg=True, value=float(C), name="C")
        numeric = [self.omega_numeric] if P else []
        constraints = [margin_rows(data, layout, L) @ cp.hstack([self.omegatilde, *numeric, self.b, self.xi]) >= 1,  # (17)
                       assignment_rows(layout, L) @ self.z == 1,  # (18)
                       self.z[layout.offsets * L] == 1]  # symmetry breaking
        columns = cp.hstack([self.omegatilde, self.omegabar, self.z])
        for A, lower, upper in linking_rows(layout, L, M).values():  # (19)-(22)
            constraints += _bounded(A @ columns, lower, upper)
        penalty = cp.sum_squares(self.omegabar) / 2 + (cp.sum_squares(self.omega_numeric) / 2 if P else 0)
        hinge = self.C_parameter / total * weighted_sum(self.xi, w)
        self.problem = cp.Problem(cp.Minimize(penalty + hinge), constraints)  # (16)

    @property
    def model(self) -> Any:
        return self.problem

    def set_start(self, assignment: Sequence[np.ndarray], cluster_scores: Sequence[np.ndarray],
                  omega_numeric: np.ndarray, b: float) -> None:
        point = start_point(self.data, self.layout, assignment, cluster_scores, omega_numeric, b)
        self.omegabar.value = point["omegabar"].ravel()
        self.z.value = point["z"].ravel()
        self.omegatilde.value = point["omegatilde"].ravel()
        if self.omega_numeric is not None:
            self.omega_numeric.value = point["omega_numeric"]
        self.b.value = point["b"]
        self.xi.value = point["xi"]

    def values(self) -> dict[str, np.ndarray]:
        layout, L = self.layout, self.data.clusters

        def value(var: Any, shape: tuple[int, ...]) -> np.ndarray:
            if var is None or var.value is None:
                return np.zeros(shape)
            return np.asarray(var.value, dtype=float).reshape(shape)

        return {"omegabar": value(self.omegabar, (layout.J, L)),
                "omega_numeric": value(self.omega_numeric, (self.data.numeric.shape[1],)),
                "b": value(self.b, (1,)), "xi": value(self.xi, (self.data.n,)),
                "z": value(self.z, (layout.K, L))}


def _bounded(expression: Any, lower: Any, upper: Any) -> list[Any]:
    """cvxpy constraints lower <= expression <= upper, for the finite sides only."""
    out = []
    if np.isfinite(lower).any():
        out.append(expression >= lower)
    if np.isfinite(upper).any():
        out.append(expression <= upper)
    return out


_MODELS: dict[str, type[BigMModel]] = {"pyomo": PyomoBigM, "cvxpy": CvxpyBigM}


def build(data: ClusterData, C: float, M: float | Sequence[float], relax: bool = False,
          modeller: str = DEFAULT_MODELLER) -> BigMModel:
    """CL-bigM (16)-(28), or with ``relax=True`` its convex QP relaxation, in the chosen layer;
    ``M`` is one bound or one per clustered feature."""
    if modeller not in _MODELS:
        raise ValueError(f"modeller must be one of {list(MODELLERS)}, got {modeller!r}")
    if not data.n_categories:
        raise ValueError("CL-bigM needs at least one clustered feature")
    return _MODELS[modeller](data, C, _bounds(data, M), relax)


def extract(model: BigMModel) -> CLSolution:
    return model.solution()
