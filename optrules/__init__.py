"""optrules: interpretable classifiers learned by mathematical optimization, exact and heuristic side by side."""

from optrules.cover import CoverInstance
from optrules.data import Schema, validate_features, validate_target
from optrules.datasets import list_datasets, load, load_csv
from optrules.estimators import (BottomUpClassifier, CLSVMClassifier, ColumnGenerationClassifier,
                                 DecisionListClassifier, LibreClassifier, RulesetClassifier, SetCoverClassifier,
                                 package_version)
from optrules.exceptions import (CategoryWarning, DegenerateFitWarning, InvalidParameterError, OptrulesWarning,
                                 PositiveClassWarning)
from optrules.registry import METHODS, fit, get_method, make_estimator
from optrules.ruleset import (
    CategoricalCondition,
    Condition,
    Interval,
    LinearTerm,
    NumericCondition,
    Rule,
    Ruleset,
)
from optrules.scoring import positive_f1
from optrules.solvers import ProblemClass, SolveReport, Status, available_solvers, solve

__version__ = package_version()

__all__ = [
    "BottomUpClassifier",
    "CLSVMClassifier",
    "LibreClassifier",
    "CategoricalCondition",
    "CategoryWarning",
    "ColumnGenerationClassifier",
    "Condition",
    "CoverInstance",
    "DecisionListClassifier",
    "DegenerateFitWarning",
    "InvalidParameterError",
    "Interval",
    "LinearTerm",
    "METHODS",
    "NumericCondition",
    "OptrulesWarning",
    "PositiveClassWarning",
    "ProblemClass",
    "Rule",
    "Ruleset",
    "RulesetClassifier",
    "Schema",
    "SetCoverClassifier",
    "SolveReport",
    "Status",
    "available_solvers",
    "fit",
    "get_method",
    "list_datasets",
    "load",
    "load_csv",
    "make_estimator",
    "positive_f1",
    "solve",
    "validate_features",
    "validate_target",
]
