"""Rulesets exported for people and systems select and predict exactly as the Ruleset does.

Random rulesets of every kind on random data with missing values and mixed-type categories: the
pandas query of each rule selects the rows ``covers`` marks, the SQL expression evaluated by SQLite
gives ``predict``, ``explain`` agrees with ``predict``, and ``to_frame`` counts what ``covers`` says.
"""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import optrules
from optrules.ruleset import CategoricalCondition, Interval, LinearTerm, NumericCondition, Rule, Ruleset

CATEGORY_VALUES = ("a", "b", "it's", 1, 2, True)  # text, a quote, integers and a boolean: mixed types
CUTS = (-1.0, -0.25, 0.0, 0.5, 1.0 / 3.0, 2.0)


def _data(draw, n: int) -> pd.DataFrame:
    numeric = draw(st.lists(st.one_of(st.sampled_from(CUTS), st.floats(-3, 3), st.just(math.nan)),
                            min_size=n, max_size=n))
    mixed = draw(st.lists(st.one_of(st.sampled_from(CATEGORY_VALUES), st.none()), min_size=n, max_size=n))
    text = draw(st.lists(st.one_of(st.sampled_from(("x", "y", "z")), st.none()), min_size=n, max_size=n))
    return pd.DataFrame({"num value": np.array(numeric, dtype=float),
                         "mixed": pd.Series(mixed, dtype=object),
                         "colour": pd.Categorical(text, categories=["x", "y", "z"])})


@st.composite
def _interval(draw):
    low, high = sorted(draw(st.lists(st.sampled_from((-math.inf, *CUTS, math.inf)), min_size=2, max_size=2)))
    low_closed, high_closed = draw(st.booleans()), draw(st.booleans())
    if low == high and not (low_closed and high_closed and math.isfinite(low)):
        low_closed = high_closed = False  # (a, a): the empty interval a "no value" condition uses
    return Interval(low, high, low_closed, high_closed)


@st.composite
def _condition(draw):
    kind = draw(st.sampled_from(("numeric", "mixed", "colour", "missing", "not missing")))
    missing = draw(st.booleans())
    if kind == "numeric":
        return NumericCondition("num value", draw(st.lists(_interval(), min_size=1, max_size=3)), missing=missing)
    if kind == "missing":
        return CategoricalCondition(draw(st.sampled_from(("mixed", "colour"))), [], missing=True)
    if kind == "not missing":  # the encoder's "no present value" category None, negated
        return CategoricalCondition(draw(st.sampled_from(("mixed", "colour"))), [None], negated=True,
                                    missing=missing)
    values = CATEGORY_VALUES if kind == "mixed" else ("x", "y", "z", "w")
    chosen = draw(st.lists(st.sampled_from(values), min_size=1, max_size=3, unique=True))
    return CategoricalCondition(kind, chosen, negated=draw(st.booleans()), missing=missing)


@st.composite
def _case(draw):
    n = draw(st.integers(1, 25))
    X = _data(draw, n)
    kind = draw(st.sampled_from(("set", "list", "score")))
    n_rules = draw(st.integers(0, 4))
    classes = ("neg", "pos", "other") if kind == "list" else ("neg", "pos")
    rules = tuple(Rule(tuple(draw(st.lists(_condition(), min_size=0 if kind == "list" else 1, max_size=3))),
                       draw(st.sampled_from(classes)) if kind == "list" else "pos",
                       weight=draw(st.floats(-2, 2)) if kind == "score" else None)
                  for _ in range(n_rules))
    linear = (LinearTerm("num value", draw(st.floats(-1, 1)), 0.5, 2.0),) if kind == "score" else ()
    ruleset = Ruleset(kind, rules, "neg", tuple(X.columns), classes, positive=None if kind == "list" else "pos",
                      intercept=draw(st.floats(-1, 1)) if kind == "score" else 0.0, linear=linear)
    return ruleset, X


def _sqlite_predictions(ruleset: Ruleset, X: pd.DataFrame) -> list:
    """The SQL expression evaluated on an untyped SQLite table of X (NULL for missing values)."""
    with sqlite3.connect(":memory:") as connection:
        names = ", ".join('"' + c.replace('"', '""') + '"' for c in X.columns)
        connection.execute(f"CREATE TABLE data (row_id INTEGER, {names})")
        rows = [(i, *(None if pd.isna(v) else (bool(v) if isinstance(v, np.bool_) else
                                               float(v) if isinstance(v, np.floating) else v)
                      for v in record))
                for i, record in enumerate(X.astype(object).itertuples(index=False))]
        connection.executemany(f"INSERT INTO data VALUES ({', '.join('?' * (len(X.columns) + 1))})", rows)
        result = connection.execute(f"SELECT {ruleset.to_sql()} FROM data ORDER BY row_id").fetchall()
    return [value for (value,) in result]


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_case())
def test_query_selects_the_rows_covers_marks(case):
    ruleset, X = case
    covers = ruleset.covers(X)
    for k in range(len(ruleset.rules)):
        assert (X.eval(ruleset.to_query(k)).to_numpy(dtype=bool) == covers[:, k]).all(), ruleset.to_query(k)
        assert X.query(ruleset.to_query(k)).index.tolist() == X.index[covers[:, k]].tolist()
    assert (X.eval(ruleset.to_query()).to_numpy(dtype=bool) == covers.any(axis=1)).all()
    assert X.query(ruleset.to_query()).index.tolist() == X.index[covers.any(axis=1)].tolist()


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_case())
def test_sql_gives_the_predictions(case):
    ruleset, X = case
    predicted = ruleset.predict(X).tolist()
    if ruleset.kind == "score":  # the score's sum in SQL: the same floats up to rounding near 0
        score = ruleset.decision_function(X)
        clear = np.abs(score) > 1e-9
        assert [p for p, c in zip(_sqlite_predictions(ruleset, X), clear) if c] == \
            [p for p, c in zip(predicted, clear) if c]
    else:
        assert _sqlite_predictions(ruleset, X) == predicted


def test_sql_reads_whole_numbers_beyond_2_to_the_53_as_predict_does():
    """An INTEGER column compared exactly would put 1700000000000002555 below the threshold
    1.7000000000000026e18 (its nearest float, which predict compares, equals it)."""
    X = pd.DataFrame({"ns": np.array([1700000000000002555, 1700000000000002561, 1700000000000002000, 7],
                                     dtype=np.int64)})
    threshold = float(np.int64(1700000000000002555))
    ruleset = Ruleset("set", (Rule((NumericCondition("ns", [Interval(-math.inf, threshold, False, False)]),),
                                   "early"),), "late", ("ns",), ("late", "early"), positive="early")
    assert ruleset.predict(X).tolist() == ["late", "late", "early", "early"]
    assert _sqlite_predictions(ruleset, X) == ruleset.predict(X).tolist()  # the column is INTEGER in SQLite
    assert "AS DOUBLE PRECISION" in ruleset.to_sql()  # not REAL, a 4-byte float in PostgreSQL


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_case())
def test_explain_agrees_with_predict_and_covers(case):
    ruleset, X = case
    explained = ruleset.explain(X)
    covers = ruleset.covers(X)
    assert explained["prediction"].tolist() == ruleset.predict(X).tolist()
    assert [list(f) for f in explained["fired"]] == [np.flatnonzero(row).tolist() for row in covers]
    for row, fired, deciding, prediction in zip(covers, explained["fired"], explained["deciding"],
                                                explained["prediction"]):
        if ruleset.kind == "score":
            assert pd.isna(deciding)
        elif fired:
            assert deciding == fired[0]
            assert prediction == (ruleset.rules[deciding].prediction if ruleset.kind == "list" else ruleset.positive)
        else:
            assert pd.isna(deciding) and prediction == ruleset.default
    if ruleset.kind == "score":
        assert np.allclose(explained["score"], ruleset.decision_function(X))
    # indexed like X, so that X.join(explain(X)) puts each explanation beside its own row
    shuffled = X.iloc[::-1].set_axis([f"row{i}" for i in range(len(X))][::-1])
    joined = shuffled.join(ruleset.explain(shuffled))
    assert joined["prediction"].tolist() == ruleset.predict(shuffled).tolist()


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_case(), st.data())
def test_to_frame_counts_support_and_precision_on_the_data_given(case, data):
    ruleset, X = case
    y = np.array(data.draw(st.lists(st.sampled_from(ruleset.classes), min_size=len(X), max_size=len(X))),
                 dtype=object)
    frame = ruleset.to_frame(X, y)
    covers = ruleset.covers(X)
    assert frame["text"].tolist() == [r.antecedent() for r in ruleset.rules]
    for k, rule in enumerate(ruleset.rules):
        rows = covers[:, k] if ruleset.kind != "list" else covers[:, k] & ~covers[:, :k].any(axis=1)
        predicted = rule.prediction if ruleset.kind == "list" else ruleset.positive
        assert frame.at[k, "support"] == rows.sum()
        if rows.any():
            assert frame.at[k, "precision"] == pytest.approx((y[rows] == predicted).mean())
        else:
            assert np.isnan(frame.at[k, "precision"])


def test_exports_of_a_fitted_model_and_its_training_counts():
    X, y = optrules.load("house_votes_84")
    model = optrules.make_estimator("prepend-ip2").fit(X, y)
    ruleset = model.ruleset_
    frame = ruleset.to_frame()
    # without data: the training cases each rule decides, as the learner counted them
    assert frame["support"].tolist() == [r.n_positive + r.n_negative for r in ruleset.rules]
    assert frame.equals(ruleset.to_frame(X, y))
    assert (ruleset.explain(X)["prediction"] == model.predict(X)).all()
    with pytest.raises(ValueError, match="the labels y are needed"):
        ruleset.to_frame(X)
    with pytest.raises(ValueError, match="rule must be the position of a rule"):
        ruleset.to_query(len(ruleset.rules))


def test_scorecard_table_and_plot():
    X, y = optrules.load("heart_statlog")
    ruleset = optrules.make_estimator("svm-c").fit(X, y).ruleset_
    table = optrules.scorecard_frame(ruleset)
    assert len(table) == len(ruleset.rules) + len(ruleset.linear) + 1
    assert table["score"].tolist() == [r.weight for r in ruleset.rules] + \
        [t.coefficient for t in ruleset.linear] + [ruleset.intercept]
    chest = table[table["feature"] == "chest"]["term"].tolist()
    assert all(term.startswith("{") and term.endswith("}") for term in chest)  # the categories of a cluster
    pytest.importorskip("matplotlib")
    figure = optrules.plot_scorecard(ruleset)
    assert len(figure.axes[0].patches) == len(table)
    with pytest.raises(ValueError, match="defined for 'score' rulesets"):
        optrules.scorecard_frame(optrules.make_estimator("setcover-greedy").fit(X, y).ruleset_)


def test_the_category_none_is_a_present_value_not_the_missing_marker():
    """`roof not in {None}` (a present value) matched the category "None" by its text and read it as
    missing: predict said 'no' where the query and SQL said 'yes'."""
    ruleset = Ruleset("set", (Rule((CategoricalCondition("roof", [None], negated=True),), "yes"),), "no",
                      ("roof",), ("no", "yes"), positive="yes")
    X = pd.DataFrame({"roof": ["None", "Gable", None, "nan"]})
    expected = [True, True, False, True]
    assert ruleset.covers(X)[:, 0].tolist() == expected
    assert X.eval(ruleset.to_query(0), engine="python").tolist() == expected


def test_queries_of_a_rule_matching_nothing_and_of_rules_without_conditions():
    """The encoder's `f in {None}` (no present value, missing excluded) gave the unformatted text
    '({0}.isna() & {0}.notna())'; a rule without conditions was `index == index`, false on a row
    whose index or column `index` is missing."""
    never = Ruleset("set", (Rule((CategoricalCondition("c", [None]),), "p"),), "n", ("c",), ("n", "p"), positive="p")
    X = pd.DataFrame({"c": ["a", None]})
    assert X.eval(never.to_query(0), engine="python").tolist() == never.covers(X)[:, 0].tolist() == [False, False]
    X = pd.DataFrame({"index": [1.0, np.nan, 3.0], "c": ["u", "v", "w"]}, index=[0.0, np.nan, 2.0])
    always = Ruleset("list", (Rule((), "p"),), "r", ("index", "c"), ("p", "r"))
    assert X.eval(always.to_query(0), engine="python").tolist() == [True, True, True]
    empty = Ruleset("set", (), "r", ("index", "c"), ("p", "r"), positive="p")
    assert X.eval(empty.to_query(), engine="python").tolist() == [False, False, False]


def test_to_frame_counts_tuple_labels_whole():
    """`labels == prediction` broadcast a tuple label element by element and failed."""
    rules = (Rule((CategoricalCondition("c", ["a"]),), ("x", 1)),)
    ruleset = Ruleset("list", rules, ("y", 2), ("c",), (("x", 1), ("y", 2)))
    y = np.empty(3, dtype=object)
    y[:] = [("x", 1), ("y", 2), ("y", 2)]
    frame = ruleset.to_frame(pd.DataFrame({"c": ["a", "b", "a"]}), y)
    assert frame[["support", "precision"]].values.tolist() == [[2.0, 0.5]]


def test_a_negated_scorecard_term_that_admits_missing_says_so():
    """`not {a, missing}` read as "neither a nor missing", though a missing value gets the score."""
    from optrules import scorecard_frame

    rule = Rule((CategoricalCondition("c", ["a"], negated=True, missing=True),), "p", weight=1.0)
    ruleset = Ruleset("score", (rule,), "n", ("c",), ("n", "p"), positive="p")
    assert scorecard_frame(ruleset)["term"].iloc[0] == "not {a}, or missing"
    assert ruleset.predict(pd.DataFrame({"c": [None, "a", "b"]})).tolist() == ["p", "n", "p"]


def test_a_scorecard_term_quotes_a_category_as_the_printed_rule_does():
    """The single category "red, green" read as two in the scorecard table (review)."""
    from optrules import scorecard_frame

    rules = (Rule((CategoricalCondition("c", ["red, green", "blue"]),), "p", weight=1.0),
             Rule((CategoricalCondition("c", [""], missing=True),), "p", weight=-0.5))
    ruleset = Ruleset("score", rules, "n", ("c",), ("n", "p"), positive="p")
    assert scorecard_frame(ruleset)["term"].tolist()[:2] == ["{blue, 'red, green'}", "{'', missing}"]
    assert str(rules[0].conditions[0]) == "c in {blue, 'red, green'}"


@pytest.mark.parametrize("names, feature, message", [
    (("size (cm)", "size_(cm)"), "size (cm)", "cannot tell apart"),
    (("inf", "age"), "inf", "number infinity"),
])
def test_to_query_refuses_names_pandas_would_read_as_something_else(names, feature, message):
    rule = Rule((NumericCondition(feature, [Interval(0.5, math.inf, True, False)]),), "pos")
    ruleset = Ruleset("set", (rule,), "neg", names, ("neg", "pos"), positive="pos")
    for k in (0, None):
        with pytest.raises(ValueError, match=message):
            ruleset.to_query(k)


def test_to_query_on_other_features_of_such_a_model_is_written():
    """Only the features a query names are checked: a rule on "age" beside a column named "inf"."""
    rule = Rule((NumericCondition("age", [Interval(0.5, math.inf, True, False)]),), "pos")
    ruleset = Ruleset("set", (rule,), "neg", ("inf", "age"), ("neg", "pos"), positive="pos")
    X = pd.DataFrame({"inf": [0.0, 1.0, 2.0], "age": [5.0, 5.0, 0.0]})
    assert X.eval(ruleset.to_query()).tolist() == ruleset.covers(X)[:, 0].tolist() == [True, True, False]
