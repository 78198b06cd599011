"""Tests for optrules.encode: bins, (inverse) one-hot encodings, packed lattice, decoding to rules.

The paper examples are reproduced exactly (LIBRE, Example 3.1, Example 3.4, Appendix A Table 5,
A.2 and A.4 / Figure 3); the lattice operations are checked against row-by-row references, and the
central consistency property -- ``a <= encode(x)`` iff the decoded rule covers ``x`` -- is checked
with hypothesis on random mixed data with missing values, unseen categories and out-of-range values.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optrules.discretize import Bins, chimerge
from optrules.encode import (
    FeatureBinning,
    Lattice,
    leq,
    leq_matrix,
    n_words,
    pack_bits,
    popcount,
    unpack_bits,
)
from optrules.ruleset import CategoricalCondition, NumericCondition, Ruleset

SETTINGS = settings(derandomize=True, max_examples=150, deadline=None)


# --------------------------------------------------------------------------- #
# paper examples
# --------------------------------------------------------------------------- #
@pytest.fixture
def example_3() -> FeatureBinning:
    """Example 3.1 / 3.4: f1 bins [[0,40),[40,100]], f2 bins [[0,30),[30,60),[60,100]]."""
    X = pd.DataFrame({"f1": [33.1, 70.0], "f2": [44.7, 10.0]})
    return FeatureBinning({"f1": Bins((40.0,)), "f2": (30, 60)},
                          domain={"f1": (0, 100), "f2": (0, 100)}).fit(X)


def test_example_3_1_inverse_one_hot(example_3: FeatureBinning) -> None:
    X = pd.DataFrame({"f1": [33.1], "f2": [44.7]})
    assert example_3.bin_index(X).tolist() == [[0, 1]]  # 1-based bins 1, 2 (the text's "f2' = 3" contradicts its own bins and string 101)
    assert example_3.transform(X).to_strings() == ["01 101"]
    assert example_3.one_hot(X).astype(int).tolist() == [[1, 0, 0, 1, 0]]
    assert example_3.bit_labels() == ["f1 [0, 40)", "f1 [40, 100]", "f2 [0, 30)", "f2 [30, 60)",
                                      "f2 [60, 100]"]


def test_example_3_4_decoding(example_3: FeatureBinning) -> None:
    conditions = example_3.decode("01 100")
    assert [str(c) for c in conditions] == ["f1 in [0, 40)", "f2 in [30, 100]"]
    rule = example_3.to_rule("01 100", 1)
    assert str(rule) == "IF f1 in [0, 40) AND f2 in [30, 100] THEN 1"
    # every input form of the same element decodes the same
    bits = np.array([0, 1, 1, 0, 0], dtype=bool)
    assert example_3.decode(bits) == conditions
    assert example_3.decode([0, 1, 1, 0, 0]) == conditions
    assert example_3.decode("01100") == conditions
    assert example_3.decode(pack_bits(bits[None, :])[0]) == conditions
    assert example_3.decode(example_3.lattice("01 100")) == conditions


def test_example_3_4_without_domain_prints_min_max() -> None:
    X = pd.DataFrame({"f1": [33.1], "f2": [44.7]})
    binning = FeatureBinning({"f1": (40,), "f2": (30, 60)}).fit(X)
    assert [str(c) for c in binning.decode("01 100")] == ["f1 in [min, 40)", "f2 in [30, max]"]
    assert [str(c) for c in binning.decode("10 001")] == ["f1 in [40, max]", "f2 in [min, 60)"]
    assert binning.decode("00 000") == ()


def test_non_adjacent_bins_give_a_union() -> None:
    X = pd.DataFrame({"age": [20.0, 36.0, 50.0, 56.5, 80.0]})
    binning = FeatureBinning({"age": (35, 39, 56, 57)}).fit(X)
    (condition,) = binning.decode("10101")
    assert str(condition) == "age in [35, 39), [56, 57)"
    assert len(condition.intervals) == 2


TABLE_5 = pd.DataFrame({"CPU": [95, 80, 81, 10, 10, 82, 85, 81], "MEM": [10, 10, 85, 85, 10, 10, 10, 10]})
TABLE_5_LABEL = [1, 0, 1, 0, 0, 0, 0, 0]
TABLE_5_STRING = ["110 01", "011 01", "101 10", "011 10", "011 01", "101 01", "101 01", "101 01"]


@pytest.fixture
def table_5() -> FeatureBinning:
    """Appendix A.1: CPU [0,81),[81,95),[95,max); MEM [0,85),[85,max)."""
    return FeatureBinning({"CPU": Bins((81.0, 95.0)), "MEM": Bins((85.0,))},
                          domain={"CPU": (0, math.inf), "MEM": (0, math.inf)}).fit(TABLE_5)


def test_table_5_string_column(table_5: FeatureBinning) -> None:
    lattice = table_5.transform(TABLE_5)
    assert lattice.to_strings() == TABLE_5_STRING
    assert (table_5.bin_index(TABLE_5) + 1).tolist() == [[3, 1], [1, 1], [2, 2], [1, 2], [1, 1], [2, 1],
                                                         [2, 1], [2, 1]]  # columns r1, r2
    assert lattice.ranges == (("CPU", 0, 3), ("MEM", 3, 5))
    assert lattice.popcount().tolist() == [3] * 8


def test_table_5_unique_with_counts(table_5: FeatureBinning) -> None:
    lattice = table_5.transform(TABLE_5)
    unique, counts, inverse = lattice.unique_with_counts()
    assert dict(zip(unique.to_strings(), counts.tolist())) == {
        "011 01": 2, "011 10": 1, "101 01": 3, "101 10": 1, "110 01": 1}
    assert unique.to_strings() == sorted(unique.to_strings())  # sorted as bit strings
    assert unique[inverse].to_strings() == TABLE_5_STRING


def test_appendix_a2_conflicts(table_5: FeatureBinning) -> None:
    lattice = table_5.transform(TABLE_5)
    negatives = lattice[np.array(TABLE_5_LABEL) == 0]
    # flipping off t1's first bit gives 010 01 <= t2 (and t5): a conflict
    assert leq("010 01", lattice).tolist() == [True, True, False, False, True, False, False, False]
    # flipping off its second bit gives 100 01, in conflict with t6 - t8
    assert np.flatnonzero(lattice.leq("100 01")).tolist() == [0, 5, 6, 7]
    # the two boundary points cover no negative sample
    assert not negatives.leq_matrix(["110 00", "100 10"]).any()


def test_appendix_a4_figure_3(table_5: FeatureBinning) -> None:
    boundary = Lattice.from_strings(["11000", "10010"], widths=table_5.widths)
    rules = table_5.to_rules(boundary, 1)
    assert [r.antecedent() for r in rules] == ["CPU in [95, max]", "CPU in [81, max] AND MEM in [85, max]"]
    ruleset = Ruleset("set", rules, 0, table_5.features_, (0, 1), positive=1)
    assert str(ruleset) == "\n".join([
        "IF CPU in [95, max]",
        "OR (",
        "    CPU in [81, max] AND",
        "    MEM in [85, max]",
        ")",
        "THEN class = 1",
        "ELSE class = 0",
    ])
    assert ruleset.predict(TABLE_5).tolist() == TABLE_5_LABEL
    lattice = table_5.transform(TABLE_5)
    assert np.array_equal(lattice.leq_matrix(boundary).T, ruleset.covers(TABLE_5))


# --------------------------------------------------------------------------- #
# missing values, unseen categories, domain ends
# --------------------------------------------------------------------------- #
@pytest.fixture
def with_missing() -> tuple[FeatureBinning, pd.DataFrame]:
    X = pd.DataFrame({
        "age": [20.0, np.nan, 50.0, 70.0],
        "color": ["red", "green", None, "blue"],
        "size": ["S", "L", "L", "S"],
        "score": [1.0, 2.0, 3.0, 4.0],
    })
    return FeatureBinning({"age": (40, 60), "score": (2.5,)}).fit(X), X


def test_missing_bin_layout(with_missing: tuple[FeatureBinning, pd.DataFrame]) -> None:
    binning, X = with_missing
    assert binning.widths == (4, 4, 2, 2)
    assert binning.layout("age").labels() == ("[min, 40)", "[40, 60)", "[60, max]", "missing")
    assert binning.layout("color").labels() == ("blue", "green", "red", "missing")
    assert binning.layout("size").labels() == ("L", "S")
    assert binning.layout("size").missing_bin is None
    assert binning.layout("age").missing_bin == 3
    assert binning.transform(X).to_strings() == [
        "0111 1101 10 01", "1110 1011 01 01", "1011 1110 01 10", "1101 0111 10 10"]
    assert binning.bin_index(X).tolist() == [[0, 2, 1, 0], [3, 1, 0, 0], [1, 3, 0, 1], [2, 0, 1, 1]]


def test_unseen_and_missing_without_bin_are_in_no_bin(with_missing: tuple[FeatureBinning, pd.DataFrame]) -> None:
    binning, _ = with_missing
    new = pd.DataFrame({"age": [np.nan, 1000.0], "color": ["purple", None], "size": [None, "XL"],
                        "score": [np.nan, -7.0]})
    assert binning.bin_index(new).tolist() == [[3, -1, -1, -1], [2, 3, -1, 0]]
    assert binning.transform(new).to_strings() == ["1110 0000 00 00", "1101 1110 00 01"]
    assert binning.one_hot(new).sum(axis=1).tolist() == [1, 3]


def test_decode_missing_semantics(with_missing: tuple[FeatureBinning, pd.DataFrame]) -> None:
    binning, X = with_missing
    assert [str(c) for c in binning.decode("0001 0000 00 00")] == ["age in [min, max]"]
    assert [str(c) for c in binning.decode("0100 0000 00 00")] == ["age in [min, 40), [60, max] or missing"]
    assert [str(c) for c in binning.decode("0000 0001 00 00")] == ["color in {blue, green, red}"]
    assert [str(c) for c in binning.decode("0000 1010 00 00")] == ["color in {green} or missing"]
    assert [str(c) for c in binning.decode("0000 0000 01 00")] == ["size in {L}"]
    # a feature that allows only its missing bin is met only by missing values
    only_missing = binning.decode("1110 1110 00 00")
    assert len(only_missing) == 2
    frame = pd.DataFrame({"age": [np.nan, 0.0, 50.0], "color": [None, "red", "purple"],
                          "size": ["S"] * 3, "score": [1.0] * 3})
    for condition in only_missing:
        assert condition.missing
        assert condition.evaluate(frame[condition.feature].to_numpy()).tolist() == [True, False, False]
    # all bits of a feature set: nothing satisfies it, not even a missing value
    nothing = binning.decode("1111 0000 00 00")
    assert nothing[0].evaluate(frame["age"].to_numpy()).tolist() == [False, False, False]
    assert not binning.transform(frame).leq("1111 0000 00 00").any()


def test_rulesets_of_decoded_rules_round_trip(with_missing: tuple[FeatureBinning, pd.DataFrame]) -> None:
    binning, X = with_missing
    elements = ["1110 1110 00 00", "1111 1111 11 11", "0100 1010 01 00", "0000 0000 00 00"]
    ruleset = Ruleset("set", binning.to_rules(elements, "yes"), "no", binning.features_, ("no", "yes"),
                      positive="yes")
    again = Ruleset.from_json(ruleset.to_json())
    assert again == ruleset
    assert np.array_equal(again.covers(X), ruleset.covers(X))
    assert np.array_equal(ruleset.covers(X), binning.transform(X).leq_matrix(elements).T)


def test_domain_ends_and_values_outside() -> None:
    X = pd.DataFrame({"f": [0.0, 50.0, 100.0]})
    binning = FeatureBinning({"f": (40,)}, domain={"f": (0, 100)}).fit(X)
    new = pd.DataFrame({"f": [-1.0, 0.0, 39.9, 40.0, 100.0, 100.5]})
    assert binning.bin_index(new).tolist() == [[-1], [0], [0], [1], [1], [-1]]
    assert binning.transform(new).to_strings() == ["00", "01", "01", "10", "10", "00"]
    (condition,) = binning.decode("01")
    assert str(condition) == "f in [0, 40)"
    assert condition.evaluate(new["f"].to_numpy()).tolist() == [False, True, True, False, False, False]
    with pytest.raises(ValueError, match="outside its domain"):
        FeatureBinning({"f": (40,)}, domain={"f": (10, 100)}).fit(X)
    with pytest.raises(ValueError, match="strictly inside"):
        FeatureBinning({"f": (100,)}, domain={"f": (0, 100)}).fit(X)


def test_discretize_at_fit() -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 100, 200)
    x[:5] = np.nan
    y = np.where(np.nan_to_num(x) > 50, "p", "n")
    X = pd.DataFrame({"x": x, "c": rng.choice(["a", "b"], 200)})
    chi = FeatureBinning().fit(X, y)
    assert chi.layout("x").has_missing
    assert chi.layout("x").cuts and 50 <= chi.layout("x").cuts[0] <= 52 and len(chi.layout("x").cuts) == 1
    eq = FeatureBinning(method="equal_frequency", n_bins=4).fit(X)
    assert eq.layout("x").n_value_bins == 4
    assert eq.transform(X).popcount().tolist() == [eq.n_bits - 2] * 200
    with pytest.raises(ValueError, match="needs class labels"):
        FeatureBinning().fit(X)


def test_numpy_input_and_errors() -> None:
    X = np.array([[1.0, "a"], [2.0, "b"], [np.nan, "a"]], dtype=object)
    binning = FeatureBinning({"x0": (1.5,)}).fit(X, categorical=[1])
    assert binning.features_ == ("x0", "x1")
    assert binning.transform(X).to_strings() == ["011 01", "101 10", "110 01"]
    with pytest.raises(ValueError, match="2-d array with 2 columns"):
        binning.transform(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="categorical"):
        FeatureBinning({"x1": (1,)}).fit(X, categorical=[1])
    with pytest.raises(ValueError, match="unknown feature"):
        FeatureBinning({"nope": (1,)}).fit(X, categorical=[1])
    with pytest.raises(ValueError, match="has 4 bits, expected 5"):
        binning.decode("0101")
    with pytest.raises(ValueError, match="groups its bits"):
        binning.decode("01 101")
    with pytest.raises(RuntimeError, match="not fitted"):
        FeatureBinning().decode("0")
    frame = pd.DataFrame({"x1": ["a"], "x0": [1.0]})  # columns are matched by name
    assert binning.transform(frame).to_strings() == ["011 01"]
    with pytest.raises(ValueError, match="lacks feature"):
        binning.transform(frame[["x1"]])


# --------------------------------------------------------------------------- #
# packed bitsets
# --------------------------------------------------------------------------- #
def test_pack_layout_is_most_significant_first() -> None:
    bits = np.zeros((1, 130), dtype=bool)
    bits[0, [0, 63, 64, 129]] = True
    words = pack_bits(bits)
    assert words.dtype == np.uint64 and words.shape == (1, 3)
    assert words.tolist() == [[2**63 + 1, 2**63, 2**62]]
    assert np.array_equal(unpack_bits(words, 130), bits)
    with pytest.raises(ValueError, match="padding"):
        Lattice(np.array([[1]], dtype=np.uint64), 5)


def test_wide_features_span_several_words() -> None:
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"num": rng.uniform(0, 1, 300),
                      "cat": [f"c{k % 80:02d}" for k in rng.permutation(300)]})
    X.loc[::7, "num"] = np.nan
    binning = FeatureBinning({"num": tuple(np.linspace(0.01, 0.99, 70))}).fit(X)
    assert binning.widths == (72, 80) and binning.n_bits == 152
    lattice = binning.transform(X)
    assert lattice.n_words == 3 == n_words(152)
    assert np.array_equal(lattice.to_bools(), binning.inverse_one_hot(X))
    assert np.array_equal(lattice.to_bools(), ~binning.one_hot(X))
    assert lattice.popcount().tolist() == [150] * 300
    strings = lattice.to_strings()
    assert all(len(s) == 153 and s[72] == " " for s in strings)
    assert Lattice.from_strings(strings).words.tolist() == lattice.words.tolist()
    # element = a training row with its last bits turned off covers that row
    bits = lattice[5].to_bools()[0]
    bits[100:] = False
    ruleset = Ruleset("set", (binning.to_rule(bits, 1),), 0, binning.features_, (0, 1), positive=1)
    assert np.array_equal(lattice.leq(bits), ruleset.covers(X)[:, 0])
    assert lattice.leq(bits)[5]


@st.composite
def lattices(draw: st.DrawFn) -> tuple[tuple[int, ...], np.ndarray, np.ndarray]:
    widths = tuple(draw(st.lists(st.integers(1, 70), min_size=1, max_size=4)))
    n_bits = sum(widths)
    n = draw(st.integers(0, 12))
    m = draw(st.integers(0, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    density = draw(st.sampled_from([0.1, 0.5, 0.9]))
    rows = rng.random((n, n_bits)) < 0.5 + (density - 0.5) / 2
    elements = rng.random((m, n_bits)) < 1 - density
    if n and m:  # some elements below a row, so that both outcomes occur
        elements[0] = rows[0] & (rng.random(n_bits) < 0.5)
    return widths, rows, elements


@SETTINGS
@given(lattices())
def test_leq_against_row_by_row_reference(case: tuple[tuple[int, ...], np.ndarray, np.ndarray]) -> None:
    widths, rows, elements = case
    lattice = Lattice.from_bools(rows, widths)
    assert np.array_equal(lattice.to_bools(), rows)
    assert lattice.popcount().tolist() == [int(r.sum()) for r in rows]
    assert np.array_equal(popcount(lattice.words), lattice.popcount())
    expected = np.array([[all(x[b] for b in range(len(a)) if a[b]) for x in rows] for a in elements],
                        dtype=bool).reshape(len(elements), len(rows))
    for i, a in enumerate(elements):
        assert np.array_equal(lattice.leq(a), expected[i])
        assert np.array_equal(lattice.geq(a), np.array([not (x & ~a).any() for x in rows], dtype=bool))
    assert np.array_equal(lattice.leq_matrix(elements), expected)
    assert np.array_equal(leq_matrix(Lattice.from_bools(elements, widths),
                                     lattice, max_bytes=1), expected)  # one element per block
    strings = lattice.to_strings()
    assert Lattice.from_strings(strings, widths).words.tolist() == lattice.words.tolist()


@SETTINGS
@given(st.integers(1, 140), st.integers(0, 30), st.integers(0, 2**32 - 1))
def test_unique_with_counts_reference(n_bits: int, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    base = rng.random((4, n_bits)) < 0.5
    rows = base[rng.integers(0, 4, n)]  # many duplicates
    lattice = Lattice.from_bools(rows.reshape(n, n_bits))
    unique, counts, inverse = lattice.unique_with_counts()
    reference: dict[str, int] = {}
    for s in lattice.to_strings():
        reference[s] = reference.get(s, 0) + 1
    assert unique.to_strings() == sorted(reference)
    assert counts.tolist() == [reference[s] for s in sorted(reference)]
    assert unique[inverse].words.tolist() == lattice.words.tolist()
    assert counts.sum() == n


# --------------------------------------------------------------------------- #
# consistency: a <= encode(x)  <=>  decoded rule covers x
# --------------------------------------------------------------------------- #
NUMBERS = st.one_of(st.just(math.nan), st.integers(-5, 15).map(float))
COLORS = st.sampled_from(["red", "green", "blue", None])


@st.composite
def mixed_problems(draw: st.DrawFn) -> tuple[FeatureBinning, pd.DataFrame, pd.DataFrame, np.ndarray]:
    n = draw(st.integers(1, 20))
    train = pd.DataFrame({
        "a": draw(st.lists(NUMBERS, min_size=n, max_size=n)),                        # may have missing
        "b": draw(st.lists(st.integers(0, 9).map(float), min_size=n, max_size=n)),   # never missing
        "c": pd.Series(draw(st.lists(COLORS, min_size=n, max_size=n)), dtype=object),
        "d": pd.Series(draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n)), dtype=object),
    })
    m = draw(st.integers(0, 12))
    new = pd.DataFrame({
        "a": draw(st.lists(st.one_of(NUMBERS, st.integers(-100, 100).map(float)), min_size=m, max_size=m)),
        "b": draw(st.lists(st.one_of(st.just(math.nan), st.integers(-3, 12).map(float)),
                           min_size=m, max_size=m)),
        "c": pd.Series(draw(st.lists(st.sampled_from(["red", "green", "purple", None]), min_size=m,
                                     max_size=m)), dtype=object),
        "d": pd.Series(draw(st.lists(st.sampled_from(["x", "y", "z", None]), min_size=m, max_size=m)),
                       dtype=object),
    })
    cuts_a = tuple(sorted(set(draw(st.lists(st.integers(-4, 14).map(float), max_size=5)))))
    cuts_b = tuple(sorted(set(draw(st.lists(st.integers(0, 9).map(float), max_size=4)))))
    domain = {"b": (-1.0, 10.0)} if draw(st.booleans()) else {}
    binning = FeatureBinning({"a": cuts_a, "b": cuts_b}, domain=domain).fit(train)

    rows = binning.transform(train).to_bools()
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    below = rows[rng.integers(0, n, 8)] & (rng.random((8, binning.n_bits)) < 0.6)  # subsets of rows' ones
    anything = rng.random((8, binning.n_bits)) < draw(st.sampled_from([0.2, 0.5, 0.8]))
    elements = np.vstack([below, anything, np.zeros((1, binning.n_bits), bool)])
    return binning, train, new, elements


@SETTINGS
@given(mixed_problems())
def test_order_matches_decoded_rules(problem: tuple[FeatureBinning, pd.DataFrame, pd.DataFrame, np.ndarray]) -> None:
    binning, train, new, elements = problem
    everything = pd.concat([train, new], ignore_index=True)
    lattice = binning.transform(everything)
    rules = binning.to_rules(binning.lattice(elements), 1)
    ruleset = Ruleset("set", rules, 0, binning.features_, (0, 1), positive=1)
    covered = ruleset.covers(everything)
    assert np.array_equal(lattice.leq_matrix(elements).T, covered)
    # the same order test straight from bin indices (unseen and missing values included), and the
    # rule sizes without decoding
    element_bits = binning.lattice(elements).to_bools()
    assert np.array_equal(binning.coverage(element_bits, binning.bin_index(everything)), covered.T)
    many = np.vstack([element_bits] * 5)  # more than 64 elements: two words of element bits
    assert np.array_equal(binning.coverage(many, binning.bin_index(everything)), np.vstack([covered.T] * 5))
    assert binning.n_conditions(element_bits).tolist() == [len(binning.decode(a)) for a in element_bits]
    for k, a in enumerate(elements):
        assert np.array_equal(lattice.leq(a), covered[:, k])
    # the decoded rules survive serialisation unchanged
    assert np.array_equal(Ruleset.from_json(ruleset.to_json()).covers(everything), covered)
    # one-hot and inverse one-hot agree: a value in a bin has exactly that bit, one per feature
    hot = binning.one_hot(everything)
    inverse = lattice.to_bools()
    in_bin = binning.bin_index(everything) >= 0
    per_bit = in_bin[:, np.repeat(np.arange(len(binning.widths)), binning.widths)]
    assert np.array_equal(inverse, ~hot & per_bit)
    # a training row covers itself and its decoded conditions are each one bin
    assert lattice[: len(train)].leq_matrix(lattice[: len(train)]).diagonal().all()
    for condition in rules[0].conditions:
        assert isinstance(condition, (NumericCondition, CategoricalCondition))


# --------------------------------------------------------------------------- #
# sample weights
# --------------------------------------------------------------------------- #
def _weighted_frame(seed: int, n: int = 60) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "num": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n).round(1)),
        "cat": pd.Categorical(rng.choice(["p", "q", "r"], n)),
        "int": rng.integers(0, 6, n).astype(float),
    })
    y = np.where(X["int"].to_numpy() + rng.normal(size=n) > 2.5, "yes", "no")
    return X, y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method, params", [("chimerge", {"threshold": 2.0}),
                                            ("chimerge", {"threshold": 4.6, "max_intervals": 3}),
                                            ("equal_frequency", {"n_bins": 4})])
def test_integer_weights_bin_like_duplicated_rows(seed, method, params):
    X, y = _weighted_frame(seed)
    weights = np.random.default_rng(seed + 100).integers(0, 4, len(X))
    copies = np.repeat(np.arange(len(X)), weights)
    weighted = FeatureBinning(method=method, **params).fit(X, y, weights=weights.astype(float))
    duplicated = FeatureBinning(method=method, **params).fit(X.iloc[copies].reset_index(drop=True), y[copies])
    assert weighted.layout_ == duplicated.layout_
    assert (weighted.inverse_one_hot(X) == duplicated.inverse_one_hot(X)).all()


@pytest.mark.parametrize("method", ["chimerge", "equal_frequency"])
def test_unit_weights_bin_like_no_weights(method):
    X, y = _weighted_frame(7, n=200)
    plain = FeatureBinning(method=method).fit(X, y)
    assert FeatureBinning(method=method).fit(X, y, weights=np.ones(len(X))).layout_ == plain.layout_


def test_a_row_of_weight_zero_makes_no_bin():
    X = pd.DataFrame({"num": [1.0, 2.0, 3.0, 4.0, np.nan, 500.0],
                      "cat": ["a", "b", "a", "b", "a", "zzz"]})
    y = ["no", "no", "yes", "yes", "no", "yes"]
    weights = np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0])  # the missing value, 500 and "zzz" weigh nothing
    weighted = FeatureBinning(domain={"num": (0.0, 10.0)}).fit(X, y, categorical=["cat"], weights=weights)
    removed = FeatureBinning(domain={"num": (0.0, 10.0)}).fit(X.iloc[:4], y[:4], categorical=["cat"])
    assert weighted.layout_ == removed.layout_
    assert not weighted.layout("num").has_missing and weighted.layout("cat").categories == ("a", "b")
    # the rows of weight 0 are encoded as values in no bin, as for the fit without them
    assert (weighted.bin_index(X) == removed.bin_index(X)).all()
    assert (weighted.bin_index(X)[4:] == [[-1, 0], [-1, -1]]).all()
    with pytest.raises(ValueError, match="weights"):
        FeatureBinning().fit(X, y, weights=np.ones(5))


@pytest.mark.parametrize("weighted", [False, True])
def test_parallel_discretisation_equals_serial_chimerge(weighted: bool) -> None:
    """FeatureBinning discretises its features in threads with the labels coded once; each feature's
    bins equal ``chimerge`` run alone on that column with the raw labels (missing values and missing
    labels included)."""
    rng = np.random.default_rng(11)
    n, d = 3000, 6
    X = pd.DataFrame({f"x{k}": np.round(rng.normal(size=n), int(rng.integers(1, 3))) for k in range(d)})
    X.iloc[rng.choice(n, 40, replace=False), 2] = np.nan
    y = np.array(rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2]), dtype=object)
    y[rng.choice(n, 25, replace=False)] = None
    weights = rng.integers(0, 4, size=n).astype(float) if weighted else None
    binning = FeatureBinning(method="chimerge", threshold=4.6).fit(X, y, weights=weights)
    for k, feature in enumerate(X.columns):
        alone = chimerge(X[feature].to_numpy(), list(y), threshold=4.6, weights=weights)
        assert binning.layout_[k].cuts == alone.cuts
