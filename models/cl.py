"""CL, the Cluster formulation of the CLSVM paper (Carrizosa, Nogales-Gomez and Romero Morales, (7)-(14)).

    min   sum_{j,l} omegabar_{j,l}^2 / 2 + sum_{j'} omega'_{j'}^2 / 2 + (C / W) sum_i w_i xi_i        (7)
    s.t.  y_i (sum_{j,l} omegabar_{j,l} z_{j,k_j(i),l} + omega'^T x'_i + b) >= 1 - xi_i   for all i   (8)
          sum_l z_{j,k,l} = 1                                                   for all j, k   (9)
          xi_i >= 0                                                                           (10)
          z in {0, 1}                                                                         (11)
          omegabar, omega', b free                                                      (12)-(14)
          z_{j,0,0} = 1: the first category of each feature in its first cluster  (symmetry breaking)

k_j(i) is the category of sample i in clustered feature j (sum_k z_{j,k,l} x_{i,j,k} = z_{j,k_j(i),l}).
w_i >= 0 is the weight of sample i and W = sum_i w_i; without weights (w_i = 1, W = n) (7) is the
paper's (C / n) sum_i xi_i, and an integer weight w acts as w copies of the sample (as in the SVM (1),
``optrules.models.svm``). A sample of weight 0 adds nothing to (7): :meth:`ClusterData.support`
drops it.
(8) is bilinear, so CL is a nonconvex MINLP (problem class MINLP; SCIP solves it globally).
``relax=True`` gives its continuous relaxation, z in [0, 1]: a nonconvex QCQP (class NLP), solved
globally by SCIP or locally by Ipopt (``optrules.exact.cl_ipopt`` declares it for cyipopt).

Built as a Pyomo model without an expression per sample: each category's score is a variable

    s_{j,k} = sum_l omegabar_{j,l} z_{j,k,l}                                   for all j, k  (8a)
    y_i (sum_j s_{j,k_j(i)} + omega'^T x'_i + b) >= 1 - xi_i                  for all i     (8b)

which is (8) exactly: (8b) is one ``MatrixConstraint`` over (s, omega', b, xi) with a row per
sample, and the bilinear terms live in the sum_j K_j equations (8a), one per category, not per
sample. cvxpy cannot express a bilinear constraint, so CL has no cvxpy build.

The shared pieces of CL and CL-bigM (``optrules.models.cl_bigm``) are here: :class:`ClusterData`,
the layout of categories (:class:`Layout`), the margin rows (8b) / (17), the Pyomo variables and
objective (7) / (16), (9) / (18), and the solution type :class:`CLSolution`.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp

from optrules.models.matrix import matrix_constraint
from optrules.models.svm import sample_weights
from optrules.solvers import ProblemClass

__all__ = ["ClusterData", "CLSolution", "ClusterModel", "Layout", "PyomoCL", "build", "extract", "margin_rows",
           "problem_class", "start_point"]


def problem_class(relax: bool = False) -> ProblemClass:
    return ProblemClass.NLP if relax else ProblemClass.MINLP


@dataclass(frozen=True)
class ClusterData:
    """Inputs of CL and CL-bigM.

    ``codes[j]`` gives k_j(i) for every sample (all >= 0 on training data); ``n_categories[j]`` is
    K_j; ``numeric`` is the n x J' matrix x'; ``y`` in {-1, +1}; ``clusters`` is L (every feature);
    ``weights`` the sample weights w_i of the hinge losses in (7) / (16): finite, >= 0, with a
    positive sum (None: every w_i = 1).
    """

    codes: tuple[np.ndarray, ...]
    n_categories: tuple[int, ...]
    numeric: np.ndarray
    y: np.ndarray
    clusters: int = 2
    weights: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.clusters < 1:
            raise ValueError(f"clusters must be >= 1, got {self.clusters}")
        sample_weights(self.weights, self.n)
        for j, (code, size) in enumerate(zip(self.codes, self.n_categories)):
            if code.size and (code.min() < 0 or code.max() >= size):
                raise ValueError(f"codes of clustered feature {j} must lie in 0..{size - 1}")

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def weighted(self) -> bool:
        """Whether some sample weight differs from 1."""
        return self.weights is not None and bool((np.asarray(self.weights) != 1.0).any())

    def hinge_weights(self) -> tuple[np.ndarray, float]:
        """(w, W): every sample's weight in (7) / (16) and their total (ones and n without weights)."""
        return sample_weights(self.weights, self.n)

    def support(self) -> ClusterData:
        """The instance on the samples of positive weight (``self`` when there is no weight 0).

        A sample of weight 0 costs nothing in (7) / (16), and xi_i = max(0, 1 - y_i f(x_i)) satisfies
        its constraint (8) / (17) at every point, so dropping it leaves W and, minimised over xi, the
        objective as a function of (omegabar, omega', b, z) unchanged: the same optima and bounds,
        without a cost-free xi_i in the models. The categories stay, a category met only by such
        samples included (no sample then uses its score).
        """
        if self.weights is None or (np.asarray(self.weights) > 0).all():
            return self
        keep = np.asarray(self.weights) > 0
        return ClusterData(tuple(np.asarray(code)[keep] for code in self.codes), self.n_categories,
                           self.numeric[keep], self.y[keep], self.clusters,
                           np.asarray(self.weights, dtype=float)[keep])

    def digest(self, C: float) -> str:
        """A short fingerprint of the instance of (7)-(14) with this C: fits with the same digest
        have the same CL objective, so a heuristic's value can be held against an exact bound.

        It is that of :meth:`support` (samples of weight 0 change nothing) and includes the
        weights when some differs from 1: weights of ones give the unweighted instance's digest."""
        data = self.support()
        h = hashlib.sha1()
        for code in data.codes:
            h.update(np.ascontiguousarray(code, dtype=np.int64).tobytes())
        h.update(np.asarray(data.n_categories, dtype=np.int64).tobytes())
        h.update(np.ascontiguousarray(data.numeric, dtype=np.float64).tobytes())
        h.update(np.ascontiguousarray(data.y, dtype=np.float64).tobytes())
        if data.weighted:
            h.update(np.ascontiguousarray(data.weights, dtype=np.float64).tobytes())
        h.update(np.array([data.clusters, C], dtype=np.float64).tobytes())
        return h.hexdigest()[:16]


@dataclass(frozen=True)
class Layout:
    """The categories of all clustered features stacked: global category k = offsets[j] + local k."""

    offsets: np.ndarray  #: (J,) first global category of feature j
    feature_of: np.ndarray  #: (K,) the feature of global category k
    rows: np.ndarray  #: (n, J) the global category of sample i in feature j

    @classmethod
    def of(cls, data: ClusterData) -> Layout:
        sizes = np.asarray(data.n_categories, dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        rows = np.column_stack([offsets[j] + np.asarray(code, dtype=np.int64) for j, code in enumerate(data.codes)]) \
            if len(sizes) else np.zeros((data.n, 0), dtype=np.int64)
        return cls(offsets, np.repeat(np.arange(len(sizes)), sizes), rows)

    @property
    def K(self) -> int:
        return int(self.feature_of.size)

    @property
    def J(self) -> int:
        return int(self.offsets.size)

    def split(self, values: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per-feature slices of an array over the global categories."""
        ends = np.append(self.offsets, self.K)
        return tuple(values[ends[j]:ends[j + 1]] for j in range(self.J))


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


def margin_rows(data: ClusterData, layout: Layout, width: int) -> sp.csr_matrix:
    """The margin constraints (8b) / (17), one row per sample, as a matrix over the columns
    (category scores, omega', b, xi): sample i has y_i at its categories' ``width`` score columns
    (column ``k * width + l``; width 1: s_k of CL, width L: omegatilde_{k,l} of CL-bigM), y_i x'_i at
    omega', y_i at b and 1 at xi_i; every row's lower bound is 1."""
    n = data.n
    y = np.asarray(data.y, dtype=float)
    J = layout.J
    score_cols = (layout.rows[:, :, None] * width + np.arange(width)[None, None, :]).reshape(n, J * width)
    score = sp.csr_matrix((np.repeat(y, J * width), score_cols.ravel(), np.arange(n + 1) * J * width),
                          shape=(n, layout.K * width))
    numeric = sp.csr_matrix(y[:, None] * data.numeric)
    return sp.hstack([score, numeric, sp.csr_matrix(y[:, None]), sp.identity(n, format="csr")], format="csr")


def assignment_rows(layout: Layout, L: int) -> sp.csr_matrix:
    """(9) / (18): sum_l z_{k,l} = 1 for every category k, over the z columns (k * L + l)."""
    K = layout.K
    return sp.csr_matrix((np.ones(K * L), np.arange(K * L), np.arange(K + 1) * L), shape=(K, K * L))


def start_point(data: ClusterData, layout: Layout, assignment: Sequence[np.ndarray],
                cluster_scores: Sequence[np.ndarray], omega_numeric: np.ndarray, b: float) -> dict[str, np.ndarray]:
    """Every variable's value at the point of a clustering and its scores (a warm start): omegabar
    (J x L), z (K x L), s (K: each category's score), omegatilde (K x L = z * omegabar), xi
    (max(0, 1 - y_i f(x_i)), so the point is feasible). ``assignment[j][0]`` must be 0."""
    L = data.clusters
    if any(len(a) and a[0] != 0 for a in assignment):
        raise ValueError("the start must put the first category of each feature in cluster 0")
    omegabar = np.array([np.asarray(s, dtype=float) for s in cluster_scores]).reshape(layout.J, L)
    labels = np.concatenate([np.asarray(a, dtype=np.int64) for a in assignment]) if layout.J else np.zeros(0, int)
    z = np.eye(L)[labels] if layout.K else np.zeros((0, L))
    s = omegabar[layout.feature_of, labels] if layout.K else np.zeros(0)
    score = float(b) + data.numeric @ np.asarray(omega_numeric, dtype=float) + s[layout.rows].sum(axis=1)
    xi = np.maximum(0.0, 1.0 - data.y * score)
    return {"omegabar": omegabar, "z": z, "s": s, "omegatilde": z * omegabar[layout.feature_of],
            "omega_numeric": np.asarray(omega_numeric, dtype=float), "b": np.array([float(b)]), "xi": xi}


def objective_value(data: ClusterData, C: float, omegabar: np.ndarray, omega_numeric: np.ndarray,
                    xi: np.ndarray) -> float:
    """(7) / (16) at a point."""
    w, total = data.hinge_weights()
    return float((omegabar ** 2).sum() / 2 + (omega_numeric ** 2).sum() / 2 + C / total * (w * xi).sum())


class ClusterModel(ABC):
    """CL or CL-bigM of one instance in one modelling layer; ``model`` is what ``solve`` takes."""

    def __init__(self, data: ClusterData, C: float, relax: bool) -> None:
        self.data, self.C, self.relax = data, float(C), relax
        self.layout = Layout.of(data)

    @property
    @abstractmethod
    def model(self) -> Any:
        """The Pyomo model or cvxpy Problem to solve."""

    @property
    @abstractmethod
    def problem_class(self) -> ProblemClass:
        """The class the model declares."""

    @abstractmethod
    def set_start(self, assignment: Sequence[np.ndarray], cluster_scores: Sequence[np.ndarray],
                  omega_numeric: np.ndarray, b: float) -> None:
        """Set every variable to the point of a clustering and its scores (:func:`start_point`)."""

    @abstractmethod
    def values(self) -> dict[str, np.ndarray]:
        """The current values of omegabar (J x L), omega_numeric, b (1,), xi and z (K x L)."""

    def solution(self) -> CLSolution:
        v = self.values()
        omegabar = v["omegabar"]
        z = np.clip(v["z"], 0.0, 1.0)
        objective = objective_value(self.data, self.C, omegabar, v["omega_numeric"], v["xi"])
        return CLSolution(tuple(omegabar.copy()), v["omega_numeric"].copy(), float(v["b"][0]),
                          self.layout.split(z), objective)


def pyomo_point(m: Any, point: dict[str, np.ndarray], names: Sequence[str]) -> None:
    """Set the Pyomo variables ``names`` of ``m`` to a :func:`start_point`."""
    for name in names:
        pyomo_assign(getattr(m, name), point[name])


def pyomo_cluster_values(m: Any, data: ClusterData, layout: Layout) -> dict[str, np.ndarray]:
    """:meth:`ClusterModel.values` of a Pyomo CL or CL-bigM model."""
    L = data.clusters
    return {"omegabar": pyomo_values(m.omegabar, (layout.J, L)),
            "omega_numeric": pyomo_values(m.omega_numeric, (data.numeric.shape[1],)),
            "b": np.array([0.0 if m.b.value is None else m.b.value]),
            "xi": pyomo_values(m.xi, (data.n,)), "z": pyomo_values(m.z, (layout.K, L))}


def pyomo_values(variables: Any, shape: tuple[int, ...]) -> np.ndarray:
    """An indexed Pyomo Var's values in index order (0 where unset), reshaped."""
    return np.array([0.0 if v.value is None else v.value for v in variables.values()], dtype=float).reshape(shape)


def pyomo_assign(variables: Any, values: np.ndarray) -> None:
    for var, value in zip(variables.values(), np.asarray(values, dtype=float).ravel().tolist()):
        if not var.fixed:
            var.set_value(value, skip_validation=True)


def pyomo_cluster_model(data: ClusterData, layout: Layout, C: float, relax: bool, name: str,
                        omegabar_bound: np.ndarray | None = None) -> Any:
    """The Pyomo model with what CL and CL-bigM share: variables omegabar (j, l) (within
    +-``omegabar_bound[j]`` when given), omega_numeric, b, xi >= 0 (10), z (k, l) binary (11) or in
    [0, 1], the objective (7) / (16) with C a mutable parameter, (9) / (18), and the symmetry
    breaking z_{offsets[j], 0} = 1 as fixed variables. The hinge term of the objective is
    (C / W) sum_i w_i xi_i (``ClusterData.hinge_weights``)."""
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression

    J, K, L, P, n = layout.J, layout.K, data.clusters, data.numeric.shape[1], data.n
    w, total = data.hinge_weights()
    m = pyo.ConcreteModel(name=name)  # the callers build inside PauseGC (a variable per sample)
    if omegabar_bound is None:
        m.omegabar = pyo.Var(range(J), range(L))  # (12)
    else:
        m.omegabar = pyo.Var(range(J), range(L), bounds=lambda m, j, l: (-omegabar_bound[j], omegabar_bound[j]))
    m.omega_numeric = pyo.Var(range(P))  # (13)
    m.b = pyo.Var()  # (14)
    m.xi = pyo.Var(range(n), domain=pyo.NonNegativeReals)  # (10)
    m.z = pyo.Var(range(K), range(L), domain=pyo.UnitInterval if relax else pyo.Binary)  # (11)
    m.C = pyo.Param(initialize=float(C), mutable=True)
    m.obj = pyo.Objective(  # (7) / (16)
        expr=sum(v ** 2 for v in m.omegabar.values()) / 2 + sum(v ** 2 for v in m.omega_numeric.values()) / 2
        + m.C / total * LinearExpression(constant=0.0, linear_coefs=w.tolist(), linear_vars=list(m.xi.values())),
        sense=pyo.minimize)
    m.eq9 = matrix_constraint(assignment_rows(layout, L), list(m.z.values()), lower=1.0, upper=1.0)
    for k in layout.offsets.tolist():  # symmetry breaking: first category of each feature in the first cluster
        m.z[k, 0].fix(1)
    return m


class PyomoCL(ClusterModel):
    """CL as a Pyomo model: the shared variables, the category scores s with (8a), and (8b)."""

    def __init__(self, data: ClusterData, C: float, relax: bool) -> None:
        super().__init__(data, C, relax)
        from pyomo.common.gc_manager import PauseGC

        with PauseGC():
            self._model = self._build(data, C, relax)

    def _build(self, data: ClusterData, C: float, relax: bool) -> Any:
        import pyomo.environ as pyo

        layout, L = self.layout, data.clusters
        m = pyomo_cluster_model(data, layout, C, relax, "CL_relaxation" if relax else "CL")
        m.s = pyo.Var(range(layout.K))
        m.eq8a = pyo.Constraint(range(layout.K), rule=lambda m, k: m.s[k] == sum(
            m.omegabar[int(layout.feature_of[k]), l] * m.z[k, l] for l in range(L)))
        m.eq8b = matrix_constraint(margin_rows(data, layout, 1),
                                   [*m.s.values(), *m.omega_numeric.values(), m.b, *m.xi.values()], lower=1.0)
        return m

    @property
    def model(self) -> Any:
        return self._model

    @property
    def problem_class(self) -> ProblemClass:
        return problem_class(self.relax)

    def set_start(self, assignment: Sequence[np.ndarray], cluster_scores: Sequence[np.ndarray],
                  omega_numeric: np.ndarray, b: float) -> None:
        point = start_point(self.data, self.layout, assignment, cluster_scores, omega_numeric, b)
        pyomo_point(self._model, point, ("omegabar", "z", "s", "omega_numeric", "b", "xi"))

    def values(self) -> dict[str, np.ndarray]:
        return pyomo_cluster_values(self._model, self.data, self.layout)


def build(data: ClusterData, C: float, relax: bool = False, modeller: str = "pyomo") -> PyomoCL:
    """CL (7)-(14) in Pyomo; ``relax=True``: z in [0, 1] (the QCQP relaxation)."""
    if modeller != "pyomo":
        raise ValueError(f"CL has a bilinear constraint (8) that cvxpy cannot express; build it with "
                         f"modeller='pyomo' (and solve it with scip), got modeller={modeller!r}")
    if not data.n_categories:
        raise ValueError("CL needs at least one clustered feature")
    return PyomoCL(data, C, relax)


def extract(model: ClusterModel) -> CLSolution:
    """The solution held in ``model`` (CL or CL-bigM; after a solve, the solver's)."""
    return model.solution()
