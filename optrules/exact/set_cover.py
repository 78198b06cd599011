"""Exact rule selection: reduce the weighted set-cover instance, tighten it, warm-start, solve the ILP.

The model itself is ``optrules.models.set_cover`` (equations SC0-SC5). Here we only orchestrate,
inside the wall-clock budget of ``time_limit`` (``optrules.exact.budget``):

1. ``CoverInstance.reduce`` merges identical rows, drops duplicate/dominated candidates and folds
   rows covered by one candidate into costs (exact: the optimum and its value are unchanged);
2. the greedy weighted set cover on the reduced instance gives a feasible start, so a solver stopped
   at a limit still returns a selection at least as good as the heuristic's;
3. up to ``cut_rounds`` rounds of the LP relaxation add the most violated pair inequalities (SC5),
   which raise the relaxation's bound (german, 150 candidates: 70 -> 103 against an optimum of 115);
   the rounds stop once they have used half of the time left when they began;
4. the ILP is solved with what is left of the budget and the selection mapped back to the original
   candidates; when the solver claims an optimum that its returned point does not bear out
   (``optimum_not_verified``: HiGHS 1.16 once took the greedy start as optimal at a wrong value),
   it is solved once more without the start in what is left.

The result says what it is: the solver's status, the best bound known (the solver's, or the LP bound
after the cut rounds when that is higher), the gap of the returned selection to it, and a
``fallback`` when the returned selection is the greedy start rather than the solver's own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optrules.cover import CoverInstance
from optrules.exact.budget import TimeBudget
from optrules.exact.warm_start import start_or_solver
from optrules.learners.selection import greedy_cover
from optrules.models import set_cover as model
from optrules.solvers import ProblemClass, SolveReport, Status, relative_gap, solve
from optrules.solvers.options import check_unified

__all__ = ["CUT_SHARE", "REDUCE_SHARE", "SetCoverResult", "solve_set_cover", "violated_pairs"]

#: Separation multiplies a (positive rows x candidates) by a (candidates x negative rows) matrix per
#: round; above this many multiply-adds we skip the cut rounds and solve (SC0)-(SC4) directly.
SEPARATION_WORK_LIMIT = 2e10
#: The cut rounds stop once they have used this share of the time left when they began.
CUT_SHARE = 0.5
#: The reduction's dominance test (optional work: it only shrinks the model) stops at this share of the budget.
REDUCE_SHARE = 0.25


@dataclass(frozen=True)
class SetCoverResult:
    """Chosen candidates (original indices), their objective on the original instance, and how sure it is.

    ``report`` is the final solve's. ``best_bound`` is the best lower bound known on the optimum
    (the solver's dual bound, or the LP bound after the cut rounds, ``root_bound``, when higher;
    the optimum itself when proven) and ``gap`` the returned selection's relative gap to it.
    ``fallback`` is None when ``selected`` is the solver's own solution, ``"start"`` when it is the
    greedy start (the solver found nothing better before it stopped, or failed), with the reason
    in ``fallback_reason``. ``n_cuts`` counts the (SC5) inequalities added; ``budget`` holds the
    seconds of each stage (``TimeBudget.meta``).
    """

    selected: np.ndarray
    objective: float
    report: SolveReport
    n_rows: int
    n_candidates: int
    best_bound: float | None = None
    gap: float | None = None
    fallback: str | None = None
    fallback_reason: str = ""
    start_objective: float | None = None
    n_cuts: int = 0
    root_bound: float | None = None
    budget: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> Status:
        return self.report.status

    def meta(self, objective: float | None = None) -> dict[str, Any]:
        """The figures a fit records in ``Ruleset.meta``: objective, status, bound, gap, fallback and
        the seconds of each stage. ``objective``: the value of what the fit finally returns, when it
        changed the selection afterwards (the gap is then that value's)."""
        objective = self.objective if objective is None else float(objective)
        gap = relative_gap(objective, self.best_bound)
        return {"objective": objective, "status": self.report.status.value, "termination": self.report.termination,
                "best_bound": self.best_bound, "gap": 0.0 if gap is not None and gap <= 1e-6 else gap,
                "fallback": self.fallback,
                "fallback_reason": self.fallback_reason, "start_objective": self.start_objective,
                "n_cuts": self.n_cuts, "root_bound": self.root_bound, **self.budget}


def violated_pairs(instance: CoverInstance, x: np.ndarray, u: np.ndarray, v: np.ndarray,
                   limit: int, tolerance: float = 1e-4, chunk_cells: int = 4_000_000,
                   deadline: float | None = None, coverage: np.ndarray | None = None) -> np.ndarray:
    """The ``limit`` most violated (positive row k, negative row i) inequalities (SC5) at (x, u, v),
    as a (pairs, 2) array, most violated first.

    Violation = 1 - v_i - u_k - x(J(k)) + x(J(k) and J(i)); all pairs are scored by one matrix
    product per chunk of positive rows. At ``deadline`` (a ``time.perf_counter()`` instant) the
    chunks stop: the pairs of the chunks scored so far are returned. ``coverage``: the instance's
    coverage as floats, when the caller has it already.
    """
    coverage = instance.coverage.astype(float) if coverage is None else coverage
    pos_rows = np.flatnonzero(instance.pos_weight > 0)
    neg_rows = np.flatnonzero(instance.neg_weight > 0)
    if pos_rows.size == 0 or neg_rows.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    neg_cover = coverage[neg_rows].T  # candidates x negative rows
    step = max(1, chunk_cells // max(neg_rows.size, 1))
    scores, pairs_k, pairs_i = [], [], []
    for start in range(0, pos_rows.size, step):
        if deadline is not None and start and time.perf_counter() >= deadline:
            break
        rows = pos_rows[start:start + step]
        weighted = coverage[rows] * x[None, :]
        violation = (1 - u[rows][:, None] - weighted.sum(axis=1)[:, None] - v[neg_rows][None, :]
                     + weighted @ neg_cover)
        k, i = np.nonzero(violation > tolerance)
        if k.size > limit:  # keep only this chunk's worst before merging
            keep = np.argpartition(-violation[k, i], limit)[:limit]
            k, i = k[keep], i[keep]
        scores.append(violation[k, i])
        pairs_k.append(rows[k])
        pairs_i.append(neg_rows[i])
    score = np.concatenate(scores)
    order = np.argsort(-score, kind="stable")[:limit]
    return np.column_stack([np.concatenate(pairs_k)[order], np.concatenate(pairs_i)[order]]).astype(np.int64)


def _tighten(m: model.SetCoverModel, instance: CoverInstance, solver: str, options: dict[str, Any],
             rounds: int, per_round: int, deadline: float | None) -> tuple[int, float | None]:
    """Cut rounds on the LP relaxation until ``deadline``; returns (cuts added, last LP bound)."""
    rows, pos, neg = instance.coverage.shape[0], (instance.pos_weight > 0).sum(), (instance.neg_weight > 0).sum()
    if rounds <= 0 or pos * neg * instance.n_candidates > SEPARATION_WORK_LIMIT or rows == 0:
        return 0, None
    added, bound = 0, None
    coverage = instance.coverage.astype(float)
    m.set_integrality(False)
    for _ in range(rounds):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        report = solve(m.model, ProblemClass.LP, solver=solver, options=options, deadline=deadline)
        if report.status is not Status.OPTIMAL:
            break
        if bound is not None and report.objective - bound <= 1e-6 * max(1.0, abs(bound)):
            bound = report.objective
            break
        bound = report.objective
        u, v = m.row_values()
        pairs = violated_pairs(instance, m.solution().x, u, v, per_round, deadline=deadline, coverage=coverage)
        if not len(pairs):
            break
        m.add_pair_cuts(pairs)
        added += len(pairs)
    m.set_integrality(True)
    return added, bound


def _not_run_result(instance: CoverInstance, reduced: Any, start: np.ndarray, solver: str, problem: ProblemClass,
                    options: dict[str, Any], budget: TimeBudget, note: str) -> SetCoverResult:
    selected = np.sort(reduced.columns[start])
    objective = instance.objective(selected)
    report = SolveReport.not_run(solver, problem, note, options)
    reason = f"{note}; the greedy start is returned"
    return SetCoverResult(selected, objective, report, reduced.instance.coverage.shape[0],
                          reduced.instance.n_candidates, None, None, "start", reason, objective,
                          budget=budget.meta())


def solve_set_cover(instance: CoverInstance, max_rules: int | None = None, solver: str = "highs",
                    solver_options: dict | None = None, relax: bool = False,
                    size: np.ndarray | None = None, cut_rounds: int = 10,
                    cuts_per_round: int = 2000, modeller: str = model.DEFAULT_MODELLER) -> SetCoverResult:
    """Solve the set-cover ILP (or, with ``relax=True``, its LP relaxation) of ``instance`` exactly.

    ``solver_options["time_limit"]`` is the wall-clock budget of everything here (see the module
    docstring); the other options go to every solve. ``cut_rounds=0`` solves (SC0)-(SC4) as they
    are; the relaxation (``relax=True``) never gets cuts, so it is the plain LP bound of the
    formulation. ``modeller`` builds the model with Pyomo (``MatrixConstraint`` blocks) or cvxpy;
    ``"auto"`` takes the faster layer for ``solver`` (:func:`optrules.models.set_cover.resolve_modeller`).
    """
    options = check_unified(solver_options)
    modeller = model.resolve_modeller(modeller, solver)
    budget = TimeBudget(options.pop("time_limit", None))
    problem = model.problem_class(relax)
    with budget.stage("build"):
        reduced = instance.reduce(deadline=budget.share(REDUCE_SHARE))
        small = reduced.instance
        small_size = None if size is None else np.asarray(size)[reduced.columns]
        start = greedy_cover(small, max_rules=max_rules, size=small_size)  # the MIP start
    start_objective = small.objective(start)
    if small.n_candidates == 0:
        # Nothing to decide: every candidate was useless, so the empty selection is optimal.
        report = SolveReport(solver="none", solver_version="", problem_class=problem, status=Status.OPTIMAL,
                             termination="no candidate left after reduction", objective=small.constant,
                             best_bound=small.constant, gap=0.0, solve_seconds=0.0,
                             build_seconds=budget.elapsed(), options={})
        objective = instance.objective([])
        return SetCoverResult(np.zeros(0, int), objective, report, 0, 0, objective, 0.0,
                              start_objective=objective, budget=budget.meta())
    if budget.expired:
        return _not_run_result(instance, reduced, start, solver, problem, options, budget,
                               "the time limit was reached before the model was built")
    with budget.stage("build"):
        m = model.build(small, max_rules=max_rules, relax=relax, modeller=modeller)
    build_seconds = budget.seconds["build"]
    n_cuts, root_bound = 0, None
    if not relax:
        with budget.stage("cut"):
            n_cuts, root_bound = _tighten(m, small, solver, options, cut_rounds, cuts_per_round,
                                          budget.share(CUT_SHARE))
        m.set_start(start)
    if budget.expired:
        return _not_run_result(instance, reduced, start, solver, problem, options, budget,
                               "the time limit was reached in the cut rounds, before the final solve")
    report = solve(m.model, m.problem_class, solver=solver, options=options, warm_start=not relax,
                   build_seconds=build_seconds, deadline=budget.deadline)
    budget.count_solve(report)
    first_bound = None
    if report.termination == "optimum_not_verified" and not budget.expired:
        # the solver's claimed optimum did not hold for the point it returned (seen with HiGHS 1.16 and
        # the greedy start): once more without the start, whose incumbent is returned anyway if better;
        # the first solve's bound stays valid and is kept when it is the stronger
        first_bound = report.best_bound
        report = solve(m.model, m.problem_class, solver=solver, options=options, warm_start=False,
                       build_seconds=build_seconds, deadline=budget.deadline)
        budget.count_solve(report)
    if relax:
        objective = report.objective if report.has_solution else None
        selected = np.sort(reduced.columns[model.extract(m).selected]) if report.has_solution else np.zeros(0, int)
        return SetCoverResult(selected, objective, report, small.coverage.shape[0], small.n_candidates,
                              report.best_bound, report.gap, start_objective=start_objective, budget=budget.meta())
    own = model.extract(m).selected if report.has_solution else None
    own_objective = small.objective(own) if own is not None else None
    choice = start_or_solver(report, own_objective, start_objective, solver, "the greedy start")
    reason = choice.fallback_reason
    chosen, fallback = (start if choice.use_start else own), ("start" if reason else None)
    selected = np.sort(reduced.columns[chosen])
    objective = instance.objective(selected)
    bounds = [b for b in (report.best_bound, first_bound, root_bound) if b is not None]  # all bound the reduced
    best_bound = max(bounds) if bounds else None                             # instance's optimum = this one's
    gap = relative_gap(objective, best_bound)
    if gap is not None and gap <= 1e-6:
        gap = 0.0
    return SetCoverResult(selected, objective, report, small.coverage.shape[0], small.n_candidates, best_bound,
                          gap, fallback, reason, start_objective, n_cuts, root_bound, budget.meta())
