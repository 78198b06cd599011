"""Scorers for scikit-learn's model selection that know the estimator's positive class.

``positive_f1`` is a scorer (``scoring=optrules.positive_f1`` in ``cross_val_score`` or
``GridSearchCV``): the F1-score of the class the fitted estimator treats as positive
(``ruleset_.positive``; for a multi-class decision list, the minority training class, ties going to
the last class as the binary methods' default does), so that a string-labelled dataset needs no
``pos_label`` and the score follows ``positive=``. The estimator may be an optrules estimator or one
that holds it: a ``Pipeline`` (its last step), a fitted search (``best_estimator_``), a
``CalibratedClassifierCV`` (its first calibrated classifier's estimator) or any wrapper with
``estimator_``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from optrules.classes import minority_class

__all__ = ["positive_f1"]


def positive_f1(estimator: Any, X: Any, y: Any) -> float:
    """The F1-score of the fitted estimator's positive class on (X, y)."""
    from sklearn.metrics import f1_score

    ruleset = _inner_estimator(estimator).ruleset_
    positive = ruleset.positive
    if positive is None:  # a multi-class list: each training row is in one row of its class counts
        totals = np.sum(ruleset.class_counts, axis=0).tolist()
        positive = minority_class(dict(zip(ruleset.classes, totals)), ruleset.classes)
    truth = np.array([v == positive for v in np.asarray(y, dtype=object).tolist()])
    predicted = np.array([v == positive for v in estimator.predict(X).tolist()])
    return float(f1_score(truth, predicted, zero_division=0.0))


def _inner_estimator(estimator: Any) -> Any:
    """The fitted optrules estimator that ``estimator`` is or holds (see the module docstring)."""
    found = estimator
    while not hasattr(found, "ruleset_"):
        if hasattr(found, "steps"):
            found = found.steps[-1][1]
        elif hasattr(found, "best_estimator_"):
            found = found.best_estimator_
        elif getattr(found, "calibrated_classifiers_", None):
            found = found.calibrated_classifiers_[0].estimator
        elif hasattr(found, "estimator_"):
            found = found.estimator_
        else:
            raise TypeError(f"positive_f1 scores a fitted optrules estimator, or a Pipeline, search or wrapper "
                            f"that holds one; {type(estimator).__name__} holds none")
    return found
