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
  subtree of a clause, whose bound joined to that clause cannot (OPUS's pruning of operators). It returns a lower bound on the least
  reduced cost over every clause of at most D literals, exact when it completes;
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
    completed (then ``lower_bound`` is proven), and the nodes the exact search expanded."""

    clauses: list[tuple[tuple[int, ...], float]]
    lower_bound: float | None
    complete: bool
    nodes: int = 0


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
                   deadline: float | None = None) -> PricingResult:
    """The least reduced cost over every clause of at most ``max_literals`` literals, by branch and
    bound (module docstring); the ``limit`` best improving clauses met on the way, best first.

    Rows of negative gain (positives the master wants covered) decide the bounds; they are few
    once the master LP is near optimal, so each node's children are bounded on them alone, and the
    rows of positive gain are summed only for the children whose bound can still beat the best. A
    literal true on every avoided row a clause covers is not branched on: with it, any extension
    covers the same avoided rows and fewer wanted ones for one literal more than without it.
    At ``deadline`` (a ``time.perf_counter()`` instant) it stops: the bound is then the least of the
    reduced costs evaluated and the bounds of the subtrees not searched, still valid.
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
    lower = empty_rc
    if empty_rc < -RC_TOLERANCE:
        found[()] = empty_rc
    best = min(empty_rc, -RC_TOLERANCE)
    # a node: (bound on its extensions, clause, wanted rows it covers, avoided rows it covers, the
    # literals that may still extend it)
    stack = [(float(want_gain.sum()) + 2 * kappa, (), np.arange(want.size), np.arange(avoid.size),
              np.arange(truth.shape[1]))]
    nodes = 0
    complete = True
    while stack:
        bound, clause, want_rows, avoid_rows, allowed = stack.pop()
        if bound >= best:
            lower = min(lower, bound)
            continue
        if deadline is not None and nodes % 64 == 0 and time.perf_counter() >= deadline:
            lower = min([lower, bound] + [node[0] for node in stack])
            complete = False
            break
        nodes += 1
        length = len(clause) + 1
        # children clause + j: a lower bound on their reduced cost from the wanted rows
        optimistic = want_gain[want_rows] @ want_truth[np.ix_(want_rows, allowed)] + kappa * (1 + length)
        skipped = optimistic >= best
        evaluate = np.flatnonzero(~skipped)
        lower = min(lower, float(optimistic[skipped].min(initial=np.inf)))
        if evaluate.size:
            # the avoided rows' gains are positive, so a partial sum over the heaviest of them is a
            # lower bound too: only the children it does not rule out get the full sum
            columns = allowed[evaluate]
            head, rest = avoid_rows[:PARTIAL_ROWS], avoid_rows[PARTIAL_ROWS:]
            rc = optimistic[evaluate] + avoid_gain[head] @ avoid_values[np.ix_(head, columns)]
            open_ = rc < best
            lower = min(lower, float(rc[~open_].min(initial=np.inf)))
            if open_.any():
                columns, rc = columns[open_], rc[open_]
                if rest.size:
                    rc = rc + avoid_gain[rest] @ avoid_values[np.ix_(rest, columns)]
                for j, value in zip(columns.tolist(), rc.tolist()):
                    if value < -RC_TOLERANCE:
                        found[(*clause, j)] = value
                best = min(best, float(rc.min()))
                lower = min(lower, float(rc.min()))
        if length == max_literals:
            continue
        # a clause of this subtree with literal j and one more pays kappa more and covers no more
        # wanted rows than clause + j: literals whose bound cannot beat the best leave the subtree
        grown = optimistic + kappa
        lower = min(lower, float(grown[grown >= best].min(initial=np.inf)))
        kept = np.flatnonzero(grown < best)
        kept_literals = allowed[kept]
        for position in np.argsort(-optimistic[kept], kind="stable").tolist():
            j = int(kept_literals[position])
            child_avoid = avoid_rows[avoid_truth[avoid_rows, j]]
            if child_avoid.size == avoid_rows.size:
                continue  # j excludes no avoided row: clause + j + S is never better than clause + S
            child_want = want_rows[truth[want[want_rows], j]]
            stack.append((float(want_gain[child_want].sum()) + kappa * (2 + length), (*clause, j),
                          child_want, child_avoid, kept_literals[position + 1:]))
    clauses = sorted(found.items(), key=lambda item: item[1])[:limit]
    return PricingResult(clauses, lower, complete, nodes)
