"""Tests for optrules.discretize (ChiMerge, equal-frequency bins, Bins)."""

from __future__ import annotations

import heapq
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency

import optrules.discretize as dz
from optrules.discretize import (
    EXPECTED_FLOOR,
    Bins,
    chimerge,
    discretize,
    equal_frequency,
)

PROPS = settings(derandomize=True, max_examples=150, deadline=None)


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #
def reference_chimerge(values, y, threshold, max_intervals=None, min_intervals=1):
    """Naive O(m^2) ChiMerge: recompute every adjacent chi2 each round, merge
    the first (leftmost) minimum.  Uses the module's own pair statistic so that
    ties are resolved on identical floating-point values."""
    values = np.asarray(values, dtype=float)
    y = list(y)
    pairs = [(v, c) for v, c in zip(values, y) if not math.isnan(v)]
    if not pairs:
        return ()
    classes = sorted({c for _, c in pairs}, key=repr)
    distinct = sorted({v for v, _ in pairs})
    rows = []
    for d in distinct:
        rows.append([sum(1 for v, c in pairs if v == d and c == k) for k in classes])
    starts = list(range(len(distinct)))
    while len(rows) > min_intervals and len(rows) > 1:
        chis = [dz._pair_chi2(rows[i], rows[i + 1]) for i in range(len(rows) - 1)]
        lo = min(chis)
        if lo >= threshold and (max_intervals is None or len(rows) <= max_intervals):
            break
        i = chis.index(lo)
        rows[i] = [p + q for p, q in zip(rows[i], rows[i + 1])]
        del rows[i + 1]
        del starts[i + 1]
    return tuple(float(distinct[s]) for s in starts[1:])


def reference_assign(cuts, values):
    out = []
    for v in values:
        if math.isnan(v):
            out.append(-1)
            continue
        j = 0
        for c in cuts:
            if v >= c:
                j += 1
        out.append(j)
    return np.array(out, dtype=np.int64)


small_values = st.lists(
    st.one_of(st.integers(-6, 6).map(float), st.just(float("nan"))),
    min_size=1,
    max_size=40,
)


@st.composite
def labelled_column(draw, max_classes=3):
    xs = draw(small_values)
    n_classes = draw(st.integers(1, max_classes))
    ys = draw(st.lists(st.integers(0, n_classes - 1), min_size=len(xs), max_size=len(xs)))
    return xs, ys


# --------------------------------------------------------------------------- #
# chi-square statistic
# --------------------------------------------------------------------------- #
def test_chi2_hand_computed_2x2():
    # rows (10, 5) and (3, 12): R = 15, 15; C = 13, 17; N = 30
    # E = 6.5, 8.5 in both rows; every |O - E| = 3.5
    # chi2 = 2 * 12.25 * (1/6.5 + 1/8.5) = 24.5 * 60/221 = 1470/221
    expected = 1470 / 221
    assert dz._pair_chi2([10, 5], [3, 12]) == pytest.approx(expected, abs=1e-9)
    vec = dz._adjacent_chi2(np.array([[10, 5], [3, 12]]))
    assert vec.shape == (1,)
    assert vec[0] == pytest.approx(expected, abs=1e-9)
    stat = chi2_contingency(np.array([[10, 5], [3, 12]]), correction=False)[0]
    assert vec[0] == pytest.approx(stat, abs=1e-9)


def test_chi2_hand_computed_perfect_split():
    # (2, 0) vs (0, 2): every E = 1, every |O - E| = 1 -> chi2 = 4
    assert dz._pair_chi2([2, 0], [0, 2]) == pytest.approx(4.0)
    # identical class distributions -> 0 exactly
    assert dz._pair_chi2([3, 1], [6, 2]) == 0.0


def test_chi2_expected_floor_for_empty_class():
    # class 1 absent from both rows: its expected counts are 0 and become the
    # floor 0.1, so each of the two empty cells adds (0 - 0.1)^2 / 0.1 = 0.1
    assert EXPECTED_FLOOR == 0.1
    got = dz._pair_chi2([4, 0], [2, 0])
    assert got == pytest.approx(2 * EXPECTED_FLOOR)
    assert dz._adjacent_chi2(np.array([[4, 0], [2, 0]]))[0] == got
    # single class: no empty cell, chi2 is exactly 0
    assert dz._pair_chi2([4], [2]) == 0.0


@PROPS
@given(
    st.integers(2, 5).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(1, 30), min_size=k, max_size=k), min_size=2, max_size=8
        )
    )
)
def test_chi2_matches_scipy_without_zero_expectations(rows):
    table = np.array(rows)
    vec = dz._adjacent_chi2(table)
    for i in range(len(rows) - 1):
        stat = chi2_contingency(table[i : i + 2], correction=False)[0]
        # the module rounds statistics to 9 decimals
        assert vec[i] == pytest.approx(stat, rel=1e-9, abs=1e-9)


@PROPS
@given(
    st.integers(1, 5).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(0, 20), min_size=k, max_size=k).filter(lambda r: sum(r) > 0),
            min_size=2,
            max_size=8,
        )
    )
)
def test_vectorised_and_scalar_chi2_are_bit_identical(rows):
    vec = dz._adjacent_chi2(np.array(rows))
    for i in range(len(rows) - 1):
        assert vec[i] == dz._pair_chi2(rows[i], rows[i + 1])  # exact, not approx


# --------------------------------------------------------------------------- #
# ChiMerge behaviour
# --------------------------------------------------------------------------- #
def test_chimerge_recovers_single_class_flip():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 100, 2000).astype(float)
    y = (x >= 37).astype(int)
    bins = chimerge(x, y)
    assert bins.cuts == (37.0,)
    assert bins.labels() == ["[min, 37)", "[37, max]"]


def test_chimerge_recovers_three_pure_blocks():
    x = np.arange(0.0, 90.0, 0.5)
    y = np.where(x < 20, "a", np.where(x < 60.5, "b", "c"))
    bins = chimerge(x, y, threshold=4.6)
    assert bins.cuts == (20.0, 60.5)


def test_chimerge_stop_rule_is_greater_or_equal():
    x = [0, 0, 1, 1]
    y = [0, 0, 1, 1]  # chi2 of the only pair is exactly 4
    assert chimerge(x, y, threshold=4.0).cuts == (1.0,)  # 4 >= 4: stop
    assert chimerge(x, y, threshold=4.000001).cuts == ()  # 4 < t: merge


def test_chimerge_merges_lowest_pair_first_not_left_to_right():
    # per-value class counts: v0 (3,0), v1 (0,3), v2 (1,1), v3 (1,1)
    # chi2: (v0,v1) = 6, (v1,v2) = 1.875, (v2,v3) = 0
    x = [0] * 3 + [1] * 3 + [2, 2] + [3, 3]
    y = [0] * 3 + [1] * 3 + [0, 1] + [0, 1]
    assert chimerge(x, y, threshold=0, max_intervals=3).cuts == (1.0, 2.0)
    assert chimerge(x, y, threshold=0, max_intervals=2).cuts == (1.0,)


def test_chimerge_ties_merge_leftmost_pair_one_at_a_time():
    # chi2: (v0,v1) = 0.2, (v1,v2) = 2, (v2,v3) = 0.2  -> tie, leftmost wins
    x = [0, 1, 2, 3]
    y = [0, 0, 1, 1]
    assert chimerge(x, y, threshold=0, max_intervals=3).cuts == (2.0, 3.0)
    assert chimerge(x, y, threshold=0, max_intervals=2).cuts == (2.0,)


@PROPS
@given(labelled_column(), st.sampled_from([0.0, 0.5, 2.0, 4.0, 4.6, 6.0, 50.0]),
       st.one_of(st.none(), st.integers(1, 6)), st.integers(1, 3))
def test_chimerge_matches_naive_reference(col, threshold, max_intervals, min_intervals):
    xs, ys = col
    if max_intervals is not None and max_intervals < min_intervals:
        max_intervals = min_intervals
    got = chimerge(xs, ys, threshold=threshold, max_intervals=max_intervals,
                   min_intervals=min_intervals)
    assert got.cuts == reference_chimerge(xs, ys, threshold, max_intervals, min_intervals)


@PROPS
@given(labelled_column(max_classes=4), st.permutations(["p", "q", "r", "s"]),
       st.sampled_from([0.0, 1.0, 2.0, 4.6]), st.one_of(st.none(), st.integers(1, 4)))
def test_result_does_not_depend_on_class_names_or_their_order(col, names, threshold, mx):
    xs, ys = col
    base = chimerge(xs, ys, threshold=threshold, max_intervals=mx)
    renamed = [names[c] for c in ys]
    assert chimerge(xs, renamed, threshold=threshold, max_intervals=mx) == base
    # reversing the rows changes the order in which classes are first seen
    order = np.argsort(np.array(xs, dtype=float)[::-1], kind="stable")
    rev_x = [xs[::-1][i] for i in order]
    rev_y = [renamed[::-1][i] for i in order]
    assert chimerge(rev_x, rev_y, threshold=threshold, max_intervals=mx) == base


@PROPS
@given(labelled_column(max_classes=4),
       st.floats(0, 20, allow_nan=False), st.floats(0, 20, allow_nan=False),
       st.one_of(st.none(), st.integers(1, 6)))
def test_higher_threshold_never_gives_more_bins(col, t1, t2, max_intervals):
    xs, ys = col
    lo, hi = sorted((t1, t2))
    b_lo = chimerge(xs, ys, threshold=lo, max_intervals=max_intervals)
    b_hi = chimerge(xs, ys, threshold=hi, max_intervals=max_intervals)
    assert b_hi.n_bins <= b_lo.n_bins
    # the merge sequence does not depend on the threshold, so the coarser
    # result's cuts are a subset of the finer one's
    assert set(b_hi.cuts) <= set(b_lo.cuts)


@PROPS
@given(labelled_column(), st.floats(0, 10, allow_nan=False), st.integers(1, 5))
def test_max_intervals_respected_and_cuts_are_observed_values(col, threshold, max_intervals):
    xs, ys = col
    bins = chimerge(xs, ys, threshold=threshold, max_intervals=max_intervals)
    assert bins.n_bins <= max_intervals
    cuts = np.array(bins.cuts)
    assert np.all(np.diff(cuts) > 0)  # sorted and unique
    observed = {v for v in xs if not math.isnan(v)}
    assert set(bins.cuts) <= observed
    if observed:
        assert all(c > min(observed) for c in bins.cuts)  # no empty first bin


def test_many_classes_match_the_reference():
    # 13 classes and 300 distinct values: the compiled merge loop against the step-by-step reference
    rng = np.random.default_rng(7)
    x = rng.integers(0, 300, 3000).astype(float)
    y = rng.integers(0, 5, 3000) + (x // 60).astype(int) * 2
    expected = chimerge(x, y, threshold=13.4)
    assert expected.cuts == tuple(reference_chimerge(x, y, 13.4))
    assert chimerge(x, y, threshold=13.4, max_intervals=4).cuts == tuple(
        reference_chimerge(x, y, 13.4, max_intervals=4))
    assert expected.n_bins > 1


def test_chimerge_multiclass_hashable_labels_and_missing():
    x = [1, 2, 3, 4, 5, 6, np.nan, 7, 8, 9]
    y = [("a", 1), ("a", 1), ("a", 1), "b", "b", "b", "z", None, 3, 3]
    # the NaN value and the row with a missing label (value 7) are ignored
    bins = chimerge(x, y, threshold=2.0)
    assert bins.cuts == (4.0, 8.0)
    assert chimerge(pd.Series(x, dtype="Float64"), pd.Series(y, dtype=object),
                    threshold=2.0) == bins


def test_class_seen_only_on_missing_rows_is_not_counted():
    # with two classes a pure pair of singletons has chi2 0.2 (one empty class
    # column); a third class that only occurs next to NaN must not add a second
    # empty column (which would lift it to 0.4 >= threshold 0.3)
    x = [0.0, 1.0, 2.0, np.nan]
    assert chimerge(x, [0, 0, 1, 2], threshold=0.3).cuts == (2.0,)
    assert chimerge(x[:3], [0, 0, 1], threshold=0.3).cuts == (2.0,)
    # with a genuine third (absent-from-the-pair) class the pure pair has 0.4
    assert chimerge([0.0, 1.0, 2.0, 3.0], [0, 0, 1, 2], threshold=0.3).cuts == (1.0, 2.0, 3.0)


def test_chimerge_merges_a_large_noisy_column():
    rng = np.random.default_rng(0)
    x = np.round(rng.lognormal(12, 0.5, 50_000) / 12)
    assert np.unique(x).size > 15_000
    y = (rng.random(x.size) < 1 / (1 + np.exp(-(np.log(x) - 9.9)))).astype(int)
    bins = chimerge(x, y)
    assert 1 < bins.n_bins < np.unique(x).size
    assert chimerge(x, y, max_intervals=6).n_bins <= 6


# --------------------------------------------------------------------------- #
# ChiMerge edge cases
# --------------------------------------------------------------------------- #
def test_all_values_equal_gives_one_bin():
    assert chimerge([3.5] * 10, [0, 1] * 5) == Bins(())


def test_all_values_missing_gives_one_bin():
    bins = chimerge([np.nan] * 4, [0, 1, 0, 1])
    assert bins.n_bins == 1 and bins.cuts == ()
    assert equal_frequency([np.nan] * 4, 3).cuts == ()


def test_empty_column_gives_one_bin():
    assert chimerge([], []).n_bins == 1


def test_single_class_gives_one_bin():
    assert chimerge(np.arange(50.0), ["yes"] * 50).n_bins == 1
    assert chimerge(np.arange(50.0), ["yes"] * 50, threshold=1e-9).n_bins == 1


def test_nonpositive_threshold_keeps_distinct_values():
    x = [5, 1, 3, 3, 9, 1]
    y = [0, 0, 0, 0, 0, 0]
    assert chimerge(x, y, threshold=0).cuts == (3.0, 5.0, 9.0)
    assert chimerge(x, y, threshold=-1.0).cuts == (3.0, 5.0, 9.0)
    # ... but max_intervals still applies
    assert chimerge(x, y, threshold=0, max_intervals=2).n_bins == 2


def test_min_intervals_stops_merging_early():
    x = np.arange(20.0)
    y = np.zeros(20, dtype=int)
    assert chimerge(x, y, min_intervals=4).n_bins == 4
    assert chimerge(x, y, threshold=1e9, min_intervals=1).n_bins == 1


@pytest.mark.parametrize("bad", [0, -3])
def test_max_intervals_below_one_raises(bad):
    with pytest.raises(ValueError, match=r"max_intervals must be >= 1"):
        chimerge([1, 2, 3], [0, 1, 0], max_intervals=bad)


def test_other_argument_errors():
    with pytest.raises(ValueError, match=r"min_intervals must be >= 1"):
        chimerge([1, 2], [0, 1], min_intervals=0)
    with pytest.raises(ValueError, match=r"max_intervals \(2\) must be >= min_intervals \(3\)"):
        chimerge([1, 2], [0, 1], max_intervals=2, min_intervals=3)
    with pytest.raises(ValueError, match=r"different lengths"):
        chimerge([1, 2, 3], [0, 1])
    with pytest.raises(ValueError, match=r"threshold must be a number"):
        chimerge([1, 2], [0, 1], threshold=float("nan"))
    with pytest.raises(ValueError, match=r"one-dimensional"):
        chimerge(np.zeros((2, 2)), [0, 1])


# --------------------------------------------------------------------------- #
# equal frequency
# --------------------------------------------------------------------------- #
def test_equal_frequency_basic():
    bins = equal_frequency(np.arange(1.0, 11.0), 5)
    assert bins.cuts == (3.0, 5.0, 7.0, 9.0)
    counts = np.bincount(bins.assign(np.arange(1.0, 11.0)))
    assert counts.tolist() == [2, 2, 2, 2, 2]


def test_equal_frequency_ignores_missing_and_dedups_ties():
    x = [1, 1, 1, 1, 1, 1, 2, 3, np.nan, np.nan]
    bins = equal_frequency(x, 4)
    # sorted non-missing v = 1 1 1 1 1 1 2 3; candidates v[2], v[4], v[6]
    # = 1, 1, 2 -> deduplicated, and 1 (the minimum) dropped
    assert bins.cuts == (2.0,)
    assert equal_frequency([4.0] * 7, 3).cuts == ()
    assert equal_frequency([1, 2, 3], 1).cuts == ()


@PROPS
@given(small_values, st.integers(1, 8))
def test_equal_frequency_properties(xs, n_bins):
    bins = equal_frequency(xs, n_bins)
    observed = {v for v in xs if not math.isnan(v)}
    assert bins.n_bins <= n_bins
    assert set(bins.cuts) <= observed
    assert np.all(np.diff(np.array(bins.cuts)) > 0)
    if observed:
        assert all(c > min(observed) for c in bins.cuts)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "3", True])
def test_equal_frequency_bad_n_bins(bad):
    with pytest.raises(ValueError, match=r"n_bins must be an integer >= 1"):
        equal_frequency([1, 2, 3], bad)


# --------------------------------------------------------------------------- #
# Bins
# --------------------------------------------------------------------------- #
@PROPS
@given(
    st.lists(st.floats(-100, 100, allow_nan=False), max_size=6, unique=True).map(sorted),
    st.lists(
        st.one_of(st.floats(-150, 150, allow_nan=False), st.just(float("nan")),
                  st.sampled_from([-math.inf, math.inf])),
        max_size=30,
    ),
)
def test_assign_matches_reference_loop(cuts, values):
    bins = Bins(tuple(cuts))
    # include the cuts themselves: a value equal to a cut opens that cut's bin
    values = values + list(cuts)
    got = bins.assign(np.array(values, dtype=float))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, reference_assign(cuts, values))
    for v, j in zip(values, got):
        if not math.isnan(v):
            low, high = bins.interval(int(j))
            assert low <= v < high or (v == math.inf and high == math.inf)


def test_assign_nan_and_extremes():
    bins = Bins((40, 60))
    got = bins.assign([np.nan, -1e300, 39.999, 40, 59.9, 60, 1e300, np.inf, -np.inf])
    assert got.tolist() == [-1, 0, 0, 1, 1, 2, 2, 2, 0]
    assert Bins(()).assign([1.0, np.nan]).tolist() == [0, -1]
    assert bins.assign(np.array([[40.0], [np.nan]])).shape == (2, 1)
    assert bins.assign(pd.Series([1.0, None, 70.0], dtype="Float64")).tolist() == [0, -1, 2]


def test_interval_and_labels():
    bins = Bins((40, 60))
    assert bins.n_bins == 3
    assert bins.interval(0) == (-math.inf, 40.0)
    assert bins.interval(1) == (40.0, 60.0)
    assert bins.interval(2) == (60.0, math.inf)
    assert [bins.label(j) for j in range(3)] == ["[min, 40)", "[40, 60)", "[60, max]"]
    assert Bins(()).label(0) == "[min, max]"
    assert Bins(()).interval(0) == (-math.inf, math.inf)
    assert Bins((20,)).labels() == ["[min, 20)", "[20, max]"]
    with pytest.raises(IndexError, match=r"out of range"):
        bins.label(3)
    with pytest.raises(IndexError, match=r"out of range"):
        bins.interval(-1)


def test_label_number_formatting():
    # 1000 + 0.1 + 0.2 is 1000.3000000000001, not 1000.3: printed as "1000.3", the value 1000.3
    # would read as outside a bin it is in. Labels print each cut as the shortest decimal that
    # reads back as that cut.
    bins = Bins((0.529, 30.7, 1000 + 0.1 + 0.2, 1250, 178356.5, 1_000_000))
    assert bins.labels() == [
        "[min, 0.529)",
        "[0.529, 30.7)",
        "[30.7, 1000.3000000000001)",
        "[1000.3000000000001, 1250)",
        "[1250, 178356.5)",
        "[178356.5, 1000000)",
        "[1000000, max]",
    ]
    assert Bins((-2.5, -0.0, 0.0001)).labels() == [
        "[min, -2.5)", "[-2.5, 0)", "[0, 0.0001)", "[0.0001, max]"
    ]
    assert "e" not in Bins((123456789.25,)).label(1)
    for cut in (40.712835, 1 + 3e-8, 1e-7, 1e20, 0.1 + 0.2):
        assert float(Bins((cut,)).label(1).removeprefix("[").removesuffix(", max]")) == cut


def test_bins_validation_and_normalisation():
    b = Bins([1, 2.5, np.int64(7)])
    assert b.cuts == (1.0, 2.5, 7.0)
    assert all(type(c) is float for c in b.cuts)
    assert b == Bins((1.0, 2.5, 7.0))
    with pytest.raises(ValueError, match=r"strictly increasing"):
        Bins((2, 1))
    with pytest.raises(ValueError, match=r"strictly increasing"):
        Bins((1, 1))
    with pytest.raises(ValueError, match=r"NaN"):
        Bins((1, float("nan")))
    with pytest.raises(AttributeError):
        b.cuts = ()  # frozen


# --------------------------------------------------------------------------- #
# dispatcher
# --------------------------------------------------------------------------- #
def test_discretize_dispatches():
    x = np.arange(0.0, 90.0, 0.5)
    y = np.where(x < 20, 0, 1)
    assert discretize(x, y) == chimerge(x, y)
    assert discretize(x, y, method="chimerge", threshold=6, max_intervals=3) == chimerge(
        x, y, threshold=6, max_intervals=3
    )
    assert discretize(x, method="equal_frequency", n_bins=4) == equal_frequency(x, 4)
    assert discretize(x, y, method="equal_frequency") == equal_frequency(x)


def test_discretize_errors():
    with pytest.raises(ValueError, match=r"unknown discretization method 'kmeans'"):
        discretize([1, 2, 3], [0, 1, 0], method="kmeans")
    with pytest.raises(ValueError, match=r"'chimerge' is supervised and needs class labels y"):
        discretize([1, 2, 3])


# --------------------------------------------------------------------------- #
# sample weights
# --------------------------------------------------------------------------- #
@st.composite
def weighted_column(draw, max_classes=3):
    xs, ys = draw(labelled_column(max_classes))
    weights = draw(st.lists(st.integers(0, 3), min_size=len(xs), max_size=len(xs)))
    return xs, ys, weights


@PROPS
@given(weighted_column(), st.sampled_from([0.0, 0.5, 2.0, 4.6, 50.0]), st.sampled_from([None, 1, 2, 3]))
def test_chimerge_integer_weights_equal_duplicated_rows(col, threshold, max_intervals):
    xs, ys, weights = col
    copies = np.repeat(np.arange(len(xs)), weights)
    weighted = chimerge(xs, ys, threshold, max_intervals, weights=np.array(weights, dtype=float))
    duplicated = chimerge(np.array(xs)[copies], np.array(ys)[copies], threshold, max_intervals)
    assert weighted.cuts == duplicated.cuts  # a weight of 0 removes the row (no copy of it)


@PROPS
@given(labelled_column(), st.sampled_from([0.0, 2.0, 4.6, 50.0]), st.sampled_from([None, 2, 3]))
def test_chimerge_unit_weights_are_unweighted(col, threshold, max_intervals):
    xs, ys = col
    assert (chimerge(xs, ys, threshold, max_intervals, weights=np.ones(len(xs))).cuts
            == chimerge(xs, ys, threshold, max_intervals).cuts)


def test_chimerge_counts_a_row_by_its_weight():
    # unweighted: the table [[1, 0], [0, 1]] has chi2 2 < 4.6 and merges; weighing both rows 3
    # gives [[3, 0], [0, 3]], chi2 6 (every E = 1.5, every cell (1.5)^2 / 1.5), which stays split
    assert chimerge([1.0, 2.0], ["a", "b"], 4.6).cuts == ()
    assert chimerge([1.0, 2.0], ["a", "b"], 4.6, weights=[3.0, 3.0]).cuts == (2.0,)
    assert dz._pair_chi2([3.0, 0.0], [0.0, 3.0]) == pytest.approx(6.0)
    # fractional weights are fractional counts: the statistic of the weighted table
    rows = np.array([[2.5, 0.5], [0.25, 3.0]])
    expected = chi2_contingency(rows, correction=False)[0]
    assert dz._pair_chi2(rows[0], rows[1]) == pytest.approx(expected, abs=1e-9)
    assert chimerge([1.0, 1.0, 2.0, 2.0], ["a", "b", "a", "b"], expected - 1e-6,
                    weights=[2.5, 0.5, 0.25, 3.0]).cuts == (2.0,)
    assert chimerge([1.0, 1.0, 2.0, 2.0], ["a", "b", "a", "b"], expected + 1e-6,
                    weights=[2.5, 0.5, 0.25, 3.0]).cuts == ()


def test_chimerge_ignores_rows_of_weight_zero():
    # the row at 5 weighs nothing: no interval of its own, no cut at it, its class not counted
    x, y = [1.0, 2.0, 3.0, 4.0, 5.0], ["a", "a", "b", "b", "c"]
    weights = [1.0, 1.0, 1.0, 1.0, 0.0]
    assert chimerge(x, y, 0.0, weights=weights).cuts == chimerge(x[:4], y[:4], 0.0).cuts == (2.0, 3.0, 4.0)
    assert chimerge(x, y, 1.0, weights=weights).cuts == chimerge(x[:4], y[:4], 1.0).cuts
    assert chimerge([1.0, 2.0], ["a", "b"], weights=[0.0, 0.0]).cuts == ()


@PROPS
@given(small_values, st.integers(1, 8), st.data())
def test_equal_frequency_integer_weights_equal_duplicated_rows(xs, n_bins, data):
    weights = data.draw(st.lists(st.integers(0, 3), min_size=len(xs), max_size=len(xs)))
    copies = np.repeat(np.arange(len(xs)), weights)
    assert (equal_frequency(xs, n_bins, weights=np.array(weights, dtype=float)).cuts
            == equal_frequency(np.array(xs)[copies], n_bins).cuts)
    assert equal_frequency(xs, n_bins, weights=np.ones(len(xs))).cuts == equal_frequency(xs, n_bins).cuts


def test_equal_frequency_weighted_quantiles_by_hand():
    # W = 6, cumulative [3, 4, 5, 6]: the first v_j with 2 * W_j > 1 * 6 is v_1 = 2
    assert equal_frequency([1.0, 2.0, 3.0, 4.0], 2, weights=[3.0, 1.0, 1.0, 1.0]).cuts == (2.0,)
    # fractional weights: W = 4, cumulative [0.5, 1, 3, 4]: 2 * W_j > 4 first at v_2 = 3
    assert equal_frequency([1.0, 2.0, 3.0, 4.0], 2, weights=[0.5, 0.5, 2.0, 1.0]).cuts == (3.0,)
    # a value of weight 0 is never a cut, nor the minimum
    assert equal_frequency([0.0, 1.0, 2.0, 3.0, 4.0], 2, weights=[0.0, 1.0, 1.0, 1.0, 1.0]).cuts == (3.0,)


def test_discretize_passes_the_weights_on():
    x = np.arange(0.0, 30.0)
    y = np.where(x < 10, 0, 1)
    weights = np.arange(30) % 3 * 1.0
    assert discretize(x, y, weights=weights) == chimerge(x, y, weights=weights)
    assert discretize(x, method="equal_frequency", n_bins=4, weights=weights) == equal_frequency(x, 4, weights)


def test_weights_of_the_wrong_shape_are_refused():
    with pytest.raises(ValueError, match=r"weights has 2 values for 3 samples"):
        chimerge([1.0, 2.0, 3.0], [0, 1, 0], weights=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"weights must be 1-dimensional .*\(3, 1\)"):
        equal_frequency([1.0, 2.0, 3.0], 2, weights=np.ones((3, 1)))


# --------------------------------------------------------------------------- #
# the merge kernel against the previous implementation
# --------------------------------------------------------------------------- #
# The ChiMerge of the package before its tournament-tree kernel, kept here as a second method:
# one np.unique + np.bincount table, the vectorised statistics of every adjacent pair, and a lazy
# binary heap of (chi2, left, left version, right version) entries whose stale entries are popped
# (plain Python and heapq here, so it shares no compiled code with the package).
def previous_adjacent_chi2(counts):
    upper, lower = counts[:-1], counts[1:]
    a, b = upper.astype(np.float64), lower.astype(np.float64)
    ra = upper.sum(axis=1).astype(np.float64)[:, None]
    rb = lower.sum(axis=1).astype(np.float64)[:, None]
    n = ra + rb
    c = (upper + lower).astype(np.float64)
    ea, eb = ra * c / n, rb * c / n
    ea[ea == 0.0] = EXPECTED_FLOOR
    eb[eb == 0.0] = EXPECTED_FLOOR
    terms = np.empty((len(a), 2 * counts.shape[1]))
    terms[:, 0::2] = (a - ea) ** 2 / ea
    terms[:, 1::2] = (b - eb) ** 2 / eb
    return np.rint(np.add.accumulate(terms, axis=1)[:, -1] * 1e9) / 1e9


def previous_pair_chi2(a, b):
    ra, rb = 0.0, 0.0
    for j in range(len(a)):
        ra += a[j]
        rb += b[j]
    n = ra + rb
    total = 0.0
    for j in range(len(a)):
        cj = float(a[j] + b[j])
        ea, eb = ra * cj / n, rb * cj / n
        if ea == 0.0:
            ea = EXPECTED_FLOOR
        if eb == 0.0:
            eb = EXPECTED_FLOOR
        da, db = a[j] - ea, b[j] - eb
        total += da * da / ea
        total += db * db / eb
    return float(np.rint(total * 1e9) / 1e9)


def previous_merge_kernel(counts, initial_chi, threshold, max_intervals, min_intervals):
    """The lazy heap: entries (chi2, left, left version, right version), stale ones popped."""
    m = len(counts)
    n_int = m
    alive = [True] * m
    if n_int <= min_intervals or m < 2:
        return np.arange(m)
    nxt, prv = list(range(1, m + 1)), list(range(-1, m - 1))
    version = [0] * m
    heap = [(chi, left, 0, 0) for left, chi in enumerate(initial_chi)]
    heapq.heapify(heap)
    while n_int > min_intervals:
        while heap:
            chi, left, left_version, right_version = heap[0]
            if alive[left] and version[left] == left_version:
                if nxt[left] < m and version[nxt[left]] == right_version:
                    break
            heapq.heappop(heap)
        if not heap:
            break
        if heap[0][0] >= threshold and (max_intervals < 0 or n_int <= max_intervals):
            break
        left = heapq.heappop(heap)[1]
        right = nxt[left]
        counts[left] = [a + b for a, b in zip(counts[left], counts[right])]
        alive[right] = False
        after = nxt[right]
        nxt[left] = after
        if after < m:
            prv[after] = left
        version[left] += 1
        n_int -= 1
        before = prv[left]
        if before >= 0:
            heapq.heappush(heap, (previous_pair_chi2(counts[before], counts[left]), before, version[before],
                                  version[left]))
        if after < m:
            heapq.heappush(heap, (previous_pair_chi2(counts[left], counts[after]), left, version[left],
                                  version[after]))
    return np.flatnonzero(alive)


def previous_chimerge(values, y, threshold=4.6, max_intervals=None, min_intervals=1, weights=None):
    x = np.asarray(values, dtype=np.float64)
    codes, uniques = pd.factorize(np.asarray(y, dtype=object), use_na_sentinel=True)
    keep = ~np.isnan(x) & (codes >= 0)
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
        keep &= weights > 0
    x, codes = x[keep], codes[keep]
    if x.size == 0:
        return ()
    present = np.bincount(codes, minlength=len(uniques)) > 0
    codes = (np.cumsum(present) - 1)[codes]
    n_classes = int(present.sum())
    uniq, inverse = np.unique(x, return_inverse=True)
    if uniq.size == 1:
        return ()
    table = np.bincount(inverse.ravel() * n_classes + codes, weights=None if weights is None else weights[keep],
                        minlength=uniq.size * n_classes).reshape(uniq.size, n_classes)
    table = np.ascontiguousarray(table, dtype=np.float64 if table.dtype.kind == "f" else np.int64)
    starts = previous_merge_kernel(table.tolist(), previous_adjacent_chi2(table).tolist(), float(threshold),
                                   -1 if max_intervals is None else max_intervals, min_intervals)
    return tuple(uniq[starts[1:]].tolist())


@st.composite
def tied_weighted_column(draw):
    """Up to 300 rows on at most 40 distinct values (ties), missing values and labels, 1-4
    classes, and no weights, integer weights or fractional weights (some 0)."""
    n = draw(st.integers(1, 300))
    n_values = draw(st.integers(1, 40))
    n_classes = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    x = rng.integers(0, n_values, n).astype(float)
    x[rng.random(n) < draw(st.sampled_from([0.0, 0.1]))] = np.nan
    y = rng.integers(0, n_classes, n).astype(object)
    y[rng.random(n) < draw(st.sampled_from([0.0, 0.05]))] = None
    kind = draw(st.sampled_from(["none", "integer", "fractional"]))
    weights = None
    if kind == "integer":
        weights = rng.integers(0, 4, n).astype(float)
    elif kind == "fractional":
        weights = rng.choice([0.0, 0.1, 0.25, 1.0, 2.5, 3.3], n)
    if weights is not None and not (weights > 0).any():
        weights[0] = 1.0
    return x, y, weights


@PROPS
@given(tied_weighted_column(), st.sampled_from([0.0, 0.3, 2.0, 4.6, 6.0, 1e9]),
       st.one_of(st.none(), st.integers(1, 8)), st.integers(1, 4))
def test_chimerge_matches_the_previous_kernel(col, threshold, max_intervals, min_intervals):
    x, y, weights = col
    if max_intervals is not None:
        max_intervals = max(max_intervals, min_intervals)
    got = chimerge(x, y, threshold, max_intervals, min_intervals, weights=weights)
    assert got.cuts == previous_chimerge(x, y, threshold, max_intervals, min_intervals, weights)


@pytest.mark.parametrize("threshold,max_intervals,share", [(4.6, None, 0.5), (6.0, None, 0.5), (6.0, 5, 0.1),
                                                          (0.0, 3, 0.5), (2.0, None, 0.02)])
def test_chimerge_matches_the_previous_kernel_on_a_large_random_column(threshold, max_intervals, share):
    # the LIBRE scalability data: uniform values, random labels (tens of thousands of merges);
    # rounded to 3 decimals for ties between rows
    rng = np.random.default_rng(11)
    x = rng.uniform(0, 100, 60_000)
    x[:20_000] = np.round(x[:20_000], 1)
    y = rng.random(x.size) < share
    got = chimerge(x, y, threshold, max_intervals)
    assert got.cuts == previous_chimerge(x, y, threshold, max_intervals)
    assert got.n_bins > 1


def test_chimerge_matches_the_previous_kernel_with_many_classes_and_weights():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2000, 20_000).astype(float)
    y = rng.integers(0, 9, x.size) + (x // 400).astype(int)
    weights = rng.choice([0.0, 0.5, 1.0, 1.5, 4.0], x.size)
    for threshold, max_intervals in ((20.1, None), (20.1, 6), (0.0, 50)):
        assert chimerge(x, y, threshold, max_intervals, weights=weights).cuts == previous_chimerge(
            x, y, threshold, max_intervals, weights=weights)


# --------------------------------------------------------------------------- #
# the shortcuts of the compiled path: one row per run of one class, the sort class by class
# --------------------------------------------------------------------------- #
@st.composite
def pure_column(draw):
    """Up to 300 rows on which every distinct value has one class (uniform values, or values
    repeated within their class), 1-5 classes, in runs of one class of random lengths; some
    missing values and labels."""
    n = draw(st.integers(1, 300))
    n_classes = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    distinct = np.sort(rng.uniform(-50, 50, n))
    run_class = rng.integers(0, n_classes, n)
    stay = rng.random(n) < draw(st.sampled_from([0.0, 0.5, 0.9]))  # a row in its predecessor's run
    classes = run_class.copy()
    for i in range(1, n):
        if stay[i]:
            classes[i] = classes[i - 1]
    copies = rng.integers(1, draw(st.sampled_from([2, 4])), n)  # rows of each distinct value
    x = np.repeat(distinct, copies)
    y = np.repeat(classes, copies).astype(object)
    order = rng.permutation(x.size)
    x, y = x[order], y[order]
    x[rng.random(x.size) < draw(st.sampled_from([0.0, 0.1]))] = np.nan
    y[rng.random(x.size) < draw(st.sampled_from([0.0, 0.05]))] = None
    return x, y


@PROPS
@given(pure_column(), st.sampled_from([0.0, 0.2, 0.2000000001, 0.4, 0.6000000001, 2.0, 4.6, 6.0, 1e9]),
       st.one_of(st.none(), st.integers(1, 8)), st.integers(1, 40))
def test_chimerge_on_values_of_one_class_each_matches_the_previous_kernel(col, threshold, max_intervals,
                                                                        min_intervals):
    # the merge loop starts from one row per run of one class when that is exact (unit weights,
    # every distinct value of one class, the pure-pair statistic 0.2 (n_classes - 1) below the
    # threshold, at least min_intervals runs): the thresholds at and just above 0.2 and 0.6 and the
    # min_intervals above the number of runs take the other path
    x, y = col
    if max_intervals is not None:
        max_intervals = max(max_intervals, min_intervals)
    got = chimerge(x, y, threshold, max_intervals, min_intervals)
    assert got.cuts == previous_chimerge(x, y, threshold, max_intervals, min_intervals)
    # weights of 1 and one more row of weight 0 (left out) take the weighted path (one row per
    # distinct value, argsort); weights that are all 1 take the unweighted one
    weighted = chimerge(np.append(x, 0.0), np.append(y, y[0]), threshold, max_intervals, min_intervals,
                        weights=np.append(np.ones(len(x)), 0.0))
    assert weighted.cuts == got.cuts
    assert chimerge(x, y, threshold, max_intervals, min_intervals, weights=np.ones(len(x))).cuts == got.cuts


def test_a_mixed_value_keeps_the_merge_loop_on_distinct_values():
    # rows (3,0) (3,1) (0,1) (5,1) (1,0) (2,0) at threshold 0.5 keep 4 intervals; merging the run
    # (1,0) (2,0) first would keep 5 (docs of optrules.chimerge_kernel._merge_kernel)
    counts = [(3, 0), (3, 1), (0, 1), (5, 1), (1, 0), (2, 0)]
    x = [float(v) for v, (a, b) in enumerate(counts) for _ in range(a + b)]
    y = [c for a, b in counts for c in [0] * a + [1] * b]
    got = chimerge(x, y, threshold=0.5)
    assert got.n_bins == 4
    assert got.cuts == reference_chimerge(x, y, 0.5) == previous_chimerge(x, y, 0.5)


@pytest.mark.parametrize("threshold,max_intervals,share", [(4.6, None, 0.5), (6.0, None, 0.5), (6.0, 5, 0.1),
                                                          (0.0, 3, 0.5), (0.2, None, 0.5), (2.0, None, 0.02)])
def test_chimerge_on_distinct_values_matches_the_previous_kernel_on_a_large_random_column(
        threshold, max_intervals, share):
    # the LIBRE scalability data with distinct values: every value of one class, so the merge loop
    # starts from the runs of one class (but at threshold 0.2, the pure-pair statistic), and its
    # rows are compacted several times as they merge
    rng = np.random.default_rng(13)
    x = rng.uniform(0, 100, 60_000)
    y = rng.random(x.size) < share
    got = chimerge(x, y, threshold, max_intervals)
    assert got.cuts == previous_chimerge(x, y, threshold, max_intervals)
    assert got.n_bins > 1


@PROPS
@given(tied_weighted_column())
def test_sorting_class_by_class_gives_the_rows_of_one_argsort(col):
    # the unweighted path sorts each class and merges them; the other path sorts by one argsort:
    # the same values in the same order, each with the classes of its rows (in another order
    # within a value), and the same class numbering
    x, y, _ = col
    codes, n_classes = dz._as_label_codes(y, len(x))
    by_class, class_codes, classes = dz._sorted_by_class(x, codes, n_classes)
    by_value, value_codes, weights, classes_by_value = dz._sorted_by_value(x, codes, n_classes, None)
    assert classes == classes_by_value and weights.size == 0
    np.testing.assert_array_equal(by_class, by_value)
    assert sorted(zip(by_class.tolist(), class_codes.tolist())) == sorted(zip(by_value.tolist(), value_codes.tolist()))
    assert np.all(np.diff(class_codes)[np.diff(by_class) == 0] >= 0)  # class order within a value


def test_merge_class_groups_refuses_bad_offsets():
    from optrules.chimerge_kernel import merge_class_groups
    values = np.array([1.0, 2.0, 0.5])
    with pytest.raises(ValueError, match="offsets must run from 0"):
        merge_class_groups(values, np.array([0, 2], dtype=np.int64))
    with pytest.raises(ValueError, match="must not decrease"):
        merge_class_groups(values, np.array([0, 2, 1, 3], dtype=np.int64))
    merged, codes = merge_class_groups(values, np.array([0, 2, 3], dtype=np.int64))
    assert merged.tolist() == [0.5, 1.0, 2.0] and codes.tolist() == [1, 0, 0]


def test_group_by_class_leaves_out_missing_values_labels_and_empty_classes():
    from optrules.chimerge_kernel import group_by_class
    values = np.array([3.0, np.nan, 1.0, 2.0, 5.0, 4.0])
    codes = np.array([2, 0, 2, -1, 0, 2], dtype=np.int64)
    grouped, offsets = group_by_class(values, codes, 4)
    assert grouped.tolist() == [5.0, 3.0, 1.0, 4.0] and offsets.tolist() == [0, 1, 4]
    with pytest.raises(ValueError, match="outside 0..3"):
        group_by_class(values, np.array([0, 0, 4, 0, 0, 0], dtype=np.int64), 4)
