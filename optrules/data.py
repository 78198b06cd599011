"""Input validation and schema: which features are categorical or numeric, what is missing, which class is positive.

Every method reads its data through :func:`validate_features` and :func:`validate_target`, so the same
input gives the same clear error whatever the method.

- pandas DataFrames: ``category``, string/object and boolean columns are categorical; numeric
  columns are numeric; NaN/None are missing values (data, not errors).
- numpy arrays: every column is numeric unless its index is listed in ``categorical=``.
- labels: any hashable values; binary methods take ``positive=`` (default: the minority class) and
  treat every other class as negative.
- rare categories: :func:`group_categories` replaces them at fit by one token, :data:`OTHER`, and the
  returned :class:`CategoryGroups` rewrites the learned rules back into the real values.
- predict time: :func:`align_categories` matches categorical values that arrive under another type
  than in training (the string ``'1'`` for the integer ``1``) and warns when many were never seen.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Hashable, Mapping, Sequence

import numpy as np
import pandas as pd

from optrules.classes import minority_class
from optrules.exceptions import CategoryWarning
from optrules.ruleset import (CategoricalCondition, Condition, Ruleset, column_positions, factorize_labels,
                              match_by_text, same_text_values)

__all__ = ["Schema", "BinaryTarget", "CategoryGroups", "OTHER", "validate_features", "validate_target",
           "binarize_target", "categorical_names", "class_order", "group_categories", "align_categories"]


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


#: An object column of numbers alone with more distinct values than this is warned about (read as categories).
NUMBERS_AS_CATEGORIES = 10


def _warn_numbers_as_categories(name: str, series: pd.Series) -> None:
    """A ``UserWarning`` for an object column that holds only numbers, more than
    :data:`NUMBERS_AS_CATEGORIES` distinct ones (``df.astype(object)``, records of mixed types): it is
    read as categories, every number one of its own, where a numeric column would be binned."""
    def is_number(value: Any) -> bool:
        return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))

    observed = series.dropna() if pd.api.types.is_object_dtype(series.dtype) else series.iloc[:0]
    if observed.empty or not is_number(observed.iloc[0]):  # text columns leave at their first value
        return
    present = pd.unique(observed.to_numpy(dtype=object))
    if len(present) > NUMBERS_AS_CATEGORIES and all(is_number(v) for v in present):
        warnings.warn(f"feature {name!r} has dtype object and holds only numbers ({len(present)} distinct): it is "
                      f"read as categories, each number one of its own; convert it with pd.to_numeric to treat it "
                      f"as a number, or list it in categorical= to keep it as categories (which silences this)",
                      UserWarning, stacklevel=4)


def _check_distinct_texts(name: str, values: pd.Series) -> None:
    """``ValueError`` naming a categorical feature whose distinct values include some that differ only
    in type (``1`` and ``'1'``): they print alike in the rules, and a model matches a value by its text
    (:func:`optrules.ruleset.same_text_values`), so its predictions would contradict the rules it
    learned."""
    clashes = same_text_values(pd.unique(values.to_numpy(dtype=object)))
    if clashes:
        shown = "; ".join(" and ".join(repr(v) for v in group) for group in clashes[:3])
        raise ValueError(f"categorical feature {name!r} holds values that differ only in type ({shown}): they "
                         "print alike and would be matched alike at predict; convert the column to one type "
                         f"first (e.g. X[{name!r}].astype(str))")


def numeric_column(name: str, series: pd.Series, at_predict: bool = False) -> pd.Series:
    """A numeric feature's values as floats, missing values NaN. ``ValueError`` naming the feature for
    dates or durations (as integers their thresholds would depend on the column's time unit, which
    pandas chooses per column), for text, and for infinite values; the same checks at fit and at
    predict (``at_predict``: the message says the feature was numeric in training)."""
    if pd.api.types.is_datetime64_any_dtype(series.dtype) or pd.api.types.is_timedelta64_dtype(series.dtype):
        raise ValueError(f"feature {name!r} holds dates or durations ({series.dtype}); convert it to a number "
                         "(e.g. days since a fixed date) or to categories")
    try:
        values = pd.to_numeric(series, errors="raise").astype(float)
    except (ValueError, TypeError):
        if at_predict:
            raise ValueError(f"feature {name!r} was numeric in training but has non-numeric values at "
                             "predict") from None
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

    declared = categorical_names(names, categorical, list(X.columns) if isinstance(X, pd.DataFrame) else [])
    columns: dict[str, pd.Series] = {}
    flags: list[bool] = []
    is_frame = isinstance(X, pd.DataFrame)
    for position, name in enumerate(names):
        series = frame.iloc[:, position].reset_index(drop=True)
        is_cat = name in declared or (is_frame and _is_categorical_dtype(series))
        columns[name] = _categorical_column(series) if is_cat else numeric_column(name, series)
        if is_cat:
            _check_distinct_texts(name, columns[name])
            if name not in declared:
                _warn_numbers_as_categories(name, series)
        flags.append(is_cat)
    # copy=False: the columns are not stacked into one block (a copy of the whole frame, slow when
    # they are strided views of a row-major array); copy-on-write keeps X safe from later writes
    return pd.DataFrame(columns, copy=False), Schema(tuple(names), tuple(flags))


def categorical_names(names: Sequence[str], categorical: Sequence[int] | Sequence[str] | None,
                      labels: Sequence[Any] = ()) -> set[str]:
    """The names of the features ``categorical`` declares (positions or names) among ``names`` (a
    DataFrame's column ``labels`` when it has them); ``ValueError`` naming an entry that is neither, or
    a position that is also another column's label."""
    labels = list(labels)
    declared = set()
    for entry in categorical or ():
        if isinstance(entry, (int, np.integer)) and not isinstance(entry, bool):
            if not 0 <= entry < len(names):
                raise ValueError(f"categorical column index {entry} is out of range for {len(names)} features")
            if entry in labels and labels.index(entry) != entry:
                raise ValueError(f"categorical entry {entry} is a position, and X also has a column labelled {entry} "
                                 f"at position {labels.index(entry)}: name the column as a string ({str(entry)!r}) "
                                 "or by its position")
            declared.add(names[int(entry)])
        elif str(entry) in names:
            declared.add(str(entry))
        else:
            raise ValueError(f"categorical column {entry!r} is not a feature of X")
    return declared


def _has_objects(X: Any) -> bool:
    return isinstance(X, np.ndarray) and X.dtype == object or not isinstance(X, np.ndarray)


def class_order(labels: Sequence[Hashable]) -> tuple[Hashable, ...]:
    """The distinct labels in scikit-learn's order (sorted), with a stable fallback for mixed types."""
    _, distinct = factorize_labels(_object_vector(labels))
    unique = list(dict.fromkeys(_plain(v) for v in distinct))
    try:
        return tuple(sorted(unique))
    except TypeError:
        return tuple(sorted(unique, key=lambda v: (type(v).__name__, str(v))))


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _object_vector(values: Sequence[Any]) -> np.ndarray:
    """A 1-d object array with one element per value (a tuple label stays one element)."""
    if isinstance(values, np.ndarray) and values.dtype == object and values.ndim == 1:
        return values
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = value
    return out


def validate_target(y: Any, n_samples: int) -> np.ndarray:
    """Labels as a 1-d object array; errors for NaN labels, a length mismatch, a continuous target,
    classes that differ only in type (``1`` and ``'1'``), or fewer than two classes.

    A column vector (shape ``(n, 1)``: a 2-d array or a one-column DataFrame) is read as its one
    column, with scikit-learn's ``DataConversionWarning``.
    """
    if y is None:
        raise ValueError("this classifier requires y to be passed, but the target y is None")
    column_vector = False
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(f"y must be one column of labels, got {y.shape[1]} columns")
        y = y.iloc[:, 0]
        column_vector = True
    if isinstance(y, (list, tuple)) and any(isinstance(v, tuple) for v in y):
        labels = _object_vector(list(y))  # tuple labels: np.asarray would read them as rows of a 2-d array
    else:
        labels = np.asarray(y, dtype=object)
    if labels.ndim == 2 and labels.shape[1] == 1:
        labels = labels[:, 0]
        column_vector = True
    if column_vector:
        from sklearn.exceptions import DataConversionWarning  # scikit-learn only when it warns

        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change the shape "
                      "of y to (n_samples, ), for example using ravel().", DataConversionWarning, stacklevel=3)
    if labels.ndim != 1:
        raise ValueError(f"y must be 1-dimensional, got shape {labels.shape}")
    if labels.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} samples but y has {labels.shape[0]} labels")
    if pd.isna(labels).any():
        raise ValueError(f"y contains {int(pd.isna(labels).sum())} missing (NaN/None) labels")
    if not (isinstance(y, np.ndarray) and y.dtype != object):  # numpy's own dtypes convert to plain values
        labels = _object_vector([_plain(v) for v in labels])
    if _is_continuous(labels):
        raise ValueError("Unknown label type: continuous target (non-integer floats); classifiers need class labels")
    clashes = same_text_values(pd.unique(labels))
    if clashes:  # the rules would read "THEN class = 1 ELSE class = 1"
        shown = "; ".join(" and ".join(repr(v) for v in group) for group in clashes[:3])
        raise ValueError(f"y holds classes that differ only in type ({shown}): they print alike in the rules; "
                         f"convert y to one type first (e.g. y.astype(str))")
    if n_samples < 2:
        raise ValueError(f"y has {n_samples} sample(s); at least two samples of two classes are needed to learn")
    if len(set(labels.tolist())) < 2:
        raise ValueError(f"y has a single class ({labels[0]!r}); at least two classes are needed to learn")
    return labels


def _is_continuous(labels: np.ndarray) -> bool:
    """Floats that are not all whole numbers: a regression target, not class labels."""
    values = labels.tolist()
    # all() stops at the first label that is not a float: one look for string or integer labels
    return all(isinstance(v, float) for v in values) and any(not v.is_integer() for v in values)


@dataclass(frozen=True)
class BinaryTarget:
    """A binary view of the labels: ``is_positive`` marks the positive class; ``negative`` is the
    label predicted for everything else (the most frequent of the other classes)."""

    is_positive: np.ndarray
    positive: Hashable
    negative: Hashable
    classes: tuple[Hashable, ...]


def matching_label(value: Hashable, labels: Sequence[Hashable]) -> Hashable | None:
    """The label of ``labels`` that ``value`` names: the one equal to it (the label itself: ``1``, not an
    equal ``1.0`` or ``True``), else the one written as it (``1`` for the label ``'1'``, as a number in
    a configuration or a ``--param`` names a label read as text; :func:`match_by_text`), else None."""
    value = _plain(value)
    for label in labels:
        if label == value:
            return label
    return match_by_text("label", {0: value}, list(labels)).get(0)


def binarize_target(labels: np.ndarray, positive: Hashable | None = None,
                    weights: np.ndarray | None = None) -> BinaryTarget:
    """Pick the positive class (default: the minority class; ties go to the last class in sorted order)
    and the negative one (the most frequent other class; ties: the first).

    With ``weights`` a class counts its rows' total weight, as copies of the rows would count, and a
    class whose rows all weigh 0 is never chosen (as if its rows were removed). Totals equal up to
    rounding (``compute_sample_weight("balanced", y)`` makes every class's the same) are a tie, broken
    by the rows' count before the sorted order: balanced weights keep the minority of the rows."""
    codes, distinct = factorize_labels(_object_vector(labels))
    classes = class_order(distinct)
    rows: Counter = Counter()  # by value, not value_counts: tuple labels would become a MultiIndex
    totals: Counter = Counter()
    for label, count, total in zip(distinct, np.bincount(codes, minlength=len(distinct)).tolist(),
                                   np.bincount(codes, weights=weights, minlength=len(distinct)).tolist()):
        rows[_plain(label)] += count
        totals[_plain(label)] += total
    present = [c for c in classes if totals[c] > 0] or list(classes)

    def tied(chosen: float, among: list[Hashable]) -> list[Hashable]:
        return [c for c in among if math.isclose(totals[c], chosen, rel_tol=1e-9)]

    if positive is None:
        fewest = tied(min(totals[c] for c in present), present)
        positive = minority_class(rows, fewest)
    else:
        label = matching_label(positive, classes)
        if label is None:
            raise ValueError(f"positive class {_plain(positive)!r} is not a label of y; "
                             f"the classes are {list(classes)}")
        positive = label
    others = [c for c in present if c != positive] or [c for c in classes if c != positive]
    most = tied(max(totals[c] for c in others), others)
    negative = [c for c in most if rows[c] == max(rows[m] for m in most)][0]
    # Compare one distinct label at a time: ``labels == positive`` broadcasts a tuple label element-wise.
    is_positive = np.array([_plain(v) == positive for v in distinct], dtype=bool)[codes]
    return BinaryTarget(is_positive, positive, negative, classes)


# ------------------------------------------------------------------------------------ sample weights

# ------------------------------------------------------------------------------------ rare categories

class OtherCategory:
    """The type of :data:`OTHER`, the one token that stands at fit for every grouped category.

    It prints as ``<other>``, equals only itself, has a fixed hash (set and dict orders do not vary
    between runs), sorts after every other value (so :func:`class_order` lists it last; mixed with
    values that do not compare to each other, ``class_order``'s type-name fallback applies), and
    stays the same object through pickling and copying.
    """

    _instance: OtherCategory | None = None

    def __new__(cls) -> OtherCategory:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<other>"

    def __hash__(self) -> int:
        return 0x07E4

    def __lt__(self, other: Any) -> bool:
        return False

    def __le__(self, other: Any) -> bool:
        return other is self

    def __gt__(self, other: Any) -> bool:
        return other is not self

    def __ge__(self, other: Any) -> bool:
        return True

    def __reduce__(self) -> str:
        return "OTHER"


#: The value that replaces grouped categories in the training frame (see :func:`group_categories`).
OTHER = OtherCategory()


@dataclass(frozen=True)
class CategoryGroups:
    """Which categories :func:`group_categories` kept, per grouped feature.

    ``kept``: feature -> the categories it kept (in :func:`class_order`); on that feature
    :data:`OTHER` means "any non-missing value that is not one of these", values never seen in
    training included. ``grouped``: feature -> how many categories were replaced by :data:`OTHER`.
    Features that were not grouped appear in neither.
    """

    kept: Mapping[str, tuple[Hashable, ...]] = field(default_factory=dict)
    grouped: Mapping[str, int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        """True when some feature was grouped."""
        return bool(self.grouped)

    def summary(self) -> dict[str, int]:
        """Feature -> number of categories grouped as :data:`OTHER`."""
        return dict(self.grouped)

    def expand(self, ruleset: Ruleset) -> Ruleset:
        """An equivalent ruleset that names real values only: no condition mentions :data:`OTHER`.

        The rules were learned on the grouped data, where a value of a grouped feature is one of
        its kept categories K or OTHER. A categorical condition on such a feature, over the set S, is
        rewritten to give on the original data what it gives on the grouped data (``missing``
        unchanged; categories of S outside K and other than OTHER name no grouped value and drop out;
        S' = S & K):

        - ``in S'``, ``not in S'``: as they are;
        - ``in S' + {OTHER}``  ->  ``not in K - S'`` (OTHER: any non-missing value outside K, values
          never seen in training included);
        - ``not in S' + {OTHER}``  ->  ``in K - S'``.

        When the resulting set is empty: ``not in {}`` holds for every non-missing value, so with
        ``missing=True`` the condition is dropped from its rule (always true), otherwise it becomes
        ``not in {None}``, i.e. "not missing"; ``in {}`` holds for no non-missing value, so with
        ``missing=True`` it becomes ``is missing`` (the empty set), otherwise the rule can never fire
        and is removed (for a rule set, a decision list and a scorecard alike, a rule that never
        fires changes no prediction).

        Rules keep their prediction, weight and counts, and ``class_counts`` loses the rows of removed
        rules; the ruleset keeps its other fields. The
        result predicts on the original data what ``ruleset`` predicts on the grouped data, and the
        same as ``ruleset`` on the grouped data. Without grouping the ruleset is returned as it is.
        """
        if not self:
            return ruleset
        rules, kept_rows = [], []
        for r, rule in enumerate(ruleset.rules):
            conditions: list[Condition] = []
            fires = True
            for condition in rule.conditions:
                expanded = self._expand_condition(condition)
                if expanded is None:
                    fires = False
                    break
                conditions.extend(expanded)
            if fires:
                rules.append(replace(rule, conditions=tuple(conditions)))
                kept_rows.append(r)
        counts = ruleset.class_counts  # a removed rule decided no training row: its counts row goes with it
        if counts:
            counts = tuple(counts[r] for r in [*kept_rows, len(ruleset.rules)])
        return replace(ruleset, rules=tuple(rules), class_counts=counts)

    def _expand_condition(self, condition: Condition) -> tuple[Condition, ...] | None:
        """The conditions (none: always true) equivalent to ``condition``; None when no value satisfies it."""
        if not isinstance(condition, CategoricalCondition) or condition.feature not in self.kept:
            return (condition,)
        feature, missing, kept = condition.feature, condition.missing, self.kept[condition.feature]
        named = set(condition.categories)
        if OTHER in named:
            members, negated = tuple(c for c in kept if c not in named), not condition.negated
        else:
            members, negated = tuple(c for c in kept if c in named), condition.negated
        if members:
            return (CategoricalCondition(feature, members, negated=negated, missing=missing),)
        if negated:
            return () if missing else (CategoricalCondition(feature, (None,), negated=True),)
        return (CategoricalCondition(feature, (), missing=True),) if missing else None


def group_categories(
    frame: pd.DataFrame,
    schema: Schema,
    weights: np.ndarray,
    max_categories: int | None,
    min_frequency: int | float | None,
) -> tuple[pd.DataFrame, CategoryGroups]:
    """Replace the rare categories of each categorical feature by :data:`OTHER`, as scikit-learn's
    ``OneHotEncoder(max_categories=..., min_frequency=...)`` groups its infrequent categories.

    ``frame`` is a validated frame (:func:`validate_features`); ``weights`` one weight per row.
    Frequencies are the weighted counts of the non-missing values. A category is rare when its count
    is below ``min_frequency`` (an int), or below that share of the feature's non-missing weight
    (a float in (0, 1]). Of the others, at most ``max_categories - 1`` are kept, the most frequent
    first (ties in :func:`class_order`), so that with the group they make at most ``max_categories``.
    A feature is grouped only when that puts two categories or more into the group (one category
    alone is just renamed). Missing values stay missing. Warns once (:class:`CategoryWarning`) naming
    each grouped feature, how many of its categories were grouped and the parameter(s) responsible.
    The frame is returned as it is (not copied) when nothing is grouped.
    """
    kept: dict[str, tuple[Hashable, ...]] = {}
    grouped: dict[str, int] = {}
    columns: dict[str, np.ndarray] = {}
    messages = []
    for feature in schema.categorical_features:
        codes, uniques = pd.factorize(frame[feature])
        values = np.asarray(uniques, dtype=object)
        present = codes >= 0
        counts = np.bincount(codes[present], weights=weights[present], minlength=len(values))
        if isinstance(min_frequency, (int, np.integer)):
            rare = counts < min_frequency
        elif min_frequency is not None:
            rare = counts < min_frequency * counts.sum()
        else:
            rare = np.zeros(len(values), dtype=bool)
        rank = {v: k for k, v in enumerate(class_order(values.tolist()))}
        order = np.lexsort((np.array([rank[v] for v in values], dtype=np.intp), -counts))
        frequent = [k for k in order if not rare[k]]
        keep = frequent if max_categories is None else frequent[:max_categories - 1]
        n_grouped = len(values) - len(keep)
        if n_grouped < 2:
            continue
        mapped = np.full(len(values), OTHER, dtype=object)
        mapped[keep] = values[keep]
        column = mapped[codes]
        column[~present] = None
        columns[feature] = column
        kept[feature] = tuple(class_order(values[keep].tolist()))
        grouped[feature] = n_grouped
        reason = _grouping_reason(bool(rare.any()), len(frequent) > len(keep), max_categories, min_frequency)
        messages.append(f"feature {feature!r}: {n_grouped:,} of {len(values):,} categories grouped as "
                        f"'{OTHER}' ({reason})")
    if not columns:
        return frame, CategoryGroups()
    warnings.warn("; ".join(messages), CategoryWarning, stacklevel=3)
    out = frame.copy(deep=False)
    for feature, column in columns.items():
        out[feature] = pd.Series(column, index=frame.index, dtype=object)
    return out, CategoryGroups(kept, grouped)


def _grouping_reason(by_frequency: bool, by_count: bool, max_categories: int | None,
                     min_frequency: int | float | None) -> str:
    """Which parameter grouped a feature's categories, and how to keep them."""
    if by_count and by_frequency:
        return (f"max_categories={max_categories}, min_frequency={min_frequency}; raise max_categories, "
                "lower min_frequency or set them to None to keep all")
    if by_count:
        return f"max_categories={max_categories}; raise it or set None to keep all"
    return f"min_frequency={min_frequency}; lower it or set None to keep all"


# ------------------------------------------------------------------------------------ predict time

#: Share of a column's non-missing values at predict, never seen in training, that draws a warning.
UNSEEN_WARNING_SHARE = 0.25


def align_categories(X: pd.DataFrame, schema: Schema, categories: Mapping[str, tuple[Hashable, ...]]) -> pd.DataFrame:
    """Match the categorical values of X (at predict) to the training categories.

    ``categories``: feature -> its training categories. For each categorical feature of ``schema``
    that X has (columns by name, as ``str``) and ``categories`` lists, every non-missing value that
    is not a training category (by equality, as the rules test membership: ``1``, ``1.0``,
    ``np.int64(1)`` and ``True`` are equal) is matched by how it is written: to the training
    category whose ``str`` equals its own (numpy scalars read as Python values: the string ``'1'``
    for the integer ``1`` and back); failing that, through an integral number's other spelling
    (``1`` and ``'1.0'``, ``1.0`` and ``'1'``). A value written as two or more training categories
    (their types differ but their text is the same) raises ``ValueError`` naming the feature, the
    value and the candidates. :data:`OTHER` is never a match. A column with a replaced value becomes
    an object column (whatever its dtype: category, bool, ...) with None for missing values; the
    other columns are left as they are, and X is copied (shallowly) only to replace a column.
    Missing values (None, NaN, pd.NA) are never matched nor counted as unseen. Warns once
    (:class:`CategoryWarning`) naming every column where at least 25% of the non-missing values
    remain unseen after matching, with the share and examples.
    """
    positions = column_positions(X, schema.categorical_features)
    out = X
    notes = []
    for feature in schema.categorical_features:
        if feature not in positions or feature not in categories:
            continue
        codes, uniques = pd.factorize(X.iloc[:, positions[feature]])
        values = np.asarray(uniques, dtype=object)
        known = set(categories[feature])
        unseen = [k for k, v in enumerate(values) if v not in known]
        if not unseen:
            continue
        matches = match_by_text(feature, {k: values[k] for k in unseen},
                                [c for c in categories[feature] if c is not OTHER])
        if matches:
            aligned = values.copy()
            for k, category in matches.items():
                aligned[k] = category
            column = aligned[codes]
            column[codes < 0] = None
            if out is X:
                out = X.copy(deep=False)
            out.isetitem(positions[feature], pd.Series(column, index=X.index, dtype=object))
        note = _unseen_note(feature, codes, values, [k for k in unseen if k not in matches])
        if note:
            notes.append(note)
    if notes:
        warnings.warn("; ".join(notes), CategoryWarning, stacklevel=4)
    return out


def _unseen_note(feature: str, codes: np.ndarray, values: np.ndarray, unseen: list[int]) -> str | None:
    """The warning text for a column whose unseen values are at least UNSEEN_WARNING_SHARE of its
    non-missing values (examples most frequent first), else None."""
    if not unseen:
        return None
    counts = np.bincount(codes[codes >= 0], minlength=len(values))
    share = counts[unseen].sum() / counts.sum()
    if share < UNSEEN_WARNING_SHARE:
        return None
    ranked = sorted(unseen, key=lambda k: -counts[k])  # stable: ties in order of appearance
    examples = ", ".join(repr(_plain(values[k])) for k in ranked[:3]) + (", ..." if len(ranked) > 3 else "")
    return (f"feature {feature!r}: {share:.0%} of the values at predict were never seen in training, "
            f"e.g. [{examples}]; such values satisfy no `in` condition")
