"""Trivial models scored on the experiment's own splits, so a report can tell a good model from one
that learned nothing.

* ``majority``: predicts, on every test row, the more frequent of "positive" and "rest" in the
  training part of the fold (ties: positive);
* ``all-positive``: predicts the positive class on every test row.

Both are scored as :func:`optrules.experiments.run.test_scores` scores a method that learns the
positive class against the rest (F1 of the positive class, accuracy and balanced accuracy of positive
against rest), on exactly the test rows of every fold (:func:`optrules.experiments.run.dataset_splits`).
Their F1 and accuracy bound what a degenerate model scores: one that predicts a single class
everywhere scores as one of them. ``baseline_scores(..., one_vs_rest=False)`` scores them as a
multi-class method (a decision list) is scored instead, on the original labels, ``majority`` then
predicting the training part's most frequent label.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from optrules.experiments.config import ExperimentConfig
from optrules.experiments.run import dataset_splits, test_scores

__all__ = ["BASELINES", "baseline_results", "baseline_scores"]

#: The baselines, in report order.
BASELINES = ("majority", "all-positive")


def baseline_scores(y_train: np.ndarray, y_test: np.ndarray, positive: object,
                    one_vs_rest: bool = True) -> dict[str, dict[str, float]]:
    """F1, accuracy and balanced accuracy of each of :data:`BASELINES` on one fold.

    ``one_vs_rest`` False scores them as a multi-class method is scored (a decision list, whose
    accuracies count every class: :func:`~optrules.experiments.run.test_scores`), ``majority`` then
    predicting the most frequent label of the training part (ties: the positive class, then the
    first label in sorted order). On two-class data both ways give the same scores."""
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    if one_vs_rest:
        y_train, y_test, positive = y_train == positive, y_test == positive, True
    labels, counts = np.unique(y_train, return_counts=True)
    most = labels[counts == counts.max()]
    majority = positive if positive in most else most[0]
    predictions = {"majority": np.full(len(y_test), majority), "all-positive": np.full(len(y_test), positive)}
    return {name: test_scores(y_test, predictions[name], positive, one_vs_rest) for name in BASELINES}


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
