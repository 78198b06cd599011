"""LIBRE: an interpretable ensemble of bottom-up rule learners on random feature subsets.

Paper: Mita, Papotti, Filippone, Michiardi, "LIBRE: Learning Interpretable Boolean Rule Ensembles",
Section 3.2 (the ensemble), Section 3.3 (the final boundary), Section 4 (parameters) and Appendix B-C.

Fit, step by step
-----------------
1. The target is made binary (:func:`optrules.data.binarize_target`: the positive class against the
   rest). Every feature is binned once, on all training samples, with ChiMerge on the binary target
   (``chi2_threshold``, optional ``max_intervals``; categorical features get one bin per category and
   missing values a bin of their own) and the samples are mapped to the Boolean lattice with the
   inverse one-hot encoding (:class:`optrules.encode.FeatureBinning`), kept as bin indices (a row's
   zeros, one per feature) rather than as (samples x bits) matrices.
2. ``n_estimators`` feature subsets are drawn, each of ``min(max_features, n_features)`` distinct
   features (``rng.choice(..., replace=False)``, sorted). Equal subsets are learned once. For each
   distinct subset the lattice is restricted to the bits of its features, the positive rows and the
   negative rows are deduplicated separately, and the base learner
   (:func:`optrules.learners.boundary.find_boundary`, Algorithms 1-2, on
   :class:`~optrules.learners.boundary.ZeroRows`) returns the subset's boundary
   set ``A_j``. Its points are put back in the full lattice with zeros on the bits of the other
   features (no condition on them). Subsets are independent, so they run in parallel with
   ``n_jobs`` (joblib processes); results are gathered in subset order, so they do not depend on it.
3. The final boundary (Section 3.3): the union ``A = U_j A_j`` (duplicates removed); on the training
   lattice every point gets its local supports ``lsup+ = covered positives / positives`` and
   ``lsup- = covered negatives / negatives``; points with ``lsup+ > lsup-`` and
   ``lsup+ >= min_local_support`` are kept and ranked by exclusiveness ``lsup+ / (lsup+ + lsup-)``,
   then ``lsup+``, then fewer ones (more zeros = fewer restrictions), then first found; the best
   ``top_k`` are the candidates. A weighted set cover with ``alpha`` over the training samples
   (:mod:`optrules.cover`) picks the rules: greedily (the paper, :func:`greedy_cover`) or exactly
   (``selection="ilp"``, :func:`optrules.exact.set_cover.solve_set_cover`). Whether a point covers a
   sample depends only on the sample's bin indices, so coverage, supports and the set cover are
   computed on the samples grouped by binned row and class (:func:`group_samples`), each group
   weighing its samples: the same supports, objective and selection as sample by sample, on as many
   rows as there are distinct (row, class) pairs.

Choices where the paper leaves room
-----------------------------------
* Sample multiplicities: each subset's distinct positives are passed to the base learner with their
  counts, so its ``|S_i^0|`` and ``|D+_i^0|`` count training samples, not distinct rows (on few
  features many samples collapse to one row; the count is what the selection will score).
* Sample weights (one non-negative number per training sample): a row's count is the sum of its
  samples' weights (:func:`distinct_rows`), in the base learner's counts and in the conflict
  majority, and the local supports are weighted shares (:func:`rank_boundary`), so an integer
  weight acts exactly as that many copies of the sample. Samples of weight 0 are dropped before the
  deduplication, as if removed: in particular a negative of weight 0 constrains no learner. Weights
  of ones take the unweighted paths (integer counts, popcounts), with today's results.
* Positives whose restricted row equals (or lies below) a negative row are left to the base
  learner, which skips them (no conflict-free point can cover them).
* Each learner's points cover no training negative: a point has zeros outside its subset, so it
  covers a sample iff it covers the sample's restriction, and the base learner admits no conflict.
  Hence on the training set ``lsup- = 0`` for every point and the filter ranks by ``lsup+`` then
  fewer ones; ``lsup-`` and the negative term of the cover matter only for points supplied from
  elsewhere. The generalisation comes from the subsets: a point learned on few features
  restricts few features.
* The selection objective is ``optrules.cover``'s: ``alpha * uncovered positives + (1 - alpha) *
  covered negatives + rule_cost * rules``. With ``rule_cost = 0`` (default) the greedy weight is
  the paper's ``alpha * pos - (1 - alpha) * neg``; the greedy stops when no candidate has a positive
  weight, or after ``max_rules`` rules. The estimators' stopping rule ``min_gain`` (Section 3.3's
  "stopping condition", which the paper leaves open) enters as a further cost per rule of
  ``min_gain * alpha * (total positive weight)``: a rule is taken only while it gains more than
  covering that share of the positives would. Greedy ties go to the lattice element with more zeros (fewer
  ones), as Section 3.3 says.
  The ILP's selection is cleared of rules that cover nothing the others do not (free with
  ``rule_cost = 0``, so an optimal solution may hold them); the objective is unchanged.
* ``max_features=None`` means all features; ``max_features >= n_features`` too (every learner then
  sees the same data, so the subsets coincide and one learner runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from optrules.learners.boundary import ZeroRows, find_boundary
from optrules.learners.libre_kernel import covered_weights
from optrules.weights import validate_sample_weight

__all__ = ["learn_subset", "distinct_rows", "SampleGroups", "group_samples", "resolve_conflicts", "rank_boundary",
           "drop_redundant"]


def learn_subset(positives: ZeroRows, positive_counts: np.ndarray, negatives: ZeroRows,
                 heuristic: str) -> np.ndarray:
    """One weak learner: the boundary set of distinct restricted positives against distinct negatives.

    A module-level function so that joblib worker processes can import it; the arguments are the
    deduplicated rows of one feature subset, given by their zeros (one per feature).
    """
    return find_boundary(positives, negatives, heuristic, positive_counts=positive_counts)


def distinct_rows(codes: np.ndarray, weights: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of an integer matrix (ascending, lexicographic) and their counts.

    On bin indices the order is that of the inverse one-hot bit strings (a smaller bin in the first
    differing feature puts its 0 first), so the base learner sees the rows as a sorted lattice.
    Without ``weights`` the counts are the multiplicities (``int64``). With ``weights`` (one
    non-negative number per row) the rows of weight 0 are dropped first, as if removed, and each
    distinct row's count is the sum of its rows' weights (``float64``, summed in row order; exact
    for integer weights, so a weight ``k`` counts as ``k`` copies).
    """
    if weights is not None:
        weights = validate_sample_weight(weights, codes.shape[0], "weights", zero_sum=True)
        if np.all(weights == 1):
            distinct, counts = distinct_rows(codes)
            return distinct, counts.astype(np.float64)
        kept = weights > 0
        codes, weights = codes[kept], weights[kept]
    if codes.shape[0] == 0:
        return codes, np.zeros(0, dtype=np.int64 if weights is None else np.float64)
    if codes.shape[1] == 0:  # every row is the empty row
        total = codes.shape[0] if weights is None else np.add.reduceat(weights, [0])[0]
        return codes[:1], np.array([total], dtype=np.int64 if weights is None else np.float64)
    order, starts = _sorted_groups(codes)
    distinct = codes[order[starts]]
    if weights is None:
        return distinct, np.diff(np.append(starts, codes.shape[0])).astype(np.int64)
    return distinct, np.add.reduceat(weights[order], starts)


def _packed_keys(codes: np.ndarray) -> list[np.ndarray]:
    """The rows of an integer matrix packed into as few int64 keys per row as fit (mixed radix over
    each column's offset from its minimum, the first columns most significant, as many columns per
    key as keep the radix product below 2**63): comparing rows key by key, first key first, is
    comparing them lexicographically, and equal keys mean equal rows."""
    keys: list[np.ndarray] = []
    key = None
    room = 1  # the radix product of the columns in ``key``
    for column, low, high in zip(codes.T, codes.min(axis=0).tolist(), codes.max(axis=0).tolist()):
        radix = high - low + 1
        if radix >= 2**63:  # a column of its own: its values, in their order, are the key
            keys.append(column.astype(np.int64))
            key, room = None, 1
            continue
        if key is None or room * radix >= 2**63:
            key = np.zeros(codes.shape[0], dtype=np.int64)
            keys.append(key)
            room = 1
        key *= radix
        key += column - low if low else column
        room *= radix
    return keys


def _sorted_groups(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of a non-empty integer matrix (with >= 1 column) in lexicographic order, equal rows
    in their input order (the order of ``np.lexsort`` on the columns), and the positions in that
    order where each distinct row starts.

    The rows are packed into int64 keys (:func:`_packed_keys`); one ``np.argsort`` of the first key
    orders them, and only the runs of rows that share a first key (few, when the first key holds
    several features of many bins; all duplicates, when it holds every column) are sorted again by
    the other keys and their positions. This is much faster than ``np.unique(..., axis=0)``, which
    compares rows as byte strings, when the features have thousands of bins.
    """
    keys = _packed_keys(codes)
    order = np.argsort(keys[0])
    first = keys[0][order]
    tied = np.zeros(order.size, dtype=bool)  # a position whose first key equals a neighbour's
    np.equal(first[1:], first[:-1], out=tied[1:])
    tied[:-1] |= tied[1:]
    if tied.any():
        at = np.flatnonzero(tied)  # runs of equal first keys: contiguous, in the order of the key
        rows = order[at]
        order[at] = rows[np.lexsort([rows] + [key[rows] for key in keys[:0:-1]] + [keys[0][rows]])]
    new = np.ones(order.size, dtype=bool)
    if len(keys) == 1:
        np.not_equal(first[1:], first[:-1], out=new[1:])
    else:
        new[1:] = False
        for key in keys:
            ordered = key[order]
            new[1:] |= ordered[1:] != ordered[:-1]
    return order, np.flatnonzero(new)


@dataclass(frozen=True)
class SampleGroups:
    """The training samples grouped by binned row and class: group ``g`` holds the ``counts[g]``
    samples whose bin indices are ``codes[g]`` and whose class is ``is_positive[g]``; ``weights[g]`` is
    their summed sample weight (summed in sample order: exact for integer weights), ``inverse`` maps
    each sample to its group. Groups are ordered by row (lexicographically), negatives first.

    Whether a lattice element covers a sample depends on the sample's bin indices only, so every
    sample of a group is covered alike: the final boundary's coverage, local supports and set cover
    are computed on the groups, each weighing its samples, with the same values as on the samples
    (sums of integer weights are exact; other weights may round differently in the last bit).
    """

    codes: np.ndarray
    is_positive: np.ndarray
    counts: np.ndarray
    weights: np.ndarray
    inverse: np.ndarray


def group_samples(codes: np.ndarray, is_positive: np.ndarray, weights: Any = None) -> SampleGroups:
    """The :class:`SampleGroups` of samples with bin indices ``codes`` (n x features, ``-1`` for no bin),
    classes ``is_positive`` and sample ``weights`` (None: 1 each). Samples of weight 0 stay (in
    ``counts``, with weight 0), as they do in the training coverage."""
    codes = np.asarray(codes, dtype=np.int64)
    is_positive = np.asarray(is_positive, dtype=bool)
    n = codes.shape[0]
    weights = np.ones(n) if weights is None else validate_sample_weight(weights, n, "weights", zero_sum=True)
    if n == 0:
        return SampleGroups(codes, is_positive, np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.intp))
    order, starts = _sorted_groups(np.column_stack([codes, is_positive]))  # negatives first in a row
    group = np.zeros(n, dtype=np.intp)
    group[starts[1:]] = 1
    inverse = np.empty(n, dtype=np.intp)
    inverse[order] = np.cumsum(group)
    first = order[starts]
    return SampleGroups(codes[first], is_positive[first], np.diff(np.append(starts, n)).astype(np.int64),
                        np.bincount(inverse, weights=weights, minlength=starts.size), inverse)


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """One opaque, comparable key per row (equal rows, equal keys)."""
    rows = np.ascontiguousarray(rows)
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


def resolve_conflicts(positives: np.ndarray, positive_counts: np.ndarray, negatives: np.ndarray,
                      negative_counts: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Give each binned row that occurs in both classes to one class (``conflicts="majority"``).

    A row seen as p positives and n negatives stays positive when ``alpha * p > (1 - alpha) * n``
    and negative otherwise, and leaves the other class's set: the weak learner then learns a
    Boolean function of the resolved, consistent truth table, whose points may cover the outvoted
    training samples. Rows are distinct rows of bin indices (or of bits); the counts are integer
    multiplicities or summed sample weights (:func:`distinct_rows`). Returns (positives, their
    counts, negatives).
    """
    if positives.shape[0] == 0 or negatives.shape[0] == 0 or positives.shape[1] == 0:
        return positives, positive_counts, negatives
    _, in_pos, in_neg = np.intersect1d(_row_keys(positives), _row_keys(negatives), return_indices=True)
    positive_wins = alpha * positive_counts[in_pos] > (1 - alpha) * negative_counts[in_neg]
    keep_pos = np.ones(positives.shape[0], dtype=bool)
    keep_neg = np.ones(negatives.shape[0], dtype=bool)
    keep_pos[in_pos[~positive_wins]] = False
    keep_neg[in_neg[positive_wins]] = False
    return positives[keep_pos], positive_counts[keep_pos], negatives[keep_neg]


def rank_boundary(coverage: np.ndarray, is_positive: np.ndarray, n_ones: np.ndarray,
                  min_local_support: float = 0.0, top_k: int | None = None,
                  weights: Any = None) -> np.ndarray:
    """Indices of the kept points, best first (Section 3.3's filter, after Gu et al. 2003).

    ``coverage`` is (points x samples). ``lsup+`` is the share of the positives a point covers and
    ``lsup-`` that of the negatives; with ``weights`` (one non-negative number per sample) shares of
    the class's total weight (a class of total weight 0 has supports 0). A point is kept when
    ``lsup+ > lsup-`` and ``lsup+ >= min_local_support``; kept points are ordered by exclusiveness
    ``lsup+/(lsup+ + lsup-)`` (descending), ``lsup+`` (descending), number of ones (ascending),
    index; the first ``top_k`` stay.
    """
    is_positive = np.asarray(is_positive, dtype=bool)
    if weights is not None:
        weights = validate_sample_weight(weights, is_positive.shape[0], "weights", zero_sum=True)
    if weights is None or np.all(weights == 1):
        n_pos, n_neg = int(is_positive.sum()), int((~is_positive).sum())
        packed = np.packbits(coverage, axis=1)  # supports by popcount: no (points x samples) copies
        lsup_pos = np.bitwise_count(packed & np.packbits(is_positive)).sum(axis=1) / max(n_pos, 1)
        lsup_neg = np.bitwise_count(packed & np.packbits(~is_positive)).sum(axis=1) / max(n_neg, 1)
    else:
        covered_pos, covered_neg = covered_weights(np.ascontiguousarray(coverage, dtype=bool), is_positive,
                                                   weights)
        # the totals summed as a point covering everything would be: such a point gets lsup+ = 1
        (total_pos,), (total_neg,) = covered_weights(np.ones((1, is_positive.shape[0]), dtype=bool),
                                                     is_positive, weights)
        lsup_pos = covered_pos / (total_pos if total_pos > 0 else 1.0)
        lsup_neg = covered_neg / (total_neg if total_neg > 0 else 1.0)
    keep = np.flatnonzero((lsup_pos > lsup_neg) & (lsup_pos >= min_local_support))
    exclusiveness = lsup_pos[keep] / (lsup_pos[keep] + lsup_neg[keep])  # > 0: lsup+ > lsup- >= 0
    order = np.lexsort((keep, np.asarray(n_ones)[keep], -lsup_pos[keep], -exclusiveness))
    ranked = keep[order]
    return ranked if top_k is None else ranked[:int(top_k)]


def drop_redundant(coverage: np.ndarray, selected: np.ndarray) -> np.ndarray:
    """``selected`` without the rules whose samples the other kept rules already cover.

    With ``rule_cost = 0`` an optimal ILP solution may hold such rules (they change nothing); the
    covered samples, hence the objective, stay the same, and the order of the rest is kept. Rules
    covering fewer samples are tried first.
    """
    keep = list(int(j) for j in selected)
    for j in sorted(keep, key=lambda j: (int(coverage[:, j].sum()), j)):
        others = [k for k in keep if k != j]
        if others and not (coverage[:, j] & ~coverage[:, others].any(axis=1)).any():
            keep = others
    return np.array(keep, dtype=int)
