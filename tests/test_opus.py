"""The exact best-rule search (optrules.learners.opus) against brute-force enumeration."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optrules.learners.opus import best_rule, brute_force_best_rule, laplace, rule_key

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
