"""What every paper-reproduction report (``*_paper.py``) shows beside a method's row so that a model
that learned nothing cannot pass: the trivial models' scores on the same test folds and the rule
that the method's balanced accuracy is above chance by more than its standard error.

A model that predicts one class everywhere has balanced accuracy 0.5 on every fold, whatever its F1
or accuracy (its F1 is that of ``all-positive`` or 0, its accuracy that of ``majority`` or less);
a row passes only if, besides the paper's own criteria, ``beyond_prior`` holds. The trivial scores
come from :mod:`optrules.experiments.baselines` (the majority class of the training fold; the
positive class everywhere).

The standard error is that of the mean over the outer test folds: the folds are the independent
units (the learner's seeds re-fit the same folds, so per fold the seeds' balanced accuracies are
averaged first): ``SE = sample std of the per-fold values / sqrt(number of folds)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from optrules.experiments.baselines import baseline_scores

__all__ = ["beyond_prior", "standard_error", "trivial_scores"]


def standard_error(values: Sequence[float]) -> float:
    """Sample standard deviation of ``values`` over sqrt(len): the standard error of their mean
    (0 for a single value)."""
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return 0.0
    return float(values.std(ddof=1) / np.sqrt(values.size))


def beyond_prior(fold_balanced_accuracy: Sequence[float]) -> tuple[float, float, bool]:
    """Mean balanced accuracy over the folds, its standard error, and whether the mean exceeds 0.5
    by more than that standard error (the model carries information beyond the class prior). A
    ``ValueError`` for no folds."""
    values = np.asarray(fold_balanced_accuracy, dtype=float)
    if values.size == 0:
        raise ValueError("beyond_prior: no folds")
    mean, se = float(values.mean()), standard_error(values)
    return mean, se, bool(mean - 0.5 > se)


def trivial_scores(labels: np.ndarray, folds: Sequence[tuple[np.ndarray, np.ndarray]],
                   positive: object) -> dict[str, float]:
    """Mean over ``folds`` ((training rows, test rows) of ``labels``) of the F1 of predicting every
    test row positive (``all-positive F1``) and of the accuracy of predicting the training fold's
    majority of positive vs rest (``majority accuracy``)."""
    labels = np.asarray(labels)
    scores = [baseline_scores(labels[train], labels[test], positive) for train, test in folds]
    return {"all-positive F1": float(np.mean([s["all-positive"]["f1"] for s in scores])),
            "majority accuracy": float(np.mean([s["majority"]["accuracy"] for s in scores]))}
