"""The CLSVM strategies (Carrizosa, Nogales-Gomez and Romero Morales, Section 3) on prepared inputs.

Every strategy returns a :class:`StrategyResult`: a :class:`~optrules.exact.scorecard.Scorecard`
(clustering z* and the classifier (omegabar, omega', b)), its CL objective (7) on the training data,
the solve reports, and how sure the result is (status, best bound, gap, fallback).

* ``svm-o``  SVM_O (1)-(6) on one dummy per category; every category is its own cluster.
* ``svm-c``  SVM_O, then per feature the exact 1-d MSSC of its scores (Figure 3, ``mssc_1d``), then
             the SVM on the clustered data (Figure 4).
* ``cl-rr``  the QCQP relaxation of CL solved locally (Ipopt through cyipopt when installed,
             otherwise SCIP), randomized rounding of z, the SVM on the clustered data.
* ``clm-rr`` the same from the convex QP relaxation of CL-bigM.
* ``clm``    the CL-bigM MIQP (SCIP by default), warm-started from SVM_C; its z and scores directly.
* ``cl``     CL itself, solved globally by SCIP (small instances, cross-checks), warm-started likewise.

``options["time_limit"]`` is the wall-clock budget of the whole strategy (``optrules.exact.budget``):
the warm start's QPs, the big-M bound QPs, the main model's build, load and solve, and the
roundings each get what is left (the bound QPs at most ``BOUND_SHARE`` of it, so that the main
model is always reached with time to run; a relaxation to be rounded at most ``RELAXATION_SHARE``),
and stop or are skipped once it is spent. What the strategy then
returns is said, never hidden: ``fallback`` is ``"start"`` when it is SVM_C's scorecard (the exact
model found nothing better in time) and ``"constant"`` when even the start's QPs did not finish (the
constant classifier omega = 0, b = +-1, which is feasible for CL). Every valid lower bound known on
CL's optimum (the solver's dual bound, the convex bound (LB) of ``optrules.models.cl_lower_bound``,
the CL-bigM relaxation's optimum) gives ``best_bound`` and the returned scorecard's ``gap``.

Sample weights (``ClusterData.weights``, one per training row, the class weights folded in) weigh
the hinge losses of every model: the objective of SVM (1), CL (7), CL-bigM (16), their relaxations
and the bound (LB) is the norm term plus (C / W) sum_i w_i xi_i with W = sum_i w_i (the paper's
(C / n) sum_i xi_i without weights), so an integer weight acts as that many copies of the row. What
the strategies derive stays valid: the SVM_C start and every rounding are the weighted SVM on
clustered data, hence feasible points of the weighted CL valued by its (7); the constant classifier
is worth 2 C min(W+, W-) / W (``constant_upper_bound``); ``big_m`` needs only that the hinge term is
>= 0, true for any w_i >= 0; ``feature_big_m``'s LB_{-j} carries the same weights. SVM_C's MSSC
weighs each category once, as in Figure 3 (``optrules.exact.mssc``). Rows of weight 0 are dropped
before any model is built (``ClusterData.support``): they change no objective and no optimum (the
models accept them all the same, each with a cost-free xi_i).

The paper is cut before the details of CL_RR; the choices made here (rounding rule, number of
draws, starting point of the local solve, big-M) are in docs/methods/clsvm.md.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optrules.exact.budget import TimeBudget
from optrules.exact.cl_ipopt import ipopt_available, solve_relaxation_ipopt
from optrules.exact.mssc import mssc_1d
from optrules.exact.scorecard import Scorecard, ScorecardDesign
from optrules.exact.warm_start import start_or_solver
from optrules.models import cl as cl_model
from optrules.models import cl_bigm as bigm_model
from optrules.models import cl_lower_bound as lower_bound_model
from optrules.models import svm as svm_model
from optrules.models.cl import ClusterData, CLSolution
from optrules.solvers import ProblemClass, SolveReport, Status, available_solvers, relative_gap, solve
from optrules.solvers.options import check_unified
from optrules.solvers.solving import DEFAULT_MIP_GAP

__all__ = ["ROUNDING_STRATEGIES", "STRATEGIES", "StrategyInputs", "StrategyResult", "big_m", "canonical",
           "constant_upper_bound", "default_modeller", "feature_big_m", "randomized_rounding", "run_strategy"]

STRATEGIES = ("svm-o", "svm-c", "cl-rr", "clm-rr", "clm", "cl")
#: The strategies that draw random numbers (the randomized roundings of a relaxation); the others
#: give the same scorecard for every ``rng`` (``CLSVMClassifier``'s ``C="cv"`` still draws its inner
#: folds from it, whatever the strategy).
ROUNDING_STRATEGIES = ("cl-rr", "clm-rr")

#: SCIP options for clm and cl (the caller's solver_options override them). SCIP 10's MPEC and sub-NLP
#: heuristics run its bundled Ipopt/MUMPS; on the mushroom and adult MIQPs (5,000 rows) that aborted
#: the process (SIGABRT) or deadlocked inside METIS's free() (measured, native stack in
#: docs/methods/clsvm.md), so both are switched off.
SCIP_DEFAULTS = {"heuristics/mpec/freq": -1, "heuristics/subnlp/freq": -1}
#: The modelling layer of the CL-bigM model per strategy when none is given: clm's MIQP through
#: Pyomo, whose loader hands SCIP the SVM_C start (cvxpy's SCIP interface takes none); clm-rr's
#: relaxation through cvxpy, for Clarabel. CL is bilinear, so Pyomo only; the SVMs are cvxpy models.
_DEFAULT_MODELLERS = {"clm": "pyomo", "clm-rr": "cvxpy", "cl": "pyomo", "cl-rr": "pyomo"}
#: Time limit (s) of SCIP's global solve of the QCQP relaxation (cl-rr without Ipopt) when the fit
#: has no time_limit: that solve can run for hours on a few thousand rows.
SCIP_RELAXATION_TIME_LIMIT = 60.0
#: Under a time limit, the relaxation of cl-rr and clm-rr may use this share of what is left after
#: the start and the bounds, so that time remains for the roundings.
RELAXATION_SHARE = 0.5
#: Under a time limit, the J + 1 bound QPs of clm and clm-rr (``feature_big_m``) may use this share of
#: what is left after the start: on wide categorical data (60-85 features, thousands of rows) they
#: would otherwise spend the whole budget and the main model would not run. A feature whose bound QP
#: did not run keeps the global big-M, which is valid, only weaker.
BOUND_SHARE = 0.5


def default_modeller(strategy: str) -> str | None:
    """The layer a strategy builds its CL / CL-bigM model with by default (None: it builds none)."""
    return _DEFAULT_MODELLERS.get(strategy)


@dataclass(frozen=True)
class StrategyInputs:
    """The training data in the design's coordinates: clustered codes, x', y in {-1, +1}, L, the
    sample weights."""

    design: ScorecardDesign
    data: ClusterData

    @property
    def has_clusters(self) -> bool:
        return len(self.data.n_categories) > 0


@dataclass(frozen=True)
class StrategyResult:
    """A strategy's scorecard, its CL objective (7) (with the data's sample weights), every solve
    report and ``meta``: the main model's status and termination, best_bound, gap, fallback (None,
    "start" or "constant") and its reason, the strategy's own figures, and the seconds of each stage."""

    card: Scorecard
    objective: float
    reports: list[SolveReport] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


class _OutOfTime(Exception):
    """A QP the strategy needs did not finish within the budget."""

    def __init__(self, what: str, report: SolveReport) -> None:
        super().__init__(f"{what} returned no solution: {report.status.value} ({report.termination})")
        self.report = report


# ------------------------------------------------------------------------------------ helpers
def canonical(labels: np.ndarray) -> np.ndarray:
    """Relabel clusters so that the first category is in cluster 0 (the paper's symmetry breaking)."""
    labels = np.asarray(labels, dtype=np.int64).copy()
    first = labels[0]
    if first != 0:
        swap_first, swap_zero = labels == first, labels == 0
        labels[swap_first], labels[swap_zero] = 0, first
    return labels


#: An objective (7) scale below which the convex solvers' absolute tolerances (about 1e-8) stop being
#: small against it: a fit warns (at C = 1e-8 svm-o's "optimal" was 7e-4 above the constant classifier).
TINY_OBJECTIVE = 1e-6


def constant_upper_bound(y: np.ndarray, C: float, weights: np.ndarray | None = None) -> float:
    """CL's objective (7) at omegabar = omega' = 0 with the best constant b (b = +-1): each sample of
    the other class has xi_i = 2, so 2 C min(W+, W-) / W with the classes' total weights W+ and W-
    and W = W+ + W- (2 C min(n+, n-) / n without ``weights``)."""
    positive, total = _class_totals(y, weights)
    return 2.0 * C * min(positive, total - positive) / total


def _class_totals(y: np.ndarray, weights: np.ndarray | None) -> tuple[float, float]:
    """(W+, W): the positive samples' total weight and all samples' (n+ and n without weights)."""
    w, total = svm_model.sample_weights(weights, len(y))
    return float(w[np.asarray(y) > 0].sum()), total


def big_m(upper_bound: float) -> float:
    """A bound on |omegabar_{j,l}| valid at every optimum of CL: sum omegabar^2 / 2 <= (7) <= UB,
    the hinge term of (7) being >= 0 whatever the sample weights (all >= 0).

    A small relative margin keeps a start whose objective equals UB (up to solver accuracy) feasible.
    (7) is never negative, so a negative UB is the solver's rounding of 0 (a start of objective
    -8e-11 was measured when one class has weight 0 on every row): it is read as 0.
    """
    return math.sqrt(2.0 * max(upper_bound, 0.0)) * (1 + 1e-6) + 1e-9


def convex_margin(upper_bound: float) -> float:
    """What a convex solve's optimum of (LB), (LB_-j) or the CL-bigM relaxation is lowered by before it
    serves as a bound: 1e-6 UB + 1e-7. An interior-point optimum is accurate to about the solver's
    tolerances, relative and absolute (1e-8), and the absolute part is no small part of (7) when C
    makes it tiny: at C = 2e-4 on 150 rows the unlowered LB exceeded a feasible scorecard's objective
    by 1.4e-9, at C = 1e-6 by 5.7e-8 (review). With UB >= 0.01 the margin stays below the 1e-4 that
    "optimal" allows."""
    return 1e-6 * upper_bound + 1e-7


def feature_big_m(data: ClusterData, C: float, upper_bound: float, solver: str,
                  deadline: float | None = None) -> tuple[np.ndarray, float | None, list[SolveReport]]:
    """Per-feature bounds M_j = sqrt(2 (UB - LB_{-j})) from ``optrules.models.cl_lower_bound``.

    Returns (M, LB, reports): LB is the lower bound (LB) on CL's optimum with every feature
    penalised; (LB) has the data's sample weights, as (7) has, so the bound is that of the weighted
    CL. The QPs run in that order (LB first) until the ``deadline`` (``time.perf_counter()`` seconds;
    None: no limit); a feature whose bound problem is not solved to optimality, or not run before
    the deadline, keeps the global ``big_m(UB)`` (the reports say which ran). The margin
    :func:`convex_margin` covers the convex solver's accuracy in the M_j and in LB.
    """
    global_m = big_m(upper_bound)
    J = len(data.n_categories)
    bounds = np.full(J, global_m)
    started = time.perf_counter()
    model = lower_bound_model.build(data, C)
    build_seconds = time.perf_counter() - started
    reports = []
    lower = None
    margin = convex_margin(upper_bound)
    for j in range(-1, J):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        mu = np.ones(J)
        if j >= 0:
            mu[j] = 0.0
        model.mu.value = mu
        report = solve(model.problem, lower_bound_model.problem_class(), solver=solver,
                       build_seconds=build_seconds if j < 0 else 0.0,
                       deadline=deadline)
        reports.append(report)
        if report.status is not Status.OPTIMAL:
            continue
        if j < 0:
            lower = max(0.0, report.objective - margin)  # (7) is never negative
        else:
            bounds[j] = min(global_m, math.sqrt(2.0 * max(upper_bound - report.objective, 0.0) + 2 * margin))
    return bounds, lower, reports


def _default_qp_solver() -> str:
    """Clarabel when installed (fastest measured on these QPs), else the first capable cvxpy solver."""
    capable = available_solvers(ProblemClass.QP, "cvxpy")
    return "clarabel" if "clarabel" in capable else capable[0]


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


class _Run:
    """One strategy run: the inputs, the budget, the QP solver, and the reports so far."""

    def __init__(self, inputs: StrategyInputs, C: float, qp: str, qp_options: dict[str, Any],
                 budget: TimeBudget) -> None:
        self.inputs, self.C, self.qp, self.qp_options, self.budget = inputs, C, qp, qp_options, budget
        self.reports: list[SolveReport] = []

    def svm(self, dummies: np.ndarray, what: str, stage: str) -> svm_model.SVMSolution:
        """The SVM QP (1)-(6) on ``dummies`` with the data's sample weights; raises _OutOfTime when it
        finds no solution in time.

        ``stage="main"``: the strategy's own model, its seconds counted as build, load and solve;
        otherwise all of them go to ``stage`` ("start", "round")."""
        began = time.perf_counter()
        data = self.inputs.data
        model = svm_model.build(dummies, data.numeric, data.y, self.C, data.weights)
        built = time.perf_counter() - began
        report = solve(model.problem, svm_model.problem_class(), solver=self.qp, options=self.qp_options,
                       build_seconds=built, deadline=self.budget.deadline)
        self.reports.append(report)
        if stage == "main":
            self.budget.add("build", built)
            self.budget.count_solve(report)
        else:
            self.budget.add(stage, report.seconds)
        if not report.has_solution:
            raise _OutOfTime(what, report)
        return svm_model.extract(model)

    def clustered_svm(self, assignment: list[np.ndarray], stage: str) -> StrategyResult:
        """The SVM on the dataset clustered by ``assignment`` (Figures 1-2)."""
        L = self.inputs.data.clusters
        dummies = self.inputs.design.dummies(self.inputs.data.codes, assignment, L)
        solution = self.svm(dummies, "the SVM on the clustered data", stage)
        scores = tuple(solution.omega[j * L:(j + 1) * L] for j in range(len(assignment)))
        card = Scorecard(tuple(np.asarray(a) for a in assignment), scores, solution.omega_numeric, solution.b)
        return StrategyResult(card, solution.objective)

    def svm_o(self, stage: str = "main") -> StrategyResult:
        dummies = self.inputs.design.dummies(self.inputs.data.codes)
        solution = self.svm(dummies, "SVM_O", stage)
        sizes = np.cumsum((0,) + self.inputs.data.n_categories)
        scores = tuple(solution.omega[sizes[j]:sizes[j + 1]] for j in range(len(self.inputs.data.n_categories)))
        assignment = tuple(np.arange(size) for size in self.inputs.data.n_categories)
        return StrategyResult(Scorecard(assignment, scores, solution.omega_numeric, solution.b), solution.objective)

    def svm_c(self, stage: str = "main") -> StrategyResult:
        original = self.svm_o(stage)
        assignment = [canonical(mssc_1d(scores, self.inputs.data.clusters)) for scores in original.card.cluster_scores]
        return self.clustered_svm(assignment, stage)

    def constant(self) -> StrategyResult:
        """omega = 0 with the best constant b (the class of larger total weight): feasible for CL,
        objective ``constant_upper_bound``."""
        data = self.inputs.data
        positive, total = _class_totals(data.y, data.weights)
        b = 1.0 if positive >= total - positive else -1.0
        L = data.clusters
        card = Scorecard(tuple(np.zeros(k, dtype=np.int64) for k in data.n_categories),
                         tuple(np.zeros(L) for _ in data.n_categories), np.zeros(data.numeric.shape[1]), b)
        return StrategyResult(card, constant_upper_bound(data.y, self.C, data.weights))

    def best_rounding(self, relaxed: CLSolution, draws: int,
                      rng: np.random.Generator) -> tuple[StrategyResult | None, int, str]:
        """The best of the randomized roundings whose clustered SVM finished within the budget, how
        many finished, and why the roundings stopped early ("" when they did not)."""
        best, tried, stopped = None, 0, ""
        for assignment in randomized_rounding(relaxed.z, draws, rng):
            if self.budget.expired:
                stopped = "the time limit was reached before the roundings were evaluated"
                break
            try:
                result = self.clustered_svm(assignment, "round")
            except _OutOfTime as failure:
                stopped = str(failure)
                break
            tried += 1
            if best is None or result.objective < best.objective:
                best = result
        return best, tried, stopped


def _finish(run: _Run, chosen: StrategyResult, main: SolveReport | None, bounds: list[float | None],
            fallback: str | None, reason: str, extra: dict[str, Any]) -> StrategyResult:
    """The result with its status, best bound, gap, fallback and stage seconds in ``meta``."""
    known = [b for b in bounds if b is not None]
    best_bound = max(known) if known else None
    gap = relative_gap(chosen.objective, best_bound)
    if gap is not None and gap <= 1e-6:
        gap = 0.0
    meta = {"status": None if main is None else main.status.value,
            "termination": None if main is None else main.termination,
            "best_bound": best_bound, "gap": gap, "fallback": fallback, "fallback_reason": reason,
            **extra, **run.budget.meta()}
    return StrategyResult(chosen.card, float(chosen.objective), run.reports, meta)


# ------------------------------------------------------------------------------------ strategies
def _heuristic_svm(run: _Run, strategy: str) -> StrategyResult:
    """svm-o and svm-c. SVM_O's status is its own model's; without a feature to cluster it is CL
    itself, a convex QP, so its optimum is also its bound (gap 0). SVM_C's scorecard is a feasible
    point of CL (clustered by a heuristic, then the SVM solved), so svm-c reports it as such:
    ``feasible``, termination ``svm_c``, the SVM's own status in ``meta["svm_status"]`` (a clm fit on
    the same instance may prove a lower CL objective; two "optimal" rows with different objectives
    misled)."""
    result = run.svm_o() if strategy == "svm-o" else run.svm_c()
    report = run.reports[-1]
    certified = not run.inputs.has_clusters and report.status is Status.OPTIMAL
    finished = _finish(run, result, report, [result.objective] if certified else [], None, "", {})
    return finished if strategy == "svm-o" else _as_cl_point(finished, "svm", "svm_c")


def _rounding(run: _Run, strategy: str, draws: int, solver: str | None, options: dict[str, Any],
              modeller: str, rng: np.random.Generator) -> StrategyResult:
    """cl-rr and clm-rr: relaxation, randomized rounding, the best clustered SVM."""
    inputs, budget = run.inputs, run.budget
    start = run.svm_c("start")
    extra: dict[str, Any] = {"start_objective": start.objective}
    bounds: list[float | None] = []
    if strategy == "cl-rr":
        use_ipopt = solver == "ipopt" or (solver is None and ipopt_available())
        if use_ipopt:
            ipopt_options = dict(options)
            remaining = budget.remaining()
            if remaining is not None:
                ipopt_options["time_limit"] = max(RELAXATION_SHARE * remaining, 1e-3)
            relaxed, report = solve_relaxation_ipopt(inputs.data, run.C, _as_start(start, inputs.data.clusters),
                                                     ipopt_options)
            budget.add("build", report.build_seconds)
            budget.count_solve(report)
        else:
            with budget.stage("build"):
                model = cl_model.build(inputs.data, run.C, relax=True, modeller=modeller)
                model.set_start(list(start.card.assignment), list(start.card.cluster_scores),
                                start.card.numeric_coef, start.card.intercept)
            deadline = budget.share(RELAXATION_SHARE) if budget.deadline is not None else \
                time.perf_counter() + SCIP_RELAXATION_TIME_LIMIT
            report = solve(model.model, model.problem_class, solver=solver or "scip", options=options,
                           deadline=deadline)
            budget.count_solve(report)
            relaxed = model.solution() if report.has_solution else None
            if report.status is Status.OPTIMAL:  # solved globally: a bound on CL
                bounds.append(report.best_bound)
    else:
        upper = min(constant_upper_bound(inputs.data.y, run.C, inputs.data.weights), start.objective)
        with budget.stage("bound"):
            M, lower, bound_reports = feature_big_m(inputs.data, run.C, upper, run.qp, budget.share(BOUND_SHARE))
        run.reports += bound_reports
        bounds.append(lower)
        extra.update(big_m=M.tolist(), upper_bound=upper, lower_bound=lower, **_bound_counts(bound_reports, M))
        with budget.stage("build"):
            model = bigm_model.build(inputs.data, run.C, M, relax=True, modeller=modeller)
        report = solve(model.model, model.problem_class, solver=solver or _relaxation_solver(modeller, run.qp),
                       options=options, deadline=budget.share(RELAXATION_SHARE))
        budget.count_solve(report)
        relaxed = model.solution() if report.has_solution else None
        if report.status is Status.OPTIMAL:  # a convex relaxation: its optimum bounds CL-bigM, hence CL
            bounds.append(max(0.0, report.objective - convex_margin(upper)))
    run.reports.append(report)
    extra.update(relaxation_solver=report.solver, relaxation_objective=report.objective)
    best, tried, stopped = (None, 0, "") if relaxed is None else run.best_rounding(relaxed, draws, rng)
    extra["roundings_tried"] = tried
    if best is not None:  # the best rounding, as the strategy defines it (even when SVM_C was better)
        return _as_cl_point(_finish(run, best, report, bounds, None, "", extra), "relaxation", "rounding")
    if relaxed is None:
        reason = (f"the relaxation returned no solution ({report.status.value}: {report.termination}); "
                  "the SVM_C start is returned")
    else:
        reason = f"{stopped}; the SVM_C start is returned"
    return _as_cl_point(_finish(run, start, report, bounds, "start", reason, extra), "relaxation", "start")


def _as_cl_point(result: StrategyResult, model: str, termination: str) -> StrategyResult:
    """A heuristic's status is that of what it returns, a feasible point of CL (svm-c's scorecard, a
    rounding, or the SVM_C start): "optimal" only when a bound proves it within ``DEFAULT_MIP_GAP``
    (what "optimal" means for every solve), else "feasible", with
    ``termination`` saying which. The status and termination of the ``model`` it solved on the way
    (the "relaxation", the "svm") stay in ``meta`` as ``<model>_status`` and ``<model>_termination``:
    an optimal relaxation or SVM is not an optimal scorecard."""
    meta = {**result.meta, f"{model}_status": result.meta["status"],
            f"{model}_termination": result.meta["termination"]}
    proven = meta["gap"] is not None and meta["gap"] <= DEFAULT_MIP_GAP
    meta["status"] = Status.OPTIMAL.value if proven else Status.FEASIBLE.value
    meta["termination"] = termination
    return StrategyResult(result.card, result.objective, result.reports, meta)


def _bound_counts(reports: list[SolveReport], M: np.ndarray) -> dict[str, int]:
    """How far ``feature_big_m`` got: ``bound_qps`` of its J + 1 QPs ran, ``bound_qps_solved`` of
    them to optimality (the first is LB's; each other solved one gives its feature its own M_j)."""
    return {"bound_qps": len(reports), "bound_qps_planned": len(M) + 1,
            "bound_qps_solved": sum(r.status is Status.OPTIMAL for r in reports)}


def _relaxation_solver(modeller: str, qp: str) -> str:
    """The QP solver of the CL-bigM relaxation in ``modeller`` when none is given."""
    if modeller == "cvxpy":
        return qp
    return available_solvers(ProblemClass.QP, "pyomo")[0]


def _exact(run: _Run, strategy: str, solver: str | None, options: dict[str, Any], modeller: str) -> StrategyResult:
    """clm (CL-bigM MIQP) or cl (CL MINLP), warm-started from SVM_C; never worse than that start."""
    inputs, budget = run.inputs, run.budget
    start = run.svm_c("start")
    upper = min(constant_upper_bound(inputs.data.y, run.C, inputs.data.weights), start.objective)
    extra: dict[str, Any] = {"start_objective": start.objective, "upper_bound": upper}
    bounds: list[float | None] = []
    solver = solver or "scip"
    if strategy == "clm":
        with budget.stage("bound"):
            M, lower, bound_reports = feature_big_m(inputs.data, run.C, upper, run.qp, budget.share(BOUND_SHARE))
        run.reports += bound_reports
        bounds.append(lower)
        extra.update(big_m=M.tolist(), big_m_max=float(max(M, default=0.0)), lower_bound=lower,
                     **_bound_counts(bound_reports, M))
    problem = bigm_model.problem_class() if strategy == "clm" else cl_model.problem_class()
    if budget.expired:
        report = SolveReport.not_run(solver, problem, "the time limit was reached before the model was built",
                                     options)
        run.reports.append(report)
        reason = "the time limit was reached before the exact model was built; the SVM_C start is returned"
        return _finish(run, start, report, bounds, "start", reason, {**extra, "model_objective": None})
    with budget.stage("build"):
        model = (bigm_model.build(inputs.data, run.C, M, modeller=modeller) if strategy == "clm"
                 else cl_model.build(inputs.data, run.C, modeller=modeller))
        model.set_start(list(start.card.assignment), list(start.card.cluster_scores),
                        start.card.numeric_coef, start.card.intercept)
    if solver == "scip":
        options = {**SCIP_DEFAULTS, **options}
    report = solve(model.model, model.problem_class, solver=solver, options=options, warm_start=True,
                   build_seconds=budget.seconds.get("build", 0.0), deadline=budget.deadline)
    budget.count_solve(report)
    run.reports.append(report)
    bounds.append(report.best_bound)
    extra["model_objective"] = report.objective
    choice = start_or_solver(report, report.objective if report.has_solution else None, start.objective, solver,
                             "the SVM_C start")
    if choice.use_start:
        fallback = "start" if choice.fallback_reason else None
        return _finish(run, start, report, bounds, fallback, choice.fallback_reason, extra)
    solution = model.solution()  # z_{j,0,0} is fixed to 1, so every assignment already starts in cluster 0
    card = Scorecard(solution.assignment, solution.cluster_scores, solution.omega_numeric, solution.b)
    return _finish(run, StrategyResult(card, float(report.objective)), report, bounds, None, "", extra)


def run_strategy(strategy: str, inputs: StrategyInputs, C: float, *, draws: int = 10, solver: str | None = None,
                 options: dict | None = None, rng: np.random.Generator | None = None,
                 modeller: str | None = None) -> StrategyResult:
    """Run one strategy; ``solver``/``options`` apply to its main model (see the module docstring),
    ``options["time_limit"]`` to all of it, and ``modeller`` builds its CL or CL-bigM model.

    Without clustered features there is nothing to cluster: every strategy is the SVM on x' (with
    the default QP solver and only the time limit when the strategy's own model is not a QP).
    Every model is built on the rows of positive weight (``ClusterData.support``).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; use one of {list(STRATEGIES)}")
    rng = rng if rng is not None else np.random.default_rng(0)
    inputs = StrategyInputs(inputs.design, inputs.data.support())
    scale = constant_upper_bound(inputs.data.y, C, inputs.data.weights)
    if 0 < scale < TINY_OBJECTIVE:
        warnings.warn(f"C={C:g} makes the objective (7) at most {scale:.3g} (the constant classifier's value), "
                      "within a hundred times the QP solvers' absolute tolerances (about 1e-8): objectives, "
                      "bounds and statuses are not reliable at that scale; use a larger C", UserWarning, stacklevel=3)
    options = check_unified(options)
    budget = TimeBudget(options.pop("time_limit", None))
    main_is_qp = strategy in ("svm-o", "svm-c")
    qp = solver if main_is_qp and solver is not None else _default_qp_solver()
    qp_options = options if main_is_qp else {"verbose": options["verbose"]}
    modeller = modeller or default_modeller(strategy) or "cvxpy"
    run = _Run(inputs, C, qp, qp_options, budget)
    try:
        if main_is_qp or not inputs.has_clusters:
            return _heuristic_svm(run, "svm-o" if strategy == "svm-o" or not inputs.has_clusters else "svm-c")
        if strategy in ROUNDING_STRATEGIES:
            return _rounding(run, strategy, draws, solver, options, modeller, rng)
        return _exact(run, strategy, solver, options, modeller)
    except _OutOfTime as stop:
        reason = f"{stop}; the constant classifier (omega = 0, b = +-1) is returned"
        return _finish(run, run.constant(), stop.report, [], "constant", reason, {})
