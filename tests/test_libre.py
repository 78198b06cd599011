"""LIBRE (ensemble of bottom-up learners on random feature subsets) and the single bottom-up learner."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

import optrules
from optrules.estimators import BottomUpClassifier, LibreClassifier
from optrules.encode import FeatureBinning
from optrules.learners.libre import distinct_rows, group_samples, rank_boundary, resolve_conflicts


def _split(name):
    X, y = optrules.load(name)
    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)


@pytest.fixture(scope="module")
def tic_tac_toe():
    return _split("tic_tac_toe")


def _f1(model, X, y, positive):
    return f1_score(np.asarray(y) == positive, model.predict(X) == positive)


def test_libre_learns_tic_tac_toe(tic_tac_toe):
    X_train, X_test, y_train, y_test = tic_tac_toe
    model = LibreClassifier(n_estimators=20, max_features=5, top_k=200, positive="positive", random_state=0)
    model.fit(X_train, y_train)
    assert _f1(model, X_test, y_test, "positive") >= 0.9
    ruleset = model.ruleset_
    assert ruleset.kind == "set" and ruleset.positive == "positive" and ruleset.default == "negative"
    assert 1 <= len(ruleset.rules) <= ruleset.meta["n_candidates"] <= 200
    assert ruleset.meta["n_candidates"] <= ruleset.meta["n_boundary_points"]
    assert ruleset.meta["method"] == "libre" and ruleset.meta["n_learners"] <= 20
    # every rule restricts at most max_features features, and its statistics are the training coverage
    train_positive = (y_train == "positive").to_numpy()
    for rule in ruleset.rules:
        assert 1 <= len(rule.conditions) <= 5
        covered = _one_rule(rule, ruleset).predict(X_train) == "positive"
        assert rule.n_positive == int((covered & train_positive).sum())
        assert rule.n_negative == int((covered & ~train_positive).sum())
    # the fitted Ruleset alone reproduces the estimator, also after a JSON round trip
    restored = optrules.Ruleset.from_json(ruleset.to_json())
    assert (restored.predict(X_test) == model.predict(X_test)).all()


def _one_rule(rule, ruleset):
    """A one-rule copy of ``ruleset``."""
    return optrules.Ruleset("set", (rule,), ruleset.default, ruleset.features, ruleset.classes,
                            positive=ruleset.positive)


def test_bottom_up_learns_tic_tac_toe(tic_tac_toe):
    X_train, X_test, y_train, y_test = tic_tac_toe
    model = BottomUpClassifier(positive="positive").fit(X_train, y_train)
    assert _f1(model, X_test, y_test, "positive") >= 0.9
    assert model.ruleset_.meta["method"] == "bottom-up"
    assert model.ruleset_.meta["n_learners"] == 1
    assert model.subsets_ == [tuple(X_train.columns)]
    # the plain bottom-up learner is LIBRE with one learner on all features
    same = LibreClassifier(n_estimators=1, max_features=None, positive="positive").fit(X_train, y_train)
    assert same.ruleset_ == model.ruleset_


def test_learner_points_cover_no_negative_of_their_subset(tic_tac_toe):
    X_train, _, y_train, _ = tic_tac_toe
    model = LibreClassifier(n_estimators=8, max_features=4, conflicts="strict", positive="positive", random_state=3)
    model.fit(X_train, y_train)
    binning = model.binning_
    bits = binning.transform(X_train).to_bools()
    is_positive = (y_train == "positive").to_numpy()
    assert len(model.subsets_) == len(model.boundaries_) == model.ruleset_.meta["n_learners"]
    total = 0
    for features, points in zip(model.subsets_, model.boundaries_):
        assert len(features) == 4 and len(set(features)) == 4
        cols = np.concatenate([np.arange(binning.layout(f).start, binning.layout(f).stop) for f in features])
        outside = np.setdiff1d(np.arange(bits.shape[1]), cols)
        assert not points[:, outside].any()  # no condition on the features outside the subset
        sub_points, sub_rows = points[:, cols], bits[:, cols]
        covers = ~np.any(sub_points[:, None, :] & ~sub_rows[None, :, :], axis=2)  # points x samples
        assert not covers[:, ~is_positive].any()  # conflict-free on the learner's own lattice
        assert covers[:, is_positive].any(axis=1).all()  # every point covers a positive
        total += len(points)
    assert model.ruleset_.meta["n_boundary_points"] <= total


def test_deterministic_and_independent_of_n_jobs(tic_tac_toe):
    X_train, X_test, y_train, _ = tic_tac_toe
    params = {"n_estimators": 6, "max_features": 4, "positive": "positive"}
    first = LibreClassifier(random_state=7, **params).fit(X_train, y_train).ruleset_
    again = LibreClassifier(random_state=7, **params).fit(X_train, y_train).ruleset_
    assert first == again and str(first) == str(again)
    parallel = LibreClassifier(random_state=7, n_jobs=2, **params).fit(X_train, y_train).ruleset_
    assert parallel == first and str(parallel) == str(first)
    others = [LibreClassifier(random_state=seed, **params).fit(X_train, y_train).ruleset_
              for seed in (0, 1, 2)]
    assert any(other != first for other in others)


def test_subsets_drawn_without_replacement_and_deduplicated():
    X, y = optrules.load("tic_tac_toe")
    model = LibreClassifier(n_estimators=30, max_features=8, positive="positive", random_state=0).fit(X, y)
    subsets = model.subsets_
    assert len(subsets) == len(set(subsets)) <= 9  # only 9 subsets of 8 out of 9 features exist
    assert all(len(set(s)) == 8 for s in subsets)
    whole = LibreClassifier(n_estimators=5, max_features=50, positive="positive", random_state=0).fit(X, y)
    assert whole.subsets_ == [tuple(X.columns)]


def test_missing_values_are_data():
    X_train, X_test, y_train, y_test = _split("wisconsin")
    assert X_train.isna().any().any() and X_test.isna().any().any()
    model = LibreClassifier(positive="malignant", random_state=0).fit(X_train, y_train)
    assert any(layout.has_missing for layout in model.binning_.layout_)
    nan_rows = X_test.isna().any(axis=1)
    predictions = model.predict(X_test)
    assert set(predictions) <= {"benign", "malignant"}
    assert len(model.predict(X_test[nan_rows])) == int(nan_rows.sum())
    assert _f1(model, X_test, y_test, "malignant") >= 0.85

    X, y = optrules.load("house_votes_84")
    votes = LibreClassifier(random_state=0).fit(X, y)
    assert votes.ruleset_.positive == "republican"
    assert any(condition.missing for rule in votes.ruleset_.rules for condition in rule.conditions)
    missing_only = pd.DataFrame([[np.nan] * X.shape[1]], columns=X.columns).astype(X.dtypes.to_dict())
    assert votes.predict(missing_only)[0] in {"democrat", "republican"}


def test_ilp_selection_never_worse_than_greedy():
    X_train, _, y_train, _ = _split("pima")
    params = {"positive": "tested_positive", "random_state": 0, "rule_cost": 1.0, "top_k": 60}
    greedy = LibreClassifier(**params).fit(X_train, y_train).ruleset_
    exact = LibreClassifier(selection="ilp", solver_options={"mip_max_nodes": 10_000}, **params).fit(
        X_train, y_train).ruleset_
    assert exact.meta["n_candidates"] == greedy.meta["n_candidates"]
    report = exact.meta["solve_reports"][0]
    assert report.status in (optrules.Status.OPTIMAL, optrules.Status.FEASIBLE)
    assert exact.meta["objective"] <= greedy.meta["objective"] + 1e-6


def test_greedy_ties_go_to_the_point_with_more_zeros(monkeypatch):
    """Section 3.3: among equal weights "the element with the highest number of zeros is preferred".
    The greedy cover gets each ranked candidate's number of ones as its tie-break size (not its
    number of conditions: on heart_statlog's multi-valued categorical features the two differ)."""
    import optrules.estimators.libre as libre

    seen = {}

    def ranking(coverage, is_positive, n_ones, *args):
        order = rank_boundary(coverage, is_positive, n_ones, *args)
        seen["ones"] = np.asarray(n_ones)[order]
        return order

    def greedy(instance, max_rules=None, size=None):
        seen["size"] = np.asarray(size)
        seen["selected"] = libre_greedy(instance, max_rules, size)
        return seen["selected"]

    libre_greedy = libre.greedy_cover
    monkeypatch.setattr(libre, "rank_boundary", ranking)
    monkeypatch.setattr(libre, "greedy_cover", greedy)
    X_train, _, y_train, _ = _split("heart_statlog")
    model = LibreClassifier(positive="presence", random_state=0, conflicts="majority", top_k=None)
    model.fit(X_train, y_train)
    assert np.array_equal(seen["size"], seen["ones"])
    # the measure matters here: the chosen rules' numbers of ones are not their numbers of conditions
    conditions = [len(rule.conditions) for rule in model.ruleset_.rules]
    assert len(conditions) == len(seen["selected"]) > 1
    assert seen["size"][seen["selected"]].tolist() != conditions


def test_max_rules_and_rule_cost(tic_tac_toe):
    X_train, _, y_train, _ = tic_tac_toe
    base = {"n_estimators": 10, "positive": "positive", "random_state": 0}
    free = LibreClassifier(**base).fit(X_train, y_train).ruleset_
    capped = LibreClassifier(max_rules=3, **base).fit(X_train, y_train).ruleset_
    assert len(capped.rules) == 3 and capped.rules == free.rules[:3]  # greedy order, cut early
    costly = LibreClassifier(rule_cost=5.0, **base).fit(X_train, y_train).ruleset_
    assert len(costly.rules) < len(free.rules)
    assert all(rule.n_positive * 0.7 > 5.0 for rule in costly.rules[:1])


def test_rank_boundary_filter_and_order():
    is_positive = np.array([1, 1, 1, 1, 0, 0], dtype=bool)
    coverage = np.array([
        [1, 1, 0, 0, 1, 0],  # lsup+ .5, lsup- .5: dropped (not lsup+ > lsup-)
        [1, 1, 1, 0, 1, 0],  # .75 / .5: exclusiveness .6
        [1, 0, 0, 0, 0, 0],  # .25 / 0: exclusiveness 1
        [1, 1, 0, 0, 0, 0],  # .5 / 0: exclusiveness 1, more support than row 2
        [0, 0, 1, 1, 0, 0],  # .5 / 0: ties row 3, fewer ones -> first
        [0, 0, 0, 0, 1, 1],  # 0 / 1: dropped
    ], dtype=bool)
    n_ones = np.array([1, 1, 1, 3, 2, 1])
    assert rank_boundary(coverage, is_positive, n_ones).tolist() == [4, 3, 2, 1]
    assert rank_boundary(coverage, is_positive, n_ones, top_k=2).tolist() == [4, 3]
    assert rank_boundary(coverage, is_positive, n_ones, min_local_support=0.5).tolist() == [4, 3, 1]


def test_parameters_and_clone():
    libre = LibreClassifier(n_estimators=3, max_features=2, alpha=0.9, random_state=1)
    assert clone(libre).get_params() == libre.get_params()
    bottom_up = BottomUpClassifier(heuristic="H2", top_k=None)
    params = bottom_up.get_params()
    assert "n_estimators" not in params and "max_features" not in params
    assert clone(bottom_up).get_params() == params
    X, y = optrules.load("tic_tac_toe")
    h2 = bottom_up.fit(X, y)
    assert h2.ruleset_.meta["params"]["heuristic"] == "H2"


@pytest.mark.parametrize("params, match", [
    ({"heuristic": "H3"}, "heuristic"),
    ({"n_estimators": 0}, "n_estimators"),
    ({"max_features": 0}, "max_features"),
    ({"alpha": 2}, "alpha"),
    ({"selection": "best"}, "selection"),
    ({"top_k": 0}, "top_k"),
    ({"rule_cost": -1}, "rule_cost"),
    ({"min_local_support": 1.5}, "min_local_support"),
])
def test_parameter_errors(params, match):
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [0.2, 0.9]])
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=match):
        LibreClassifier(**params).fit(X, y)


def test_ilp_without_rule_cost_keeps_no_redundant_rule():
    X_train, _, y_train, _ = _split("pima")
    params = {"positive": "tested_positive", "random_state": 0, "top_k": 60}
    greedy = LibreClassifier(**params).fit(X_train, y_train).ruleset_
    exact = LibreClassifier(selection="ilp", **params).fit(X_train, y_train).ruleset_
    assert exact.meta["objective"] <= greedy.meta["objective"] + 1e-6
    covers = np.column_stack([_one_rule(rule, exact).predict(X_train) == "tested_positive"
                              for rule in exact.rules])
    for j in range(covers.shape[1]):  # every rule covers some sample no other rule covers
        others = np.delete(covers, j, axis=1).any(axis=1)
        assert (covers[:, j] & ~others).any()


def test_resolve_conflicts_gives_each_shared_row_to_the_weighted_majority():
    a, b, c = [True, False, True], [False, True, True], [True, True, False]
    positives, pos_counts = np.array([a, b]), np.array([3, 1])
    negatives, neg_counts = np.array([a, c]), np.array([1, 5])
    kept_pos, kept_counts, kept_neg = resolve_conflicts(positives, pos_counts, negatives, neg_counts, 0.5)
    assert kept_pos.tolist() == [a, b] and kept_counts.tolist() == [3, 1]  # row a: 1.5 > 0.5
    assert kept_neg.tolist() == [c]
    kept_pos, kept_counts, kept_neg = resolve_conflicts(positives, pos_counts, negatives, neg_counts, 0.2)
    assert kept_pos.tolist() == [b] and kept_counts.tolist() == [1]  # row a: 0.6 < 0.8 -> negative
    assert kept_neg.tolist() == [a, c]


def test_majority_conflicts_learn_where_strict_learners_cannot():
    X, y = optrules.load("haberman")
    positive = y.attrs["positive"]
    paper = {"alpha": 0.7, "max_intervals": None, "top_k": 200, "min_gain": 0.0}  # the rest as the paper
    strict = LibreClassifier(random_state=0, positive=positive, conflicts="strict", **paper).fit(X, y).ruleset_
    majority = LibreClassifier(random_state=0, positive=positive, conflicts="majority", **paper).fit(X, y).ruleset_
    # strict learners never cover a training negative; resolved ones may, and then cover more positives
    assert all(rule.n_negative == 0 for rule in strict.rules)
    assert majority.n_rules >= 1 and any(rule.n_negative > 0 for rule in majority.rules)
    covered = lambda rs: rs.covers(X).any(axis=1)[np.asarray(y == positive)].sum() if rs.n_rules else 0
    assert covered(majority) > covered(strict)
    message = "'conflicts' parameter of LibreClassifier must be one of 'strict', 'majority'"
    with pytest.raises(ValueError, match=message):
        LibreClassifier(conflicts="vote").fit(X, y)


# --------------------------------------------------------------------------- sample weights
PROPERTY = settings(derandomize=True, max_examples=100, deadline=None)


@st.composite
def weighted_codes(draw):
    """Bin indices (-1: no bin) of a few features with one integer weight (0-3) per row."""
    n = draw(st.integers(0, 25))
    n_features = draw(st.integers(1, 3))
    codes = np.array(draw(st.lists(st.lists(st.integers(-1, 2), min_size=n_features, max_size=n_features),
                                   min_size=n, max_size=n)), dtype=np.int64).reshape(n, n_features)
    weights = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.int64)
    return codes, weights


def test_distinct_rows_sum_the_weights_of_equal_rows():
    codes = np.array([[1, 0], [0, 2], [1, 0], [-1, 1], [0, 2], [1, 1]])
    rows, counts = distinct_rows(codes)
    assert rows.tolist() == [[-1, 1], [0, 2], [1, 0], [1, 1]]
    assert counts.tolist() == [1, 2, 2, 1] and counts.dtype == np.int64
    rows, sums = distinct_rows(codes, [2.0, 0.5, 1.0, 3.0, 0.25, 0.0])  # the last row weighs 0: removed
    assert rows.tolist() == [[-1, 1], [0, 2], [1, 0]] and sums.tolist() == [3.0, 0.75, 3.0]
    rows, ones = distinct_rows(codes, np.ones(6))
    assert rows.tolist() == [[-1, 1], [0, 2], [1, 0], [1, 1]]
    assert ones.tolist() == [1.0, 2.0, 2.0, 1.0] and ones.dtype == np.float64
    rows, none = distinct_rows(codes, np.zeros(6))
    assert rows.shape == (0, 2) and none.shape == (0,)
    with pytest.raises(ValueError, match=r"weights has 5 values for 6 samples"):
        distinct_rows(codes, np.ones(5))
    with pytest.raises(ValueError, match=r"weights contains 1 negative value"):
        distinct_rows(codes, [1, 1, -1, 1, 1, 1])


@PROPERTY
@given(weighted_codes())
def test_distinct_rows_integer_weights_act_as_copies(data):
    codes, weights = data
    rows, counts = distinct_rows(np.repeat(codes, weights, axis=0))
    weighted_rows, sums = distinct_rows(codes, weights)
    assert np.array_equal(weighted_rows, rows) and np.array_equal(sums, counts)
    kept = weights > 0  # weight 0 is removal
    kept_rows, kept_sums = distinct_rows(codes[kept], weights[kept])
    assert np.array_equal(kept_rows, rows) and np.array_equal(kept_sums, counts)


def test_resolve_conflicts_with_summed_weights():
    a, b = [0, 1], [1, 0]
    positives, pos_weights = np.array([a, b]), np.array([1.5, 0.25])
    negatives, neg_weights = np.array([a, b]), np.array([2.0, 0.5])
    # alpha 0.6: row a 0.9 > 0.8 stays positive; row b 0.15 < 0.2 goes negative
    kept_pos, kept_weights, kept_neg = resolve_conflicts(positives, pos_weights, negatives, neg_weights, 0.6)
    assert kept_pos.tolist() == [a] and kept_weights.tolist() == [1.5] and kept_neg.tolist() == [b]


def test_rank_boundary_with_weights():
    is_positive = np.array([1, 1, 1, 1, 0, 0], dtype=bool)
    coverage = np.array([
        [1, 0, 0, 0, 0, 0],  # lsup+ 3/6: the heavy positive
        [0, 1, 1, 0, 0, 0],  # lsup+ 2/6
        [0, 1, 1, 1, 1, 0],  # lsup+ 3/6, lsup- 1/4
        [0, 0, 0, 0, 0, 0],  # covers nothing: dropped
        [1, 0, 0, 0, 0, 1],  # lsup+ 3/6, lsup- 3/4: dropped
    ], dtype=bool)
    weights = np.array([3.0, 1.0, 1.0, 1.0, 1.0, 3.0])
    n_ones = np.array([1, 1, 1, 1, 1])
    assert rank_boundary(coverage, is_positive, n_ones, weights=weights).tolist() == [0, 1, 2]
    assert rank_boundary(coverage, is_positive, n_ones, 0.5, None, weights).tolist() == [0, 2]
    # the unweighted supports rank differently: row 1 (2/4) before row 0 (1/4)
    assert rank_boundary(coverage, is_positive, n_ones).tolist() == [1, 0, 2]
    assert rank_boundary(coverage, is_positive, n_ones, weights=np.ones(6)).tolist() == [1, 0, 2]
    # a class of total weight 0 has supports 0: no positive weight, nothing is kept
    assert rank_boundary(coverage, is_positive, n_ones, weights=np.where(is_positive, 0.0, 1.0)).size == 0


@PROPERTY
@given(st.data())
def test_rank_boundary_integer_weights_act_as_copies(data):
    n = data.draw(st.integers(1, 20))
    n_points = data.draw(st.integers(1, 8))
    flags = st.lists(st.booleans(), min_size=n, max_size=n)
    coverage = np.array([data.draw(flags) for _ in range(n_points)], dtype=bool)
    is_positive = np.array(data.draw(flags), dtype=bool)
    weights = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    n_ones = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n_points, max_size=n_points)))
    args = (data.draw(st.sampled_from([0.0, 0.25, 0.5])), data.draw(st.sampled_from([None, 2])))
    copies = rank_boundary(np.repeat(coverage, weights, axis=1), np.repeat(is_positive, weights), n_ones, *args)
    assert np.array_equal(rank_boundary(coverage, is_positive, n_ones, *args, weights), copies)
    kept = weights > 0
    removed = rank_boundary(coverage[:, kept], is_positive[kept], n_ones, *args, weights[kept])
    assert np.array_equal(removed, copies)
    assert np.array_equal(rank_boundary(coverage, is_positive, n_ones, *args, np.ones(n)),
                          rank_boundary(coverage, is_positive, n_ones, *args))


@pytest.mark.parametrize("params", [
    {"n_estimators": 6, "max_features": 4, "positive": "positive", "random_state": 0},
    {"n_estimators": 6, "max_features": 4, "positive": "positive", "random_state": 0, "conflicts": "majority",
     "top_k": None},
])
def test_integer_sample_weights_act_as_copies(tic_tac_toe, params):
    X_train, _, y_train, _ = tic_tac_toe
    weights = np.random.default_rng(0).integers(0, 4, len(y_train))
    copies = np.repeat(np.arange(len(y_train)), weights)
    weighted = LibreClassifier(**params).fit(X_train, y_train, sample_weight=weights)
    copied = LibreClassifier(**params).fit(X_train.iloc[copies], y_train.iloc[copies])
    assert weighted.subsets_ == copied.subsets_
    assert all(np.array_equal(a, b) for a, b in zip(weighted.boundaries_, copied.boundaries_))
    conditions = [rule.conditions for rule in weighted.ruleset_.rules]
    assert conditions == [rule.conditions for rule in copied.ruleset_.rules] and conditions
    assert weighted.ruleset_.meta["n_candidates"] == copied.ruleset_.meta["n_candidates"]
    ones = LibreClassifier(**params).fit(X_train, y_train, sample_weight=np.ones(len(y_train)))
    assert ones.ruleset_.rules == LibreClassifier(**params).fit(X_train, y_train).ruleset_.rules


def test_min_gain_is_a_cost_per_rule_of_that_share_of_the_positives(tic_tac_toe):
    X_train, _, y_train, _ = tic_tac_toe
    base = {"n_estimators": 10, "positive": "positive", "random_state": 0, "alpha": 0.7}
    n_positive = int((y_train == "positive").sum())
    free = LibreClassifier(min_gain=0.0, **base).fit(X_train, y_train).ruleset_
    stopped = LibreClassifier(min_gain=0.05, **base).fit(X_train, y_train).ruleset_
    as_cost = LibreClassifier(min_gain=0.0, rule_cost=0.05 * 0.7 * n_positive, **base).fit(X_train, y_train).ruleset_
    assert stopped.rules == as_cost.rules  # the same stopping rule, said in samples
    assert 1 <= len(stopped.rules) < len(free.rules) and stopped.rules == free.rules[:len(stopped.rules)]


def test_defaults_recover_the_hidden_rule_under_label_noise():
    # the noisy hidden 3-term DNF of benchmarks/synthetic.py (a development set of the defaults)
    rng = np.random.default_rng(0)
    X = rng.random((3000, 10))
    label = ((X[:, 0] > 0.5) & (X[:, 1] > 0.5)) | ((X[:, 2] <= 0.3) & (X[:, 3] > 0.7)) | (X[:, 4] > 0.8)
    label ^= rng.random(3000) < 0.05
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(10)])
    model = LibreClassifier(random_state=0).fit(frame.iloc[:2000], label[:2000])
    assert model.ruleset_.positive == True  # noqa: E712  (the minority class)
    assert 2 <= model.ruleset_.n_rules <= 6
    assert f1_score(label[2000:], model.predict(frame.iloc[2000:])) >= 0.85


@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 40), st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None, derandomize=True)
def test_distinct_rows_match_numpy_unique_rows(n_values, n_columns, n_rows, seed):
    codes = np.random.default_rng(seed).integers(0, n_values, size=(n_rows, n_columns))
    rows, counts = distinct_rows(codes)
    expected, expected_counts = np.unique(codes, axis=0, return_counts=True)
    assert rows.tolist() == expected.tolist() and counts.tolist() == expected_counts.tolist()
    huge = codes * 2**40  # a radix product beyond int64: several packed keys
    rows, counts = distinct_rows(huge)
    assert rows.tolist() == (expected * 2**40).tolist() and counts.tolist() == expected_counts.tolist()


@given(st.integers(0, 2**32 - 1), st.sampled_from(["bins", "wide", "extreme"]), st.booleans())
@settings(max_examples=60, deadline=None, derandomize=True)
def test_distinct_rows_and_groups_of_many_packed_keys_match_numpy_unique_rows(seed, kind, weighted):
    # rows packed into several int64 keys (thousands of bins per column, a column of its own when
    # its range passes 2**63), duplicates and first keys shared by rows that differ later, against
    # np.unique on the rows and np.lexsort for the order of the weighted sums
    rng = np.random.default_rng(seed)
    n_rows, n_columns = int(rng.integers(1, 300)), int(rng.integers(1, 12))
    if kind == "bins":
        codes = rng.integers(-1, 3000, size=(n_rows, n_columns))
        codes[:, : n_columns // 2] %= 3  # few values in the leading columns: first keys shared
    elif kind == "wide":
        codes = rng.integers(-2**40, 2**40, size=(n_rows, n_columns))
    else:
        extremes = np.array([np.iinfo(np.int64).min, -1, 0, 5, np.iinfo(np.int64).max])
        codes = rng.choice(extremes, size=(n_rows, n_columns))
    codes = codes[rng.integers(0, n_rows, n_rows)]  # duplicated rows
    weights = rng.choice([0.0, 0.1, 0.5, 1.0, 3.0], n_rows) if weighted else None
    rows, counts = distinct_rows(codes, weights)
    kept = np.ones(n_rows, dtype=bool) if weights is None else weights > 0
    expected, inverse, expected_counts = np.unique(codes[kept], axis=0, return_inverse=True, return_counts=True)
    assert rows.tolist() == expected.tolist()
    if weights is None:
        assert counts.tolist() == expected_counts.tolist()
    else:  # each row's weights summed in row order (np.lexsort is stable), as np.add.reduceat sums
        order = np.lexsort(codes[kept].T[::-1])
        starts = np.flatnonzero(np.r_[True, np.diff(inverse.reshape(-1)[order]) != 0])
        assert counts.tolist() == np.add.reduceat(weights[kept][order], starts).tolist()
    is_positive = rng.random(n_rows) < 0.5
    groups = group_samples(codes, is_positive, weights)
    labelled, first, group_of, group_counts = np.unique(np.column_stack([codes, is_positive]), axis=0,
                                                        return_index=True, return_inverse=True, return_counts=True)
    assert groups.codes.tolist() == codes[first].tolist()
    assert groups.is_positive.tolist() == is_positive[first].tolist()
    assert groups.counts.tolist() == group_counts.tolist()
    assert groups.inverse.tolist() == group_of.reshape(-1).tolist()


@PROPERTY
@given(weighted_codes(), st.data())
def test_group_samples_against_a_dictionary_of_rows(data, draw):
    codes, weights = data
    weights = weights.astype(float) / 2  # halves: sums exact, not all integers
    is_positive = np.array(draw.draw(st.lists(st.booleans(), min_size=len(codes), max_size=len(codes))), dtype=bool)
    groups = group_samples(codes, is_positive, weights)
    expected: dict = {}
    for row, positive, weight in zip(codes.tolist(), is_positive.tolist(), weights.tolist()):
        count, total = expected.get((tuple(row), positive), (0, 0.0))
        expected[(tuple(row), positive)] = (count + 1, total + weight)
    keys = sorted(expected)  # rows lexicographically, negatives (False) first
    assert [(tuple(r), bool(p)) for r, p in zip(groups.codes.tolist(), groups.is_positive)] == keys
    assert groups.counts.tolist() == [expected[k][0] for k in keys]
    assert groups.weights.tolist() == [expected[k][1] for k in keys]
    assert np.array_equal(groups.codes[groups.inverse], codes)
    assert np.array_equal(groups.is_positive[groups.inverse], is_positive)
    huge = group_samples(codes * 2**40, is_positive, weights)  # beyond one int64 key: several packed keys
    assert np.array_equal(huge.codes, groups.codes * 2**40) and np.array_equal(huge.counts, groups.counts)


@PROPERTY
@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 60), st.integers(0, 2**32 - 1), st.booleans())
def test_final_boundary_on_groups_as_on_samples(n_values, n_features, n, seed, weighted):
    """The estimator ranks and counts on the sample groups what the samples give: coverage of the
    groups expanded by ``inverse`` is the samples' coverage, and the ranking (top_k, filter) is equal."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, n_values, size=(n, n_features)).astype(float),
                     columns=[f"f{k}" for k in range(n_features)])
    X[rng.random(X.shape) < 0.1] = np.nan
    is_positive = rng.random(n) < 0.5
    weights = rng.integers(0, 3, n).astype(float) if weighted else None
    binning = FeatureBinning(method="equal_frequency", n_bins=3).fit(X)
    codes = binning.bin_index(X)
    points = rng.random((8, binning.n_bits)) < 0.3
    groups = group_samples(codes, is_positive, weights)
    on_samples = binning.coverage(points, codes)
    on_groups = binning.coverage(points, groups.codes)
    assert np.array_equal(on_groups[:, groups.inverse], on_samples)
    n_ones = points.sum(axis=1)
    for top_k in (None, 3):
        assert np.array_equal(rank_boundary(on_groups, groups.is_positive, n_ones, 0.1, top_k, groups.weights),
                              rank_boundary(on_samples, is_positive, n_ones, 0.1, top_k, weights))
