"""Pricing for Boolean rules via column generation: find conjunctions of negative reduced cost.

A clause (a set of literals, at most D of them) covers the rows on which all its literals hold. With
the master LP's duals, its reduced cost is

    rc(clause) = sum_{rows r it covers} g_r + kappa * (1 + |clause|),    g_r = n_r - mu_r,

(``optrules.exact.column_generation``). Three ways to look for the least one:

- :func:`beam_pricing`, a heuristic: a beam search over literals scored by reduced cost;
- :func:`search_pricing`, exact: a depth-first branch and bound over literal sets in index order. A
  clause's extensions cover a subset of its rows and pay at least one more literal, so none of them
  has a reduced cost below  kappa * (2 + |clause|) + sum_{covered r} min(0, g_r); subtrees whose
  bound cannot beat the best found (or the tolerance) are cut. It returns a lower bound on the least
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


@dataclass(frozen=True)
class PricingResult:
    """Improving clauses found (best first, with their reduced costs), a lower bound on the least
    reduced cost of any clause of at most D literals (None: no bound), and whether the search
    completed (then ``lower_bound`` is proven)."""

    clauses: list[tuple[tuple[int, ...], float]]
    lower_bound: float | None
    complete: bool
    nodes: int = 0


def beam_pricing(truth: np.ndarray, gain: np.ndarray, kappa: float, max_literals: int, width: int,
                 limit: int) -> PricingResult:
    """Improving clauses found by beam search, best first, at most ``limit`` (no bound: a heuristic).

    The search starts at the empty clause (covering every row) and extends each of the ``width``
    clauses of lowest reduced cost of a level by every literal; a clause stays in the beam only while
    some extension of it could still have a negative reduced cost.
    """
    n_rows = truth.shape[0]
    truth_f = truth.astype(np.float64)
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

    At ``deadline`` (a ``time.perf_counter()`` instant) it stops: the bound is then the least of the
    reduced costs evaluated and the bounds of the subtrees not yet searched, still valid.
    """
    truth_f = np.ascontiguousarray(truth, dtype=np.float64)
    negative_gain = np.minimum(gain, 0.0)
    found: dict[tuple[int, ...], float] = {}
    empty_rc = float(gain.sum()) + kappa
    lower = empty_rc
    if empty_rc < -RC_TOLERANCE:
        found[()] = empty_rc
    best = min(empty_rc, -RC_TOLERANCE)
    # a node: (its bound, clause, rows it covers); the root is the empty clause, covering every row
    stack: list[tuple[float, tuple[int, ...], np.ndarray]] = [
        (float(negative_gain.sum()) + 2 * kappa, (), np.arange(truth.shape[0]))]
    nodes = 0
    complete = True
    while stack:
        bound, clause, rows = stack.pop()
        if bound >= best:
            lower = min(lower, bound)
            continue
        if deadline is not None and nodes % 64 == 0 and time.perf_counter() >= deadline:
            lower = min([lower, bound] + [node[0] for node in stack])
            complete = False
            break
        nodes += 1
        first = clause[-1] + 1 if clause else 0
        sub = truth_f[rows, first:]
        length = len(clause) + 1
        rc = gain[rows] @ sub + kappa * (1 + length)
        lower = min(lower, float(rc.min(initial=np.inf)))
        for j in np.flatnonzero(rc < -RC_TOLERANCE).tolist():
            found[(*clause, first + j)] = float(rc[j])
        if rc.size:
            best = min(best, float(rc.min()))
        if length == max_literals:
            continue
        child_bound = negative_gain[rows] @ sub + kappa * (2 + length)
        order = np.argsort(-rc, kind="stable")  # pushed worst first: the best child is searched first
        for j in order.tolist():
            if child_bound[j] >= best:
                lower = min(lower, float(child_bound[j]))
                continue
            stack.append((float(child_bound[j]), (*clause, first + j), rows[truth[rows, first + j]]))
    clauses = sorted(found.items(), key=lambda item: item[1])[:limit]
    return PricingResult(clauses, lower, complete, nodes)
