"""Nested hyper-parameter selection: the ``tune`` step of a method in an experiment.

A method with a ``tune`` table is tuned anew on every outer training fold, from that fold's data only::

    [[methods]]
    name = "libre"
    params = { conflicts = "majority", max_features = 5 }
    [methods.tune]
    grid = { n_estimators = [5, 20, 50], heuristic = ["H1", "H2"], alpha = [0.5, 0.7, 0.9] }
    inner_folds = 5          # stratified k-fold on the outer training fold (default 5)
    inner_repeats = 1        # repeated k-fold: repeat r shuffles with seed + r (default 1)
    metric = "f1"            # or "accuracy", "balanced_accuracy" (positive class vs the rest)
    select = "one-se"        # or "best", or a number: a fixed tolerance on the inner score
    pooling = "mean"         # or "pooled": the metric of the confusion counts summed over the splits
    prefix = "max_rules"     # optional: score every greedy prefix of a fit as the model max_rules = k
    max_prefix = 3           # optional: k <= 3
    min_prefix = 3           # optional: k >= 3 (with max_prefix = 3: exactly the model max_rules = 3)
    prefer = ["max_rules", "-score"]   # order among the near-ties, then grid order, then smaller k

Semantics, for one outer fold:

1. Every *configuration* (the grid's Cartesian product, in grid order: the first parameter varies
   slowest) is fitted on each inner training split and scored on its validation split. The inner
   splits are ``StratifiedKFold(inner_folds, shuffle=True, random_state=protocol seed + r)`` of the
   outer training fold, stratified on its labels, for r = 0 .. inner_repeats - 1. Inner fits get the outer fit's parameters with the
   configuration on top; so a randomised method's ``random_state`` is the outer fold's
   (``Protocol.method_seed(fold)``) unless ``params`` sets one.
2. With ``prefix``, the method must declare that its rules come in greedy order so that the model
   ``prefix=k`` predicts positive iff one of the first ``k`` rules of the unlimited fit fires
   (:attr:`optrules.registry.Method.prefix`); each inner fit runs with ``prefix`` unset and scores
   every k from one fit. The *candidates* are then the pairs (configuration, k), k = 1 .. K, K the
   most rules of any inner fit of this outer fold (capped at ``max_prefix``; at least ``min_prefix``,
   k < ``min_prefix`` not being candidates); a fit with fewer rules than k counts as its full rule
   set. k = 0 (no rule) is not a model. ``min_prefix = max_prefix = m`` scores the single model
   ``max_rules = m`` (at most m rules, fewer where the greedy stops earlier) from the shared fits. Without ``prefix`` the
   candidates are the configurations.
3. The inner score of each candidate (``pooling``): "mean", the mean of its scores on the validation
   splits; or "pooled", the metric of its confusion counts summed over the validation splits
   (Forman and Scholz 2010 show that on small folds with few positives the mean of per-fold F1 is
   biased low and noisy, and recommend pooled counts). ``best`` is the highest score (the first in
   grid order, then smallest k, among equal ones). Its SE: with "mean", the sample standard
   deviation of the best's split scores over sqrt(inner_folds x inner_repeats); with "pooled", the
   jackknife standard error over the splits (the pooled score with one split's counts left out,
   sqrt((n - 1) / n x sum of squared deviations)). Every validation split is counted, as the usual
   one-SE rule on repeated cross-validation does; the splits of different repeats are not
   independent. The near-ties are the candidates whose score is at least best - margin
   (``select``: "one-se": margin SE, the one-standard-error rule; "best": 0; a number: that margin),
   with 1e-12 of slack for rounding. The chosen candidate is the first near-tie in ``prefer`` order:
   each key a grid parameter, the ``prefix`` parameter (k) or ``score`` (the inner score),
   ascending or, with a leading "-", descending; then grid order, then the smaller k.
4. The outer fit uses the chosen configuration (and ``prefix=k``) on the whole outer training fold
   and is scored on the outer test fold like any other fit.

The rows of a tuned method record the choice in columns ``tune.<parameter>`` (each grid parameter,
and the prefix parameter), ``tune.score`` (the chosen candidate's inner score), ``tune.best``
(the best score), ``tune.se`` (the best's SE), ``tune.ties`` (the candidates among the near-ties that
the ``prefer`` keys do not separate from the chosen one, itself included: those decided by grid
order, then the smaller k) and ``tune.failed`` (configurations left out because an inner fit raised,
with the method's ``on_error = "record"``; with "raise" such a fit stops the run).

Inner fits that two tuned methods share (same method, parameters and data, e.g. the same grid scored
with and without ``max_prefix``) are fitted once.
"""

from __future__ import annotations

import itertools
import json
import math
import numbers
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from optrules.estimators import RulesetClassifier
from optrules.exceptions import FitError
from optrules.registry import METHODS, get_method, make_estimator, unknown_parameters

if TYPE_CHECKING:  # run.py imports this module
    from optrules.experiments.run import Task

__all__ = ["METRICS", "POOLINGS", "SELECT_RULES", "TUNE_PREFIX", "Choice", "InnerTask", "TuneSpec", "choose",
           "confusion_counts", "inner_scores", "inner_splits", "metric_of_counts", "parse_tune", "stack_scores",
           "tune_tasks"]

#: Inner scores a tune step can maximise, all of the positive class against the rest.
METRICS = ("f1", "accuracy", "balanced_accuracy")
#: Named ``select`` rules; a number is a fixed tolerance.
SELECT_RULES = ("one-se", "best")
#: How a candidate's validation splits make its inner score: the mean of their scores, or the score
#: of their pooled confusion counts.
POOLINGS = ("mean", "pooled")
#: Prefix of the result-table columns recording a tuned method's choice.
TUNE_PREFIX = "tune."
#: The ``prefer`` key naming the inner score.
SCORE_KEY = "score"
_SLACK = 1e-12
_KEYS = {"grid", "inner_folds", "inner_repeats", "metric", "select", "prefix", "max_prefix", "min_prefix",
         "prefer", "pooling"}


@dataclass(frozen=True)
class TuneSpec:
    """A method's tune step (see the module docstring); ``grid`` keeps its parameters' order."""

    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    inner_folds: int = 5
    metric: str = "f1"
    select: str | float = "one-se"
    prefix: str | None = None
    max_prefix: int | None = None
    prefer: tuple[str, ...] = ()
    inner_repeats: int = 1
    min_prefix: int | None = None
    pooling: str = "mean"

    @property
    def parameters(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.grid)

    def configurations(self) -> list[dict[str, Any]]:
        """The grid's configurations in grid order (the first parameter varies slowest)."""
        names = self.parameters
        return [dict(zip(names, values)) for values in itertools.product(*(v for _, v in self.grid))]

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"grid": {name: list(values) for name, values in self.grid},
                                 "inner_folds": self.inner_folds, "metric": self.metric, "select": self.select}
        if self.prefix is not None:
            entry["prefix"] = self.prefix
        if self.max_prefix is not None:
            entry["max_prefix"] = self.max_prefix
        if self.min_prefix is not None:
            entry["min_prefix"] = self.min_prefix
        if self.prefer:
            entry["prefer"] = list(self.prefer)
        if self.inner_repeats != 1:
            entry["inner_repeats"] = self.inner_repeats
        if self.pooling != "mean":
            entry["pooling"] = self.pooling
        return entry


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def parse_tune(raw: Any, method: str, params: Mapping[str, Any]) -> TuneSpec:
    """Validate the ``tune`` table of method ``method`` whose fixed parameters are ``params``.

    Raises ValueError with a message naming the problem (the configuration reader adds the entry).
    """
    if not isinstance(raw, Mapping):
        raise ValueError(f"tune must be a table ([methods.tune] in TOML), got {raw!r}")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise ValueError(f"unknown key(s) {unknown} in tune; known keys: {sorted(_KEYS)}")
    grid = _grid(raw.get("grid"), method, params)
    inner_folds = raw.get("inner_folds", 5)
    if not _is_int(inner_folds) or inner_folds < 2:
        raise ValueError(f"tune: inner_folds must be an integer >= 2, got {inner_folds!r}")
    inner_repeats = raw.get("inner_repeats", 1)
    if not _is_int(inner_repeats) or inner_repeats < 1:
        raise ValueError(f"tune: inner_repeats must be an integer >= 1, got {inner_repeats!r}")
    metric = raw.get("metric", "f1")
    if metric not in METRICS:
        raise ValueError(f"tune: unknown metric {metric!r}; use one of {list(METRICS)}")
    select = raw.get("select", "one-se")
    numeric = isinstance(select, numbers.Real) and not isinstance(select, bool)
    if not (select in SELECT_RULES or (numeric and math.isfinite(select) and select >= 0)):
        raise ValueError(f"tune: select must be 'one-se', 'best' or a tolerance >= 0, got {select!r}")
    pooling = raw.get("pooling", "mean")
    if pooling not in POOLINGS:
        raise ValueError(f"tune: pooling must be one of {list(POOLINGS)}, got {pooling!r}")
    prefix = _prefix(raw.get("prefix"), method, params, grid)
    bounds = {}
    for key in ("max_prefix", "min_prefix"):
        value = raw.get(key)
        if value is not None:
            if prefix is None:
                raise ValueError(f"tune: {key} needs prefix (the parameter the prefixes stand for)")
            if not _is_int(value) or value < 1:
                raise ValueError(f"tune: {key} must be an integer >= 1, got {value!r}")
            value = int(value)
        bounds[key] = value
    if None not in bounds.values() and bounds["min_prefix"] > bounds["max_prefix"]:
        raise ValueError(f"tune: min_prefix {bounds['min_prefix']} exceeds max_prefix {bounds['max_prefix']}")
    prefer = _prefer(raw.get("prefer", []), grid, prefix)
    return TuneSpec(grid, int(inner_folds), metric, float(select) if numeric else select, prefix,
                    bounds["max_prefix"], prefer, int(inner_repeats), bounds["min_prefix"], pooling)


def _grid(raw: Any, method: str, params: Mapping[str, Any]) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    if not isinstance(raw, Mapping) or not raw:
        raise ValueError("tune: grid must be a non-empty table of parameter = [values], e.g. "
                         "grid = { alpha = [0.5, 0.9] }")
    for name, values in raw.items():
        if not isinstance(values, list) or not values:
            raise ValueError(f"tune: grid {name} must be a non-empty list of values, got {values!r}")
    unknown = unknown_parameters(method, raw)
    if unknown:
        raise ValueError(f"tune: unknown parameter(s) {unknown} in the grid of method {method!r}; "
                         f"valid: {sorted(get_method(method).estimator().get_params(deep=True))}")
    twice = sorted(set(raw) & set(params))
    if twice:
        raise ValueError(f"tune: {twice} given in params and in the grid; keep one")
    fixed = get_method(method).fixed
    clash = sorted(set(raw) & set(fixed))
    if clash:
        raise ValueError(f"tune: method {method!r} fixes {clash}; they cannot be tuned")
    for name, values in raw.items():  # every grid value checked now, not in every fold
        for value in values:
            try:
                make_estimator(method, **{**params, name: value})
            except ValueError as error:
                raise ValueError(f"tune: grid {name} = {value!r}: {error}") from None
    return tuple((str(name), tuple(values)) for name, values in raw.items())


def _prefix(prefix: Any, method: str, params: Mapping[str, Any],
            grid: tuple[tuple[str, tuple[Any, ...]], ...]) -> str | None:
    if prefix is None:
        return None
    entry = get_method(method)
    if prefix != entry.prefix:
        capable = sorted(name for name, m in METHODS.items() if m.prefix is not None)
        raise ValueError(f"tune: method {method!r} cannot score greedy prefixes of {prefix!r} (its "
                         f"prefix parameter: {entry.prefix}); methods that can: {capable}")
    if prefix in params or prefix in dict(grid):
        raise ValueError(f"tune: {prefix} is chosen by prefix scoring; do not set it in params or the grid")
    defaults = entry.estimator().get_params()
    for name, needed in entry.prefix_requires.items():
        values = set(dict(grid).get(name, (params.get(name, defaults[name]),)))
        if values != {needed}:
            raise ValueError(f"tune: prefix scoring of {method!r} needs {name} = {needed!r} (its rules are "
                             f"in greedy order only then), got {sorted(values, key=repr)}")
    return str(prefix)


def _prefer(raw: Any, grid: tuple[tuple[str, tuple[Any, ...]], ...], prefix: str | None) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(k, str) and k for k in raw):
        raise ValueError(f"tune: prefer must be a list of keys, e.g. prefer = [\"max_rules\", \"-score\"]; "
                         f"got {raw!r}")
    values = dict(grid)
    known = [*values, *([prefix] if prefix else []), SCORE_KEY]
    for key in raw:
        name = key.removeprefix("-")
        if name not in known:
            raise ValueError(f"tune: unknown prefer key {key!r}; use a grid parameter, the prefix "
                             f"parameter or 'score', optionally with '-' (descending): {known}")
        if name in values:
            try:
                sorted(values[name], key=_sort_key)
            except TypeError:
                raise ValueError(f"tune: prefer {key!r}: the grid values {list(values[name])!r} cannot be "
                                 "ordered") from None
    return tuple(raw)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _sort_key(value: Any) -> tuple[bool, Any]:
    """Order grid values with None first (e.g. ``max_intervals = [None, 3]``)."""
    return (value is not None, value)


# --------------------------------------------------------------------------------------------
# Inner fits
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InnerTask:
    """One configuration fitted on one inner training split of an outer training fold.

    It carries the unfitted estimator (made where the run started, so workers need no registry
    entry), the outer training fold and the split's positions in it, so that tasks sent to worker
    processes do not each hold a copy of their rows until they run.
    """

    where: str  #: "label on dataset, fold f, inner split s, {configuration}" for error messages
    estimator: RulesetClassifier
    X: pd.DataFrame
    y: pd.Series
    train: np.ndarray
    valid: np.ndarray
    positive: Any
    metric: str
    prefix: bool
    record_errors: bool = False  #: the method's ``on_error = "record"``: a failed fit scores NaN
    counts: bool = False  #: return confusion counts (``pooling = "pooled"``) instead of scores


def confusion_counts(predicted: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """(models x 4) counts TP, FP, FN, TN of every column of ``predicted`` (samples x models,
    True = positive) against ``truth``."""
    predicted = np.asarray(predicted, dtype=bool).reshape(len(truth), -1)
    truth = np.asarray(truth, dtype=bool)[:, None]
    return np.stack([(predicted & truth).sum(axis=0), (predicted & ~truth).sum(axis=0),
                     (~predicted & truth).sum(axis=0), (~predicted & ~truth).sum(axis=0)], axis=-1)


def metric_of_counts(counts: np.ndarray, metric: str) -> np.ndarray:
    """``metric`` from confusion counts whose last axis is (TP, FP, FN, TN).

    F1 is ``2 TP / (2 TP + FP + FN)`` (0 when that is 0/0); balanced accuracy is the mean of the true
    positive and true negative rates (a class absent from the counts is left out).
    """
    tp, fp, fn, tn = np.moveaxis(np.asarray(counts, dtype=float), -1, 0)
    if metric == "f1":
        denominator = 2 * tp + fp + fn
        return np.where(denominator > 0, 2 * tp / np.maximum(denominator, 1), 0.0)
    if metric == "accuracy":
        return (tp + tn) / (tp + fp + fn + tn)
    positives, negatives = tp + fn, fp + tn
    rates = (np.where(positives > 0, tp / np.maximum(positives, 1), 0.0)
             + np.where(negatives > 0, tn / np.maximum(negatives, 1), 0.0))
    return rates / ((positives > 0).astype(float) + (negatives > 0))


def inner_scores(task: InnerTask) -> np.ndarray:
    """Fit and score one inner task: with prefix scoring, the score of every prefix k = 0 .. K of the
    fitted rules (index k: the first k rules); otherwise a single score, the model's. With
    ``task.counts`` each score is a row of confusion counts instead (:func:`confusion_counts`). A fit
    that raises stops the run with a FitError, or, with ``record_errors``, scores NaN (its
    configuration is then not a candidate, :func:`choose`) and the message goes back in a warning."""
    def scored(predicted: np.ndarray) -> np.ndarray:
        counts = confusion_counts(predicted, truth)
        return counts if task.counts else metric_of_counts(counts, task.metric)

    X_train, y_train = task.X.iloc[task.train], task.y.iloc[task.train]
    X_valid, truth = task.X.iloc[task.valid], task.y.iloc[task.valid].to_numpy() == task.positive
    try:
        estimator = clone(task.estimator).fit(X_train, y_train)
        if not task.prefix:
            return scored(estimator.predict(X_valid) == task.positive)
        ruleset = estimator.ruleset_
        fires = ruleset.covers(X_valid) if ruleset.n_rules else np.zeros((len(X_valid), 0), dtype=bool)
    except Exception as error:
        message = f"{task.where}: {type(error).__name__}: {error}"
        if task.record_errors:
            warnings.warn(f"inner fit failed, its configuration is not a candidate: {message}", stacklevel=2)
            return np.full((1, 4), np.nan) if task.counts else np.array([np.nan])
        raise FitError(message) from error
    prefixes = np.logical_or.accumulate(fires, axis=1)
    prefixes = np.concatenate([np.zeros((len(X_valid), 1), dtype=bool), prefixes], axis=1)
    return scored(prefixes)


# --------------------------------------------------------------------------------------------
# Selection
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """The selected candidate of one outer fold: its configuration, k (None without prefix scoring)
    and the figures recorded in the ``tune.*`` columns."""

    configuration: dict[str, Any]
    k: int | None
    score: float
    best: float
    se: float
    ties: int
    failed: int = 0  #: configurations left out because an inner fit failed (``on_error = "record"``)

    def columns(self, spec: TuneSpec) -> dict[str, Any]:
        row = {TUNE_PREFIX + name: _cell(self.configuration[name]) for name in spec.parameters}
        if spec.prefix is not None:
            row[TUNE_PREFIX + spec.prefix] = self.k
        row.update({TUNE_PREFIX + "score": self.score, TUNE_PREFIX + "best": self.best,
                    TUNE_PREFIX + "se": self.se, TUNE_PREFIX + "ties": self.ties,
                    TUNE_PREFIX + "failed": self.failed})
        return row


def choose(spec: TuneSpec, scores: np.ndarray) -> Choice:
    """Select a candidate from the inner scores (module docstring, step 3).

    ``scores`` is (configurations x inner folds x prefixes): entry [c, s, k] the score on inner split
    s of configuration c cut to its first k rules (k = 0 .. K; a fit with fewer rules repeats its
    last score). Without prefix scoring the third axis has length 1: the model itself. With
    ``spec.pooling == "pooled"`` each entry is the split's confusion counts (TP, FP, FN, TN), a
    fourth axis of length 4. A configuration with a failed inner fit (NaN, ``on_error = "record"``)
    is not a candidate; when every one failed there is nothing to choose from, a ValueError.
    """
    configurations = spec.configurations()
    failed = np.isnan(scores).reshape(len(scores), -1).any(axis=1)
    if failed.all():
        raise ValueError("every configuration of the grid failed in an inner fit")
    if spec.prefix is not None:
        lowest = spec.min_prefix or 1
        if scores.shape[2] <= lowest:  # every fit has fewer rules than min_prefix: each is its whole set
            pad = np.repeat(scores[:, :, -1:], lowest + 1 - scores.shape[2], axis=2)
            scores = np.concatenate([scores, pad], axis=2)
        if spec.max_prefix is not None:
            scores = scores[:, :, :spec.max_prefix + 1]
    if spec.pooling == "pooled":
        with np.errstate(invalid="ignore"):  # a failed configuration's NaN counts; it scores -inf below
            score = metric_of_counts(scores.sum(axis=1), spec.metric)
    else:
        score = scores.mean(axis=1)
    if spec.prefix is not None:
        score[:, :lowest] = -np.inf  # k = 0 (no rule) is not a model; nor is k < min_prefix
    score[failed] = -np.inf
    best = np.unravel_index(np.argmax(score), score.shape)
    se = standard_error(scores[best[0], :, best[1]], spec)
    margin = {"one-se": se, "best": 0.0}.get(spec.select, spec.select)
    near = [(int(c), int(k)) for c, k in np.argwhere(score >= score[best] - float(margin) - _SLACK)]

    def key_of(name: str) -> Callable[[tuple[int, int]], Any]:
        if name == SCORE_KEY:
            return lambda candidate: score[candidate]
        if name == spec.prefix:
            return lambda candidate: candidate[1]
        return lambda candidate: _sort_key(configurations[candidate[0]][name])

    ordered = sorted(near)  # grid order, then smaller k
    for key in reversed(spec.prefer):  # stable sorts: the first key decides, the later ones break ties
        ordered.sort(key=key_of(key.removeprefix("-")), reverse=key.startswith("-"))
    chosen = ordered[0]
    keys = [key_of(key.removeprefix("-")) for key in spec.prefer]
    ties = sum(1 for candidate in ordered if all(k(candidate) == k(chosen) for k in keys))
    c, k = chosen
    return Choice(configurations[c], k if spec.prefix is not None else None, float(score[c, k]),
                  float(score[best]), se, ties, int(failed.sum()))


def standard_error(splits: np.ndarray, spec: TuneSpec) -> float:
    """The standard error of one candidate's inner score from its validation ``splits`` (scores, or
    confusion counts with ``pooling = "pooled"``): the sample standard deviation over sqrt(splits) of
    the mean; the jackknife over splits of the pooled score (each split's counts left out in turn)."""
    n = len(splits)
    if spec.pooling != "pooled":
        return float(splits.std(ddof=1) / np.sqrt(n))
    left_out = metric_of_counts(splits.sum(axis=0) - splits, spec.metric)
    return float(np.sqrt((n - 1) / n * ((left_out - left_out.mean()) ** 2).sum()))


def _cell(value: Any) -> Any:
    """A chosen value as a table cell: numbers, strings, booleans and None as they are, else JSON."""
    if value is None or isinstance(value, (str, bool, numbers.Number)):
        return value
    return json.dumps(value, default=str)


# --------------------------------------------------------------------------------------------
# The two phases inside a run
# --------------------------------------------------------------------------------------------


def inner_splits(y: pd.Series, folds: int, repeats: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The inner (train, validation) positions: repeat r is ``StratifiedKFold(folds, shuffle=True,
    random_state=seed + r)``, so the first repeat is the same with or without repetition."""
    labels = y.to_numpy()
    return [split for r in range(repeats)
            for split in StratifiedKFold(folds, shuffle=True, random_state=seed + r).split(np.zeros((len(y), 1)), labels)]


def tune_tasks(tasks: Sequence[Task], seed: int, fit: Callable[[Iterable[InnerTask]], Iterable[np.ndarray]],
               apply: Callable[[Task, dict[str, Any], dict[str, Any]], Task],
               progress: Callable[[], Any] = lambda: None, planned: Callable[[int], Any] = lambda n: None
               ) -> list[Task]:
    """Resolve every tuned task into the outer fit of its chosen configuration.

    ``fit`` maps inner tasks to their :func:`inner_scores`, in order (the run's joblib or Dask pool);
    ``apply(task, params, columns)`` makes the outer task that fits ``params`` (the method's, the
    chosen configuration and k) and records ``columns`` (the ``tune.*`` cells) in its row.
    ``planned`` is told the number of inner fits before they start and ``progress`` is called once
    per inner fit done (a progress bar). Untuned tasks are returned as they are.
    """
    unique: dict[str, InnerTask] = {}
    plans: list[tuple[int, list[list[str]]]] = []  # (task index, [configuration][split] -> inner task key)
    for index, task in enumerate(tasks):
        spec = task.method.tune
        if spec is None:
            continue
        splits = inner_splits(task.y_train, spec.inner_folds, spec.inner_repeats, seed)
        keys = []
        for configuration in spec.configurations():
            params = {**task.method.params, **configuration}
            if spec.prefix is not None:
                params[spec.prefix] = None
            row = []
            for s, (train, valid) in enumerate(splits):
                record = task.method.execution.on_error == "record"
                key = json.dumps([task.dataset, task.fold, spec.inner_folds, s, task.method.name, spec.metric,
                                  spec.pooling, spec.prefix, record, sorted(params.items())], default=repr)
                if key not in unique:
                    where = f"{task.method.label} on {task.dataset}, fold {task.fold}, inner split {s}, {configuration}"
                    unique[key] = InnerTask(where, make_estimator(task.method.name, **params), task.X_train,
                                            task.y_train, train, valid, task.positive, spec.metric,
                                            spec.prefix is not None, record, spec.pooling == "pooled")
                row.append(key)
            keys.append(row)
        plans.append((index, keys))
    planned(len(unique))
    results: dict[str, np.ndarray] = {}
    for key, scores in zip(unique, fit(unique.values()), strict=True):
        results[key] = np.asarray(scores, dtype=float)
        progress()
    resolved = list(tasks)
    for index, keys in plans:
        task = tasks[index]
        spec = task.method.tune
        assert spec is not None
        try:
            choice = choose(spec, stack_scores([[results[key] for key in row] for row in keys], spec.prefix is not None))
        except ValueError as error:  # every configuration failed: nothing to fit on the outer fold
            raise FitError(f"{task.method.label} on {task.dataset}, fold {task.fold}: {error}") from error
        params = {**task.method.params, **choice.configuration}
        if spec.prefix is not None:
            params[spec.prefix] = choice.k
        resolved[index] = apply(task, params, choice.columns(spec))
    return resolved


def stack_scores(rows: list[list[np.ndarray]], prefix: bool, min_length: int = 2) -> np.ndarray:
    """(configurations x folds x prefixes) from the inner score vectors (x 4 from confusion counts,
    rows of 4); with prefix scoring each is padded with its last score to the longest, at least
    ``min_length`` (default: k = 0 and k = 1; an empty model scores k = 1 as its k = 0)."""
    length = max(min_length, max(len(v) for row in rows for v in row)) if prefix else 1
    stacked = np.empty((len(rows), len(rows[0]), length, *np.shape(rows[0][0])[1:]))
    for c, row in enumerate(rows):
        for s, values in enumerate(row):
            stacked[c, s, :len(values)] = values
            stacked[c, s, len(values):] = values[-1]
    return stacked
