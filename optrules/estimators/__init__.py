"""scikit-learn estimators, one module per method family, all sharing :class:`RulesetClassifier`
(``base``) and their declared parameters (``params``).

Each name is imported on first use (:mod:`optrules.lazy`): using one estimator imports its own
family's module, not the others' (a LIBRE fit does not import the Cluster-SVM models)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from optrules.lazy import lazy_exports

if TYPE_CHECKING:
    from optrules.estimators.base import RulesetClassifier, TrainingData, check_exact_options
    from optrules.estimators.clsvm import CLSVMClassifier
    from optrules.estimators.column_generation import ColumnGenerationClassifier
    from optrules.estimators.decision_list import DecisionListClassifier
    from optrules.estimators.libre import BottomUpClassifier, LibreClassifier
    from optrules.estimators.set_cover import SetCoverClassifier
    from optrules.version import package_version

__all__ = ["BottomUpClassifier", "CLSVMClassifier", "ColumnGenerationClassifier", "DecisionListClassifier",
           "LibreClassifier", "RulesetClassifier", "SetCoverClassifier", "TrainingData", "check_exact_options",
           "package_version"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "optrules.estimators.base": ("RulesetClassifier", "TrainingData", "check_exact_options"),
    "optrules.estimators.clsvm": ("CLSVMClassifier",),
    "optrules.estimators.column_generation": ("ColumnGenerationClassifier",),
    "optrules.estimators.decision_list": ("DecisionListClassifier",),
    "optrules.estimators.libre": ("BottomUpClassifier", "LibreClassifier"),
    "optrules.estimators.set_cover": ("SetCoverClassifier",),
    "optrules.version": ("package_version",),
})
