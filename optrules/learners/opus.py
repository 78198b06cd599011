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

Case weights
------------
With ``weights`` (one non-negative number per case) ``pos`` and ``neg`` are the summed weights of
the covered positive and negative cases, so an integer weight acts exactly as that many copies of
the case; cases of weight 0 are left out of both masks, as if removed. Every bound of the search
below only needs ``pos`` and ``neg`` to be sums over the covered cases, so it stays valid. The sums
are exact (:class:`CaseWeights`: each weight is an integer multiple of one power of two), rounded
once to a float: a subset of cases never weighs more than the set, and ``pos > neg`` as floats
implies it for the exact sums. Integer weights (totals below 2**53) are therefore counted exactly,
as copies would be; for other weights the Laplace values are floats of rounded sums, so rules whose
values differ by a rounding error may be ordered either way. Weights of ones take the unweighted
path (popcounts, integer counts).

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
``test & node`` (weighted: the exact weight of the set, :meth:`CaseWeights.size`), and the tests
of rules 0-2 below compare the covers themselves. Expanding a node evaluates all its children, then

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
   below can exclude (:func:`_optimistic_values`): if ``f`` negatives of the node stay covered
   by every rule below it that can beat the incumbent, the optimistic value of a child covering
   ``p`` positives is ``(p + 1) / (p + f + 2)``;
5. the surviving children are sorted by decreasing optimistic value, and child ``k`` gets as active
   set the tests of the surviving children after it (OPUS's search-space restructuring: the child
   with the highest optimistic value, the least likely to be pruned, gets every other surviving
   test, and the tests most likely to be pruned sit in the most active sets, so pruning them later
   removes the most nodes). Children are visited in that order, best first, so good rules are found
   early; before each visit the children that can no longer beat the incumbent are pruned from the
   remaining active sets;
6. before a child is expanded, the negatives it covers that every test of its active set keeps are
   covered by every rule below it: with ``f`` of them, no rule below a child covering ``p``
   positives has a key above ``((p + 1) / (p + f + 2), p)``, and a child whose bound does not beat
   the incumbent is not expanded. This skips only subtrees without a better rule and leaves the
   other children's active sets as they were, so the search visits the same improving rules in
   the same order and returns the same rule, with fewer nodes.

Every set of a node's active tests lies in exactly one child subtree, so, up to the dominance
arguments of rules 1, 2, 4 and 6, the search enumerates every conjunction: the result is the global
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
from typing import Any, Callable

import numpy as np

from optrules.weights import validate_sample_weight

__all__ = ["Candidate", "SearchResult", "CaseWeights", "case_weights", "laplace", "rule_key", "best_rule",
           "brute_force_best_rule"]

#: A rule's ``(value, pos)``; ``pos`` is an ``int`` without weights.
Key = tuple[float, float]
#: The (weighted) size of a set of cases given as a bitset.
Size = Callable[[int], float]
#: Weights held as at most this many popcount terms are summed term by term; with more (arbitrary
#: floats) a set's weight is a product of its unpacked bits with limbs of the units (:class:`CaseWeights`).
_MAX_TERMS = 16
#: Bits per limb: a sum of up to 2**32 limbs stays below 2**53, exact in float64.
_LIMB_BITS = 21


def laplace(positive, negative):
    """The Laplace preference value ``(pos + 1) / (pos + neg + 2)`` (the paper's preference function);
    works on numbers and on numpy arrays."""
    return (positive + 1) / (positive + negative + 2)


def rule_key(positive: float, negative: float) -> Key:
    """The order of rules: ``(value, pos)``, compared lexicographically (larger is better)."""
    return (laplace(positive, negative), positive)


def _bitset(mask: np.ndarray) -> int:
    """A bool vector as a Python integer bitset (bit ``i`` = entry ``i``)."""
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


def _scaled(units: int, exponent: int) -> float:
    """``units * 2**exponent``, correctly rounded (Python's integer division and conversion are)."""
    return units / (1 << -exponent) if exponent < 0 else float(units << exponent)


def _units_and_exponent(value: float) -> tuple[int, int]:
    """``value = units * 2**exponent`` with an odd integer ``units`` (``(0, 0)`` for 0)."""
    if value == 0:
        return 0, 0
    mantissa, exponent = math.frexp(value)
    units = int(mantissa * 2 ** 53)  # exact: a float64 has 53 significant bits
    shift = (units & -units).bit_length() - 1  # trailing zero bits
    return units >> shift, exponent - 53 + shift


class CaseWeights:
    """Non-negative case weights held exactly: ``weight_i = units_i * 2**exponent``, integer ``units``.

    Every float is an integer times a power of two, so with the smallest exponent of the weights as
    the common one every sum of weights is an exact integer (:meth:`exact`), rounded once to a float
    (:meth:`total`): a correctly rounded sum, the same whatever the order of the cases. ``units``
    is ``int64`` when the total fits, else an object array of Python integers.

    The weight of a bitset of cases (:meth:`size`) is ``sum_t multiplier_t * popcount(cases &
    term_t)`` over *terms*: one per distinct positive weight (``multiplier`` its units), or one per
    bit of the units (``multiplier = 2**b``), whichever are fewer. Integer or class weights take a
    few terms; with more than ``_MAX_TERMS`` (arbitrary floats: about 53 plus the binary range of the
    weights) the bitset is unpacked and multiplied by the units cut into 21-bit limbs, a float64
    product that is exact (every partial sum is an integer below 2**53). A few microseconds per set
    on a thousand cases, against a fraction of one for a popcount.
    """

    def __init__(self, weights: Any) -> None:
        array = np.asarray(weights)
        if array.ndim != 1:
            raise ValueError(f"weights must be 1-dimensional (one weight per case), got shape {array.shape}")
        weights = validate_sample_weight(array, array.shape[0], "weights", zero_sum=True)
        values, inverse = np.unique(weights, return_inverse=True)
        parts = [_units_and_exponent(v) for v in values.tolist()]
        self.exponent = min((e for u, e in parts if u), default=0)
        value_units = [u << (e - self.exponent) if u else 0 for u, e in parts]
        total = sum(u * int(k) for u, k in zip(value_units, np.bincount(inverse, minlength=values.size)))
        self.units = np.array(value_units, dtype=np.int64 if total < 2 ** 63 else object)[inverse]
        self.counted = weights > 0
        n_bits = max((u.bit_length() for u in value_units), default=0)
        positive = [k for k, u in enumerate(value_units) if u]
        self._multipliers: list[int] = []
        self._terms = np.zeros((0, weights.size), dtype=bool)
        self._limbs: np.ndarray | None = None
        if len(positive) <= min(n_bits, _MAX_TERMS):
            self._multipliers = [value_units[k] for k in positive]
            self._terms = inverse[None, :] == np.array(positive, dtype=np.int64)[:, None]
        elif n_bits <= _MAX_TERMS:
            self._multipliers = [1 << b for b in range(n_bits)]
            self._terms = np.array([((self.units >> b) & 1).astype(bool) for b in range(n_bits)])
        else:
            n_limbs = -(-n_bits // _LIMB_BITS)
            self._limbs = np.column_stack([((self.units >> (_LIMB_BITS * j)) & ((1 << _LIMB_BITS) - 1))
                                           .astype(np.float64) for j in range(n_limbs)])

    @property
    def n_cases(self) -> int:
        """The number of cases (one weight each)."""
        return int(self.units.shape[0])

    def exact(self, mask: np.ndarray) -> int:
        """The weight of the cases of ``mask`` in units of ``2**exponent`` (an exact integer)."""
        return int(self.units[mask].sum())

    def total(self, mask: np.ndarray) -> float:
        """The weight of the cases of ``mask``, correctly rounded."""
        return _scaled(self.exact(mask), self.exponent)

    def size(self, mask: np.ndarray) -> Size:
        """The weight (correctly rounded) of a bitset over the cases of ``mask`` (bit ``i`` = the
        ``i``-th case of the mask)."""
        exponent = self.exponent
        if self._limbs is None:
            terms = [(m, b) for m, b in zip(self._multipliers, map(_bitset, self._terms[:, mask])) if b]
            return lambda cases: _scaled(sum(m * (cases & term).bit_count() for m, term in terms), exponent)
        limbs = self._limbs[mask]
        n_cases = limbs.shape[0]
        n_bytes = (n_cases + 7) // 8
        places = exponent + _LIMB_BITS * np.arange(limbs.shape[1])  # limb j counts 2**places[j]
        if places[0] >= -1022 and places[-1] + 64 < 1024:  # limb sums scaled by their places stay exact
            scale = np.ldexp(1.0, places)

            def combine(sums: np.ndarray) -> float:
                return math.fsum((sums * scale).tolist())  # the exact total, rounded once
        else:
            def combine(sums: np.ndarray) -> float:
                return _scaled(sum(int(v) << (_LIMB_BITS * j) for j, v in enumerate(sums.tolist())), exponent)

        def weigh(cases: int) -> float:
            packed = np.frombuffer(cases.to_bytes(n_bytes, "little"), dtype=np.uint8)
            bits = np.unpackbits(packed, count=n_cases, bitorder="little")
            return combine(bits.astype(np.float64) @ limbs)  # exact limb sums: integers below 2**53

        return weigh


def case_weights(weights: Any, n: int) -> CaseWeights | None:
    """``weights`` of ``n`` cases as :class:`CaseWeights` (a :class:`CaseWeights` is kept), or None
    when they are None or all ones (the unweighted path)."""
    if weights is None:
        return None
    if not isinstance(weights, CaseWeights):
        array = validate_sample_weight(weights, n, "weights", zero_sum=True)
        if np.all(array == 1):
            return None
        weights = CaseWeights(array)
    if weights.n_cases != n:
        raise ValueError(f"weights has {weights.n_cases} values for {n} samples")
    return weights


@dataclass(frozen=True)
class Candidate:
    """A rule found by the search: the indices of its tests (in the order added) and its cover
    (numbers of cases, or their summed weights)."""

    tests: tuple[int, ...]
    positive: float
    negative: float

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
    """One branch-and-bound run over tests given as bitsets over the positive and negative cases;
    ``pos_size`` and ``neg_size`` give the size of such a bitset (its popcount without weights)."""

    def __init__(self, pos_bits: list[int], neg_bits: list[int], pos_size: Size, neg_size: Size,
                 floor: Key, max_nodes: int | None) -> None:
        self.pos_bits = pos_bits
        self.neg_bits = neg_bits
        self.pos_size = pos_size
        self.neg_size = neg_size
        self.best_key = floor
        self.best: tuple[tuple[int, ...], float, float] | None = None
        self.max_nodes = max_nodes
        self.nodes = 0
        self.stopped = False

    def offer(self, tests: tuple[int, ...], positive: float, negative: float) -> None:
        key = rule_key(positive, negative)
        if positive > 0 and key > self.best_key:
            self.best_key = key
            self.best = (tests, positive, negative)

    def expand(self, pos_cover: int, neg_cover: int, n_positive: float, n_negative: float,
               path: tuple[int, ...], active: list[int]) -> None:
        """Evaluate the children ``path + test`` for every active test, then search below them.

        ``n_positive`` and ``n_negative`` are the sizes of the node's covers ``pos_cover`` and
        ``neg_cover``; a child is ``(test, pos, neg, pos_cover, neg_cover)``."""
        if not active or self.stopped:
            return
        if self.max_nodes is not None and self.nodes + len(active) > self.max_nodes:
            self.stopped = True
            return
        self.nodes += len(active)
        pos_size, neg_size = self.pos_size, self.neg_size
        children = []
        for test in active:
            pos_child = self.pos_bits[test] & pos_cover
            if not pos_child:
                continue  # rule 1
            neg_child = self.neg_bits[test] & neg_cover
            if neg_child == neg_cover:
                continue  # rule 2
            children.append((test, pos_size(pos_child), neg_size(neg_child), pos_child, neg_child))
        if not children:
            return
        free = [c for c in children if c[3] == pos_cover]
        if free:  # rule 0: tests that keep every positive join the node
            for child in free:
                neg_cover &= child[4]
            merged = path + tuple(c[0] for c in free)
            n_negative = neg_size(neg_cover)
            self.offer(merged, n_positive, n_negative)
            rest = [c[0] for c in children if c[3] != pos_cover]
            self.expand(pos_cover, neg_cover, n_positive, n_negative, merged, rest)
            return
        best = max(children, key=lambda c: rule_key(c[1], c[2]))  # first of the maxima
        self.offer(path + (best[0],), best[1], best[2])  # rule 3
        children.sort(key=lambda c: -c[1])  # stable: ties keep the test order
        optimistic = _optimistic_values(children, neg_cover, neg_size)
        order = sorted(range(len(children)),  # by the bound key, then by value
                       key=lambda k: (-optimistic[k], -children[k][1], -laplace(children[k][1], children[k][2])))
        bounds = [(optimistic[k], children[k][1]) for k in order]
        children = [children[k] for k in order]
        end = last = len(children)
        # kept[j]: the negatives that every test of the last j children keeps (rule 6), so those of
        # children[k + 1:] are kept[last - 1 - k]; one AND per child from the back, and none once no
        # negative is left (every earlier entry would be empty too)
        kept = [neg_cover]
        common = neg_cover
        for child in reversed(children):
            common &= child[4]
            if not common:
                break
            kept.append(common)
        for k, child in enumerate(children):  # rules 4, 5 and 6
            while end > k and not bounds[end - 1] > self.best_key:
                end -= 1
            if end <= k or self.stopped:
                return
            test, positive, negative, pos_child, neg_child = child
            j = last - 1 - k
            floor = neg_child & kept[j] if j < len(kept) else 0
            # rule 6 (an empty floor never prunes: the bound of a child still visited exceeds
            # rule_key(positive, 0), rules 4 and 5)
            if floor and not rule_key(positive, neg_size(floor)) > self.best_key:
                continue  # no specialisation below the child beats the incumbent
            self.expand(pos_child, neg_child, positive, negative, path + (test,),
                        [c[0] for c in children[k + 1:end]])


def _optimistic_values(children: list[tuple[int, float, float, int, int]], neg_cover: int,
                       neg_size: Size) -> list[float]:
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

    With weights the same holds with ``pos`` and ``n'`` the weights of the cases (``neg_size``
    sizes a set of negatives): a rule whose uncovered negatives all have ``m_x >= c`` covers at
    most ``min(p, c)`` of positive weight and every negative with ``m_x < c``.
    """
    levels: list[tuple[float, float]] = []  # (m value, number of negatives), decreasing m
    remaining = neg_cover
    for _, positive, _, _, child_negatives in children:
        excluded = remaining & ~child_negatives
        if excluded:
            levels.append((positive, neg_size(excluded)))
            remaining &= child_negatives
    levels.reverse()
    below = neg_size(remaining)  # negatives no child excludes: m_x = 0
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


def _shorten(tests: tuple[int, ...], holds: np.ndarray, counted: np.ndarray) -> tuple[int, ...]:
    """Drop, in the order added, each test whose removal leaves the cover of the ``counted`` cases
    (positive or negative) unchanged, hence ``pos`` and ``neg``."""
    kept = list(tests)
    target = holds[:, kept].all(axis=1) & counted
    for test in tests:
        trial = [t for t in kept if t != test]
        if np.array_equal(holds[:, trial].all(axis=1) & counted, target):
            kept = trial
    return tuple(kept)


def best_rule(holds: np.ndarray, positive: np.ndarray, negative: np.ndarray, *, weights: Any = None,
              min_value: float = -math.inf, incumbent: Key | None = None,
              max_nodes: int | None = None) -> SearchResult:
    """The conjunction of tests (columns of ``holds``) with the best Laplace value.

    Parameters
    ----------
    holds : (n_cases, n_tests) bool
        Whether each test holds for each case.
    positive, negative : (n_cases,) bool
        The cases counted as positive and as negative (disjoint; other cases do not count).
    weights : (n_cases,) non-negative floats or :class:`CaseWeights`, optional
        Case weights: ``pos`` and ``neg`` are then summed weights, cases of weight 0 do not count.
        None (or ones): numbers of cases.
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
    cases = case_weights(weights, holds.shape[0])
    pos_size: Size
    neg_size: Size
    if cases is None:
        pos_size = neg_size = int.bit_count
    else:
        positive, negative = positive & cases.counted, negative & cases.counted
        pos_size, neg_size = cases.size(positive), cases.size(negative)
    n_pos_cases, n_neg_cases = int(positive.sum()), int(negative.sum())
    if n_pos_cases == 0:
        return SearchResult(None, 0, True)
    pos_cover, neg_cover = (1 << n_pos_cases) - 1, (1 << n_neg_cases) - 1
    n_positive, n_negative = pos_size(pos_cover), neg_size(neg_cover)
    search = _Search(_bitsets(holds[positive].T), _bitsets(holds[negative].T), pos_size, neg_size,
                     floor, max_nodes)
    search.nodes = 1
    search.offer((), n_positive, n_negative)
    search.expand(pos_cover, neg_cover, n_positive, n_negative, (), list(range(holds.shape[1])))
    rule = None
    if search.best is not None:
        tests, found_positive, found_negative = search.best
        rule = Candidate(_shorten(tests, holds, positive | negative), found_positive, found_negative)
    return SearchResult(rule, search.nodes, not search.stopped)


def brute_force_best_rule(holds: np.ndarray, positive: np.ndarray, negative: np.ndarray,
                          min_value: float = -math.inf, weights: Any = None) -> Candidate | None:
    """The best rule by enumerating every subset of tests (a cross-check for small data only);
    ``weights`` as in :func:`best_rule`."""
    holds = np.asarray(holds, dtype=bool)
    cases = case_weights(weights, holds.shape[0])
    if cases is not None:
        positive, negative = positive & cases.counted, negative & cases.counted
    best: Candidate | None = None
    for size in range(holds.shape[1] + 1):
        for tests in combinations(range(holds.shape[1]), size):
            covered = holds[:, list(tests)].all(axis=1)
            if cases is None:
                rule = Candidate(tests, int((covered & positive).sum()), int((covered & negative).sum()))
            else:
                rule = Candidate(tests, cases.total(covered & positive), cases.total(covered & negative))
            if (covered & positive).any() and rule.value > min_value and (best is None or rule.key > best.key):
                best = rule
    return best
