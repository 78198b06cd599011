"""The base, bottom-up weak learner of LIBRE: FindBoundary (Algorithm 1) and FindBoundaryPoint (Algorithm 2).

Paper: Mita, Papotti, Filippone, Michiardi, "LIBRE: Learning Interpretable Boolean Rule Ensembles",
Section 3.1 and Appendix A.2-A.3.

Every sample is a point of the Boolean lattice ``{0,1}^d`` (see :mod:`optrules.encode`); ``a <= x``
iff every bit set in ``a`` is set in ``x``, and ``a`` *covers* ``x`` when ``a <= x``
(Definition 3.1). Starting from an uncovered positive ``x`` we *flip off* (Definition 3.2) its ones,
one at a time, as long as the result stays *conflict-free* (Definition 3.3: a flip-off conflicts
when the new element is ``<=`` some negative). When no further flip-off is possible, the remaining
element ``p(J)`` is a boundary point (Definition 2.5 / 3.3) and is added to the boundary set ``A``.

Data layout
-----------
``positives`` and ``negatives`` are (rows x d) 0/1 or bool matrices (a :class:`~optrules.encode.Lattice`
is accepted too); the result is a (k x d) bool matrix, one boundary point per row, in the order the
points were found. Internally the rows are packed into ``uint64`` words (:func:`optrules.encode.pack_bits`)
for the order tests and the initial distances; the per-bit bookkeeping uses bool matrices.

Choices (documented, where the paper leaves room)
-------------------------------------------------
* **Distance** (Definition 3.4). ``d_l(x, x') = sum_i |x(i) - x'(i)|_+``: read as the number of
  positions where ``x`` has a 1 and ``x'`` has a 0. (The text says ``|.|_+ = 1`` when ``(.) >= 0``,
  which taken literally would also count equal bits; Examples 3.3 and A.3 only agree with the
  "x(i) = 1, x'(i) = 0" reading, e.g. ``d_l(10101, 11010) = 2``, ``d_l(11001, 01101) = 1``.) With
  this reading ``d_l(p, y) == 0`` iff ``p <= y``, and for ``i`` a one of ``p`` and ``y(i) = 0``,
  ``d_l(p, y) == 1`` iff flipping off ``i`` makes ``p <= y`` (a conflict).
  ``d_l(x, V) = min_{x' in V} d_l(x, x')`` (Definition 3.5); for an empty ``V`` (Example 3.3:
  "undefined") we use ``+inf`` (stored as ``d + 1``): flipping off a bit that no negative has at 0
  can never create a conflict, and in both heuristics a larger distance is better.
* **Heuristics.** H1 maximises ``(|S_i^0|, |D+_i^0|, d_l(p(I u J), D-_i^0))`` and H2 maximises
  ``(d_l(p(I u J), D-_i^0), |S_i^0|, |D+_i^0|)``, lexicographically; remaining ties go to the
  lowest bit index. ``|S_i^0|`` is computed on the *current* ``S`` (it changes between calls of
  FindBoundaryPoint, not inside one).
* **Counts.** By default ``|S_i^0|`` and ``|D+_i^0|`` count *distinct* elements, as in the paper
  (the inputs are sets). With ``positive_counts`` (multiplicities or summed sample weights of the
  distinct positives) both count *samples* instead: sums of the counts, so an integer count acts as
  that many copies of the element. Whole-number counts are summed as ``int64`` (exact); others as
  ``float64``, one positive at a time in input order in both implementations, so they agree to the
  bit; ties between bits are then exact up to floating-point rounding of the sums. A count of 0
  weighs nothing in the heuristics, but the element is still a positive to cover (drop it from the
  input to remove it). ``negative_counts`` are validated but do not change the result: a conflict
  only needs one negative element.
* **Choice of x.** Algorithm 1 picks "some x in S": we take the first remaining positive in input
  order, so the result is deterministic.
* **Update of S.** After each new point every element of ``S`` covered by it is removed (the paper's
  "remove from S the elements covered by a, for all a in A"; the authors' code removes only the seed).
  Older points already removed what they cover, so only the new point needs testing.
* **Contradictory positives.** A positive ``x`` with ``x <= y`` for some negative ``y`` (in particular
  a positive equal to a negative) has no conflict-free element below it, so no boundary point can
  cover it. Such positives are taken out of ``S`` at the start, without a point, so they steer
  neither the choice of seeds nor ``|S_i^0|`` (they still count in ``|D+_i^0|``, which is over all
  of ``D+``). Their number is :attr:`BoundaryResult.n_conflicting_positives`.
* **Irredundancy.** A point ``p(J)`` is added only if no ``a in A`` has ``a <= p(J)`` (Algorithm 2).
  Since the seed ``x`` is uncovered and ``p(J) <= x``, this never rejects a point; and ``p(J) < a``
  for an earlier point ``a`` is impossible too (every element strictly below a boundary point
  conflicts, while ``p(J)`` does not). So ``A`` is irredundant (Definition 2.5) without removing
  points; the check is kept as a guard.
* **Duplicates.** Inputs are expected deduplicated. Duplicated negatives are harmless; duplicated
  positives count twice in ``|S_i^0|`` and ``|D+_i^0|`` (as if given a multiplicity).

Implementations
---------------
:func:`find_boundary_result` runs the compiled kernel :mod:`optrules.learners.boundary_kernel`: rows
are kept as their zeros (:class:`ZeroRows`; an inverse one-hot row has one zero per feature), the
best bit comes from lazy max-heaps (``|S_i^0|`` and ``|D+_i^0|`` are fixed during a call of
Algorithm 2 and the distance only decreases, so a stale key is only ever too good; under H1 the
bits are sorted by ``(|S_i^0|, |D+_i^0|)`` and each group of equal counts gets a small heap of its
own), and ``c_y = d_l(p, y)`` is decremented for the negatives with ``y(i) = 0`` when bit ``i`` is
flipped off: a call costs ``O(d log d + zeros of D-)``. The NumPy functions of this module are the readable reference
("the distance is computed only once, and updated at each iteration", with an ``O(d)`` scan for the
best bit); they run when a ``trace`` is requested, and the tests check that both give the same
points, seeds and conflicting positives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from optrules.encode import Lattice, pack_bits
from optrules.learners.boundary_kernel import boundary_kernel

__all__ = ["BoundaryResult", "TraceStep", "ZeroRows", "find_boundary", "find_boundary_result", "HEURISTICS"]

#: Names of the greedy heuristics of Algorithm 2.
HEURISTICS = ("H1", "H2")


class TraceStep(NamedTuple):
    """One iteration of the ``while I != {}`` loop of Algorithm 2 (0-based bit indices).

    Recorded after the bits at distance 1 were moved from ``I`` to ``J``: ``I`` and ``J`` are the
    sets at that moment (sorted), ``chosen`` the bit flipped off next (``None`` when ``I`` is empty
    and the loop ends). ``seed`` is the row of the positive ``x`` the point is grown from, and
    ``distances`` maps each bit of ``I`` to ``d_l(p(I u J), D-_i^0)`` (``None`` for an empty set).
    """

    seed: int
    I: tuple[int, ...]
    J: tuple[int, ...]
    chosen: int | None
    distances: dict[int, int | None]


@dataclass(frozen=True)
class BoundaryResult:
    """Output of :func:`find_boundary_result`.

    ``points``: (k, d) bool boundary set ``A`` in the order found; ``seeds``: for each point the row of
    the positive it was grown from; ``conflicting``: bool mask over the positives that lie below a
    negative (no boundary point can cover them).
    """

    points: np.ndarray
    seeds: np.ndarray
    conflicting: np.ndarray

    @property
    def n_conflicting_positives(self) -> int:
        """Number of positives ``x`` with ``x <= y`` for some negative ``y`` (left uncovered)."""
        return int(self.conflicting.sum())


def _as_bools(rows: Any, name: str) -> np.ndarray:
    if isinstance(rows, Lattice):
        return rows.to_bools()
    array = np.asarray(rows)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-d (rows x bits) matrix, got shape {array.shape}")
    if array.dtype != bool:
        if array.size and not np.isin(array, (0, 1)).all():
            raise ValueError(f"{name} must contain only 0 and 1")
        array = array.astype(bool)
    return np.ascontiguousarray(array)


@dataclass(frozen=True)
class ZeroRows:
    """Lattice rows given by their zeros (CSR): row ``r``'s zeros are ``col[ptr[r]:ptr[r + 1]]``.

    Inverse one-hot rows have one zero per feature, so this takes ``O(rows x features)`` memory where
    a (rows x bits) matrix would take ``O(rows x bins)``; :meth:`from_codes` builds it straight from
    bin indices.
    """

    ptr: np.ndarray
    col: np.ndarray
    n_bits: int

    @property
    def n_rows(self) -> int:
        return int(self.ptr.shape[0] - 1)

    @classmethod
    def empty(cls, n_bits: int) -> ZeroRows:
        return cls(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), int(n_bits))

    @classmethod
    def from_bools(cls, bits: np.ndarray) -> ZeroRows:
        rows, cols = np.nonzero(~np.asarray(bits, dtype=bool))  # row-major: CSR order
        ptr = np.zeros(bits.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=bits.shape[0]), out=ptr[1:])
        return cls(ptr, cols.astype(np.int64), int(bits.shape[1]))

    @classmethod
    def from_codes(cls, codes: Any, starts: Any, n_bits: int) -> ZeroRows:
        """Inverse one-hot rows from bin indices: ``codes[r, f] >= 0`` puts a zero at bit
        ``starts[f] + codes[r, f]``; ``-1`` (no bin) gives the feature no zero."""
        codes = np.asarray(codes, dtype=np.int64)
        starts = np.asarray(starts, dtype=np.int64)
        if codes.ndim != 2 or starts.shape != (codes.shape[1],):
            raise ValueError(f"codes must be (rows, features) with one start per feature, got "
                             f"{codes.shape} and {starts.shape}")
        has_zero = codes >= 0
        ptr = np.zeros(codes.shape[0] + 1, dtype=np.int64)
        np.cumsum(has_zero.sum(axis=1), out=ptr[1:])
        col = (codes + starts)[has_zero]  # row-major; ascending within a row when starts ascend
        if col.size and (col.min() < 0 or col.max() >= n_bits):
            raise ValueError(f"a bin index falls outside the {n_bits} bits")
        return cls(ptr, col, int(n_bits))

    @classmethod
    def of(cls, rows: Any, name: str) -> ZeroRows:
        return rows if isinstance(rows, ZeroRows) else cls.from_bools(_as_bools(rows, name))

    def to_bools(self) -> np.ndarray:
        out = np.ones((self.n_rows, self.n_bits), dtype=bool)
        out[np.repeat(np.arange(self.n_rows), np.diff(self.ptr)), self.col] = False
        return out


def _as_counts(counts: Any, n: int, name: str) -> np.ndarray:
    """Validated counts, one per row: ``int64`` when all are whole numbers below 2**53 (ones when
    ``counts`` is None), so that sums are exact; ``float64`` otherwise."""
    if counts is None:
        return np.ones(n, dtype=np.int64)
    array = np.asarray(counts)
    if array.shape != (n,):
        raise ValueError(f"{name} must have one entry per row ({n}), got shape {array.shape}")
    if array.dtype.kind in "iu":
        if np.any(array < 0):
            raise ValueError(f"{name} must be non-negative")
        return array.astype(np.int64)
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{name} must be non-negative finite numbers")
    if np.all(array == np.round(array)) and np.all(array < 2.0 ** 53):
        return array.astype(np.int64)
    return array


def _best(keys: list[np.ndarray]) -> int:
    """Position of the lexicographic maximum of the key columns (ties: the first position)."""
    candidates = np.arange(keys[0].shape[0])
    for key in keys:
        values = key[candidates]
        candidates = candidates[values == values.max()]
        if candidates.size == 1:
            break
    return int(candidates[0])


def _weighted_zeros(weights: np.ndarray, zeros: np.ndarray) -> np.ndarray:
    """``weights @ zeros`` in the dtype of ``weights`` (``int64`` or ``float64``) without the
    (rows x bits) copy of ``zeros``: a weighted count per bit over the set entries, summed in row
    order like the kernel (exact for integer weights below 2**53)."""
    rows, cols = np.nonzero(zeros)
    sums = np.bincount(cols, weights=weights[rows], minlength=zeros.shape[1])  # int64 when cols is empty
    return np.rint(sums).astype(np.int64) if weights.dtype == np.int64 else sums.astype(np.float64)


def _below_some_negative(pos_words: np.ndarray, neg_words: np.ndarray, pos_zero: np.ndarray,
                         neg_zero_ptr: np.ndarray, neg_zero_col: np.ndarray,
                         max_words: int = 1 << 23) -> np.ndarray:
    """Mask over the positives: ``x <= y`` for some negative ``y``.

    ``x <= y`` needs every zero of ``y`` to be a zero of ``x``, in particular ``y``'s first zero; so
    only the pairs where ``x`` has a zero at ``y``'s first zero are tested (a negative without zeros
    is above every positive). On inverse one-hot rows that is ``n_pos * n_neg / bins`` pairs instead
    of ``n_pos * n_neg``. Pairs are tested on the packed words, about ``max_words`` words at a time.
    """
    n_pos = pos_words.shape[0]
    max_pairs = max(1, int(max_words) // max(1, pos_words.shape[1]))
    lengths = np.diff(neg_zero_ptr)
    if (lengths == 0).any():  # the all-ones negative is above everything
        return np.ones(n_pos, dtype=bool)
    first_zero = neg_zero_col[neg_zero_ptr[:-1]]
    order = np.argsort(first_zero, kind="stable")  # negatives grouped by their first zero
    group_size = np.bincount(first_zero, minlength=pos_zero.shape[1])
    group_start = np.cumsum(group_size) - group_size
    x_row, x_col = np.nonzero(pos_zero)  # (positive, one of its zeros)
    sizes = group_size[x_col]
    conflicting = np.zeros(n_pos, dtype=bool)
    ends = np.cumsum(sizes)
    begin = 0
    while begin < x_row.size:
        stop = max(int(np.searchsorted(ends, (ends[begin - 1] if begin else 0) + max_pairs, "right")),
                   begin + 1)
        rows, cols, counts = x_row[begin:stop], x_col[begin:stop], sizes[begin:stop]
        total = int(counts.sum())
        if total:
            pair_x = np.repeat(rows, counts)
            offsets = np.repeat(group_start[cols] - (np.cumsum(counts) - counts), counts) + np.arange(total)
            pair_y = order[offsets]
            below = ~np.any(pos_words[pair_x] & ~neg_words[pair_y], axis=1)
            conflicting[pair_x[below]] = True
        begin = stop
    return conflicting


def _find_boundary_point(seed: int, pos_bits: np.ndarray, neg_zero_ptr: np.ndarray,
                         neg_zero_row: np.ndarray, neg_zero_col: np.ndarray,
                         neg_zero_rows: list[np.ndarray], s_zero: np.ndarray, d_zero: np.ndarray,
                         heuristic: str, trace: list | None) -> np.ndarray:
    """Algorithm 2 FindBoundaryPoint for the positive ``seed``: the bool row ``p(J)``.

    ``I`` starts as ``P(x)`` (the ones of ``x``) and ``J`` empty. Each iteration moves to ``J`` the
    bits with ``d_l(p(I u J), D-_i^0) == 1`` (flipping them off would conflict, Definition 3.3),
    then flips off the best remaining bit of ``I`` under H1/H2 and updates the distances.
    """
    d = pos_bits.shape[1]
    n_neg = neg_zero_ptr.shape[0] - 1
    big = np.int32(d + 1)  # stands for d_l(., {}) = +inf ("undefined"); real distances are <= d
    row = pos_bits[seed]
    bits = np.flatnonzero(row)  # I = P(x), as bit indices
    where = np.full(d, -1, dtype=np.int64)  # bit -> its position in `bits` (-1: not a one of x)
    where[bits] = np.arange(bits.size)
    # The zeros of the negatives are kept sparse (CSR: neg_zero_ptr / neg_zero_col, neg_zero_row the
    # row of each entry): inverse one-hot rows have one zero per feature, so the distance
    # bookkeeping costs O(zeros of the touched negatives), not O(negatives x bits).
    # c_y = d_l(x, y): positions where x has a 1 and y a 0 (Definition 3.4), for every negative.
    c = np.bincount(neg_zero_row, weights=row[neg_zero_col], minlength=n_neg).astype(np.int32)
    # d_l(p, D-_i^0) = min {c_y : y(i) = 0} for each bit i of I (Definition 3.5), +inf if none.
    dist = np.full(bits.size, big, dtype=np.int32)
    at = where[neg_zero_col]
    hit = at >= 0
    np.minimum.at(dist, at[hit], c[neg_zero_row[hit]])
    in_i = np.ones(bits.size, dtype=bool)
    in_j = np.zeros(bits.size, dtype=bool)
    s_key = s_zero[bits]
    d_key = d_zero[bits]
    while True:
        move = in_i & (dist == 1)
        in_j |= move
        in_i &= ~move
        remaining = np.flatnonzero(in_i)
        if remaining.size == 0:
            if trace is not None:
                trace.append(TraceStep(seed, (), tuple(int(b) for b in bits[in_j]), None, {}))
            break
        if heuristic == "H1":
            keys = [s_key[remaining], d_key[remaining], dist[remaining]]
        else:
            keys = [dist[remaining], s_key[remaining], d_key[remaining]]
        best = int(remaining[_best(keys)])
        bit = int(bits[best])
        if trace is not None:
            trace.append(TraceStep(
                seed, tuple(int(b) for b in bits[remaining]), tuple(int(b) for b in bits[in_j]), bit,
                {int(bits[r]): (None if dist[r] == big else int(dist[r])) for r in remaining}))
        in_i[best] = False  # flip off `bit`
        affected = neg_zero_rows[bit]  # negatives with y(bit) = 0: their c_y drops by one
        if affected.size:
            c[affected] -= 1
            if in_i.any():
                # dist[j] = min(dist[j], c_y) over affected y with y(j) = 0; positions no longer in I
                # are updated too, harmlessly (only I's distances are ever read).
                first, stop = neg_zero_ptr[affected], neg_zero_ptr[affected + 1]
                lengths = stop - first
                entries = np.repeat(first - np.cumsum(lengths) + lengths, lengths) \
                    + np.arange(int(lengths.sum()))
                at = where[neg_zero_col[entries]]
                hit = at >= 0
                np.minimum.at(dist, at[hit], np.repeat(c[affected], lengths)[hit])
    point = np.zeros(d, dtype=bool)
    point[bits[in_j]] = True
    return point


def find_boundary_result(positives: Any, negatives: Any, heuristic: str = "H1",
                         positive_counts: Any = None, negative_counts: Any = None,
                         trace: list | None = None) -> BoundaryResult:
    """Algorithm 1 FindBoundary: a boundary set ``A`` for ``(D+, D-)``, with bookkeeping.

    Parameters
    ----------
    positives, negatives:
        Distinct lattice elements as (n, d) bool / 0-1 matrices, a :class:`~optrules.encode.Lattice`,
        or :class:`ZeroRows` (each row given by its zeros, for large inverse one-hot data).
    heuristic:
        ``"H1"`` = maximise ``(|S_i^0|, |D+_i^0|, d_l)`` (fewer points) or ``"H2"`` = maximise
        ``(d_l, |S_i^0|, |D+_i^0|)`` (fewer ones per point); ties to the lowest bit.
    positive_counts:
        Optional non-negative counts of the positives (multiplicities, or summed sample weights:
        floats are accepted); when given ``|S_i^0|`` and ``|D+_i^0|`` are their sums, otherwise
        numbers of distinct elements (the paper).
    negative_counts:
        Optional non-negative counts of the negatives; validated, not used (a conflict needs one
        negative).
    trace:
        Optional list receiving one :class:`TraceStep` per iteration of Algorithm 2 (this runs the
        NumPy reference implementation; otherwise the compiled kernel
        :mod:`optrules.learners.boundary_kernel` runs, with the same result).

    Every returned point ``a`` covers at least one positive, covers no negative, turns into an element
    below some negative when any of its ones is flipped off (boundary point, Definitions 2.5/3.3), and
    no point covers another; every positive not below a negative is covered by some point.
    """
    key = str(heuristic).upper()
    if key not in HEURISTICS:
        raise ValueError(f"heuristic must be one of {HEURISTICS}, got {heuristic!r}")
    pos = ZeroRows.of(positives, "positives")
    neg = ZeroRows.of(negatives, "negatives")
    if neg.n_rows == 0 and neg.n_bits != pos.n_bits:
        neg = ZeroRows.empty(pos.n_bits)
    if pos.n_bits != neg.n_bits:
        raise ValueError(f"positives have {pos.n_bits} bits but negatives {neg.n_bits}")
    weights = _as_counts(positive_counts, pos.n_rows, "positive_counts")
    _as_counts(negative_counts, neg.n_rows, "negative_counts")
    if trace is not None:
        return _reference_boundary(pos.to_bools(), neg.to_bools(), weights, key, trace)
    points, seeds, conflicting = boundary_kernel(pos.n_bits, pos.ptr, pos.col, weights,
                                                 neg.ptr, neg.col, key == "H2")
    return BoundaryResult(points, seeds, conflicting)


def _reference_boundary(pos: np.ndarray, neg: np.ndarray, weights: np.ndarray, key: str,
                        trace: list | None) -> BoundaryResult:
    """The NumPy reference of Algorithm 1 (readable, ``O(d^2)`` per point; records the trace)."""
    n_pos, d = pos.shape
    pos_words = pack_bits(pos)
    neg_words = pack_bits(neg)
    pos_zero = ~pos
    neg_zero = ~neg
    neg_zero_row, neg_zero_col = np.nonzero(neg_zero)  # row-major: CSR order
    neg_zero_ptr = np.zeros(neg.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(neg_zero_row, minlength=neg.shape[0]), out=neg_zero_ptr[1:])
    by_bit = np.argsort(neg_zero_col, kind="stable")  # negatives with y(i) = 0, ascending, per bit
    neg_zero_rows = np.split(neg_zero_row[by_bit], np.cumsum(np.bincount(neg_zero_col, minlength=d))[:-1])

    # Contradictory positives: x <= y for some negative y (no conflict-free element below x).
    if neg.shape[0] and n_pos:
        conflicting = _below_some_negative(pos_words, neg_words, pos_zero, neg_zero_ptr, neg_zero_col)
    else:
        conflicting = np.zeros(n_pos, dtype=bool)

    alive = ~conflicting  # S: positives not covered by A (and coverable)
    d_zero = _weighted_zeros(weights, pos_zero)  # |D+_i^0|, fixed
    s_zero = _weighted_zeros(weights * alive, pos_zero)  # |S_i^0|, updated as S shrinks
    pos_lattice = Lattice(pos_words, d)

    points: list[np.ndarray] = []
    point_words = np.zeros((n_pos, pos_words.shape[1]), dtype=np.uint64)  # A, packed (k <= n_pos)
    seeds: list[int] = []
    for seed in range(n_pos):  # "choose x in S": the first remaining positive, in input order
        if not alive[seed]:
            continue
        point = _find_boundary_point(seed, pos, neg_zero_ptr, neg_zero_row, neg_zero_col,
                                     neg_zero_rows, s_zero, d_zero, key, trace)
        words = pack_bits(point[None, :])[0]
        k = len(points)
        redundant = bool(k) and bool((~np.any(point_words[:k] & ~words, axis=1)).any())  # a <= p(J)
        if redundant:  # cannot happen (x was uncovered); keep S shrinking anyway
            alive[seed] = False
            s_zero -= weights[seed] * pos_zero[seed]
            continue
        points.append(point)
        point_words[k] = words
        seeds.append(seed)
        covered = alive & pos_lattice.leq(words)  # remove from S every element the new point covers
        alive &= ~covered
        for x in np.flatnonzero(covered):  # one at a time in input order, as the kernel (float sums)
            s_zero -= weights[x] * pos_zero[x]

    out = np.array(points, dtype=bool).reshape(len(points), d)
    return BoundaryResult(out, np.array(seeds, dtype=np.int64), conflicting)


def find_boundary(positives: Any, negatives: Any, heuristic: str = "H1",
                  positive_counts: Any = None, negative_counts: Any = None,
                  trace: list | None = None) -> np.ndarray:
    """Algorithm 1 FindBoundary: the (k, d) bool boundary set ``A``, points in the order found.

    Same arguments as :func:`find_boundary_result` (which also reports the seeds and the positives
    that lie below a negative and so stay uncovered).
    """
    return find_boundary_result(positives, negatives, heuristic, positive_counts,
                                negative_counts, trace).points
