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
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Hashable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "Interval",
    "Condition",
    "NumericCondition",
    "CategoricalCondition",
    "Rule",
    "LinearTerm",
    "Ruleset",
    "RULESET_KINDS",
]

RULESET_KINDS = ("set", "list", "score")


def _format_number(value: float) -> str:
    """Print a cut point compactly: 40 not 40.0, 0.529 not 5.29e-01."""
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.6g}"
    if "e" in text and abs(value) >= 1:
        # Large values print in full; tiny ones keep the exponent (fixed notation would print 1e-07 as 0).
        text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text


def _to_python(value: Any) -> Any:
    """Turn numpy scalars into plain Python values so they print and serialise naturally."""
    if isinstance(value, np.generic):
        return value.item()
    return value


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


def _from_json_value(value: Any) -> Any:
    if isinstance(value, dict):
        if "float" in value:
            return float(value["float"])
        if "tuple" in value:
            return tuple(_from_json_value(v) for v in value["tuple"])
    return value


def _object_scalar(value: Any) -> np.ndarray:
    """A one-element object array holding ``value``: assigning it through a boolean mask broadcasts the
    value whole, whereas assigning a tuple label directly would spread its items over the samples."""
    holder = np.empty(1, dtype=object)
    holder[0] = value
    return holder


def _sort_key(value: Any) -> tuple[str, str]:
    """Deterministic order for category sets of mixed types."""
    return (type(value).__name__, str(value))


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
        left = "min" if self.low == -math.inf else _format_number(self.low)
        right = "max" if self.high == math.inf else _format_number(self.high)
        # The paper closes an unbounded end with a bracket: "[min, 40)", "[20, max]".
        opening = "[" if (self.low_closed or self.low == -math.inf) else "("
        closing = "]" if (self.high_closed or self.high == math.inf) else ")"
        return f"{opening}{left}, {right}{closing}"

    def to_dict(self) -> dict[str, Any]:
        return {"low": _json_float(self.low), "high": _json_float(self.high),
                "low_closed": self.low_closed, "high_closed": self.high_closed}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Interval:
        return cls(_from_json_float(data["low"]), _from_json_float(data["high"]),
                   bool(data["low_closed"]), bool(data["high_closed"]))


def _json_float(value: float) -> float | str:
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return float(value)


def _from_json_float(value: float | str) -> float:
    return float(value)


def _column_as_float(feature: str, column: np.ndarray) -> np.ndarray:
    try:
        return np.asarray(pd.to_numeric(pd.Series(column, copy=False), errors="raise"), dtype=float)
    except (ValueError, TypeError) as error:
        raise ValueError(f"feature {feature!r} must be numeric for the condition on it: {error}") from None


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
    def from_dict(data: Mapping[str, Any]) -> Condition:
        if data["kind"] == NumericCondition.kind:
            return NumericCondition(
                data["feature"], tuple(Interval.from_dict(i) for i in data["intervals"]), bool(data["missing"])
            )
        if data["kind"] == CategoricalCondition.kind:
            return CategoricalCondition(
                data["feature"],
                tuple(_from_json_value(c) for c in data["categories"]),
                bool(data["negated"]),
                bool(data["missing"]),
            )
        raise ValueError(f"unknown condition kind {data['kind']!r}")

    def _missing_text(self) -> str:
        return " or missing" if self.missing else ""


@dataclass(frozen=True)
class NumericCondition(Condition):
    """``feature in I_1 or I_2 ...``: a union of disjoint intervals, kept sorted."""

    intervals: tuple[Interval, ...] = ()
    kind: ClassVar[str] = "numeric"

    def __init__(self, feature: str, intervals: Iterable[Interval], missing: bool = False) -> None:
        ordered = tuple(sorted(intervals, key=lambda i: (i.low, not i.low_closed)))
        if not ordered:
            raise ValueError(f"numeric condition on {feature!r} needs at least one interval")
        object.__setattr__(self, "feature", str(feature))
        object.__setattr__(self, "missing", bool(missing))
        object.__setattr__(self, "intervals", ordered)

    def evaluate(self, column: np.ndarray) -> np.ndarray:
        values = _column_as_float(self.feature, column)
        inside = np.zeros(values.shape[0], dtype=bool)
        for interval in self.intervals:
            inside |= interval.contains(values)
        if self.missing:
            inside |= np.isnan(values)
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
        names = ", ".join(str(c) for c in self.categories)
        return f"{self.feature} {operator} {{{names}}}{self._missing_text()}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "feature": self.feature, "missing": self.missing,
                "categories": [_json_value(c) for c in self.categories], "negated": self.negated}


@dataclass(frozen=True)
class Rule:
    """A conjunction of conditions with its consequent class.

    ``weight`` is the rule's score in a scorecard; ``n_positive``/``n_negative`` are the training
    samples of the consequent class / of other classes that the rule covers, when known.
    """

    conditions: tuple[Condition, ...]
    prediction: Hashable
    weight: float | None = None
    n_positive: int | None = None
    n_negative: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "conditions", tuple(self.conditions))
        object.__setattr__(self, "prediction", _to_python(self.prediction))
        if self.weight is not None:
            object.__setattr__(self, "weight", float(self.weight))
        # Counts often arrive as numpy integers, which JSON cannot serialise.
        for name in ("n_positive", "n_negative"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, int(getattr(self, name)))

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
    def from_dict(cls, data: Mapping[str, Any]) -> Rule:
        return cls(tuple(Condition.from_dict(c) for c in data["conditions"]),
                   _from_json_value(data["prediction"]), data.get("weight"),
                   data.get("n_positive"), data.get("n_negative"))


@dataclass(frozen=True)
class LinearTerm:
    """A scorecard's numeric term: ``coefficient * (x - center) / scale``; a missing x contributes 0."""

    feature: str
    coefficient: float
    center: float = 0.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        if not self.scale > 0:
            raise ValueError(f"scale of {self.feature!r} must be positive, got {self.scale}")

    def contribution(self, column: np.ndarray) -> np.ndarray:
        values = _column_as_float(self.feature, column)
        return np.nan_to_num(self.coefficient * (values - self.center) / self.scale, nan=0.0)

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature, "coefficient": self.coefficient, "center": self.center,
                "scale": self.scale}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LinearTerm:
        return cls(data["feature"], float(data["coefficient"]), float(data["center"]), float(data["scale"]))


@dataclass(frozen=True)
class Ruleset:
    """The learned model of any optrules method (see the module docstring for the kinds).

    ``features`` are the training feature names in order (used to read numpy arrays by position);
    ``classes`` are the training classes; ``positive`` is the class that ``"set"`` rules and a
    positive ``"score"`` predict. ``meta`` carries method, parameters, fit seconds, random state,
    package version and solve reports; it does not take part in equality or hashing.
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", tuple(self.rules))
        object.__setattr__(self, "features", tuple(str(f) for f in self.features))
        object.__setattr__(self, "classes", tuple(_to_python(c) for c in self.classes))
        object.__setattr__(self, "default", _to_python(self.default))
        object.__setattr__(self, "positive", _to_python(self.positive))
        object.__setattr__(self, "linear", tuple(self.linear))
        object.__setattr__(self, "intercept", float(self.intercept))
        if self.kind not in RULESET_KINDS:
            raise ValueError(f"unknown ruleset kind {self.kind!r}; expected one of {RULESET_KINDS}")
        if self.kind in ("set", "score") and self.positive is None:
            raise ValueError(f"a {self.kind!r} ruleset needs its positive class")
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
        """The columns of X that the rules read, found by name (DataFrame) or position (array)."""
        needed = list(dict.fromkeys(needed))
        if isinstance(X, pd.DataFrame):
            names = [str(c) for c in X.columns]
            missing = [f for f in needed if f not in names]
            if missing:
                raise ValueError(f"X is missing feature column(s) {missing} used by the rules")
            position = {name: i for i, name in enumerate(names)}
            return {f: X.iloc[:, position[f]].to_numpy() for f in needed}
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

        Each distinct condition is evaluated once on its column (vectorised), then conditions are
        combined into rules by logical AND.
        """
        n = self._n_samples(X)
        conditions = list(dict.fromkeys(c for r in self.rules for c in r.conditions))
        columns = self._columns(X, (c.feature for c in conditions))
        truth = {c: c.evaluate(columns[c.feature]) for c in conditions}
        matrix = np.ones((n, len(self.rules)), dtype=bool)
        for j, rule in enumerate(self.rules):
            for condition in rule.conditions:
                matrix[:, j] &= truth[condition]
        return matrix

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
        fired = self.covers(X)
        if self.kind == "set":
            out[fired.any(axis=1)] = _object_scalar(self.positive)
            return out
        first = np.where(fired.any(axis=1), fired.argmax(axis=1), -1)
        predictions = np.empty(len(self.rules), dtype=object)
        predictions[:] = [r.prediction for r in self.rules]
        out[first >= 0] = predictions[first[first >= 0]]
        return out

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
            lines.append(f"    {term.coefficient:+.4g} * ({term.feature} - {term.center:.4g}) / {term.scale:.4g}")
        lines.append(f"IF SCORE > 0 THEN class = {self.positive}")
        lines.append(f"ELSE class = {self.default}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "rules": [r.to_dict() for r in self.rules],
            "default": _json_value(self.default),
            "features": list(self.features),
            "classes": [_json_value(c) for c in self.classes],
            "positive": _json_value(self.positive),
            "intercept": self.intercept,
            "linear": [t.to_dict() for t in self.linear],
            "meta": _json_safe_meta(self.meta),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        return cls(
            kind=data["kind"],
            rules=tuple(Rule.from_dict(r) for r in data["rules"]),
            default=_from_json_value(data["default"]),
            features=tuple(data["features"]),
            classes=tuple(_from_json_value(c) for c in data["classes"]),
            positive=_from_json_value(data.get("positive")),
            intercept=float(data.get("intercept", 0.0)),
            linear=tuple(LinearTerm.from_dict(t) for t in data.get("linear", ())),
            meta=dict(data.get("meta", {})),
        )

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> Ruleset:
        return cls.from_dict(json.loads(text))

    def with_meta(self, **entries: Any) -> Ruleset:
        """A copy whose ``meta`` has these entries added."""
        return Ruleset(self.kind, self.rules, self.default, self.features, self.classes, self.positive,
                       self.intercept, self.linear, {**self.meta, **entries})


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

