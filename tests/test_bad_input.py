"""Bad input never becomes a silent wrong answer: a fuzz of every registered method (hypothesis,
derandomized) over kinds of bad input, each asserting its error type and that the message names the
problem; label and categorical types round-trip.

``BAD_DATA`` (fit data), ``BAD_PREDICT`` (predict data), ``BAD_RULESET`` (``Ruleset.from_dict``),
``BAD_CONFIG`` (runner configs, CLI) and the parameter violations derived from each method's declared
constraints (``PARAMETER_VIOLATIONS``) are the kinds; ``test_kind_count`` prints how many there are.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from sklearn.exceptions import NotFittedError
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import optrules
import optrules.cli
from optrules.estimators.params import (Columns, Constraint, Either, Integer, Label, OneOf, Options, Real, Seed,
                                        Text, Weights)
from optrules.experiments.config import ConfigError, load_config
from optrules.registry import METHODS, make_estimator

FUZZ = settings(derandomize=True, max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

X_GOOD = pd.DataFrame({"colour": ["red", "blue", "red", "green", "blue", "red", "green", "blue"] * 3,
                       "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0] * 3})
Y_GOOD = np.array(["yes", "no", "yes", "no", "no", "yes", "no", "yes"] * 3, dtype=object)
N = len(X_GOOD)


def _with(**columns: Any) -> pd.DataFrame:
    frame = X_GOOD.copy()
    for name, values in columns.items():
        frame[name] = values
    return frame


# kind -> (X, y, fit keyword arguments, exception type, message pattern)
BAD_DATA: dict[str, tuple[Any, Any, dict, type, str]] = {
    "X with no rows": (X_GOOD.iloc[:0], Y_GOOD[:0], {}, ValueError, "no samples"),
    "X with no columns": (X_GOOD.iloc[:, :0], Y_GOOD, {}, ValueError, "no features"),
    "X 1-d": (np.arange(N, dtype=float), Y_GOOD, {}, ValueError, "2-dimensional"),
    "X 3-d": (np.zeros((N, 2, 2)), Y_GOOD, {}, ValueError, "2-dimensional"),
    "X None": (None, Y_GOOD, {}, ValueError, "2-dimensional"),
    "X a string": ("data.csv", Y_GOOD, {}, ValueError, "2-dimensional"),
    "X infinite value": (_with(size=[math.inf] + [1.0] * (N - 1)), Y_GOOD, {}, ValueError, "infinite"),
    "X minus infinity": (_with(size=[-math.inf] + [1.0] * (N - 1)), Y_GOOD, {}, ValueError, "infinite"),
    "X text in a numeric array": (np.array([["a", 1.0]] * N, dtype=object), Y_GOOD, {}, ValueError,
                                  "non-numeric values"),
    "X complex array": (np.ones((N, 2)) * 1j, Y_GOOD, {}, ValueError, "Complex data"),
    "X complex column": (_with(size=np.ones(N) * (1 + 1j)), Y_GOOD, {}, ValueError, "complex-valued"),
    "X sparse matrix": (scipy.sparse.csr_matrix(np.ones((N, 2))), Y_GOOD, {}, TypeError, "sparse"),
    "X duplicated column names": (pd.concat([X_GOOD, X_GOOD[["size"]]], axis=1), Y_GOOD, {}, ValueError,
                                  "duplicated column names"),
    "X names equal as text": (pd.DataFrame({0: X_GOOD["size"], "0": X_GOOD["size"], "colour": X_GOOD["colour"]}),
                              Y_GOOD, {}, ValueError, "duplicated column names"),
    "X dates": (_with(size=pd.date_range("2024-01-01", periods=N, freq="D")), Y_GOOD, {}, ValueError,
                "'size' holds dates or durations"),
    "X durations": (_with(size=pd.to_timedelta(np.arange(N), unit="D")), Y_GOOD, {}, ValueError,
                    "'size' holds dates or durations"),
    "categorical index out of range": (X_GOOD.to_numpy(), Y_GOOD, {"categorical": [5]}, ValueError,
                                       "out of range"),
    "categorical name not in X": (X_GOOD, Y_GOOD, {"categorical": ["weight"]}, ValueError,
                                  "not a feature of X"),
    "categorical position that is another column's label": (
        pd.DataFrame({1: X_GOOD["size"], 0: X_GOOD["colour"]}), Y_GOOD, {"categorical": [0]}, ValueError,
        "categorical entry 0 is a position, and X also has a column labelled 0 at position 1"),
    "categories that differ only in type": (_with(colour=pd.Series([1, "1", "red"] * 8, dtype=object)), Y_GOOD, {},
                                            ValueError, r"'colour' holds values that differ only in type \(1 and '1'\)"),
    "y None": (X_GOOD, None, {}, ValueError, "requires y"),
    "y too short": (X_GOOD, Y_GOOD[:-1], {}, ValueError, "labels"),
    "y too long": (X_GOOD, np.append(Y_GOOD, "yes"), {}, ValueError, "labels"),
    "y with NaN": (X_GOOD, np.array([np.nan] + list(Y_GOOD[1:]), dtype=object), {}, ValueError, "missing"),
    "y with None": (X_GOOD, np.array([None] + list(Y_GOOD[1:]), dtype=object), {}, ValueError, "missing"),
    "y continuous": (X_GOOD, np.linspace(0.1, 0.9, N), {}, ValueError, "continuous"),
    "y one class": (X_GOOD, np.array(["yes"] * N, dtype=object), {}, ValueError, "single class"),
    "y 2 columns": (X_GOOD, np.stack([Y_GOOD, Y_GOOD], axis=1), {}, ValueError, "1-dimensional"),
    "y DataFrame of 2 columns": (X_GOOD, pd.DataFrame({"a": Y_GOOD, "b": Y_GOOD}), {}, ValueError,
                                 "one column"),
    "one sample": (X_GOOD.iloc[:1], Y_GOOD[:1], {}, ValueError, "1 sample"),
    "sample_weight too short": (X_GOOD, Y_GOOD, {"sample_weight": np.ones(N - 1)}, ValueError,
                                "sample_weight has"),
    "sample_weight negative": (X_GOOD, Y_GOOD, {"sample_weight": -np.ones(N)}, ValueError, "negative"),
    "sample_weight NaN": (X_GOOD, Y_GOOD, {"sample_weight": np.full(N, np.nan)}, ValueError, "NaN"),
    "sample_weight infinite": (X_GOOD, Y_GOOD, {"sample_weight": np.full(N, np.inf)}, ValueError, "infinite"),
    "sample_weight all zero": (X_GOOD, Y_GOOD, {"sample_weight": np.zeros(N)}, ValueError, "sum"),
    "sample_weight text": (X_GOOD, Y_GOOD, {"sample_weight": ["a"] * N}, ValueError, "sample_weight"),
    "sample_weight 2-d": (X_GOOD, Y_GOOD, {"sample_weight": np.ones((N, 2))}, ValueError, "sample_weight"),
    "sample_weight complex": (X_GOOD, Y_GOOD, {"sample_weight": np.ones(N) * 1j}, ValueError, "sample_weight"),
    "positive not a label": (X_GOOD, Y_GOOD, {"positive": "maybe"}, ValueError, "positive class 'maybe'"),
}


def _fit_kwargs(name: str, extra: dict) -> tuple[dict, dict]:
    """Split a kind's keyword arguments into estimator parameters and fit arguments."""
    fit_args = {k: v for k, v in extra.items() if k == "sample_weight"}
    params = {**METHODS[name].test_params, **{k: v for k, v in extra.items() if k != "sample_weight"}}
    return params, fit_args


def _applies(name: str, extra: dict) -> bool:
    return "positive" not in extra or "positive" in METHODS[name].estimator().get_params()


@pytest.mark.parametrize("kind", sorted(BAD_DATA))
@pytest.mark.parametrize("name", sorted(METHODS))
def test_bad_fit_data_is_named(name, kind):
    X, y, extra, error, message = BAD_DATA[kind]
    if not _applies(name, extra):
        pytest.skip("the method has no positive class")
    params, fit_args = _fit_kwargs(name, extra)
    with pytest.raises(error, match=message):
        make_estimator(name, **params).fit(X, y, **fit_args)


# kind -> (predict input from a model fitted on X_GOOD, exception type, message pattern)
BAD_PREDICT: dict[str, tuple[Callable[[], Any], type, str]] = {
    "predict with a missing column": (lambda: X_GOOD[["size"]], ValueError, "missing feature column"),
    "predict with too many array columns": (lambda: np.zeros((3, 5)), ValueError, "X has 5 features"),
    "predict 1-d": (lambda: np.zeros(3), ValueError, "2-dimensional"),
    "predict sparse": (lambda: scipy.sparse.csr_matrix(np.ones((3, 2))), TypeError, "sparse"),
    "predict complex": (lambda: np.ones((3, 2)) * 1j, ValueError, "Complex data"),
    "predict text in a numeric column": (lambda: _with(size=["big"] * N), ValueError, "'size'"),
    "predict complex column": (lambda: _with(size=np.ones(N) * 1j), ValueError, "complex-valued"),
    # fit refuses these; at predict they were read (inf decided a scorecard's row with P = 1; dates
    # became integers in a unit that pandas chooses per column)
    "predict infinite value": (lambda: _with(size=[math.inf] + [1.0] * (N - 1)), ValueError, "'size' contains infinite"),
    "predict dates": (lambda: _with(size=pd.date_range("2024-01-01", periods=N, freq="D")), ValueError,
                      "'size' holds dates or durations"),
    # a repeated name used to crash ('DataFrame' object has no attribute 'dtype')
    "predict a column twice": (lambda: pd.concat([X_GOOD, X_GOOD[["size"]]], axis=1), ValueError,
                               "more than one column named 'size'"),
}


@pytest.mark.parametrize("kind", sorted(BAD_PREDICT))
@pytest.mark.parametrize("name", sorted(METHODS))
def test_bad_predict_input_is_named(name, kind):
    model = make_estimator(name, **METHODS[name].test_params).fit(X_GOOD, Y_GOOD)
    make, error, message = BAD_PREDICT[kind]
    for method in (model.predict, model.predict_proba):
        with pytest.raises(error, match=message):
            method(make())


def test_predict_before_fit_is_named():
    for name in METHODS:
        for method in ("predict", "predict_proba"):
            with pytest.raises(NotFittedError, match="not fitted"):
                getattr(make_estimator(name), method)(X_GOOD)


# ------------------------------------------------------------------ parameters, from the declarations
def _violations(constraint: Constraint) -> st.SearchStrategy:
    """Values that ``constraint`` must refuse."""
    wrong_type = st.sampled_from([[1, 2], {"a": 1}, object()])
    if isinstance(constraint, Integer):
        below = [] if constraint.low is None else [st.integers(max_value=constraint.low - 1)]
        above = [] if constraint.high is None else [st.integers(min_value=constraint.high + 1)]
        not_int = st.sampled_from(["3", 1.5, True, math.nan])
        return st.one_of(not_int, wrong_type, *below, *above)
    if isinstance(constraint, Real):
        below = [] if constraint.low is None else [st.floats(max_value=constraint.low, exclude_max=not constraint.open_low,
                                                             allow_nan=False, allow_infinity=False)]
        above = [] if constraint.high is None else [st.floats(min_value=constraint.high, exclude_min=True,
                                                              allow_nan=False, allow_infinity=False)]
        return st.one_of(st.sampled_from(["x", math.nan, math.inf, True]), wrong_type, *below, *above)
    if isinstance(constraint, OneOf):
        return st.one_of(st.text(min_size=1, max_size=8).filter(lambda t: t not in constraint.values),
                         st.sampled_from([3, 1.5]))
    if isinstance(constraint, Options):
        return st.sampled_from([[1], "x", 3, {1: 2}])
    if isinstance(constraint, Label):
        return st.sampled_from([[1], {"a": 1}, math.nan])
    if isinstance(constraint, Seed):
        return st.one_of(st.sampled_from(["abc", 1.5, [1]]), st.integers(max_value=-1))
    if isinstance(constraint, Columns):
        return st.sampled_from(["abc", 1.5, [1.5], [-1], {"a": 1}])
    if isinstance(constraint, Weights):
        return st.sampled_from(["heavy", {"a": -1.0}, {"a": math.nan}, [1, 2]])
    if isinstance(constraint, Text):
        return st.sampled_from([3, [1]])
    if isinstance(constraint, Either):  # refused by every choice
        return st.sampled_from([[1], {"a": 1}, "nonsense", -5.5]).filter(
            lambda v: not constraint.accepts(v))
    raise AssertionError(f"no violations for {constraint!r}")


#: (constraint type, violation) kinds: each parameter is fuzzed with every violation of its type
PARAMETER_VIOLATIONS = {
    "Integer": ("wrong type", "not an integer", "below range", "above range"),
    "Real": ("wrong type", "NaN / infinite / bool", "below range", "above range"),
    "OneOf": ("unknown option", "a number"),
    "Options": ("not a dict", "non-str keys"),
    "Label": ("unhashable", "NaN"),
    "Seed": ("text", "negative"),
    "Columns": ("a string", "non-integer index", "negative index"),
    "Weights": ("unknown text", "negative or NaN weight"),
    "Text": ("not a string",),
}


@pytest.mark.parametrize("name", sorted(METHODS))
@FUZZ
@given(data=st.data())
def test_every_declared_parameter_refuses_bad_values_by_name(name, data):
    estimator = METHODS[name].estimator
    settable = [p for p in estimator.parameters if p not in METHODS[name].fixed]
    parameter = data.draw(st.sampled_from(settable), label="parameter")
    value = data.draw(_violations(estimator.parameters[parameter]), label="value")
    with pytest.raises(optrules.InvalidParameterError, match=f"'{parameter}'"):
        make_estimator(name, **{parameter: value})
    with pytest.raises(optrules.InvalidParameterError, match=f"'{parameter}'"):  # also at fit
        estimator(**{parameter: value}).fit(X_GOOD, Y_GOOD)


def test_n_jobs_takes_what_joblib_takes():
    with pytest.raises(optrules.InvalidParameterError, match=r"'n_jobs' .* got 0"):
        make_estimator("libre", n_jobs=0)
    for n_jobs in (None, 1, 2, -1, -2):
        assert make_estimator("libre", n_jobs=n_jobs).n_jobs == n_jobs


def test_every_parameter_of_every_method_is_declared():
    for name, method in METHODS.items():
        params = method.estimator().get_params(deep=False)
        assert set(params) == set(method.estimator.parameters), name
        for parameter, default in params.items():  # the defaults themselves pass
            assert method.estimator.parameters[parameter].accepts(default), (name, parameter, default)


# ------------------------------------------------------------------ Ruleset JSON
def _ruleset_dict() -> dict:
    model = make_estimator("setcover-greedy").fit(X_GOOD, Y_GOOD)
    return json.loads(model.ruleset_.to_json())


BAD_RULESET: dict[str, tuple[Callable[[dict], Any], str]] = {
    "ruleset not a mapping": (lambda d: [d], "mapping|object"),
    "ruleset without kind": (lambda d: {k: v for k, v in d.items() if k != "kind"}, "kind"),
    "ruleset unknown kind": (lambda d: {**d, "kind": "tree"}, "kind"),
    "ruleset unknown key": (lambda d: {**d, "colour": 1}, "colour"),
    "ruleset future version": (lambda d: {**d, "format_version": 99}, "99"),
    "ruleset positive outside classes": (lambda d: {**d, "positive": "maybe"}, "positive"),
    "ruleset default outside classes": (lambda d: {**d, "default": "maybe"}, "default"),
    "ruleset NaN intercept": (lambda d: {**d, "kind": "score", "intercept": "nan"}, "intercept"),
    "ruleset rules not a list": (lambda d: {**d, "rules": 3}, "rules"),
    "ruleset bad condition kind": (lambda d: {**d, "rules": [{**d["rules"][0], "conditions": [
        {**d["rules"][0]["conditions"][0], "kind": "foo"}]}]}, "kind"),
    "ruleset duplicated classes": (lambda d: {**d, "classes": d["classes"] * 2}, "classes"),
    "ruleset features not strings": (lambda d: {**d, "features": [1, 2]}, "features"),
}


@pytest.mark.parametrize("kind", sorted(BAD_RULESET))
def test_bad_ruleset_files_are_named(kind):
    change, message = BAD_RULESET[kind]
    with pytest.raises(ValueError, match=message):
        optrules.Ruleset.from_dict(change(_ruleset_dict()))


def test_not_json_is_named():
    with pytest.raises(ValueError, match="JSON"):
        optrules.Ruleset.from_json("{not json")


# ------------------------------------------------------------------ configs and the CLI
BAD_CONFIG: dict[str, tuple[dict, str]] = {
    "config parameter of the wrong type": ({"methods": [{"name": "setcover", "params": {"alpha": "x"}}]},
                                           "'alpha'"),
    "config parameter out of range": ({"methods": [{"name": "libre", "params": {"n_estimators": 0}}]},
                                      "'n_estimators'"),
    "config unknown nested option": ({"methods": [{"name": "setcover",
                                                   "params": {"candidates": {"max_length": 2}}}]}, "max_length"),
    "config bad grid value": ({"methods": [{"name": "setcover-greedy",
                                            "tune": {"grid": {"alpha": [0.5, "x"]}}}]}, "'alpha'"),
    "config bad nested grid value": ({"methods": [{"name": "setcover-greedy",
                                                   "tune": {"grid": {"candidates__max_len": [1, 0]}}}]},
                                     "candidates__max_len"),
}


@pytest.mark.parametrize("kind", sorted(BAD_CONFIG))
def test_bad_configs_are_named_before_any_fit(kind):
    entries, message = BAD_CONFIG[kind]
    config = {"datasets": [{"name": "tic_tac_toe"}], "protocol": {"folds": 2}, **entries}
    with pytest.raises(ConfigError, match=message):
        load_config(config)


@pytest.mark.parametrize("argv, message", [
    (["--param", "alpha=[1,2]"], "'alpha'"),
    (["--param", "max_rules=-3"], "'max_rules'"),
    (["--param", "candidates={\"max_len\": 0}"], "candidates__max_len"),
    (["--solver", "cplexx"], "'solver'"),
    (["--param", "bogus=1"], "bogus"),
])
def test_bad_cli_parameters_are_named(argv, message, capsys):
    assert optrules.cli.main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("optrules: error:") and re.search(message, err)


def test_kind_count():
    parameter_kinds = sum(len(v) for v in PARAMETER_VIOLATIONS.values())
    kinds = len(BAD_DATA) + len(BAD_PREDICT) + len(BAD_RULESET) + 1 + len(BAD_CONFIG) + 5 + parameter_kinds + 1
    print(f"\nbad-input kinds: {len(BAD_DATA)} fit data, {len(BAD_PREDICT) + 1} predict, {len(BAD_RULESET) + 1} "
          f"Ruleset JSON, {len(BAD_CONFIG)} config, 5 CLI, {parameter_kinds} parameter violations: {kinds}")
    assert kinds >= 60


# ------------------------------------------------------------------ round trips
LABELS = st.one_of(
    st.tuples(st.text(min_size=1, max_size=3), st.integers(-5, 5)),
    st.integers(-10**6, 10**6), st.text(min_size=1, max_size=5), st.booleans(),
    st.integers(-1000, 1000).map(float),  # whole floats: others are a continuous target
)


@pytest.mark.parametrize("name", ["setcover-greedy", "libre", "prepend", "svm-o", "brcg-beam"])
@FUZZ
@given(first=LABELS, second=LABELS)
def test_any_two_labels_round_trip(name, first, second):
    assume(first != second)  # equal labels (1 and True, 1 and 1.0) are one class
    y = np.empty(N, dtype=object)
    for i, v in enumerate(Y_GOOD):
        y[i] = first if v == "yes" else second
    model = make_estimator(name, **METHODS[name].test_params).fit(X_GOOD, y)
    predicted = model.predict(X_GOOD)
    assert predicted.shape == (N,)
    for p in predicted.tolist():
        assert any(type(p) is type(v) and p == v for v in (first, second)), (p, first, second)


CATEGORY_TYPES = st.sampled_from(["int", "str", "category", "float"])


@pytest.mark.parametrize("name", ["setcover-greedy", "libre", "append", "svm-c"])
@FUZZ
@given(at_fit=CATEGORY_TYPES, at_predict=CATEGORY_TYPES)
def test_categorical_types_match_at_predict(name, at_fit, at_predict):
    codes = pd.Series([1, 2, 1, 3, 2, 1, 3, 2] * 3)

    def typed(kind: str) -> pd.Series:
        if kind == "int":
            return codes.astype(object)
        if kind == "str":
            return codes.astype(str).astype(object)
        if kind == "float":
            return codes.astype(float).astype(object)
        return codes.astype("category")

    train = pd.DataFrame({"colour": typed(at_fit), "size": X_GOOD["size"]})
    model = make_estimator(name, **METHODS[name].test_params, categorical=["colour"]).fit(train, Y_GOOD)
    test = pd.DataFrame({"colour": typed(at_predict), "size": X_GOOD["size"]})
    assert (model.predict(test) == model.predict(train)).all()
