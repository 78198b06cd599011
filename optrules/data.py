"""Input validation and schema: which features are categorical or numeric, what is missing, which class is positive.

Every method reads its data through :func:`validate_features` and :func:`validate_target`, so the same
input gives the same clear error whatever the method.

- pandas DataFrames: ``category``, string/object and boolean columns are categorical; numeric
  columns are numeric; NaN/None are missing values (data, not errors).
- numpy arrays: every column is numeric unless its index is listed in ``categorical=``.
- labels: any hashable values; binary methods take ``positive=`` (default: the minority class) and
  treat every other class as negative.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Hashable, Sequence

import numpy as np
import pandas as pd

__all__ = ["Schema", "BinaryTarget", "validate_features", "validate_target", "binarize_target",
           "class_order"]


@dataclass(frozen=True)
class Schema:
    """The training features in order and, per feature, whether it is categorical."""

    features: tuple[str, ...]
    categorical: tuple[bool, ...]

    @property
    def categorical_features(self) -> tuple[str, ...]:
        return tuple(f for f, c in zip(self.features, self.categorical) if c)

    @property
    def numeric_features(self) -> tuple[str, ...]:
        return tuple(f for f, c in zip(self.features, self.categorical) if not c)

    def is_categorical(self, feature: str) -> bool:
        return self.categorical[self.features.index(feature)]


def _is_categorical_dtype(series: pd.Series) -> bool:
    dtype = series.dtype
    return (isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype)
            or pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype))


def _categorical_column(series: pd.Series) -> pd.Series:
    """An object column of the original values, missing values as None."""
    values = series.astype(object)
    return values.where(~pd.isna(values), None)


def _numeric_column(name: str, series: pd.Series) -> pd.Series:
    try:
        values = pd.to_numeric(series, errors="raise").astype(float)
    except (ValueError, TypeError):
        raise ValueError(
            f"feature {name!r} has non-numeric values; declare it categorical "
            f"(categorical=[...] for arrays, or a category/string dtype for DataFrames)"
        ) from None
    if np.isinf(values.to_numpy()).any():
        raise ValueError(f"feature {name!r} contains infinite values; replace them or mark them missing (NaN)")
    return values


def validate_features(
    X: Any,
    categorical: Sequence[int] | Sequence[str] | None = None,
    feature_names: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, Schema]:
    """Check X and return it as a DataFrame of object (categorical) and float (numeric) columns with its Schema.

    ``categorical`` lists column indices (or names) to treat as categorical in addition to those a
    DataFrame's dtypes already mark. Raises ``ValueError`` for empty X, duplicated column names,
    infinite values and non-numeric values in a numeric column.
    """
    if isinstance(X, pd.DataFrame):
        frame = X
        names = [str(c) for c in frame.columns]
    else:
        array = np.asarray(X, dtype=object if _has_objects(X) else None)
        if array.ndim != 2:
            raise ValueError(f"X must be 2-dimensional (samples x features), got shape {array.shape}. "
                             "Reshape your data with X.reshape(-1, 1) for one feature or X.reshape(1, -1) "
                             "for one sample.")
        names = ([str(n) for n in feature_names] if feature_names is not None
                 else [f"x{j}" for j in range(array.shape[1])])
        if len(names) != array.shape[1]:
            raise ValueError(f"{len(names)} feature names given for {array.shape[1]} columns")
        frame = pd.DataFrame(array, columns=range(array.shape[1]))
    if frame.shape[0] == 0:
        raise ValueError(f"X is empty: no samples; found array with 0 sample(s) (shape={frame.shape}) "
                         "while a minimum of 1 is required.")
    if frame.shape[1] == 0:
        raise ValueError(f"X is empty: no features; found array with 0 feature(s) (shape={frame.shape}) "
                         "while a minimum of 1 is required.")
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"X has duplicated column names: {duplicated}")

    declared = set()
    for entry in categorical or ():
        if isinstance(entry, (int, np.integer)):
            if not 0 <= entry < len(names):
                raise ValueError(f"categorical column index {entry} is out of range for {len(names)} features")
            declared.add(names[int(entry)])
        elif str(entry) in names:
            declared.add(str(entry))
        else:
            raise ValueError(f"categorical column {entry!r} is not a feature of X")

    columns: dict[str, pd.Series] = {}
    flags: list[bool] = []
    is_frame = isinstance(X, pd.DataFrame)
    for position, name in enumerate(names):
        series = frame.iloc[:, position].reset_index(drop=True)
        is_cat = name in declared or (is_frame and _is_categorical_dtype(series))
        columns[name] = _categorical_column(series) if is_cat else _numeric_column(name, series)
        flags.append(is_cat)
    return pd.DataFrame(columns), Schema(tuple(names), tuple(flags))


def _has_objects(X: Any) -> bool:
    return isinstance(X, np.ndarray) and X.dtype == object or not isinstance(X, np.ndarray)


def class_order(labels: Sequence[Hashable]) -> tuple[Hashable, ...]:
    """The distinct labels in scikit-learn's order (sorted), with a stable fallback for mixed types."""
    unique = list(dict.fromkeys(_plain(v) for v in labels))
    try:
        return tuple(sorted(unique))
    except TypeError:
        return tuple(sorted(unique, key=lambda v: (type(v).__name__, str(v))))


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _object_vector(values: Sequence[Any]) -> np.ndarray:
    """A 1-d object array with one element per value (a tuple label stays one element)."""
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = value
    return out


def validate_target(y: Any, n_samples: int) -> np.ndarray:
    """Labels as a 1-d object array; errors for NaN labels, a length mismatch, a continuous target,
    or fewer than two classes."""
    if y is None:
        raise ValueError("this classifier requires y to be passed, but the target y is None")
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(f"y must be one column of labels, got {y.shape[1]} columns")
        y = y.iloc[:, 0]
    if isinstance(y, (list, tuple)) and any(isinstance(v, tuple) for v in y):
        labels = _object_vector(list(y))  # tuple labels: np.asarray would read them as rows of a 2-d array
    else:
        labels = np.asarray(y, dtype=object)
    if labels.ndim == 2 and labels.shape[1] == 1:
        labels = labels[:, 0]
    if labels.ndim != 1:
        raise ValueError(f"y must be 1-dimensional, got shape {labels.shape}")
    if labels.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} samples but y has {labels.shape[0]} labels")
    if pd.isna(labels).any():
        raise ValueError(f"y contains {int(pd.isna(labels).sum())} missing (NaN/None) labels")
    labels = _object_vector([_plain(v) for v in labels])
    if _is_continuous(labels):
        raise ValueError("Unknown label type: continuous target (non-integer floats); classifiers need class labels")
    if n_samples == 1:
        raise ValueError("y has 1 sample; at least two samples of two classes are needed to learn")
    if len(set(labels.tolist())) < 2:
        raise ValueError(f"y has a single class ({labels[0]!r}); at least two classes are needed to learn")
    return labels


def _is_continuous(labels: np.ndarray) -> bool:
    """Floats that are not all whole numbers: a regression target, not class labels."""
    floats = [v for v in labels.tolist() if isinstance(v, float)]
    return len(floats) == len(labels) and any(not v.is_integer() for v in floats)


@dataclass(frozen=True)
class BinaryTarget:
    """A binary view of the labels: ``is_positive`` marks the positive class; ``negative`` is the
    label predicted for everything else (the most frequent of the other classes)."""

    is_positive: np.ndarray
    positive: Hashable
    negative: Hashable
    classes: tuple[Hashable, ...]


def binarize_target(labels: np.ndarray, positive: Hashable | None = None) -> BinaryTarget:
    """Pick the positive class (default: the minority class; ties go to the last class in sorted order)."""
    classes = class_order(labels)
    counts = Counter(_plain(v) for v in labels)  # not value_counts: tuple labels would become a MultiIndex
    if positive is None:
        fewest = min(counts.values())
        positive = [c for c in classes if counts[c] == fewest][-1]
    else:
        positive = _plain(positive)
        if positive not in classes:
            raise ValueError(f"positive class {positive!r} is not a label of y; the classes are {list(classes)}")
        positive = classes[classes.index(positive)]  # the label itself (1, not an equal 1.0 or True)
    most = max(count for c, count in counts.items() if c != positive)
    negative = [c for c in classes if c != positive and counts.get(c, 0) == most][0]
    # Compare one label at a time: ``labels == positive`` broadcasts a tuple label element-wise.
    is_positive = np.array([_plain(v) == positive for v in labels], dtype=bool)
    return BinaryTarget(is_positive, positive, negative, classes)
