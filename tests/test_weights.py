"""validate_sample_weight: the one check of weights, whoever passes them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import optrules
from optrules.weights import validate_sample_weight

NAN = float("nan")



def test_sample_weight_none_gives_ones():
    weights = validate_sample_weight(None, 4)
    assert weights.dtype == np.float64 and weights.tolist() == [1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("scalar", [2, 2.0, np.int64(2), np.float32(2.0)])
def test_sample_weight_scalar_applies_to_every_row(scalar):
    weights = validate_sample_weight(scalar, 3)
    assert weights.dtype == np.float64 and weights.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("given", [
    [1, 2, 0.5],
    (1, 2, 0.5),
    np.array([1, 2, 0.5], dtype=np.float32),
    pd.Series([1, 2, 0.5], index=[9, 8, 7]),
    np.array([1, 2, 0.5], dtype=object),
    pd.array([1, 2, 0], dtype="Int64"),
])
def test_sample_weight_array_likes_become_float64(given):
    weights = validate_sample_weight(given, 3)
    assert weights.dtype == np.float64 and weights.shape == (3,)
    assert weights.tolist() == [1.0, 2.0, float(np.asarray(given, dtype=object)[2])]


def test_sample_weight_is_a_copy():
    given = np.array([1.0, 2.0, 3.0])
    weights = validate_sample_weight(given, 3)
    weights[0] = 99.0
    assert given.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(("given", "message"), [
    ([1.0, 2.0, 3.0], r"^sample_weight has 3 values for 5 samples$"),
    (np.ones((5, 1)), r"sample_weight must be 1-dimensional .*got shape \(5, 1\)"),
    (["a", "b", "c", "d", "e"], r"sample_weight must be numbers, got values of dtype <U1"),
    (np.array([1, "a", 2, 3, 4], dtype=object),
     r"sample_weight must be numbers, got non-numeric value\(s\) e\.g\. 'a'"),
    ("heavy", r"sample_weight must be numbers, got values of dtype <U5"),
    (np.ones(5, dtype=complex), r"sample_weight must be real numbers, got complex values"),
    (np.array([1, 2j, 1, 1, 1], dtype=object), r"sample_weight must be real numbers, got complex values"),
    (np.ones(5, dtype=bool), r"sample_weight must be numbers, got booleans"),
    (np.array([1, True, 1, 1, 1], dtype=object), r"sample_weight must be numbers, got booleans"),
    (True, r"sample_weight must be numbers, got booleans"),
    ([1.0, NAN, 1.0, NAN, 1.0], r"sample_weight contains 2 NaN \(missing\) value\(s\)"),
    (np.array([1, None, 1, 1, 1], dtype=object), r"sample_weight contains 1 NaN \(missing\) value\(s\)"),
    ([1.0, math.inf, 1.0, 1.0, 1.0], r"sample_weight contains 1 infinite value\(s\)"),
    ([1.0, -2.0, 1.0, -1.0, 1.0],
     r"sample_weight contains 2 negative value\(s\) \(e\.g\. -2\.0\); weights must be >= 0"),
    (np.zeros(5), r"sample_weight sums to 0 \(every weight is zero\)"),
    (0, r"sample_weight sums to 0 \(every weight is zero\)"),
    ([[1.0, 2.0], [1.0]], r"sample_weight must be a 1-d array of numbers"),
])
def test_sample_weight_errors_name_the_problem(given, message):
    with pytest.raises(ValueError, match=message):
        validate_sample_weight(given, 5)



def test_the_message_names_the_argument_it_was_given_as():
    with pytest.raises(ValueError, match=r"^weights has 2 values for 3 samples$"):
        validate_sample_weight([1.0, 1.0], 3, name="weights")


def test_an_estimator_s_fit_takes_at_most_2_to_the_53_rows_of_weight():
    """Uniform weights of 1e154 made ChiMerge's squared counts overflow and every learner silently
    found no rule (review); a fit refuses such weights, the kernels keep taking any finite ones."""
    assert validate_sample_weight(np.full(4, 2.0 ** 51), 4, capped=True).sum() == 2.0 ** 53
    with pytest.raises(ValueError, match="beyond 2\\*\\*53 rows"):
        validate_sample_weight(np.full(4, 2.0 ** 51 + 2.0 ** 40), 4, capped=True)
    assert validate_sample_weight(np.full(5, 1e154), 5).sum() == 5e154  # a kernel's check: no cap
    X = pd.DataFrame({"a": np.arange(20.0)})
    y = np.where(X["a"] > 9, "p", "n")
    with pytest.raises(ValueError, match=r"sample_weight sums to 2e\+155: weights count as rows.*rescale them"):
        optrules.make_estimator("setcover-greedy").fit(X, y, sample_weight=np.full(20, 1e154))
