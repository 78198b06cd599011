"""Method registry: a method name -> its estimator class, with small seeded parameters for tests.

``optrules.fit(X, y, method=..., **params)`` and the CLI and experiment runner find methods here, and
``tests/test_estimators.py`` walks every entry through scikit-learn's estimator checks, so a method
added here cannot skip them.

The registry names each estimator class by where it lives (``"module:Class"``) and imports it on the
first use of :attr:`Method.estimator`, so listing the methods (``optrules methods``, ``--help``) costs
no import of scikit-learn, the compiled kernels or a solver stack.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from optrules.estimators import RulesetClassifier
    from optrules.ruleset import Ruleset

__all__ = ["Method", "METHODS", "PREFERENCE", "default_methods", "get_method", "make_estimator", "fit"]


@dataclass(frozen=True)
class Method:
    """A registered method: its estimator, whether it is exact, fixed and test parameters, its Ruleset kind.

    ``estimator_source`` is the estimator class itself or the ``"module:Class"`` it is defined at;
    :attr:`estimator` is the class either way (imported on first use)."""

    name: str
    estimator_source: type[RulesetClassifier] | str
    exact: bool
    description: str
    fixed: dict[str, Any] = field(default_factory=dict)
    test_params: dict[str, Any] = field(default_factory=dict)
    kind: str = "set"  #: the kind of Ruleset it returns
    #: The parameter k (``max_rules``) of methods whose rules come in greedy selection order, so that
    #: the fit with ``k`` predicts as the first k rules of the fit without it (a tune step scores all
    #: k from one fit: optrules.experiments.tune); None for the others. ``prefix_requires``: the
    #: parameter values this holds under (LIBRE's greedy, not ILP, selection).
    prefix: str | None = None
    prefix_requires: dict[str, Any] = field(default_factory=dict)
    #: Parameter values that make a heuristic method exact (LIBRE's ``selection="ilp"``: its rules
    #: selected by the set-cover ILP, with a status, bound and gap); empty: ``exact`` alone decides.
    exact_with: dict[str, Any] = field(default_factory=dict)

    def is_exact(self, params: dict[str, Any]) -> bool:
        """Whether a fit with ``params`` is exact: :attr:`exact`, or ``params`` hold :attr:`exact_with`."""
        return self.exact or bool(self.exact_with) and all(params.get(k) == v for k, v in self.exact_with.items())

    @property
    def estimator(self) -> type[RulesetClassifier]:
        """The estimator class (its module imported here the first time)."""
        if not isinstance(self.estimator_source, str):
            return self.estimator_source
        module, _, name = self.estimator_source.partition(":")
        return getattr(importlib.import_module(module), name)


# Where each estimator class lives (imported by Method.estimator on first use).
_SET_COVER = "optrules.estimators.set_cover:SetCoverClassifier"
_COLUMN_GENERATION = "optrules.estimators.column_generation:ColumnGenerationClassifier"
_LIBRE = "optrules.estimators.libre:LibreClassifier"
_BOTTOM_UP = "optrules.estimators.libre:BottomUpClassifier"
_DECISION_LIST = "optrules.estimators.decision_list:DecisionListClassifier"
_CLSVM = "optrules.estimators.clsvm:CLSVMClassifier"

METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("setcover", _SET_COVER, True,
               "rule set chosen among mined candidates by the weighted set-cover ILP",
               fixed={"selection": "ilp"},
               test_params={"candidates": {"max_len": 2, "max_candidates": 50},
                            "solver_options": {"mip_max_nodes": 1000}}),
        Method("brcg", _COLUMN_GENERATION, True,
               "Boolean rule set optimal over every conjunction of at most D literals, by column "
               "generation (Dash, Günlük & Wei 2018), with a certified bound",
               test_params={"max_literals": 2, "n_thresholds": 3, "max_iterations": 30, "random_state": 0}),
        Method("brcg-beam", _COLUMN_GENERATION, False,
               "the same rule-set objective and space, columns priced by beam search only (heuristic "
               "column generation, as AIX360's BooleanRuleCG): no bound",
               fixed={"pricing": "beam"},
               test_params={"max_literals": 2, "n_thresholds": 3, "max_iterations": 30, "random_state": 0}),
        Method("setcover-greedy", _SET_COVER, False,
               "rule set chosen among mined candidates by LIBRE's greedy weighted set cover",
               fixed={"selection": "greedy"},
               test_params={"candidates": {"max_len": 2, "max_candidates": 50}}, prefix="max_rules"),
        Method("libre", _LIBRE, False,
               "LIBRE: ensemble of bottom-up Boolean-lattice weak learners, greedy weighted set cover",
               test_params={"n_estimators": 3, "random_state": 0},
               prefix="max_rules", prefix_requires={"selection": "greedy"}, exact_with={"selection": "ilp"}),
        Method("bottom-up", _BOTTOM_UP, False,
               "LIBRE's base bottom-up learner on all features, greedy weighted set cover",
               prefix="max_rules", prefix_requires={"selection": "greedy"}, exact_with={"selection": "ilp"}),
        Method("append", _DECISION_LIST, False,
               "decision list, CN2 order: best Laplace rule appended, covered cases removed (each rule "
               "by exact OPUS-style search, the list greedily)",
               fixed={"strategy": "append"}, kind="list"),
        Method("append-p2", _DECISION_LIST, False,
               "append, stopping when no rule beats the Laplace value of 2 positives, 0 negatives "
               "(exact rule search, greedy list)",
               fixed={"strategy": "append-p2"}, kind="list"),
        Method("prepend", _DECISION_LIST, False,
               "decision list grown from the default rule by prepending the rule that best fixes its "
               "errors (exact rule search, greedy list)",
               fixed={"strategy": "prepend"}, kind="list"),
        Method("prepend-ip2", _DECISION_LIST, False,
               "prepend with intern (each rule as deep as accuracy allows) and p2 pruning of small "
               "disjuncts (exact rule search, greedy list)",
               fixed={"strategy": "prepend-ip2"}, kind="list"),
        Method("svm-o", _CLSVM, False,
               "linear SVM scorecard, one score per category (CLSVM paper's SVM_O baseline)",
               fixed={"strategy": "svm-o"}, kind="score"),
        Method("svm-c", _CLSVM, False,
               "CLSVM: SVM_O scores clustered per feature by exact 1-d MSSC, SVM refitted on the clusters",
               fixed={"strategy": "svm-c"}, kind="score"),
        Method("cl-rr", _CLSVM, False,
               "CLSVM: QCQP relaxation of CL (Ipopt or SCIP), randomized rounding, SVM on the clusters",
               fixed={"strategy": "cl-rr"}, kind="score",
               test_params={"draws": 3, "random_state": 0}),
        Method("clm-rr", _CLSVM, False,
               "CLSVM: convex QP relaxation of CL-bigM, randomized rounding, SVM on the clusters",
               fixed={"strategy": "clm-rr"}, kind="score", test_params={"draws": 3, "random_state": 0}),
        Method("clm", _CLSVM, True,
               "CLSVM: the CL-bigM MIQP (SCIP), warm-started from SVM_C",
               fixed={"strategy": "clm"}, kind="score", test_params={"solver_options": {"limits/nodes": 10}}),
        Method("cl", _CLSVM, True,
               "CLSVM: the CL MINLP solved globally by SCIP, warm-started from SVM_C",
               fixed={"strategy": "cl"}, kind="score", test_params={"solver_options": {"limits/nodes": 10}}),
    )
}

#: Methods ``optrules compare`` fits by default, in this order, when registered: one or two per
#: family (set cover exact and greedy, column generation, LIBRE and its base learner, the Cluster-SVM
#: strategies SVM_C and CLM, the decision lists prepend and append).
PREFERENCE = ("setcover", "setcover-greedy", "brcg", "libre", "bottom-up", "svm-c", "clm", "prepend-ip2", "append")


def default_methods() -> list[str]:
    """:data:`PREFERENCE` restricted to the registered methods."""
    return [name for name in PREFERENCE if name in METHODS]


def get_method(name: str) -> Method:
    """The registered :class:`Method` called ``name``; ``ValueError`` listing the known names otherwise."""
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; known methods: {sorted(METHODS)}") from None


def unknown_parameters(name: str, keys: Iterable[str]) -> list[str]:
    """The names in ``keys`` that method ``name`` has no parameter for, sorted.

    A name is known if it is a parameter, a declared option key (``candidates__max_len``), or any key
    of a dict parameter (``solver_options__mip_rel_gap``: the solver judges its own options)."""
    valid = set(get_method(name).estimator().get_params(deep=True))
    return sorted(k for k in keys if k not in valid and k.partition("__")[0] not in valid)


def make_estimator(name: str, **params: Any) -> RulesetClassifier:
    """A configured estimator of method ``name``, its parameters checked (the error names the parameter).

    ``params`` may set one key of a dict parameter as ``option__key`` (``candidates__max_len=2``)."""
    method = get_method(name)
    unknown = unknown_parameters(name, params)
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} for method {name!r}; valid: "
                         f"{sorted(method.estimator().get_params(deep=False))}")
    clash = sorted(k for k in params if k in method.fixed and params[k] != method.fixed[k])
    if clash:
        raise ValueError(f"method {name!r} fixes {clash}; use the matching method name instead")
    estimator = method.estimator().set_params(**{**params, **method.fixed})
    estimator.check_parameters()
    return estimator


def fit(X: Any, y: Any, method: str = "setcover", **params: Any) -> Ruleset:
    """Fit method ``method`` on (X, y) and return its Ruleset."""
    return make_estimator(method, **params).fit(X, y).ruleset_
