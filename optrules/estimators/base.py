"""``RulesetClassifier``: what every optrules estimator shares.

A subclass declares its parameters once (``parameters``: name -> :mod:`optrules.estimators.params`
constraint) and implements ``_fit_ruleset(data, rng) -> Ruleset``. The base class

1. checks the parameters (declared constraints, then the subclass's ``_check_params`` for what
   depends on several of them, e.g. a solver and its options) before it reads any data;
2. validates X, y and ``sample_weight`` (:mod:`optrules.data`), groups rare categories
   (``max_categories`` / ``min_frequency``), resolves the positive class of a binary method
   (``positive``, else the one the loader attached to ``y.attrs["positive"]``, else the minority
   class; with three or more classes and no ``positive`` it warns once which class it chose);
3. fits, attaches the probability estimates (:meth:`Ruleset.fit_probabilities`) and the fit's
   meta (method, parameters, seconds, seed, version), and warns (:class:`DegenerateFitWarning`,
   also listed in ``meta["warnings"]``) when the fit predicts one class for every training row or
   returns no rule;
4. predicts the training label objects themselves (tuples, mixed int / str, bools, numpy scalars),
   after matching categorical values that arrive under another type (:mod:`optrules.data`).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from optrules.data import (OTHER, BinaryTarget, Schema, align_categories, binarize_target, class_order,
                           group_categories, matching_label, numeric_column, validate_features, validate_target)
from optrules.estimators.params import (Columns, Constraint, Either, Integer, OneOf, Options, Real, check_parameters,
                                        check_value)
from optrules.exceptions import CategoryWarning, DegenerateFitWarning, InvalidParameterError, PositiveClassWarning
from optrules.models.set_cover import AUTO_MODELLER, MODELLERS, resolve_modeller
from optrules.ruleset import Ruleset, column_positions, serialisable
from optrules.solvers import ProblemClass, check_solver_options
from optrules.threads import one_blas_thread
from optrules.version import package_version
from optrules.weights import validate_sample_weight

__all__ = ["RulesetClassifier", "TrainingData", "check_exact_options", "COMMON_PARAMETERS"]


#: Parameters every estimator has: how a numpy X marks its categorical columns, and how rare
#: categories are grouped (as scikit-learn's OneHotEncoder: at most ``max_categories`` per feature,
#: the most frequent kept; categories seen fewer than ``min_frequency`` times, or that share of the
#: rows when a float, grouped too). The group is "any other category", unseen values included.
COMMON_PARAMETERS: dict[str, Constraint] = {
    "categorical": Columns(),
    "max_categories": Integer(2, none=True),
    "min_frequency": Either((Integer(1, none=True), Real(0.0, 1.0, open_low=True))),
}

#: A degenerate fit whose sample weights average below this per row of positive weight names them as a cause.
LIGHT_WEIGHTS = 0.1
#: The degenerate-fit cause when every feature is constant (a missing value counting as a value).
NOTHING_VARIES = ("no feature varies over the rows (each is constant, or missing on every row): there is nothing "
                  "to tell the classes apart by")


@dataclass(frozen=True)
class TrainingData:
    """The validated training set a method fits on.

    ``frame``: object (categorical) and float (numeric) columns, rare categories grouped;
    ``labels``: the labels as a 1-d object array; ``weights``: one non-negative float per row (ones
    without ``sample_weight``); ``positive``: the resolved positive class (None for multi-class methods).
    """

    frame: pd.DataFrame
    schema: Schema
    labels: np.ndarray
    weights: np.ndarray
    positive: Any

    def target(self) -> BinaryTarget:
        return binarize_target(self.labels, self.positive, self.weights)

    @property
    def weighted(self) -> bool:
        return bool((self.weights != 1.0).any())


def _nothing_varies(data: TrainingData) -> str | None:
    """The degenerate-fit cause when no feature varies over the rows of positive weight (a missing value
    counting as a value: "x is missing" is a condition), naming a grouping of categories that made it so."""
    kept = data.frame[data.weights > 0]
    if any(kept[f].nunique(dropna=False) > 1 for f in kept.columns):
        return None
    grouped = [f for f in data.schema.categorical_features if kept[f].isin([OTHER]).any()]
    if grouped:
        return (f"{NOTHING_VARIES}; every category of {grouped} was grouped into one (max_categories, "
                f"min_frequency): keep more categories")
    return NOTHING_VARIES


def _check_weighted_classes(labels: np.ndarray, weights: np.ndarray) -> None:
    """Refuse weights that leave one class: a weight of 0 removes its row, and removing rows down to a
    single class is refused (``validate_target``)."""
    weighted = class_order(labels[weights > 0])
    if len(weighted) < 2:
        raise ValueError(f"sample_weight leaves a single class ({weighted[0]!r}) with positive weight (a weight "
                         f"of 0 removes its row); at least two classes need rows of positive weight")


def _check_weighted_positive(positive: Any, labels: np.ndarray, weights: np.ndarray) -> None:
    """Refuse a positive class (a label of ``labels``; any other value is refused later, naming the
    labels) whose rows all weigh 0: there is no positive row to learn from."""
    named = None if positive is None else matching_label(positive, class_order(labels))
    if named is not None and not any(w > 0 for w, c in zip(weights, labels.tolist()) if c == named):
        raise ValueError(f"the positive class {named!r} has only rows of sample_weight 0 (a weight of 0 removes "
                         f"its row): there is no positive row to learn from")


def _check_array_kind(X: Any) -> None:
    if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
        raise TypeError("sparse input is not supported: pass a dense array or a DataFrame")
    if isinstance(X, pd.DataFrame):
        complex_columns = [str(c) for c, dtype in zip(X.columns, X.dtypes) if pd.api.types.is_complex_dtype(dtype)]
        if complex_columns:
            raise ValueError(f"Complex data not supported: column(s) {complex_columns} are complex-valued")
    elif np.iscomplexobj(np.asarray(X)):
        raise ValueError("Complex data not supported")


def _label_array(classes: tuple[Any, ...]) -> np.ndarray:
    """The classes as scikit-learn's ``classes_``: a typed array when the labels share one scalar
    type, else a 1-d object array holding the label objects themselves (tuples, mixed types)."""
    kinds = {type(c) for c in classes}
    if len(kinds) == 1 and kinds <= {int, float, str, bool}:
        return np.array(classes)
    out = np.empty(len(classes), dtype=object)
    for k, c in enumerate(classes):  # one by one: np.array would read tuple labels as rows
        out[k] = c
    return out


class RulesetClassifier(ClassifierMixin, BaseEstimator):
    """Base of every optrules estimator (not used directly)."""

    method: ClassVar[str] = ""
    binary: ClassVar[bool] = True
    #: name -> constraint of every ``__init__`` parameter (checked at fit, by the runner and the CLI)
    parameters: ClassVar[Mapping[str, Constraint]] = COMMON_PARAMETERS

    def __init__(self, categorical: list | None = None, max_categories: int | None = 100,
                 min_frequency: int | float | None = None) -> None:
        self.categorical = categorical
        self.max_categories = max_categories
        self.min_frequency = min_frequency

    # -- scikit-learn's tags: missing values are data; binary methods are positive-vs-rest.
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.classifier_tags.multi_class = not self.binary
        return tags

    # ------------------------------------------------------------------ parameters
    def check_parameters(self) -> None:
        """Check every parameter before any work; the error names the parameter (also called by the
        experiment runner's config validation and the CLI)."""
        check_parameters(type(self).__name__, self.parameters, self.get_params(deep=False))
        self._check_params()

    def _check_params(self) -> None:
        """Checks that involve several parameters (a solver and its options, ...); none by default."""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        params = super().get_params(deep=False)
        if deep:
            for name, value in list(params.items()):
                constraint = self.parameters.get(name)
                if isinstance(constraint, Options) and (value is None or isinstance(value, Mapping)):
                    merged = {**constraint.defaults, **(value or {})}
                    params.update({f"{name}__{key}": entry for key, entry in merged.items()})
        return params

    def set_params(self, **params: Any) -> RulesetClassifier:
        """Set parameters; ``option__key=value`` sets one key of a dict parameter (``candidates__max_len=2``,
        ``solver_options__time_limit=10``), so grid searches can vary it."""
        nested: dict[str, dict[str, Any]] = {}
        flat = {}
        for key, value in params.items():
            name, sep, option = key.partition("__")
            if sep and isinstance(self.parameters.get(name), Options):
                nested.setdefault(name, {})[option] = value
            elif sep and name in self.parameters:
                raise InvalidParameterError(f"{key!r}: the {name!r} parameter of {type(self).__name__} is not a "
                                            "dict of options, so it has no keys to set")
            else:
                flat[key] = value
        super().set_params(**flat)
        for name, options in nested.items():
            constraint = self.parameters[name]
            if constraint.keys is not None:
                unknown = sorted(set(options) - set(constraint.keys))
                if unknown:
                    raise InvalidParameterError(f"unknown key(s) {unknown} for {type(self).__name__}'s {name!r}; "
                                                f"known keys: {sorted(constraint.keys)}")
            setattr(self, name, {**(getattr(self, name) or {}), **options})
        return self

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> RulesetClassifier:
        """Learn the model from X (DataFrame or 2-d array; missing values allowed) and labels y;
        ``sample_weight``: one non-negative weight per row (an integer weight acts as that many copies)."""
        self.check_parameters()
        _check_array_kind(X)
        started = time.perf_counter()
        frame, schema = validate_features(X, categorical=self.categorical)
        labels = validate_target(y, len(frame))
        weights = validate_sample_weight(sample_weight, len(frame), capped=True)
        _check_weighted_classes(labels, weights)
        # the training categories before grouping: a grouped value at predict is one seen in training
        categories = {f: tuple(class_order([v for v in frame[f].unique() if v is not None]))
                      for f in schema.categorical_features}
        _warn_unsaveable(categories)
        frame, groups = group_categories(frame, schema, weights, self.max_categories, self.min_frequency)
        positive, positive_from = self._resolve_positive(y, labels, weights)
        _check_weighted_positive(positive, labels, weights)
        rng = np.random.default_rng(getattr(self, "random_state", None))
        data = TrainingData(frame, schema, labels, weights, positive)
        with one_blas_thread():  # results that do not depend on the environment's thread settings
            ruleset = groups.expand(self._fit_ruleset(data, rng))
        # the training coverage once, for the probabilities and the degenerate-fit check
        fired = ruleset.covers(frame) if ruleset.kind != "score" else None
        ruleset = ruleset.fit_probabilities(frame, labels, weights, fired=fired)
        self.classes_ = _label_array(ruleset.classes)
        self.n_features_in_ = len(schema.features)
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.array(schema.features, dtype=object)
            # scikit-learn counts a frame's columns as feature names when all are strings (not 0, 1, ...)
            self._names_are_text = all(isinstance(name, str) for name in X.columns)
        elif hasattr(self, "feature_names_in_"):  # a refit on an array has no names (scikit-learn's contract)
            del self.feature_names_in_
        self.schema_ = schema
        self.categories_ = categories
        meta = dict(ruleset.meta)
        if positive_from is not None:
            meta["positive_from"] = positive_from
        if groups:
            meta["grouped_categories"] = groups.summary()
        ruleset = ruleset.with_meta(
            method=self.method,
            params=_plain_params(self.get_params(deep=False)),
            fit_seconds=time.perf_counter() - started,
            random_state=_plain(getattr(self, "random_state", None)),
            version=package_version(),
            **meta,
        )
        self.ruleset_ = ruleset.with_meta(warnings=self._degenerate(data, ruleset, fired))
        return self

    def _resolve_positive(self, y: Any, labels: np.ndarray, weights: np.ndarray) -> tuple[Any, str | None]:
        """The positive class of a binary method and where it came from."""
        if not self.binary:
            return None, None
        classes = class_order(labels)
        if getattr(self, "positive", None) is not None:
            return self.positive, "parameter"
        attached = getattr(y, "attrs", {}).get("positive") if isinstance(y, pd.Series) else None
        named = None if attached is None else matching_label(attached, classes)  # "1" names the label 1
        if named is not None:
            return named, "dataset"
        chosen = binarize_target(labels, None, weights).positive
        if attached is not None:  # pandas keeps attrs through a recoding such as (y == "yes").astype(int)
            warnings.warn(f"y.attrs['positive'] = {attached!r} names no label of y (the classes are "
                          f"{list(classes)}): it is ignored and the minority class {chosen!r} is learned; pass "
                          f"positive=... to choose", PositiveClassWarning, stacklevel=3)
        if len(classes) > 2:
            warnings.warn(f"{type(self).__name__} is binary and y has {len(classes)} classes: it learns the "
                          f"minority class {chosen!r} against the rest, and predicts every other class as one "
                          f"negative class; pass positive=... to choose, or wrap it in "
                          "sklearn.multiclass.OneVsRestClassifier", PositiveClassWarning, stacklevel=3)
        return chosen, "minority"

    def _fit_ruleset(self, data: TrainingData, rng: np.random.Generator) -> Ruleset:
        raise TypeError(f"{type(self).__name__} is abstract: use one of the method estimators")

    def _degenerate(self, data: TrainingData, ruleset: Ruleset, fired: np.ndarray | None) -> list[str]:
        """Warnings for a fit that predicts one class everywhere or has no rule, naming likely causes
        (``fired``: the training rows' ``covers``, None for a scorecard)."""
        messages = []
        predictions = ruleset.predict(data.frame) if fired is None else ruleset.predict_fired(fired)
        predicted = set(predictions.tolist())
        if ruleset.kind != "score" and not ruleset.rules:
            messages.append(f"{type(self).__name__} returned no rule: every row is predicted {ruleset.default!r}")
        elif len(predicted) == 1:
            messages.append(f"{type(self).__name__} predicts {next(iter(predicted))!r} for every training row")
        if messages:
            fixed = _nothing_varies(data)  # then no other cause is worth naming
            causes = [fixed] if fixed else self._degenerate_causes(data)
            text = messages[0] + ("; likely cause: " + "; ".join(causes) if causes else "")
            warnings.warn(text, DegenerateFitWarning, stacklevel=3)
            return [text]
        return []

    def _degenerate_causes(self, data: TrainingData) -> list[str]:
        """The likely causes of a degenerate fit on data some feature of which varies."""
        causes = []
        if self.binary:
            target = data.target()
            share = float(data.weights[target.is_positive].sum() / data.weights.sum())
            if share < 0.1:
                causes.append(f"the positive class {target.positive!r} has {100 * share:.0f}% of the rows: "
                              "weigh it up (alpha, class_weight or sample_weight)")
        total, rows = float(data.weights.sum()), int(np.count_nonzero(data.weights))  # rows of weight 0 are left out
        if total < LIGHT_WEIGHTS * rows:
            causes.append(f"the sample weights sum to {total:.3g} over {rows} rows, and weights count as rows "
                          "(ChiMerge's threshold, the Laplace +1, supports and rule costs are in rows): "
                          "scale them to mean 1")
        return causes

    # ------------------------------------------------------------------ predict
    def _check_predict_input(self, X: Any) -> Any:
        check_is_fitted(self, "ruleset_")
        _check_array_kind(X)
        if isinstance(X, pd.DataFrame) and not hasattr(self, "feature_names_in_"):
            # fitted on an array: its columns were named by position (x0, x1, ...), and so are X's
            warnings.warn(f"X has feature names, but {type(self).__name__} was fitted without feature names; "
                          "its columns are taken by position", UserWarning, stacklevel=3)
            X = X.to_numpy(dtype=object)
        elif not isinstance(X, pd.DataFrame) and _named_features(self):
            warnings.warn(f"X does not have feature names, but {type(self).__name__} was fitted with feature "
                          "names; its columns are taken by position", UserWarning, stacklevel=3)
        if isinstance(X, pd.DataFrame):
            positions = column_positions(X, self.schema_.features)
            missing = [f for f in self.schema_.features if f not in positions]
            if missing:
                raise ValueError(f"X is missing feature column(s) {missing} seen in training")
        else:
            X = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
            if X.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got shape {X.shape}. Reshape your data "
                                 "with X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one sample.")
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                                 f"{self.n_features_in_} features as input.")
            X = pd.DataFrame(X, columns=list(self.schema_.features))
            positions = dict(zip(self.schema_.features, range(X.shape[1])))
        for feature in self.schema_.numeric_features:  # the checks of fit, whether the rules use the feature or not
            numeric_column(feature, X.iloc[:, positions[feature]], at_predict=True)
        return align_categories(X, self.schema_, self.categories_)

    def _as_labels(self, predictions: np.ndarray) -> np.ndarray:
        """Predictions as the training label objects (by position in the classes, never by conversion)."""
        position = {c: k for k, c in enumerate(self.ruleset_.classes)}
        return self.classes_[np.array([position[p] for p in predictions.tolist()], dtype=np.intp)]

    def predict(self, X: Any) -> np.ndarray:
        """The predicted class of every row."""
        X = self._check_predict_input(X)
        return self._as_labels(self.ruleset_.predict(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities (columns in ``classes_`` order): the Laplace-smoothed training class
        counts of the rule that decides (rule sets, decision lists), or the calibrated score (scorecards);
        see :meth:`Ruleset.predict_proba`."""
        X = self._check_predict_input(X)
        return self.ruleset_.predict_proba(X)

    def predict_log_proba(self, X: Any) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


def _named_features(model: RulesetClassifier) -> bool:
    """Whether ``model`` was fitted with feature names as scikit-learn counts them: a frame's column
    names, all of them strings (``pd.DataFrame(array)``'s 0, 1, ... are not)."""
    return hasattr(model, "feature_names_in_") and getattr(model, "_names_are_text", True)


def _warn_unsaveable(categories: Mapping[str, tuple[Any, ...]]) -> None:
    """A CategoryWarning naming the features whose categories a Ruleset cannot write to JSON
    (``pd.cut`` intervals, timestamps, decimals, bytes): the model predicts with them, but
    ``Ruleset.to_json`` would fail after the fit."""
    kinds = {f: sorted({type(v).__name__ for v in values if not serialisable(v)}) for f, values in categories.items()}
    kinds = {f: k for f, k in kinds.items() if k}
    if kinds:
        named = "; ".join(f"{f!r}: {', '.join(k)}" for f, k in kinds.items())
        warnings.warn(f"categories of type(s) that Ruleset.to_json cannot write ({named}); the model predicts with "
                      "them but cannot be saved: convert those columns to text (X[column].astype(str)) to save it",
                      CategoryWarning, stacklevel=3)


def _plain(value: Any) -> Any:
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return repr(value)


def _plain_params(params: dict[str, Any]) -> dict[str, Any]:
    plain: dict[str, Any] = {}
    for key, value in params.items():
        plain[key] = {k: _plain(v) for k, v in value.items()} if isinstance(value, dict) else _plain(value)
    return plain


def check_exact_options(solver: str, solver_options: dict | None, modeller: str, problem_class: ProblemClass,
                        installed: bool = True) -> None:
    """Check an exact method's solver, modeller and solver options before any work (errors name them);
    ``installed=False``: all but the solver's installation (a selection that will not solve)."""
    check_value("the exact selection", "modeller", OneOf((AUTO_MODELLER, *MODELLERS)), modeller)
    check_solver_options(solver, solver_options, problem_class, resolve_modeller(modeller, solver), installed)
