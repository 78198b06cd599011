"""Trivial models scored on the experiment's own splits, so a report can tell a good model from one
that learned nothing.

* ``majority``: predicts, on every test row, the more frequent of "positive" and "rest" in the
  training part of the fold (ties: positive);
* ``all-positive``: predicts the positive class on every test row.

Both are scored as :func:`optrules.experiments.run.test_scores` scores a method that learns the
positive class against the rest (F1 of the positive class, accuracy and balanced accuracy of positive
against rest), on exactly the test rows of every fold (:func:`optrules.experiments.run.dataset_splits`).
Their F1 and accuracy bound what a degenerate model scores: one that predicts a single class
everywhere scores as one of them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from optrules.experiments.config import ExperimentConfig
from optrules.experiments.run import dataset_splits, test_scores

__all__ = ["BASELINES", "baseline_results", "baseline_scores"]

#: The baselines, in report order.
BASELINES = ("majority", "all-positive")


def baseline_scores(y_train: np.ndarray, y_test: np.ndarray, positive: object) -> dict[str, dict[str, float]]:
    """F1, accuracy and balanced accuracy of each of :data:`BASELINES` on one fold."""
    train_positive = np.asarray(y_train) == positive
    truth = np.asarray(y_test) == positive
    majority = bool(train_positive.mean() >= 0.5)
    predictions = {"majority": np.full(len(truth), majority), "all-positive": np.ones(len(truth), dtype=bool)}
    return {name: test_scores(truth, predictions[name], True, True) for name in BASELINES}


def baseline_results(config: ExperimentConfig) -> pd.DataFrame:
    """One row per dataset x baseline x fold of a resolved configuration (its datasets' positive
    classes known, as ``run`` returns it): dataset, baseline, fold, f1, accuracy, balanced_accuracy."""
    rows = []
    for dataset in config.datasets:
        _, y = dataset.load()
        labels = y.to_numpy()
        for fold, (train, test) in enumerate(dataset_splits(config, dataset, y)):
            scores = baseline_scores(labels[train], labels[test], dataset.positive)
            rows += [{"dataset": dataset.name, "baseline": name, "fold": fold, **scores[name]} for name in BASELINES]
    return pd.DataFrame(rows, columns=["dataset", "baseline", "fold", "f1", "accuracy", "balanced_accuracy"])
