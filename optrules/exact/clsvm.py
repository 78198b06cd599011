"""The CLSVM strategies (Carrizosa, Nogales-Gomez and Romero Morales, Section 3) on prepared inputs.

Every strategy returns a :class:`StrategyResult`: a :class:`~optrules.exact.scorecard.Scorecard`
(clustering z* and the classifier (omegabar, omega', b)), its CL objective (7) on the training data,
and the solve reports.

* ``svm-o``  SVM_O (1)-(6) on one dummy per category; every category is its own cluster.
* ``svm-c``  SVM_O, then per feature the exact 1-d MSSC of its scores (Figure 3, ``mssc_1d``), then
             the SVM on the clustered data (Figure 4).
* ``cl-rr``  the QCQP relaxation of CL solved locally (Ipopt through cyipopt when installed,
             otherwise SCIP under a time limit), randomized rounding of z, the SVM on the clustered data.
* ``clm-rr`` the same from the convex QP relaxation of CL-bigM (cvxpy).
* ``clm``    the CL-bigM MIQP (SCIP by default), warm-started from SVM_C; its z and scores directly.
* ``cl``     CL itself, solved globally by SCIP (small instances, cross-checks), warm-started likewise.

The paper is cut before the details of CL_RR; the choices made here (rounding rule, number of
draws, starting point of the local solve, big-M) are in docs/methods/clsvm.md.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optrules.exact.cl_ipopt import ipopt_available, solve_relaxation_ipopt
from optrules.exact.mssc import mssc_1d
from optrules.exact.scorecard import Scorecard, ScorecardDesign
from optrules.models import cl as cl_model
from optrules.models import cl_bigm as bigm_model
from optrules.models import cl_lower_bound as lower_bound_model
from optrules.models import svm as svm_model
from optrules.models.cl import ClusterData, CLSolution
from optrules.solvers import ProblemClass, SolveReport, Status, available_solvers, solve

__all__ = ["STRATEGIES", "StrategyInputs", "StrategyResult", "big_m", "canonical", "constant_upper_bound",
           "feature_big_m",            "randomized_rounding", "run_strategy"]

STRATEGIES = ("svm-o", "svm-c", "cl-rr", "clm-rr", "clm", "cl")

#: default time limit (s) of the SCIP fallback for the QCQP relaxation when no time_limit is given
SCIP_RELAXATION_TIME_LIMIT = 60.0
#: SCIP options for clm and cl (the caller's solver_options override them). SCIP 10's MPEC and sub-NLP
#: heuristics run its bundled Ipopt/MUMPS; on the mushroom and adult MIQPs (5,000 rows) that aborted
#: the process (SIGABRT) or deadlocked inside METIS's free() (measured, native stack in
#: docs/methods/clsvm.md), so both are switched off.
SCIP_DEFAULTS = {"heuristics/mpec/freq": -1, "heuristics/subnlp/freq": -1}


@dataclass(frozen=True)
class StrategyInputs:
    """The training data in the design's coordinates: clustered codes, x', y in {-1, +1}, L."""

    design: ScorecardDesign
    data: ClusterData

    @property
    def has_clusters(self) -> bool:
        return len(self.data.n_categories) > 0


@dataclass(frozen=True)
class StrategyResult:
    card: Scorecard
    objective: float
    reports: list[SolveReport] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------------------------ helpers
def canonical(labels: np.ndarray) -> np.ndarray:
    """Relabel clusters so that the first category is in cluster 0 (the paper's symmetry breaking)."""
    labels = np.asarray(labels, dtype=np.int64).copy()
    first = labels[0]
    if first != 0:
        swap_first, swap_zero = labels == first, labels == 0
        labels[swap_first], labels[swap_zero] = 0, first
    return labels


def constant_upper_bound(y: np.ndarray, C: float) -> float:
    """CL's objective at omegabar = omega' = 0 with the best constant b (b = +-1): 2 C min(n+, n-) / n."""
    positives = int((y > 0).sum())
    return 2.0 * C * min(positives, len(y) - positives) / len(y)


def big_m(upper_bound: float) -> float:
    """A bound on |omegabar_{j,l}| valid at every optimum of CL: sum omegabar^2 / 2 <= (7) <= UB.

    A small relative margin keeps a start whose objective equals UB (up to solver accuracy) feasible.
    """
    return math.sqrt(2.0 * upper_bound) * (1 + 1e-6) + 1e-9


def feature_big_m(data: ClusterData, C: float, upper_bound: float,
                  solver: str) -> tuple[np.ndarray, float | None, list[SolveReport]]:
    """Per-feature bounds M_j = sqrt(2 (UB - LB_{-j})) from ``optrules.models.cl_lower_bound``.

    Returns (M, LB, reports): LB is the lower bound (LB) on CL's optimum with every feature
    penalised. A feature whose bound problem is not solved to optimality keeps the global
    ``big_m(UB)``. The margin 1e-6 max(1, UB) covers the convex solver's accuracy.
    """
    global_m = big_m(upper_bound)
    J = len(data.n_categories)
    bounds = np.full(J, global_m)
    started = time.perf_counter()
    model = lower_bound_model.build(data, C)
    build_seconds = time.perf_counter() - started
    reports = []
    lower = None
    margin = 1e-6 * max(1.0, upper_bound)
    for j in range(-1, J):
        mu = np.ones(J)
        if j >= 0:
            mu[j] = 0.0
        model.mu.value = mu
        report = solve(model.problem, lower_bound_model.problem_class(), solver=solver,
                       build_seconds=build_seconds if j < 0 else 0.0)
        reports.append(report)
        if report.status is not Status.OPTIMAL:
            continue
        if j < 0:
            lower = report.objective
        else:
            bounds[j] = min(global_m, math.sqrt(2.0 * max(upper_bound - report.objective, 0.0) + 2 * margin))
    return bounds, lower, reports


def _default_qp_solver() -> str:
    """Clarabel when installed (fastest measured on these QPs), else the first capable cvxpy solver."""
    capable = available_solvers(ProblemClass.QP, "cvxpy")
    return "clarabel" if "clarabel" in capable else capable[0]


def _check(report: SolveReport, what: str) -> None:
    if not report.has_solution:
        raise RuntimeError(f"{what} returned no solution: {report.status.value} ({report.termination})")


def _svm(inputs: StrategyInputs, dummies: np.ndarray, C: float, solver: str,
         options: dict | None) -> tuple[svm_model.SVMSolution, SolveReport]:
    started = time.perf_counter()
    model = svm_model.build(dummies, inputs.data.numeric, inputs.data.y, C)
    report = solve(model.problem, svm_model.problem_class(), solver=solver, options=options,
                   build_seconds=time.perf_counter() - started)
    _check(report, f"the SVM ({solver})")
    return svm_model.extract(model), report


def _clustered_svm(inputs: StrategyInputs, assignment: list[np.ndarray], C: float, solver: str,
                   options: dict | None = None) -> StrategyResult:
    """The SVM on the dataset clustered by ``assignment`` (Figures 1-2)."""
    L = inputs.data.clusters
    dummies = inputs.design.dummies(inputs.data.codes, assignment, L)
    solution, report = _svm(inputs, dummies, C, solver, options)
    scores = tuple(solution.omega[j * L:(j + 1) * L] for j in range(len(assignment)))
    card = Scorecard(tuple(np.asarray(a) for a in assignment), scores, solution.omega_numeric, solution.b)
    return StrategyResult(card, solution.objective, [report])


def _as_start(result: StrategyResult, L: int) -> CLSolution:
    z = tuple(np.eye(L)[a] for a in result.card.assignment)
    return CLSolution(result.card.cluster_scores, result.card.numeric_coef, result.card.intercept, z,
                      result.objective)


def randomized_rounding(z: tuple[np.ndarray, ...], draws: int, rng: np.random.Generator) -> list[list[np.ndarray]]:
    """``draws`` distinct clusterings, each category k of feature j put in cluster l with probability
    z_{j,k,l} (rows renormalised; Raghavan and Thompson's randomized rounding), canonical labels."""
    seen: set[tuple] = set()
    out = []
    for _ in range(draws):
        clustering = []
        for zj in z:
            p = np.clip(np.asarray(zj, dtype=float), 0.0, None)
            p = p / np.where(p.sum(axis=1, keepdims=True) > 0, p.sum(axis=1, keepdims=True), 1.0)
            p[p.sum(axis=1) == 0, 0] = 1.0
            cumulative = np.cumsum(p, axis=1)
            u = rng.random((p.shape[0], 1))
            labels = np.minimum((u > cumulative).sum(axis=1), p.shape[1] - 1)
            clustering.append(canonical(labels))
        key = tuple(tuple(c.tolist()) for c in clustering)
        if key not in seen:
            seen.add(key)
            out.append(clustering)
    return out


# ------------------------------------------------------------------------------------ strategies
def _svm_o(inputs: StrategyInputs, C: float, qp: str, options: dict | None) -> StrategyResult:
    dummies = inputs.design.dummies(inputs.data.codes)
    solution, report = _svm(inputs, dummies, C, qp, options)
    sizes = np.cumsum((0,) + inputs.data.n_categories)
    scores = tuple(solution.omega[sizes[j]:sizes[j + 1]] for j in range(len(inputs.data.n_categories)))
    assignment = tuple(np.arange(size) for size in inputs.data.n_categories)
    return StrategyResult(Scorecard(assignment, scores, solution.omega_numeric, solution.b),
                          solution.objective, [report])


def _svm_c(inputs: StrategyInputs, C: float, qp: str, options: dict | None) -> StrategyResult:
    original = _svm_o(inputs, C, qp, options)
    assignment = [canonical(mssc_1d(scores, inputs.data.clusters)) for scores in original.card.cluster_scores]
    clustered = _clustered_svm(inputs, assignment, C, qp, options)
    return StrategyResult(clustered.card, clustered.objective, original.reports + clustered.reports)


def _best_rounding(inputs: StrategyInputs, relaxed: CLSolution, C: float, draws: int, qp: str,
                   rng: np.random.Generator) -> tuple[StrategyResult, int]:
    best = None
    candidates = randomized_rounding(relaxed.z, draws, rng)
    for assignment in candidates:
        result = _clustered_svm(inputs, assignment, C, qp)
        if best is None or result.objective < best.objective:
            best = result
    return best, len(candidates)


def _cl_rr(inputs: StrategyInputs, C: float, draws: int, solver: str | None, options: dict | None,
           rng: np.random.Generator, qp: str) -> StrategyResult:
    start = _svm_c(inputs, C, qp, None)
    options = dict(options or {})
    use_ipopt = solver == "ipopt" or (solver is None and ipopt_available())
    if use_ipopt:
        relaxed, report = solve_relaxation_ipopt(inputs.data, C, _as_start(start, inputs.data.clusters), options)
    else:
        options.setdefault("time_limit", SCIP_RELAXATION_TIME_LIMIT)
        began = time.perf_counter()
        model = cl_model.build(inputs.data, C, relax=True)
        cl_model.set_start(model, inputs.data, list(start.card.assignment), list(start.card.cluster_scores),
                           start.card.numeric_coef, start.card.intercept)
        report = solve(model, cl_model.problem_class(relax=True), solver=solver or "scip", options=options,
                       build_seconds=time.perf_counter() - began)
        relaxed = cl_model.extract(model, inputs.data) if report.has_solution else None
    if relaxed is None:
        raise RuntimeError(f"the QCQP relaxation returned no solution: {report.status.value} ({report.termination})")
    best, tried = _best_rounding(inputs, relaxed, C, draws, qp, rng)
    return StrategyResult(best.card, best.objective, start.reports + [report] + best.reports,
                          {"relaxation_solver": report.solver, "relaxation_objective": report.objective,
                           "roundings_tried": tried})


def _clm_rr(inputs: StrategyInputs, C: float, draws: int, solver: str | None, options: dict | None,
            rng: np.random.Generator, qp: str) -> StrategyResult:
    start = _svm_c(inputs, C, qp, None)
    upper = min(constant_upper_bound(inputs.data.y, C), start.objective)
    M, lower, bound_reports = feature_big_m(inputs.data, C, upper, qp)
    began = time.perf_counter()
    model = bigm_model.build_relaxation(inputs.data, C, M)
    report = solve(model.problem, bigm_model.problem_class(relax=True), solver=solver or qp, options=options,
                   build_seconds=time.perf_counter() - began)
    _check(report, "the CL-bigM relaxation")
    relaxed = bigm_model.extract_relaxation(model)
    best, tried = _best_rounding(inputs, relaxed, C, draws, qp, rng)
    return StrategyResult(best.card, best.objective, start.reports + bound_reports + [report] + best.reports,
                          {"big_m": M.tolist(), "upper_bound": upper, "lower_bound": lower,
                           "relaxation_solver": report.solver, "relaxation_objective": report.objective,
                           "roundings_tried": tried})


def _exact(inputs: StrategyInputs, C: float, strategy: str, solver: str | None, options: dict | None,
           qp: str) -> StrategyResult:
    """clm (CL-bigM MIQP) or cl (CL MINLP), warm-started from SVM_C; never worse than that start."""
    start = _svm_c(inputs, C, qp, None)
    upper = min(constant_upper_bound(inputs.data.y, C), start.objective)
    bound_reports: list[SolveReport] = []
    if strategy == "clm":
        M, lower, bound_reports = feature_big_m(inputs.data, C, upper, qp)
        began = time.perf_counter()
        model = bigm_model.build(inputs.data, C, M)
        problem_class, set_start = bigm_model.problem_class(), bigm_model.set_start
        meta: dict[str, Any] = {"big_m": M.tolist(), "lower_bound": lower}
    else:
        began = time.perf_counter()
        model = cl_model.build(inputs.data, C)
        problem_class, set_start = cl_model.problem_class(), cl_model.set_start
        meta = {}
    set_start(model, inputs.data, list(start.card.assignment), list(start.card.cluster_scores),
              start.card.numeric_coef, start.card.intercept)
    solver = solver or "scip"
    if solver == "scip":
        options = {**SCIP_DEFAULTS, **(options or {})}
    report = solve(model, problem_class, solver=solver, options=options, warm_start=True,
                   build_seconds=time.perf_counter() - began)
    # the exact model's own figures as plain values (tables of results copy meta entries, not reports)
    meta.update(start_objective=start.objective, upper_bound=upper, model_status=report.status.value,
                model_termination=report.termination, model_objective=report.objective,
                model_best_bound=report.best_bound, model_gap=report.gap, model_solve_seconds=report.solve_seconds)
    if strategy == "clm":
        meta["big_m_max"] = float(max(meta["big_m"], default=0.0))
    if report.has_solution and report.objective <= start.objective + 1e-9 * max(1.0, abs(start.objective)):
        solution = cl_model.extract(model, inputs.data)
        assignment = tuple(canonical(a) if a[0] != 0 else a for a in solution.assignment)
        card = Scorecard(assignment, solution.cluster_scores, solution.omega_numeric, solution.b)
        return StrategyResult(card, float(report.objective), start.reports + bound_reports + [report],
                              {**meta, "solution_from_start": False})
    return StrategyResult(start.card, start.objective, start.reports + bound_reports + [report],
                          {**meta, "solution_from_start": True})


def run_strategy(strategy: str, inputs: StrategyInputs, C: float, *, draws: int = 10, solver: str | None = None,
                 options: dict | None = None, rng: np.random.Generator | None = None) -> StrategyResult:
    """Run one strategy; ``solver``/``options`` apply to its main model (see the module docstring).

    Without clustered features there is nothing to cluster: every strategy is the SVM on x'.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; use one of {list(STRATEGIES)}")
    rng = rng if rng is not None else np.random.default_rng(0)
    main_is_qp = strategy in ("svm-o", "svm-c") or not inputs.has_clusters
    qp = solver if main_is_qp and solver is not None else _default_qp_solver()
    qp_options = options if main_is_qp else None
    if strategy == "svm-o" or not inputs.has_clusters:
        return _svm_o(inputs, C, qp, qp_options)
    if strategy == "svm-c":
        return _svm_c(inputs, C, qp, qp_options)
    if strategy == "cl-rr":
        return _cl_rr(inputs, C, draws, solver, options, rng, qp)
    if strategy == "clm-rr":
        return _clm_rr(inputs, C, draws, solver, options, rng, qp)
    return _exact(inputs, C, strategy, solver, options, qp)
