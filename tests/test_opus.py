"""The exact best-rule search (optrules.learners.opus) against brute-force enumeration."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optrules.learners.opus import CaseWeights, best_rule, brute_force_best_rule, laplace, rule_key

PROPERTY = settings(derandomize=True, max_examples=300, deadline=None)


@st.composite
def categorical_problems(draw):
    """Random small categorical data as inequality or equality tests, with disjoint positive and
    negative masks (some cases count as neither, as in prepend)."""
    n = draw(st.integers(1, 24))
    n_features = draw(st.integers(1, 3))
    columns = []
    for _ in range(n_features):
        values = draw(st.integers(1, 4))
        columns.append(draw(st.lists(st.integers(0, values - 1), min_size=n, max_size=n)))
    codes = np.array(columns).T
    kind = draw(st.sampled_from(["inequality", "equality"]))
    tests = [(k, v) for k in range(n_features) for v in np.unique(codes[:, k])]
    equal = np.column_stack([codes[:, k] == v for k, v in tests])
    holds = ~equal if kind == "inequality" else equal
    role = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    return holds, role == 0, role == 1


def counts(holds, positive, negative, tests):
    covered = holds[:, list(tests)].all(axis=1)
    return int((covered & positive).sum()), int((covered & negative).sum())


@PROPERTY
@given(categorical_problems(), st.sampled_from([-math.inf, 0.5, 0.75]))
def test_search_finds_the_brute_force_optimum(problem, min_value):
    holds, positive, negative = problem
    result = best_rule(holds, positive, negative, min_value=min_value)
    expected = brute_force_best_rule(holds, positive, negative, min_value)
    assert result.proven
    if expected is None:
        assert result.rule is None
        return
    assert result.rule is not None
    assert result.rule.key == expected.key  # same best value, same positive cover among ties
    # the returned tests achieve the reported counts, and none of them is redundant
    found = (result.rule.positive, result.rule.negative)
    assert counts(holds, positive, negative, result.rule.tests) == found
    for test in result.rule.tests:
        assert counts(holds, positive, negative, tuple(t for t in result.rule.tests if t != test)) != found


@PROPERTY
@given(categorical_problems(), st.integers(0, 6), st.integers(0, 3))
def test_incumbent_is_beaten_or_nothing_is_returned(problem, positive_count, negative_count):
    holds, positive, negative = problem
    incumbent = rule_key(positive_count, negative_count)
    result = best_rule(holds, positive, negative, incumbent=incumbent)
    expected = brute_force_best_rule(holds, positive, negative)
    if expected is None or expected.key <= incumbent:
        assert result.rule is None
    else:
        assert result.rule.key == expected.key


def test_laplace_values_and_order():
    assert laplace(2, 0) == 0.75
    assert laplace(0, 0) == 0.5
    assert rule_key(3, 0) > rule_key(7, 3)  # 0.8 > 0.667
    assert rule_key(7, 1) > rule_key(3, 0)  # equal value 0.8: more positives first


def test_a_hand_made_optimum_needs_two_tests():
    # cases: columns "a != 0", "b != 0"; positives are the cases with a = 1 and b = 1
    holds = np.array([[1, 1], [1, 1], [1, 1], [0, 1], [1, 0], [0, 0]], dtype=bool)
    positive = np.array([1, 1, 1, 0, 0, 0], dtype=bool)
    result = best_rule(holds, positive, ~positive)
    assert sorted(result.rule.tests) == [0, 1]
    assert (result.rule.positive, result.rule.negative) == (3, 0)
    assert result.rule.value == pytest.approx(0.8)
    assert result.proven


def test_the_empty_rule_is_a_candidate():
    holds = np.array([[1], [0], [1]], dtype=bool)
    positive = np.array([1, 1, 1], dtype=bool)
    result = best_rule(holds, positive, ~positive)
    assert result.rule.tests == () and result.rule.positive == 3


def test_no_positive_gives_no_rule_and_min_value_is_strict():
    holds = np.ones((3, 2), dtype=bool)
    none = np.zeros(3, dtype=bool)
    assert best_rule(holds, none, ~none).rule is None
    # the best rule is TRUE with 2 positives and no negative: value 0.75, not above 0.75
    positive = np.array([1, 1, 0], dtype=bool)
    assert best_rule(holds, positive, none, min_value=0.75).rule is None
    assert best_rule(holds, positive, none, min_value=0.7).rule.value == 0.75


def test_node_limit_returns_the_incumbent_unproven():
    rng = np.random.default_rng(0)
    holds = rng.random((80, 12)) < 0.8
    positive = rng.random(80) < 0.4
    negative = ~positive
    full = best_rule(holds, positive, negative)
    limited = best_rule(holds, positive, negative, max_nodes=40)
    assert full.proven and not limited.proven
    assert limited.nodes <= 40 < full.nodes
    assert limited.rule is not None and limited.rule.key <= full.rule.key
    assert counts(holds, positive, negative, limited.rule.tests) == (limited.rule.positive,
                                                                      limited.rule.negative)


@pytest.mark.parametrize("kwargs, message", [
    ({"max_nodes": 0}, "max_nodes must be a positive integer"),
])
def test_bad_arguments(kwargs, message):
    holds = np.ones((2, 1), dtype=bool)
    with pytest.raises(ValueError, match=message):
        best_rule(holds, np.array([True, False]), np.array([False, True]), **kwargs)


def test_overlapping_masks_are_rejected():
    with pytest.raises(ValueError, match="both positive and negative"):
        best_rule(np.ones((1, 1), dtype=bool), np.array([True]), np.array([True]))


# --------------------------------------------------------------------------- case weights
@st.composite
def weighted_problems(draw, weights):
    """A categorical problem with one weight per case drawn from ``weights``."""
    holds, positive, negative = draw(categorical_problems())
    values = draw(st.lists(weights, min_size=len(positive), max_size=len(positive)))
    return holds, positive, negative, np.array(values, dtype=float)


def weighted_counts(holds, positive, negative, tests, weights):
    covered = holds[:, list(tests)].all(axis=1)
    exact = CaseWeights(weights)
    return exact.total(covered & positive), exact.total(covered & negative)


@PROPERTY
@given(weighted_problems(st.integers(0, 3)), st.sampled_from([-math.inf, 0.5, 0.75]))
def test_integer_weights_act_as_copies(problem, min_value):
    holds, positive, negative, weights = problem
    copies = np.repeat(np.arange(len(weights)), weights.astype(int))
    expected = best_rule(holds[copies], positive[copies], negative[copies], min_value=min_value)
    assert best_rule(holds, positive, negative, weights=weights, min_value=min_value) == expected
    kept = weights > 0  # weight 0 is removal
    assert best_rule(holds[kept], positive[kept], negative[kept], weights=weights[kept],
                     min_value=min_value) == expected


@PROPERTY
@given(weighted_problems(st.one_of(st.just(0.0), st.floats(0.01, 10.0), st.integers(1, 8).map(lambda k: k / 8))),
       st.sampled_from([-math.inf, 0.5, 0.75]))
def test_weighted_search_finds_the_brute_force_optimum(problem, min_value):
    holds, positive, negative, weights = problem
    result = best_rule(holds, positive, negative, weights=weights, min_value=min_value)
    expected = brute_force_best_rule(holds, positive, negative, min_value, weights=weights)
    assert result.proven
    if expected is None:
        assert result.rule is None
        return
    assert result.rule.key == expected.key
    found = (result.rule.positive, result.rule.negative)
    assert weighted_counts(holds, positive, negative, result.rule.tests, weights) == found
    counted = (positive | negative) & (weights > 0)
    cover = holds[:, list(result.rule.tests)].all(axis=1) & counted
    for test in result.rule.tests:  # no test is redundant on the cases that count
        shorter = [t for t in result.rule.tests if t != test]
        assert not np.array_equal(holds[:, shorter].all(axis=1) & counted, cover)


def test_weights_change_the_best_rule():
    # cases 0-3 positive, 4-5 negative; test 0 keeps cases 0-4, test 1 case 0 only
    holds = np.array([[1, 1], [1, 0], [1, 0], [1, 0], [1, 0], [0, 0]], dtype=bool)
    positive = np.array([1, 1, 1, 1, 0, 0], dtype=bool)
    negative = ~positive
    unweighted = best_rule(holds, positive, negative)  # test 0: 5/7 beats TRUE (5/8) and test 1 (2/3)
    assert unweighted.rule.tests == (0,) and (unweighted.rule.positive, unweighted.rule.negative) == (4, 1)
    heavy = best_rule(holds, positive, negative, weights=[1.0, 1.0, 1.0, 1.0, 6.0, 1.0])  # case 4 weighs 6
    assert heavy.rule.tests == (1,) and (heavy.rule.positive, heavy.rule.negative) == (1.0, 0.0)
    assert heavy.rule.value == laplace(1, 0) > laplace(4, 6)
    ones = best_rule(holds, positive, negative, weights=np.ones(6))
    assert ones == unweighted and type(ones.rule.positive) is int
    assert best_rule(holds, positive, negative, weights=[0.0, 0.0, 0.0, 0.0, 1.0, 1.0]).rule is None
    with pytest.raises(ValueError, match=r"weights has 2 values for 6 samples"):
        best_rule(holds, positive, negative, weights=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"weights contains 1 negative value"):
        best_rule(holds, positive, negative, weights=[1.0, -1.0, 1.0, 1.0, 1.0, 1.0])


@pytest.mark.parametrize("draw", [
    lambda rng, n: rng.integers(0, 4, n),  # few integers
    lambda rng, n: rng.choice([0.0, 1.7, 0.6], n),  # class weights
    lambda rng, n: rng.integers(0, 200, n),  # integers of several bits
    lambda rng, n: rng.random(n) * (rng.random(n) < 0.8),  # arbitrary floats
    lambda rng, n: rng.choice([1e-200, 1e200, 3.3, 0.0], n),  # a huge range: units beyond int64
    lambda rng, n: rng.random(n) * rng.choice([1e-300, 1e300, 1.0], n),
    lambda rng, n: rng.random(n) * 1e-310,  # subnormal floats
])
def test_case_weights_sums_are_exact(draw):
    rng = np.random.default_rng(0)
    for n in (0, 1, 7, 64, 150):
        weights = np.asarray(draw(rng, n), dtype=float)
        exact = CaseWeights(weights)
        mask = rng.random(n) < 0.7
        size = exact.size(mask)
        chosen = weights[mask]
        for _ in range(5):
            subset = rng.random(chosen.size) < 0.5
            bitset = int.from_bytes(np.packbits(subset, bitorder="little").tobytes(), "little")
            truth = sum((Fraction(w) for w in chosen[subset]), Fraction(0))
            assert size(bitset) == float(truth)  # the exact sum, rounded once
        assert exact.total(mask) == float(sum((Fraction(w) for w in chosen), Fraction(0)))
        assert Fraction(exact.exact(mask)) * Fraction(2) ** exact.exponent == sum((Fraction(w) for w in chosen),
                                                                                    Fraction(0))
