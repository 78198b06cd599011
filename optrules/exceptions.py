"""The package's own error and warning classes, so that a user can catch or filter them by kind."""

from __future__ import annotations

__all__ = ["InvalidParameterError", "FitError", "OptrulesWarning", "DegenerateFitWarning", "PositiveClassWarning",
           "CategoryWarning"]


class InvalidParameterError(ValueError, TypeError):
    """An estimator parameter of the wrong type or outside its range (a ValueError and a TypeError,
    as scikit-learn's own, so either ``except`` catches it)."""


class FitError(RuntimeError):
    """A fit that failed inside an experiment (the runner and its tune step raise it); the message
    names the dataset, method and fold."""


class OptrulesWarning(UserWarning):
    """Base class of the package's warnings."""


class DegenerateFitWarning(OptrulesWarning):
    """A fit that predicts one class for every training row or returns no rule; the message names the
    likely cause."""


class PositiveClassWarning(OptrulesWarning):
    """A binary method given more than two classes without ``positive``: which class it chose, and
    that the others are predicted as one negative class."""


class CategoryWarning(OptrulesWarning):
    """Categories grouped at fit (too many distinct values), or many values at predict that training
    never saw."""
