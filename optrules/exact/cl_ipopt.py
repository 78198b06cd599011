"""The QCQP relaxation of CL ((7)-(14) with z in [0, 1]) declared for Ipopt through cyipopt directly.

Pyomo reaches Ipopt only through an ``ipopt`` executable or PyNumero's ASL library, neither of which
pip provides; the ``cyipopt`` module (e.g. from the ``cyipopt-wheels`` wheel, which bundles
libipopt) is enough here, because the relaxation is small and its derivatives are explicit.

Variables x = (omegabar (J x L), omega' (J'), b, xi (n), z (sum_j K_j x L)). Objective (7); the
constraints are (8) as g_i = y_i (sum_{j,l} omegabar_{j,l} z_{j,k_j(i),l} + omega'^T x'_i + b) + xi_i >= 1
and (9) as sum_l z_{j,k,l} = 1; bounds xi >= 0, 0 <= z <= 1 and z_{j,0,0} = 1. The Hessian of the
Lagrangian is exact: the identity on omegabar and omega' (times the objective factor) plus, for
each pair (omegabar_{j,l}, z_{j,k,l}), the sum over the samples i of category k of lambda_i y_i.

Ipopt is a local solver: its answer is reported as ``Status.FEASIBLE`` / ``locally_optimal``
(no bound), never as optimal.
"""

from __future__ import annotations

import importlib.metadata
import time
from typing import Any

import numpy as np

from optrules.models.cl import ClusterData, CLSolution
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
    """cyipopt callbacks of the QCQP relaxation of CL."""

    def __init__(self, data: ClusterData, C: float) -> None:
        self.data = data
        self.L = L = data.clusters
        self.J = J = len(data.n_categories)
        self.P = P = data.numeric.shape[1]
        self.n = n = data.n
        self.C = float(C)
        sizes = np.asarray(data.n_categories, dtype=int)
        self.K = K = int(sizes.sum())
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        # positions in x
        self.i_w, self.i_v, self.i_b = 0, J * L, J * L + P
        self.i_xi = self.i_b + 1
        self.i_z = self.i_xi + n
        self.size = self.i_z + K * L
        self.y = data.y.astype(float)
        # global category row of each sample per feature: n x J
        self.rows = np.column_stack([self.offsets[j] + data.codes[j] for j in range(J)])
        self.feature_of = np.repeat(np.arange(J), sizes)
        self._structure()

    def _w_index(self, j: np.ndarray, l: np.ndarray) -> np.ndarray:
        return self.i_w + j * self.L + l

    def _z_index(self, row: np.ndarray, l: np.ndarray) -> np.ndarray:
        return self.i_z + row * self.L + l

    def _structure(self) -> None:
        n, J, L, P, K = self.n, self.J, self.L, self.P, self.K
        samples = np.arange(n)
        # (8): per sample, entries for omegabar (J*L), z (J*L), omega' (P), b, xi_i
        jj, ll = np.meshgrid(np.arange(J), np.arange(L), indexing="ij")
        jj, ll = jj.ravel(), ll.ravel()
        w_cols = np.broadcast_to(self._w_index(jj, ll), (n, J * L))
        z_cols = self._z_index(self.rows[:, jj], ll[None, :])
        v_cols = np.broadcast_to(self.i_v + np.arange(P), (n, P))
        b_cols = np.full((n, 1), self.i_b)
        xi_cols = (self.i_xi + samples)[:, None]
        cols8 = np.hstack([w_cols, z_cols, v_cols, b_cols, xi_cols])
        rows8 = np.repeat(samples[:, None], cols8.shape[1], axis=1)
        self._jj, self._ll = jj, ll
        # (9): per category row, its L z entries
        rows9 = n + np.repeat(np.arange(K), L)
        cols9 = self.i_z + np.arange(K * L)
        self.jac_rows = np.concatenate([rows8.ravel(), rows9])
        self.jac_cols = np.concatenate([cols8.ravel(), cols9])
        # Hessian (lower triangle): diagonals of omegabar and omega', then (z_{k,l}, omegabar_{j(k),l})
        diag = np.arange(self.i_w, self.i_b)
        k_rows, l_rows = np.repeat(np.arange(K), L), np.tile(np.arange(L), K)
        cross_rows = self._z_index(k_rows, l_rows)
        cross_cols = self._w_index(self.feature_of[k_rows], l_rows)
        self._cross_k = k_rows
        self.hess_rows = np.concatenate([diag, cross_rows])
        self.hess_cols = np.concatenate([diag, cross_cols])

    # -- cyipopt callbacks
    def objective(self, x: np.ndarray) -> float:
        w = x[self.i_w:self.i_b]
        return float(w @ w / 2 + self.C / self.n * x[self.i_xi:self.i_z].sum())

    def gradient(self, x: np.ndarray) -> np.ndarray:
        grad = np.zeros(self.size)
        grad[self.i_w:self.i_b] = x[self.i_w:self.i_b]
        grad[self.i_xi:self.i_z] = self.C / self.n
        return grad

    def _split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray, np.ndarray]:
        w = x[self.i_w:self.i_v].reshape(self.J, self.L)
        v = x[self.i_v:self.i_b]
        z = x[self.i_z:].reshape(self.K, self.L)
        return w, v, float(x[self.i_b]), x[self.i_xi:self.i_z], z

    def constraints(self, x: np.ndarray) -> np.ndarray:
        w, v, b, xi, z = self._split(x)
        clustered = np.einsum("ijl,jl->i", z[self.rows], w)
        g8 = self.y * (clustered + self.data.numeric @ v + b) + xi
        return np.concatenate([g8, z.sum(axis=1)])

    def jacobianstructure(self) -> tuple[np.ndarray, np.ndarray]:
        return self.jac_rows, self.jac_cols

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        w, v, b, xi, z = self._split(x)
        y = self.y[:, None]
        d_w = y * z[self.rows[:, self._jj], self._ll[None, :]]
        d_z = y * w[self._jj, self._ll][None, :]
        d_z = np.broadcast_to(d_z, (self.n, d_w.shape[1]))
        d_v = y * self.data.numeric
        d_b = y
        d_xi = np.ones((self.n, 1))
        block8 = np.hstack([d_w, d_z, d_v, d_b, d_xi])
        return np.concatenate([block8.ravel(), np.ones(self.K * self.L)])

    def hessianstructure(self) -> tuple[np.ndarray, np.ndarray]:
        return self.hess_rows, self.hess_cols

    def hessian(self, x: np.ndarray, lagrange: np.ndarray, obj_factor: float) -> np.ndarray:
        weight = lagrange[:self.n] * self.y
        per_category = np.zeros(self.K)
        for j in range(self.J):
            per_category += np.bincount(self.rows[:, j], weights=weight, minlength=self.K)
        diag = np.full(self.i_b - self.i_w, obj_factor)
        return np.concatenate([diag, per_category[self._cross_k]])

    def bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        lower = np.full(self.size, -_INFINITY)
        upper = np.full(self.size, _INFINITY)
        lower[self.i_xi:self.i_z] = 0.0
        lower[self.i_z:] = 0.0
        upper[self.i_z:] = 1.0
        lower[self._z_index(self.offsets, 0)] = 1.0  # symmetry breaking z_{j,0,0} = 1
        c_lower = np.concatenate([np.ones(self.n), np.ones(self.K)])
        c_upper = np.concatenate([np.full(self.n, _INFINITY), np.ones(self.K)])
        return lower, upper, c_lower, c_upper

    def point(self, start: CLSolution) -> np.ndarray:
        x = np.zeros(self.size)
        x[self.i_w:self.i_v] = np.concatenate([np.asarray(s, dtype=float) for s in start.cluster_scores])
        x[self.i_v:self.i_b] = start.omega_numeric
        x[self.i_b] = start.b
        x[self.i_z:] = np.concatenate([np.asarray(z, dtype=float) for z in start.z]).ravel()
        w, v, b, _, z = self._split(x)
        clustered = np.einsum("ijl,jl->i", z[self.rows], w)
        x[self.i_xi:self.i_z] = np.maximum(0.0, 1.0 - self.y * (clustered + self.data.numeric @ v + b))
        return x

    def solution(self, x: np.ndarray) -> CLSolution:
        w, v, b, _, z = self._split(x)
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
    problem = cyipopt.Problem(n=relaxation.size, m=data.n + relaxation.K, problem_obj=relaxation,
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
    feasible = word in ("locally_optimal", "inaccurate", *_LIMITS) and \
        float(np.min(relaxation.constraints(x)[:data.n] - 1.0)) > -1e-5
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
