"""Pricing for Boolean rules via column generation: find conjunctions of negative reduced cost.

A clause (a set of literals, at most D of them) covers the rows on which all its literals hold. With
the master LP's duals, its reduced cost is

    rc(clause) = sum_{rows r it covers} g_r + kappa * (1 + |clause|),    g_r = n_r - mu_r,

(``optrules.exact.column_generation``). Three ways to look for the least one:

- :func:`beam_pricing`, a heuristic: a beam search over literals scored by reduced cost;
- :func:`search_pricing`, exact: a depth-first branch and bound over literal sets in index order. A
  clause's extensions cover a subset of its rows and pay at least one more literal, so none of them
  has a reduced cost below  kappa * (2 + |clause|) + sum_{covered r} min(0, g_r); subtrees whose
  bound cannot beat the best found (or the tolerance) are cut, and so is every literal, for the whole
  subtree of a clause, whose bound joined to that clause cannot (OPUS's pruning of operators). The
  last level below a clause of D - 2 literals is one product: the Gram matrix T_S' diag(g_S) T_S of
  its covered rows S over the literals kept holds the gains of every clause + j + l (above its
  diagonal). With many rows of negative gain (noisy data) the bound cuts little, and the search had
  become an enumeration of the clauses of D - 1 literals, each a few small NumPy products; one
  matrix product per clause of D - 2 literals does that work in BLAS (10,000 noisy rows after 90
  iterations: 8.6 s and 14,542 nodes before, 1.5 s and 181 nodes; docs/methods/column_generation.md).
  It returns a lower bound on the least reduced cost over every clause of at most D literals, exact
  when it completes, and the two numbers of :class:`PricingResult` from which
  ``optrules.exact.column_generation`` makes a Farley-type bound;
- the pricing ILP (5)-(9) of ``models/rule_pricing.py``, solved by any MILP solver, whose dual
  bound is such a lower bound too.

The search and the ILP prove the same minimum (a test checks it on random instances); the search
needs no solver and is the default, measured faster on the bundled datasets
(docs/methods/column_generation.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

__all__ = ["RC_TOLERANCE", "PricingResult", "beam_pricing", "search_pricing"]

#: A reduced cost below minus this is an improving column; a lower bound above it proves none exists.
RC_TOLERANCE = 1e-6
#: The exact search first sums a child's reduced cost over this many of the heaviest avoided rows.
PARTIAL_ROWS = 256


@dataclass(frozen=True)
class PricingResult:
    """Improving clauses found (best first, with their reduced costs), a lower bound on the least
    reduced cost of any clause of at most D literals (None: no bound), whether the search
    completed (then ``lower_bound`` is proven), and the nodes the exact search expanded.

    The exact search also gives ``ratio`` and ``rest_bound`` (None otherwise), with which every
    clause k satisfies  rc_k >= rest_bound  or  rc_k >= ratio * q_k,  where
    q_k = kappa c_k + sum_{r in k, g_r > 0} g_r  (> 0 when kappa > 0): ``ratio`` (<= 0) is the least
    rc / q over the improving clauses it evaluated, ``rest_bound`` a lower bound on the reduced cost
    of all the others. A clause it skipped because a literal excluded no avoided row covers the same
    avoided rows as a clause without that literal, one literal more, and no more wanted rows, so it
    satisfies the same alternative (its rc and q grow by kappa + the lost wanted rows' -g and by
    kappa). ``optrules.exact.column_generation`` turns this into a Lagrangian bound in the manner of
    Farley's bound (q_k never exceeds the clause's cost in (1) plus lam c_k).
    """

    clauses: list[tuple[tuple[int, ...], float]]
    lower_bound: float | None
    complete: bool
    nodes: int = 0
    ratio: float | None = None
    rest_bound: float | None = None


def beam_pricing(truth: np.ndarray, gain: np.ndarray, kappa: float, max_literals: int, width: int,
                 limit: int, truth_values: np.ndarray | None = None) -> PricingResult:
    """Improving clauses found by beam search, best first, at most ``limit`` (no bound: a heuristic).

    The search starts at the empty clause (covering every row) and extends each of the ``width``
    clauses of lowest reduced cost of a level by every literal; a clause stays in the beam only while
    some extension of it could still have a negative reduced cost. ``truth_values``: ``truth`` as
    floats, when the caller has them.
    """
    n_rows = truth.shape[0]
    truth_f = truth.astype(np.float64) if truth_values is None else truth_values
    found: dict[tuple[int, ...], float] = {}
    empty_rc = float(gain.sum()) + kappa
    if empty_rc < -RC_TOLERANCE:
        found[()] = empty_rc
    beam: list[tuple[int, ...]] = [()]
    beam_cover = np.ones((n_rows, 1), dtype=bool)
    negative_gain = np.minimum(gain, 0.0)
    for length in range(1, max_literals + 1):
        scores = truth_f.T @ (gain[:, None] * beam_cover) + kappa * (1 + length)  # literals x beam
        reachable = truth_f.T @ (negative_gain[:, None] * beam_cover) + kappa * (2 + length)
        options: dict[tuple[int, ...], tuple[float, int, int]] = {}
        for flat in np.argsort(scores, axis=None, kind="stable").tolist():
            j, b = divmod(flat, len(beam))
            if j in beam[b]:
                continue
            clause = tuple(sorted((*beam[b], j)))
            if clause in options:
                continue
            rc = float(scores[j, b])
            options[clause] = (rc, j, b)
            if rc < -RC_TOLERANCE:
                found.setdefault(clause, rc)
            elif len(options) >= width:
                break  # sorted: every later option has a reduced cost at least this one's
        if length == max_literals:
            break
        kept = [(clause, j, b) for clause, (rc, j, b) in options.items() if reachable[j, b] < -RC_TOLERANCE][:width]
        if not kept:
            break
        beam = [clause for clause, _, _ in kept]
        beam_cover = np.column_stack([beam_cover[:, b] & truth[:, j] for _, j, b in kept])
    best = sorted(found.items(), key=lambda item: item[1])[:limit]
    return PricingResult(best, None, False)


def search_pricing(truth: np.ndarray, gain: np.ndarray, kappa: float, max_literals: int, limit: int,
                   deadline: float | None = None, tighten: bool = True) -> PricingResult:
    """The least reduced cost over every clause of at most ``max_literals`` literals, by branch and
    bound (module docstring); the ``limit`` best improving clauses met on the way, best first.

    Rows of negative gain (positives the master wants covered) decide the bounds; they are few
    once the master LP is near optimal, so each node's children are bounded on them alone, and the
    rows of positive gain are summed only for the children whose bound can still beat the best. A
    literal true on every avoided row a clause covers is not branched on: with it, any extension
    covers the same avoided rows and fewer wanted ones for one literal more than without it. Below a
    clause of ``max_literals`` - 2 literals, its children are evaluated as above and all its
    grandchildren over the literals kept at once, by one Gram matrix product (module docstring).
    At ``deadline`` (a ``time.perf_counter()`` instant) it stops: the bound is then the least of the
    reduced costs evaluated and the bounds of the subtrees not searched, still valid.

    ``tighten``: subtrees are cut by the best reduced cost found so far (the fastest way to the
    least); False cuts only those that cannot go below ``-RC_TOLERANCE``, so that every improving
    clause is evaluated and ``rest_bound`` stays at about ``-RC_TOLERANCE`` (for
    :attr:`PricingResult.ratio`'s bound; more nodes while strongly improving clauses exist).
    """
    truth = np.asarray(truth, dtype=bool)
    gain = np.asarray(gain, dtype=float)
    want = np.flatnonzero(gain < 0)
    avoid = np.flatnonzero(gain > 0)
    avoid = avoid[np.argsort(-gain[avoid], kind="stable")]  # heaviest first: the partial sums below bound best
    want_truth = truth[want].astype(np.float64)          # few rows: dense products are cheap
    avoid_truth = np.asfortranarray(truth[avoid])         # many rows: gathered a literal column at a time
    avoid_values = np.asfortranarray(avoid_truth, dtype=np.float64)  # the same as numbers, for the products
    want_gain, avoid_gain = gain[want], gain[avoid]
    found: dict[tuple[int, ...], float] = {}
    empty_rc = float(gain.sum()) + kappa
    rest = np.inf  # a lower bound on the reduced cost of every clause not in ``found`` (PricingResult)
    ratio = 0.0    # the least rc / q of the clauses in ``found``
    if empty_rc < -RC_TOLERANCE:
        found[()] = empty_rc
        if kappa > 0:
            ratio = empty_rc / (empty_rc - float(want_gain.sum()))
    else:
        rest = empty_rc
    best = min(empty_rc, -RC_TOLERANCE) if tighten else -RC_TOLERANCE
    # a node: (bound on its extensions, clause, wanted rows it covers, avoided rows it covers, the
    # literals that may still extend it)
    stack = [(float(want_gain.sum()) + 2 * kappa, (), np.arange(want.size), np.arange(avoid.size),
              np.arange(truth.shape[1]))]
    nodes = 0
    complete = True
    while stack:
        bound, clause, want_rows, avoid_rows, allowed = stack.pop()
        if bound >= best:
            rest = min(rest, bound)
            continue
        if deadline is not None and nodes % 64 == 0 and time.perf_counter() >= deadline:
            rest = min([rest, bound] + [node[0] for node in stack])
            complete = False
            break
        nodes += 1
        length = len(clause) + 1
        # children clause + j: a lower bound on their reduced cost from the wanted rows
        optimistic = want_gain[want_rows] @ want_truth[np.ix_(want_rows, allowed)] + kappa * (1 + length)
        skipped = optimistic >= best
        evaluate = np.flatnonzero(~skipped)
        rest = min(rest, float(optimistic[skipped].min(initial=np.inf)))
        if evaluate.size:
            # the avoided rows' gains are positive, so a partial sum over the heaviest of them is a
            # lower bound too: only the children it does not rule out get the full sum
            columns = allowed[evaluate]
            head, tail = avoid_rows[:PARTIAL_ROWS], avoid_rows[PARTIAL_ROWS:]
            rc = optimistic[evaluate] + avoid_gain[head] @ avoid_values[np.ix_(head, columns)]
            open_ = rc < best
            rest = min(rest, float(rc[~open_].min(initial=np.inf)))
            if open_.any():
                columns, rc, wanted = columns[open_], rc[open_], optimistic[evaluate][open_] - kappa * (1 + length)
                if tail.size:
                    rc = rc + avoid_gain[tail] @ avoid_values[np.ix_(tail, columns)]
                improving = rc < -RC_TOLERANCE
                for j, value in zip(columns[improving].tolist(), rc[improving].tolist()):
                    found[(*clause, j)] = value
                if improving.any() and kappa > 0:
                    ratio = min(ratio, float((rc[improving] / (rc[improving] - wanted[improving])).min()))
                rest = min(rest, float(rc[~improving].min(initial=np.inf)))
                if tighten:
                    best = min(best, float(rc.min()))
        if length == max_literals:
            continue
        # a clause of this subtree with literal j and one more pays kappa more and covers no more
        # wanted rows than clause + j: literals whose bound cannot beat the best leave the subtree
        grown = optimistic + kappa
        rest = min(rest, float(grown[grown >= best].min(initial=np.inf)))
        kept = np.flatnonzero(grown < best)
        kept_literals = allowed[kept]
        if length == max_literals - 1:
            # the last level at once: the Gram matrix of the clause's rows over the literals kept holds
            # the gains of every clause + j + l (above its diagonal)
            wt = want_truth[np.ix_(want_rows, kept_literals)]
            at = avoid_values[np.ix_(avoid_rows, kept_literals)]
            wanted = wt.T @ (want_gain[want_rows, None] * wt)
            first, second = np.triu_indices(kept_literals.size, 1)
            rc = (wanted + at.T @ (avoid_gain[avoid_rows, None] * at))[first, second] + kappa * (2 + length)
            improving = np.flatnonzero(rc < -RC_TOLERANCE)
            rest = min(rest, float(np.delete(rc, improving).min(initial=np.inf)))
            if improving.size:
                if kappa > 0:
                    q = rc[improving] - wanted[first, second][improving]
                    ratio = min(ratio, float((rc[improving] / q).min()))
                if improving.size > limit:  # no other of them can be among the ``limit`` best
                    improving = improving[np.argpartition(rc[improving], limit)[:limit]]
                for i in improving.tolist():
                    found[(*clause, int(kept_literals[first[i]]), int(kept_literals[second[i]]))] = float(rc[i])
                if tighten:
                    best = min(best, float(rc.min()))
            continue
        for position in np.argsort(-optimistic[kept], kind="stable").tolist():
            j = int(kept_literals[position])
            child_avoid = avoid_rows[avoid_truth[avoid_rows, j]]
            if child_avoid.size == avoid_rows.size:
                continue  # j excludes no avoided row: clause + j + S is never better than clause + S
            child_want = want_rows[truth[want[want_rows], j]]
            stack.append((float(want_gain[child_want].sum()) + kappa * (2 + length), (*clause, j),
                          child_want, child_avoid, kept_literals[position + 1:]))
    clauses = sorted(found.items(), key=lambda item: item[1])
    lower = min(rest, clauses[0][1]) if clauses else rest
    return PricingResult(clauses[:limit], lower, complete, nodes, ratio if kappa > 0 else None, rest)
