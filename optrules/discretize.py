"""Discretization of one numeric column into ordered, left-closed bins.

Used by the LIBRE inverse one-hot encoding (every numeric feature becomes a set
of ordered bins, printed like the paper's ``[min, 40)``, ``[40, 60)``,
``[60, max]``) and by candidate-rule mining.

Two discretizers are provided:

* :func:`chimerge` -- Kerber's supervised bottom-up ChiMerge (AAAI-92);
* :func:`equal_frequency` -- unsupervised quantile cuts.

Both return a :class:`Bins`, which only stores the cut points.  Missing values
(NaN) are ignored when learning the cuts and are mapped to ``-1`` by
:meth:`Bins.assign`; giving them their own bin is the caller's job.

Both take optional sample ``weights`` (one non-negative float per value; None:
every value weighs 1): ChiMerge's contingency table holds weighted class counts
(a row of weight w counts w) and equal-frequency cuts are weighted quantiles.
An integer weight acts exactly as that many copies of the row, and a row of
weight 0 as no row at all (it is dropped before anything is learnt).

Conventions of this implementation (see ``docs/discretization.md``):

* expected-count floor: an expected count of exactly 0 is replaced by
  :data:`EXPECTED_FLOOR` ``= 0.1`` (Kerber's rule), in the denominator *and* in
  the numerator, so each such empty cell contributes ``0.1`` to the statistic;
* tie rule: exactly one pair is merged per step -- the adjacent pair with the
  lowest chi-square, ties broken by the leftmost pair (statistics are rounded
  to 9 decimals first, so floating-point noise does not break ties);
* stop rule: merging stops as soon as the lowest chi-square is ``>= threshold``
  and the number of intervals is ``<= max_intervals`` (if given), or as soon as
  the number of intervals is ``<= min_intervals``;
* cut placement: each cut is the smallest observed value of the upper interval.
"""

from __future__ import annotations

import difflib
import inspect
import math
import operator
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from optrules.chimerge_kernel import (EXPECTED_FLOOR, adjacent_chi2, chimerge_kernel, group_by_class,
                                      merge_class_groups, pair_chi2)
from optrules.ruleset import format_number
from optrules.search_kernel import sorted_positions
from optrules.weights import validate_sample_weight

__all__ = [
    "EXPECTED_FLOOR",
    "Bins",
    "chimerge",
    "equal_frequency",
    "discretize",
    "METHODS",
]

# EXPECTED_FLOOR (the expected count that replaces an exact 0) and CHI2_DECIMALS (the rounding of
# the statistic before comparisons) live with the compiled kernels that use them
# (optrules/chimerge_kernel.pyx).


# --------------------------------------------------------------------------- #
# Bins
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class Bins:
    """Cut points ``c_1 < ... < c_{k-1}`` splitting the real line into ``k`` bins.

    ``bin 0 = [min, c_1)``, ``bin j = [c_j, c_{j+1})``, last ``= [c_{k-1}, max]``.
    Bins are left-closed and right-open; the first bin is unbounded below and
    the last unbounded above, so unseen extreme values still fall in a bin.
    With no cuts there is a single bin holding every non-missing value.
    """

    cuts: tuple[float, ...]

    def __post_init__(self) -> None:
        raw = np.asarray(self.cuts, dtype=np.float64)
        if raw.ndim != 1:
            raise ValueError(f"cuts must be one-dimensional, got shape {raw.shape}")
        if np.isnan(raw).any():
            raise ValueError("cuts must not contain NaN")
        if raw.size > 1 and not np.all(np.diff(raw) > 0):
            raise ValueError(f"cuts must be strictly increasing, got {raw.tolist()}")
        object.__setattr__(self, "cuts", tuple(raw.tolist()))  # Python floats

    @property
    def n_bins(self) -> int:
        """Number of bins (``len(cuts) + 1``)."""
        return len(self.cuts) + 1

    def assign(self, values: Any) -> np.ndarray:
        """Bin index (int64) of each value; NaN gives ``-1``.

        ``np.searchsorted(cuts, values, side="right")``, computed by the compiled
        :func:`optrules.search_kernel.sorted_positions` (several times faster on
        many values): a value equal to a cut ``c_j`` goes to the bin that starts
        at ``c_j``.  The output has the shape of ``values``.
        """
        arr = _as_float_array(values, allow_nd=True)
        idx = sorted_positions(np.asarray(self.cuts, dtype=np.float64), np.ascontiguousarray(arr.reshape(-1)),
                               True).reshape(arr.shape)
        nan = np.isnan(arr)
        if nan.any():
            idx = np.where(nan, np.int64(-1), idx)
        return idx

    def _check_index(self, j: int) -> int:
        j = operator.index(j)
        if not 0 <= j < self.n_bins:
            raise IndexError(f"bin index {j} out of range for {self.n_bins} bin(s)")
        return j

    def interval(self, j: int) -> tuple[float, float]:
        """``(low, high)`` of bin ``j``; ``-inf`` / ``+inf`` at the two ends."""
        j = self._check_index(j)
        low = -math.inf if j == 0 else self.cuts[j - 1]
        high = math.inf if j == self.n_bins - 1 else self.cuts[j]
        return (low, high)

    def label(self, j: int) -> str:
        """Readable label as printed in the LIBRE paper.

        ``"[min, 40)"`` for the first bin, ``"[40, 60)"`` for inner bins,
        ``"[60, max]"`` for the last one and ``"[min, max]"`` if there is a
        single bin.
        """
        j = self._check_index(j)
        low = "min" if j == 0 else format_number(self.cuts[j - 1])
        if j == self.n_bins - 1:
            return f"[{low}, max]"
        return f"[{low}, {format_number(self.cuts[j])})"

    def labels(self) -> list[str]:
        """Labels of all bins, in order."""
        return [self.label(j) for j in range(self.n_bins)]


# --------------------------------------------------------------------------- #
# input helpers
# --------------------------------------------------------------------------- #
def _as_float_array(values: Any, *, allow_nd: bool = False) -> np.ndarray:
    if hasattr(values, "to_numpy"):  # pandas Series / Index / extension arrays
        try:
            arr = values.to_numpy(dtype=np.float64, na_value=np.nan)
        except TypeError:
            arr = np.asarray(values.to_numpy(), dtype=np.float64)
    else:
        try:
            arr = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"values must be numeric: {exc}") from None
    if not allow_nd and arr.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {arr.shape}")
    return arr


def _as_weights(weights: Any, n: int) -> np.ndarray | None:
    """``weights`` checked (:func:`validate_sample_weight`); None, or weights that are all 1, give
    None (every row weighs 1: the unweighted path, with the same bins; the estimators pass the
    weights of ones of a fit without ``sample_weight``)."""
    if weights is None:
        return None
    weights = validate_sample_weight(weights, n, "weights", zero_sum=True)
    return None if np.all(weights == 1) else weights


def _as_label_codes(y: Any, n: int) -> tuple[np.ndarray, int]:
    """Integer codes ``0..n_classes-1`` for hashable labels; missing -> -1."""
    if isinstance(y, (pd.Series, pd.Index, pd.Categorical, np.ndarray)):
        arr = y
        if getattr(arr, "ndim", 1) != 1:
            raise ValueError(f"y must be one-dimensional, got shape {arr.shape}")
    else:
        items = list(y)
        arr = np.empty(len(items), dtype=object)
        arr[:] = items
    if len(arr) != n:
        raise ValueError(f"values and y have different lengths ({n} != {len(arr)})")
    codes, uniques = pd.factorize(arr, use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64), len(uniques)


# --------------------------------------------------------------------------- #
# chi-square
# --------------------------------------------------------------------------- #
def _adjacent_chi2(counts: Any) -> np.ndarray:
    """Chi-square of every adjacent pair of rows of a class-count table.

    ``counts`` has shape ``(m, n_classes)``; the result has length ``m - 1``, entry ``i`` being the
    statistic of the 2 x n_classes table made of rows ``i`` and ``i + 1``: ``E_kc = R_k * C_c / N``,
    with an expected count of 0 replaced by :data:`EXPECTED_FLOOR`, rounded to
    ``optrules.chimerge_kernel.CHI2_DECIMALS`` decimals: the compiled
    :func:`optrules.chimerge_kernel.adjacent_chi2`, which computes every statistic of ChiMerge the
    same way, so it is bit-identical to :func:`_pair_chi2`.
    """
    table = np.ascontiguousarray(counts, dtype=np.float64)
    if table.ndim != 2:
        raise ValueError(f"counts must be two-dimensional, got shape {table.shape}")
    return adjacent_chi2(table)


def _pair_chi2(a: Any, b: Any) -> float:
    """Chi-square of the 2 x n_classes table with (possibly weighted) count rows ``a`` and ``b``
    (the compiled :func:`optrules.chimerge_kernel.pair_chi2`)."""
    return pair_chi2(np.ascontiguousarray(a, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64))


# --------------------------------------------------------------------------- #
# ChiMerge
# --------------------------------------------------------------------------- #
def chimerge(
    values: Any,
    y: Any,
    threshold: float = 4.6,
    max_intervals: int | None = None,
    min_intervals: int = 1,
    weights: Any = None,
) -> Bins:
    """Kerber's ChiMerge (AAAI-92) on one numeric column.

    Starts with one interval per distinct non-missing value and repeatedly
    merges the adjacent pair of intervals with the lowest chi-square statistic
    (ties: leftmost pair; one merge per step).  Stops as soon as

    * the lowest chi-square is ``>= threshold`` **and** there are at most
      ``max_intervals`` intervals (when given), or
    * there are at most ``min_intervals`` intervals.

    ``threshold <= 0`` therefore never merges for significance (chi-square is
    never negative) but ``max_intervals`` still applies.  Typical thresholds
    are 6, 4.6 (about the 0.90 quantile of chi-square with 1 dof, i.e. two
    classes) and 4; in general ``scipy.stats.chi2.ppf(q, n_classes - 1)``.

    Rows whose value is NaN, or whose label is missing (None / NaN), are
    ignored.  Labels may be any hashable objects.  Each cut is the smallest
    observed value of the interval above it.

    ``weights`` (one non-negative float per row, None: all 1) make the class
    counts weighted: a row of weight w counts w in its value's row of the table
    (so an integer weight acts as that many copies of the row), and a row of
    weight 0 is ignored like a missing one.  The expected-count floor and the
    thresholds are unchanged, in the units of the weights.

    The work after the label coding is one sort of the kept values and one compiled call,
    :func:`optrules.chimerge_kernel.chimerge_kernel`.  Without weights and with at most
    :data:`SORT_BY_CLASS_MAX` classes the values are sorted class by class and merged
    (:func:`_sorted_by_class`), otherwise by one ``np.argsort`` (:func:`_sorted_by_value`).  The
    sorts and the kernels release the GIL, so several columns are discretised in parallel threads
    (:meth:`optrules.encode.FeatureBinning.fit`).
    """
    thr = float(threshold)
    if math.isnan(thr):
        raise ValueError("threshold must be a number, got NaN")
    if max_intervals is not None:
        max_intervals = operator.index(max_intervals)
        if max_intervals < 1:
            raise ValueError(f"max_intervals must be >= 1, got {max_intervals}")
    min_intervals = operator.index(min_intervals)
    if min_intervals < 1:
        raise ValueError(f"min_intervals must be >= 1, got {min_intervals}")
    if max_intervals is not None and max_intervals < min_intervals:
        raise ValueError(
            f"max_intervals ({max_intervals}) must be >= min_intervals ({min_intervals})"
        )

    x = _as_float_array(values)
    codes, n_classes = _as_label_codes(y, x.shape[0])
    w = _as_weights(weights, x.shape[0])
    if w is None and n_classes <= SORT_BY_CLASS_MAX:
        sorted_x, sorted_codes, n_classes = _sorted_by_class(x, codes, n_classes)
        sorted_weights = np.empty(0, dtype=np.float64)
    else:
        sorted_x, sorted_codes, sorted_weights, n_classes = _sorted_by_value(x, codes, n_classes, w)
    if sorted_x.size == 0:
        return Bins(())
    limit = -1 if max_intervals is None else int(max_intervals)
    cuts = chimerge_kernel(sorted_x, sorted_codes, sorted_weights, n_classes, thr, limit, int(min_intervals))
    return Bins(tuple(cuts.tolist()))


#: Unweighted columns of at most this many classes are sorted class by class
#: (:func:`_sorted_by_class`), the others by one ``np.argsort`` (:func:`_sorted_by_value`).
SORT_BY_CLASS_MAX = 8


def _sorted_by_value(x: np.ndarray, codes: np.ndarray, n_classes: int,
                     w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The rows with a value, a label and (with weights) a positive weight, sorted by value: their
    values, class codes renumbered over the classes they hold (a label that occurs only next to a
    missing value must not add an all-empty column to the table), weights (empty without
    ``w``) and the number of those classes.  Weighted rows keep their order among equal values
    (a stable sort), so the weights of one value are summed in the order of the rows."""
    keep = ~np.isnan(x) & (codes >= 0)
    if w is not None:
        keep &= w > 0
    x = x[keep]
    codes = codes[keep]
    present = np.bincount(codes, minlength=n_classes) > 0
    if not present.all():
        codes = (np.cumsum(present) - 1)[codes]
    n_classes = int(present.sum())
    if w is None:
        order = np.argsort(x)
        return x[order], codes[order], np.empty(0, dtype=np.float64), n_classes
    order = np.argsort(x, kind="stable")
    return x[order], codes[order], np.ascontiguousarray(w[keep][order]), n_classes


def _sorted_by_class(x: np.ndarray, codes: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray, int]:
    """What :func:`_sorted_by_value` returns for unweighted rows, made by grouping the values by
    class (:func:`optrules.chimerge_kernel.group_by_class`), sorting each class in place (``sort``,
    several times faster than ``np.argsort`` and the gathers through it) and merging the sorted
    classes (:func:`optrules.chimerge_kernel.merge_class_groups`); the rows of one value come in
    class order, which changes nothing when every row weighs 1."""
    grouped, offsets = group_by_class(x, codes, n_classes)
    if grouped.size == 0:
        return grouped, np.empty(0, dtype=np.int64), 0
    for start, stop in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        grouped[start:stop].sort()
    sorted_x, sorted_codes = merge_class_groups(grouped, offsets)
    return sorted_x, sorted_codes, offsets.size - 1


# --------------------------------------------------------------------------- #
# equal frequency
# --------------------------------------------------------------------------- #
def equal_frequency(values: Any, n_bins: int = 5, weights: Any = None) -> Bins:
    """Quantile (equal-frequency) cuts on the non-missing values.

    With ``v`` the ``n`` sorted non-missing values, candidate cut ``i``
    (``i = 1 .. n_bins-1``) is the observed value ``v[(i * n) // n_bins]``,
    so that, without ties, bin ``i-1`` holds about ``n / n_bins`` values.
    Candidates are deduplicated and a candidate equal to the minimum is
    dropped (it would leave the first bin empty), so ties may give fewer than
    ``n_bins`` bins.

    With ``weights`` (one non-negative float per value; None: all 1) the cuts
    are weighted quantiles: with ``W_j`` the summed weight of ``v[0..j]`` and
    ``W`` the total, candidate ``i`` is the first ``v[j]`` with
    ``W_j * n_bins > i * W``.  With unit weights that is ``v[(i * n) // n_bins]``,
    an integer weight acts as that many copies of the value, and a value of
    weight 0 is ignored.
    """
    if isinstance(n_bins, bool):
        raise ValueError(f"n_bins must be an integer >= 1, got {n_bins!r}")
    try:
        n_bins = operator.index(n_bins)
    except TypeError:
        raise ValueError(f"n_bins must be an integer >= 1, got {n_bins!r}") from None
    if n_bins < 1:
        raise ValueError(f"n_bins must be an integer >= 1, got {n_bins}")
    x = _as_float_array(values)
    w = _as_weights(weights, x.shape[0])
    if w is None:
        w = np.ones(x.shape[0])
    present = ~np.isnan(x) & (w > 0)
    order = np.argsort(x[present], kind="stable")
    x = x[present][order]
    if x.size == 0 or n_bins == 1:
        return Bins(())
    # W_j * n_bins > i * W, exactly in floats for integer weights (sums below 2**53)
    cumulative = np.cumsum(w[present][order])
    ranks = np.searchsorted(cumulative * n_bins, np.arange(1, n_bins) * cumulative[-1], side="right")
    cand = np.unique(x[ranks])
    cand = cand[cand > x[0]]
    return Bins(tuple(cand.tolist()))


# --------------------------------------------------------------------------- #
# dispatcher
# --------------------------------------------------------------------------- #
METHODS = ("chimerge", "equal_frequency")


def check_discretizer_options(method: str, params: Mapping[str, Any]) -> None:
    """``ValueError`` naming an option that ``method``'s discretiser does not take, with the ones it
    does (before any data is read: it was chimerge's own TypeError, mid-fit)."""
    function = {"chimerge": chimerge, "equal_frequency": equal_frequency}.get(method)
    if function is None:
        return  # an unknown method is discretize's error
    taking = [name for name in inspect.signature(function).parameters if name not in ("values", "y", "weights")]
    unknown = sorted(set(params) - set(taking))
    if unknown:
        close = difflib.get_close_matches(unknown[0], taking, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"discretization option(s) {unknown} are not options of {method!r}{hint} "
                         f"(its options: {', '.join(taking)})")


def discretize(values: Any, y: Any = None, method: str = "chimerge", weights: Any = None,
               **params: Any) -> Bins:
    """Discretize one column with the named method.

    ``method="chimerge"`` needs class labels ``y`` and accepts the keyword
    arguments of :func:`chimerge`; ``method="equal_frequency"`` ignores ``y``
    and accepts ``n_bins``.  Both take the sample ``weights`` (weighted class
    counts, weighted quantiles; see the module docstring).  Unknown methods or
    a missing ``y`` raise ``ValueError``.
    """
    if method == "chimerge":
        if y is None:
            raise ValueError("method 'chimerge' is supervised and needs class labels y")
        return chimerge(values, y, weights=weights, **params)
    if method == "equal_frequency":
        return equal_frequency(values, weights=weights, **params)
    raise ValueError(
        f"unknown discretization method {method!r}; expected one of "
        + ", ".join(repr(m) for m in METHODS)
    )
