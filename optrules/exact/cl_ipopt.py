"""The QCQP relaxation of CL ((7)-(14) with z in [0, 1]) declared for Ipopt through cyipopt directly.

Pyomo reaches Ipopt only through an ``ipopt`` executable or PyNumero's ASL library, neither of which
pip provides; the ``cyipopt`` module (e.g. from the ``cyipopt-wheels`` wheel, which bundles
libipopt) is enough here, because the relaxation is small and its derivatives are explicit.

Variables x = (omegabar (J x L), omega' (J'), b, xi (n), z (K x L), s (K)), K = sum_j K_j the
categories of all clustered features stacked. Objective (7),

    sum_{j,l} omegabar_{j,l}^2 / 2 + sum_{j'} omega'_{j'}^2 / 2 + (C / W) sum_i w_i xi_i,

with the sample weights w_i and their total W of ``ClusterData`` (w_i = 1, W = n without weights);
its gradient in xi_i is C w_i / W and the weights leave the Hessian alone (xi enters linearly).
The constraints are (8) in the form of ``optrules.models.cl``,

    g_i = y_i (sum_j s_{k_j(i)} + omega'^T x'_i + b) + xi_i >= 1          for every sample i   (8b)
    s_k - sum_l omegabar_{j(k),l} z_{k,l} = 0                            for every category k (8a)

and (9) as sum_l z_{k,l} = 1; bounds xi >= 0, 0 <= z <= 1 and z_{j,0,0} = 1. (8a)-(8b) is (8)
exactly; written this way a sample's row has J + J' + 2 entries instead of 2 J L + J' + 2, and the
bilinear terms sit in the K rows (8a): on adult (48,842 rows) Ipopt's first symbolic factorization
took 14.8 s with (8) as printed, against none worth measuring here (a 3 s wall-time limit stopped it
at 3.0 s; the full solve 32 s, measured), with the same local optimum on german and a 5,000-row
sample of adult (z within 4e-4). The Hessian of the Lagrangian is exact: the identity on omegabar
and omega' (times the objective factor) and, for each pair (omegabar_{j(k),l}, z_{k,l}), minus the
multiplier of row k of (8a).

Ipopt is a local solver: its answer is reported as ``Status.FEASIBLE`` / ``locally_optimal``
(no bound), never as optimal.
"""

from __future__ import annotations

import importlib.metadata
import time
from typing import Any

import numpy as np

from optrules.models.cl import ClusterData, CLSolution, Layout
from optrules.solvers import ProblemClass, SolveReport, Status
from optrules.solvers.options import UNIFIED

__all__ = ["ipopt_available", "solve_relaxation_ipopt"]

_INFINITY = 2e19  # Ipopt's "no bound"


def ipopt_available() -> bool:
    try:
        import cyipopt  # noqa: F401
    except ImportError:
        return False
    return True


def _version() -> str:
    for dist in ("cyipopt-wheels", "cyipopt"):
        try:
            return f"{dist} {importlib.metadata.version(dist)} (direct)"
        except importlib.metadata.PackageNotFoundError:
            continue
    return "cyipopt unknown (direct)"


class _Relaxation:
    """cyipopt callbacks of the QCQP relaxation of CL, with the category scores s."""

    def __init__(self, data: ClusterData, C: float) -> None:
        self.data = data
        self.L = L = data.clusters
        self.J = J = len(data.n_categories)
        self.P = P = data.numeric.shape[1]
        self.n = n = data.n
        self.C = float(C)
        self.weights, self.total_weight = data.hinge_weights()
        layout = Layout.of(data)
        self.K = K = layout.K
        self.offsets, self.feature_of, self.rows = layout.offsets, layout.feature_of, layout.rows
        # positions in x
        self.i_w, self.i_v, self.i_b = 0, J * L, J * L + P
        self.i_xi = self.i_b + 1
        self.i_z = self.i_xi + n
        self.i_s = self.i_z + K * L
        self.size = self.i_s + K
        self.n_constraints = n + 2 * K
        self.y = data.y.astype(float)
        self._structure()

    def _structure(self) -> None:
        n, L, P, K = self.n, self.L, self.P, self.K
        samples = np.arange(n)
        # (8b): per sample, s of its categories (J), omega' (P), b, xi_i
        cols8 = np.hstack([self.i_s + self.rows, np.broadcast_to(self.i_v + np.arange(P), (n, P)),
                           np.full((n, 1), self.i_b), (self.i_xi + samples)[:, None]])
        rows8 = np.repeat(samples[:, None], cols8.shape[1], axis=1)
        # (8a): per category, s_k, then omegabar_{j(k),l} and z_{k,l} for every cluster l
        self._k, self._l = k, l = np.repeat(np.arange(K), L), np.tile(np.arange(L), K)
        self._w_cols = self.i_w + self.feature_of[k] * L + l
        self._z_cols = self.i_z + k * L + l
        rows8a = n + np.concatenate([np.arange(K), k, k])
        cols8a = np.concatenate([self.i_s + np.arange(K), self._w_cols, self._z_cols])
        # (9): per category, its L z entries
        rows9 = n + K + k
        self.jac_rows = np.concatenate([rows8.ravel(), rows8a, rows9])
        self.jac_cols = np.concatenate([cols8.ravel(), cols8a, self._z_cols])
        # Hessian (lower triangle): diagonals of omegabar and omega', then (z_{k,l}, omegabar_{j(k),l})
        diag = np.arange(self.i_w, self.i_b)
        self.hess_rows = np.concatenate([diag, self._z_cols])
        self.hess_cols = np.concatenate([diag, self._w_cols])

    # -- cyipopt callbacks
    def objective(self, x: np.ndarray) -> float:
        w = x[self.i_w:self.i_b]
        return float(w @ w / 2 + self.C / self.total_weight * (self.weights * x[self.i_xi:self.i_z]).sum())  # (7)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        grad = np.zeros(self.size)
        grad[self.i_w:self.i_b] = x[self.i_w:self.i_b]
        grad[self.i_xi:self.i_z] = self.C / self.total_weight * self.weights
        return grad

    def _split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray, np.ndarray, np.ndarray]:
        w = x[self.i_w:self.i_v].reshape(self.J, self.L)
        v = x[self.i_v:self.i_b]
        z = x[self.i_z:self.i_s].reshape(self.K, self.L)
        return w, v, float(x[self.i_b]), x[self.i_xi:self.i_z], z, x[self.i_s:]

    def constraints(self, x: np.ndarray) -> np.ndarray:
        w, v, b, xi, z, s = self._split(x)
        g8 = self.y * (s[self.rows].sum(axis=1) + self.data.numeric @ v + b) + xi
        g8a = s - (w[self.feature_of] * z).sum(axis=1)
        return np.concatenate([g8, g8a, z.sum(axis=1)])

    def is_feasible(self, x: np.ndarray, tolerance: float = 1e-5) -> bool:
        """Whether x satisfies (8b), (8a) and (9) within ``tolerance`` (its bounds hold: Ipopt keeps them)."""
        g = self.constraints(x)
        n, K = self.n, self.K
        return bool(np.min(g[:n] - 1.0) > -tolerance and np.abs(g[n:n + K]).max(initial=0.0) <= tolerance
                    and np.abs(g[n + K:] - 1.0).max(initial=0.0) <= tolerance)

    def jacobianstructure(self) -> tuple[np.ndarray, np.ndarray]:
        return self.jac_rows, self.jac_cols

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        w, _, _, _, z, _ = self._split(x)
        y = self.y[:, None]
        block8 = np.hstack([np.broadcast_to(y, (self.n, self.J)), y * self.data.numeric, y, np.ones((self.n, 1))])
        block8a = np.concatenate([np.ones(self.K), -z[self._k, self._l], -w[self.feature_of[self._k], self._l]])
        return np.concatenate([block8.ravel(), block8a, np.ones(self.K * self.L)])

    def hessianstructure(self) -> tuple[np.ndarray, np.ndarray]:
        return self.hess_rows, self.hess_cols

    def hessian(self, x: np.ndarray, lagrange: np.ndarray, obj_factor: float) -> np.ndarray:
        multipliers = lagrange[self.n:self.n + self.K]  # of (8a)
        return np.concatenate([np.full(self.i_b - self.i_w, obj_factor), -multipliers[self._k]])

    def bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        lower = np.full(self.size, -_INFINITY)
        upper = np.full(self.size, _INFINITY)
        lower[self.i_xi:self.i_z] = 0.0
        lower[self.i_z:self.i_s] = 0.0
        upper[self.i_z:self.i_s] = 1.0
        lower[self.i_z + self.offsets * self.L] = 1.0  # symmetry breaking z_{j,0,0} = 1
        c_lower = np.concatenate([np.ones(self.n), np.zeros(self.K), np.ones(self.K)])
        c_upper = np.concatenate([np.full(self.n, _INFINITY), np.zeros(self.K), np.ones(self.K)])
        return lower, upper, c_lower, c_upper

    def point(self, start: CLSolution) -> np.ndarray:
        x = np.zeros(self.size)
        x[self.i_w:self.i_v] = np.concatenate([np.asarray(s, dtype=float) for s in start.cluster_scores])
        x[self.i_v:self.i_b] = start.omega_numeric
        x[self.i_b] = start.b
        x[self.i_z:self.i_s] = np.concatenate([np.asarray(z, dtype=float) for z in start.z]).ravel()
        w, v, b, _, z, _ = self._split(x)
        s = (w[self.feature_of] * z).sum(axis=1)
        x[self.i_s:] = s
        x[self.i_xi:self.i_z] = np.maximum(0.0, 1.0 - self.y * (s[self.rows].sum(axis=1) + self.data.numeric @ v + b))
        return x

    def solution(self, x: np.ndarray) -> CLSolution:
        w, v, b, _, z, _ = self._split(x)
        z = np.clip(z, 0.0, 1.0)
        ends = np.cumsum((0,) + tuple(self.data.n_categories))
        return CLSolution(tuple(w.copy()), v.copy(), b, tuple(z[ends[j]:ends[j + 1]] for j in range(self.J)),
                          self.objective(x))


#: Ipopt's ApplicationReturnStatus codes as termination words (-5, Maximum_WallTime_Exceeded, is what
#: ``max_wall_time`` gives; -4 is the CPU-time limit).
_IPOPT_WORDS = {0: "locally_optimal", 1: "inaccurate", 2: "infeasible", -1: "iteration_limit",
                -2: "restoration_failed", -3: "error_in_step_computation", -4: "cpu_time_limit",
                -5: "time_limit"}
#: Terminations that stop a run early: the iterate need not be feasible, but its z lies in [0, 1].
_LIMITS = ("iteration_limit", "cpu_time_limit", "time_limit")


def solve_relaxation_ipopt(data: ClusterData, C: float, start: CLSolution,
                           options: dict[str, Any] | None = None) -> tuple[CLSolution | None, SolveReport]:
    """Solve the QCQP relaxation locally with Ipopt from ``start``; the solution and its report.

    A run stopped by a limit (``time_limit`` is Ipopt's ``max_wall_time``) still returns its last
    iterate, whose z lies in [0, 1] and can be rounded; the report says FEASIBLE (with the objective)
    only when the iterate satisfies the margin constraints, NO_SOLUTION otherwise. Options other
    than the unified ones are Ipopt options (e.g. ``{"max_iter": 50}``), set after optrules' own.
    """
    import cyipopt

    opts = dict(options or {})
    verbose = bool(opts.get("verbose", False))
    started = time.perf_counter()
    relaxation = _Relaxation(data, C)
    lower, upper, c_lower, c_upper = relaxation.bounds()
    problem = cyipopt.Problem(n=relaxation.size, m=relaxation.n_constraints, problem_obj=relaxation,
                              lb=lower, ub=upper, cl=c_lower, cu=c_upper)
    problem.add_option("sb", "yes")
    problem.add_option("print_level", 5 if verbose else 0)
    problem.add_option("tol", 1e-7)
    problem.add_option("max_iter", 3000)
    if "time_limit" in opts:
        problem.add_option("max_wall_time", float(opts["time_limit"]))
    for name, value in opts.items():
        if name not in UNIFIED:
            problem.add_option(name, value)
    build_seconds = time.perf_counter() - started
    started = time.perf_counter()
    x, info = problem.solve(relaxation.point(start))
    seconds = time.perf_counter() - started
    code = int(info["status"])
    word = _IPOPT_WORDS.get(code, f"error: Ipopt status {code} ({info['status_msg']!r})")
    feasible = word in ("locally_optimal", "inaccurate", *_LIMITS) and relaxation.is_feasible(x)
    solution = relaxation.solution(x) if feasible or word in _LIMITS else None
    report = SolveReport(
        solver="ipopt", solver_version=_version(), problem_class=ProblemClass.NLP,
        status=Status.FEASIBLE if feasible else Status.ERROR if word.startswith("error") else Status.NO_SOLUTION,
        termination=word, objective=solution.objective if feasible else None, best_bound=None, gap=None,
        solve_seconds=seconds, build_seconds=build_seconds, options={"verbose": verbose, **opts},
        time_limit=float(opts["time_limit"]) if "time_limit" in opts else None,
        note="" if feasible else "Ipopt is a local solver: no bound",
    )
    return solution, report
