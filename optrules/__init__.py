"""optrules: interpretable classifiers learned by mathematical optimization, exact and heuristic side by side."""

from optrules.clsvm import CLSVMClassifier
from optrules.cover import CoverInstance
from optrules.data import Schema, validate_features, validate_target
from optrules.datasets import list_datasets, load, load_csv
from optrules.estimators import RulesetClassifier, SetCoverClassifier, package_version
from optrules.learners.decision_list import DecisionListClassifier
from optrules.learners.libre import BottomUpClassifier, LibreClassifier
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
from optrules.solvers import ProblemClass, SolveReport, Status, available_solvers, solve

__version__ = package_version()

__all__ = [
    "BottomUpClassifier",
    "CLSVMClassifier",
    "LibreClassifier",
    "CategoricalCondition",
    "Condition",
    "CoverInstance",
    "DecisionListClassifier",
    "Interval",
    "LinearTerm",
    "METHODS",
    "NumericCondition",
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
    "solve",
    "validate_features",
    "validate_target",
]
