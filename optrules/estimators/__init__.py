"""scikit-learn estimators, one module per method family, all sharing :class:`RulesetClassifier`
(``base``) and their declared parameters (``params``)."""

from optrules.estimators.base import RulesetClassifier, TrainingData, check_exact_options, package_version
from optrules.estimators.clsvm import CLSVMClassifier
from optrules.estimators.column_generation import ColumnGenerationClassifier
from optrules.estimators.decision_list import DecisionListClassifier
from optrules.estimators.libre import BottomUpClassifier, LibreClassifier
from optrules.estimators.set_cover import SetCoverClassifier

__all__ = ["BottomUpClassifier", "CLSVMClassifier", "ColumnGenerationClassifier", "DecisionListClassifier",
           "LibreClassifier", "RulesetClassifier", "SetCoverClassifier", "TrainingData", "check_exact_options",
           "package_version"]
