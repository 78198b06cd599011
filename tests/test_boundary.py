"""Tests of the base bottom-up learner (LIBRE Section 3.1, Algorithms 1-2, Appendix A.2-A.3)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optrules.encode import Lattice
from optrules.learners.boundary import (BoundaryResult, TraceStep, ZeroRows, find_boundary,
                                        find_boundary_result)


def bits(*strings: str) -> np.ndarray:
    """Rows from bit strings such as ``"11001"`` (first character = bit 0)."""
    return np.array([[ch == "1" for ch in s] for s in strings], dtype=bool).reshape(len(strings), -1)


def strings(points: np.ndarray) -> list[str]:
    return ["".join("1" if b else "0" for b in row) for row in points]


def leq(a: np.ndarray, x: np.ndarray) -> bool:
    """``a <= x`` on the lattice: every bit set in a is set in x."""
    return not np.any(a & ~x)


# --------------------------------------------------------------------------- paper examples
def test_example_3_2_as_printed_and_as_intended():
    # As printed, D- = {01101, 01101}. Only bit 1 is at distance 1 (flipping it gives 01001 <= 01101);
    # bits 2 and 5 have D-_i^0 = {} (distance +inf), so both heuristics flip them off (ties -> lowest
    # index, bit 2 then bit 5) and the point is 10000, a valid boundary point covering 11001.
    for h in ("H1", "H2"):
        assert strings(find_boundary(bits("11001"), bits("01101", "01101"), h)) == ["10000"]
    # The text of the example flips bit 2 into a conflict with 10101, so it means D- = {01101, 10101}:
    # then bits 1 and 2 move to J, bit 5 is flipped off, and the boundary is {11000} as in the paper.
    for h in ("H1", "H2"):
        assert strings(find_boundary(bits("11001"), bits("01101", "10101"), h)) == ["11000"]


def test_example_3_3_first_steps_under_h1():
    trace: list[TraceStep] = []
    result = find_boundary(bits("10101", "01101", "01110"), bits("10110", "11010"), "H1", trace=trace)
    first = trace[0]
    # Paper (1-based): I = {1, 3, 5}; d_l to D-_1^0 = {} undefined, to D-_3^0 = 2, to D-_5^0 = 1.
    # Bit 5 moves to J; bit 1 (|D+_1^0| = 2) is chosen. 0-based: J = {4}, I = {0, 2}, chosen 0.
    assert first.seed == 0
    assert first.J == (4,)
    assert first.I == (0, 2)
    assert first.distances == {0: None, 2: 2}
    assert first.chosen == 0
    # Flipping bit 1 touches no negative (both start with 1), so bit 3 stays at distance 2 and is
    # flipped off next; the point from 10101 is 00001, which also covers 01101.
    assert trace[1].I == (2,) and trace[1].chosen == 2 and trace[1].distances == {2: 2}
    assert trace[2].I == () and trace[2].J == (4,) and trace[2].chosen is None
    # The only uncovered positive left is 01110 (seed 2): bits 2, 3 conflict, bit 4 is flipped off.
    assert [t.seed for t in trace] == [0, 0, 0, 2, 2]
    assert strings(result) == ["00001", "01100"]


def test_appendix_a3_table_5():
    positives = bits("11001", "10110")
    negatives = bits("01101", "01110", "10101")
    for h in ("H1", "H2"):
        trace: list[TraceStep] = []
        assert strings(find_boundary(positives, negatives, h, trace=trace)) == ["11000", "10010"]
        # t1: bits 1, 2 at distance 1 (J), bit 5 at distance 2 is flipped off.
        assert trace[0].J == (0, 1) and trace[0].I == (4,) and trace[0].distances == {4: 2}
        # t3: bits 1, 4 conflict, bit 3 has D-_3^0 = {} and is flipped off.
        assert trace[2].seed == 1 and trace[2].J == (0, 3) and trace[2].I == (2,)
        assert trace[2].distances == {2: None}


def test_table_5_with_all_samples_and_counts():
    # The full table (duplicated negatives given as multiplicities) and a Lattice input.
    positives = Lattice.from_strings(["110 01", "101 10"])
    negatives, counts, _ = Lattice.from_strings(["011 01", "011 10", "011 01", "101 01", "101 01",
                                                 "101 01"]).unique_with_counts()
    result = find_boundary_result(positives, negatives, negative_counts=counts,
                                  positive_counts=[1, 1])
    assert isinstance(result, BoundaryResult)
    assert strings(result.points) == ["11000", "10010"]
    assert result.seeds.tolist() == [0, 1]
    assert result.n_conflicting_positives == 0


# --------------------------------------------------------------------------- edge cases
def test_conflicting_positive_is_skipped_and_counted():
    positives = bits("01101", "00100", "11001")  # 01101 is a negative; 00100 <= 01101
    negatives = bits("01101", "10101")
    result = find_boundary_result(positives, negatives)
    assert result.n_conflicting_positives == 2
    assert result.conflicting.tolist() == [True, True, False]
    assert strings(result.points) == ["11000"]
    assert result.seeds.tolist() == [2]


def test_no_negatives_gives_the_bottom_element():
    assert strings(find_boundary(bits("101", "011"), np.zeros((0, 3), bool))) == ["000"]


def test_no_positives():
    out = find_boundary(np.zeros((0, 4), bool), bits("0101"))
    assert out.shape == (0, 4) and out.dtype == bool


def test_positive_counts_change_the_heuristic():
    # x = 111, D- = {001}: d_l to D-_0^0 and D-_1^0 is 2, D-_2^0 = {} (+inf). Bits 0 and 1 cannot both
    # go (001 <= 001). Distinct counts: |S_0^0| = |S_1^0| = 1, tie on d_l -> lowest index, bit 0;
    # then bit 1 has distance 1 (J) and bit 2 is flipped off: 010, covering 111 and 011; 101 -> 100.
    positives = bits("111", "011", "101")
    negatives = bits("001")
    assert strings(find_boundary(positives, negatives)) == ["010", "100"]
    # Counting samples (101 seen 5 times), |S_1^0| = 5 wins: 100 first, then 010 for 011.
    assert strings(find_boundary(positives, negatives, positive_counts=[1, 1, 5])) == ["100", "010"]


def test_h1_and_h2_differ():
    # Seed 01111 (bits 1-4): d_l to D-_1^0 = {10100} is 3, to D-_2^0, D-_3^0, D-_4^0 it is 2.
    # H1 follows coverage (|S_3^0| = |S_4^0| = 1, bit 3) and ends at 01100, which covers all three
    # positives; H2 first flips bit 1 (largest distance) and needs a second point.
    positives = bits("01111", "11101", "11110")
    negatives = bits("10100", "11001", "11010")
    trace_h1: list[TraceStep] = []
    trace_h2: list[TraceStep] = []
    h1 = find_boundary(positives, negatives, "H1", trace=trace_h1)
    h2 = find_boundary(positives, negatives, "H2", trace=trace_h2)
    assert trace_h1[0].distances == {1: 3, 2: 2, 3: 2, 4: 2}
    assert trace_h1[0].chosen == 3 and trace_h2[0].chosen == 1
    assert strings(h1) == ["01100"]
    assert strings(h2) == ["00101", "01100"]
    for out in (h1, h2):
        check_boundary(positives, negatives, out, np.zeros(3, bool))


def test_bad_arguments():
    with pytest.raises(ValueError):
        find_boundary(bits("11"), bits("01"), heuristic="H3")
    with pytest.raises(ValueError):
        find_boundary(bits("11"), bits("011"))
    with pytest.raises(ValueError):
        find_boundary(bits("11"), bits("01"), positive_counts=[1, 2])
    with pytest.raises(ValueError):
        find_boundary(np.array([[0, 2]]), bits("01"))


# --------------------------------------------------------------------------- properties
def check_boundary(positives: np.ndarray, negatives: np.ndarray, points: np.ndarray,
                   conflicting: np.ndarray) -> None:
    """The boundary-set properties of Definitions 2.5 and 3.3 and of Algorithm 1's termination."""
    brute_conflicting = np.array([any(leq(x, y) for y in negatives) for x in positives], dtype=bool)
    assert np.array_equal(conflicting, brute_conflicting)
    for a in points:
        assert any(leq(a, x) for x in positives)  # covers at least one positive
        assert not any(leq(a, y) for y in negatives)  # covers no negative
        for i in np.flatnonzero(a):  # every further flip-off is a conflict
            b = a.copy()
            b[i] = False
            assert any(leq(b, y) for y in negatives)
    for i, a in enumerate(points):  # irredundant: no point covers another
        for j, b in enumerate(points):
            if i != j:
                assert not leq(a, b)
    for x, bad in zip(positives, brute_conflicting):  # S ends empty
        if not bad:
            assert any(leq(a, x) for a in points)


@st.composite
def inverse_one_hot_data(draw):
    widths = draw(st.lists(st.integers(2, 4), min_size=1, max_size=4))
    row = st.tuples(*[st.integers(0, w - 1) for w in widths])

    def encode(rows):
        out = np.ones((len(rows), sum(widths)), dtype=bool)
        starts = np.cumsum([0] + widths[:-1])
        for r, codes in enumerate(rows):
            out[r, starts + np.array(codes)] = False
        return np.unique(out, axis=0) if len(rows) else out

    positives = encode(draw(st.lists(row, min_size=1, max_size=10)))
    negatives = encode(draw(st.lists(row, min_size=0, max_size=10)))
    return positives, negatives


@st.composite
def random_bit_data(draw):
    d = draw(st.integers(1, 7))
    row = st.lists(st.booleans(), min_size=d, max_size=d)
    positives = np.array(draw(st.lists(row, min_size=1, max_size=10)), dtype=bool).reshape(-1, d)
    negatives = np.array(draw(st.lists(row, min_size=0, max_size=10)), dtype=bool).reshape(-1, d)
    return np.unique(positives, axis=0), np.unique(negatives, axis=0)


@pytest.mark.parametrize("heuristic", ["H1", "H2"])
@settings(derandomize=True, deadline=None, max_examples=150)
@given(data=inverse_one_hot_data())
def test_properties_inverse_one_hot(heuristic, data):
    positives, negatives = data
    result = find_boundary_result(positives, negatives, heuristic)
    check_boundary(positives, negatives, result.points, result.conflicting)
    assert result.points.shape[1] == positives.shape[1]
    assert np.array_equal(find_boundary(positives, negatives, heuristic), result.points)


@pytest.mark.parametrize("heuristic", ["H1", "H2"])
@settings(derandomize=True, deadline=None, max_examples=150)
@given(data=random_bit_data())
def test_properties_random_bits(heuristic, data):
    positives, negatives = data
    result = find_boundary_result(positives, negatives, heuristic)
    check_boundary(positives, negatives, result.points, result.conflicting)
    # each point is grown from its seed: below it
    for a, s in zip(result.points, result.seeds):
        assert leq(a, positives[s])


def test_determinism_and_input_forms():
    rng = np.random.default_rng(3)
    positives = np.unique(rng.random((80, 24)) < 0.6, axis=0)
    negatives = np.unique(rng.random((80, 24)) < 0.6, axis=0)
    for h in ("H1", "H2"):
        first = find_boundary(positives, negatives, h)
        assert np.array_equal(first, find_boundary(positives.copy(), negatives.copy(), h))
        assert np.array_equal(first, find_boundary(positives.astype(int), negatives.astype(np.uint8), h))
        assert np.array_equal(first, find_boundary(Lattice.from_bools(positives),
                                                   Lattice.from_bools(negatives), h))
        result = find_boundary_result(positives, negatives, h)
        check_boundary(positives, negatives, result.points, result.conflicting)


def test_more_than_one_word():
    # 70 bits span two uint64 words.
    rng = np.random.default_rng(7)
    positives = np.unique(rng.random((40, 70)) < 0.7, axis=0)
    negatives = np.unique(rng.random((40, 70)) < 0.7, axis=0)
    for h in ("H1", "H2"):
        result = find_boundary_result(positives, negatives, h)
        check_boundary(positives, negatives, result.points, result.conflicting)


# --------------------------------------------------------------------------- kernel vs reference
def assert_same_result(positives, negatives, heuristic, counts=None):
    """The compiled kernel (no trace) and the NumPy reference (trace) give the same boundary."""
    fast = find_boundary_result(positives, negatives, heuristic, positive_counts=counts)
    slow = find_boundary_result(positives, negatives, heuristic, positive_counts=counts, trace=[])
    assert np.array_equal(fast.points, slow.points)
    assert np.array_equal(fast.seeds, slow.seeds)
    assert np.array_equal(fast.conflicting, slow.conflicting)


@pytest.mark.parametrize("heuristic", ["H1", "H2"])
@settings(derandomize=True, deadline=None, max_examples=100)
@given(data=random_bit_data(), counts=st.lists(st.integers(1, 5), min_size=10, max_size=10))
def test_kernel_equals_reference_random_bits(heuristic, data, counts):
    positives, negatives = data
    assert_same_result(positives, negatives, heuristic)
    assert_same_result(positives, negatives, heuristic, counts[:len(positives)])


@pytest.mark.parametrize("heuristic", ["H1", "H2"])
@settings(derandomize=True, deadline=None, max_examples=100)
@given(data=inverse_one_hot_data())
def test_kernel_equals_reference_inverse_one_hot(heuristic, data):
    assert_same_result(*data, heuristic)


@pytest.mark.parametrize("heuristic", ["H1", "H2"])
def test_kernel_equals_reference_larger(heuristic):
    # many bins per feature and many ties in |S_i^0| (the lazy heap's stale entries get exercised)
    rng = np.random.default_rng(11)
    widths = [30, 25, 40, 12]
    starts = np.cumsum([0] + widths[:-1])
    codes = np.column_stack([rng.integers(0, w, 400) for w in widths])
    label = rng.random(400) < 0.5
    pos_codes, counts = np.unique(codes[label], axis=0, return_counts=True)
    neg_codes = np.unique(codes[~label], axis=0)
    positives = ZeroRows.from_codes(pos_codes, starts, sum(widths))
    negatives = ZeroRows.from_codes(neg_codes, starts, sum(widths))
    assert_same_result(positives, negatives, heuristic, counts)
    result = find_boundary_result(positives, negatives, heuristic, positive_counts=counts)
    check_boundary(positives.to_bools(), negatives.to_bools(), result.points, result.conflicting)


def test_zero_rows_from_codes_matches_the_inverse_one_hot_bits():
    codes = np.array([[0, 2], [1, -1], [1, 0]])
    rows = ZeroRows.from_codes(codes, [0, 2], 5)
    assert [("".join("1" if b else "0" for b in r)) for r in rows.to_bools()] == ["01110", "10111", "10011"]
    assert np.array_equal(ZeroRows.from_bools(rows.to_bools()).col, rows.col)
    with pytest.raises(ValueError, match="outside"):
        ZeroRows.from_codes(codes, [0, 3], 5)


# --------------------------------------------------------------------------- weighted counts
@pytest.mark.parametrize("heuristic", ["H1", "H2"])
@settings(derandomize=True, deadline=None, max_examples=100)
@given(data=random_bit_data(), weights=st.lists(st.floats(0.0, 10.0), min_size=10, max_size=10))
def test_kernel_equals_reference_with_float_counts(heuristic, data, weights):
    # the float path sums the counts in the same order in both implementations: the same boundary
    positives, negatives = data
    counts = np.array(weights[:len(positives)])
    assert_same_result(positives, negatives, heuristic, counts)
    result = find_boundary_result(positives, negatives, heuristic, positive_counts=counts)
    check_boundary(positives, negatives, result.points, result.conflicting)


@pytest.mark.parametrize("heuristic", ["H1", "H2"])
@settings(derandomize=True, deadline=None, max_examples=100)
@given(data=inverse_one_hot_data(), counts=st.lists(st.integers(0, 4), min_size=10, max_size=10))
def test_integer_counts_act_as_copies(heuristic, data, counts):
    # a positive given k times (k >= 1) and the distinct positive with count k give the same points;
    # whole float counts take the integer path, and halving every count changes no comparison
    positives, negatives = data
    counts = np.array(counts[:len(positives)]) + 1
    expected = find_boundary(positives, negatives, heuristic, positive_counts=counts)
    copies = find_boundary(np.repeat(positives, counts, axis=0), negatives, heuristic)
    assert np.array_equal(copies, expected)
    assert np.array_equal(find_boundary(positives, negatives, heuristic, positive_counts=counts.astype(float)),
                          expected)
    assert np.array_equal(find_boundary(positives, negatives, heuristic, positive_counts=counts * 0.5),
                          expected)
    assert_same_result(positives, negatives, heuristic, counts * 0.5)


def test_float_counts_change_the_heuristic_like_multiplicities():
    # test_positive_counts_change_the_heuristic with sample weights: 101 weighs 2.5 against 0.5 + 0.5
    positives = bits("111", "011", "101")
    negatives = bits("001")
    assert strings(find_boundary(positives, negatives, positive_counts=[0.5, 0.5, 2.5])) == ["100", "010"]
    assert strings(find_boundary(positives, negatives, positive_counts=[0.5, 0.75, 0.5])) == ["010", "100"]
    # a count of 0 weighs nothing in the heuristics, but its positive is still covered
    assert strings(find_boundary(positives, negatives, positive_counts=[0.0, 0.0, 0.0])) == ["010", "100"]
    with pytest.raises(ValueError, match="non-negative"):
        find_boundary(positives, negatives, positive_counts=[1.0, -0.5, 1.0])
    with pytest.raises(ValueError, match="non-negative"):
        find_boundary(positives, negatives, positive_counts=[1.0, np.nan, 1.0])


@pytest.mark.parametrize("kind", ["small", "wide", "float", "float-wide"])
@settings(derandomize=True, deadline=None, max_examples=40)
@given(seed=st.integers(0, 2**32 - 1))
def test_h1_groups_equal_the_reference_for_counts_of_many_bytes(kind, seed):
    # H1 orders the bits by (|S_i^0|, |D+_i^0|) with a radix sort on the bytes of the counts (the
    # bit patterns of float counts) and takes them group by group: counts of one byte with many
    # ties, of several bytes, floats of several exponents (and -0.0, 0.0) against the reference
    rng = np.random.default_rng(seed)
    widths = rng.integers(2, 9, rng.integers(1, 5)).tolist()
    starts = np.cumsum([0] + widths[:-1])
    codes = np.column_stack([rng.integers(0, w, 60) for w in widths])
    label = rng.random(60) < 0.5
    pos_codes = np.unique(codes[label], axis=0)
    neg_codes = np.unique(codes[~label], axis=0)
    n = pos_codes.shape[0]
    counts = {"small": rng.integers(1, 4, n),
              "wide": rng.choice([1, 255, 256, 70_000, 2**40], n),
              "float": rng.choice([0.0, -0.0, 0.5, 1.0, 3.25], n),
              "float-wide": rng.choice([1e-300, 1e-3, 0.1, 7.0, 1e12, 2.5e100], n)}[kind]
    positives = ZeroRows.from_codes(pos_codes, starts, sum(widths))
    negatives = ZeroRows.from_codes(neg_codes, starts, sum(widths))
    assert_same_result(positives, negatives, "H1", counts)
