"""The shared result of every optrules method: :class:`Condition`, :class:`Rule`, :class:`Ruleset`.

A Ruleset is an immutable value. It speaks in the original feature names and values (never in bit
indices), evaluates all of its rules at once as a samples x rules boolean matrix, prints as the
LIBRE paper's Figures 3 and 13-19 (IF ... THEN ... ELSE), and round-trips exactly through
``to_dict``/``from_dict`` and JSON.

Three kinds:

``"set"``    unordered DNF: the positive class if any rule fires, else the default class.
``"list"``   ordered decision list: the class of the first rule that fires, else the default class.
``"score"``  additive scorecard: ``intercept + sum(weights of firing rules) + sum(linear terms)``;
             the positive class when that score is > 0, else the default (negative) class.

Missing values (NaN / None) are data: every condition states whether a missing value satisfies it.

Probabilities come from the training data, attached by :meth:`Ruleset.fit_probabilities`: the
weighted class counts of the rows each rule decides (``"set"``, ``"list"``), Laplace-smoothed by
:meth:`Ruleset.predict_proba`, or the slope of a Platt scaling of the score (``"score"``).

The JSON form carries ``format_version`` (:data:`FORMAT_VERSION`); ``from_dict``/``from_json`` check
structure, types and values before building anything, and every error names the offending field.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar, Hashable, Iterable, Mapping, Sequence, TypeVar

import numpy as np
import pandas as pd

from optrules.search_kernel import sorted_positions
from optrules.weights import validate_sample_weight

__all__ = [
    "Interval",
    "Condition",
    "NumericCondition",
    "CategoricalCondition",
    "Rule",
    "LinearTerm",
    "Ruleset",
    "RULESET_KINDS",
    "FORMAT_VERSION",
    "first_firing",
]

RULESET_KINDS = ("set", "list", "score")


def first_firing(fired: np.ndarray) -> np.ndarray:
    """Per sample (row of the samples x rules matrix ``fired``), the index of the first rule that
    fires, or the number of rules when none does: the rule that decides in a decision list."""
    n_rules = fired.shape[1]
    if n_rules == 0:
        return np.zeros(fired.shape[0], dtype=np.int64)
    return np.where(fired.any(axis=1), fired.argmax(axis=1), n_rules)

#: The version of the dictionary / JSON form that ``Ruleset.to_dict`` writes. A file without a
#: ``format_version`` predates it and reads as version 1; a newer version is refused.
FORMAT_VERSION = 1

#: A Platt slope ``a`` is kept within [_SLOPE_FLOOR, _LOGIT_CAP] / max|training score|: the logit
#: ``a * s`` of the training scores stays within +-30 (probabilities 1e-13 from 0 and 1), and a score
#: no better than chance still gets a positive slope.
_LOGIT_CAP = 30.0
_SLOPE_FLOOR = 1e-6

_Built = TypeVar("_Built")

_NO_PROBABILITIES = ("this ruleset has no probability estimates: it was built without training counts; "
                     "call fit_probabilities(X, y)")


def format_number(value: float) -> str:
    """A cut point as text that reads back as the same float, so that a printed rule means exactly
    what the model computes: the shortest decimal that round-trips, written positionally (``40``,
    ``0.529``, ``40.712835``, ``100000000000000000000``), with an exponent only below 1e-6 in
    magnitude (``1e-07``; positionally it would print as many zeros). A rounded threshold
    (``40.7128`` for 40.712835) would sit on the wrong side of some values."""
    x = float(value)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0:
        return "0"  # also -0.0
    if abs(x) < 1e-6:
        return repr(x)
    return np.format_float_positional(x, unique=True, trim="-")


def _to_python(value: Any) -> Any:
    """Turn numpy scalars into plain Python values so they print and serialise naturally."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _written(value: Any) -> str:
    """How a value is written: its ``str`` (numpy scalars as the Python value)."""
    return str(_to_python(value))


def _other_spelling(value: Any) -> str | None:
    """An integral number's other spelling (``'1.0'`` for ``1``, ``'1'`` for ``1.0``), else None."""
    plain = _to_python(value)
    if isinstance(plain, float) and plain.is_integer():
        return str(int(plain))
    if isinstance(plain, int) and not isinstance(plain, bool) and abs(plain) <= 2 ** 53:
        return str(float(plain))
    return None


def match_by_text(feature: str, unseen: Mapping[int, Any], categories: Sequence[Hashable]) -> dict[int, Any]:
    """Key -> the one category of ``categories`` written as the value ``unseen[key]`` (a value equal to
    none of them); ``ValueError`` when several are. A value is matched first to the categories whose
    ``str`` equals its own (``3`` to ``'3'``, as a CSV read back gives it); when there is none, to
    those whose ``str`` equals its other spelling, or whose other spelling equals its ``str``
    (``3.0`` to ``'3'``: a column of codes with missing values reads as floats)."""
    written: dict[str, list[Any]] = {}
    spelled: dict[str, list[Any]] = {}
    for category in categories:
        if _missing_value(category):
            continue  # None stands for "no present value": never matched by the text "None" or "nan"
        written.setdefault(_written(category), []).append(category)
        spelling = _other_spelling(category)
        if spelling is not None:
            spelled.setdefault(spelling, []).append(category)
    matches = {}
    for key, value in unseen.items():
        text, spelling = _written(value), _other_spelling(value)
        candidates = written.get(text, [])
        if not candidates:
            respelled = written.get(spelling, []) if spelling is not None else []
            candidates = list(dict.fromkeys([*respelled, *spelled.get(text, [])]))
        if len(candidates) > 1:
            raise ValueError(f"feature {feature!r}: the value {_to_python(value)!r} was never seen in training and "
                             f"is written as several training categories {candidates}; convert the column to the "
                             "type it had in training")
        if candidates:
            matches[key] = candidates[0]
    return matches


#: Texts that a printed rule or scorecard uses for a missing or absent value; a category so written is quoted.
_MISSING_WORDS = frozenset({"None", "nan", "NaN", "missing"})


def category_text(category: Any) -> str:
    """A category as a printed rule shows it: its text, quoted when the text alone would misread the
    set it stands in (empty, with a separator or a brace, or with spaces at either end: the single
    category ``"red, green"`` is not red and green), or read as a missing value: the text ``"None"``
    is printed ``'None'``, apart from the category None that stands for "no present value", and
    ``"missing"`` apart from a scorecard's missing value."""
    text = _written(category)
    if not text or text != text.strip() or any(mark in text for mark in ",{}"):
        return repr(text)
    if isinstance(category, str) and text in _MISSING_WORDS:
        return repr(text)
    return text


def same_text_values(values: Iterable[Any]) -> list[tuple[Any, ...]]:
    """The groups of distinct present values that :func:`match_by_text` takes for one another (``1``
    and ``'1'``, ``2.0`` and ``'2'``, ``True`` and ``'True'``): in one column they print alike, and a
    Ruleset, which keeps only the categories its rules name, would match one to the other."""
    by_text: dict[str, list[Any]] = {}
    for value in values:
        if _missing_value(value):
            continue
        for text in {_written(value), _other_spelling(value)} - {None}:
            by_text.setdefault(text, []).append(value)
    return list(dict.fromkeys(tuple(group) for group in by_text.values() if len(group) > 1))


def _as_categories(feature: str, column: np.ndarray, categories: set[Any]) -> np.ndarray:
    """``column`` with every value that equals no category of ``categories`` but is written as one
    replaced by that category (:func:`match_by_text`); missing values and values written as none
    are left as they are. The distinct values are checked first (a few milliseconds for 10^5 rows),
    and the column is copied only when something is replaced."""
    column = np.asarray(column, dtype=object)
    unseen = {k: v for k, v in enumerate(pd.unique(column)) if not _missing_value(v) and v not in categories}
    matches = match_by_text(feature, unseen, list(categories)) if unseen else {}
    if not matches:
        return column
    replaced = {unseen[k]: category for k, category in matches.items()}
    return np.array([v if _missing_value(v) else replaced.get(v, v) for v in column.tolist()], dtype=object)


def _is_nan(value: Any) -> bool:
    """Whether one value is a float NaN (a tuple or a string never is)."""
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _missing_value(value: Any) -> bool:
    """Whether one value is missing (None, NaN, pd.NA, NaT); a tuple is a value, never missing."""
    return value is None or value is pd.NA or value is pd.NaT or _is_nan(value)


def column_positions(X: pd.DataFrame, features: Iterable[str]) -> dict[str, int]:
    """The position of each of ``features`` among the columns of X, matched by name as text (the
    column ``0`` is the feature ``"0"``); features X lacks are left out. A feature that two columns
    of X name (``0`` and ``"0"``, or a repeated name) is a ``ValueError``: which one the model reads
    would be a guess."""
    positions: dict[str, int] = {}
    wanted = set(features)
    for i, column in enumerate(X.columns):
        name = str(column)
        if name in wanted:
            if name in positions:
                raise ValueError(f"X has more than one column named {name!r} (names are compared as text, "
                                 "so 0 and '0' are the same); keep one")
            positions[name] = i
    return positions


def factorize_labels(labels: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """``(codes, distinct)`` of a 1-d object array of labels, by hashing (vectorised).

    ``distinct`` holds one representative per group in order of first occurrence and
    ``labels[i]`` equals ``distinct[codes[i]]``. Groups never join labels Python holds unequal
    (except None with NaN, which no class label is), so a per-label function of the value, mapped
    over ``distinct`` and read back through ``codes``, gives what the same function gives label by
    label.
    """
    codes, distinct = pd.factorize(labels, use_na_sentinel=False)
    return np.asarray(codes, dtype=np.intp), list(distinct)


def _json_value(value: Any) -> Any:
    """A JSON-safe, type-preserving encoding of a category or class label."""
    value = _to_python(value)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return {"float": repr(value)}
    if isinstance(value, tuple):
        return {"tuple": [_json_value(v) for v in value]}
    raise TypeError(f"cannot serialise label or category {value!r} of type {type(value).__name__}")


def serialisable(value: Any) -> bool:
    """Whether a category or class label can be written to JSON (:meth:`Ruleset.to_json`)."""
    try:
        _json_value(value)
    except TypeError:
        return False
    return True


def _object_scalar(value: Any) -> np.ndarray:
    """A one-element object array holding ``value``: assigning it through a boolean mask broadcasts the
    value whole, whereas assigning a tuple label directly would spread its items over the samples."""
    holder = np.empty(1, dtype=object)
    holder[0] = value
    return holder


def _sort_key(value: Any) -> tuple[str, str]:
    """Deterministic order for category sets of mixed types."""
    return (type(value).__name__, str(value))


# ---------------------------------------------------------------------- reading serialised data
# Every reader takes the dotted ``path`` of the value it reads: its first segment names the object
# being read ("ruleset", "rule", ...), the rest the field inside it ("rules[2].conditions[0].kind").

def _field_name(path: str) -> str:
    """``"ruleset.rules[2].kind"`` -> ``"ruleset field 'rules[2].kind'"``; a bare root stays as it is."""
    root, _, inner = path.partition(".")
    return f"{root} field '{inner}'" if inner else root


def _shown(value: Any) -> str:
    """A short repr of an offending value for an error message."""
    text = repr(_to_python(value))
    return text if len(text) <= 80 else text[:77] + "..."


def _must(path: str, requirement: str, got: Any) -> ValueError:
    """``"<field> must <requirement>, got <got>"``."""
    return ValueError(f"{_field_name(path)} must {requirement}, got {_shown(got)}")


def _invalid(path: str, problem: str) -> ValueError:
    """``"<field>: <problem>"``."""
    return ValueError(f"{_field_name(path)}: {problem}")


def _read_mapping(data: Any, path: str, required: tuple[str, ...],
                  optional: tuple[str, ...] = ()) -> Mapping[str, Any]:
    """``data`` as a mapping with all of ``required`` and nothing outside ``required + optional``."""
    if not isinstance(data, Mapping):
        raise _must(path, "be a mapping", data)
    known = required + optional
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        raise _invalid(path, f"unknown field(s) {unknown}; the fields are {list(known)}")
    missing = [key for key in required if key not in data]
    if missing:
        raise _invalid(path, f"missing required field(s) {missing}")
    return data


def _read_list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, (list, tuple, np.ndarray)):
        raise _must(path, "be a list", value)
    return list(value)


def _read_str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise _must(path, "be a string", value)
    return value


def _read_bool(value: Any, path: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise _must(path, "be a boolean", value)
    return bool(value)


def _is_number(value: Any) -> bool:
    """True for ints and floats (numpy's too), False for booleans."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _read_number(value: Any, path: str, requirement: str = "be a finite number") -> float:
    """A finite real number as a float (an int too large for a float is not finite)."""
    if _is_number(value):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if math.isfinite(number):
            return number
    raise _must(path, requirement, value)


def _read_optional_number(value: Any, path: str) -> float | None:
    return None if value is None else _read_number(value, path, "be a finite number or null")


def _fits_a_float(value: Any) -> bool:
    """Whether a JSON number converts to a float (an integer of 400 digits does not)."""
    try:
        float(value)
    except OverflowError:
        return False
    return True


def _read_count(value: Any, path: str) -> float | None:
    """A rule's training count: a finite number >= 0 (a weighted count need not be whole), or null."""
    if value is None:
        return None
    if (isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
            and _fits_a_float(value) and math.isfinite(value) and value >= 0):
        return value
    raise _must(path, "be a non-negative finite number or null", value)


def _read_bound(value: Any, path: str) -> float:
    """An interval end: a finite number, or the strings ``"inf"`` / ``"-inf"`` that :func:`_json_float` writes."""
    if isinstance(value, str) and value in ("inf", "-inf"):
        return float(value)
    return _read_number(value, path, "be a finite number or 'inf' / '-inf'")


def _read_label(value: Any, path: str) -> Any:
    """Decode a class label or category written by :func:`_json_value` (a bare finite float is read too)."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, Mapping) and len(value) == 1:
        if "float" in value and isinstance(value["float"], str):
            try:
                number = float(value["float"])
            except ValueError:
                raise _must(f"{path}.float", "be the text of a float", value["float"]) from None
            if math.isnan(number):
                raise _invalid(f"{path}.float", "NaN is not a label or category")
            return number
        if "tuple" in value:
            items = _read_list(value["tuple"], f"{path}.tuple")
            return tuple(_read_label(item, f"{path}.tuple[{i}]") for i, item in enumerate(items))
    raise _must(path, "be a label or category (null, boolean, string, integer, {'float': text} or "
                "{'tuple': [...]})", value)


def _check_among(value: Any, allowed: Sequence[Any], what: str, path: str) -> None:
    if value not in allowed:
        raise _invalid(path, f"{_shown(value)} is not one of the {what} {_shown(list(allowed))}")


def _built(path: str, factory: Callable[..., _Built], *args: Any) -> _Built:
    """``factory(*args)``, its ValueError (an empty interval, say) prefixed with the field it came from."""
    try:
        return factory(*args)
    except ValueError as error:
        raise _invalid(path, str(error)) from None


def _check_format_version(version: Any) -> None:
    if isinstance(version, (bool, np.bool_)) or not isinstance(version, (int, np.integer)) or version < 1:
        raise _must("ruleset.format_version", "be a positive integer", version)
    if version > FORMAT_VERSION:
        raise ValueError(f"this ruleset was written in format version {version}; this optrules reads format "
                         f"version {FORMAT_VERSION} at most: upgrade optrules")


def _read_class_counts(value: Any, kind: str, n_rules: int, n_classes: int,
                       path: str) -> tuple[tuple[float, ...], ...]:
    """Training class counts: empty, or one row per rule and one for the default, one entry per class."""
    rows = _read_list(value, path)
    if not rows:
        return ()
    if kind == "score":
        raise _invalid(path, "a 'score' ruleset has no class counts: its probabilities come from `calibration`")
    if len(rows) != n_rules + 1:
        raise _must(path, f"have {n_rules + 1} rows (one per rule, then one for the default)", len(rows))
    counts = []
    for r, row in enumerate(rows):
        entries = _read_list(row, f"{path}[{r}]")
        if len(entries) != n_classes:
            raise _must(f"{path}[{r}]", f"have {n_classes} entries (one per class)", len(entries))
        requirement = "be a finite non-negative number"
        row_counts = tuple(_read_number(v, f"{path}[{r}][{c}]", requirement) for c, v in enumerate(entries))
        for c, count in enumerate(row_counts):
            if count < 0:
                raise _must(f"{path}[{r}][{c}]", requirement, entries[c])
        counts.append(row_counts)
    return tuple(counts)


def _read_calibration(value: Any, kind: str, path: str) -> float | None:
    """A scorecard's Platt slope: None, or a finite positive number."""
    if value is None:
        return None
    if kind != "score":
        raise _invalid(path, f"only a 'score' ruleset has a calibration; a {kind!r} ruleset uses `class_counts`")
    slope = _read_number(value, path, "be a finite positive number or null")
    if not slope > 0:
        raise _must(path, "be a finite positive number or null", value)
    return slope


# ---------------------------------------------------------------------- probabilities

def _sigmoid(t: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-t)) without overflow."""
    small = np.exp(-np.abs(t))
    return np.where(t >= 0, 1.0 / (1.0 + small), small / (1.0 + small))


def _platt_slope(score: np.ndarray, is_positive: np.ndarray, weights: np.ndarray) -> float:
    """The weighted maximum-likelihood slope a of P(positive | s) = sigmoid(a * s), within the caps.

    In the scaled slope b = a * max|s| (rows of positive weight and nonzero score only: the others
    do not depend on a) the log-likelihood is concave; its maximum over
    [_SLOPE_FLOOR, _LOGIT_CAP] is an end when the derivative has one sign there, else the root of
    the derivative, found by Newton steps kept inside a shrinking bracket (bisection when a step
    leaves it). No informative row: a = 1.
    """
    active = (weights > 0) & (score != 0)
    if not active.any():
        return 1.0
    largest = float(np.abs(score[active]).max())
    margin = np.where(is_positive, score, -score)[active] / largest  # in [-1, 1]
    weight = weights[active]

    def gradient(b: float) -> float:
        return float(np.sum(weight * margin * _sigmoid(-b * margin)))

    low, high = _SLOPE_FLOOR, _LOGIT_CAP
    if gradient(high) >= 0:  # separable, or nearly: the likelihood still grows at the cap
        return high / largest
    if gradient(low) <= 0:  # the score is no better than chance: the flattest allowed slope
        return low / largest
    b = 1.0
    for _ in range(200):
        slope = gradient(b)
        if slope > 0:
            low = b
        else:
            high = b
        curvature = -float(np.sum(weight * margin ** 2 * _sigmoid(b * margin) * _sigmoid(-b * margin)))
        newton = b - slope / curvature if curvature < 0 else math.nan
        following = newton if low < newton < high else (low + high) / 2
        if abs(following - b) <= 1e-13 * b:
            return following / largest
        b = following
    return b / largest


@dataclass(frozen=True)
class Interval:
    """A real interval with explicit open/closed ends; ``low=-inf`` prints as ``min``, ``high=inf`` as ``max``."""

    low: float
    high: float
    low_closed: bool = True
    high_closed: bool = False

    def __post_init__(self) -> None:
        if math.isnan(self.low) or math.isnan(self.high):
            raise ValueError("interval ends must not be NaN")
        if self.low > self.high:
            raise ValueError(f"empty interval: low {self.low} > high {self.high}")

    def contains(self, values: np.ndarray) -> np.ndarray:
        """Vectorised membership; NaN is never inside an interval."""
        lower = values >= self.low if self.low_closed else values > self.low
        upper = values <= self.high if self.high_closed else values < self.high
        return lower & upper

    def __str__(self) -> str:
        left = "min" if self.low == -math.inf else format_number(self.low)
        right = "max" if self.high == math.inf else format_number(self.high)
        # The paper closes an unbounded end with a bracket: "[min, 40)", "[20, max]".
        opening = "[" if (self.low_closed or self.low == -math.inf) else "("
        closing = "]" if (self.high_closed or self.high == math.inf) else ")"
        return f"{opening}{left}, {right}{closing}"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data; infinite ends are written as the strings ``"inf"`` / ``"-inf"``."""
        return {"low": _json_float(self.low), "high": _json_float(self.high),
                "low_closed": self.low_closed, "high_closed": self.high_closed}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "interval") -> Interval:
        """Inverse of :meth:`to_dict`, validated; errors name the field (``path`` is where ``data`` sits)."""
        data = _read_mapping(data, path, ("low", "high", "low_closed", "high_closed"))
        return _built(path, cls, _read_bound(data["low"], f"{path}.low"),
                      _read_bound(data["high"], f"{path}.high"),
                      _read_bool(data["low_closed"], f"{path}.low_closed"),
                      _read_bool(data["high_closed"], f"{path}.high_closed"))


def _json_float(value: float) -> float | str:
    """A float for strict JSON: infinities become ``"inf"`` / ``"-inf"``."""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return float(value)


def _column_as_float(feature: str, column: np.ndarray) -> np.ndarray:
    try:
        return np.asarray(pd.to_numeric(pd.Series(column, copy=False), errors="raise"), dtype=float)
    except (ValueError, TypeError) as error:
        raise ValueError(f"feature {feature!r} must be numeric for the condition on it: {error}") from None


def _finite(value: Any, what: str) -> float:
    """``value`` as a finite float; ``ValueError`` naming ``what`` otherwise (a file ``from_json`` would
    refuse must not be made)."""
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return number


def _is_class(label: Any, classes: Sequence[Any]) -> bool:
    """Whether ``label`` is one of ``classes``, of the same type (``True`` and ``1.0`` are not ``1``)."""
    return any(type(c) is type(label) and c == label for c in classes)


def _check_classes(classes: Sequence[Any]) -> None:
    """Classes are distinct (``1`` and ``True`` are equal, so they cannot both be classes) and none is NaN."""
    if any(map(_is_nan, classes)):
        raise ValueError("NaN is not a class")
    if len(set(classes)) != len(classes):
        raise ValueError(f"the classes must be distinct, got {list(classes)}")


def _missing_mask(column: np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(column), dtype=bool)


@dataclass(frozen=True)
class Condition:
    """One atom on one feature. ``missing`` says whether a missing value satisfies it."""

    feature: str
    missing: bool

    kind: ClassVar[str] = ""

    def evaluate(self, column: np.ndarray) -> np.ndarray:
        """Boolean mask over the samples of ``column`` (one feature's values)."""
        raise TypeError("Condition is abstract: use NumericCondition or CategoricalCondition")

    def to_dict(self) -> dict[str, Any]:
        raise TypeError("Condition is abstract: use NumericCondition or CategoricalCondition")

    @staticmethod
    def from_dict(data: Mapping[str, Any], path: str = "condition") -> Condition:
        """Inverse of ``to_dict`` for either kind, validated; errors name the field (``path`` is where
        ``data`` sits)."""
        kind = _read_mapping(data, path, ("kind",), ("feature", "missing", "intervals", "categories",
                                                     "negated"))["kind"]
        if kind == NumericCondition.kind:
            data = _read_mapping(data, path, ("kind", "feature", "missing", "intervals"))
            intervals = [Interval.from_dict(item, f"{path}.intervals[{i}]")
                         for i, item in enumerate(_read_list(data["intervals"], f"{path}.intervals"))]
            return _built(path, NumericCondition, _read_str(data["feature"], f"{path}.feature"), intervals,
                          _read_bool(data["missing"], f"{path}.missing"))
        if kind == CategoricalCondition.kind:
            data = _read_mapping(data, path, ("kind", "feature", "missing", "categories", "negated"))
            categories = _read_list(data["categories"], f"{path}.categories")
            return _built(path, CategoricalCondition, _read_str(data["feature"], f"{path}.feature"),
                          tuple(_read_label(c, f"{path}.categories[{i}]") for i, c in enumerate(categories)),
                          _read_bool(data["negated"], f"{path}.negated"),
                          _read_bool(data["missing"], f"{path}.missing"))
        raise _invalid(f"{path}.kind", f"unknown condition kind {_shown(kind)}; expected "
                       f"{NumericCondition.kind!r} or {CategoricalCondition.kind!r}")

    def _missing_text(self) -> str:
        return " or missing" if self.missing else ""


def _intervals_of(lows: np.ndarray, highs: np.ndarray, low_closed: np.ndarray,
                  high_closed: np.ndarray) -> tuple[Interval, ...]:
    """One :class:`Interval` per entry of the arrays of ends and closedness."""
    return tuple(Interval(*ends) for ends in zip(lows.tolist(), highs.tolist(), low_closed.tolist(),
                                                 high_closed.tolist()))


def _without_repeats(values: np.ndarray) -> np.ndarray:
    """The distinct values of a non-decreasing array, in order (``np.unique`` without its sort)."""
    keep = np.ones(values.size, dtype=bool)
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _merged_ends(ends: list[np.ndarray]) -> np.ndarray:
    """The distinct values of several sorted arrays, sorted: a stable sort of their concatenation
    (a merge of its sorted runs), then the repeats dropped."""
    return _without_repeats(np.sort(np.concatenate(ends), kind="stable"))


def line_pieces(ends: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The piece of the line cut by the sorted distinct ``ends`` that holds each value.

    The ``m`` ends cut the line into ``2m + 1`` pieces, in order: the open gap below ``ends[0]``
    (piece 0), the point ``ends[0]`` (piece 1), the gap up to ``ends[1]`` (piece 2), ... , the gap
    above ``ends[m - 1]`` (piece ``2m``). Membership in a union of intervals with these ends is
    constant on each piece (:meth:`NumericCondition.membership`). NaN falls in piece ``2m``. The
    binary searches are :func:`optrules.search_kernel.sorted_positions` (``np.searchsorted``'s result,
    several times faster on many values).
    """
    below = sorted_positions(ends, np.ascontiguousarray(values, dtype=np.float64))  # ends below the value
    on_end = ends[np.minimum(below, ends.size - 1)] == values
    return 2 * below + on_end


@dataclass(frozen=True, eq=False)
class NumericCondition(Condition):
    """``feature in I_1 or I_2 ...``: a union of disjoint intervals, kept sorted.

    Two conditions are equal when they name the same feature, treat missing values alike and have
    the same intervals (compared as arrays of ends and closedness, so a condition of thousands of
    intervals compares and hashes without making an :class:`Interval` per interval)."""

    intervals: tuple[Interval, ...]  # no class default: from_bounds leaves it to __getattr__
    kind: ClassVar[str] = "numeric"

    def __init__(self, feature: str, intervals: Iterable[Interval], missing: bool = False) -> None:
        ordered = tuple(sorted(intervals, key=lambda i: (i.low, not i.low_closed)))
        if not ordered:
            raise ValueError(f"numeric condition on {feature!r} needs at least one interval")
        object.__setattr__(self, "feature", str(feature))
        object.__setattr__(self, "missing", bool(missing))
        object.__setattr__(self, "intervals", ordered)

    @classmethod
    def from_bounds(cls, feature: str, lows: Any, highs: Any, low_closed: Any, high_closed: Any,
                    missing: bool = False) -> NumericCondition:
        """``feature in I_1 or I_2 ...`` with ``I_k`` from the k-th entry of each array of interval ends
        and closedness: the same condition as the constructor gives for those intervals. When the low
        ends already increase (a LIBRE rule decoded on finely binned data has thousands of intervals,
        in order) the arrays are kept as they are and the :class:`Interval` objects are made only if
        ``intervals`` is read."""
        lows, highs = np.asarray(lows, dtype=float).reshape(-1), np.asarray(highs, dtype=float).reshape(-1)
        if highs.shape != lows.shape:
            raise ValueError(f"{lows.size} low ends for {highs.size} high ends")
        if not lows.size:
            raise ValueError(f"numeric condition on {feature!r} needs at least one interval")
        if np.isnan(lows).any() or np.isnan(highs).any():
            raise ValueError("interval ends must not be NaN")
        empty = np.flatnonzero(lows > highs)
        if empty.size:
            raise ValueError(f"empty interval: low {lows[empty[0]]} > high {highs[empty[0]]}")
        low_closed = np.array(np.broadcast_to(np.asarray(low_closed, dtype=bool), lows.shape))
        high_closed = np.array(np.broadcast_to(np.asarray(high_closed, dtype=bool), lows.shape))
        if not np.all(lows[1:] > lows[:-1]):  # not in the constructor's order: let it sort
            return cls(feature, _intervals_of(lows, highs, low_closed, high_closed), missing)
        condition = cls.__new__(cls)
        object.__setattr__(condition, "feature", str(feature))
        object.__setattr__(condition, "missing", bool(missing))
        object.__setattr__(condition, "_bounds", (lows, highs, low_closed, high_closed))
        return condition

    def __getattr__(self, name: str) -> Any:
        # ``intervals`` of a condition made by from_bounds: its Interval objects, made on first use
        bounds = self.__dict__.get("_bounds")
        if name != "intervals" or bounds is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        intervals = _intervals_of(*bounds)
        object.__setattr__(self, "intervals", intervals)
        return intervals

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The intervals' low ends, high ends, low and high closedness as arrays (computed once)."""
        bounds = self.__dict__.get("_bounds")
        if bounds is None:
            bounds = (np.array([i.low for i in self.intervals], dtype=float),
                      np.array([i.high for i in self.intervals], dtype=float),
                      np.array([i.low_closed for i in self.intervals], dtype=bool),
                      np.array([i.high_closed for i in self.intervals], dtype=bool))
            object.__setattr__(self, "_bounds", bounds)
        return bounds

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return (self.feature == other.feature and self.missing == other.missing
                and all(np.array_equal(a, b) for a, b in zip(self._arrays(), other._arrays())))

    def __hash__(self) -> int:
        # A few intervals stand for all of them: equal conditions still hash equal, and a condition
        # of thousands of intervals hashes in constant time.
        lows, highs, low_closed, high_closed = self._arrays()
        picks = (0, lows.size // 2, lows.size - 1)
        return hash((self.feature, self.missing, lows.size,
                     tuple((float(lows[k]), float(highs[k]), bool(low_closed[k]), bool(high_closed[k])) for k in picks)))

    def ends(self) -> np.ndarray:
        """The distinct interval ends, sorted. When the intervals are sorted and disjoint (a decoded
        rule's are) their ends in the order low, high, low, high, ... do not decrease, and only the
        repeats (an interval ending where the next one starts, a point interval) are dropped,
        without a sort; otherwise the ends are sorted."""
        lows, highs, _, _ = self._arrays()
        ends = np.empty(2 * lows.size)
        ends[0::2], ends[1::2] = lows, highs
        if np.all(ends[1:] >= ends[:-1]):
            return _without_repeats(ends)
        return np.unique(ends)  # intervals given out of order or overlapping

    def membership(self, ends: np.ndarray) -> np.ndarray:
        """Which pieces of the line cut by ``ends`` lie inside the condition (see :func:`line_pieces`).

        ``ends`` must hold every end of the condition's intervals. Piece ``2j + 1`` is the point
        ``ends[j]``, piece ``2j`` the open gap just below it, piece ``2m`` the gap above the last
        end. Each interval covers a contiguous run of pieces, from its low end (the point when
        closed, else the gap above it) to its high end (the point when closed, else the gap below
        it), marked in a difference array: ``O(intervals + ends)``.
        """
        low_ends, high_ends, low_closed, high_closed = self._arrays()
        lows = np.searchsorted(ends, low_ends)
        highs = np.searchsorted(ends, high_ends)
        first = 2 * lows + np.where(low_closed, 1, 2)
        last = 2 * highs + np.where(high_closed, 1, 0)
        keep = first <= last  # [a, a), (a, a] are empty
        steps = np.zeros(2 * ends.size + 2, dtype=np.int64)
        np.add.at(steps, first[keep], 1)
        np.add.at(steps, last[keep] + 1, -1)
        return np.cumsum(steps[:-1]) > 0

    def evaluate(self, column: np.ndarray) -> np.ndarray:
        """Membership of every value by one binary search, whatever the number of intervals."""
        values = _column_as_float(self.feature, column)
        ends = self.ends()
        return self.inside(self.membership(ends), line_pieces(ends, values), np.isnan(values))

    def inside(self, membership: np.ndarray, pieces: np.ndarray, nan: np.ndarray) -> np.ndarray:
        """The condition on values given by their :func:`line_pieces` and NaN mask."""
        inside = membership[pieces]
        inside[nan] = self.missing
        return inside

    def __str__(self) -> str:
        ranges = ", ".join(str(i) for i in self.intervals)
        return f"{self.feature} in {ranges}{self._missing_text()}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "feature": self.feature, "missing": self.missing,
                "intervals": [i.to_dict() for i in self.intervals]}


@dataclass(frozen=True)
class CategoricalCondition(Condition):
    """``feature in {a, b}`` or, negated, ``feature not in {a, b}``.

    A category never seen in training belongs to no set: it fails ``in`` and satisfies ``not in``.
    The set may be empty only for ``feature is missing`` (not negated, ``missing=True``): a scorecard
    cluster that holds just the missing value.
    """

    categories: tuple[Any, ...] = ()
    negated: bool = False
    kind: ClassVar[str] = "categorical"

    def __init__(self, feature: str, categories: Iterable[Hashable], negated: bool = False,
                 missing: bool = False) -> None:
        unique = {_to_python(c) for c in categories}
        if any(map(_is_nan, unique)):
            raise ValueError(f"categorical condition on {feature!r}: NaN is not a category (a missing value is "
                             "missing=True)")
        if not unique and (negated or not missing):
            raise ValueError(f"categorical condition on {feature!r} needs at least one category "
                             "(only `feature is missing` may have none)")
        object.__setattr__(self, "feature", str(feature))
        object.__setattr__(self, "missing", bool(missing))
        object.__setattr__(self, "categories", tuple(sorted(unique, key=_sort_key)))
        object.__setattr__(self, "negated", bool(negated))

    def evaluate(self, column: np.ndarray) -> np.ndarray:
        column = np.asarray(column, dtype=object)
        missing = _missing_mask(column)
        member = pd.Series(column).isin(self.categories).to_numpy()
        inside = ~member if self.negated else member
        return np.where(missing, self.missing, inside & ~missing)

    def __str__(self) -> str:
        if not self.categories:
            return f"{self.feature} is missing"
        operator = "not in" if self.negated else "in"
        return f"{self.feature} {operator} {{{self.categories_text()}}}{self._missing_text()}"

    def categories_text(self) -> str:
        """The categories as the printed rule lists them, comma-separated (:func:`category_text`)."""
        return ", ".join(category_text(c) for c in self.categories)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "feature": self.feature, "missing": self.missing,
                "categories": [_json_value(c) for c in self.categories], "negated": self.negated}


@dataclass(frozen=True)
class Rule:
    """A conjunction of conditions with its consequent class.

    ``weight`` is the rule's score in a scorecard; ``n_positive``/``n_negative`` are the training
    rows of the consequent class / of other classes that the rule covers (in a ``"list"``: that it
    decides), each row counted with its sample weight, when known (:meth:`Ruleset.fit_probabilities`
    sets them). Whole numbers are kept as ints.
    """

    conditions: tuple[Condition, ...]
    prediction: Hashable
    weight: float | None = None
    n_positive: float | None = None
    n_negative: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "conditions", tuple(self.conditions))
        object.__setattr__(self, "prediction", _to_python(self.prediction))
        if self.weight is not None:
            object.__setattr__(self, "weight", _finite(self.weight, "a rule's weight"))
        # Counts often arrive as numpy numbers, which JSON cannot serialise; whole ones print as ints.
        for name in ("n_positive", "n_negative"):
            if getattr(self, name) is not None:
                count = _finite(getattr(self, name), f"a rule's {name}")
                if count < 0:
                    raise ValueError(f"a rule's {name} must be >= 0, got {count}")
                object.__setattr__(self, name, int(count) if count.is_integer() else count)

    @property
    def n_atoms(self) -> int:
        return len(self.conditions)

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.feature for c in self.conditions))

    def antecedent(self) -> str:
        if not self.conditions:
            return "TRUE"
        return " AND ".join(str(c) for c in self.conditions)

    def __str__(self) -> str:
        return f"IF {self.antecedent()} THEN {self.prediction}"

    def to_dict(self) -> dict[str, Any]:
        return {"conditions": [c.to_dict() for c in self.conditions],
                "prediction": _json_value(self.prediction), "weight": self.weight,
                "n_positive": self.n_positive, "n_negative": self.n_negative}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "rule") -> Rule:
        """Inverse of :meth:`to_dict`, validated; errors name the field (``path`` is where ``data`` sits)."""
        data = _read_mapping(data, path, ("conditions", "prediction"), ("weight", "n_positive", "n_negative"))
        conditions = _read_list(data["conditions"], f"{path}.conditions")
        return cls(tuple(Condition.from_dict(c, f"{path}.conditions[{i}]") for i, c in enumerate(conditions)),
                   _read_label(data["prediction"], f"{path}.prediction"),
                   _read_optional_number(data.get("weight"), f"{path}.weight"),
                   _read_count(data.get("n_positive"), f"{path}.n_positive"),
                   _read_count(data.get("n_negative"), f"{path}.n_negative"))


@dataclass(frozen=True)
class LinearTerm:
    """A scorecard's numeric term: ``coefficient * (x - center) / scale``; a missing x contributes 0."""

    feature: str
    coefficient: float
    center: float = 0.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        for name in ("coefficient", "center", "scale"):
            object.__setattr__(self, name, _finite(getattr(self, name), f"the {name} of {self.feature!r}"))
        if not self.scale > 0:
            raise ValueError(f"scale of {self.feature!r} must be positive, got {self.scale}")

    def contribution(self, column: np.ndarray) -> np.ndarray:
        values = _column_as_float(self.feature, column)
        return np.nan_to_num(self.coefficient * (values - self.center) / self.scale, nan=0.0)

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature, "coefficient": self.coefficient, "center": self.center,
                "scale": self.scale}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "linear term") -> LinearTerm:
        """Inverse of :meth:`to_dict`, validated; errors name the field (``path`` is where ``data`` sits)."""
        data = _read_mapping(data, path, ("feature", "coefficient", "center", "scale"))
        scale = _read_number(data["scale"], f"{path}.scale", "be a finite positive number")
        if not scale > 0:
            raise _must(f"{path}.scale", "be a finite positive number", data["scale"])
        return cls(_read_str(data["feature"], f"{path}.feature"),
                   _read_number(data["coefficient"], f"{path}.coefficient"),
                   _read_number(data["center"], f"{path}.center"), scale)


@dataclass(frozen=True)
class Ruleset:
    """The learned model of any optrules method (see the module docstring for the kinds).

    ``features`` are the training feature names in order (used to read numpy arrays by position);
    ``classes`` are the training classes; ``positive`` is the class that ``"set"`` rules and a
    positive ``"score"`` predict. ``meta`` carries method, parameters, fit seconds, random state,
    package version and solve reports; it does not take part in equality or hashing.

    The probability estimates (keyword-only, set by :meth:`fit_probabilities`, part of the model and
    of equality): ``class_counts`` of a ``"set"`` or ``"list"`` is empty or has one row per rule and
    a last row for the default, each with one weighted training count per class (in ``classes``
    order); ``calibration`` of a ``"score"`` is None or the positive Platt slope of its score.
    """

    kind: str
    rules: tuple[Rule, ...]
    default: Hashable
    features: tuple[str, ...]
    classes: tuple[Hashable, ...]
    positive: Hashable | None = None
    intercept: float = 0.0
    linear: tuple[LinearTerm, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    class_counts: tuple[tuple[float, ...], ...] = field(default=(), kw_only=True)
    calibration: float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", tuple(self.rules))
        object.__setattr__(self, "features", tuple(str(f) for f in self.features))
        object.__setattr__(self, "classes", tuple(_to_python(c) for c in self.classes))
        object.__setattr__(self, "default", _to_python(self.default))
        object.__setattr__(self, "positive", _to_python(self.positive))
        object.__setattr__(self, "linear", tuple(self.linear))
        object.__setattr__(self, "intercept", _finite(self.intercept, "the intercept"))
        if self.kind not in RULESET_KINDS:
            raise ValueError(f"unknown ruleset kind {self.kind!r}; expected one of {RULESET_KINDS}")
        object.__setattr__(self, "class_counts", _read_class_counts(
            self.class_counts, self.kind, len(self.rules), len(self.classes), "ruleset.class_counts"))
        object.__setattr__(self, "calibration", _read_calibration(self.calibration, self.kind,
                                                                  "ruleset.calibration"))
        if self.kind in ("set", "score") and self.positive is None:
            raise ValueError(f"a {self.kind!r} ruleset needs its positive class")
        _check_classes(self.classes)
        named = [("default class", self.default)]
        named += [("positive class", self.positive)] if self.positive is not None else []
        if self.kind == "list":
            named += [(f"prediction of rules[{k}]", r.prediction) for k, r in enumerate(self.rules)]
        for what, label in named:
            if not _is_class(label, self.classes):
                raise ValueError(f"the {what} {label!r} is not one of the classes {list(self.classes)}")
        if self.kind != "score" and (self.linear or self.intercept):
            raise ValueError("only a 'score' ruleset has an intercept and linear terms")
        if self.kind == "score" and any(r.weight is None for r in self.rules):
            raise ValueError("every rule of a 'score' ruleset needs a weight")
        known = set(self.features)
        used = {c.feature for r in self.rules for c in r.conditions} | {t.feature for t in self.linear}
        unknown = sorted(used - known)
        if unknown:
            raise ValueError(f"rules use features not listed in `features`: {unknown}")

    # ------------------------------------------------------------------ evaluation
    def _columns(self, X: Any, needed: Iterable[str]) -> dict[str, np.ndarray]:
        """The columns of X that the rules read, found by name (DataFrame) or position (array). In a
        column that categorical conditions read, a value equal to none of their categories but written
        as one (``3`` for ``'3'``, as a CSV read back gives it) is taken as that category
        (:func:`match_by_text`), as the estimators' ``predict`` takes it."""
        needed = list(dict.fromkeys(needed))
        if isinstance(X, pd.DataFrame):
            position = column_positions(X, needed)
            missing = [f for f in needed if f not in position]
            if missing:
                raise ValueError(f"X is missing feature column(s) {missing} used by the rules")
            columns = {f: X.iloc[:, position[f]].to_numpy() for f in needed}
        else:
            columns = self._array_columns(X, needed)
        for feature, categories in self._categories_read.items():
            if feature in columns:
                columns[feature] = _as_categories(feature, columns[feature], categories)
        return columns

    @functools.cached_property
    def _categories_read(self) -> dict[str, set[Any]]:
        """Feature -> the categories its categorical conditions name (once per Ruleset: ``covers`` runs
        many times in a tuned experiment)."""
        named: dict[str, set[Any]] = {}
        for rule in self.rules:
            for condition in rule.conditions:
                if isinstance(condition, CategoricalCondition):
                    named.setdefault(condition.feature, set()).update(condition.categories)
        return named

    def _array_columns(self, X: Any, needed: list[str]) -> dict[str, np.ndarray]:
        """The columns of an array X by position, in the order of ``features``."""
        array = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
        if array.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got shape {array.shape}")
        if array.shape[1] != len(self.features):
            raise ValueError(
                f"X has {array.shape[1]} columns but the ruleset was fitted on {len(self.features)} "
                f"features {list(self.features)}; pass a DataFrame to match columns by name"
            )
        position = {name: i for i, name in enumerate(self.features)}
        return {f: array[:, position[f]] for f in needed}

    def _n_samples(self, X: Any) -> int:
        return len(X) if isinstance(X, pd.DataFrame) else np.asarray(X, dtype=object).shape[0]

    def covers(self, X: Any) -> np.ndarray:
        """Boolean matrix (samples x rules): entry (i, r) is True when rule r's antecedent holds for sample i.

        Each sample keeps one bit per rule (64 rules to a word), set until a condition of the rule
        fails. The numeric conditions on one feature are evaluated together: one binary search per
        value finds its piece of the line cut by all their interval ends (:func:`line_pieces`), and
        one table over the pieces holds, for each piece, the bits of the rules whose condition on
        the feature holds there, so a feature costs one lookup per sample whatever the number of
        rules and intervals. Other conditions are evaluated once each on their column and clear
        the bits of their rules where they fail.
        """
        n = self._n_samples(X)
        conditions = list(dict.fromkeys(c for r in self.rules for c in r.conditions))
        columns = self._columns(X, (c.feature for c in conditions))
        words = (len(self.rules) + 63) // 64
        rule_bits = {c: np.zeros(words, dtype="<u8") for c in conditions}  # the bits of a condition's rules
        for j, rule in enumerate(self.rules):
            for condition in rule.conditions:
                rule_bits[condition][j // 64] |= np.uint64(1) << np.uint64(j % 64)
        holds = np.full((n, words), np.iinfo(np.uint64).max, dtype="<u8")
        numeric: dict[str, list[NumericCondition]] = {}
        for c in conditions:
            if isinstance(c, NumericCondition):
                numeric.setdefault(c.feature, []).append(c)
            else:
                holds[~np.asarray(c.evaluate(columns[c.feature]), dtype=bool)] &= ~rule_bits[c]
        for feature, on_feature in numeric.items():
            values = _column_as_float(feature, columns[feature])
            ends = _merged_ends([c.ends() for c in on_feature])
            pieces = line_pieces(ends, values)
            pieces[np.isnan(values)] = 2 * ends.size + 1  # one more piece: the missing values
            table = np.full((2 * ends.size + 2, words), np.iinfo(np.uint64).max, dtype="<u8")
            for c in on_feature:
                table[~np.append(c.membership(ends), c.missing)] &= ~rule_bits[c]
            holds &= table[pieces]
        bits = np.unpackbits(holds.view(np.uint8), axis=1, count=len(self.rules), bitorder="little")
        return bits.view(bool)

    def decision_function(self, X: Any) -> np.ndarray:
        """The scorecard score (kind ``"score"``): intercept + weights of firing rules + linear terms."""
        if self.kind != "score":
            raise AttributeError(f"decision_function is defined for 'score' rulesets, not {self.kind!r}")
        score = np.full(self._n_samples(X), self.intercept, dtype=float)
        if self.rules:
            score += self.covers(X) @ np.array([r.weight for r in self.rules], dtype=float)
        columns = self._columns(X, (t.feature for t in self.linear))
        for term in self.linear:
            score += term.contribution(columns[term.feature])
        return score

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class per sample, as an object array of the training labels."""
        n = self._n_samples(X)
        out = np.empty(n, dtype=object)
        out[:] = [self.default] * n
        if self.kind == "score":
            out[self.decision_function(X) > 0] = _object_scalar(self.positive)
            return out
        if not self.rules:
            self._columns(X, ())  # still validates the shape of X
            return out
        return self.predict_fired(self.covers(X))

    def predict_fired(self, fired: np.ndarray) -> np.ndarray:
        """:meth:`predict` of a ``"set"`` or ``"list"`` from the samples' :meth:`covers` matrix ``fired``."""
        if self.kind == "score":
            raise AttributeError("predict_fired is defined for 'set' and 'list' rulesets; a 'score' needs its "
                                 "linear terms: use predict")
        fired = np.asarray(fired, dtype=bool)
        if fired.ndim != 2 or fired.shape[1] != len(self.rules):
            raise ValueError(f"fired must be a (samples, {len(self.rules)}) matrix, got shape {fired.shape}")
        out = np.empty(fired.shape[0], dtype=object)
        out[:] = [self.default] * fired.shape[0]
        if self.kind == "set":
            out[fired.any(axis=1)] = _object_scalar(self.positive)
            return out
        first = first_firing(fired)
        decided = first < len(self.rules)
        predictions = np.empty(len(self.rules), dtype=object)
        predictions[:] = [r.prediction for r in self.rules]
        out[decided] = predictions[first[decided]]
        return out

    # ------------------------------------------------------------------ probabilities
    def _class_position(self, label: Hashable, role: str) -> int:
        try:
            return self.classes.index(label)
        except ValueError:
            raise ValueError(f"the {role} class {label!r} is not one of the classes "
                             f"{list(self.classes)}") from None

    def _label_positions(self, y: Any, n: int) -> np.ndarray:
        """The position in ``classes`` of every label of ``y`` (n of them)."""
        labels = _label_array(y, n)
        try:
            codes, distinct = factorize_labels(labels)
        except TypeError as error:  # an unhashable label is never a class
            raise ValueError(f"y holds unhashable label(s), which are not among the classes "
                             f"{list(self.classes)}: {error}") from None
        position = {c: k for k, c in enumerate(self.classes)}
        found = np.empty(len(distinct), dtype=int)
        for k, label in enumerate(distinct):
            try:
                found[k] = position[_to_python(label)]
            except (KeyError, TypeError):
                found[k] = -1
        positions = found[codes]
        unknown = np.flatnonzero(positions < 0)
        if unknown.size:
            raise ValueError(f"y holds {unknown.size} label(s) that are not among the classes "
                             f"{list(self.classes)}, e.g. {_shown(labels[unknown[0]])}")
        return positions

    def fit_probabilities(self, X: Any, y: Any, sample_weight: Any = None, fired: Any = None) -> Ruleset:
        """A copy carrying the probability estimates of :meth:`predict_proba`, computed from training data.

        ``X`` as :meth:`predict` takes it, ``y`` one label per row (each one of ``classes``),
        ``sample_weight`` one finite non-negative weight per row (default 1); a weight counts as that
        many copies of the row.

        ``"list"``: row r of ``class_counts`` holds the weighted class counts of the training rows
        whose first firing rule is rule r; the last row those no rule fires on (the default).
        ``"set"``: row r holds those of every training row rule r covers (each rule's own coverage,
        so a row covered by two rules counts in both); the last row those covered by no rule.

        ``"score"``: ``calibration`` is the slope a > 0 of the one-parameter Platt scaling
        P(positive | s) = 1 / (1 + exp(-a * s)) of the score s, fitted by weighted maximum
        likelihood (``positive`` against all other classes) with no intercept, so that P > 1/2
        exactly when the scorecard predicts the positive class (s > 0). When the training scores
        separate the classes (or nearly do) the likelihood keeps growing with a; a is then capped
        where the largest training |a * s| is 30. A scorecard that does no better than chance gets
        the flattest slope allowed, 1e-6 / max|s|. When no training row of positive weight has a
        nonzero score, a = 1.

        ``fired``: the training rows' :meth:`covers` matrix when the caller has it already (``"set"``,
        ``"list"``; not recomputed).

        Each rule of a ``"set"`` or ``"list"`` gets its ``n_positive`` / ``n_negative`` from the same
        counts: the weight of its row's class (its prediction in a list, the positive class in a set)
        and of the other classes.
        """
        n = self._n_samples(X)
        labels = self._label_positions(y, n)
        weights = validate_sample_weight(sample_weight, n, zero_sum=True)
        if self.kind == "score":
            is_positive = labels == self._class_position(self.positive, "positive")
            return replace(self, calibration=_platt_slope(self.decision_function(X), is_positive, weights))
        fired = self.covers(X) if fired is None else np.asarray(fired, dtype=bool)
        if fired.shape != (n, len(self.rules)):
            raise ValueError(f"fired must be a ({n}, {len(self.rules)}) matrix, got shape {fired.shape}")
        if self.kind == "list":
            deciding = np.zeros((n, len(self.rules) + 1))
            deciding[np.arange(n), first_firing(fired)] = 1.0
        else:
            deciding = np.column_stack([fired, ~fired.any(axis=1)]).astype(float)
        weighted_labels = np.zeros((n, len(self.classes)))
        weighted_labels[np.arange(n), labels] = weights
        counts = deciding.T @ weighted_labels
        rules = []
        for rule, row in zip(self.rules, counts):
            hits = row[self._class_position(rule.prediction if self.kind == "list" else self.positive, "prediction")]
            rules.append(replace(rule, n_positive=hits, n_negative=row.sum() - hits))
        return replace(self, rules=tuple(rules), class_counts=tuple(tuple(row) for row in counts.tolist()))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, shape (samples, classes), columns in ``classes`` order, rows summing to 1.

        ``"list"``: the Laplace estimate (count_c + 1) / (total + K) (K classes) of the
        ``class_counts`` row of the rule that decides the sample (its first firing rule, else the
        default). ``"set"``: among the rules that cover the sample, the one whose Laplace estimate
        of the ``positive`` class is highest (the first such rule on a tie) gives its Laplace
        vector over all classes; a sample no rule covers gets the default row's.
        ``"score"``: P(positive) = 1 / (1 + exp(-calibration * score)) in the ``positive`` column,
        1 - P in the ``default`` column, 0 elsewhere; P > 1/2 exactly when :meth:`predict` says
        positive (a positive score whose P rounds to 1/2 is given the next float above 1/2).

        For a ``"set"`` or ``"list"`` the most probable class need not be the predicted one: a rule
        predicts its consequent whatever its training precision, so a covered sample whose deciding
        rule was right on fewer of its training rows than some other class gets more probability
        for that class, and an uncovered sample goes the same way when the default row's training
        majority is not the default class. Both estimates are Laplace-smoothed training frequencies,
        not held-out ones.

        Raises ValueError when the ruleset carries no estimates (see :meth:`fit_probabilities`).
        """
        n_classes = len(self.classes)
        if self.kind == "score":
            if self.calibration is None:
                raise ValueError(_NO_PROBABILITIES)
            score = self.decision_function(X)
            positive = _sigmoid(self.calibration * score)
            positive = np.where((score > 0) & (positive <= 0.5), np.nextafter(0.5, 1.0), positive)
            proba = np.zeros((score.shape[0], n_classes))
            proba[:, self._class_position(self.default, "default")] += 1.0 - positive
            proba[:, self._class_position(self.positive, "positive")] += positive
            return proba
        if not self.class_counts:
            raise ValueError(_NO_PROBABILITIES)
        counts = np.array(self.class_counts, dtype=float)
        laplace = (counts + 1.0) / (counts.sum(axis=1, keepdims=True) + n_classes)
        fired = self.covers(X)
        if self.kind == "list":
            return laplace[first_firing(fired)]
        if not self.rules:
            return laplace[np.zeros(fired.shape[0], dtype=int)]
        share = laplace[:-1, self._class_position(self.positive, "positive")]
        best = np.where(fired, share[np.newaxis, :], -np.inf).argmax(axis=1)
        return laplace[np.where(fired.any(axis=1), best, len(self.rules))]

    # ------------------------------------------------------------------ complexity
    @property
    def n_rules(self) -> int:
        return len(self.rules)

    @property
    def n_atoms(self) -> int:
        return sum(r.n_atoms for r in self.rules)

    @property
    def avg_atoms(self) -> float:
        return self.n_atoms / self.n_rules if self.rules else 0.0

    def scorecard_complexity(self, features: Iterable[str] | None = None, tolerance: float = 1e-6) -> float:
        """A scorecard's complexity as in the CLSVM paper (Carrizosa et al., Tables 2-5), in %.

        Relevant dummies over category dummies: each one-condition categorical rule on ``features``
        (default: all features) is one dummy (a category, or a cluster of categories), relevant when
        ``|weight| > tolerance``; the denominator counts the categories those rules name (a missing
        value counts as one). With one rule per category this is the share of categories with a
        nonzero score; with L clusters per feature it is at most L per feature. NaN when no rule counts.
        """
        if self.kind != "score":
            raise AttributeError(f"scorecard_complexity is defined for 'score' rulesets, not {self.kind!r}")
        wanted = None if features is None else set(features)
        categories = relevant = 0
        for rule in self.rules:
            if len(rule.conditions) != 1 or not isinstance(rule.conditions[0], CategoricalCondition):
                continue
            condition = rule.conditions[0]
            if wanted is not None and condition.feature not in wanted:
                continue
            categories += len(condition.categories) + int(condition.missing)
            relevant += int(abs(rule.weight) > tolerance)
        return 100.0 * relevant / categories if categories else math.nan

    # ------------------------------------------------------------------ text
    def __str__(self) -> str:
        if self.kind == "set":
            return self._set_text()
        if self.kind == "list":
            return self._list_text()
        return self._score_text()

    @staticmethod
    def _block(rule: Rule) -> list[str]:
        if len(rule.conditions) <= 1:
            return [f"{rule.antecedent()}"]
        lines = ["("]
        lines += [f"    {c} AND" for c in rule.conditions[:-1]]
        lines += [f"    {rule.conditions[-1]}", ")"]
        return lines

    def _set_text(self) -> str:
        if not self.rules:
            return f"class = {self.default}"
        lines: list[str] = []
        for i, rule in enumerate(self.rules):
            block = self._block(rule)
            block[0] = ("IF " if i == 0 else "OR ") + block[0]
            lines += block
        lines += [f"THEN class = {self.positive}", f"ELSE class = {self.default}"]
        return "\n".join(lines)

    def _list_text(self) -> str:
        lines = []
        for i, rule in enumerate(self.rules):
            keyword = "IF" if i == 0 else "ELSE IF"
            lines.append(f"{keyword} {rule.antecedent()} THEN class = {rule.prediction}")
        lines.append(f"ELSE class = {self.default}" if self.rules else f"class = {self.default}")
        return "\n".join(lines)

    def _score_text(self) -> str:
        lines = [f"SCORE = {self.intercept:+.4g}"]
        for rule in self.rules:
            lines.append(f"    {rule.weight:+.4g}  IF {rule.antecedent()}")
        for term in self.linear:
            shift = f"+ {-term.center:.4g}" if term.center < 0 else f"- {abs(term.center):.4g}"  # never "- -0.05"
            lines.append(f"    {term.coefficient:+.4g} * ({term.feature} {shift}) / {term.scale:.4g}")
        lines.append(f"IF SCORE > 0 THEN class = {self.positive}")
        lines.append(f"ELSE class = {self.default}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ tables, queries, SQL, explanations
    def to_frame(self, X: Any = None, y: Any = None) -> pd.DataFrame:
        """One row per rule: ``rule`` (its position), ``text`` (the antecedent), ``prediction`` (a
        ``"list"``: the rule's class; else the positive class), ``weight`` (``"score"`` only),
        ``atoms``, ``support`` (rows) and ``precision`` (the share of those rows of the predicted
        class). In a ``"list"`` a rule's rows are those it decides (it is the first to fire); in a
        ``"set"`` or ``"score"`` every row it covers. Counted on ``X``, ``y`` when given, else the
        training counts the rules carry (NaN where a rule carries none)."""
        n = len(self.rules)
        predictions = [rule.prediction if self.kind == "list" else self.positive for rule in self.rules]
        if X is not None:
            if y is None:
                raise ValueError("to_frame(X, y): the labels y are needed with X to count support and precision")
            labels = _label_array(y, self._n_samples(X))
            fired = self.covers(X)
            rows = fired if self.kind != "list" else first_firing(fired)[:, None] == np.arange(n)[None, :]
            support = rows.sum(axis=0).astype(float)
            codes, distinct = factorize_labels(labels)  # one comparison per distinct label: a tuple stays whole
            hits = np.array([(rows[:, k] & np.array([d == predictions[k] for d in distinct], dtype=bool)[codes]).sum()
                             for k in range(n)], dtype=float)
        else:
            known = [r.n_positive is not None and r.n_negative is not None for r in self.rules]
            support = np.array([r.n_positive + r.n_negative if ok else math.nan for r, ok in zip(self.rules, known)],
                               dtype=float)
            hits = np.array([r.n_positive if ok else math.nan for r, ok in zip(self.rules, known)], dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(support > 0, hits / support, np.nan)
        columns: dict[str, Any] = {"rule": np.arange(n), "text": [r.antecedent() for r in self.rules],
                                   "prediction": pd.Series(predictions, dtype=object)}
        if self.kind == "score":
            columns["weight"] = [r.weight for r in self.rules]
        columns.update({"atoms": [r.n_atoms for r in self.rules], "support": support, "precision": precision})
        return pd.DataFrame(columns)

    def to_query(self, rule: int | None = None) -> str:
        """A ``DataFrame.query`` / ``eval`` string selecting the rows rule ``rule`` covers (None: the rows
        some rule covers), as :meth:`covers` does, missing values included (:func:`optrules.exports.query`)."""
        from optrules.exports import query

        return query(self, rule)

    def to_sql(self) -> str:
        """An SQL ``CASE WHEN`` expression of the predicted class, as :meth:`predict` gives it, with
        SQL ``NULL`` for missing values (:func:`optrules.exports.sql`)."""
        from optrules.exports import sql

        return sql(self)

    def explain(self, X: Any) -> pd.DataFrame:
        """Per row of ``X``: ``prediction`` (as :meth:`predict`), ``fired`` (the positions of the rules
        that fire, a tuple) and ``deciding`` (a ``"list"``: the first firing rule; a ``"set"``: the
        first firing rule, when any fires; <NA> when the default class decides, and for a scorecard,
        whose ``score`` column is given instead). A DataFrame ``X`` keeps its index, so the explanation
        joins its rows (``X.join(ruleset.explain(X))``); an array gets 0..n-1."""
        fired = self.covers(X)
        index = X.index if isinstance(X, pd.DataFrame) else None
        frame = pd.DataFrame({"prediction": pd.Series(self.predict(X), dtype=object, index=index)})
        frame["fired"] = [tuple(np.flatnonzero(row).tolist()) for row in fired]
        deciding = pd.array([pd.NA] * fired.shape[0], dtype="Int64")
        if self.kind != "score" and self.rules:
            first = first_firing(fired)
            some = first < len(self.rules)
            deciding[some] = first[some]
        frame["deciding"] = deciding
        if self.kind == "score":
            frame["score"] = self.decision_function(X)
        return frame

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (labels keep their type, infinities are strings), tagged with
        :data:`FORMAT_VERSION`."""
        return {
            "format_version": FORMAT_VERSION,
            "kind": self.kind,
            "rules": [r.to_dict() for r in self.rules],
            "default": _json_value(self.default),
            "features": list(self.features),
            "classes": [_json_value(c) for c in self.classes],
            "positive": _json_value(self.positive),
            "intercept": self.intercept,
            "linear": [t.to_dict() for t in self.linear],
            "class_counts": [list(row) for row in self.class_counts],
            "calibration": self.calibration,
            "meta": _json_safe_meta(self.meta),
        }

    _REQUIRED_FIELDS: ClassVar[tuple[str, ...]] = ("kind", "rules", "default", "features", "classes")
    _OPTIONAL_FIELDS: ClassVar[tuple[str, ...]] = ("format_version", "positive", "intercept", "linear",
                                                   "class_counts", "calibration", "meta")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """Inverse of :meth:`to_dict`, validating structure, types and values first.

        Raises ValueError naming the field (e.g. ``ruleset field 'rules[2].prediction'``), or saying
        that the data come from a newer format version; data without ``format_version`` are version 1.
        """
        if not isinstance(data, Mapping):
            raise _must("ruleset", "be a mapping", data)
        _check_format_version(data.get("format_version", 1))
        data = _read_mapping(data, "ruleset", cls._REQUIRED_FIELDS, cls._OPTIONAL_FIELDS)
        kind = data["kind"]
        if not isinstance(kind, str) or kind not in RULESET_KINDS:
            raise _invalid("ruleset.kind",
                           f"unknown ruleset kind {_shown(kind)}; expected one of {list(RULESET_KINDS)}")
        features = [_read_str(f, f"ruleset.features[{i}]")
                    for i, f in enumerate(_read_list(data["features"], "ruleset.features"))]
        classes: list[Any] = []
        for i, item in enumerate(_read_list(data["classes"], "ruleset.classes")):
            label = _read_label(item, f"ruleset.classes[{i}]")
            if label in classes:
                raise _invalid(f"ruleset.classes[{i}]", f"duplicate class {_shown(label)} "
                               f"(equal to classes[{classes.index(label)}])")
            classes.append(label)
        default = _read_label(data["default"], "ruleset.default")
        _check_among(default, classes, "classes", "ruleset.default")
        positive = _read_label(data.get("positive"), "ruleset.positive")
        if positive is not None:
            _check_among(positive, classes, "classes", "ruleset.positive")
        rules = []
        for i, item in enumerate(_read_list(data["rules"], "ruleset.rules")):
            rule = Rule.from_dict(item, f"ruleset.rules[{i}]")
            _check_among(rule.prediction, classes, "classes", f"ruleset.rules[{i}].prediction")
            for j, condition in enumerate(rule.conditions):
                _check_among(condition.feature, features, "features",
                             f"ruleset.rules[{i}].conditions[{j}].feature")
            rules.append(rule)
        linear = []
        for i, item in enumerate(_read_list(data.get("linear", []), "ruleset.linear")):
            term = LinearTerm.from_dict(item, f"ruleset.linear[{i}]")
            _check_among(term.feature, features, "features", f"ruleset.linear[{i}].feature")
            linear.append(term)
        meta = data.get("meta", {})
        if not isinstance(meta, Mapping):
            raise _must("ruleset.meta", "be a mapping", meta)
        return cls(kind, tuple(rules), default, tuple(features), tuple(classes), positive,
                   _read_number(data.get("intercept", 0.0), "ruleset.intercept"), tuple(linear), dict(meta),
                   class_counts=data.get("class_counts", ()), calibration=data.get("calibration"))

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as JSON text (``kwargs`` go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> Ruleset:
        """Inverse of :meth:`to_json`; malformed JSON raises ValueError (``not valid JSON: ...``), as do
        the checks of :meth:`from_dict`."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"not valid JSON: {error}") from None
        return cls.from_dict(data)

    def with_meta(self, **entries: Any) -> Ruleset:
        """A copy whose ``meta`` has these entries added; everything else (probability estimates too) is kept."""
        return replace(self, meta={**self.meta, **entries})


def _label_array(y: Any, n: int) -> np.ndarray:
    """The ``n`` labels of ``y`` as an object array, one label per element (a tuple label stays one)."""
    if isinstance(y, pd.DataFrame) or (isinstance(y, np.ndarray) and y.ndim != 1):
        raise ValueError("y must be one-dimensional: one label per row of X")
    items = y.tolist() if isinstance(y, (pd.Series, pd.Index, np.ndarray)) else list(y)
    if len(items) != n:
        raise ValueError(f"y has {len(items)} labels but X has {n} rows")
    labels = np.empty(n, dtype=object)
    for i, label in enumerate(items):  # one by one: a tuple label stays one element
        labels[i] = label
    return labels


def _json_safe_meta(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` as plain JSON data: objects with ``to_dict`` (SolveReports) are converted."""

    def convert(value: Any) -> Any:
        if hasattr(value, "to_dict"):
            return convert(value.to_dict())
        if isinstance(value, Mapping):
            return {str(k): convert(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [convert(v) for v in value]
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, float) and not math.isfinite(value):
            return repr(value)
        return value

    return convert(meta)

