"""optrules: interpretable classifiers learned by mathematical optimization, exact and heuristic side by side.

Every public name below is imported on first use (:mod:`optrules.lazy`), so ``import optrules`` loads
neither scikit-learn nor the compiled kernels nor any solver stack; ``optrules.fit`` and
``from optrules import LibreClassifier`` import what that method needs, and solver stacks (Pyomo,
cvxpy, HiGHS, SCIP, Clarabel, Ipopt) are imported only when a model is built or solved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from optrules.lazy import lazy_exports

if TYPE_CHECKING:
    from optrules.cover import CoverInstance
    from optrules.data import Schema, validate_features, validate_target
    from optrules.datasets import list_datasets, load, load_csv
    from optrules.estimators import (BottomUpClassifier, CLSVMClassifier, ColumnGenerationClassifier,
                                     DecisionListClassifier, LibreClassifier, RulesetClassifier, SetCoverClassifier)
    from optrules.exports import plot_scorecard, scorecard_frame
    from optrules.exceptions import (CategoryWarning, DegenerateFitWarning, InvalidParameterError, OptrulesWarning,
                                     PositiveClassWarning)
    from optrules.registry import METHODS, fit, get_method, make_estimator
    from optrules.ruleset import (CategoricalCondition, Condition, Interval, LinearTerm, NumericCondition, Rule,
                                  Ruleset)
    from optrules.scoring import positive_f1
    from optrules.solvers import ProblemClass, SolveReport, Status, available_solvers, solve
    from optrules.version import __version__

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
    "plot_scorecard",
    "positive_f1",
    "scorecard_frame",
    "solve",
    "validate_features",
    "validate_target",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "optrules.cover": ("CoverInstance",),
    "optrules.data": ("Schema", "validate_features", "validate_target"),
    "optrules.datasets": ("list_datasets", "load", "load_csv"),
    "optrules.estimators": ("BottomUpClassifier", "CLSVMClassifier", "ColumnGenerationClassifier",
                            "DecisionListClassifier", "LibreClassifier", "RulesetClassifier", "SetCoverClassifier"),
    "optrules.exports": ("plot_scorecard", "scorecard_frame"),
    "optrules.exceptions": ("CategoryWarning", "DegenerateFitWarning", "InvalidParameterError", "OptrulesWarning",
                            "PositiveClassWarning"),
    "optrules.registry": ("METHODS", "fit", "get_method", "make_estimator"),
    "optrules.ruleset": ("CategoricalCondition", "Condition", "Interval", "LinearTerm", "NumericCondition", "Rule",
                         "Ruleset"),
    "optrules.scoring": ("positive_f1",),
    "optrules.solvers": ("ProblemClass", "SolveReport", "Status", "available_solvers", "solve"),
    "optrules.version": ("__version__",),
})
