"""Literals over a feature table: the binarisation of Dash, Günlük & Wei (NeurIPS 2018, Section 5).

Every feature becomes a set of Boolean *literals*, each a :class:`~optrules.ruleset.Condition`:

- a numeric feature gives, for each threshold t, ``x <= t`` and ``x > t``; the thresholds are the
  sample quantiles of the training column at 1/(q+1), ..., q/(q+1) (``n_thresholds`` = q; the
  paper's deciles are q = 9; numpy's default, linear, quantiles), duplicates removed;
- a categorical feature gives ``x == c`` and ``x != c`` for each training category c;
- a feature with missing values in training also gives ``x is missing`` and ``x is not missing``.

A missing value satisfies only ``is missing``: every comparison (``<=``, ``>``, ``==``, ``!=``) is
false on it, so a rule never covers a sample through a value it does not have. The paper does not
say how it treats missing values; this is the package's choice (docs/methods/column_generation.md).

Literals that are constant on the training data (true or false for every sample) are dropped, and
of literals with identical training columns only the first is kept (``x != a`` of a two-category
feature is ``x == b``, listed before it): neither changes what a conjunction can cover on the training data.

With sample ``weights`` (one non-negative float per row) the quantiles are weighted: a row of weight
w counts as w copies of its value (fractional weights as fractional copies), so an integer weight
gives the thresholds of that many copies of the row. A row of weight 0 takes no part: its value, its
category or its missing value makes no literal, and whether a literal is constant or a duplicate is
decided on the rows of positive weight (the truth table still has a row for every sample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
import numpy as np
import pandas as pd

from optrules.data import Schema
from optrules.ruleset import CategoricalCondition, Condition, Interval, NumericCondition

__all__ = ["DEFAULT_THRESHOLDS", "Literals", "binarize"]

#: The paper's thresholds: the nine sample deciles of each numeric feature.
DEFAULT_THRESHOLDS = 9


@dataclass(frozen=True)
class Literals:
    """The literals of a binarisation and their values on the training samples.

    ``conditions[j]`` is literal j, ``feature_of[j]`` the index of its feature in ``schema``,
    ``matrix`` the (samples x literals) truth table on the training data.
    """

    conditions: tuple[Condition, ...]
    feature_of: np.ndarray
    matrix: np.ndarray
    schema: Schema

    def __len__(self) -> int:
        return len(self.conditions)

    def evaluate(self, X: pd.DataFrame) -> np.ndarray:
        """The (samples x literals) truth table of ``X`` (a frame with the training features)."""
        columns = {feature: X[feature].to_numpy() for feature in self.schema.features}
        out = np.empty((len(X), len(self.conditions)), dtype=bool)
        for j, condition in enumerate(self.conditions):
            out[:, j] = condition.evaluate(columns[condition.feature])
        return out


def _weighted_quantiles(values: np.ndarray, weights: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """``np.quantile(values, levels)`` (method "linear") of the sample in which each value is repeated
    by its weight: the virtual index ``(W - 1) * level`` into that sample of total weight W, its
    floor and the next index read off the cumulative weights, and numpy's interpolation between
    them. With unit weights this is ``np.quantile`` bit for bit; with integer weights, that of the
    repeated values (cumulative weights below 2**53 are exact). Where the step between two values
    overflows (opposite signs near the float maximum), the two weighted ends are added instead."""
    order = np.argsort(values, kind="stable")
    ordered, cumulative = values[order], np.cumsum(weights[order])
    virtual = (cumulative[-1] - 1) * levels
    below = np.floor(virtual)
    last = ordered.size - 1
    low = ordered[np.minimum(np.searchsorted(cumulative, below, side="right"), last)]
    high = ordered[np.minimum(np.searchsorted(cumulative, below + 1, side="right"), last)]
    gamma = virtual - below
    with np.errstate(over="ignore", invalid="ignore"):
        step = high - low  # inf when the two are of opposite signs near the float maximum (numpy's flaw too)
        lerp = np.where(gamma >= 0.5, high - step * (1 - gamma), low + step * gamma)  # numpy's _lerp
    return np.where(np.isfinite(step), lerp, low * (1 - gamma) + high * gamma)


def _quantile_thresholds(values: np.ndarray, weights: np.ndarray, n_thresholds: int) -> np.ndarray:
    """The distinct weighted quantiles at 1/(q+1), ..., q/(q+1) of the present values of positive weight,
    each written with 15 significant digits when that splits the values as the quantile does
    (interpolation leaves float noise such as 102.46000000000001, which the rules would print)."""
    present = ~np.isnan(values) & (weights > 0)
    if not present.any():
        return np.zeros(0)
    levels = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
    thresholds = np.unique(_weighted_quantiles(values[present], weights[present], levels))
    data = np.sort(values[~np.isnan(values)])
    tidy = np.array([float(f"{t:.15g}") for t in thresholds.tolist()])
    same_split = np.searchsorted(data, tidy, side="right") == np.searchsorted(data, thresholds, side="right")
    return np.unique(np.where(same_split, tidy, thresholds))


def _numeric_literals(feature: str, values: np.ndarray, weights: np.ndarray, live: slice | np.ndarray,
                      n_thresholds: int) -> list[Condition]:
    out: list[Condition] = []
    for t in _quantile_thresholds(values, weights, n_thresholds).tolist():
        out.append(NumericCondition(feature, [Interval(-math.inf, t, True, True)]))   # x <= t
        out.append(NumericCondition(feature, [Interval(t, math.inf, False, True)]))   # x > t
    if np.isnan(values[live]).any():
        out.append(CategoricalCondition(feature, [], missing=True))                   # x is missing
        out.append(NumericCondition(feature, [Interval(-math.inf, math.inf, True, True)]))  # x is not missing
    return out


def _categorical_literals(feature: str, column: np.ndarray) -> list[Condition]:
    missing = pd.isna(pd.Series(column, dtype=object)).to_numpy()
    categories = sorted({value for value in column[~missing].tolist()}, key=lambda c: (type(c).__name__, str(c)))
    out: list[Condition] = [CategoricalCondition(feature, [c]) for c in categories]                # x == c
    out += [CategoricalCondition(feature, [c], negated=True) for c in categories]                 # x != c
    if missing.any() and categories:
        out.append(CategoricalCondition(feature, [], missing=True))                   # x is missing
        out.append(CategoricalCondition(feature, categories))                         # x is not missing
    return out


def binarize(X: pd.DataFrame, schema: Schema, n_thresholds: int = DEFAULT_THRESHOLDS,
             weights: np.ndarray | None = None) -> Literals:
    """The literals of the validated frame ``X`` (``optrules.data.validate_features``), its rows
    weighing ``weights`` (None: 1 each); see the module docstring."""
    if not isinstance(n_thresholds, (int, np.integer)) or isinstance(n_thresholds, bool) or n_thresholds < 1:
        raise ValueError(f"n_thresholds must be an integer >= 1, got {n_thresholds!r}")
    weights = np.ones(len(X)) if weights is None else np.asarray(weights, dtype=float)
    if weights.shape != (len(X),):
        raise ValueError(f"X has {len(X)} samples but weights has shape {weights.shape}")
    # the rows that decide which literals there are: those of positive weight (a view when all are)
    live: slice | np.ndarray = slice(None) if (weights > 0).all() else weights > 0
    conditions: list[Condition] = []
    feature_of: list[int] = []
    columns: list[np.ndarray] = []
    for index, feature in enumerate(schema.features):
        column = X[feature].to_numpy()
        if schema.categorical[index]:
            literals = _categorical_literals(feature, column[live])
        else:
            literals = _numeric_literals(feature, column.astype(float), weights, live, int(n_thresholds))
        for condition in literals:
            truth = condition.evaluate(column)
            decisive = truth[live]
            if decisive.all() or not decisive.any():
                continue
            conditions.append(condition)
            feature_of.append(index)
            columns.append(truth)
    matrix = np.column_stack(columns) if columns else np.zeros((len(X), 0), dtype=bool)
    if matrix.shape[1]:
        _, first = np.unique(np.packbits(matrix[live], axis=0).T, axis=0, return_index=True)
        keep = np.sort(first)
        conditions = [conditions[j] for j in keep.tolist()]
        feature_of = [feature_of[j] for j in keep.tolist()]
        matrix = matrix[:, keep]
    return Literals(tuple(conditions), np.array(feature_of, dtype=np.int64), np.ascontiguousarray(matrix), schema)

