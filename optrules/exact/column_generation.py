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
   (``models/rule_pricing.py``) (``optrules.exact.rule_pricing``); every exact pricing gives a
   Lagrangian bound (below);
3. add the clauses found (a batch) and repeat, until the exact pricing proves min rc >= 0 or the
   best Lagrangian bound reaches the restricted LP value: then that value is the LP optimum over
   every conjunction of at most D literals, a lower bound on every rule set of that space
   (*certified*, below);
4. solve the integer master over the generated clauses, warm-started by a greedy selection, in what
   is left of the time limit (the loop stops at ``LOOP_SHARE`` of it).

Lagrangian bounds. Let (xi*, w*) be an optimal solution of the LP over ALL clauses, of value z*.
For any duals 0 <= mu_r <= p_r and lam >= 0 (with C = 0 and lam = 0 without a budget), adding the
non-positive terms mu_r (1 - xi*_r - sum_{k covering r} w*_k) and lam (sum_k c_k w*_k - C) to z* gives

    z* >= sum_r mu_r - C lam + sum_r (p_r - mu_r) xi*_r + sum_k rc_k w*_k
       >= sum_r mu_r - C lam + sum_k rc_k w*_k,        rc_k = a_k + lam c_k - sum_{r in k} mu_r,

(p_r - mu_r >= 0, xi* >= 0). Two lower bounds on the last sum make it a bound at any such duals, not
only the restricted master's (every exact pricing's point, smoothed or not, :class:`PricedPoint`):

- with rc_lb <= every rc_k (the exact pricing's lower bound) and W >= sum_k w*_k:
  sum_k rc_k w*_k >= W min(0, rc_lb). W bounds the clauses of an optimal LP solution: C for a
  complexity budget C (every clause costs at least 1), else the number of positive rows + 1 (a
  basic optimum has at most that many positive w, each <= 1 in some optimum since a_k >= 0); and
  z_RMP / penalty, every clause paying at least the penalty per unit of w in (1) while
  sum_k a_k w*_k <= z* <= z_RMP (:func:`_column_mass`). It holds for some optimal solution; the
  other facts used hold for every one;
- (Farley's bound in Lagrangian form) when the pricing shows that every clause has rc_k >= R or
  rc_k >= rho q_k, with rho <= 0 and 0 < q_k <= a_k + lam c_k (``PricingResult.ratio`` and
  ``rest_bound``): rc_k w*_k >= (rho q_k + min(0, R)) w*_k, so sum_k rc_k w*_k >=
  rho (z_RMP + lam C) + W min(0, R), since sum_k (a_k + lam c_k) w*_k <= z* + lam C. The clauses
  that bind here cover many negatives (a_k large) and violate their dual constraint by a small
  share of a_k: on noisy data this bound is far closer to z* than the first near the end.

The bound reported is the best of these over all exact pricings, and only when above 0 (the
trivial bound of (1)). When (1) takes integer values only (integer row weights, as without sample
weights or with integer ones, and an integer penalty) it is rounded up. Without any exact pricing (a
limit hit before it, or pricing on sampled rows / literals, the paper's approximation for large
data) there is no bound over all conjunctions: the result says so, and gives the restricted LP value
as the bound over the generated clauses only.

Certified. The loop stops with a certified bound in one of two ways, which ``stop_reason`` and
``bound_covers`` name: (a) the exact pricing at the restricted master's duals proves that no clause
has a reduced cost below -``RC_TOLERANCE`` (the paper's stop: the restricted LP value is the LP
optimum over all clauses, the bound reported); (b) the best Lagrangian bound reaches the restricted
LP value z_RMP, which is at least z*: within ``DUALITY_TOLERANCE`` relative (the precision to which
the loop trusts HiGHS' LP value and duals, :func:`_check_duals`), or, when (1) is integral, once the
bound rounded up is at least z_RMP, so that it equals ceil(z*), the most any LP bound can prove.
In (b) the bound reported is the Lagrangian bound itself (proven), not z_RMP. Either way the bound
is the LP optimum over all conjunctions (to those tolerances) and holds for every rule set of the
space.

Dual stabilisation (``smoothing``; off by default, as measured: docs/methods/column_generation.md).
On noisy data the master LP is dual degenerate: its value reaches z* early and pricing at its
(extreme, jumping) duals keeps finding clauses of negative reduced cost that enter at level 0 and
only move the duals. With ``smoothing`` set, two things change:

- the master's duals are first spread evenly over each class of positive rows the generated clauses
  cover alike (:func:`_class_uniform`), another optimal dual of the restricted master;
- Wentges' smoothing (Wentges 1997, :class:`DualSmoothing`) prices (beam search and exact pricing)
  at  pi_sep = alpha pi_centre + (1 - alpha) pi_RMP, the stability centre pi_centre being the
  exactly priced point of the best positive Lagrangian bound so far (none at first: the master's
  duals are priced until there is one). A clause found there with a negative reduced cost at
  pi_RMP enters the master. When none has (a mis-pricing), the first Lagrangian bound L_W at pi_sep
  is at least alpha L_W(pi_centre) + (1 - alpha) z_RMP - W RC_TOLERANCE (the dual value and every
  reduced cost are affine in the duals, and the best clause at pi_sep prices at least
  -RC_TOLERANCE at pi_RMP; Pessoa, Sadykov, Uchoa & Vanderbeck 2018): the gap to z_RMP shrinks by
  alpha, and the next pricing uses a smaller alpha, [1 - k (1 - alpha)]^+ after k mis-pricings, down
  to the master's own duals (where a pricing that finds nothing is stop (a)).
  ``smoothing="auto"`` adjusts alpha after each iteration by the angle between a subgradient at
  pi_sep and the direction to pi_RMP (Pessoa et al.'s self-adjusting smoothing); a number fixes
  alpha; None (or 0) prices the duals the master LP returns.

It needs Lagrangian bounds, so it applies only with an exact pricing over all rows and literals.

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
from optrules.exact.warm_start import start_or_solver
from optrules.learners.selection import greedy_cover
from optrules.models import rule_pricing as pricing_model
from optrules.models.rule_master import RuleMaster
from optrules.solvers import SolveReport, SolverError, Status, relative_gap, solve
from optrules.solvers.options import check_unified
from optrules.threads import one_blas_thread

__all__ = ["PRICINGS", "SMOOTHING", "RuleProblem", "ColumnGenerationResult", "column_generation", "rule_objective"]

#: How the loop prices once the beam search finds nothing: exactly, by branch and bound over literal
#: sets or by the pricing ILP (5)-(9) with a MILP solver; or not at all ("beam": the heuristic
#: column generation of AIX360's BooleanRuleCG, which stops there and proves no bound).
PRICINGS = ("search", "ilp", "beam")
#: With a time limit, the column generation stops at this share of it; the rest is the integer master's.
LOOP_SHARE = 0.8
#: Relative tolerance of the LP's strong duality (:func:`_check_duals`) and of a Lagrangian bound
#: that proves the restricted LP value optimal (:func:`_reaches`).
DUALITY_TOLERANCE = 1e-6
#: A bound b of an integral (1) is rounded up to ceil(b - this): no rounding error lifts it past an integer.
INTEGRAL_TOLERANCE = 1e-6
#: The default of ``smoothing``: off, as measured (docs/methods/column_generation.md, "Noisy data").
SMOOTHING: float | str | None = None
#: Pessoa et al.'s self-adjusting alpha starts here.
AUTO_ALPHA_START = 0.5
#: After this many mis-pricings at one master solution, its own duals are priced.
MAX_MISPRICES = 10
#: The stop reason when a Lagrangian bound reaches the restricted LP value.
LAGRANGIAN_STOP = "the Lagrangian bound reached the restricted LP value"


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
    every conjunction of at most D literals (None when none was proven); ``certified``: the LP over
    all conjunctions was solved, by either certificate of the module docstring (the exact pricing at
    the master's duals found no improving column, or a Lagrangian bound reached the restricted LP
    value): ``best_bound`` is then the LP optimum over all conjunctions (rounded up when (1) is
    integral); ``bound_covers`` says in words what ``best_bound`` holds for and which certificate
    proved it. ``mispricings``: smoothed pricings whose clauses could not enter the master;
    ``lagrangian_bounds``: the Lagrangian bound of every exact pricing, in order (unrounded).
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
    mispricings: int = 0
    lagrangian_bounds: list[float] = field(default_factory=list)
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
                "exact_pricing_calls": self.exact_pricing_calls, "search_nodes": self.search_nodes,
                "mispricings": self.mispricings, "lagrangian_bounds": list(self.lagrangian_bounds), **self.budget}


def _check_duals(mu: np.ndarray, lam: float, pos_weight: np.ndarray, max_complexity: float | None,
                 lp_value: float, solver: str) -> None:
    """Duals that do not satisfy strong duality (sum mu - C lam = the LP value, 0 <= mu <= p) would
    price wrongly and certify a wrong bound: refuse them."""
    dual_value = float(mu.sum()) - (0.0 if max_complexity is None else max_complexity * lam)
    tolerance = DUALITY_TOLERANCE * max(1.0, abs(lp_value))
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
                   solver: str, options: dict[str, Any], deadline: float | None,
                   tighten: bool) -> tuple[PricingResult, str]:
    """The exact pricing by branch and bound (``tighten``: :func:`search_pricing`'s) or by the ILP;
    returns the result and a status word."""
    if pricing == "search":
        result = search_pricing(truth, gain, kappa, max_literals, limit, deadline, tighten)
        return result, "optimal" if result.complete else "time_limit"
    keep = np.flatnonzero(np.abs(gain) > 1e-12)  # rows of zero net cost play no part in (5)-(9)
    model = pricing_model.build(truth[keep], gain[keep], kappa, max_literals)
    report = solve(model.model, pricing_model.problem_class(), solver, options, deadline=deadline)
    clauses = []
    if report.has_solution and report.objective < -RC_TOLERANCE:
        clauses = [(tuple(model.chosen().tolist()), float(report.objective))]
    complete = report.status is Status.OPTIMAL
    return PricingResult(clauses, report.best_bound, complete), report.status.value


@dataclass(frozen=True)
class DualPoint:
    """Duals of the master: mu_r of (2) for each positive row, lam of (3) (0 without a budget)."""

    mu: np.ndarray
    lam: float

    def value(self, max_complexity: float | None) -> float:
        """The dual objective sum_r mu_r - C lam."""
        return float(self.mu.sum()) - (0.0 if max_complexity is None else max_complexity * self.lam)

    def toward(self, other: DualPoint, alpha: float) -> DualPoint:
        """alpha * self + (1 - alpha) * other (Wentges' smoothed point, self the stability centre)."""
        return DualPoint(alpha * self.mu + (1.0 - alpha) * other.mu, alpha * self.lam + (1.0 - alpha) * other.lam)


@dataclass(frozen=True)
class PricedPoint:
    """A dual point priced exactly, with what the pricing proved there (:class:`PricingResult`):
    ``lower`` bounds every reduced cost; ``ratio`` / ``rest`` (None from the ILP) give the
    alternative rc_k >= rest or rc_k >= ratio q_k of every clause."""

    point: DualPoint
    lower: float
    ratio: float | None = None
    rest: float | None = None

    def bound(self, mass: float, lp_value: float, max_complexity: float | None) -> float:
        """The Lagrangian bounds of the module docstring at this point, the better of the two: a lower
        bound on the LP over every clause, with ``mass`` (W) bounding sum_k w_k in some optimal
        solution and ``lp_value`` (z_RMP) at least the LP optimum."""
        value = self.point.value(max_complexity)
        bound = value + mass * min(0.0, self.lower)
        if self.ratio is not None and self.rest is not None:
            weight = lp_value + (0.0 if max_complexity is None else max_complexity * self.point.lam)
            bound = max(bound, value + weight * min(0.0, self.ratio) + mass * min(0.0, self.rest))
        return bound


class DualSmoothing:
    """Wentges' smoothing of the duals priced (Wentges 1997), with the mis-pricing schedule and the
    self-adjusting alpha of Pessoa, Sadykov, Uchoa & Vanderbeck (2018) (module docstring).

    The stability centre is the exactly priced point of the best positive Lagrangian bound so far
    (kept with what its pricing proved, so that its bound is re-evaluated with each smaller W and
    z_RMP); until there is one, the master's duals are priced. ``alpha``: "auto" (starts at
    ``AUTO_ALPHA_START`` and adjusts itself after every iteration) or a fixed number in [0, 1).
    """

    def __init__(self, alpha: float | str, max_complexity: float | None) -> None:
        self.auto = alpha == "auto"
        self.alpha = AUTO_ALPHA_START if self.auto else float(alpha)
        self.max_complexity = max_complexity
        self.centre: PricedPoint | None = None

    def centre_bound(self, mass: float, lp_value: float) -> float:
        return -math.inf if self.centre is None else self.centre.bound(mass, lp_value, self.max_complexity)

    def alpha_at(self, misprices: int) -> float:
        """The alpha of the pricing after ``misprices`` mis-pricings at one master solution: [1 - k (1 -
        alpha)]^+ for the k-th pricing (Pessoa et al.'s schedule), 0 after ``MAX_MISPRICES``; each
        mis-pricing thus moves the priced point toward the master's duals, which it reaches."""
        if misprices >= MAX_MISPRICES or self.centre is None:
            return 0.0
        return max(0.0, 1.0 - (misprices + 1) * (1.0 - self.alpha))

    def point(self, out: DualPoint, alpha: float) -> DualPoint:
        """The point priced: alpha * centre + (1 - alpha) * the master's duals ``out``."""
        return out if alpha == 0.0 else self.centre.point.toward(out, alpha)

    def offer(self, priced: PricedPoint, mass: float, lp_value: float) -> None:
        """A point priced exactly becomes the centre when its Lagrangian bound is positive and beats
        the centre's."""
        if priced.bound(mass, lp_value, self.max_complexity) > max(0.0, self.centre_bound(mass, lp_value)):
            self.centre = priced

    def adjust(self, out: DualPoint, cover: np.ndarray, complexity: float, rc: float, mass: float) -> None:
        """Pessoa et al.'s self-adjusting alpha, after an iteration whose pricing at the smoothed point
        found the clause of reduced cost ``rc`` there, covering the positive rows ``cover`` (bool):
        that clause at multiplicity W (0 when rc >= 0) minimises the Lagrangian there, so

            g_r = 1 - W [r covered],  g_lam = W c_k - C

        is a subgradient. When g points toward the master's duals (g . (out - centre) > 0), the bound
        grows that way: alpha decreases by 0.1; otherwise it increases by a tenth of 1 - alpha."""
        if not self.auto or self.centre is None:
            return
        d_mu, d_lam = out.mu - self.centre.point.mu, out.lam - self.centre.point.lam
        if not d_mu.any() and d_lam == 0.0:
            return
        w = mass if rc < 0.0 else 0.0
        slope = float(d_mu.sum()) - w * float(d_mu[cover].sum())
        if self.max_complexity is not None:
            slope += d_lam * (w * complexity - self.max_complexity)
        self.alpha = max(0.0, self.alpha - 0.1) if slope > 0.0 else self.alpha + 0.1 * (1.0 - self.alpha)


def _class_uniform(cover: sp.csc_matrix, mu: np.ndarray, pos_weight: np.ndarray) -> np.ndarray:
    """Among the restricted master's optimal duals, the one uniform (per unit of p_r) over each class
    of positive rows that the generated clauses cover alike.

    Rows r, r' covered by the same clauses appear in every constraint of the restricted master's
    dual together (besides mu_r <= p_r), so moving dual value between them keeps it feasible and
    optimal (that is dynamic constraint aggregation's view of such rows, Elhallaoui, Villeneuve,
    Soumis & Desaulniers 2005). The simplex returns an extreme point, which puts a class's value on
    few of its rows; the clauses that collect those rows then price as improving only because of
    that choice. A class is found from two random projections of its rows' clause sets (equal sets
    give equal sums; the certificates do not depend on the classes: every bound is a Lagrangian
    bound at the point priced, whatever it is)."""
    keys = cover.tocsr().sorted_indices() @ np.random.default_rng(0).random((cover.shape[1], 2))
    inverse = np.asarray(np.unique(keys, axis=0, return_inverse=True)[1]).ravel()
    share = np.bincount(inverse, weights=mu) / np.bincount(inverse, weights=pos_weight)
    return np.minimum(pos_weight * share[inverse], pos_weight)


def _reaches(bound: float | None, lp_value: float, integral: bool) -> bool:
    """True when the Lagrangian ``bound`` proves the restricted LP value optimal over all clauses (module
    docstring): within ``DUALITY_TOLERANCE`` (relative), the precision of the duals' strong-duality
    check, or, when (1) takes integer values only, when the bound rounded up is at least the LP value
    (every rule set's (1) is then at least ceil(LP value), which no further column could change)."""
    if bound is None:
        return False
    tolerance = DUALITY_TOLERANCE * max(1.0, abs(lp_value))
    if integral:
        bound = math.ceil(bound - INTEGRAL_TOLERANCE)
    return bound >= lp_value - tolerance


@dataclass
class _Progress:
    """The loop's counts and bounds."""

    iterations: int = 0
    heuristic_calls: int = 0
    exact_calls: int = 0
    search_nodes: int = 0
    misprices: int = 0
    statuses: list[str] = field(default_factory=list)
    bounds: list[float] = field(default_factory=list)
    best_bound: float | None = None
    #: :func:`search_pricing`'s mode: cut by the best reduced cost (fast) until a bound at the last
    #: point priced could be positive, then evaluate every improving clause (for the ratio bound)
    tighten: bool = True

    def improve(self, bound: float, certified: bool = False) -> None:
        """A proven bound; only one above 0 (the trivial bound of (1)) says something, unless it is the
        LP optimum ``certified`` by the pricing (then 0 is the optimum of (1) itself)."""
        if bound > 0.0 or certified:
            self.best_bound = bound if self.best_bound is None else max(self.best_bound, bound)


def column_generation(problem: RuleProblem, complexity_penalty: float, max_literals: int,
                      max_complexity: float | None = None, master_solver: str = "highs",
                      solver_options: dict | None = None, pricing: str = "search", pricing_solver: str = "highs",
                      pricing_options: dict | None = None, modeller: str = "pyomo", beam_width: int = 10,
                      columns_per_iteration: int = 10, max_iterations: int | None = None,
                      pricing_rows: int | None = None, pricing_literals: int | None = None,
                      random_state: int | None = 0,
                      smoothing: float | str | None = SMOOTHING) -> ColumnGenerationResult:
    """Column generation over every conjunction of at most ``max_literals`` literals (module docstring).

    ``solver_options["time_limit"]`` bounds the whole of it in wall time; its other options go to the
    master's solves. ``pricing``: the exact pricing, ``"search"`` (branch and bound) or ``"ilp"``
    ((5)-(9) solved by ``pricing_solver`` with ``pricing_options``, whose own ``time_limit`` caps
    one call; by default the master's options without the time limit when both use one solver).
    ``pricing_rows`` / ``pricing_literals``: price on a fresh random sample of that many rows /
    literals each iteration (the paper's approximation for large data); the bound is then not
    certified. ``smoothing``: dual stabilisation (module docstring), ``"auto"`` (Wentges smoothing
    with Pessoa et al.'s self-adjusting alpha), a fixed alpha in [0, 1), or None (or 0): the duals
    HiGHS returns are priced as they are. It applies only with an exact pricing over all rows and
    literals (it needs Lagrangian bounds).
    """
    if pricing not in PRICINGS:
        raise ValueError(f"pricing must be one of {list(PRICINGS)}, got {pricing!r}")
    if not (smoothing is None or smoothing == "auto" or (isinstance(smoothing, (int, float))
                                                        and not isinstance(smoothing, bool) and 0 <= smoothing < 1)):
        raise ValueError(f"smoothing must be 'auto', a number in [0, 1) or None, got {smoothing!r}")
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
    smoother = (DualSmoothing(smoothing, max_complexity)
                if smoothing not in (None, 0) and pricing != "beam" and not sampled else None)
    integral = _integral(problem, complexity_penalty)
    clauses: list[tuple[int, ...]] = []
    known: set[tuple[int, ...]] = set()
    # W bounds the sum of w in some optimal solution of the LP over all clauses (module docstring);
    # :func:`_column_mass` tightens it with each restricted LP value
    W = float(positive_rows.size + 1) if max_complexity is None else min(float(positive_rows.size + 1),
                                                                         float(max_complexity))
    loop_deadline = budget.share(LOOP_SHARE)
    progress = _Progress()

    def add(new: list[tuple[int, ...]]) -> int:
        new = [c for c in dict.fromkeys(new) if c not in known]
        if new:
            master.add_columns(*problem.columns(new, complexity_penalty))
            clauses.extend(new)
            known.update(new)
        return len(new)

    def entering(found: list[tuple[tuple[int, ...], float]], out: DualPoint, alpha: float) -> list[tuple[int, ...]]:
        """The clauses found that have a negative reduced cost at the master's duals ``out`` (all of
        them when they were priced there)."""
        if alpha == 0.0 or not found:
            return [clause for clause, _ in found]
        chosen = [clause for clause, _ in found]
        gain = problem.neg.copy()
        gain[positive_rows] -= out.mu
        rc = gain @ problem.coverage(chosen) + (complexity_penalty + out.lam) * np.array([1.0 + len(c) for c in chosen])
        return [clause for clause, value in zip(chosen, rc.tolist()) if value < -RC_TOLERANCE]

    def adjust(found: list[tuple[tuple[int, ...], float]], out: DualPoint, mass: float) -> None:
        """:meth:`DualSmoothing.adjust` with the clause of least reduced cost at the point priced."""
        if smoother is not None:
            clause, rc = min(found, key=lambda item: item[1])
            smoother.adjust(out, problem.coverage([clause])[positive_rows, 0], 1.0 + len(clause), rc, mass)

    def price(out: DualPoint, lp_value: float, mass: float) -> tuple[str | None, str] | None:
        """Step 2 at one master solution: the beam search, then the exact pricing, at the smoothed
        point, repeated toward ``out`` after each mis-pricing. None when clauses entered the master;
        else (the certificate or None, the stop reason)."""
        misprices = 0
        while True:
            alpha = 0.0 if smoother is None else smoother.alpha_at(misprices)
            point = out if smoother is None else smoother.point(out, alpha)
            gain = problem.neg.copy()
            gain[positive_rows] -= point.mu
            kappa = complexity_penalty + point.lam
            rows = _sample(rng, n_rows, pricing_rows)
            literals = _sample(rng, n_literals, pricing_literals)
            truth = problem.truth[np.ix_(rows, literals)] if sampled else problem.truth

            def in_full(found: list[tuple[tuple[int, ...], float]]) -> list[tuple[tuple[int, ...], float]]:
                return [(tuple(sorted(literals[list(c)].tolist())), rc) for c, rc in found]

            with budget.stage("pricing"):
                progress.heuristic_calls += 1
                found = in_full(beam_pricing(truth, gain[rows], kappa, max_literals, beam_width, columns_per_iteration,
                                             None if sampled else problem.truth_values).clauses)
            if add(entering(found, out, alpha)):
                adjust(found, out, mass)
                return None
            if pricing == "beam":
                return None, "the beam search found no improving column (heuristic pricing: no bound)"
            if loop_deadline is not None and time.perf_counter() >= loop_deadline:
                return None, "time_limit"
            with budget.stage("pricing"):
                progress.exact_calls += 1
                exact, status = _exact_pricing(pricing, truth, gain[rows], kappa, max_literals, columns_per_iteration,
                                               pricing_solver, pricing_options, loop_deadline, progress.tighten)
            progress.statuses.append(status)
            progress.search_nodes += exact.nodes
            if not sampled and exact.lower_bound is not None:
                priced = PricedPoint(point, exact.lower_bound, exact.ratio, exact.rest_bound)
                progress.bounds.append(priced.bound(mass, lp_value, max_complexity))
                progress.improve(progress.bounds[-1])
                if exact.ratio is not None:  # could the ratio bound of a search evaluating all be positive?
                    weight = lp_value + (0.0 if max_complexity is None else max_complexity * point.lam)
                    progress.tighten = point.value(max_complexity) + weight * exact.ratio <= 0.0
                if smoother is not None:
                    smoother.offer(priced, mass, lp_value)
            found = in_full(exact.clauses)
            new = entering(found, out, alpha)
            if alpha == 0.0 and not new and exact.complete and not sampled:
                progress.improve(lp_value, certified=True)
                return "pricing", "pricing proved no improving column"
            if _reaches(progress.best_bound, lp_value, integral):
                return "lagrangian", LAGRANGIAN_STOP
            if add(new):
                adjust(found, out, mass)
                return None
            if alpha == 0.0 or not exact.complete:
                return None, "no improving column on the sample" if sampled else f"exact pricing stopped ({status})"
            misprices += 1
            progress.misprices += 1

    lp_value: float | None = None
    certificate: str | None = None
    stop_reason = "iteration_limit"
    # one BLAS thread: the pricing's products are small, and BLAS threads waiting for a core of a
    # busy machine made an exact pricing of 10,000 rows take 15 s instead of 2 s (measured)
    with one_blas_thread():
        while max_iterations is None or progress.iterations < max_iterations:
            if loop_deadline is not None and time.perf_counter() >= loop_deadline:
                stop_reason = "time_limit"
                break
            progress.iterations += 1
            with budget.stage("master"):
                report = master.solve_lp(master_solver, options, loop_deadline)
            if report.status is not Status.OPTIMAL:
                stop_reason = ("time_limit" if report.termination == "time_limit"
                               else f"master LP {report.status.value} ({report.termination})")
                break
            lp_value = report.objective
            mu, lam = master.duals()
            _check_duals(mu, lam, master.pos_weight, max_complexity, lp_value, master_solver)
            mu = np.minimum(mu, master.pos_weight)  # mu <= p exactly, as the Lagrangian bounds assume
            if smoother is not None:
                mu = _class_uniform(master.cover, mu, master.pos_weight)
            out = DualPoint(mu, lam)
            mass = _column_mass(W, lp_value, complexity_penalty)
            if smoother is not None:  # the centre's bound with this W and z_RMP
                progress.improve(smoother.centre_bound(mass, lp_value))
            if _reaches(progress.best_bound, lp_value, integral):
                certificate, stop_reason = "lagrangian", LAGRANGIAN_STOP
                break
            outcome = price(out, lp_value, mass)
            if outcome is not None:
                certificate, stop_reason = outcome
                break
    return _integer_master(problem, master, clauses, complexity_penalty, max_literals, master_solver, options,
                           budget, lp_value, progress.best_bound, certificate, stop_reason, progress)


def _integer_master(problem: RuleProblem, master: RuleMaster, clauses: list[tuple[int, ...]], penalty: float,
                    max_literals: int, solver: str, options: dict[str, Any], budget: TimeBudget,
                    lp_value: float | None, best_bound: float | None, certificate: str | None, stop_reason: str,
                    progress: _Progress) -> ColumnGenerationResult:
    """Step 4: the integer master over the generated clauses, warm-started by the greedy selection."""
    master.set_integrality(True)
    start = _greedy_start(master)
    start_objective = rule_objective(problem, [clauses[k] for k in start.tolist()], penalty)
    final: SolveReport | None = None
    chosen, fallback, reason = start, None, ""
    if budget.expired:
        fallback, reason = "start", ("the time limit was reached before the integer master; the greedy selection is "
                                     "returned" if master.n_columns else "the time limit was reached before any clause "
                                     "was generated; the rule set without rules is returned")
    elif master.n_columns:
        master.set_start(start)
        with budget.stage("integer_master"):
            final = solve(master.model, master.problem_class, solver, options, warm_start=True,
                          deadline=budget.deadline)
        choice = start_or_solver(final, final.objective if final.has_solution else None, start_objective, solver,
                                 "the greedy selection over the generated clauses")
        reason, fallback = choice.fallback_reason, "start" if choice.fallback_reason else None
        if not choice.use_start:
            chosen = np.flatnonzero(master.values() > 0.5)
    selected = [clauses[k] for k in chosen.tolist()]
    objective = rule_objective(problem, selected, penalty)
    if best_bound is not None and _integral(problem, penalty):
        best_bound = math.ceil(best_bound - INTEGRAL_TOLERANCE)  # every rule set's (1) is an integer then
    gap = relative_gap(objective, best_bound)
    if gap is not None and gap <= 1e-6:
        gap = 0.0
    if best_bound is None:
        covers = "only the generated clauses: no exact pricing over all rows and literals ran"
    elif certificate == "pricing":
        covers = f"every rule set of conjunctions of at most {max_literals} literals (pricing proved the LP optimal)"
    elif certificate == "lagrangian":
        covers = (f"every rule set of conjunctions of at most {max_literals} literals (a Lagrangian bound of an "
                  "exact pricing reached the restricted LP value: the LP optimum over all of them"
                  + (", rounded up)" if _integral(problem, penalty) else ")"))
    else:
        covers = (f"every rule set of conjunctions of at most {max_literals} literals (the best Lagrangian bound "
                  "of the exact pricings; the LP over all of them was not solved to optimality)")
    return ColumnGenerationResult(
        selected, objective, lp_value, best_bound, certificate is not None, covers, final, stop_reason, gap=gap,
        fallback=fallback, fallback_reason=reason, start_objective=start_objective, iterations=progress.iterations,
        n_columns=len(clauses), heuristic_pricing_calls=progress.heuristic_calls,
        exact_pricing_calls=progress.exact_calls, search_nodes=progress.search_nodes,
        pricing_statuses=progress.statuses, mispricings=progress.misprices, lagrangian_bounds=progress.bounds,
        budget=budget.meta())
