"""The CLSVM feature roles (Carrizosa, Nogales-Gomez and Romero Morales, Table 1) and scorecards.

:class:`ScorecardDesign` turns a validated frame into the matrices of the SVM models and maps a
solution back to a ``Ruleset(kind="score")``:

* a categorical feature with three or more categories is *clustered*: its categories (a missing
  value counts as one more category, ``None``) get 0/1 dummies x_{i,j,k} and, in the CL models,
  an assignment z_{j,k,l} to L clusters;
* a categorical feature with exactly two categories enters as one 0/1 numeric feature (1 for its
  second category in sorted order), and one with a single category is constant and dropped;
* a numeric feature is standardised with the training mean and standard deviation (1 when
  constant); a missing numeric value is the mean, i.e. contributes 0, as ``LinearTerm`` does.
  With sample weights w_i both are weighted, sum_i w_i x_i / sum_i w_i and
  sqrt(sum_i w_i (x_i - mean)^2 / sum_i w_i) over the observed values, so that a row of integer
  weight w counts as w copies (weights of ones: the plain mean and standard deviation, exactly).
  The categories and their order come from every row, whatever its weight.

The scorecard has one rule ``feature in {categories}`` per non-empty cluster carrying the cluster
score, one rule per two-category feature carrying its weight, the linear terms with the
standardisation stored, and the intercept b, so its ``decision_function`` on raw data is the SVM's
score (omega-bar)' x-bar + (omega')' x' + b. A category unseen in training belongs to no rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Hashable, Sequence

import numpy as np
import pandas as pd

from optrules.data import Schema
from optrules.models.svm import sample_weights
from optrules.ruleset import CategoricalCondition, LinearTerm, Rule, Ruleset, _sort_key

__all__ = ["ScorecardDesign", "Scorecard"]


def _categories(column: pd.Series) -> tuple[Any, ...]:
    """Sorted observed categories, the missing value (None) last when present."""
    values = [v for v in pd.unique(column) if v is not None]
    ordered = sorted(values, key=_sort_key)
    if column.isna().any():
        ordered.append(None)
    return tuple(ordered)


def _moments(values: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """The weighted mean and standard deviation (ddof 0) of the observed (non-NaN) values; (0, 0)
    when no observed value has a positive weight. Written as numpy's mean() and std() compute them,
    on the values divided by the power of two just above their largest magnitude and scaled back: the
    same floats as numpy's (a power of two scales exactly), without the overflow of squaring values
    of 1e154 and above or the underflow of those of 1e-162 and below."""
    observed = ~np.isnan(values)
    x, w = values[observed], weights[observed]
    total = w.sum()
    if total <= 0:
        return 0.0, 0.0
    exponent = int(np.frexp(np.abs(x).max())[1])  # 2**exponent itself is inf for values of 2**1023 and above
    x = np.ldexp(x, -exponent)
    mean = (w * x).sum() / total
    deviation = x - mean
    return float(np.ldexp(mean, exponent)), float(np.ldexp(np.sqrt((w * deviation * deviation).sum() / total),
                                                           exponent))


def _is_constant(values: np.ndarray, std: float) -> bool:
    """Whether a numeric feature is constant up to rounding: its standard deviation is at most 1e-12
    of its largest magnitude. Relative, so that a feature in tiny units (a std of 1e-13 on values of
    1e-13) is standardised like any other, not left on a scale that makes its coefficient vanish."""
    observed = values[~np.isnan(values)]
    return observed.size == 0 or std <= 1e-12 * float(np.abs(observed).max())


@dataclass(frozen=True)
class Scorecard:
    """A CLSVM classifier in the design's coordinates.

    ``assignment[j][k]`` is the cluster of category k of clustered feature j; ``cluster_scores[j][l]``
    is omega-bar_{j,l}; ``numeric_coef`` holds omega' for the two-category features then the numeric
    ones (standardised); ``intercept`` is b. The original SVM is the case "each category its own
    cluster".
    """

    assignment: tuple[np.ndarray, ...]
    cluster_scores: tuple[np.ndarray, ...]
    numeric_coef: np.ndarray
    intercept: float

    def category_scores(self) -> tuple[np.ndarray, ...]:
        """omega_{j,k}: the score of each category (its cluster's score)."""
        return tuple(s[a] for s, a in zip(self.cluster_scores, self.assignment))


@dataclass(frozen=True)
class ScorecardDesign:
    """Feature roles learned from training data (see the module docstring)."""

    clustered: tuple[str, ...]
    categories: tuple[tuple[Any, ...], ...]
    binary: tuple[tuple[str, Any], ...]
    numeric: tuple[str, ...]
    center: np.ndarray
    scale: np.ndarray

    @classmethod
    def fit(cls, frame: pd.DataFrame, schema: Schema, weights: np.ndarray | None = None) -> ScorecardDesign:
        """The feature roles of ``frame`` and the standardisation of its numeric features, with the
        mean and standard deviation weighted by ``weights`` (one per row, >= 0; None: ones)."""
        w, _ = sample_weights(weights, len(frame))
        clustered, categories, binary, numeric, center, scale = [], [], [], [], [], []
        for feature, is_categorical in zip(schema.features, schema.categorical):
            column = frame[feature]
            if is_categorical:
                cats = _categories(column)
                if len(cats) >= 3:
                    clustered.append(feature)
                    categories.append(cats)
                elif len(cats) == 2:
                    binary.append((feature, cats[1]))
                continue
            values = column.to_numpy(dtype=float)
            mean, std = _moments(values, w)
            numeric.append(feature)
            center.append(mean)
            scale.append(1.0 if _is_constant(values, std) else std)
        return cls(tuple(clustered), tuple(categories), tuple(binary), tuple(numeric),
                   np.array(center, dtype=float), np.array(scale, dtype=float))

    # ------------------------------------------------------------------ sizes
    @property
    def n_categories(self) -> tuple[int, ...]:
        """K_j for each clustered feature."""
        return tuple(len(c) for c in self.categories)

    @property
    def n_numeric(self) -> int:
        """J': two-category features plus numeric features."""
        return len(self.binary) + len(self.numeric)

    # ------------------------------------------------------------------ matrices
    def codes(self, frame: pd.DataFrame) -> list[np.ndarray]:
        """k_j(i) for each clustered feature: the index of the sample's category, -1 when unseen."""
        out = []
        for feature, cats in zip(self.clustered, self.categories):
            index = {c: k for k, c in enumerate(cats) if c is not None}
            missing_code = len(cats) - 1 if cats[-1] is None else -1
            column = frame[feature].to_numpy(dtype=object)
            missing = pd.isna(column)
            codes = np.array([index.get(v, -1) if not m else missing_code for v, m in zip(column, missing)],
                             dtype=np.int64)
            out.append(codes)
        return out

    def numeric_matrix(self, frame: pd.DataFrame) -> np.ndarray:
        """x'_i: two-category indicators, then standardised numeric values (missing -> 0)."""
        columns = [np.array([v == level for v in frame[f].to_numpy(dtype=object)], dtype=float)
                   for f, level in self.binary]
        for f, c, s in zip(self.numeric, self.center, self.scale):
            columns.append(np.nan_to_num((frame[f].to_numpy(dtype=float) - c) / s, nan=0.0))
        return np.column_stack(columns) if columns else np.zeros((len(frame), 0))

    def dummies(self, codes: Sequence[np.ndarray], assignment: Sequence[np.ndarray] | None = None,
                clusters: int | None = None) -> np.ndarray:
        """The 0/1 matrix of categories (x_{i,j,k}) or, given an assignment z, of clusters (Figure 1)."""
        blocks = []
        for j, code in enumerate(codes):
            width = self.n_categories[j] if assignment is None else int(clusters)
            block = np.zeros((code.size, width))
            seen = code >= 0
            column = code[seen] if assignment is None else np.asarray(assignment[j])[code[seen]]
            block[np.flatnonzero(seen), column] = 1.0
            blocks.append(block)
        return np.hstack(blocks) if blocks else np.zeros((len(codes[0]) if codes else 0, 0))

    # ------------------------------------------------------------------ back to a Ruleset
    def to_ruleset(self, card: Scorecard, schema: Schema, positive: Hashable, negative: Hashable,
                   classes: tuple[Hashable, ...], meta: dict[str, Any] | None = None) -> Ruleset:
        """The scorecard as a ``Ruleset(kind="score")`` over the raw features."""
        rules = []
        for feature, cats, assignment, scores in zip(self.clustered, self.categories, card.assignment,
                                                     card.cluster_scores):
            for cluster, score in enumerate(scores):
                members = [cats[k] for k in np.flatnonzero(np.asarray(assignment) == cluster)]
                if not members:
                    continue
                named = [c for c in members if c is not None]
                condition = CategoricalCondition(feature, named, missing=len(named) < len(members))
                rules.append(Rule((condition,), positive, weight=float(score)))
        coef = np.asarray(card.numeric_coef, dtype=float)
        for (feature, level), weight in zip(self.binary, coef[:len(self.binary)]):
            # a feature of one value and missing ones: its indicator is "is missing" (level None)
            condition = (CategoricalCondition(feature, [], missing=True) if level is None
                         else CategoricalCondition(feature, [level]))
            rules.append(Rule((condition,), positive, weight=float(weight)))
        linear = tuple(LinearTerm(f, float(w), float(c), float(s))
                       for f, w, c, s in zip(self.numeric, coef[len(self.binary):], self.center, self.scale))
        return Ruleset("score", tuple(rules), negative, schema.features, classes, positive=positive,
                       intercept=float(card.intercept), linear=linear,
                       meta={"clustered_features": list(self.clustered), **(meta or {})})
