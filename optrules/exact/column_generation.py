"""Boolean rule sets by column generation (Dash, Günlük & Wei, NeurIPS 2018, Sections 2-3).

The rule set is a DNF over literals (``optrules.binarize``): each clause a conjunction of at most D
literals, the positive class predicted when a clause holds. The integer master (1)-(4)
(``models/rule_master.py``) selects clauses from the set of ALL such conjunctions; column generation
solves its LP relaxation over that set without listing it:

1. solve the master LP over the clauses generated so far (the restricted master), read its duals
   mu (positive rows) and lam (the complexity budget);
2. price: a clause k has reduced cost  rc_k = sum_{r in k} (n_r - mu_r) + (penalty + lam) c_k. A beam
   search over literals looks for clauses of negative reduced cost first; only when it finds none is
   the pricing solved exactly, by branch and bound over literal sets or as the pricing ILP (5)-(9)
   (``models/rule_pricing.py``) (``optrules.exact.rule_pricing``);
3. add the clauses found (a batch) and repeat, until the exact pricing proves min rc >= 0: then the
   restricted LP value is the LP optimum over every conjunction of at most D literals, a lower bound
   on every rule set of that space (*certified*);
4. solve the integer master over the generated clauses, warm-started by a greedy selection, in what
   is left of the time limit (the loop stops at ``LOOP_SHARE`` of it).

Bounds at a limit. Whenever the exact pricing has a lower bound rc_lb on the least reduced cost, the
master LP over all conjunctions is at least  z_RMP + W * min(0, rc_lb)  (Lagrangian bound; W bounds
the clauses of an optimal LP solution: C for a complexity budget C (every clause costs at least 1),
else the number of positive rows + 1, a basic optimum having at most that many positive w, each <= 1;
and z_RMP / penalty, every clause paying at least the penalty per unit of w in (1)).
That bound is certified too, whatever stopped the loop. When (1) takes integer values only (integer
row weights, as without sample weights or with integer ones, and an integer penalty) the bound is
rounded up. Without any exact pricing (a limit hit before it, or pricing on sampled rows / literals,
the paper's approximation for large data) there is no bound over all conjunctions: the result says
so, and gives the restricted LP value as the bound over the generated clauses only.

Sample weights enter through :class:`RuleProblem` alone (summed per distinct row); nothing else
assumes integer counts: the bound is rounded only when every row's summed weights are integers, W
counts distinct rows (not samples), and sampled pricing draws distinct rows uniformly, whatever their
weight.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from optrules.cover import CoverInstance
from optrules.exact.budget import TimeBudget
from optrules.exact.rule_pricing import RC_TOLERANCE, PricingResult, beam_pricing, search_pricing
from optrules.learners.selection import greedy_cover
from optrules.models import rule_pricing as pricing_model
from optrules.models.rule_master import RuleMaster
from optrules.solvers import SolveReport, SolverError, Status, relative_gap, solve
from optrules.solvers.options import check_unified

__all__ = ["PRICINGS", "RuleProblem", "ColumnGenerationResult", "column_generation", "rule_objective"]

#: How the loop prices once the beam search finds nothing: exactly, by branch and bound over literal
#: sets or by the pricing ILP (5)-(9) with a MILP solver; or not at all ("beam": the heuristic
#: column generation of AIX360's BooleanRuleCG, which stops there and proves no bound).
PRICINGS = ("search", "ilp", "beam")
#: With a time limit, the column generation stops at this share of it; the rest is the integer master's.
LOOP_SHARE = 0.8

@dataclass(frozen=True)
class RuleProblem:
    """The training data over distinct rows: the literal truth table of each distinct row and how
    many positives and negatives (or their summed sample weights) share it."""

    truth: np.ndarray
    pos: np.ndarray
    neg: np.ndarray

    @classmethod
    def from_samples(cls, matrix: np.ndarray, is_positive: np.ndarray,
                     weights: np.ndarray | None = None) -> RuleProblem:
        """Merge identical rows of the (samples x literals) ``matrix``: no clause can tell them apart.

        A distinct row holds the summed ``weights`` (one non-negative float per sample; None: 1
        each, the sums are then counts) of its positives and of its negatives. A distinct row of
        total weight 0 counts in no term of (1)-(4) and in no reduced cost, and is dropped: the
        problem is then the one of the samples of positive weight alone (same rows, digest and
        optimum), and pricing samples only rows that matter."""
        matrix = np.asarray(matrix, dtype=bool)
        weight = np.ones(matrix.shape[0]) if weights is None else np.asarray(weights, dtype=float)
        is_positive = np.asarray(is_positive, dtype=bool)
        if weight.shape != matrix.shape[:1]:
            raise ValueError(f"matrix has {matrix.shape[0]} rows but weights has shape {weight.shape}")
        if matrix.shape[1] == 0:
            inverse = np.zeros(matrix.shape[0], dtype=np.int64)
            unique = np.zeros((1 if matrix.shape[0] else 0, 0), dtype=bool)
        else:
            packed = np.packbits(matrix, axis=1)
            _, first, inverse = np.unique(packed, axis=0, return_index=True, return_inverse=True)
            inverse = np.asarray(inverse).ravel()
            unique = matrix[first]
        n = unique.shape[0]
        pos = np.bincount(inverse, weights=weight * is_positive, minlength=n)
        neg = np.bincount(inverse, weights=weight * ~is_positive, minlength=n)
        kept = (pos > 0) | (neg > 0)
        return cls(np.ascontiguousarray(unique[kept]), pos[kept], neg[kept])

    def digest(self, penalty: float, max_literals: int, max_complexity: float | None) -> str:
        """A fingerprint of the instance and the objective's parameters: fits with the same digest
        optimise (1)-(4) over the same space, so one's objective can be held against the other's bound."""
        h = hashlib.sha1()
        h.update(np.asarray(self.truth.shape, dtype=np.int64).tobytes())
        h.update(np.packbits(self.truth).tobytes())
        h.update(np.ascontiguousarray(np.concatenate([self.pos, self.neg]), dtype=np.float64).tobytes())
        h.update(np.array([penalty, max_literals, -1 if max_complexity is None else max_complexity]).tobytes())
        return h.hexdigest()[:16]

    @cached_property
    def truth_values(self) -> np.ndarray:
        """``truth`` as floats, for the pricing's products (made once per fit, not per iteration)."""
        return self.truth.astype(np.float64)

    @property
    def positive_rows(self) -> np.ndarray:
        """The rows with positives: the rows of the master's (2)."""
        return np.flatnonzero(self.pos > 0)

    def columns(self, clauses: list[tuple[int, ...]], penalty: float) -> tuple[sp.csc_matrix, np.ndarray, np.ndarray]:
        """The master's columns of ``clauses``: their cover of the positive rows, a_k and c_k."""
        cover = self.coverage(clauses)
        complexity = np.array([1.0 + len(c) for c in clauses])
        return sp.csc_matrix(cover[self.positive_rows]), self.neg @ cover + penalty * complexity, complexity

    def coverage(self, clauses: list[tuple[int, ...]]) -> np.ndarray:
        """(rows x clauses) coverage: a clause covers a row when every one of its literals holds."""
        out = np.ones((self.truth.shape[0], len(clauses)), dtype=bool)
        for k, clause in enumerate(clauses):
            if clause:
                out[:, k] = self.truth[:, list(clause)].all(axis=1)
        return out


def rule_objective(problem: RuleProblem, clauses: list[tuple[int, ...]], penalty: float) -> float:
    """(1) of a rule set: positives no clause covers, plus each clause's covered negatives and penalty * c_k."""
    if not clauses:
        return float(problem.pos.sum())
    cover = problem.coverage(clauses)
    uncovered = float(problem.pos[~cover.any(axis=1)].sum())
    return uncovered + float(problem.neg @ cover.sum(axis=1)) + penalty * sum(1 + len(c) for c in clauses)


@dataclass
class ColumnGenerationResult:
    """What a column-generation fit found and how sure it is (module docstring).

    ``clauses``: the selected clauses (tuples of literal indices); ``objective``: their value of (1);
    ``lp_value``: the last restricted master LP's value (a lower bound for rule sets of the generated
    clauses only); ``best_bound``: the best lower bound over
    every conjunction of at most D literals (None when none was proven); ``certified``: the exact
    pricing proved that no column improves the LP (then ``best_bound`` is the LP optimum over all
    conjunctions); ``bound_covers`` says in words what ``best_bound`` holds for.
    """

    clauses: list[tuple[int, ...]]
    objective: float
    lp_value: float | None
    best_bound: float | None
    certified: bool
    bound_covers: str
    report: SolveReport | None
    stop_reason: str
    gap: float | None = None
    fallback: str | None = None
    fallback_reason: str = ""
    start_objective: float | None = None
    iterations: int = 0
    n_columns: int = 0
    heuristic_pricing_calls: int = 0
    exact_pricing_calls: int = 0
    search_nodes: int = 0
    pricing_statuses: list[str] = field(default_factory=list)
    budget: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """``optimal`` only when the rule set is proven optimal over every conjunction of at most D
        literals (certified bound, gap 0); else ``feasible`` (any rule set, the empty one included,
        is a solution)."""
        return "optimal" if self.certified and self.gap == 0.0 else "feasible"

    def meta(self) -> dict[str, Any]:
        report = self.report
        return {"objective": self.objective, "status": self.status,
                "termination": "optimal" if self.status == "optimal" else self.stop_reason,
                "integer_master_status": report.status.value if report else "not_run",
                "integer_master_termination": report.termination if report else "", "best_bound": self.best_bound,
                "gap": self.gap, "certified": self.certified, "bound_covers": self.bound_covers,
                "lp_value": self.lp_value, "exact_pricing_statuses": list(self.pricing_statuses),
                "stop_reason": self.stop_reason, "fallback": self.fallback, "fallback_reason": self.fallback_reason,
                "start_objective": self.start_objective, "cg_iterations": self.iterations,
                "n_columns": self.n_columns, "heuristic_pricing_calls": self.heuristic_pricing_calls,
                "exact_pricing_calls": self.exact_pricing_calls, "search_nodes": self.search_nodes, **self.budget}


def _check_duals(mu: np.ndarray, lam: float, pos_weight: np.ndarray, max_complexity: float | None,
                 lp_value: float, solver: str) -> None:
    """Duals that do not satisfy strong duality (sum mu - C lam = the LP value, 0 <= mu <= p) would
    price wrongly and certify a wrong bound: refuse them."""
    dual_value = float(mu.sum()) - (0.0 if max_complexity is None else max_complexity * lam)
    tolerance = 1e-6 * max(1.0, abs(lp_value))
    if abs(dual_value - lp_value) > tolerance or (mu > pos_weight + tolerance).any():
        raise SolverError(f"{solver} returned LP duals that do not satisfy strong duality (dual value "
                          f"{dual_value:.6g}, LP value {lp_value:.6g}); column generation needs exact LP duals: "
                          "use highs (with either modeller) or another LP solver of cvxpy that returns them")


def _column_mass(W: float, lp_value: float, penalty: float) -> float:
    """A bound on sum_k w_k of an optimal solution of the LP over all clauses: ``W`` (rows or budget),
    or lp_value / penalty when smaller. An optimal solution's value z* is at most the restricted
    LP's value, and each clause pays at least penalty * c_k >= penalty per unit of w_k in (1) (a_k >= 0,
    c_k >= 1), so penalty * sum_k w_k <= z* <= lp_value."""
    return min(W, lp_value / penalty) if penalty > 0 else W


def _integral(problem: RuleProblem, penalty: float) -> bool:
    """True when (1) takes integer values only: integer row counts and an integer penalty."""
    weights = np.concatenate([problem.pos, problem.neg, [penalty]])
    return bool(np.all(weights == np.round(weights)))


def _greedy_start(master: RuleMaster) -> np.ndarray:
    """A feasible integer start: the greedy weighted set cover of the master's columns (the package's
    ``greedy_cover``: positives weigh 1, each clause costs a_k, within the complexity budget)."""
    instance = CoverInstance(master.cover.toarray() > 0, master.pos_weight, np.zeros(master.pos_weight.size),
                             master.cost, alpha=1.0)
    return greedy_cover(instance, size=master.complexity, budget=master.max_complexity,
                        budget_use=master.complexity)


def _sample(rng: np.random.Generator, n: int, size: int | None) -> np.ndarray:
    if size is None or size >= n:
        return np.arange(n)
    return np.sort(rng.choice(n, size=size, replace=False))


def _exact_pricing(pricing: str, truth: np.ndarray, gain: np.ndarray, kappa: float, max_literals: int, limit: int,
                   solver: str, options: dict[str, Any], deadline: float | None) -> tuple[PricingResult, str]:
    """The exact pricing by branch and bound or by the ILP; returns the result and a status word."""
    if pricing == "search":
        result = search_pricing(truth, gain, kappa, max_literals, limit, deadline)
        return result, "optimal" if result.complete else "time_limit"
    keep = np.flatnonzero(np.abs(gain) > 1e-12)  # rows of zero net cost play no part in (5)-(9)
    model = pricing_model.build(truth[keep], gain[keep], kappa, max_literals)
    report = solve(model.model, pricing_model.problem_class(), solver, options, deadline=deadline)
    clauses = []
    if report.has_solution and report.objective < -RC_TOLERANCE:
        clauses = [(tuple(model.chosen().tolist()), float(report.objective))]
    complete = report.status is Status.OPTIMAL
    return PricingResult(clauses, report.best_bound, complete), report.status.value


def column_generation(problem: RuleProblem, complexity_penalty: float, max_literals: int,
                      max_complexity: float | None = None, master_solver: str = "highs",
                      solver_options: dict | None = None, pricing: str = "search", pricing_solver: str = "highs",
                      pricing_options: dict | None = None, modeller: str = "pyomo", beam_width: int = 10,
                      columns_per_iteration: int = 10, max_iterations: int | None = None,
                      pricing_rows: int | None = None, pricing_literals: int | None = None,
                      random_state: int | None = 0) -> ColumnGenerationResult:
    """Column generation over every conjunction of at most ``max_literals`` literals (module docstring).

    ``solver_options["time_limit"]`` bounds the whole of it in wall time; its other options go to the
    master's solves. ``pricing``: the exact pricing, ``"search"`` (branch and bound) or ``"ilp"``
    ((5)-(9) solved by ``pricing_solver`` with ``pricing_options``, whose own ``time_limit`` caps
    one call; by default the master's options without the time limit when both use one solver).
    ``pricing_rows`` / ``pricing_literals``: price on a fresh random sample of that many rows /
    literals each iteration (the paper's approximation for large data); the bound is then not
    certified.
    """
    if pricing not in PRICINGS:
        raise ValueError(f"pricing must be one of {list(PRICINGS)}, got {pricing!r}")
    options = check_unified(solver_options)
    budget = TimeBudget(options.pop("time_limit", None))
    if pricing_options is None:
        pricing_options = dict(options) if pricing_solver == master_solver else {}
    pricing_options = check_unified(pricing_options)
    rng = np.random.default_rng(random_state)
    sampled = pricing_rows is not None or pricing_literals is not None
    positive_rows = problem.positive_rows
    n_rows, n_literals = problem.truth.shape
    master = RuleMaster(problem.pos[positive_rows], max_complexity, modeller)
    clauses: list[tuple[int, ...]] = []
    known: set[tuple[int, ...]] = set()
    # W bounds the sum of w in some optimal solution of the LP over all clauses (module docstring);
    # :func:`_column_mass` tightens it with each restricted LP value
    W = float(positive_rows.size + 1) if max_complexity is None else min(float(positive_rows.size + 1),
                                                                         float(max_complexity))

    def add(new: list[tuple[int, ...]]) -> int:
        new = [c for c in dict.fromkeys(new) if c not in known]
        if new:
            master.add_columns(*problem.columns(new, complexity_penalty))
            clauses.extend(new)
            known.update(new)
        return len(new)

    loop_deadline = budget.share(LOOP_SHARE)
    lp_value: float | None = None
    best_bound: float | None = None
    certified = False
    stop_reason = "iteration limit"
    iterations = heuristic_calls = exact_calls = search_nodes = 0
    statuses: list[str] = []
    while max_iterations is None or iterations < max_iterations:
        if loop_deadline is not None and time.perf_counter() >= loop_deadline:
            stop_reason = "time limit"
            break
        iterations += 1
        with budget.stage("master"):
            report = master.solve_lp(master_solver, options, loop_deadline)
        if report.status is not Status.OPTIMAL:
            stop_reason = ("time limit" if report.termination == "time_limit"
                           else f"master LP {report.status.value} ({report.termination})")
            break
        lp_value = report.objective
        mu_pos, lam = master.duals()
        _check_duals(mu_pos, lam, master.pos_weight, max_complexity, lp_value, master_solver)
        gain = problem.neg.copy()
        gain[positive_rows] -= mu_pos
        kappa = complexity_penalty + lam
        rows = _sample(rng, n_rows, pricing_rows)
        literals = _sample(rng, n_literals, pricing_literals)
        truth = problem.truth[np.ix_(rows, literals)] if sampled else problem.truth
        g = gain[rows]

        def in_full(clause: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(sorted(literals[list(clause)].tolist()))

        with budget.stage("pricing"):
            heuristic_calls += 1
            found = beam_pricing(truth, g, kappa, max_literals, beam_width, columns_per_iteration,
                                 None if sampled else problem.truth_values)
        if add([in_full(c) for c, _ in found.clauses]):
            continue
        if pricing == "beam":
            stop_reason = "the beam search found no improving column (heuristic pricing: no bound)"
            break
        if loop_deadline is not None and time.perf_counter() >= loop_deadline:
            stop_reason = "time limit"
            break
        with budget.stage("pricing"):
            exact_calls += 1
            exact, status = _exact_pricing(pricing, truth, g, kappa, max_literals, columns_per_iteration,
                                           pricing_solver, pricing_options, loop_deadline)
        statuses.append(status)
        search_nodes += exact.nodes
        if not sampled and exact.lower_bound is not None:
            bound = lp_value + _column_mass(W, lp_value, complexity_penalty) * min(0.0, exact.lower_bound)
            if bound > 0.0:  # (1) is never negative: a bound at or below 0 says nothing
                best_bound = bound if best_bound is None else max(best_bound, bound)
        if add([in_full(c) for c, _ in exact.clauses]):
            continue
        if exact.complete and not sampled:
            certified = True
            best_bound = lp_value if best_bound is None else max(best_bound, lp_value)
            stop_reason = "pricing proved no improving column"
        elif sampled:
            stop_reason = "no improving column on the sample"
        else:
            stop_reason = f"exact pricing stopped ({status})"
        break
    return _integer_master(problem, master, clauses, complexity_penalty, max_literals, master_solver, options,
                           budget, lp_value, best_bound, certified, stop_reason,
                           (iterations, heuristic_calls, exact_calls, search_nodes, statuses))


def _integer_master(problem: RuleProblem, master: RuleMaster, clauses: list[tuple[int, ...]], penalty: float,
                    max_literals: int, solver: str, options: dict[str, Any], budget: TimeBudget,
                    lp_value: float | None, best_bound: float | None, certified: bool, stop_reason: str, counts: tuple[int, int, int, list[str]]) -> ColumnGenerationResult:
    """Step 4: the integer master over the generated clauses, warm-started by the greedy selection."""
    master.set_integrality(True)
    start = _greedy_start(master)
    start_objective = rule_objective(problem, [clauses[k] for k in start.tolist()], penalty)
    final: SolveReport | None = None
    chosen, fallback, reason = start, None, ""
    if master.n_columns and budget.expired:
        fallback, reason = "start", "the time limit was reached before the integer master; the greedy selection is returned"
    elif master.n_columns:
        master.set_start(start)
        with budget.stage("integer_master"):
            final = solve(master.model, master.problem_class, solver, options, warm_start=True,
                          deadline=budget.deadline)
        if final.has_solution and final.objective <= start_objective + 1e-9 * max(1.0, abs(start_objective)):
            chosen = np.flatnonzero(master.values() > 0.5)
        else:
            fallback = "start"
            reason = (f"{solver} returned no better solution ({final.status.value}: {final.termination}); "
                      "the greedy selection over the generated clauses is returned")
    selected = [clauses[k] for k in chosen.tolist()]
    objective = rule_objective(problem, selected, penalty)
    if best_bound is not None and _integral(problem, penalty):
        best_bound = math.ceil(best_bound - 1e-6)  # every rule set's (1) is an integer then
    gap = relative_gap(objective, best_bound)
    if gap is not None and gap <= 1e-6:
        gap = 0.0
    if best_bound is None:
        covers = "only the generated clauses: no exact pricing over all rows and literals ran"
    elif certified:
        covers = f"every rule set of conjunctions of at most {max_literals} literals (pricing proved the LP optimal)"
    else:
        covers = (f"every rule set of conjunctions of at most {max_literals} literals (Lagrangian bound of "
                  "the last exact pricing; the LP over all of them was not solved to optimality)")
    iterations, heuristic_calls, exact_calls, search_nodes, statuses = counts
    return ColumnGenerationResult(
        selected, objective, lp_value, best_bound, certified, covers, final, stop_reason, gap=gap, fallback=fallback,
        fallback_reason=reason, start_objective=start_objective, iterations=iterations, n_columns=len(clauses),
        heuristic_pricing_calls=heuristic_calls, exact_pricing_calls=exact_calls, search_nodes=search_nodes,
        pricing_statuses=statuses, budget=budget.meta())
