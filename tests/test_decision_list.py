"""Decision lists by append and prepend (optrules.learners.decision_list) with exact rule search."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import train_test_split

import optrules
from optrules.encode import FeatureBinning
from optrules.learners.attribute_tests import attribute_tests
from optrules.estimators import DecisionListClassifier
from optrules.learners.decision_list import (P2_VALUE, STRATEGIES, intern_position, learn_append,
                                             learn_prepend, majority_class)
from optrules.learners.opus import best_rule, brute_force_best_rule, laplace
from optrules.registry import make_estimator

PROPERTY = settings(derandomize=True, max_examples=60, deadline=None)


@st.composite
def categorical_tables(draw):
    """Small categorical tables with missing values and 2-3 classes."""
    n = draw(st.integers(4, 30))
    frame = {}
    for k in range(draw(st.integers(1, 3))):
        frame[f"f{k}"] = draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=n, max_size=n))
    labels = draw(st.lists(st.sampled_from(["x", "y", "z"][:draw(st.integers(2, 3))]), min_size=n,
                           max_size=n))
    if len(set(labels)) < 2:
        labels[0], labels[-1] = "x", "y"
    return pd.DataFrame(frame, dtype=object), np.array(labels, dtype=object)


def encoded(X, labels, kind="inequality"):
    """Tests on the bins of X and the labels as class indices."""
    binning = FeatureBinning().fit(X, labels)
    classes = sorted(set(labels))
    y = np.array([classes.index(v) for v in labels])
    return attribute_tests(binning, binning.bin_index(X), kind), y, len(classes)


def list_predictions(tests, rules, default, n):
    out = np.full(n, default)
    for rule in reversed(rules):
        out[tests.covers(rule.tests)] = rule.prediction
    return out


# --------------------------------------------------------------------------- the algorithms
@PROPERTY
@given(categorical_tables(), st.booleans(), st.booleans(), st.sampled_from(["inequality", "equality"]))
def test_prepend_stop_conditions_and_accuracy(table, intern, p2, kind):
    X, labels = table
    tests, y, n_classes = encoded(X, labels, kind)
    threshold = P2_VALUE if p2 else 0.5
    learned = learn_prepend(tests, y, n_classes, intern=intern, min_value=threshold)
    # each added rule covered more positive than negative cases (and beat p2 when asked)
    assert all(laplace(r.positive, r.negative) > threshold for r in learned.rules)
    assert all(r.positive > r.negative for r in learned.rules)
    # training accuracy rises with every rule, so intern never lowered it
    assert all(b > a for a, b in zip(learned.accuracy, learned.accuracy[1:]))
    assert len(learned.accuracy) == len(learned.rules) + 1
    predictions = list_predictions(tests, learned.rules, learned.default, len(y))
    assert learned.accuracy[-1] == pytest.approx((predictions == y).mean())
    # stop condition: no rule of any class now covers more positive than negative cases (or beats p2)
    correct = predictions == y
    for c in range(n_classes):
        result = best_rule(tests.holds, ~correct & (y == c), correct & (y != c), min_value=threshold)
        assert result.rule is None


@PROPERTY
@given(categorical_tables(), st.booleans())
def test_append_stop_conditions(table, p2):
    X, labels = table
    tests, y, n_classes = encoded(X, labels)
    learned = learn_append(tests, y, n_classes, min_value=P2_VALUE if p2 else -math.inf)
    remaining = np.ones(len(y), dtype=bool)
    for rule in learned.rules:
        covered = tests.covers(rule.tests)
        assert rule.positive >= 1
        assert (rule.positive, rule.negative) == ((covered & remaining & (y == rule.prediction)).sum(),
                                                  (covered & remaining & (y != rule.prediction)).sum())
        remaining &= ~covered
    if not p2:
        assert not remaining.any()  # append stops when every case is covered
    else:
        assert all(laplace(r.positive, r.negative) > P2_VALUE for r in learned.rules)
        for c in range(n_classes):  # ... or when no rule beats the p2 cut-off
            assert best_rule(tests.holds, remaining & (y == c), remaining & (y != c),
                             min_value=P2_VALUE).rule is None


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.data())
def test_intern_position_is_the_deepest_without_accuracy_loss(data):
    n = data.draw(st.integers(1, 25))
    n_rules = data.draw(st.integers(0, 5))
    n_classes = 3
    y = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    old_covers = [np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
                  for _ in range(n_rules)]
    old_classes = [data.draw(st.integers(0, 2)) for _ in range(n_rules)]
    default = data.draw(st.integers(0, n_classes - 1))
    covered = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    c = data.draw(st.integers(0, 2))

    def accuracy(covers, classes):
        out = np.full(n, default)
        for cover, label in zip(reversed(covers), reversed(classes)):
            out[cover] = label
        return (out == y).mean()

    first = np.full(n, n_rules)
    for k in reversed(range(n_rules)):
        first[old_covers[k]] = k
    correct = np.array([(old_classes[first[i]] if first[i] < n_rules else default) == y[i] for i in range(n)],
                       dtype=bool)
    position = intern_position(first, covered, correct, y == c, n_rules)
    scores = [accuracy(old_covers[:k] + [covered] + old_covers[k:], old_classes[:k] + [c] + old_classes[k:])
              for k in range(n_rules + 1)]
    assert scores[position] >= scores[0]
    assert all(score < scores[0] for score in scores[position + 1:])


def test_intern_moves_a_small_disjunct_behind_the_rule_it_does_not_need_to_override():
    # rule 0 predicts class 1 for cases 0-3 (right on 0-2); the new rule predicts class 2 for cases
    # 2 and 4 (right on 4 only): at the front it would break case 2, behind rule 0 it only fixes case 4
    first = np.array([0, 0, 0, 0, 1, 1])
    y = np.array([1, 1, 1, 0, 2, 0])
    correct = np.array([1, 1, 1, 0, 0, 1], dtype=bool)
    covered = np.array([0, 0, 1, 0, 1, 0], dtype=bool)
    assert intern_position(first, covered, correct, y == 2, 1) == 1


# --------------------------------------------------------------------------- case weights
def learn(strategy, tests, y, n_classes, weights=None):
    """``learn_append`` / ``learn_prepend`` as the named strategy."""
    prepend, intern, p2 = STRATEGIES[strategy]
    if not prepend:
        return learn_append(tests, y, n_classes, weights, min_value=P2_VALUE if p2 else -math.inf)
    return learn_prepend(tests, y, n_classes, weights, intern=intern, min_value=P2_VALUE if p2 else 0.5)


def rows_of(tests, rows):
    """The tests restricted (or repeated) to the given training rows."""
    return dataclasses.replace(tests, holds=tests.holds[rows])


@PROPERTY
@given(categorical_tables(), st.data(), st.sampled_from(sorted(STRATEGIES)))
def test_integer_weights_act_as_copies(table, data, strategy):
    X, labels = table
    tests, y, n_classes = encoded(X, labels)
    weights = np.array(data.draw(st.lists(st.integers(0, 3), min_size=len(y), max_size=len(y))))
    weights[0] = max(weights[0], 1)
    copies = np.repeat(np.arange(len(y)), weights)
    expected = learn(strategy, rows_of(tests, copies), y[copies], n_classes)
    assert learn(strategy, tests, y, n_classes, weights) == expected  # rules, counts, nodes, accuracies
    kept = weights > 0  # weight 0 is removal
    assert learn(strategy, rows_of(tests, kept), y[kept], n_classes, weights[kept]) == expected
    unweighted = learn(strategy, tests, y, n_classes)
    ones = learn(strategy, tests, y, n_classes, np.ones(len(y)))
    assert ones == unweighted and all(type(r.positive) is int for r in ones.rules)


@PROPERTY
@given(categorical_tables(), st.data(), st.booleans(), st.booleans())
def test_weighted_prepend_stop_conditions_and_accuracy(table, data, intern, p2):
    X, labels = table
    tests, y, n_classes = encoded(X, labels)
    weights = np.array(data.draw(st.lists(st.one_of(st.just(0.0), st.floats(0.01, 10.0)),
                                          min_size=len(y), max_size=len(y))))
    weights[0] = max(weights[0], 0.5)
    threshold = P2_VALUE if p2 else 0.5
    learned = learn_prepend(tests, y, n_classes, weights, intern=intern, min_value=threshold)
    assert all(r.positive > r.negative and laplace(r.positive, r.negative) > threshold for r in learned.rules)
    assert all(b > a for a, b in zip(learned.accuracy, learned.accuracy[1:]))
    predictions = list_predictions(tests, learned.rules, learned.default, len(y))
    correct = predictions == y
    exact = [Fraction(w) for w in weights]
    assert learned.accuracy[-1] == float(sum(w for w, c in zip(exact, correct) if c) / sum(exact))
    totals = [sum(w for w, label in zip(exact, y) if label == c) for c in range(n_classes)]
    assert learned.default == totals.index(max(totals)) == majority_class(y, n_classes, weights)
    for c in range(n_classes):  # no rule of any class is left with a weighted value above the threshold
        assert best_rule(tests.holds, ~correct & (y == c), correct & (y != c), weights=weights,
                         min_value=threshold).rule is None


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.data())
def test_weighted_intern_position_acts_as_copies(data):
    n = data.draw(st.integers(1, 20))
    n_rules = data.draw(st.integers(0, 4))
    flags = st.lists(st.booleans(), min_size=n, max_size=n)
    first = np.array(data.draw(st.lists(st.integers(0, n_rules), min_size=n, max_size=n)))
    covered, correct, is_class = (np.array(data.draw(flags)) for _ in range(3))
    weights = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    copies = np.repeat(np.arange(n), weights)
    expected = intern_position(first[copies], covered[copies], correct[copies], is_class[copies], n_rules)
    assert intern_position(first, covered, correct, is_class, n_rules, weights) == expected
    assert intern_position(first, covered, correct, is_class, n_rules, weights / 4) == expected


def test_majority_class_by_weight_and_bad_weights():
    y = np.array([0, 1, 1, 2])
    assert majority_class(y, 3) == 1
    assert majority_class(y, 3, [3.0, 1.0, 1.0, 0.5]) == 0
    assert majority_class(y, 3, [1.0, 0.5, 0.5, 1.0]) == 0  # ties to the smallest index
    tests = attribute_tests(FeatureBinning().fit(pd.DataFrame({"f": list("abab")}), y),
                            np.array([[0], [1], [0], [1]]))
    with pytest.raises(ValueError, match="not all be 0"):
        learn_append(tests, y, 3, np.zeros(4))
    with pytest.raises(ValueError, match=r"weights has 3 values for 4 samples"):
        learn_prepend(tests, y, 3, np.ones(3))


@pytest.mark.parametrize("strategy", ["append-p2", "prepend-ip2"])
def test_integer_sample_weights_act_as_copies_in_the_estimator(strategy):
    X, y = optrules.load("car_evaluation")
    weights = np.random.default_rng(1).integers(0, 3, len(y))
    copies = np.repeat(np.arange(len(y)), weights)
    weighted = DecisionListClassifier(strategy=strategy).fit(X, y, sample_weight=weights).ruleset_
    copied = DecisionListClassifier(strategy=strategy).fit(X.iloc[copies], y.iloc[copies]).ruleset_
    assert [(r.conditions, r.prediction) for r in weighted.rules] == [(r.conditions, r.prediction)
                                                                      for r in copied.rules]
    assert weighted.default == copied.default and weighted.n_rules > 3
    for key in ("training_accuracy", "search_nodes", "searches"):
        assert weighted.meta[key] == copied.meta[key]


# --------------------------------------------------------------------------- the estimator
def test_default_rule_is_the_training_majority_class():
    X, y = optrules.load("tic_tac_toe")
    X, y = X.iloc[::3], y.iloc[::3]
    learned_defaults = 0
    for strategy in ("append", "append-p2", "prepend", "prepend-ip2"):
        model = DecisionListClassifier(strategy=strategy, max_nodes=20_000).fit(X, y)
        ruleset = model.ruleset_
        assert ruleset.kind == "list"
        assert all(rule.conditions for rule in ruleset.rules)  # never a rule "IF TRUE" before a dead default
        # the list predicts as the learner's list did (its accuracy on the training cases)
        assert (ruleset.predict(X) == y.to_numpy()).mean() == pytest.approx(ruleset.meta["training_accuracy"][-1])
        if ruleset.meta["default_rule"] == "majority":
            assert ruleset.default == y.value_counts().idxmax() == "positive"  # not the first class
        else:  # append's last rule was IF TRUE THEN c: c is the default and the majority one is dead
            assert strategy.startswith("append")
            learned_defaults += 1
    assert learned_defaults >= 1  # tic_tac_toe's append lists end with IF TRUE (as the paper says they often do)


def test_multiclass_lists_use_every_class():
    X, y = optrules.load("car_evaluation")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
    for strategy in ("prepend-ip2", "append-p2"):
        model = make_estimator(strategy).fit(X_train, y_train)
        ruleset = model.ruleset_
        assert set(model.classes_) == {"unacc", "acc", "good", "vgood"}
        assert {r.prediction for r in ruleset.rules} | {ruleset.default} == set(model.classes_)
        assert (model.predict(X_test) == y_test.to_numpy()).mean() > 0.85
        restored = optrules.Ruleset.from_json(ruleset.to_json())
        assert (restored.predict(X_test) == model.predict(X_test)).all()


def test_ruleset_conditions_reproduce_the_search_covers_with_numbers_and_missing_values():
    rng = np.random.default_rng(0)
    n = 120
    X = pd.DataFrame({
        "colour": rng.choice(["red", "green", "blue", None], n).astype(object),
        "size": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
    })
    y = np.where((X["colour"] != "red") & (X["size"].fillna(0) > 0), "yes", "no")
    for kind in ("inequality", "equality"):
        for strategy in ("append", "prepend"):
            model = DecisionListClassifier(strategy=strategy, tests=kind).fit(X, y)
            tests = attribute_tests(model.binning_, model.binning_.bin_index(X), kind)
            covers = model.ruleset_.covers(X)
            first = np.where(covers.any(axis=1), covers.argmax(axis=1), -1)
            for k, rule in enumerate(model.ruleset_.rules):
                reached = first == k
                assert rule.n_positive == (reached & (y == rule.prediction)).sum()
                assert rule.n_negative == (reached & (y != rule.prediction)).sum()
            assert model.score(X, y) == pytest.approx(model.ruleset_.meta["training_accuracy"][-1])
            assert tests.n_tests > 0


def test_inequality_conditions_read_as_not_in():
    X, y = optrules.load("monk1")
    model = make_estimator("prepend-ip2").fit(X, y)
    text = str(model.ruleset_)
    assert text.startswith("IF ") and "ELSE IF " in text and "not in {" in text
    assert text.splitlines()[-1] == f"ELSE class = {model.ruleset_.default}"
    # Monk 1 is (a1 = a2) or (a5 = 1): prepend-ip2 finds it exactly (Table 2: 100%)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=1)
    model = make_estimator("prepend-ip2").fit(X_train, y_train)
    assert model.score(X_test, y_test) == 1.0
    assert model.ruleset_.n_rules + 1 <= 6  # Table 3: 4.7 rules with the default rule


def test_node_limit_is_reported():
    X, y = optrules.load("breast_cancer")
    model = DecisionListClassifier(strategy="prepend-ip2", max_nodes=200).fit(X, y)
    meta = model.ruleset_.meta
    assert meta["unproven_searches"] > 0
    assert meta["searches"] >= meta["unproven_searches"]
    exact = DecisionListClassifier(strategy="append-p2").fit(*optrules.load("monk3"))
    assert exact.ruleset_.meta["unproven_searches"] == 0


@pytest.mark.parametrize("params, message", [
    ({"strategy": "insert"}, "'strategy' parameter of DecisionListClassifier must be one of"),
    ({"tests": "less"}, "'tests' parameter of DecisionListClassifier must be one of"),
    ({"max_nodes": 0}, "'max_nodes' parameter of DecisionListClassifier must be an integer >= 1"),
    ({"discretization": "kmeans"}, "'discretization' parameter of DecisionListClassifier must be"),
])
def test_parameter_errors_are_specific(params, message):
    X, y = optrules.load("monk1")
    with pytest.raises(ValueError, match=message):
        DecisionListClassifier(**params).fit(X, y)


@pytest.mark.parametrize("name", ["append", "append-p2", "prepend", "prepend-ip2"])
def test_every_list_method_learns_tic_tac_toe(name):
    X, y = optrules.load("tic_tac_toe")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    model = make_estimator(name).fit(X_train, y_train)
    predictions = model.predict(X_test)
    assert (predictions == y_test.to_numpy()).mean() >= 0.9  # Table 2: 96.9-98.7
    ruleset = model.ruleset_
    assert ruleset.kind == "list" and ruleset.meta["strategy"] == name
    assert ruleset.meta["unproven_searches"] == 0
    restored = optrules.Ruleset.from_json(ruleset.to_json())
    assert (restored.predict(X_test) == predictions).all()
    assert ruleset.meta["method"] == "decision-list" and ruleset.meta["params"]["strategy"] == name


def test_inequality_tests_read_back_as_conditions():
    X = pd.DataFrame({"colour": ["red", "blue", "green", None, "red"],
                      "size": [1.0, 2.0, np.nan, 3.0, 4.0]})
    binning = FeatureBinning({"size": [2.5]}).fit(X, ["a", "b", "a", "b", "a"])
    tests = attribute_tests(binning, binning.bin_index(X), "inequality")
    named = {tests.describe(j): j for j in range(tests.n_tests)}
    assert set(named) == {"colour != blue", "colour != green", "colour != red", "colour != missing",
                          "size != [min, 2.5)", "size != [2.5, max]", "size != missing"}
    red, missing = named["colour != red"], named["colour != missing"]
    (condition,) = tests.conditions((red,))
    assert str(condition) == "colour not in {red} or missing"
    (condition,) = tests.conditions((red, missing))
    assert str(condition) == "colour not in {red}"
    (condition,) = tests.conditions((missing,))
    assert str(condition) == "colour in {blue, green, red}"
    (condition,) = tests.conditions((named["size != [min, 2.5)"],))
    assert str(condition) == "size in [2.5, max] or missing"
    # every conjunction of tests evaluates on X exactly as the test matrix says
    for first in range(tests.n_tests):
        for second in range(tests.n_tests):
            chosen = (first, second)
            truth = np.ones(len(X), dtype=bool)
            for condition in tests.conditions(chosen):
                truth &= condition.evaluate(X[condition.feature].to_numpy())
            assert (truth == tests.covers(chosen)).all()
    # a category never seen in training differs from every excluded value
    (condition,) = tests.conditions((red,))
    assert condition.evaluate(np.array(["purple"], dtype=object)).all()


def test_numeric_features_are_discretised_as_asked():
    X, y = optrules.load("haberman")  # three numeric features
    model = DecisionListClassifier(strategy="prepend-ip2", discretization="equal_frequency",
                                   discretization_params={"n_bins": 3}).fit(X, y)
    assert all(layout.n_value_bins <= 3 and not layout.categorical for layout in model.binning_.layout_)
    chimerge = DecisionListClassifier(strategy="prepend-ip2").fit(X, y)
    assert [lay.cuts for lay in chimerge.binning_.layout_] != [lay.cuts for lay in model.binning_.layout_]
    for fitted in (model, chimerge):  # the printed intervals predict as the bins did in training
        assert fitted.score(X, y) == pytest.approx(fitted.ruleset_.meta["training_accuracy"][-1])


@pytest.mark.parametrize("discretization", ["chimerge", "equal_frequency"])
@pytest.mark.parametrize("cap", [2, 3, 5])
def test_numeric_tests_are_capped_at_max_intervals(discretization, cap):
    rng = np.random.default_rng(cap)
    X = pd.DataFrame(rng.random((300, 4)), columns=["a", "b", "c", "d"])
    X.loc[rng.random(300) < 0.1, "d"] = np.nan
    y = np.where((X["a"] > 0.5) ^ (rng.random(300) < 0.2), "yes", "no")
    model = DecisionListClassifier(strategy="prepend-ip2", discretization=discretization,
                                   discretization_params={"n_bins": 8} if discretization == "equal_frequency"
                                   else {"threshold": 0.0}, max_intervals=cap, max_nodes=20_000).fit(X, y)
    meta = model.ruleset_.meta
    assert meta["n_tests"] <= 4 * cap + 1  # one test per interval, one for d's missing values
    for layout in model.binning_.layout_:
        assert layout.n_value_bins <= cap and len(layout.cuts) <= cap - 1
    uncapped = DecisionListClassifier(strategy="prepend-ip2", discretization=discretization,
                                      discretization_params=model.discretization_params, max_intervals=None,
                                      max_nodes=20_000).fit(X, y)
    assert max(layout.n_value_bins for layout in uncapped.binning_.layout_) > cap


def test_search_counts_in_meta():
    X, y = optrules.load("breast_cancer")
    meta = DecisionListClassifier(strategy="prepend-ip2", max_nodes=200).fit(X, y).ruleset_.meta
    assert meta["proven"] + meta["unproven_searches"] == meta["searches"]
    assert meta["proven_share"] == pytest.approx(meta["proven"] / meta["searches"])
    assert 0 < meta["proven_share"] < 1
    exact = DecisionListClassifier(strategy="prepend-ip2").fit(*optrules.load("monk1")).ruleset_.meta
    assert exact["proven_share"] == 1.0 and exact["proven"] == exact["searches"]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), cap=st.integers(2, 4))
def test_search_is_exact_on_capped_numeric_tests(seed, cap):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((60, 3)), columns=["a", "b", "c"])
    y = np.where((X["a"] > 0.4) & (X["b"] < 0.7) ^ (rng.random(60) < 0.15), "yes", "no")
    binning = FeatureBinning(method="equal_frequency", n_bins=cap).fit(X, y)
    tests = attribute_tests(binning, binning.bin_index(X))
    assert tests.n_tests <= 3 * cap
    positive, negative = y == "yes", (y == "no") & (rng.random(60) < 0.8)  # some cases count as neither
    found = best_rule(tests.holds, positive, negative).rule
    truth = brute_force_best_rule(tests.holds, positive, negative)
    assert (found is None) == (truth is None)
    if truth is not None:
        assert found.key == truth.key
        covered = tests.covers(found.tests)
        assert (found.positive, found.negative) == ((covered & positive).sum(), (covered & negative).sum())


def test_the_default_cap_is_the_number_of_classes():
    """Three classes ordered along one feature: with one threshold per feature (the old default of 2
    intervals) no list can tell the middle class from the last; the default gives each class an
    interval of its own, and on two classes it is 2 as before."""
    x = np.repeat([1.0, 2.0, 3.0], 30) + np.tile(np.linspace(0, 0.5, 30), 3)
    X, y = pd.DataFrame({"x": x}), np.repeat(["low", "mid", "high"], 30)
    default = DecisionListClassifier(strategy="prepend-ip2", discretization_params={"threshold": 0.0}).fit(X, y)
    assert (default.predict(X) == y).all()
    assert max(layout.n_value_bins for layout in default.binning_.layout_) == 3
    two = DecisionListClassifier(strategy="prepend-ip2", discretization_params={"threshold": 0.0},
                                 max_intervals=2).fit(X, y)
    assert (two.predict(X) == y).mean() < 0.7
    binary = DecisionListClassifier(strategy="prepend-ip2", discretization_params={"threshold": 0.0}).fit(
        X.iloc[:60], y[:60])
    assert max(layout.n_value_bins for layout in binary.binning_.layout_) <= 2


def test_a_discretiser_option_it_does_not_take_is_named_before_any_work():
    """A misspelt ChiMerge option was chimerge()'s own TypeError in the middle of the fit."""
    from optrules.exceptions import InvalidParameterError

    X, y = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}), np.array(["a", "a", "b", "b"])
    with pytest.raises((ValueError, InvalidParameterError), match=r"\['treshold'\] are not options of 'chimerge'; did you mean 'threshold'"):
        DecisionListClassifier(discretization_params={"treshold": 4.0}).fit(X, y)
    with pytest.raises(ValueError, match=r"\['threshold'\] are not options of 'equal_frequency' \(its options: n_bins\)"):
        DecisionListClassifier(discretization="equal_frequency", discretization_params={"threshold": 4.0}).fit(X, y)
