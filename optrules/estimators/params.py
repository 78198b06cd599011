"""Declared estimator parameters: each estimator lists its parameters once, with their types and ranges.

The idea is scikit-learn's ``_parameter_constraints``; the checker is the package's own (scikit-learn's
is private API). ``check_parameters(estimator_class, params)`` raises :class:`InvalidParameterError`
(a ``ValueError`` and a ``TypeError``, as scikit-learn's) naming the parameter, the expected values
and the value given. It runs at ``fit``, in the experiment runner's config validation and in the CLI,
before any data is read.

Nested option dicts (``candidates``, ``solver_options``, ...) are :class:`Options` constraints; with
declared keys they are checked key by key and are settable as ``candidates__max_len``.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from optrules.exceptions import InvalidParameterError

__all__ = ["Constraint", "Integer", "Real", "OneOf", "Options", "Text", "Label", "Seed", "Columns", "Either",
           "Weights", "check_parameters", "check_value"]


class Constraint(ABC):
    """What one parameter accepts; ``accepts`` says whether a value fits, ``text`` says what fits."""

    @abstractmethod
    def accepts(self, value: Any) -> bool:
        """Whether ``value`` fits the constraint."""

    @abstractmethod
    def text(self) -> str:
        """What fits, as the end of "must be ..."."""


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and bool(np.isfinite(value))


@dataclass(frozen=True)
class Integer(Constraint):
    """An integer in ``[low, high]`` (either end open-ended with None); ``none``: None allowed."""

    low: int | None = None
    high: int | None = None
    none: bool = False

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.none
        return (_is_integer(value) and (self.low is None or value >= self.low)
                and (self.high is None or value <= self.high))

    def text(self) -> str:
        bounds = (f" >= {self.low}" if self.high is None else f" in [{self.low}, {self.high}]") \
            if self.low is not None else (f" <= {self.high}" if self.high is not None else "")
        return f"an integer{bounds}" + (" or None" if self.none else "")


@dataclass(frozen=True)
class Real(Constraint):
    """A finite real number between ``low`` and ``high``; ``open_low``: strictly above ``low``."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    none: bool = False

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.none
        if not _is_real(value):
            return False
        above = self.low is None or (value > self.low if self.open_low else value >= self.low)
        return above and (self.high is None or value <= self.high)

    def text(self) -> str:
        if self.low is not None and self.high is not None:
            bounds = f" in {'(' if self.open_low else '['}{self.low}, {self.high}]"
        elif self.low is not None:
            bounds = f" {'>' if self.open_low else '>='} {self.low}"
        else:
            bounds = "" if self.high is None else f" <= {self.high}"
        return f"a finite number{bounds}" + (" or None" if self.none else "")


@dataclass(frozen=True)
class OneOf(Constraint):
    """One of the listed values (strings compared exactly)."""

    values: tuple[Any, ...]

    def accepts(self, value: Any) -> bool:
        return any(type(value) is type(v) and value == v for v in self.values if v is not None) or (
            value is None and None in self.values)

    def text(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class Options(Constraint):
    """A dict of options, or None. ``keys``: the known keys and their constraints (None: any str key,
    the values checked by the method itself, e.g. solver options by ``optrules.solvers``)."""

    keys: Mapping[str, Constraint] | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)

    def accepts(self, value: Any) -> bool:
        return value is None or (isinstance(value, Mapping) and all(isinstance(k, str) for k in value))

    def text(self) -> str:
        known = "" if self.keys is None else f" with keys among {sorted(self.keys)}"
        return f"a dict of options{known} or None"


@dataclass(frozen=True)
class Text(Constraint):
    """A string (a path, a name); ``none``: None allowed."""

    none: bool = False

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) or (value is None and self.none)

    def text(self) -> str:
        return "a string" + (" or None" if self.none else "")


@dataclass(frozen=True)
class Label(Constraint):
    """A class label (any hashable scalar or tuple) or None."""

    def accepts(self, value: Any) -> bool:
        if value is None:
            return True
        try:
            hash(value)
        except TypeError:
            return False
        return not isinstance(value, float) or bool(np.isfinite(value))

    def text(self) -> str:
        return "a class label (hashable, not NaN) or None"


@dataclass(frozen=True)
class Seed(Constraint):
    """A random seed: None, an integer >= 0, or a numpy Generator / RandomState."""

    def accepts(self, value: Any) -> bool:
        return (value is None or (_is_integer(value) and value >= 0)
                or isinstance(value, (np.random.Generator, np.random.RandomState)))

    def text(self) -> str:
        return "None, an integer >= 0 or a numpy Generator"


@dataclass(frozen=True)
class Columns(Constraint):
    """A list of column indices (int >= 0) or names (str), or None."""

    def accepts(self, value: Any) -> bool:
        if value is None:
            return True
        if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
            return False
        return all((_is_integer(v) and v >= 0) or isinstance(v, str) for v in value)

    def text(self) -> str:
        return "a list of column indices (int >= 0) or names (str), or None"


@dataclass(frozen=True)
class Weights(Constraint):
    """A class weighting: None, "balanced", or a dict class label -> finite weight >= 0."""

    def accepts(self, value: Any) -> bool:
        if value is None or (isinstance(value, str) and value == "balanced"):
            return True
        return isinstance(value, Mapping) and all(_is_real(w) and w >= 0 for w in value.values())

    def text(self) -> str:
        return "None, 'balanced' or a dict of class label -> weight >= 0"


@dataclass(frozen=True)
class Either(Constraint):
    """Any of several constraints (e.g. C: a positive number or "cv")."""

    choices: tuple[Constraint, ...]

    def accepts(self, value: Any) -> bool:
        return any(c.accepts(value) for c in self.choices)

    def text(self) -> str:
        return " or ".join(c.text() for c in self.choices)


def check_value(owner: str, name: str, constraint: Constraint, value: Any) -> None:
    """Raise :class:`InvalidParameterError` naming ``name`` when ``value`` does not fit ``constraint``."""
    if not constraint.accepts(value):
        raise InvalidParameterError(f"the {name!r} parameter of {owner} must be {constraint.text()}; "
                                    f"got {value!r}")
    if isinstance(constraint, Options) and constraint.keys is not None and value is not None:
        unknown = sorted(set(value) - set(constraint.keys))
        if unknown:
            raise InvalidParameterError(f"unknown key(s) {unknown} in the {name!r} parameter of {owner}; "
                                        f"known keys: {sorted(constraint.keys)}")
        for key, entry in value.items():
            check_value(owner, f"{name}__{key}", constraint.keys[key], entry)


def check_parameters(owner: str, constraints: Mapping[str, Constraint], params: Mapping[str, Any]) -> None:
    """Check every parameter in ``params`` against its declared constraint (unknown names are an error)."""
    unknown = sorted(set(params) - set(constraints))
    if unknown:
        raise InvalidParameterError(f"unknown parameter(s) {unknown} for {owner}; valid: {sorted(constraints)}")
    for name, value in params.items():
        check_value(owner, name, constraints[name], value)
