"""Exact best-rule search: OPUS-style branch and bound over conjunctions of attribute-value tests.

Paper: Webb, "Recent Progress in Learning Decision Lists by Prepending Inferred Rules" (section
"Experimental evaluation"): append and prepend find each rule with the OPUS systematic search (Webb
1993) as the conjunction of attribute-value tests that maximises the Laplace preference value

    value = (pos + 1) / (pos + neg + 2)

where ``pos`` and ``neg`` are the positive and negative cases the rule covers, as defined by the
calling algorithm (:mod:`optrules.learners.decision_list`). This module knows nothing of classes or
lists: it takes a boolean matrix ``holds`` (cases x tests; test ``j`` holds for case ``i``) and two
disjoint masks of the cases counted as positive and as negative, and returns the conjunction of tests
with the best value. Cases in neither mask do not count. Only rules covering at least one positive
case are candidates; the empty conjunction (``TRUE``) is one.

Order of rules
--------------
Rules are compared by the key ``(value, pos)``: the higher Laplace value wins, and among equal values
the rule covering more positive cases (more evidence). Among rules with equal keys the search keeps
the first it finds, then drops, one at a time in the order they were added, the tests whose removal
leaves ``pos`` and ``neg`` unchanged (so no test of the result is redundant on the counted cases).
Values are compared as floats: for integer counts a value is the correctly rounded quotient of two
integers, so equal fractions give equal floats and different ones (denominators below 2**26) differ
by far more than a rounding error.

Search (Webb's OPUS_o)
----------------------
A node is a set of tests (the root is ``TRUE``); its children add one test of its *active* set.
Covers are bitsets over the positive and over the negative cases; a child's counts are popcounts of
``test & node``. Expanding a node evaluates all its children, then

0. the tests whose child keeps every positive of the node (and removes some negative) join the node
   itself, which is then expanded again without them: for every set ``S``, ``node + free + S``
   covers the positives of ``node + S`` and at most its negatives, so no rule of the subtree needs
   to leave a free test out (the search thus moves from one set of covered positives to a strictly
   smaller one);
1. a child that covers no positive case is dropped (no rule covering no positive is a candidate, and
   no specialisation of it covers one);
2. a child that removes no negative case from the node's cover is dropped, with its test, from the
   whole subtree: for every set ``S`` of tests, ``node + S`` covers the same negatives as
   ``node + test + S`` and at least its positives, so its key is at least as high, and it lies in
   the same subtree;
3. the best remaining child is a candidate rule and may become the incumbent;
4. a child that cannot lead to a rule beating the incumbent is pruned, with its test, from the whole
   subtree (*optimistic pruning*). Adding a test only removes cases, so every specialisation of a
   rule covering ``p`` positives covers ``p' <= p`` positives and ``n' >= 0`` negatives, and
   ``(p' + 1) / (p' + n' + 2) <= (p + 1) / (p + 2)`` since ``(x + 1) / (x + 2)`` increases with
   ``x``: the *optimistic value* ``(p + 1) / (p + 2)`` (the bound the paper's OPUS search used) with
   ``p`` bounds the key of every rule below the child. It is tightened by the negatives that no rule
   below can exclude (:meth:`_Search.fixed_negatives`): if ``f`` negatives of the node stay covered
   by every rule below it that can beat the incumbent, the optimistic value of a child covering
   ``p`` positives is ``(p + 1) / (p + f + 2)``;
5. the surviving children are sorted by decreasing optimistic value, and child ``k`` gets as active
   set the tests of the surviving children after it (OPUS's search-space restructuring: the child
   with the highest optimistic value, the least likely to be pruned, gets every other surviving
   test, and the tests most likely to be pruned sit in the most active sets, so pruning them later
   removes the most nodes). Children are visited in that order, best first, so good rules are found
   early; before each visit the children that can no longer beat the incumbent are pruned from the
   remaining active sets.

Every set of a node's active tests lies in exactly one child subtree, so, up to the dominance
arguments of rules 1, 2 and 4, the search enumerates every conjunction: the result is the global
maximum (``tests/test_opus.py`` checks it against brute-force enumeration).

Bitsets are Python integers (one bit per counted case): ``&`` and ``int.bit_count`` run word-parallel
in C, and on the few dozen tests of a node they are several times faster than numpy calls on packed
``uint64`` words, whose fixed cost per call dominates at that size (a house_votes_84 prepend-ip2 fit:
1.3 million nodes in 9.6 s with numpy words, 1.7 s with integers).

Limits: ``max_nodes`` bounds the number of rules evaluated (the root and every child); a search that
reaches it stops and returns its incumbent with ``proven=False``.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from itertools import combinations

import numpy as np

__all__ = ["Candidate", "SearchResult", "laplace", "rule_key", "best_rule", "brute_force_best_rule"]

Key = tuple[float, int]


def laplace(positive, negative):
    """The Laplace preference value ``(pos + 1) / (pos + neg + 2)`` (the paper's preference function);
    works on numbers and on numpy arrays."""
    return (positive + 1) / (positive + negative + 2)


def rule_key(positive: int, negative: int) -> Key:
    """The order of rules: ``(value, pos)``, compared lexicographically (larger is better)."""
    return (laplace(positive, negative), positive)


@dataclass(frozen=True)
class Candidate:
    """A rule found by the search: the indices of its tests (in the order added) and its cover."""

    tests: tuple[int, ...]
    positive: int
    negative: int

    @property
    def value(self) -> float:
        return laplace(self.positive, self.negative)

    @property
    def key(self) -> Key:
        return rule_key(self.positive, self.negative)


@dataclass(frozen=True)
class SearchResult:
    """The best rule (``None`` if no rule covering a positive beats the threshold and the incumbent),
    the number of rules evaluated, and whether the search space was exhausted (the rule's key is then
    the global maximum)."""

    rule: Candidate | None
    nodes: int
    proven: bool


class _Search:
    """One branch-and-bound run over tests given as bitsets over the positive and negative cases."""

    def __init__(self, pos_bits: list[int], neg_bits: list[int], floor: Key, max_nodes: int | None) -> None:
        self.pos_bits = pos_bits
        self.neg_bits = neg_bits
        self.best_key = floor
        self.best: tuple[tuple[int, ...], int, int] | None = None
        self.max_nodes = max_nodes
        self.nodes = 0
        self.stopped = False

    def offer(self, tests: tuple[int, ...], positive: int, negative: int) -> None:
        key = rule_key(positive, negative)
        if positive >= 1 and key > self.best_key:
            self.best_key = key
            self.best = (tests, positive, negative)

    def expand(self, pos_cover: int, neg_cover: int, n_positive: int, n_negative: int,
               path: tuple[int, ...], active: list[int]) -> None:
        """Evaluate the children ``path + test`` for every active test, then search below them."""
        if not active or self.stopped:
            return
        if self.max_nodes is not None and self.nodes + len(active) > self.max_nodes:
            self.stopped = True
            return
        self.nodes += len(active)
        children = []
        for test in active:
            pos_child = self.pos_bits[test] & pos_cover
            positive = pos_child.bit_count()
            if positive == 0:
                continue  # rule 1
            neg_child = self.neg_bits[test] & neg_cover
            negative = neg_child.bit_count()
            if negative == n_negative:
                continue  # rule 2
            children.append((test, positive, negative, pos_child, neg_child))
        if not children:
            return
        free = [c for c in children if c[1] == n_positive]
        if free:  # rule 0: tests that keep every positive join the node
            for child in free:
                neg_cover &= child[4]
            merged = path + tuple(c[0] for c in free)
            n_negative = neg_cover.bit_count()
            self.offer(merged, n_positive, n_negative)
            rest = [c[0] for c in children if c[1] < n_positive]
            self.expand(pos_cover, neg_cover, n_positive, n_negative, merged, rest)
            return
        best = max(children, key=lambda c: rule_key(c[1], c[2]))  # first of the maxima
        self.offer(path + (best[0],), best[1], best[2])  # rule 3
        children.sort(key=lambda c: -c[1])  # stable: ties keep the test order
        optimistic = _optimistic_values(children, neg_cover)
        order = sorted(range(len(children)),  # by the bound key, then by value
                       key=lambda k: (-optimistic[k], -children[k][1], -laplace(children[k][1], children[k][2])))
        bounds = [(optimistic[k], children[k][1]) for k in order]
        children = [children[k] for k in order]
        end = len(children)
        for k, child in enumerate(children):  # rules 4 and 5
            while end > k and not bounds[end - 1] > self.best_key:
                end -= 1
            if end <= k or self.stopped:
                return
            test, positive, negative, pos_child, neg_child = child
            self.expand(pos_child, neg_child, positive, negative, path + (test,),
                        [c[0] for c in children[k + 1:end]])


def _optimistic_values(children: list[tuple[int, int, int, int, int]], neg_cover: int) -> list[float]:
    """The optimistic value of each child: no rule below it has a higher Laplace value.

    ``children`` are a node's children ``(test, pos, neg, pos_cover, neg_cover)`` sorted by
    decreasing ``pos``. A rule below the node that leaves a negative ``x`` uncovered contains a test
    failing on ``x``, so it covers at most ``m_x`` positives, the most that any child failing on
    ``x`` covers (``m_x = 0`` when no child fails on ``x``). A rule covering ``n'`` of the node's
    negatives leaves all others uncovered, so, with ``m`` sorted increasingly, it covers at most
    ``m_(n'+1)`` positives; below a child covering ``p`` positives, at most ``min(p, m_(n'+1))``.
    The optimistic value is the largest ``(q + 1) / (q + n' + 2)`` these caps allow: for each level
    ``c`` of ``m`` (and ``c = p``), ``q = min(p, c)`` with ``n'`` the number of negatives with
    ``m_x < c``. Without the caps this is the plain ``(p + 1) / (p + 2)``.
    """
    levels: list[tuple[int, int]] = []  # (m value, number of negatives), decreasing m
    remaining = neg_cover
    for _, positive, _, _, child_negatives in children:
        excluded = remaining & ~child_negatives
        if excluded:
            levels.append((positive, excluded.bit_count()))
            remaining &= child_negatives
    levels.reverse()
    below = remaining.bit_count()  # negatives no child excludes: m_x = 0
    caps, counts, best = [], [], []  # per level c >= 1: c, #{m_x < c}, best value up to c
    running = 0.0
    for value, count in levels:
        caps.append(value)
        counts.append(below)
        running = max(running, laplace(value, below))
        best.append(running)
        below += count
    optimistic = []
    for _, positive, _, _, _ in children:
        k = bisect_left(caps, positive)  # levels with c < positive
        under = counts[k] if k < len(caps) else below
        optimistic.append(max(best[k - 1] if k else 0.0, laplace(positive, under)))
    return optimistic


def _bitsets(matrix: np.ndarray) -> list[int]:
    """Each row of a bool matrix as a Python integer bitset (bit ``i`` = column ``i``)."""
    packed = np.packbits(matrix, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def _shorten(tests: tuple[int, ...], holds: np.ndarray, positive: np.ndarray, negative: np.ndarray
             ) -> tuple[int, ...]:
    """Drop, in the order added, each test whose removal leaves the counted cover unchanged."""
    kept = list(tests)

    def counts(chosen: list[int]) -> tuple[int, int]:
        covered = holds[:, chosen].all(axis=1)
        return int((covered & positive).sum()), int((covered & negative).sum())

    target = counts(kept)
    for test in tests:
        trial = [t for t in kept if t != test]
        if counts(trial) == target:
            kept = trial
    return tuple(kept)


def best_rule(holds: np.ndarray, positive: np.ndarray, negative: np.ndarray, *,
              min_value: float = -math.inf, incumbent: Key | None = None,
              max_nodes: int | None = None) -> SearchResult:
    """The conjunction of tests (columns of ``holds``) with the best Laplace value.

    Parameters
    ----------
    holds : (n_cases, n_tests) bool
        Whether each test holds for each case.
    positive, negative : (n_cases,) bool
        The cases counted as positive and as negative (disjoint; other cases do not count).
    min_value : float
        Only rules whose value is strictly greater count (e.g. 0.75 for the paper's p2 pruning).
    incumbent : (value, pos), optional
        Only rules whose :func:`rule_key` is strictly greater count (a rule found in another search).
    max_nodes : int, optional
        Stop after this many rules were evaluated; the result is then not proven optimal.

    Returns a :class:`SearchResult`; its ``rule`` is ``None`` when no rule qualifies.
    """
    holds = np.asarray(holds, dtype=bool)
    positive = np.asarray(positive, dtype=bool)
    negative = np.asarray(negative, dtype=bool)
    if holds.ndim != 2 or positive.shape != (holds.shape[0],) or negative.shape != (holds.shape[0],):
        raise ValueError(f"holds must be (cases x tests) and the masks one entry per case; got "
                         f"{holds.shape}, {positive.shape}, {negative.shape}")
    if (positive & negative).any():
        raise ValueError("a case cannot be counted as both positive and negative")
    if max_nodes is not None and max_nodes < 1:
        raise ValueError(f"max_nodes must be a positive integer or None, got {max_nodes!r}")
    floor: Key = (float(min_value), math.inf)  # a rule of value exactly min_value never beats it
    if incumbent is not None and tuple(incumbent) > floor:
        floor = (float(incumbent[0]), incumbent[1])
    n_positive, n_negative = int(positive.sum()), int(negative.sum())
    if n_positive == 0:
        return SearchResult(None, 0, True)
    search = _Search(_bitsets(holds[positive].T), _bitsets(holds[negative].T), floor, max_nodes)
    search.nodes = 1
    search.offer((), n_positive, n_negative)
    search.expand((1 << n_positive) - 1, (1 << n_negative) - 1, n_positive, n_negative, (),
                  list(range(holds.shape[1])))
    rule = None
    if search.best is not None:
        tests, found_positive, found_negative = search.best
        rule = Candidate(_shorten(tests, holds, positive, negative), found_positive, found_negative)
    return SearchResult(rule, search.nodes, not search.stopped)


def brute_force_best_rule(holds: np.ndarray, positive: np.ndarray, negative: np.ndarray,
                          min_value: float = -math.inf) -> Candidate | None:
    """The best rule by enumerating every subset of tests (a cross-check for small data only)."""
    holds = np.asarray(holds, dtype=bool)
    best: Candidate | None = None
    for size in range(holds.shape[1] + 1):
        for tests in combinations(range(holds.shape[1]), size):
            covered = holds[:, list(tests)].all(axis=1)
            rule = Candidate(tests, int((covered & positive).sum()), int((covered & negative).sum()))
            if rule.positive >= 1 and rule.value > min_value and (best is None or rule.key > best.key):
                best = rule
    return best
