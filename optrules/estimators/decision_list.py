"""``DecisionListClassifier``: the append / prepend decision lists (Webb) as an estimator; the
algorithms and the choices where the paper is silent are in ``optrules.learners.decision_list``.
With ``sample_weight`` the cases count by their weight in ChiMerge's class counts and in every
rule's Laplace value."""

from __future__ import annotations

import numpy as np

from optrules.data import class_order
from optrules.discretize import check_discretizer_options
from optrules.encode import FeatureBinning
from optrules.estimators.base import COMMON_PARAMETERS, RulesetClassifier, TrainingData
from optrules.estimators.params import Either, Integer, OneOf, Options
from optrules.learners.attribute_tests import TEST_KINDS, attribute_tests
from optrules.learners.decision_list import P2_VALUE, STRATEGIES, learn_append, learn_prepend
from optrules.ruleset import Rule, Ruleset

__all__ = ["DecisionListClassifier"]


class DecisionListClassifier(RulesetClassifier):
    """A multi-class decision list learned by append or prepend with exact best-rule search.

    Parameters
    ----------
    strategy : str, default "prepend-ip2"
        ``append``, ``append-p2``, ``prepend``, ``prepend-i``, ``prepend-p2`` or ``prepend-ip2``
        (see the module docstring).
    tests : "inequality" or "equality", default "inequality"
        Attribute-value tests of the rule antecedents: ``f != v`` (the paper's) or ``f = v``.
    max_nodes : int or None, default 1_000_000
        At most this many rules evaluated per search (one class, one step); a search stopped there
        keeps its best rule so far, and ``ruleset_.meta["unproven_searches"]`` counts such searches.
        ``None``: no limit.
    discretization : "chimerge" or "equal_frequency", default "chimerge"
        How numeric features are binned first (ChiMerge on the class labels; the paper's
        implementation took nominal attributes only).
    discretization_params : dict, optional
        Options of the discretiser (e.g. ``{"threshold": 4.6}``, ``{"n_bins": 5}``).
    max_intervals : int, "classes" or None, default "classes"
        At most this many intervals (so at most ``max_intervals - 1`` thresholds, and as many
        inequality tests plus one for missing values) per numeric feature: ChiMerge's
        ``max_intervals`` and the equal-frequency ``n_bins`` are capped at it. The search is
        exact over the tests it is given, and on numeric data their number decides its cost:
        ChiMerge alone keeps 40-90 intervals per uniform feature at 1,000 rows. ``"classes"``:
        as many intervals as the training data has classes (2 on two-class data, the cap chosen
        there; with fewer, one feature could not hold each of k ordered classes in an interval of
        its own: iris' three classes were learned to 66.7% with 2). ``None``: no cap.
        Categorical features are not affected.
    categorical : list, optional
        Column indices (or names) of a numpy X to treat as categorical.

    After ``fit``: ``ruleset_`` (a ``Ruleset(kind="list")``), ``classes_``, ``binning_``.
    """

    method = "decision-list"
    binary = False
    parameters = {
        "strategy": OneOf(tuple(STRATEGIES)), "tests": OneOf(tuple(TEST_KINDS)), "max_nodes": Integer(1, none=True),
        "discretization": OneOf(("chimerge", "equal_frequency")), "discretization_params": Options(),
        "max_intervals": Either((Integer(2, none=True), OneOf(("classes",)))), **COMMON_PARAMETERS,
    }

    def __init__(self, strategy: str = "prepend-ip2", tests: str = "inequality",
                 max_nodes: int | None = 1_000_000, discretization: str = "chimerge",
                 discretization_params: dict | None = None, max_intervals: int | str | None = "classes",
                 categorical: list | None = None,
                 max_categories: int | None = 100, min_frequency: int | float | None = None) -> None:
        self.strategy = strategy
        self.tests = tests
        self.max_nodes = max_nodes
        self.discretization = discretization
        self.discretization_params = discretization_params
        self.max_intervals = max_intervals
        self.categorical = categorical
        self.max_categories = max_categories
        self.min_frequency = min_frequency

    def __sklearn_tags__(self):
        # p2 pruning stops before the small disjuncts by design: on scikit-learn's rounded blobs
        # (classes mixed within a cell) append-p2 reaches 0.82 training accuracy, below the 0.83 the
        # generic checks ask for, while append reaches 0.92. That is the method, not a bug.
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = str(self.strategy).endswith("p2")
        return tags

    def _check_params(self) -> None:
        check_discretizer_options(self.discretization, self.discretization_params or {})

    def _fit_ruleset(self, data: TrainingData, rng: np.random.Generator) -> Ruleset:
        X, schema, labels, weights = data.frame, data.schema, data.labels, data.weights
        classes = class_order(labels)
        index = {c: k for k, c in enumerate(classes)}
        y = np.array([index[v] for v in labels.tolist()], dtype=np.int64)
        binning = FeatureBinning(method=self.discretization, **self._discretiser_options(len(classes)))
        binning.fit(X, labels, categorical=list(schema.categorical_features), weights=weights)
        tests = attribute_tests(binning, binning.bin_index(X), self.tests)
        prepend, intern, p2 = STRATEGIES[self.strategy]
        max_nodes = None if self.max_nodes is None else int(self.max_nodes)
        if prepend:
            learned = learn_prepend(tests, y, len(classes), weights, intern=intern,
                                    min_value=P2_VALUE if p2 else 0.5, max_nodes=max_nodes)
        else:
            learned = learn_append(tests, y, len(classes), weights, min_value=P2_VALUE if p2 else -np.inf,
                                   max_nodes=max_nodes)
        listed, default = list(learned.rules), learned.default
        always = [k for k, r in enumerate(listed) if not r.tests]  # IF TRUE: fires on every case it sees
        if always:  # what follows it (the majority default rule at least) can never fire: it is the default
            listed, default = listed[:always[0]], listed[always[0]].prediction
        rules = tuple(Rule(tests.conditions(r.tests), classes[r.prediction]) for r in listed)
        self.binning_ = binning
        proven = learned.searches - learned.unproven
        meta = {"strategy": self.strategy, "search_nodes": learned.nodes, "searches": learned.searches,
                "unproven_searches": learned.unproven, "proven": proven,
                "proven_share": proven / learned.searches if learned.searches else 1.0,
                "training_accuracy": list(learned.accuracy), "n_tests": tests.n_tests,
                "default_rule": "learned" if always else "majority"}
        return Ruleset("list", rules, classes[default], schema.features, classes, meta=meta)

    def _discretiser_options(self, n_classes: int) -> dict:
        """The discretiser's options with the interval cap applied (ChiMerge's ``max_intervals``,
        the equal-frequency ``n_bins``, whose own default is 5); ``"classes"`` caps at ``n_classes``."""
        options = dict(self.discretization_params or {})
        if self.max_intervals is not None:
            cap = n_classes if self.max_intervals == "classes" else int(self.max_intervals)
            key, own = ("max_intervals", None) if self.discretization == "chimerge" else ("n_bins", 5)
            given = options.get(key, own)
            options[key] = cap if given is None else min(int(given), cap)
        return options
