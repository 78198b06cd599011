"""Tests for optrules.ruleset: conditions, rules and the Ruleset value type.

Property tests check rule evaluation against an independent row-by-row reference written in plain
Python (math comparisons, ``is None`` / NaN checks, set membership), JSON round trips, and the
agreement of ``covers`` with ``predict`` / ``decision_function`` for every kind; the training class
counts and probabilities against a row-by-row reference, integer weights against duplicated rows,
and a scorecard's calibrated probability against the sign of its score. Validation tests check that
every malformed dictionary raises a ValueError naming the field.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optrules.ruleset import (
    FORMAT_VERSION,
    RULESET_KINDS,
    CategoricalCondition,
    Condition,
    Interval,
    LinearTerm,
    NumericCondition,
    Rule,
    Ruleset,
    category_text,
)

INF = math.inf
NAN = float("nan")

PROPERTY = settings(derandomize=True, max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ---------------------------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------------------------

# Data values and cut points share a small pool so that values often sit exactly on a boundary.
NUMERIC_POOL = [-3.0, -1.0, 0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 10.0]
CUT_POOL = [-INF, *NUMERIC_POOL, INF]
INT_POOL = [-2, 0, 1, 3, 7]

# Per categorical feature: the values that occur in the data, and extra categories a rule may name
# that never occur (unseen in the data, or equal-looking values of another type).
CATEGORICAL_DOMAINS = {
    "colour": (["red", "green", "blue"], ["purple", "Red"]),
    "size": ([0, 1, 2], [99, "1"]),  # int-valued categorical (object column)
    "grade": (["lo", "mid", "hi"], ["top"]),  # pandas category dtype
    "flag": ([True, False], ["yes"]),  # bool categorical (object column)
}
NUMERIC_FEATURES = ["age", "income", "count"]  # float with NaN, float with NaN, int64 without missing
ALL_FEATURES = ["age", "colour", "income", "size", "grade", "count", "flag"]

LABEL_PAIRS = [("yes", "no"), (1, 0), (True, False), (("pos", 1), ("neg", 0)), (1.5, -0.5)]
LIST_CLASSES = [0, "b", ("t", 1), 2.5, True]


def _with_missing(values: st.SearchStrategy, n: int, missing) -> st.SearchStrategy:
    return st.lists(st.one_of(values, st.just(missing)), min_size=n, max_size=n)


@st.composite
def frames(draw) -> pd.DataFrame:
    """A mixed-type DataFrame: numeric columns with NaN, string / int / bool / category columns with None."""
    n = draw(st.integers(1, 20))
    number = st.one_of(st.sampled_from(NUMERIC_POOL), st.floats(-20, 20, allow_nan=False))
    data = {
        "age": pd.Series(draw(_with_missing(number, n, NAN)), dtype=float),
        # default constructor: pandas' string dtype (missing stored as NaN)
        "colour": pd.Series(draw(_with_missing(st.sampled_from(CATEGORICAL_DOMAINS["colour"][0]), n, None))),
        "income": pd.Series(draw(_with_missing(number, n, NAN)), dtype=float),
        "size": pd.Series(draw(_with_missing(st.sampled_from(CATEGORICAL_DOMAINS["size"][0]), n, None)),
                          dtype=object),
        "grade": pd.Series(pd.Categorical(
            draw(_with_missing(st.sampled_from(CATEGORICAL_DOMAINS["grade"][0]), n, None)),
            categories=CATEGORICAL_DOMAINS["grade"][0])),
        "count": pd.Series(draw(st.lists(st.sampled_from(INT_POOL), min_size=n, max_size=n)), dtype="int64"),
        "flag": pd.Series(draw(_with_missing(st.sampled_from(CATEGORICAL_DOMAINS["flag"][0]), n, None)),
                          dtype=object),
    }
    return pd.DataFrame(data)


@st.composite
def intervals(draw) -> Interval:
    low, high = sorted(draw(st.lists(st.sampled_from(CUT_POOL), min_size=2, max_size=2)))
    return Interval(low, high, draw(st.booleans()), draw(st.booleans()))


@st.composite
def conditions(draw):
    feature = draw(st.sampled_from(ALL_FEATURES))
    missing = draw(st.booleans())
    if feature in NUMERIC_FEATURES:
        return NumericCondition(feature, draw(st.lists(intervals(), min_size=1, max_size=3)), missing)
    seen, unseen = CATEGORICAL_DOMAINS[feature]
    categories = draw(st.lists(st.sampled_from(seen + unseen), min_size=1, max_size=4))
    return CategoricalCondition(feature, categories, draw(st.booleans()), missing)


def rules(prediction: st.SearchStrategy, weight: st.SearchStrategy) -> st.SearchStrategy:
    return st.builds(
        Rule,
        st.lists(conditions(), min_size=0, max_size=3).map(tuple),
        prediction,
        weight,
        st.one_of(st.none(), st.integers(0, 50)),
        st.one_of(st.none(), st.integers(0, 50)),
    )


WEIGHTS = st.floats(-5, 5, allow_nan=False)


@st.composite
def rulesets(draw, kind: str | None = None) -> Ruleset:
    kind = kind or draw(st.sampled_from(RULESET_KINDS))
    if kind == "list":
        classes = tuple(draw(st.lists(st.sampled_from(LIST_CLASSES), min_size=2, max_size=5, unique=True)))
        # 0 and True never coexist: they are equal in Python, so they would be one class
        if 0 in classes and True in classes and any(c is True for c in classes):
            classes = tuple(c for c in classes if c is not True) + ("extra",)
        return Ruleset("list", draw(st.lists(rules(st.sampled_from(classes), st.none()), max_size=5)),
                       draw(st.sampled_from(classes)), ALL_FEATURES, classes)
    positive, negative = draw(st.sampled_from(LABEL_PAIRS))
    if kind == "set":
        return Ruleset("set", draw(st.lists(rules(st.just(positive), st.none()), max_size=5)),
                       negative, ALL_FEATURES, (negative, positive), positive=positive)
    linear = draw(st.lists(st.builds(LinearTerm, st.sampled_from(NUMERIC_FEATURES), WEIGHTS,
                                     st.floats(-5, 5, allow_nan=False), st.floats(0.1, 10)), max_size=3))
    return Ruleset("score", draw(st.lists(rules(st.just(positive), WEIGHTS), max_size=5)), negative,
                   ALL_FEATURES, (negative, positive), positive=positive, intercept=draw(WEIGHTS),
                   linear=linear)


# ---------------------------------------------------------------------------------------------
# Independent reference evaluation (plain Python, one row at a time)
# ---------------------------------------------------------------------------------------------

def _is_missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _reference_condition(condition, value) -> bool:
    if _is_missing(value):
        return condition.missing
    if isinstance(condition, NumericCondition):
        x = float(value)
        for interval in condition.intervals:
            above = x >= interval.low if interval.low_closed else x > interval.low
            below = x <= interval.high if interval.high_closed else x < interval.high
            if above and below:
                return True
        return False
    member = value in set(condition.categories)
    return not member if condition.negated else member


def _rows(df: pd.DataFrame) -> list[dict]:
    columns = {name: df[name].tolist() for name in df.columns}
    return [{name: columns[name][i] for name in df.columns} for i in range(len(df))]


def _spellings(value) -> tuple[str, str | None]:
    """How a value is written, and an integral number's other spelling ('3.0' for 3, '3' for 3.0)."""
    value = value.item() if isinstance(value, np.generic) else value
    other = None
    if isinstance(value, float) and value.is_integer():
        other = str(int(value))
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 2 ** 53:
        other = str(float(value))
    return str(value), other


def _reference_value(ruleset: Ruleset, feature: str, value):
    """The value a categorical condition reads: itself, or, when it equals none of the categories the
    rules name on its feature, the one of them written as it (by its text, then the other spelling)."""
    named = {c for rule in ruleset.rules for cond in rule.conditions
             if isinstance(cond, CategoricalCondition) and cond.feature == feature for c in cond.categories}
    if not named or _is_missing(value) or value in named:
        return value
    text, other = _spellings(value)
    candidates = [c for c in named if _spellings(c)[0] == text]
    if not candidates:
        candidates = [c for c in named if _spellings(c)[0] == other or _spellings(c)[1] == text]
    if len(candidates) > 1:
        raise ValueError("written as several training categories")
    return candidates[0] if candidates else value


def _reference_covers(ruleset: Ruleset, df: pd.DataFrame) -> list[list[bool]]:
    return [[all(_reference_condition(c, _reference_value(ruleset, c.feature, row[c.feature])) for c in rule.conditions)
             for rule in ruleset.rules] for row in _rows(df)]


def _reference_decision(ruleset: Ruleset, df: pd.DataFrame) -> list[float]:
    out = []
    for row, fired in zip(_rows(df), _reference_covers(ruleset, df)):
        score = ruleset.intercept
        score += sum(rule.weight for rule, f in zip(ruleset.rules, fired) if f)
        for term in ruleset.linear:
            value = row[term.feature]
            if not _is_missing(value):
                score += term.coefficient * (float(value) - term.center) / term.scale
        out.append(score)
    return out


def _typed(values) -> list[tuple[type, object]]:
    """Values with their types, so that 1 == 1.0 == True do not hide a changed label type."""
    return [(type(v), v) for v in values]


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------

@PROPERTY
@given(frames(), rulesets())
def test_json_round_trip_is_exact(df, ruleset):
    text = ruleset.to_json()
    json.loads(text)  # plain JSON
    again = Ruleset.from_json(text)
    assert again == ruleset
    assert hash(again) == hash(ruleset)
    assert again.to_json() == text
    assert _typed(again.classes) == _typed(ruleset.classes)
    assert _typed([again.default, again.positive]) == _typed([ruleset.default, ruleset.positive])
    assert _typed(again.predict(df)) == _typed(ruleset.predict(df))
    assert np.array_equal(again.covers(df), ruleset.covers(df))
    if ruleset.kind == "score":
        assert np.array_equal(again.decision_function(df), ruleset.decision_function(df))
    assert Ruleset.from_dict(ruleset.to_dict()) == ruleset


@PROPERTY
@given(frames(), rulesets())
def test_covers_matches_row_by_row_reference(df, ruleset):
    try:
        expected = _reference_covers(ruleset, df)
    except ValueError:  # a value written as two of the rules' categories: an error, not a guess
        with pytest.raises(ValueError, match="written as several training categories"):
            ruleset.covers(df)
        return
    covers = ruleset.covers(df)
    assert covers.dtype == bool
    assert covers.shape == (len(df), ruleset.n_rules)
    assert covers.tolist() == expected


@PROPERTY
@given(frames(), st.integers(0, 2**32 - 1), st.integers(60, 140))
def test_covers_of_many_rules_and_intervals_matches_row_by_row_reference(df, seed, n_rules):
    # more than 64 rules (several words of rule bits), conditions shared by rules, conditions of
    # many sorted disjoint intervals made by from_bounds (their ends without a sort) and of
    # overlapping ones (the sorted fallback), missing values in or out
    rng = np.random.default_rng(seed)
    pool = [*CUT_POOL[1:-1], *rng.uniform(-20, 20, 8).round(2).tolist()]
    made: list[Condition] = []
    for _ in range(12):
        feature = str(rng.choice(NUMERIC_FEATURES))
        if rng.random() < 0.5:
            ends = np.unique(rng.choice(pool, 2 * int(rng.integers(1, 6))))
            if ends.size % 2:
                ends = ends[:-1]
            if rng.random() < 0.5:  # disjoint intervals apart
                lows, highs = (ends[0::2], ends[1::2]) if ends.size else (np.array([0.0]), np.array([1.0]))
            else:  # intervals that meet (one ends where the next starts), as decoded bins do
                lows, highs = (ends[:-1], ends[1:]) if ends.size > 1 else (np.array([0.0]), np.array([1.0]))
            made.append(NumericCondition.from_bounds(feature, lows, highs, rng.random(lows.size) < 0.5,
                                                     rng.random(lows.size) < 0.5, bool(rng.random() < 0.3)))
        else:
            bounds = [sorted(rng.choice(pool, 2).tolist()) for _ in range(int(rng.integers(1, 4)))]
            made.append(NumericCondition(feature, [Interval(a, b, bool(rng.random() < 0.5), bool(rng.random() < 0.5))
                                                   for a, b in bounds], bool(rng.random() < 0.3)))
    made.append(CategoricalCondition("colour", ["red", "blue"], bool(rng.random() < 0.5), True))
    picks = [rng.choice(len(made), int(rng.integers(0, 4)), replace=False) for _ in range(n_rules)]
    ruleset = Ruleset("set", [Rule(tuple(made[k] for k in pick), "yes") for pick in picks], "no", ALL_FEATURES,
                      ("no", "yes"), positive="yes")
    covers = ruleset.covers(df)
    assert covers.dtype == bool and covers.shape == (len(df), n_rules)
    assert covers.tolist() == _reference_covers(ruleset, df)


@PROPERTY
@given(frames(), rulesets(), st.data())
def test_each_condition_matches_reference(df, ruleset, data):
    conditions = [c for r in ruleset.rules for c in r.conditions]
    if not conditions:
        return
    condition = data.draw(st.sampled_from(conditions))
    column = df[condition.feature]
    expected = [_reference_condition(condition, v) for v in column.tolist()]
    assert condition.evaluate(column.to_numpy()).tolist() == expected


@PROPERTY
@given(frames(), rulesets("set"))
def test_set_predicts_positive_iff_any_rule_fires(df, ruleset):
    expected = [ruleset.positive if any(fired) else ruleset.default for fired in _reference_covers(ruleset, df)]
    assert _typed(ruleset.predict(df)) == _typed(expected)


@PROPERTY
@given(frames(), rulesets("list"))
def test_list_predicts_first_firing_rule(df, ruleset):
    expected = []
    for fired in _reference_covers(ruleset, df):
        firing = [rule.prediction for rule, f in zip(ruleset.rules, fired) if f]
        expected.append(firing[0] if firing else ruleset.default)
    assert _typed(ruleset.predict(df)) == _typed(expected)


@PROPERTY
@given(frames(), rulesets("score"))
def test_score_decision_and_prediction(df, ruleset):
    decision = ruleset.decision_function(df)
    assert decision.shape == (len(df),)
    assert decision == pytest.approx(_reference_decision(ruleset, df), rel=1e-12, abs=1e-9)
    expected = [ruleset.positive if d > 0 else ruleset.default for d in decision]
    assert _typed(ruleset.predict(df)) == _typed(expected)


@PROPERTY
@given(frames(), rulesets(), st.permutations(ALL_FEATURES))
def test_column_order_and_numpy_input_do_not_matter(df, ruleset, order):
    expected = _typed(ruleset.predict(df))
    shuffled = df[list(order)].assign(unused=1.0)
    assert _typed(ruleset.predict(shuffled)) == expected
    assert np.array_equal(ruleset.covers(shuffled), ruleset.covers(df))
    array = df[list(ruleset.features)].to_numpy(dtype=object)
    assert _typed(ruleset.predict(array)) == expected
    assert np.array_equal(ruleset.covers(array), ruleset.covers(df))
    if ruleset.kind == "score":
        assert np.array_equal(ruleset.decision_function(shuffled), ruleset.decision_function(df))
        assert np.array_equal(ruleset.decision_function(array), ruleset.decision_function(df))


# ---------------------------------------------------------------------------------------------
# Helpers for the specific tests
# ---------------------------------------------------------------------------------------------

AGE_YOUNG = NumericCondition("age", [Interval(-INF, 40)])
RED = CategoricalCondition("colour", ["red"])
RICH = NumericCondition("income", [Interval(20, INF, True, True)])


def _set_ruleset(**kwargs) -> Ruleset:
    options = dict(kind="set", rules=(Rule((AGE_YOUNG, RED), "yes"), Rule((RICH,), "yes")), default="no",
                   features=("age", "colour", "income"), classes=("no", "yes"), positive="yes")
    options.update(kwargs)
    return Ruleset(**options)


# ---------------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------------

def test_missing_column_error_names_the_column():
    ruleset = _set_ruleset()
    df = pd.DataFrame({"age": [30.0], "colour": ["red"]})
    with pytest.raises(ValueError, match=r"missing feature column.*'income'"):
        ruleset.predict(df)
    with pytest.raises(ValueError, match="'income'"):
        ruleset.covers(df)


def test_array_with_wrong_width_or_dimension_is_rejected():
    ruleset = _set_ruleset()
    with pytest.raises(ValueError, match=r"2 columns but the ruleset was fitted on 3 features"):
        ruleset.predict(np.array([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="2-dimensional"):
        ruleset.predict(np.array([1.0, 2.0, 3.0]))
    empty = Ruleset("list", (), "no", ("a", "b"), ("no",))
    with pytest.raises(ValueError, match="fitted on 2 features"):
        empty.predict(np.zeros((3, 5)))


def test_unseen_category_fails_in_and_satisfies_not_in():
    column = np.array(["red", "never-seen", None], dtype=object)
    assert CategoricalCondition("c", ["red", "green"]).evaluate(column).tolist() == [True, False, False]
    assert CategoricalCondition("c", ["red", "green"], negated=True).evaluate(column).tolist() == [
        False, True, False]
    # a category in the rule that is not in the data is simply never matched
    assert CategoricalCondition("c", ["blue"]).evaluate(column).tolist() == [False, False, False]
    assert CategoricalCondition("c", ["blue"], negated=True).evaluate(column).tolist() == [True, True, False]


def test_categorical_membership_keeps_types_apart():
    column = np.array([1, "1", 2.0], dtype=object)
    assert CategoricalCondition("c", [1]).evaluate(column).tolist() == [True, False, False]
    assert CategoricalCondition("c", ["1"]).evaluate(column).tolist() == [False, True, False]
    assert CategoricalCondition("c", [2]).evaluate(column).tolist() == [False, False, True]


@pytest.mark.parametrize("missing_value", [None, NAN, pd.NA])
@pytest.mark.parametrize("negated", [False, True])
def test_categorical_missing_semantics(missing_value, negated):
    column = np.array(["a", missing_value, "b"], dtype=object)
    satisfied = CategoricalCondition("c", ["a"], negated=negated, missing=True).evaluate(column)
    unsatisfied = CategoricalCondition("c", ["a"], negated=negated, missing=False).evaluate(column)
    assert satisfied[1] and not unsatisfied[1]
    assert satisfied[0] == unsatisfied[0] == (not negated)
    assert satisfied[2] == unsatisfied[2] == negated


@pytest.mark.parametrize("column", [
    np.array([0.5, NAN, 5.0]),
    np.array([0.5, None, 5.0], dtype=object),
    pd.array([0.5, None, 5.0], dtype="Float64").to_numpy(dtype=object),
])
def test_numeric_missing_semantics(column):
    interval = Interval(0, 1)
    assert NumericCondition("x", [interval], missing=True).evaluate(column).tolist() == [True, True, False]
    assert NumericCondition("x", [interval], missing=False).evaluate(column).tolist() == [True, False, False]
    # NaN is never inside an interval, even an unbounded one
    assert not Interval(-INF, INF, True, True).contains(np.array([NAN]))[0]
    assert NumericCondition("x", [Interval(-INF, INF)]).evaluate(column).tolist() == [True, False, True]


def test_numeric_condition_on_non_numeric_column_is_a_clear_error():
    with pytest.raises(ValueError, match="feature 'x' must be numeric"):
        NumericCondition("x", [Interval(0, 1)]).evaluate(np.array(["a", "b"], dtype=object))


@pytest.mark.parametrize("low_closed", [False, True])
@pytest.mark.parametrize("high_closed", [False, True])
def test_interval_ends_at_exact_boundary(low_closed, high_closed):
    interval = Interval(1.0, 2.0, low_closed, high_closed)
    values = np.array([np.nextafter(1.0, 0), 1.0, 1.5, 2.0, np.nextafter(2.0, 3)])
    assert interval.contains(values).tolist() == [False, low_closed, True, high_closed, False]


def test_degenerate_and_unbounded_intervals():
    assert Interval(3, 3, True, True).contains(np.array([3.0, 3.1])).tolist() == [True, False]
    assert not Interval(3, 3, True, False).contains(np.array([3.0]))[0]
    assert Interval(-INF, 0).contains(np.array([-1e300, 0.0])).tolist() == [True, False]
    assert Interval(0, INF, False, True).contains(np.array([0.0, 1e300])).tolist() == [False, True]


def test_interval_validation():
    with pytest.raises(ValueError, match="must not be NaN"):
        Interval(NAN, 1)
    with pytest.raises(ValueError, match="empty interval"):
        Interval(2, 1)
    with pytest.raises(ValueError, match="at least one interval"):
        NumericCondition("x", [])
    with pytest.raises(ValueError, match="at least one category"):
        CategoricalCondition("x", [])


def test_conditions_are_canonical_values():
    a = NumericCondition("x", [Interval(5, 6), Interval(1, 2)])
    b = NumericCondition("x", [Interval(1, 2), Interval(5, 6)])
    assert a == b and hash(a) == hash(b)
    assert CategoricalCondition("c", ["b", "a", "a"]) == CategoricalCondition("c", ("a", "b"))
    assert CategoricalCondition("c", [np.int64(3)]).categories == (3,)
    assert type(CategoricalCondition("c", [np.int64(3)]).categories[0]) is int
    assert CategoricalCondition("c", ["a"]) != CategoricalCondition("c", ["a"], negated=True)
    assert CategoricalCondition("c", ["a"]) != CategoricalCondition("c", ["a"], missing=True)
    assert NumericCondition("x", [Interval(1, 2)]) != NumericCondition("x", [Interval(1, 2, True, True)])
    assert len({a, b, RED, CategoricalCondition("colour", ["red"])}) == 2


def test_rule_without_conditions_always_fires():
    ruleset = Ruleset("list", (Rule((), "b"),), "a", ("x",), ("a", "b"))
    assert ruleset.covers(pd.DataFrame({"x": [1.0, NAN]})).tolist() == [[True], [True]]
    assert ruleset.predict(pd.DataFrame({"x": [1.0, NAN]})).tolist() == ["b", "b"]
    assert str(ruleset.rules[0]) == "IF TRUE THEN b"


def test_empty_ruleset_predicts_default():
    ruleset = Ruleset("set", (), "no", ("x",), ("no", "yes"), positive="yes")
    assert ruleset.predict(pd.DataFrame({"x": [1.0, 2.0]})).tolist() == ["no", "no"]
    assert ruleset.covers(pd.DataFrame({"x": [1.0, 2.0]})).shape == (2, 0)
    assert str(ruleset) == "class = no"


def test_predict_returns_object_array_of_labels():
    ruleset = _set_ruleset()
    df = pd.DataFrame({"age": [30.0, 50.0, 50.0], "colour": ["red", "red", "blue"], "income": [0.0, 0.0, 20.0]})
    prediction = ruleset.predict(df)
    assert prediction.dtype == object
    assert prediction.tolist() == ["yes", "no", "yes"]
    assert ruleset.covers(df).tolist() == [[True, False], [False, False], [False, True]]


@pytest.mark.parametrize("kind", ["set", "score"])
def test_tuple_labels_are_predicted_whole(kind):
    # A tuple label must not be spread element-wise over the samples a boolean mask selects.
    positive, negative = ("pos", 1), ("neg", 0)
    rule = Rule((CategoricalCondition("c", ["x"]),), positive, weight=1.0 if kind == "score" else None)
    ruleset = Ruleset(kind, (rule,), negative, ("c",), (negative, positive), positive=positive,
                      intercept=-0.5 if kind == "score" else 0.0)
    prediction = ruleset.predict(pd.DataFrame({"c": ["x", "y", "x"]}))
    assert prediction.shape == (3,)
    assert prediction.tolist() == [positive, negative, positive]


def test_score_linear_terms_and_missing_values():
    term = LinearTerm("x", 2.0, center=1.0, scale=4.0)
    assert term.contribution(np.array([5.0, NAN, 1.0])).tolist() == [2.0, 0.0, 0.0]
    ruleset = Ruleset("score", (Rule((CategoricalCondition("c", ["a"]),), 1, weight=3.0),), 0, ("x", "c"),
                      (0, 1), positive=1, intercept=-2.5, linear=(term,))
    df = pd.DataFrame({"x": [5.0, NAN, 1.0, 0.0], "c": ["b", "a", "a", None]})
    # -2.5 + [0, 3, 3, 0] + [2, 0, 0, -0.5]
    assert ruleset.decision_function(df).tolist() == [-0.5, 0.5, 0.5, -3.0]
    assert ruleset.predict(df).tolist() == [0, 1, 1, 0]
    with pytest.raises(ValueError, match="scale of 'x' must be positive"):
        LinearTerm("x", 1.0, scale=0.0)


def test_score_prediction_is_negative_at_exactly_zero():
    ruleset = Ruleset("score", (Rule((), 1, weight=2.0),), 0, ("x",), (0, 1), positive=1, intercept=-2.0)
    assert ruleset.decision_function(pd.DataFrame({"x": [1.0]})).tolist() == [0.0]
    assert ruleset.predict(pd.DataFrame({"x": [1.0]})).tolist() == [0]


def test_decision_function_only_for_scorecards():
    with pytest.raises(AttributeError, match="'score' rulesets"):
        _set_ruleset().decision_function(pd.DataFrame({"age": [1.0], "colour": ["a"], "income": [1.0]}))


# ---------------------------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------------------------

def test_interval_printing():
    assert str(Interval(-INF, 40)) == "[min, 40)"
    assert str(Interval(-INF, 40, False, False)) == "[min, 40)"
    assert str(Interval(20, INF)) == "[20, max]"
    assert str(Interval(20, INF, True, True)) == "[20, max]"
    assert str(Interval(20, 40, False, True)) == "(20, 40]"
    assert str(Interval(0.529, 2.5)) == "[0.529, 2.5)"
    assert str(Interval(1234567.5, 1e20)) == "[1234567.5, 100000000000000000000)"
    # a cut needing more than 6 significant digits prints in full: rounded to 40.7128, the printed
    # rule would cover 40.71281, which the model does not
    assert str(Interval(40.712835, INF)) == "[40.712835, max]"
    assert str(Interval(-INF, 1 + 3e-8)) == "[min, 1.00000003)"


def test_tiny_cut_points_do_not_print_as_zero():
    text = str(Interval(1e-7, 2.5e-5))
    assert text != "[0, 0)"
    low, high = text[1:-1].split(", ")
    assert float(low) == 1e-7 and float(high) == 2.5e-5


def test_condition_printing():
    union = NumericCondition("age", [Interval(56, 57), Interval(35, 39)])
    assert str(union) == "age in [35, 39), [56, 57)"
    assert str(NumericCondition("age", [Interval(-INF, 40)], missing=True)) == "age in [min, 40) or missing"
    assert str(CategoricalCondition("colour", ["red", "blue"])) == "colour in {blue, red}"
    assert str(CategoricalCondition("colour", ["red"], negated=True)) == "colour not in {red}"
    assert str(CategoricalCondition("colour", ["red"], missing=True)) == "colour in {red} or missing"


def test_set_printing():
    text = str(_set_ruleset())
    assert text == "\n".join([
        "IF (",
        "    age in [min, 40) AND",
        "    colour in {red}",
        ")",
        "OR income in [20, max]",
        "THEN class = yes",
        "ELSE class = no",
    ])


def test_list_printing():
    ruleset = Ruleset("list", (Rule((AGE_YOUNG, RED), "a"), Rule((RICH,), "b")), "c",
                      ("age", "colour", "income"), ("a", "b", "c"))
    assert str(ruleset) == "\n".join([
        "IF age in [min, 40) AND colour in {red} THEN class = a",
        "ELSE IF income in [20, max] THEN class = b",
        "ELSE class = c",
    ])


def test_score_printing():
    ruleset = Ruleset("score", (Rule((RED,), 1, weight=1.5),), 0, ("colour", "income"), (0, 1), positive=1,
                      intercept=-0.25, linear=(LinearTerm("income", 2.0, 10.0, 5.0),))
    text = str(ruleset)
    lines = text.split("\n")
    assert lines[0] == "SCORE = -0.25"
    assert "+1.5  IF colour in {red}" in lines[1]
    assert "+2 * (income - 10) / 5" in lines[2]
    assert lines[-2:] == ["IF SCORE > 0 THEN class = 1", "ELSE class = 0"]
    below = Ruleset("score", (), 0, ("income",), (0, 1), positive=1, linear=(LinearTerm("income", 2.0, -0.049, 5.0),))
    assert "+2 * (income + 0.049) / 5" in str(below)  # a negative centre was written "- -0.049"


# ---------------------------------------------------------------------------------------------
# Complexity and validation
# ---------------------------------------------------------------------------------------------

def test_complexity_counts():
    ruleset = _set_ruleset()
    assert ruleset.n_rules == 2
    assert ruleset.n_atoms == 3
    assert ruleset.avg_atoms == 1.5
    assert ruleset.rules[0].n_atoms == 2
    assert ruleset.rules[0].features == ("age", "colour")
    empty = Ruleset("list", (), "a", ("x",), ("a",))
    assert (empty.n_rules, empty.n_atoms, empty.avg_atoms) == (0, 0, 0.0)


def test_ruleset_validation_errors():
    with pytest.raises(ValueError, match="unknown ruleset kind 'tree'"):
        _set_ruleset(kind="tree")
    with pytest.raises(ValueError, match="'set' ruleset needs its positive class"):
        _set_ruleset(positive=None)
    with pytest.raises(ValueError, match="'score' ruleset needs its positive class"):
        Ruleset("score", (), 0, ("x",), (0, 1))
    with pytest.raises(ValueError, match="every rule of a 'score' ruleset needs a weight"):
        Ruleset("score", (Rule((RED,), 1, weight=1.0), Rule((RED,), 1)), 0, ("colour",), (0, 1), positive=1)
    with pytest.raises(ValueError, match=r"features not listed in `features`: \['ghost'\]"):
        _set_ruleset(rules=(Rule((NumericCondition("ghost", [Interval(0, 1)]), RED), "yes"),))
    with pytest.raises(ValueError, match=r"features not listed in `features`: \['ghost'\]"):
        Ruleset("score", (), 0, ("x",), (0, 1), positive=1, linear=(LinearTerm("ghost", 1.0),))
    with pytest.raises(ValueError, match="only a 'score' ruleset has an intercept"):
        _set_ruleset(intercept=1.0)
    with pytest.raises(ValueError, match="only a 'score' ruleset has an intercept"):
        Ruleset("list", (), 0, ("x",), (0, 1), linear=(LinearTerm("x", 1.0),))
    # a list ruleset does not need a positive class
    assert Ruleset("list", (), "a", ("x",), ("a", "b")).positive is None


def test_ruleset_is_immutable_and_hashable():
    ruleset = _set_ruleset()
    with pytest.raises(AttributeError):
        ruleset.default = "yes"  # type: ignore[misc]
    assert ruleset == _set_ruleset(rules=list(ruleset.rules), features=["age", "colour", "income"])
    assert hash(ruleset) == hash(_set_ruleset(rules=list(ruleset.rules)))
    assert ruleset != _set_ruleset(default="yes")  # another class; one that is none is refused
    assert ruleset != _set_ruleset(rules=ruleset.rules[::-1])  # order is kept (it matters for lists)


# ---------------------------------------------------------------------------------------------
# Serialisation
# ---------------------------------------------------------------------------------------------

@dataclass
class FakeSolveReport:
    solver: str
    status: str
    gap: float

    def to_dict(self):
        return {"solver": self.solver, "status": self.status, "gap": self.gap}


def test_meta_is_not_part_of_equality_but_round_trips():
    meta = {"method": "libre", "params": {"alpha": 0.7, "bounds": (1, 2)}, "fit_seconds": np.float64(1.25),
            "random_state": np.int64(3), "reports": [FakeSolveReport("highs", "optimal", 0.0)],
            "report": FakeSolveReport("scip", "time_limit", INF)}
    ruleset = _set_ruleset(meta=meta)
    plain = _set_ruleset()
    assert ruleset == plain and hash(ruleset) == hash(plain)
    assert ruleset.with_meta(extra=1) == ruleset
    assert ruleset.with_meta(extra=1).meta["extra"] == 1 and "extra" not in ruleset.meta

    expected = {"method": "libre", "params": {"alpha": 0.7, "bounds": [1, 2]}, "fit_seconds": 1.25,
                "random_state": 3, "reports": [{"solver": "highs", "status": "optimal", "gap": 0.0}],
                "report": {"solver": "scip", "status": "time_limit", "gap": "inf"}}
    data = ruleset.to_dict()
    assert data["meta"] == expected
    assert type(data["meta"]["random_state"]) is int
    assert Ruleset.from_dict(data).meta == expected
    assert Ruleset.from_json(ruleset.to_json()).meta == expected
    assert json.loads(ruleset.to_json())["meta"] == expected


@pytest.mark.parametrize("positive,negative", [
    (1, 0), (True, False), ("yes", "no"), (("pos", 1), ("neg", (0, "x"))), (1.0, 0.0), (2.5, -1.5),
    (np.int64(1), np.int64(0)),
])
def test_labels_round_trip_with_their_type(positive, negative):
    ruleset = Ruleset("set", (Rule((RED,), positive),), negative, ("colour",), (negative, positive),
                      positive=positive)
    again = Ruleset.from_json(ruleset.to_json())
    plain = [v.item() if isinstance(v, np.generic) else v for v in (negative, positive)]
    assert _typed(again.classes) == _typed(plain)
    assert _typed([again.default, again.positive, again.rules[0].prediction]) == _typed(
        [plain[0], plain[1], plain[1]])
    prediction = again.predict(pd.DataFrame({"colour": ["red", "blue"]}))
    assert _typed(prediction) == _typed(plain[::-1])


def test_mixed_type_categories_round_trip():
    condition = CategoricalCondition("c", [1, "1", 2.0, True, ("a", 1), None])
    data = condition.to_dict()
    again = CategoricalCondition.from_dict(json.loads(json.dumps(data)))
    assert again == condition
    assert _typed(again.categories) == _typed(condition.categories)


def test_numpy_counts_and_floats_serialise():
    rule = Rule((RED,), "yes", weight=np.float32(0.5), n_positive=np.int64(7), n_negative=np.int32(2))
    ruleset = _set_ruleset(rules=(rule,))
    again = Ruleset.from_json(ruleset.to_json())
    assert again == ruleset
    assert (again.rules[0].n_positive, again.rules[0].n_negative, again.rules[0].weight) == (7, 2, 0.5)
    assert type(again.rules[0].n_positive) is int


def test_a_ruleset_matches_categories_written_as_its_values():
    """A CSV read back gives 3 (or 3.0, with missing values) for the category '3': a Ruleset, saved or
    not, takes it as '3', as the estimator's predict does (it predicted 'no' on every such row)."""
    rules = (Rule((CategoricalCondition("colour", ["3"]),), "yes"), Rule((CategoricalCondition("age", [7]),), "yes"))
    ruleset = _set_ruleset(rules=rules)
    X = pd.DataFrame({"age": [1.0, 7.0, np.nan, 7.0], "colour": [3, 1, np.nan, "3"], "income": 1.0})
    expected = ["yes", "yes", "no", "yes"]
    for model in (ruleset, Ruleset.from_json(ruleset.to_json())):
        assert model.predict(X).tolist() == expected
        assert model.explain(X)["prediction"].tolist() == expected
    assert ruleset.covers(X.assign(colour=[3.0, 1.0, np.nan, 3.0]))[:, 0].tolist() == [True, False, False, True]
    # a value equal to a named category is that category, whatever else is written like it
    both = _set_ruleset(rules=(Rule((CategoricalCondition("colour", [3]),), "yes"),
                               Rule((CategoricalCondition("colour", ["3"], negated=True),), "yes")))
    assert both.covers(X.assign(colour=[3, "3", 1, 1])).tolist()[:2] == [[True, True], [False, False]]


def test_weighted_counts_come_from_fit_probabilities_and_round_trip():
    """A rule's counts are the weight of the rows it covers (a list: decides), as class_counts."""
    X = pd.DataFrame({"age": [10.0, 20.0, 30.0, 60.0], "colour": ["red", "red", "blue", "red"], "income": 1.0})
    y = np.array(["yes", "no", "yes", "no"], dtype=object)
    fitted = _set_ruleset(rules=(Rule((RED,), "yes"),)).fit_probabilities(X, y, sample_weight=[0.5, 0.0, 2.0, 1.25])
    assert (fitted.rules[0].n_positive, fitted.rules[0].n_negative) == (0.5, 1.25)  # weight 0: not counted
    again = Ruleset.from_json(fitted.to_json())
    assert again == fitted and type(again.rules[0].n_positive) is float
    assert fitted.to_frame()["support"].tolist() == [1.75]


def test_infinite_interval_ends_round_trip():
    condition = NumericCondition("x", [Interval(-INF, 0, False, False), Interval(1, INF, True, True)], True)
    text = json.dumps(condition.to_dict(), allow_nan=False)  # strict JSON: no Infinity tokens
    assert condition.__class__.from_dict(json.loads(text)) == condition


def test_unknown_condition_kind_is_rejected():
    with pytest.raises(ValueError, match="unknown condition kind 'fuzzy'"):
        NumericCondition.from_dict({"kind": "fuzzy", "feature": "x", "missing": False})


def test_unserialisable_label_is_a_clear_error():
    ruleset = Ruleset("list", (), frozenset({1}), ("x",), (frozenset({1}),))
    with pytest.raises(TypeError, match="cannot serialise label or category"):
        ruleset.to_json()


# ---------------------------------------------------------------------------------------------
# Format version and validation of serialised rulesets
# ---------------------------------------------------------------------------------------------

DELETE = object()  # marks a field that `_changed` removes


def _valid_dict(kind: str) -> dict:
    """A valid serialised ruleset of ``kind`` with numeric and categorical conditions (and linear terms)."""
    if kind == "score":
        ruleset = Ruleset("score", (Rule((AGE_YOUNG,), "yes", weight=1.5), Rule((RED, RICH), "yes", weight=-0.5)),
                          "no", ("age", "colour", "income"), ("no", "yes"), positive="yes", intercept=-0.25,
                          linear=(LinearTerm("income", 2.0, 10.0, 5.0),), calibration=0.5)
    else:
        ruleset = _set_ruleset(class_counts=((1.0, 2.0), (0.0, 3.0), (4.0, 0.5)))
    return json.loads(ruleset.to_json())


def _changed(data: dict, path: tuple, value) -> dict:
    """A deep copy of ``data`` with the entry at ``path`` (keys and indices) set to ``value`` or deleted."""
    data = copy.deepcopy(data)
    holder = data
    for step in path[:-1]:
        holder = holder[step]
    if value is DELETE:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return data


CONDITION = ("rules", 0, "conditions", 0)  # AGE_YOUNG: a numeric condition
BOUND = (*CONDITION, "intervals", 0)
CATEGORICAL = ("rules", 0, "conditions", 1)  # RED, in the "set" ruleset

INVALID_FIELDS = [
    # (kind of the valid dictionary, path, new value, expected message as a regular expression)
    ("set", ("kind",), "tree", r"^ruleset field 'kind': unknown ruleset kind 'tree'"),
    ("set", ("kind",), 3, r"^ruleset field 'kind': unknown ruleset kind 3"),
    ("set", ("colour",), "red", r"^ruleset: unknown field\(s\) \['colour'\]"),
    ("set", ("classes",), "no, yes", r"^ruleset field 'classes' must be a list, got 'no, yes'"),
    ("set", ("classes",), ["no", "yes", "no"], r"^ruleset field 'classes\[2\]': duplicate class 'no'"),
    ("set", ("classes",), ["no", {"float": "nan"}], r"^ruleset field 'classes\[1\]\.float': NaN"),
    ("set", ("classes",), ["no", {"set": [1]}], r"^ruleset field 'classes\[1\]' must be a label or category"),
    ("set", ("classes",), ["no", {"float": "many"}], r"^ruleset field 'classes\[1\]\.float' must be the text"),
    ("set", ("default",), "maybe",
     r"^ruleset field 'default': 'maybe' is not one of the classes \['no', 'yes'\]$"),
    ("set", ("positive",), "maybe",
     r"^ruleset field 'positive': 'maybe' is not one of the classes \['no', 'yes'\]$"),
    ("set", ("rules", 1, "prediction"), "maybe",
     r"^ruleset field 'rules\[1\]\.prediction': 'maybe' is not one of the classes"),
    ("set", ("features",), "age", r"^ruleset field 'features' must be a list, got 'age'"),
    ("set", ("features", 1), 3, r"^ruleset field 'features\[1\]' must be a string, got 3$"),
    ("set", ("features",), ["age", "colour"],
     r"^ruleset field 'rules\[1\]\.conditions\[0\]\.feature': 'income' is not one of the features"),
    ("set", ("rules",), {"0": {}}, r"^ruleset field 'rules' must be a list"),
    ("set", ("rules", 0), 5, r"^ruleset field 'rules\[0\]' must be a mapping, got 5$"),
    ("set", ("rules", 0, "score"), 1, r"^ruleset field 'rules\[0\]': unknown field\(s\) \['score'\]"),
    ("set", ("rules", 0, "prediction"), DELETE,
     r"^ruleset field 'rules\[0\]': missing required field\(s\) \['prediction'\]"),
    ("set", ("rules", 0, "n_positive"), -1, r"^ruleset field 'rules\[0\]\.n_positive' must be a non-negative"),
    ("set", ("rules", 0, "n_negative"), INF, r"^ruleset field 'rules\[0\]\.n_negative' must be a non-negative"),
    ("set", ("rules", 0, "n_negative"), True, r"^ruleset field 'rules\[0\]\.n_negative' must be a non-negative"),
    ("set", ("rules", 0, "conditions"), None, r"^ruleset field 'rules\[0\]\.conditions' must be a list"),
    ("set", (*CONDITION, "kind"), "foo",
     r"^ruleset field 'rules\[0\]\.conditions\[0\]\.kind': unknown condition kind 'foo'"),
    ("set", (*CONDITION, "missing"), DELETE,
     r"^ruleset field 'rules\[0\]\.conditions\[0\]': missing required field\(s\) \['missing'\]"),
    ("set", (*CONDITION, "missing"), "no",
     r"^ruleset field 'rules\[0\]\.conditions\[0\]\.missing' must be a boolean"),
    ("set", (*CONDITION, "feature"), 7,
     r"^ruleset field 'rules\[0\]\.conditions\[0\]\.feature' must be a string"),
    ("set", (*CONDITION, "feature"), "ghost",
     r"^ruleset field 'rules\[0\]\.conditions\[0\]\.feature': 'ghost' is not one of the features "
     r"\['age', 'colour', 'income'\]$"),
    ("set", (*CONDITION, "negated"), False, r"^ruleset field 'rules\[0\]\.conditions\[0\]': unknown field\(s\)"),
    ("set", (*CONDITION, "intervals"), [],
     r"^ruleset field 'rules\[0\]\.conditions\[0\]': numeric condition on 'age' needs at least one interval"),
    ("set", (*BOUND, "low"), NAN,
     r"^ruleset field 'rules\[0\]\.conditions\[0\]\.intervals\[0\]\.low' must be a finite number or "
     r"'inf' / '-inf', got nan$"),
    ("set", (*BOUND, "high"), INF, r"^ruleset field 'rules\[0\]\.conditions\[0\]\.intervals\[0\]\.high' must be"),
    ("set", (*BOUND, "high"), "infinity",
     r"^ruleset field 'rules\[0\]\.conditions\[0\]\.intervals\[0\]\.high' must be"),
    ("set", (*BOUND, "low"), 50,
     r"^ruleset field 'rules\[0\]\.conditions\[0\]\.intervals\[0\]': empty interval"),
    ("set", (*BOUND, "low_closed"), 1,
     r"^ruleset field 'rules\[0\]\.conditions\[0\]\.intervals\[0\]\.low_closed' must be a boolean, got 1$"),
    ("set", (*CATEGORICAL, "categories"), "red",
     r"^ruleset field 'rules\[0\]\.conditions\[1\]\.categories' must be a list"),
    ("set", (*CATEGORICAL, "categories"), ["red", {"float": 1.5}],
     r"^ruleset field 'rules\[0\]\.conditions\[1\]\.categories\[1\]' must be a label or category"),
    ("set", (*CATEGORICAL, "categories"), [],
     r"^ruleset field 'rules\[0\]\.conditions\[1\]': categorical condition on 'colour' needs at least one"),
    ("set", (*CATEGORICAL, "negated"), "false",
     r"^ruleset field 'rules\[0\]\.conditions\[1\]\.negated' must be a boolean"),
    ("set", ("meta",), [1], r"^ruleset field 'meta' must be a mapping"),
    ("set", ("format_version",), 0, r"^ruleset field 'format_version' must be a positive integer, got 0$"),
    ("set", ("format_version",), "1", r"^ruleset field 'format_version' must be a positive integer, got '1'$"),
    ("set", ("format_version",), True, r"^ruleset field 'format_version' must be a positive integer, got True$"),
    ("set", ("class_counts",), 3, r"^ruleset field 'class_counts' must be a list, got 3$"),
    ("set", ("class_counts",), [[1, 2], [3, 4]],
     r"^ruleset field 'class_counts' must have 3 rows \(one per rule, then one for the default\), got 2$"),
    ("set", ("class_counts", 1), [1, 2, 3], r"^ruleset field 'class_counts\[1\]' must have 2 entries"),
    ("set", ("class_counts", 2, 0), -1, r"^ruleset field 'class_counts\[2\]\[0\]' must be a finite non-negative"),
    ("set", ("class_counts", 2, 1), NAN, r"^ruleset field 'class_counts\[2\]\[1\]' must be a finite non-negative "
                                         r"number, got nan$"),
    ("set", ("class_counts", 0, 1), "2",
     r"^ruleset field 'class_counts\[0\]\[1\]' must be a finite non-negative"),
    ("set", ("calibration",), 1.0, r"^ruleset field 'calibration': only a 'score' ruleset has a calibration"),
    ("score", ("class_counts",), [[1, 1], [1, 1], [1, 1]], r"^ruleset field 'class_counts': a 'score' ruleset"),
    ("score", ("calibration",), 0.0, r"^ruleset field 'calibration' must be a finite positive number or null"),
    ("score", ("calibration",), -2, r"^ruleset field 'calibration' must be a finite positive number or null"),
    ("score", ("calibration",), INF, r"^ruleset field 'calibration' must be a finite positive number or null"),
    ("score", ("calibration",), "1", r"^ruleset field 'calibration' must be a finite positive number or null"),
    ("score", ("intercept",), NAN, r"^ruleset field 'intercept' must be a finite number, got nan$"),
    ("score", ("intercept",), -INF, r"^ruleset field 'intercept' must be a finite number, got -inf$"),
    ("score", ("intercept",), "0.5", r"^ruleset field 'intercept' must be a finite number, got '0.5'$"),
    ("score", ("intercept",), 10 ** 400, r"^ruleset field 'intercept' must be a finite number"),
    ("score", ("rules", 1, "weight"), NAN,
     r"^ruleset field 'rules\[1\]\.weight' must be a finite number or null"),
    ("score", ("linear",), {}, r"^ruleset field 'linear' must be a list"),
    ("score", ("linear", 0, "coefficient"), NAN,
     r"^ruleset field 'linear\[0\]\.coefficient' must be a finite number"),
    ("score", ("linear", 0, "center"), INF, r"^ruleset field 'linear\[0\]\.center' must be a finite number"),
    ("score", ("linear", 0, "center"), "inf", r"^ruleset field 'linear\[0\]\.center' must be a finite number"),
    ("score", ("linear", 0, "scale"), 0.0, r"^ruleset field 'linear\[0\]\.scale' must be a finite positive"),
    ("score", ("linear", 0, "scale"), NAN, r"^ruleset field 'linear\[0\]\.scale' must be a finite positive"),
    ("score", ("linear", 0, "feature"), "ghost",
     r"^ruleset field 'linear\[0\]\.feature': 'ghost' is not one of the features"),
    ("score", ("linear", 0, "scales"), 1.0, r"^ruleset field 'linear\[0\]': unknown field\(s\) \['scales'\]"),
]


@pytest.mark.parametrize("kind,path,value,message", INVALID_FIELDS)
def test_invalid_field_is_a_value_error_naming_it(kind, path, value, message):
    data = _changed(_valid_dict(kind), path, value)
    with pytest.raises(ValueError, match=message):
        Ruleset.from_dict(data)
    # the same through JSON text, where the value survives encoding (NaN / inf become JSON tokens)
    if value is not DELETE and not (isinstance(value, int) and abs(value) > 1e300):
        with pytest.raises(ValueError, match=message):
            Ruleset.from_json(json.dumps(data))


def test_valid_dictionaries_load():
    for kind in ("set", "score"):
        data = _valid_dict(kind)
        assert Ruleset.from_dict(data).to_dict() == data


@pytest.mark.parametrize("missing", ["kind", "rules", "default", "features", "classes"])
def test_missing_required_field_is_named(missing):
    with pytest.raises(ValueError, match=rf"^ruleset: missing required field\(s\) \['{missing}'\]$"):
        Ruleset.from_dict(_changed(_valid_dict("set"), (missing,), DELETE))


@pytest.mark.parametrize("data", [["kind", "set"], "ruleset", None, 3])
def test_data_that_is_not_a_mapping_is_refused(data):
    with pytest.raises(ValueError, match="^ruleset must be a mapping, got "):
        Ruleset.from_dict(data)


def test_unknown_top_level_fields_are_all_named():
    data = _changed(_changed(_valid_dict("set"), ("zeta",), 1), ("alpha",), 2)
    with pytest.raises(ValueError, match=r"^ruleset: unknown field\(s\) \['alpha', 'zeta'\]; the fields are "):
        Ruleset.from_dict(data)


def test_constructor_checks_still_raise_value_errors_from_dicts():
    with pytest.raises(ValueError, match="'set' ruleset needs its positive class"):
        Ruleset.from_dict(_changed(_valid_dict("set"), ("positive",), None))
    with pytest.raises(ValueError, match="every rule of a 'score' ruleset needs a weight"):
        Ruleset.from_dict(_changed(_valid_dict("score"), ("rules", 0, "weight"), None))
    with pytest.raises(ValueError, match="only a 'score' ruleset has an intercept"):
        Ruleset.from_dict(_changed(_valid_dict("set"), ("intercept",), 1.0))


def test_format_version_is_written_and_a_newer_one_is_refused():
    assert FORMAT_VERSION == 1
    data = _valid_dict("set")
    assert data["format_version"] == 1
    assert list(data)[0] == "format_version"
    newer = _changed(data, ("format_version",), 2)
    expected = ("this ruleset was written in format version 2; this optrules reads format version 1 at most: "
                "upgrade optrules")
    with pytest.raises(ValueError) as error:
        Ruleset.from_dict(newer)
    assert str(error.value) == expected
    # refused for its version first, even when it carries fields this version does not know
    with pytest.raises(ValueError, match="format version 7; this optrules reads format version 1 at most"):
        Ruleset.from_json(json.dumps(_changed(newer, ("format_version",), 7) | {"tree": []}))


OLD_FILE = """{"kind": "set", "rules": [
  {"conditions": [{"kind": "numeric", "feature": "age", "missing": false,
                   "intervals": [{"low": "-inf", "high": 40.0, "low_closed": true, "high_closed": false}]},
                  {"kind": "categorical", "feature": "colour", "missing": false, "categories": ["red"],
                   "negated": false}],
   "prediction": "yes", "weight": null, "n_positive": 5, "n_negative": 1},
  {"conditions": [{"kind": "numeric", "feature": "income", "missing": true,
                   "intervals": [{"low": 20.0, "high": "inf", "low_closed": true, "high_closed": true}]}],
   "prediction": "yes", "weight": null, "n_positive": null, "n_negative": null}],
 "default": "no", "features": ["age", "colour", "income"], "classes": ["no", "yes"], "positive": "yes",
 "intercept": 0.0, "linear": [], "meta": {"method": "libre"}}"""


def test_file_written_before_format_version_reads_as_version_1():
    ruleset = Ruleset.from_json(OLD_FILE)
    rich = NumericCondition("income", [Interval(20, INF, True, True)], missing=True)
    assert ruleset == _set_ruleset(rules=(Rule((AGE_YOUNG, RED), "yes", n_positive=5, n_negative=1),
                                          Rule((rich,), "yes")))
    assert ruleset.meta == {"method": "libre"}
    assert ruleset.class_counts == () and ruleset.calibration is None
    assert ruleset.to_dict()["format_version"] == 1
    # an old scorecard too: no format_version, class_counts or calibration
    score = _valid_dict("score")
    for name in ("format_version", "class_counts", "calibration"):
        del score[name]
    assert Ruleset.from_dict(score).calibration is None


@pytest.mark.parametrize("text", ["{", "", "{'kind': 'set'}", "[1, 2,]", "nul"])
def test_malformed_json_is_a_value_error(text):
    with pytest.raises(ValueError, match="^not valid JSON: "):
        Ruleset.from_json(text)


def test_json_that_is_not_an_object_is_refused():
    with pytest.raises(ValueError, match=r"^ruleset must be a mapping, got \[1, 2\]$"):
        Ruleset.from_json("[1, 2]")


def test_part_from_dict_validates_with_its_own_name_or_a_given_path():
    numeric = AGE_YOUNG.to_dict()
    with pytest.raises(ValueError, match=r"^condition field 'kind': unknown condition kind 'foo'"):
        Condition.from_dict({**numeric, "kind": "foo"})
    with pytest.raises(ValueError, match=r"^condition field 'intervals\[0\]\.low' must be a finite number"):
        Condition.from_dict({**numeric, "intervals": [{**numeric["intervals"][0], "low": "low"}]})
    with pytest.raises(ValueError, match=r"^model field 'c\.kind': unknown condition kind 'foo'"):
        Condition.from_dict({**numeric, "kind": "foo"}, "model.c")
    with pytest.raises(ValueError, match=r"^interval field 'high' must be a finite number or 'inf' / '-inf', "
                                         r"got nan$"):
        Interval.from_dict({"low": 0.0, "high": NAN, "low_closed": True, "high_closed": False})
    with pytest.raises(ValueError, match=r"^interval: empty interval"):
        Interval.from_dict({"low": 2.0, "high": 1.0, "low_closed": True, "high_closed": False})
    with pytest.raises(ValueError, match=r"^interval must be a mapping, got \[0, 1\]$"):
        Interval.from_dict([0, 1])
    with pytest.raises(ValueError, match=r"^rule field 'conditions\[0\]\.categories' must be a list"):
        Rule.from_dict({"conditions": [{**RED.to_dict(), "categories": "red"}], "prediction": "yes"})
    with pytest.raises(ValueError, match=r"^rule field 'weight' must be a finite number or null, got inf$"):
        Rule.from_dict({"conditions": [], "prediction": "yes", "weight": INF})
    with pytest.raises(ValueError, match=r"^rule: missing required field\(s\) \['conditions'\]"):
        Rule.from_dict({"prediction": "yes"})
    with pytest.raises(ValueError, match=r"^linear term field 'scale' must be a finite positive number, got -1"):
        LinearTerm.from_dict({"feature": "x", "coefficient": 1.0, "center": 0.0, "scale": -1})
    with pytest.raises(ValueError, match=r"^linear term field 'coefficient' must be a finite number, got None"):
        LinearTerm.from_dict({"feature": "x", "coefficient": None, "center": 0.0, "scale": 1.0})
    # one argument keeps working, and rules without optional fields read as before
    assert Rule.from_dict({"conditions": [RED.to_dict()], "prediction": "yes"}) == Rule((RED,), "yes")
    term = {"feature": "x", "coefficient": 2, "center": 0, "scale": 1}
    assert LinearTerm.from_dict(term) == LinearTerm("x", 2.0)


def test_constructor_validates_probability_fields():
    with pytest.raises(ValueError, match=r"'class_counts' must have 3 rows"):
        _set_ruleset(class_counts=((1, 1),))
    with pytest.raises(ValueError, match=r"'class_counts\[0\]' must have 2 entries"):
        _set_ruleset(class_counts=((1,), (1, 1), (1, 1)))
    with pytest.raises(ValueError, match=r"'class_counts\[1\]\[0\]' must be a finite non-negative number, "
                                         r"got -0\.5$"):
        _set_ruleset(class_counts=np.array([[1, 1], [-0.5, 1], [1, 1]]))
    with pytest.raises(ValueError, match=r"'calibration': only a 'score' ruleset"):
        _set_ruleset(calibration=1.0)
    with pytest.raises(ValueError, match=r"'calibration' must be a finite positive number"):
        Ruleset("score", (), 0, ("x",), (0, 1), positive=1, calibration=NAN)
    with pytest.raises(ValueError, match=r"'class_counts': a 'score' ruleset"):
        Ruleset("score", (), 0, ("x",), (0, 1), positive=1, class_counts=((1, 2),))
    counted = _set_ruleset(class_counts=np.array([[1, 2], [0, 3], [4, 0]]))
    assert counted.class_counts == ((1.0, 2.0), (0.0, 3.0), (4.0, 0.0))
    assert all(type(v) is float for row in counted.class_counts for v in row)


# ---------------------------------------------------------------------------------------------
# Probabilities
# ---------------------------------------------------------------------------------------------

# x < 5 (rule 0) and colour in {a} (rule 1)
LOW_X = NumericCondition("x", [Interval(-INF, 5)])
COLOUR_A = CategoricalCondition("colour", ["a"])
TRAIN = pd.DataFrame({"x": [1.0, 2.0, 7.0, 8.0, 9.0, 3.0], "colour": ["a", "b", "a", "b", "b", "a"]})
# covered by rule 0: rows 0, 1, 5; by rule 1: rows 0, 2, 5; by none: rows 3, 4
PROBE = pd.DataFrame({"x": [1.0, 1.0, 9.0, 9.0], "colour": ["a", "b", "a", "b"]})  # both, rule 0, rule 1, none


def _two_rule_set() -> Ruleset:
    return Ruleset("set", (Rule((LOW_X,), "yes"), Rule((COLOUR_A,), "yes")), "no", ("x", "colour"),
                   ("no", "yes"), positive="yes")


def _two_rule_list() -> Ruleset:
    return Ruleset("list", (Rule((LOW_X,), "a"), Rule((COLOUR_A,), "b")), "c", ("x", "colour"), ("a", "b", "c"))


def test_set_counts_each_rules_own_coverage():
    y = ["yes", "no", "yes", "no", "no", "yes"]
    fitted = _two_rule_set().fit_probabilities(TRAIN, y)
    # (no, yes): rule 0 covers rows 0, 1, 5; rule 1 rows 0, 2, 5 (row 0 and 5 in both); default rows 3, 4
    assert fitted.class_counts == ((1.0, 2.0), (0.0, 3.0), (2.0, 0.0))
    weighted = _two_rule_set().fit_probabilities(TRAIN, y, sample_weight=[1, 2, 1, 1, 3, 1])
    assert weighted.class_counts == ((2.0, 2.0), (0.0, 3.0), (4.0, 0.0))
    # Laplace (count + 1) / (total + 2): rule 0 (1/2, 1/2), rule 1 (1/5, 4/5), default (5/6, 1/6);
    # a row covered by both takes rule 1, whose estimate of "yes" is higher
    expected = [[1 / 5, 4 / 5], [1 / 2, 1 / 2], [1 / 5, 4 / 5], [5 / 6, 1 / 6]]
    assert weighted.predict_proba(PROBE) == pytest.approx(np.array(expected), abs=1e-15)
    assert weighted.predict(PROBE).tolist() == ["yes", "yes", "yes", "no"]


def test_list_counts_rows_at_their_first_firing_rule():
    y = ["a", "b", "b", "c", "c"]
    train = TRAIN.iloc[:5]  # first firing: rule 0, rule 0, rule 1, none, none
    fitted = _two_rule_list().fit_probabilities(train, y)
    # row 0 is covered by rule 1 too, but counts only at rule 0; row 3 (x=8, colour b) fires no rule
    assert fitted.class_counts == ((1.0, 1.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 2.0))
    weighted = _two_rule_list().fit_probabilities(train, y, sample_weight=np.array([2.0, 1.0, 0.5, 3.0, 1.0]))
    assert weighted.class_counts == ((2.0, 1.0, 0.0), (0.0, 0.5, 0.0), (0.0, 0.0, 4.0))
    # Laplace with K = 3: rule 0 (3, 2, 1) / 6, rule 1 (1, 1.5, 1) / 3.5, default (1, 1, 5) / 7
    expected = [[3 / 6, 2 / 6, 1 / 6], [3 / 6, 2 / 6, 1 / 6], [1 / 3.5, 1.5 / 3.5, 1 / 3.5],
                [1 / 7, 1 / 7, 5 / 7]]
    assert weighted.predict_proba(PROBE) == pytest.approx(np.array(expected), abs=1e-15)


def test_set_tie_goes_to_the_first_covering_rule():
    # three classes, same Laplace estimate of the positive class "p" (2/6) but different vectors
    ruleset = Ruleset("set", _two_rule_set().rules, "a", ("x", "colour"), ("a", "b", "p"), positive="p",
                      class_counts=((2, 0, 1), (0, 2, 1), (0, 0, 0)))
    proba = ruleset.predict_proba(PROBE)
    assert proba == pytest.approx(np.array([[3 / 6, 1 / 6, 2 / 6], [3 / 6, 1 / 6, 2 / 6],
                                            [1 / 6, 3 / 6, 2 / 6], [1 / 3, 1 / 3, 1 / 3]]), abs=1e-15)


def test_set_probabilities_may_disagree_with_predict():
    # a rule right on 1 of its 4 training rows still predicts "yes"; its probabilities favour "no"
    ruleset = Ruleset("set", (Rule((LOW_X,), "yes"),), "no", ("x", "colour"), ("no", "yes"), positive="yes",
                      class_counts=((3, 1), (1, 5)))
    row = pd.DataFrame({"x": [1.0, 9.0], "colour": ["a", "a"]})
    assert ruleset.predict(row).tolist() == ["yes", "no"]
    assert ruleset.predict_proba(row) == pytest.approx(np.array([[4 / 6, 2 / 6], [2 / 8, 6 / 8]]))


def test_rulesets_without_rules_give_the_default_row():
    for kind in ("set", "list"):
        ruleset = Ruleset(kind, (), "no", ("x",), ("no", "yes"), positive="yes" if kind == "set" else None)
        fitted = ruleset.fit_probabilities(pd.DataFrame({"x": [1.0, 2.0, 3.0]}), ["no", "yes", "no"])
        assert fitted.class_counts == ((2.0, 1.0),)
        assert fitted.predict_proba(np.zeros((2, 1))) == pytest.approx(np.array([[3 / 5, 2 / 5]] * 2))
        with pytest.raises(ValueError, match="fitted on 1 features"):
            fitted.predict_proba(np.zeros((2, 3)))


def _one_rule_scorecard(classes=("no", "yes")) -> Ruleset:
    # score +1 when colour is a, -1 otherwise
    return Ruleset("score", (Rule((COLOUR_A,), "yes", weight=2.0),), "no", ("x", "colour"), classes,
                   positive="yes", intercept=-1.0)


SCORE_TRAIN = pd.DataFrame({"x": np.zeros(8), "colour": ["a", "a", "a", "a", "b", "b", "b", "b"]})
SCORE_LABELS = ["yes", "yes", "yes", "no", "yes", "no", "no", "no"]


def test_scorecard_calibration_by_hand():
    # 6 rows on the right side of the score (margin +1), 2 on the wrong side (margin -1): the
    # likelihood 6 log sigmoid(a) + 2 log sigmoid(-a) is largest where exp(a) = 3
    fitted = _one_rule_scorecard().fit_probabilities(SCORE_TRAIN, SCORE_LABELS)
    assert fitted.class_counts == ()
    assert fitted.calibration == pytest.approx(math.log(3), rel=1e-12)
    probe = pd.DataFrame({"x": [0.0, 0.0], "colour": ["a", "b"]})
    assert fitted.predict_proba(probe) == pytest.approx(np.array([[0.25, 0.75], [0.75, 0.25]]), rel=1e-12)
    # weight 2 on both wrong-side rows: 6 sigmoid(-a) = 4 sigmoid(a), exp(a) = 1.5
    weights = [1, 1, 1, 2, 2, 1, 1, 1]
    weighted = _one_rule_scorecard().fit_probabilities(SCORE_TRAIN, SCORE_LABELS, sample_weight=weights)
    assert weighted.calibration == pytest.approx(math.log(1.5), rel=1e-12)
    duplicated = _one_rule_scorecard().fit_probabilities(SCORE_TRAIN.loc[np.repeat(range(8), weights)],
                                                         list(np.repeat(SCORE_LABELS, weights)))
    assert duplicated.calibration == pytest.approx(weighted.calibration, rel=1e-12)


def test_scorecard_probabilities_go_to_positive_and_default_columns():
    # positive against the rest: "other" counts as not positive when fitting
    classes = ("no", "other", "yes")
    labels = [label if i != 7 else "other" for i, label in enumerate(SCORE_LABELS)]
    fitted = _one_rule_scorecard(classes).fit_probabilities(SCORE_TRAIN, labels)
    assert fitted.calibration == pytest.approx(math.log(3), rel=1e-12)
    proba = fitted.predict_proba(pd.DataFrame({"x": [0.0, 0.0], "colour": ["a", "b"]}))
    assert proba == pytest.approx(np.array([[0.25, 0.0, 0.75], [0.75, 0.0, 0.25]]), rel=1e-12)


def test_scorecard_calibration_maximises_the_likelihood():
    rules = (Rule((COLOUR_A,), "yes", weight=1.3),)
    ruleset = Ruleset("score", rules, "no", ("x", "colour"), ("no", "yes"), positive="yes", intercept=-0.4,
                      linear=(LinearTerm("x", 0.7, 1.0, 2.0),))
    X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, -1.0, 2.5], "colour": list("abababab")})
    y = ["no", "yes", "yes", "no", "yes", "yes", "no", "no"]
    weights = np.array([1.0, 0.5, 2.0, 1.0, 1.0, 3.0, 0.25, 1.0])
    slope = ruleset.fit_probabilities(X, y, sample_weight=weights).calibration
    score = ruleset.decision_function(X)
    margin = np.where(np.array(y) == "yes", score, -score)
    # the derivative of the weighted log-likelihood vanishes at the fitted slope, which is interior
    derivative = np.sum(weights * margin / (1.0 + np.exp(slope * margin)))
    assert abs(derivative) < 1e-10
    assert 1e-3 < slope * np.abs(score).max() < 30


def test_separable_scores_cap_the_slope():
    ruleset = Ruleset("score", (), "no", ("x",), ("no", "yes"), positive="yes",
                      linear=(LinearTerm("x", 1.0),))
    X = pd.DataFrame({"x": [-4.0, -1.0, -2.0, 1.0, 2.0, 0.5]})
    fitted = ruleset.fit_probabilities(X, ["no", "no", "no", "yes", "yes", "yes"])
    assert fitted.calibration == pytest.approx(30 / 4, rel=1e-12)  # largest |a * s| = 30
    proba = fitted.predict_proba(X)
    assert proba[0, 1] == pytest.approx(1 / (1 + math.exp(30)), rel=1e-9)
    assert np.all(np.isfinite(proba)) and proba.sum(axis=1) == pytest.approx(np.ones(6))
    # a row at score 0 counts for neither class; weight-0 rows do not bound the slope
    with_zero = ruleset.fit_probabilities(pd.DataFrame({"x": [-2.0, 0.0, 2.0, 100.0]}),
                                          ["no", "yes", "yes", "no"], sample_weight=[1, 1, 1, 0])
    assert with_zero.calibration == pytest.approx(30 / 2, rel=1e-12)


def test_degenerate_scores_keep_a_positive_slope():
    ruleset = Ruleset("score", (), "no", ("x",), ("no", "yes"), positive="yes", linear=(LinearTerm("x", 1.0),))
    zero = ruleset.fit_probabilities(pd.DataFrame({"x": [0.0, 0.0]}), ["no", "yes"])
    assert zero.calibration == 1.0
    assert zero.predict_proba(pd.DataFrame({"x": [0.0, 2.0]})) == pytest.approx(
        np.array([[0.5, 0.5], [1 / (1 + math.exp(2)), 1 / (1 + math.exp(-2))]]))
    # every row on the wrong side: the flattest slope allowed, predictions still agree with the score's sign
    wrong = ruleset.fit_probabilities(pd.DataFrame({"x": [-2.0, 1.0]}), ["yes", "no"])
    assert wrong.calibration == pytest.approx(1e-6 / 2)
    proba = wrong.predict_proba(pd.DataFrame({"x": [-2.0, 1.0]}))
    assert proba[0, 1] < 0.5 < proba[1, 1]


def test_tiny_positive_score_is_still_more_likely_positive():
    ruleset = Ruleset("score", (), "no", ("x",), ("no", "yes"), positive="yes", intercept=1e-20, calibration=1.0)
    proba = ruleset.predict_proba(pd.DataFrame({"x": [0.0]}))
    assert ruleset.predict(pd.DataFrame({"x": [0.0]})).tolist() == ["yes"]
    assert proba[0, 1] > 0.5 > proba[0, 0]
    at_zero = Ruleset("score", (), "no", ("x",), ("no", "yes"), positive="yes", calibration=1.0)
    assert at_zero.predict_proba(pd.DataFrame({"x": [0.0]})).tolist() == [[0.5, 0.5]]


@pytest.mark.parametrize("ruleset", [_two_rule_set(), _two_rule_list(), _one_rule_scorecard()])
def test_probabilities_need_fit_probabilities(ruleset):
    message = (r"^this ruleset has no probability estimates: it was built without training counts; "
               r"call fit_probabilities\(X, y\)$")
    with pytest.raises(ValueError, match=message):
        ruleset.predict_proba(PROBE)


def test_fit_probabilities_checks_its_inputs():
    ruleset = _two_rule_set()
    y = ["yes", "no", "yes", "no", "no", "yes"]
    with pytest.raises(ValueError, match=r"not among the classes \['no', 'yes'\], e.g. 'maybe'"):
        ruleset.fit_probabilities(TRAIN, y[:5] + ["maybe"])
    with pytest.raises(ValueError, match="not among the classes"):
        ruleset.fit_probabilities(TRAIN, y[:5] + [NAN])
    with pytest.raises(ValueError, match="y has 5 labels but X has 6 rows"):
        ruleset.fit_probabilities(TRAIN, y[:5])
    with pytest.raises(ValueError, match="one-dimensional"):
        ruleset.fit_probabilities(TRAIN, np.array([y, y]).T)
    with pytest.raises(ValueError, match=r"sample_weight has 2 values for 6 samples"):
        ruleset.fit_probabilities(TRAIN, y, sample_weight=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"sample_weight contains 1 negative value\(s\)"):
        ruleset.fit_probabilities(TRAIN, y, sample_weight=[1, 1, 1, 1, 1, -1])
    with pytest.raises(ValueError, match=r"sample_weight contains 1 NaN"):
        ruleset.fit_probabilities(TRAIN, y, sample_weight=[1, 1, 1, 1, 1, NAN])
    with pytest.raises(ValueError, match=r"the positive class 'p' is not one of the classes"):
        Ruleset("score", (), "no", ("x",), ("no", "yes"), positive="p").fit_probabilities(
            pd.DataFrame({"x": [1.0]}), ["no"])
    # labels arrive as a Series, an object array, with numpy scalars or as tuples
    assert ruleset.fit_probabilities(TRAIN, pd.Series(y)) == ruleset.fit_probabilities(TRAIN, np.array(y))
    tuples = Ruleset("list", (Rule((LOW_X,), ("t", 1)),), ("t", 0), ("x", "colour"), (("t", 0), ("t", 1)))
    tuple_labels = [("t", 1), ("t", 1), ("t", 0), ("t", 0), ("t", 0), ("t", 1)]  # x < 5 on rows 0, 1, 5
    assert tuples.fit_probabilities(TRAIN, tuple_labels).class_counts == ((0.0, 3.0), (3.0, 0.0))
    ints = Ruleset("list", (Rule((LOW_X,), 1),), 0, ("x", "colour"), (0, 1))
    assert ints.fit_probabilities(TRAIN, np.array([1, 1, 0, 0, 0, 1])).class_counts == ((0.0, 3.0), (3.0, 0.0))


def test_probability_fields_round_trip_and_take_part_in_equality():
    fitted_set = _two_rule_set().fit_probabilities(TRAIN, ["yes", "no", "yes", "no", "no", "yes"],
                                                   sample_weight=[0.5, 1, 1, 2, 1, 1]).with_meta(method="m")
    fitted_score = _one_rule_scorecard().fit_probabilities(SCORE_TRAIN, SCORE_LABELS)
    for fitted, plain in ((fitted_set, _two_rule_set()), (fitted_score, _one_rule_scorecard())):
        text = fitted.to_json(allow_nan=False)
        again = Ruleset.from_json(text)
        assert again == fitted and hash(again) == hash(fitted)
        assert again.class_counts == fitted.class_counts and again.calibration == fitted.calibration
        assert again.to_json(allow_nan=False) == text
        assert np.array_equal(again.predict_proba(PROBE), fitted.predict_proba(PROBE))
        assert fitted != plain
        kept = fitted.with_meta(extra=1)
        assert (kept.class_counts, kept.calibration, kept.meta["extra"]) == (fitted.class_counts,
                                                                            fitted.calibration, 1)
    assert fitted_set.meta == {"method": "m"}
    assert json.loads(fitted_set.to_json())["class_counts"] == [[1.0, 1.5], [0.0, 2.5], [3.0, 0.0]]


# ---------------------------------------------------------------------------------------------
# Probability properties
# ---------------------------------------------------------------------------------------------

def _reference_class_counts(ruleset: Ruleset, df: pd.DataFrame, labels, weights) -> list[list[float]]:
    """Row by row: a list row counts at its first firing rule, a set row at every rule covering it."""
    n_rules = ruleset.n_rules
    counts = [[0.0] * len(ruleset.classes) for _ in range(n_rules + 1)]
    for fired, label, weight in zip(_reference_covers(ruleset, df), labels, weights):
        firing = [r for r, f in enumerate(fired) if f] or [n_rules]
        for r in firing[:1] if ruleset.kind == "list" else firing:
            counts[r][ruleset.classes.index(label)] += weight
    return counts


def _reference_proba(ruleset: Ruleset, df: pd.DataFrame) -> list[list[float]]:
    k = len(ruleset.classes)
    laplace = [[(c + 1) / (sum(row) + k) for c in row] for row in ruleset.class_counts]
    out = []
    for fired in _reference_covers(ruleset, df):
        firing = [r for r, f in enumerate(fired) if f]
        if not firing:
            out.append(laplace[-1])
        elif ruleset.kind == "list":
            out.append(laplace[firing[0]])
        else:
            positive = ruleset.classes.index(ruleset.positive)
            best = max(laplace[r][positive] for r in firing)
            out.append(laplace[next(r for r in firing if laplace[r][positive] == best)])
    return out


@PROPERTY
@given(frames(), st.sampled_from(["set", "list"]).flatmap(rulesets), st.data())
def test_class_counts_and_probabilities_match_reference(df, ruleset, data):
    n = len(df)
    labels = data.draw(st.lists(st.sampled_from(ruleset.classes), min_size=n, max_size=n))
    weights = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    fitted = ruleset.fit_probabilities(df, labels, sample_weight=weights)
    assert [list(row) for row in fitted.class_counts] == _reference_class_counts(ruleset, df, labels, weights)
    # integer weights count as that many copies of the row
    rows = np.repeat(np.arange(n), weights)
    copies = ruleset.fit_probabilities(df.iloc[rows], [labels[i] for i in rows])
    assert copies.class_counts == fitted.class_counts
    proba = fitted.predict_proba(df)
    assert proba.shape == (n, len(ruleset.classes))
    assert proba == pytest.approx(np.array(_reference_proba(fitted, df)).reshape(n, -1), rel=1e-12)
    assert proba.sum(axis=1) == pytest.approx(np.ones(n), rel=1e-12)
    assert Ruleset.from_json(fitted.to_json()) == fitted


@PROPERTY
@given(frames(), rulesets("score"), st.data())
def test_calibrated_probability_sides_with_the_score(df, ruleset, data):
    n = len(df)
    labels = data.draw(st.lists(st.sampled_from(ruleset.classes), min_size=n, max_size=n))
    weights = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    fitted = ruleset.fit_probabilities(df, labels, sample_weight=weights)
    assert fitted.calibration > 0
    score = fitted.decision_function(df)
    if np.any(score[np.array(weights) > 0] != 0):
        assert fitted.calibration * np.abs(score[np.array(weights) > 0]).max() <= 30 * (1 + 1e-12)
    proba = fitted.predict_proba(df)
    positive, default = fitted.classes.index(fitted.positive), fitted.classes.index(fitted.default)
    assert ((proba[:, positive] > 0.5) == (score > 0)).all()
    assert (proba[:, positive] + proba[:, default]) == pytest.approx(np.ones(n))
    predicted_positive = np.array([p == fitted.positive for p in fitted.predict(df).tolist()], dtype=bool)
    assert (predicted_positive == (proba[:, positive] > 0.5)).all()
    rows = np.repeat(np.arange(n), weights)
    copies = ruleset.fit_probabilities(df.iloc[rows], [labels[i] for i in rows])
    assert copies.calibration == pytest.approx(fitted.calibration, rel=1e-9)


def test_many_interval_conditions_match_reference() -> None:
    """Touching, overlapping, degenerate and unbounded intervals, values on and next to every end:
    the one-search evaluation (alone and shared by a feature's conditions in ``covers``) equals the
    row-by-row reference."""
    rng = np.random.default_rng(7)
    grid = [-math.inf, -1.0, 0.0, 0.5, 1.0, 2.0, 3.5, math.inf]
    values = np.array(grid + [math.nan, -2.0, 9.0] + [np.nextafter(v, d) for v in grid[1:-1] for d in (-9, 9)])
    conditions = []
    for _ in range(400):
        ends = np.sort(rng.choice(grid, size=(int(rng.integers(1, 8)), 2)), axis=1)
        intervals = [Interval(float(a), float(b), bool(rng.integers(2)), bool(rng.integers(2))) for a, b in ends]
        conditions.append(NumericCondition("x", intervals, missing=bool(rng.integers(2))))
    expected = [[_reference_condition(c, v) for v in values.tolist()] for c in conditions]
    assert [c.evaluate(values).tolist() for c in conditions] == expected
    ruleset = Ruleset("set", tuple(Rule((c,), "p") for c in conditions), "n", ("x",), ("n", "p"), positive="p")
    assert ruleset.covers(pd.DataFrame({"x": values})).T.tolist() == expected


def test_equal_numeric_conditions_hash_equal() -> None:
    intervals = [Interval(float(k), k + 0.5) for k in range(50)]
    first, second = NumericCondition("x", intervals), NumericCondition("x", list(reversed(intervals)))
    assert first == second and hash(first) == hash(second)
    assert first != NumericCondition("x", intervals[:-1] + [Interval(49.0, 49.25)])


@PROPERTY
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(0, 3), st.booleans(), st.booleans()), min_size=1,
                max_size=8), st.booleans(), st.lists(st.one_of(st.integers(-7, 9), st.none()), min_size=1, max_size=30))
def test_numeric_condition_from_bounds_is_the_constructors_condition(pieces, missing, values):
    lows = [float(low) for low, _, _, _ in pieces]
    highs = [float(low + width) for low, width, _, _ in pieces]
    low_closed = [closed for _, _, closed, _ in pieces]
    high_closed = [closed for _, _, _, closed in pieces]
    built = NumericCondition.from_bounds("x", lows, highs, low_closed, high_closed, missing=missing)
    expected = NumericCondition("x", [Interval(*ends) for ends in zip(lows, highs, low_closed, high_closed)], missing)
    assert built == expected and hash(built) == hash(expected) and str(built) == str(expected)
    column = np.array([np.nan if v is None else float(v) for v in values])
    reference = np.zeros(column.shape, dtype=bool)
    for interval in expected.intervals:
        reference |= interval.contains(column)
    reference[np.isnan(column)] = missing
    assert np.array_equal(built.evaluate(column), reference)
    assert np.array_equal(expected.evaluate(column), reference)
    assert NumericCondition.from_dict(built.to_dict()) == expected


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Rule((RED,), "yes", weight=math.inf), "a rule's weight must be a finite number"),
    (lambda: Rule((RED,), "yes", n_positive=-1), "n_positive must be >= 0"),
    (lambda: LinearTerm("age", math.nan), "the coefficient of 'age' must be a finite number"),
    (lambda: LinearTerm("age", 1.0, scale=math.inf), "the scale of 'age' must be a finite number"),
    (lambda: CategoricalCondition("colour", [math.nan]), "NaN is not a category"),
    (lambda: _set_ruleset(default="maybe"), "the default class 'maybe' is not one of the classes"),
    (lambda: _set_ruleset(classes=("no", "yes", "no")), "the classes must be distinct"),
    (lambda: Ruleset("list", (Rule((RED,), 1.0),), 2, ("colour",), (1, 2)),
     r"the prediction of rules\[0\] 1.0 is not one of the classes"),
    (lambda: _set_ruleset(classes=(1, True), default=1, positive=True), "the classes must be distinct"),
])
def test_what_from_json_refuses_cannot_be_made(make, message):
    """to_json wrote rulesets that from_json refused (NaN and inf numbers, a default that is no class,
    duplicate classes): the constructors refuse them now, with the reader's reasons."""
    with pytest.raises(ValueError, match=message):
        make()


def test_a_count_too_large_for_a_float_is_a_named_error():
    data = json.loads(_set_ruleset(rules=(Rule((RED,), "yes", n_positive=3, n_negative=1),)).to_json())
    data["rules"][0]["n_positive"] = 10 ** 400
    with pytest.raises(ValueError, match=r"rules\[0\]\.n_positive"):
        Ruleset.from_dict(data)


def test_a_category_whose_text_would_misread_its_set_is_quoted_when_printed():
    from optrules.ruleset import CategoricalCondition

    assert str(CategoricalCondition("colour", ["red, green"])) == "colour in {'red, green'}"  # one category
    assert str(CategoricalCondition("colour", ["red", "green"])) == "colour in {green, red}"  # two
    assert str(CategoricalCondition("colour", [""])) == "colour in {''}"  # the empty text, not "no category"
    assert str(CategoricalCondition("colour", [" red", "{x}"], negated=True)) == "colour not in {' red', '{x}'}"


def test_a_category_written_as_a_missing_value_is_quoted_apart_from_one():
    """The category None stands for "no present value"; the text 'None' is a category like any other."""
    absent = CategoricalCondition("roof", [None], missing=True)
    text = CategoricalCondition("roof", ["None"], missing=True)
    assert str(absent) != str(text) and "'None'" in str(text)
    X = pd.DataFrame({"roof": pd.Series(["None", None, "tile"], dtype=object)})
    assert absent.evaluate(X["roof"].to_numpy()).tolist() == [False, True, False]
    assert text.evaluate(X["roof"].to_numpy()).tolist() == [True, True, False]
    assert category_text("missing") == "'missing'" and category_text("tile") == "tile"
