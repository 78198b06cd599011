"""Scorers for scikit-learn's model selection that know the estimator's positive class.

``positive_f1`` is a scorer (``scoring=optrules.positive_f1`` in ``cross_val_score`` or
``GridSearchCV``): the F1-score of the class the fitted estimator treats as positive
(``ruleset_.positive``; for a multi-class decision list, the minority training class), so that a
string-labelled dataset needs no ``pos_label`` and the score follows ``positive=``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["positive_f1"]


def positive_f1(estimator: Any, X: Any, y: Any) -> float:
    """The F1-score of the fitted estimator's positive class on (X, y)."""
    from sklearn.metrics import f1_score

    ruleset = estimator.ruleset_
    positive = ruleset.positive
    if positive is None:  # a multi-class list: each training row is in one row of its class counts
        positive = ruleset.classes[int(np.argmin(np.sum(ruleset.class_counts, axis=0)))]
    truth = np.array([v == positive for v in np.asarray(y, dtype=object).tolist()])
    predicted = np.array([v == positive for v in estimator.predict(X).tolist()])
    return float(f1_score(truth, predicted, zero_division=0.0))
