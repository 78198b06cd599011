"""The scikit-learn contract every registered method keeps: probabilities and scores, sample weights,
multi-class use, nested parameters, the positive class, label round trips and degenerate-fit warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.metrics import classification_report
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.multiclass import OneVsRestClassifier

import optrules
import optrules.cli
from optrules.registry import METHODS, make_estimator

FOLDS = StratifiedKFold(3, shuffle=True, random_state=0)


def _small(name: str, rows: int, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    X, y = optrules.load(name)
    picked = np.random.default_rng(seed).choice(len(X), size=min(rows, len(X)), replace=False)
    return X.iloc[np.sort(picked)].reset_index(drop=True), y.iloc[np.sort(picked)].reset_index(drop=True)


@pytest.mark.parametrize("name", sorted(METHODS))
@pytest.mark.parametrize("scoring", ["roc_auc", "average_precision", "neg_log_loss"])
def test_probability_scorers_are_finite_for_every_method(name, scoring):
    X, y = _small("heart_statlog", 150)
    y = (y == "presence").astype(int)  # scikit-learn's average_precision scorer needs pos_label 1
    scores = cross_val_score(make_estimator(name, **METHODS[name].test_params), X, y, cv=FOLDS, scoring=scoring)
    assert np.isfinite(scores).all(), scores
    if scoring == "roc_auc":
        assert scores.mean() > 0.6  # a ranking better than chance (a constant score gives 0.5)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_predict_proba_is_a_distribution_over_classes(name):
    X, y = _small("heart_statlog", 150)
    model = make_estimator(name, **METHODS[name].test_params).fit(X, y)
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), len(model.classes_))
    assert np.allclose(proba.sum(axis=1), 1.0) and (proba >= 0).all() and (proba <= 1).all()
    restored = optrules.Ruleset.from_json(model.ruleset_.to_json())
    assert np.allclose(restored.predict_proba(X), proba)
    if METHODS[name].kind == "score":  # the calibrated score keeps the decision: P > 1/2 iff score > 0
        positive = list(model.classes_).index(model.ruleset_.positive)
        assert ((proba[:, positive] > 0.5) == (model.ruleset_.decision_function(X) > 0)).all()
        oriented = model.decision_function(X) > 0  # scikit-learn's orientation: > 0 means classes_[1]
        assert (np.where(oriented, model.classes_[1], model.classes_[0]) == model.predict(X)).all()


@pytest.mark.parametrize("name", ["bottom-up", "setcover-greedy"])
def test_calibrated_classifier_cv_wraps_the_estimators(name):
    """docs/estimators.md: training frequencies are optimistic; CalibratedClassifierCV calibrates them
    on held-out folds. On heart_statlog the wrapped model's cross-validated log-loss is lower."""
    X, y = optrules.load("heart_statlog")
    y = (y == "presence").astype(int)
    estimator = make_estimator(name, **METHODS[name].test_params)
    plain = -cross_val_score(estimator, X, y, cv=FOLDS, scoring="neg_log_loss").mean()
    calibrated = CalibratedClassifierCV(estimator, cv=3, method="sigmoid")
    wrapped = -cross_val_score(calibrated, X, y, cv=FOLDS, scoring="neg_log_loss").mean()
    assert np.isfinite(wrapped) and wrapped < plain
    proba = clone(calibrated).fit(X, y).predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)


def test_positive_f1_scorer_follows_the_positive_class():
    X, y = optrules.load("tic_tac_toe")
    model = make_estimator("setcover-greedy", positive="negative")
    scores = cross_val_score(model, X, y, cv=FOLDS, scoring=optrules.positive_f1)
    fitted = clone(model).fit(X, y)
    truth, predicted = (y == "negative").to_numpy(), fitted.predict(X) == "negative"
    expected = 2 * (truth & predicted).sum() / (truth.sum() + predicted.sum())
    assert optrules.positive_f1(fitted, X, y) == pytest.approx(expected)
    assert np.isfinite(scores).all() and scores.mean() > 0.5


def test_positive_f1_scores_an_estimator_inside_a_pipeline_a_search_or_a_calibration():
    """It read ``estimator.ruleset_`` and raised AttributeError on every wrapper (review)."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    X, y = optrules.load("tic_tac_toe")
    model = make_estimator("setcover-greedy", positive="negative")
    truth = (y == "negative").to_numpy()
    wrappers = [make_pipeline(FunctionTransformer(), model),
                GridSearchCV(model, {"alpha": [0.7]}, cv=2),
                CalibratedClassifierCV(model, cv=2)]
    for wrapper in wrappers:
        fitted = clone(wrapper).fit(X, y)
        predicted = fitted.predict(X) == "negative"
        expected = 2 * (truth & predicted).sum() / (truth.sum() + predicted.sum())
        assert optrules.positive_f1(fitted, X, y) == pytest.approx(expected)
    with pytest.raises(TypeError, match="holds none"):
        optrules.positive_f1(FunctionTransformer().fit(X), X, y)


def test_positive_f1_of_a_decision_list_breaks_a_tie_as_the_binary_default_does():
    """On a 50/50 split the binary methods learn the last class ('pos'); positive_f1 scored a list's
    first class ('neg') there."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120)})
    y = np.where(np.arange(120) < 60, "neg", "pos")
    X.loc[y == "pos", "a"] += 1.0
    listed = make_estimator("prepend").fit(X, y)
    assert make_estimator("setcover-greedy").fit(X, y).ruleset_.positive == "pos"
    truth, predicted = y == "pos", listed.predict(X) == "pos"
    expected = 2 * (truth & predicted).sum() / (truth.sum() + predicted.sum())
    assert optrules.positive_f1(listed, X, y) == pytest.approx(expected)


def test_a_scorecard_fitted_on_more_than_two_classes_has_no_decision_function():
    """One score of the positive class against the rest, paired by CalibratedClassifierCV with
    classes_[0], calibrated to probability 1 for that class on every row (accuracy 0.33 against 0.66)."""
    X, y = _small("heart_statlog", 150)
    y = pd.Series(np.array(["a", "b", "c"])[np.arange(len(y)) % 3], index=y.index).where(y == "presence", "d")
    model = make_estimator("svm-c", positive="d").fit(X, y)
    assert len(model.classes_) == 4 and not hasattr(model, "decision_function")
    assert hasattr(make_estimator("svm-c"), "decision_function")  # unfitted: the binary case's method
    calibrated = CalibratedClassifierCV(make_estimator("svm-c", positive="d"), cv=3).fit(X, y)
    assert (calibrated.predict(X) == model.predict(X)).mean() > 0.6


def _duplicated(X: pd.DataFrame, y: pd.Series, weights: np.ndarray) -> tuple[pd.DataFrame, pd.Series]:
    rows = np.repeat(np.arange(len(X)), weights)
    return X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_integer_sample_weights_equal_duplicated_rows(name):
    # The MINLP / MIQP are compared where SCIP proves both optima (40 rows, 1000 nodes): at a node
    # limit the two solves may stop at different incumbents.
    proven = name in ("cl", "clm")
    X, y = _small("heart_statlog", 40 if proven else 90, seed=1)
    weights = np.random.default_rng(2).integers(0, 4, size=len(X))
    params = {**METHODS[name].test_params, **({"solver_options": {"limits/nodes": 1000}} if proven else {})}
    weighted = make_estimator(name, **params).fit(X, y, sample_weight=weights)
    copies = make_estimator(name, **params).fit(*_duplicated(X, y, weights))
    if proven:
        assert weighted.ruleset_.meta["status"] == copies.ruleset_.meta["status"] == "optimal"
    assert (weighted.predict(X) == copies.predict(X)).all()
    assert np.allclose(weighted.predict_proba(X), copies.predict_proba(X))
    # each rule's training counts (to_frame's support and precision) are those of the copies: a row
    # of weight 0 is not counted (it was, by every method but the scorecards)
    counts = [[(r.n_positive, r.n_negative) for r in m.ruleset_.rules] for m in (weighted, copies)]
    assert counts[0] == counts[1]
    frames = [m.ruleset_.to_frame()[["support", "precision"]] for m in (weighted, copies)]
    pd.testing.assert_frame_equal(*frames)
    for key in ("objective", "best_bound"):
        if weighted.ruleset_.meta.get(key) is not None:
            assert weighted.ruleset_.meta[key] == pytest.approx(copies.ruleset_.meta[key], rel=1e-6, abs=1e-6)


def test_the_default_positive_and_negative_classes_count_sample_weights_as_copies():
    """The minority class (and the most frequent other class) counted the rows, not their weights: an
    integer-weighted fit learned another class than the fit on the copies (12 of 201 predictions differed
    on imports-85 in review), and a class of zero-weight rows could be chosen."""
    from optrules.data import binarize_target

    labels = np.array(["a"] * 30 + ["b"] * 20 + ["c"] * 10, dtype=object)
    assert binarize_target(labels).positive == "c"
    weights = np.r_[np.ones(30), np.full(20, 3.0), np.zeros(10)]  # a: 30, b: 60, c: 0 (removed)
    target = binarize_target(labels, None, weights)
    copies = np.repeat(labels, weights.astype(int))
    assert (target.positive, target.negative) == ("a", "b")
    assert (binarize_target(copies).positive, binarize_target(copies).negative) == ("a", "b")
    X, y = _small("heart_statlog", 90, seed=1)
    y = y.reset_index(drop=True)
    y.attrs = {}  # no class attached: the default rule chooses
    weights = np.where(y == y.value_counts().idxmin(), 3, 1)  # the unweighted minority becomes the majority
    weighted = make_estimator("setcover-greedy").fit(X, y, sample_weight=weights)
    copied = make_estimator("setcover-greedy").fit(*_duplicated(X, y, weights))
    assert weighted.ruleset_.positive == copied.ruleset_.positive == y.value_counts().idxmax()
    assert (weighted.predict(X) == copied.predict(X)).all()
    # balanced weights give every class the same total up to rounding: a tie, kept by the rows' minority
    from sklearn.utils.class_weight import compute_sample_weight

    for name in ("wisconsin", "pima"):
        X, y = optrules.load(name)
        y = y.reset_index(drop=True)
        y.attrs = {}
        balanced = compute_sample_weight("balanced", y)
        assert binarize_target(y.to_numpy(), None, balanced).positive == y.value_counts().idxmin()


def test_a_class_attached_to_the_labels_is_matched_by_its_text():
    X, y = _small("heart_statlog", 90, seed=1)
    codes = pd.Series(np.where(y.to_numpy() == "presence", 1, 0))
    codes.attrs = {"positive": "0"}  # as load_csv(positive="0") attaches it, before y.astype(int)
    ruleset = make_estimator("setcover-greedy").fit(X, codes).ruleset_
    assert ruleset.positive == 0 and ruleset.meta["positive_from"] == "dataset"


@pytest.mark.parametrize("bad, message", [
    ([1.0, 2.0], "sample_weight has 2 values"),
    (-1.0, "negative"),
    (np.nan, "NaN"),
    (0.0, "sum"),
    ("heavy", "sample_weight"),
])
def test_bad_sample_weights_are_named(bad, message):
    X, y = _small("tic_tac_toe", 40)
    weights = bad if isinstance(bad, (list, str)) else np.full(len(X), bad)
    with pytest.raises(ValueError, match=message):
        make_estimator("setcover-greedy").fit(X, y, sample_weight=weights)


def test_class_weight_balanced_weighs_the_minority_up():
    X, y = optrules.load("german")
    plain = make_estimator("svm-c", positive="bad").fit(X, y)
    balanced = make_estimator("svm-c", positive="bad", class_weight="balanced").fit(X, y)
    share = lambda model: float((model.predict(X) == "bad").mean())  # noqa: E731
    assert share(balanced) > share(plain)
    dict_weighted = make_estimator("svm-c", positive="bad", class_weight={"bad": 2.33, "good": 1.0}).fit(X, y)
    assert share(dict_weighted) > share(plain)


@pytest.mark.parametrize("name", ["libre", "setcover-greedy", "brcg-beam", "svm-c"])
def test_binary_methods_work_one_vs_rest_on_car_evaluation(name):
    X, y = optrules.load("car_evaluation")
    # LIBRE as published; the linear scorecard needs its classes weighed (car's minorities are 4%)
    params = {"libre": {"random_state": 0}, "svm-c": {"class_weight": "balanced"}}.get(name, METHODS[name].test_params)
    model = OneVsRestClassifier(make_estimator(name, **params))
    with warnings.catch_warnings():
        warnings.simplefilter("error", optrules.PositiveClassWarning)  # OvR passes binary labels only
        model.fit(X, y)
    predicted = model.predict(X)
    report = classification_report(y, predicted, output_dict=True, zero_division=0.0)
    assert set(y.unique()) <= set(report)
    majority = y.value_counts(normalize=True).max()
    assert report["accuracy"] > majority  # better than predicting "unacc" everywhere (macro F1 0.21)
    assert report["macro avg"]["f1-score"] > 0.3
    if name == "libre":  # per class F1 on the training data: every class is learned
        assert min(report[c]["f1-score"] for c in y.unique()) > 0.5


def test_binary_method_on_many_classes_warns_once_naming_its_choice():
    X, y = optrules.load("car_evaluation")
    with pytest.warns(optrules.PositiveClassWarning, match="minority class 'vgood'") as caught:
        make_estimator("setcover-greedy").fit(X, y)
    assert len([w for w in caught if issubclass(w.category, optrules.PositiveClassWarning)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", optrules.PositiveClassWarning)
        make_estimator("setcover-greedy", positive="acc").fit(X, y)  # chosen: no warning
    assert not make_estimator("libre").__sklearn_tags__().classifier_tags.multi_class
    assert make_estimator("prepend").__sklearn_tags__().classifier_tags.multi_class


def test_nested_options_are_settable_and_searchable():
    model = make_estimator("setcover-greedy")
    assert model.get_params()["candidates__max_len"] == 3
    model.set_params(candidates__max_len=2, candidates__max_candidates=40)
    assert model.candidates == {"max_len": 2, "max_candidates": 40}
    assert make_estimator("setcover-greedy", candidates__max_len=1).candidates == {"max_len": 1}
    with pytest.raises(ValueError, match="unknown key"):
        model.set_params(candidates__max_length=2)
    X, y = _small("tic_tac_toe", 200)
    search = GridSearchCV(make_estimator("setcover-greedy"), {"candidates__max_len": [1, 2]}, cv=FOLDS).fit(X, y)
    assert search.best_params_["candidates__max_len"] in (1, 2)
    assert set(search.cv_results_["param_candidates__max_len"]) == {1, 2}


def test_positive_class_is_the_same_for_estimators_fit_and_the_cli(capsys):
    X, y = optrules.load("tic_tac_toe")  # the loader attaches the dataset's positive class
    assert y.attrs["positive"] == "positive" and y.value_counts().idxmin() == "negative"
    model = optrules.SetCoverClassifier(selection="greedy").fit(X, y)
    assert model.ruleset_.positive == "positive" and model.ruleset_.meta["positive_from"] == "dataset"
    assert optrules.fit(X, y, method="setcover-greedy").positive == "positive"
    plain = optrules.SetCoverClassifier(selection="greedy").fit(X, y.to_numpy())  # no attrs: the minority
    assert plain.ruleset_.positive == "negative" and plain.ruleset_.meta["positive_from"] == "minority"
    optrules.cli.main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover-greedy"])
    assert "positive class 'positive'" in capsys.readouterr().out


@pytest.mark.parametrize("labels", [
    [("a", 1), ("b", 2)],                     # tuples
    [1, "a"],                                 # mixed int / str
    [True, False],                            # bools
    [np.int64(3), np.int64(7)],               # numpy scalars
    [2.0, -1.0],                              # whole floats (others are a continuous target)
])
@pytest.mark.parametrize("name", ["setcover-greedy", "prepend", "svm-o"])
def test_labels_round_trip_exactly(labels, name):
    X, y = _small("tic_tac_toe", 150)
    mapping = dict(zip(sorted(y.unique()), labels))
    target = [mapping[v] for v in y]
    model = make_estimator(name).fit(X, target)
    predicted = model.predict(X)
    assert predicted.shape == (len(X),)
    assert all(p in labels for p in predicted.tolist())
    assert {type(p) for p in predicted.tolist()} <= {type(v.item() if isinstance(v, np.generic) else v)
                                                     for v in labels} | {type(v) for v in labels}
    by_ruleset = model.ruleset_.predict(X)
    assert [p == r for p, r in zip(predicted.tolist(), by_ruleset.tolist())] == [True] * len(X)


def test_categorical_values_arriving_as_strings_are_matched():
    X, y = _small("tic_tac_toe", 300)
    codes = X.apply(lambda column: column.map({"x": 1, "o": 2, "b": 3}).astype(object))
    model = make_estimator("libre", n_estimators=3, random_state=0).fit(codes, y)
    as_text = codes.astype(str)  # a re-read CSV
    assert (model.predict(as_text) == model.predict(codes)).all()
    numpy_text = as_text.to_numpy()
    assert (model.predict(pd.DataFrame(numpy_text, columns=X.columns)) == model.predict(codes)).all()


def test_unseen_categories_at_predict_warn():
    X, y = _small("tic_tac_toe", 200)
    model = make_estimator("setcover-greedy").fit(X, y)
    shifted = X.copy()
    shifted["top-left-square"] = "q"
    with pytest.warns(optrules.CategoryWarning, match="top-left-square"):
        model.predict(shifted)


def test_a_refit_on_an_array_drops_the_feature_names():
    X, y = _small("pima", 150)
    model = make_estimator("setcover-greedy").fit(X, y)
    assert list(model.feature_names_in_) == list(X.columns)
    model.fit(X.to_numpy()[:, ::-1], y)
    assert not hasattr(model, "feature_names_in_")
    assert model.schema_.features == tuple(f"x{j}" for j in range(X.shape[1]))


def test_a_model_fitted_on_an_array_takes_a_frame_s_columns_by_position_with_a_warning():
    """scikit-learn's contract: a DataFrame at predict for a model fitted on an array is read by
    position, with a warning (it was an error naming the x0, x1 columns it lacked)."""
    X, y = _small("pima", 150)
    model = make_estimator("setcover-greedy").fit(X.to_numpy(), y)
    renamed = X.set_axis([f"c{j}" for j in range(X.shape[1])], axis=1)
    with pytest.warns(UserWarning, match="X has feature names, but SetCoverClassifier was fitted without feature names"):
        predicted = model.predict(renamed)
    assert (predicted == model.predict(X.to_numpy())).all()


def test_a_model_fitted_on_a_frame_warns_when_it_predicts_on_an_array():
    """scikit-learn's contract, the other way round: an array at predict for a model fitted on a
    DataFrame is read by position, with scikit-learn's warning (it was silent; review)."""
    X, y = _small("pima", 150)
    model = make_estimator("setcover-greedy").fit(X, y)
    with pytest.warns(UserWarning, match="X does not have feature names, but SetCoverClassifier was fitted with"):
        predicted = model.predict(X.to_numpy())
    assert (predicted == model.predict(X)).all()
    unnamed = make_estimator("setcover-greedy").fit(pd.DataFrame(X.to_numpy()), y)  # columns 0, 1, ...: no names
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert (unnamed.predict(X.to_numpy()) == predicted).all()  # scikit-learn does not warn here either


def test_column_names_equal_as_text_are_an_error_at_predict():
    """Features are matched by name as text: a second column whose name reads the same (0 and "0")
    used to replace the feature silently (47% of predictions changed); now it is an error. Other
    extra columns are ignored."""
    rng = np.random.default_rng(8)
    X = pd.DataFrame({0: rng.normal(size=120), 1: rng.normal(size=120)})
    y = np.where(X[0] > 0, "p", "n")
    model = make_estimator("libre", n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="more than one column named '0'"):
        model.predict(X.assign(**{"0": -5.0}))
    with pytest.raises(ValueError, match="more than one column named '0'"):
        model.ruleset_.predict(X.assign(**{"0": -5.0}))
    assert (model.predict(X.assign(**{"2": -5.0})) == model.predict(X)).all()


def test_categories_a_ruleset_cannot_save_warn_at_fit():
    a = np.random.default_rng(10).normal(size=150)
    X = pd.DataFrame({"a_bin": pd.cut(a, 4)})
    y = np.where(a > 0, "p", "n")
    with pytest.warns(optrules.CategoryWarning, match=r"'a_bin': Interval.*astype\(str\)"):
        model = make_estimator("setcover-greedy").fit(X, y)
    with pytest.raises(TypeError, match="cannot serialise"):
        model.ruleset_.to_json()
    text = X.astype({"a_bin": str})
    with warnings.catch_warnings():
        warnings.simplefilter("error", optrules.CategoryWarning)
        saved = make_estimator("setcover-greedy").fit(text, y).ruleset_
    assert (optrules.Ruleset.from_json(saved.to_json()).predict(text) == saved.predict(text)).all()


def test_high_cardinality_categories_are_grouped_with_a_warning():
    rng = np.random.default_rng(0)
    n = 2000
    X = pd.DataFrame({"city": pd.Series([f"c{k}" for k in rng.integers(0, 2000, n)], dtype=object),
                      "size": rng.normal(size=n)})
    X.loc[:199, "city"] = "capital"
    y = np.where(X["city"].eq("capital") | (X["size"] > 1.5), "yes", "no")
    with pytest.warns(optrules.CategoryWarning, match="city"):
        model = make_estimator("setcover-greedy").fit(X, y)
    assert model.ruleset_.meta["grouped_categories"]["city"] > 1000
    assert (model.predict(X) == y).mean() > 0.9
    assert (model.ruleset_.predict(X) == model.predict(X)).all()  # the Ruleset alone needs no grouping


def test_degenerate_fits_warn_with_a_cause_and_the_runner_records_it():
    X, y = optrules.load("haberman")  # numeric only
    with pytest.warns(optrules.DegenerateFitWarning, match="no categorical feature to cluster"):
        model = make_estimator("svm-c").fit(X, y)
    assert model.ruleset_.meta["warnings"]
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300)})
    y = np.where(rng.random(300) < 0.04, "rare", "common")
    with pytest.warns(optrules.DegenerateFitWarning, match=r"has \d% of the rows"):
        make_estimator("setcover-greedy", positive="rare").fit(X, y)


def test_a_degenerate_fit_on_weights_normalised_to_sum_1_names_the_weights():
    """Weights count as rows: normalised to sum to 1 they leave no evidence for any rule (wdbc-like
    data gave no rule), and the warning says so (it gave no cause; review)."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=300)})
    y = np.where(X["a"] > 0.2, "pos", "neg")
    assert len(make_estimator("setcover-greedy", positive="pos").fit(X, y).ruleset_.rules) >= 1
    with pytest.warns(optrules.DegenerateFitWarning, match=r"weights sum to 1 over 300 rows.*scale them to mean 1"):
        model = make_estimator("setcover-greedy", positive="pos").fit(X, y, sample_weight=np.full(300, 1 / 300))
    assert not model.ruleset_.rules
    # rows of weight 0 are left out, not light: weights of 1 beside many zeros are not named
    kept = [*np.flatnonzero(y == "pos")[:2], np.flatnonzero(y == "neg")[0]]  # both classes keep weight
    dropped = np.zeros(300)
    dropped[kept] = 1.0
    with pytest.warns(optrules.DegenerateFitWarning, match="returned no rule") as caught:
        make_estimator("setcover-greedy", positive="pos").fit(X, y, sample_weight=dropped)
    assert not any("scale them to mean 1" in str(w.message) for w in caught)


def test_parameters_are_checked_before_any_data_is_read(capsys):
    for params, message in [({"alpha": "x"}, "'alpha' parameter of SetCoverClassifier must be a finite number"),
                            ({"alpha": [1, 2]}, "'alpha'"), ({"solver": "cplexx"}, "'solver' parameter"),
                            ({"max_rules": 0}, "'max_rules'"), ({"candidates": {"max_len": "3"}}, "candidates__max_len")]:
        with pytest.raises(optrules.InvalidParameterError, match=message):
            make_estimator("setcover-greedy", **params)
    with pytest.raises(optrules.InvalidParameterError, match="'random_state'"):
        make_estimator("libre", random_state="abc")
    status = optrules.cli.main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover", "--param", "alpha=[1,2]"])
    assert status == 2 and "'alpha' parameter of SetCoverClassifier" in capsys.readouterr().err


def test_a_zero_weight_row_is_a_removed_row_for_scorecards_too():
    X, y = _small("heart_statlog", 80, seed=3)
    extra = X.iloc[[0]].copy()
    extra["thal"] = pd.Categorical(["never_seen"])  # a category only the weight-0 row has
    both = pd.concat([X.astype(object), extra.astype(object)], ignore_index=True)
    labels = pd.concat([y, y.iloc[[0]]], ignore_index=True)
    weights = np.r_[np.ones(len(X)), 0.0]
    for name in ("svm-c", "clm-rr"):
        weighted = make_estimator(name, **METHODS[name].test_params).fit(both, labels, sample_weight=weights)
        removed = make_estimator(name, **METHODS[name].test_params).fit(X.astype(object), y)
        assert weighted.ruleset_.meta["objective"] == pytest.approx(removed.ruleset_.meta["objective"], rel=1e-6)
        assert (weighted.predict(X.astype(object)) == removed.predict(X.astype(object))).all()


def test_class_weight_dict_weighs_each_row_by_its_own_label():
    from optrules.estimators.clsvm import class_weights

    labels = np.array(["a", "b", "c", "c"], dtype=object)
    is_positive = labels == "a"
    assert class_weights({"c": 7.0}, labels, is_positive, np.ones(4)).tolist() == [1.0, 1.0, 7.0, 7.0]
    with pytest.raises(optrules.InvalidParameterError, match="not labels of y"):
        class_weights({"A": 5.0}, labels, is_positive, np.ones(4))
    with pytest.raises(optrules.InvalidParameterError, match="not a dict of options"):
        make_estimator("setcover", positive__x=1)


def test_an_exact_fit_does_not_depend_on_the_environment_s_blas_threads():
    """The cut separation's floating-point products decide between near-tied cuts, and their last bits
    depended on the BLAS thread count: a serial run (two OpenBLAS threads) and a parallel one (one per
    worker) returned different optimal rule sets of the same objective, and F1 moved by 0.03 on a fold
    (review, heart_statlog). A fit now runs BLAS in one thread whatever the environment sets."""
    from threadpoolctl import threadpool_limits

    X, y = optrules.load("heart_statlog")
    train = next(iter(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)))[0]
    fitted = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            model = make_estimator("setcover", alpha=0.7, candidates={"max_len": 3, "max_candidates": 300},
                                   solver="highs").fit(X.iloc[train], y.iloc[train])
        assert model.ruleset_.meta["status"] == "optimal"
        fitted.append(model.ruleset_)
    assert str(fitted[0]) == str(fitted[1])
    assert fitted[0].meta["objective"] == fitted[1].meta["objective"]


def test_weights_that_leave_one_class_are_refused_as_one_class_is():
    """A weight of 0 removes its row: weights of 0 on every row of one class gave setcover's fit on the
    other alone, predicting the weightless class on every row with status 'optimal'."""
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]})
    y = np.array(["n", "n", "n", "p", "p", "p", "q", "q", "q"])
    with pytest.raises(ValueError, match=r"sample_weight leaves a single class \('p'\)"):
        make_estimator("setcover").fit(X, y, sample_weight=np.where(y == "p", 1.0, 0.0))
    three = np.where(y == "q", 0.0, 1.0)  # 'n' and 'p' keep weight: a fit, but not of 'q' as positive
    with pytest.raises(ValueError, match="the positive class 'q' has only rows of sample_weight 0"):
        make_estimator("setcover-greedy", positive="q").fit(X, y, sample_weight=three)
    assert make_estimator("setcover-greedy", positive="p").fit(X, y, sample_weight=three).ruleset_.positive == "p"


def test_an_attached_positive_class_that_names_no_label_is_said():
    """pandas keeps y.attrs through a recoding: y01 = (y == 'positive').astype(int) still named
    'positive', which is no label of y01, and the fit learned the minority class without a word."""
    X, y = optrules.load("tic_tac_toe")
    y01 = (y == "positive").astype(int)
    assert y01.attrs.get("positive") == "positive"
    with pytest.warns(optrules.PositiveClassWarning, match=r"y.attrs\['positive'\] = 'positive' names no label"):
        model = make_estimator("setcover-greedy").fit(X, y01)
    assert model.ruleset_.meta["positive_from"] == "minority"


@pytest.mark.parametrize("method", ["svm-c", "setcover-greedy"])
def test_a_degenerate_fit_on_features_that_do_not_vary_names_that_cause(method):
    X = pd.DataFrame({"size": [2.0] * 6, "colour": ["red"] * 6, "gone": [np.nan] * 6})
    y = np.array(["a", "b"] * 3)
    with pytest.warns(optrules.DegenerateFitWarning, match="no feature varies") as caught:
        make_estimator(method, positive="a").fit(X, y)
    assert not any("hinge loss" in str(w.message) for w in caught)  # balanced classes: not a cause


@pytest.mark.parametrize("method", ["svm-o", "brcg", "setcover-greedy"])
def test_finite_values_near_the_float_maximum_are_learned(method):
    """At |x| >= 2**1023 the scorecards' standardisation divided by 2**1024 = inf ("the center of 'a'
    must be a finite number, got nan"), and brcg's quantile thresholds overflowed to inf and NaN
    (no rule on separable data)."""
    X = pd.DataFrame({"a": np.array([-1.7, -1.6, -1.0, 1.0, 1.6, 1.7]) * 1e308})
    y = np.array(["n", "n", "n", "p", "p", "p"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a scorecard's score may overflow to the float maximum
        model = make_estimator(method, positive="p").fit(X, y)
        assert (model.predict(X) == y).all()


def test_a_degenerate_fit_whose_categories_were_all_grouped_names_the_grouping():
    X = pd.DataFrame({"colour": [f"c{i}" for i in range(20)] * 3})
    y = np.array(["y" if i % 2 else "n" for i in range(60)])
    with pytest.warns(optrules.DegenerateFitWarning, match=r"every category of \['colour'\] was grouped into one"):
        make_estimator("setcover-greedy", positive="y", min_frequency=0.1).fit(X, y)
