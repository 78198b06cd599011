"""Tests for optrules.ruleset: conditions, rules and the Ruleset value type.

Property tests check rule evaluation against an independent row-by-row reference written in plain
Python (math comparisons, ``is None`` / NaN checks, set membership), JSON round trips, and the
agreement of ``covers`` with ``predict`` / ``decision_function`` for every kind.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optrules.ruleset import (
    RULESET_KINDS,
    CategoricalCondition,
    Interval,
    LinearTerm,
    NumericCondition,
    Rule,
    Ruleset,
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


def _reference_covers(ruleset: Ruleset, df: pd.DataFrame) -> list[list[bool]]:
    return [[all(_reference_condition(c, row[c.feature]) for c in rule.conditions) for rule in ruleset.rules]
            for row in _rows(df)]


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
    covers = ruleset.covers(df)
    assert covers.dtype == bool
    assert covers.shape == (len(df), ruleset.n_rules)
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
    assert ruleset != _set_ruleset(default="maybe")
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
