"""Decision lists by appending and by prepending inferred rules (Webb; CN2's order as ``append``).

Paper: Webb, "Recent Progress in Learning Decision Lists by Prepending Inferred Rules". Every rule is
the best rule under the Laplace preference value ``(pos + 1) / (pos + neg + 2)``, found exactly by
the OPUS-style search of :mod:`optrules.learners.opus` over conjunctions of attribute-value tests
(:mod:`optrules.learners.attribute_tests`), for the best of all classes. The list itself is built
greedily, one rule at a time.

``append`` (the paper's top-level CN2 algorithm)
    With ``E`` the training cases: repeat until ``E`` is empty: find the best rule, where the
    positives are the cases of ``E`` of the rule's class and the negatives the other cases of
    ``E``; add it to the end of the list; remove from ``E`` the cases it covers. Then add the
    default rule ``IF TRUE THEN M`` (``M`` the most common class of the training set).
``prepend``
    Start from the default rule alone. Repeat: find the best rule, where the positive cover counts
    only the cases of the rule's class that the current list misclassifies and the negative cover
    only the cases of other classes that it classifies correctly; stop when the best rule covers
    no more positive than negative cases (value ``<= 1/2``); otherwise put it at the front.
``-p2`` (prune small disjuncts)
    Stop as soon as the best rule's value is ``<=`` that of a rule covering two positive and no
    negative cases (``3/4``).
``-i`` (intern, prepend only)
    Insert each new rule as deep in the list as possible (at the last position before the default
    rule, or before the deepest existing rule) such that the training accuracy is no lower than
    with the rule at the front.

Strategies: ``append``, ``append-p2``, ``prepend``, ``prepend-i``, ``prepend-p2``, ``prepend-ip2``.

Choices where the paper is silent (``docs/methods/decision_lists.md``)
---------------------------------------------------------------------
* Only rules covering at least one positive case are candidates (``append`` would otherwise loop on
  a rule covering nothing, whose value is 1/2).
* The prepend loop stops when the best rule covers ``pos <= neg`` (the paper adds a rule only when
  ``pos > neg`` and stops when ``pos < neg``; with ``pos == neg`` nothing would change and the loop
  would not end). Each added rule raises the training accuracy, so prepend terminates.
* Intern compares with the accuracy of the list with the rule at the front (its gain ``pos - neg``
  is what the search chose it for). Comparing with the list before the insertion instead would
  allow a position where the rule never fires, leaving the list unchanged and the loop endless.
* Ties between rules: higher value, then more positives, then fewer tests, then the test order
  (:mod:`optrules.learners.opus`); ties between classes go to the class searched first, the classes
  being searched in decreasing order of the optimistic value of their ``TRUE`` rule. The default
  class is the most common training class, ties to the first class in sorted order.
* The reported cover of each rule (``Rule.n_positive`` / ``n_negative``) is that of the final list on
  the training set: the cases for which the rule is the first to fire.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from optrules.data import Schema, class_order
from optrules.encode import FeatureBinning
from optrules.estimators import RulesetClassifier
from optrules.learners.attribute_tests import TEST_KINDS, AttributeTests, attribute_tests
from optrules.learners.opus import Candidate, best_rule, laplace
from optrules.ruleset import Rule, Ruleset

__all__ = ["STRATEGIES", "P2_VALUE", "ListRule", "LearnedList", "majority_class", "learn_append",
           "learn_prepend", "intern_position", "DecisionListClassifier"]

#: Strategy name -> (prepend?, intern?, prune-p2?).
STRATEGIES: dict[str, tuple[bool, bool, bool]] = {
    "append": (False, False, False),
    "append-p2": (False, False, True),
    "prepend": (True, False, False),
    "prepend-i": (True, True, False),
    "prepend-p2": (True, False, True),
    "prepend-ip2": (True, True, True),
}

#: The p2 cut-off: the Laplace value of a rule covering two positive and no negative cases.
P2_VALUE = float(laplace(2, 0))


@dataclass(frozen=True)
class ListRule:
    """A rule of a learned list: its tests, its class index, and the cover counts it was chosen for."""

    tests: tuple[int, ...]
    prediction: int
    positive: int
    negative: int


@dataclass(frozen=True)
class LearnedList:
    """A learned decision list on class indices, with search statistics.

    ``accuracy`` holds the training accuracy after each step (prepend: starting with the default rule
    alone; append: only the final list's).
    """

    rules: tuple[ListRule, ...]
    default: int
    nodes: int
    searches: int
    unproven: int
    accuracy: tuple[float, ...]


class _Searcher:
    """Finds the best rule over all classes, keeping count of the search effort."""

    def __init__(self, holds: np.ndarray, n_classes: int, min_value: float, max_nodes: int | None) -> None:
        self.holds = holds
        self.n_classes = n_classes
        self.min_value = min_value
        self.max_nodes = max_nodes
        self.nodes = 0
        self.searches = 0
        self.unproven = 0

    def best(self, positive_of: Any, negative_of: Any) -> tuple[int, Candidate] | None:
        """The best rule of any class ``c``, with positives ``positive_of(c)`` and negatives
        ``negative_of(c)``; classes are searched in decreasing order of their ``TRUE`` rule's bound
        so that the first searches set a high incumbent for the others."""
        masks = [(positive_of(c), negative_of(c)) for c in range(self.n_classes)]
        order = sorted(range(self.n_classes), key=lambda c: (-int(masks[c][0].sum()), c))
        found: tuple[int, Candidate] | None = None
        for c in order:
            result = best_rule(self.holds, *masks[c], min_value=self.min_value,
                               incumbent=None if found is None else found[1].key, max_nodes=self.max_nodes)
            self.nodes += result.nodes
            self.searches += 1
            self.unproven += int(not result.proven)
            if result.rule is not None:
                found = (c, result.rule)
        return found


def _first_firing(covers: list[np.ndarray], n: int) -> np.ndarray:
    """Index of the first rule that fires for each case (``len(covers)``: none, the default rule)."""
    if not covers:
        return np.zeros(n, dtype=np.int64)
    matrix = np.column_stack(covers)
    return np.where(matrix.any(axis=1), matrix.argmax(axis=1), len(covers))


def _predictions(rules: list[ListRule], first: np.ndarray, default: int) -> np.ndarray:
    """The list's class for each case, from each case's first firing rule."""
    return np.array([r.prediction for r in rules] + [default], dtype=np.int64)[first]


def majority_class(y: np.ndarray, n_classes: int) -> int:
    """The most common class index; ties to the smallest index."""
    return int(np.argmax(np.bincount(y, minlength=n_classes)))


def learn_append(tests: AttributeTests, y: np.ndarray, n_classes: int, *, min_value: float = -np.inf,
                 max_nodes: int | None = None) -> LearnedList:
    """The paper's ``append`` (CN2's covering loop with exact rule search); ``min_value=P2_VALUE``
    gives ``append-p2``."""
    searcher = _Searcher(tests.holds, n_classes, min_value, max_nodes)
    remaining = np.ones(y.shape[0], dtype=bool)
    rules: list[ListRule] = []
    covers: list[np.ndarray] = []
    while remaining.any():
        found = searcher.best(lambda c: remaining & (y == c), lambda c: remaining & (y != c))
        if found is None:
            break
        c, rule = found
        rules.append(ListRule(rule.tests, c, rule.positive, rule.negative))
        covers.append(tests.covers(rule.tests))
        remaining &= ~covers[-1]
    default = majority_class(y, n_classes)
    accuracy = float((_predictions(rules, _first_firing(covers, y.shape[0]), default) == y).mean())
    return LearnedList(tuple(rules), default, searcher.nodes, searcher.searches, searcher.unproven,
                       (accuracy,))


def intern_position(first: np.ndarray, covered: np.ndarray, correct: np.ndarray, is_class: np.ndarray,
                    n_rules: int) -> int:
    """The deepest insertion position of a new rule that loses no training accuracy against the front.

    ``first`` is each case's first firing rule in the current list (``n_rules``: the default rule);
    ``covered`` the new rule's cover, ``correct`` whether the current list is right on each case,
    ``is_class`` whether each case is of the new rule's class. Inserted at position ``k`` (before rule
    ``k``; ``k = n_rules``: just before the default rule), the rule changes the prediction of the
    covered cases with ``first >= k``, gaining ``sum over them of is_class - correct``.
    """
    change = covered * (is_class.astype(np.int64) - correct.astype(np.int64))
    per_rule = np.bincount(first, weights=change, minlength=n_rules + 1)
    gain = np.cumsum(per_rule[::-1])[::-1]  # gain[k]: inserted before rule k
    return int(np.flatnonzero(gain >= gain[0])[-1])


def learn_prepend(tests: AttributeTests, y: np.ndarray, n_classes: int, *, intern: bool = False,
                  min_value: float = 0.5, max_nodes: int | None = None) -> LearnedList:
    """The paper's ``prepend``; ``intern=True`` and ``min_value=P2_VALUE`` give ``-i``, ``-p2``.

    Rules need a value above ``max(min_value, 1/2)``, i.e. ``pos > neg``.
    """
    n = y.shape[0]
    default = majority_class(y, n_classes)
    searcher = _Searcher(tests.holds, n_classes, max(float(min_value), 0.5), max_nodes)
    rules: list[ListRule] = []
    covers: list[np.ndarray] = []
    first = _first_firing(covers, n)
    correct = _predictions(rules, first, default) == y
    accuracy = [float(correct.mean())]
    while True:
        found = searcher.best(lambda c: ~correct & (y == c), lambda c: correct & (y != c))
        if found is None:
            break
        c, rule = found
        covered = tests.covers(rule.tests)
        position = intern_position(first, covered, correct, y == c, len(rules)) if intern else 0
        rules.insert(position, ListRule(rule.tests, c, rule.positive, rule.negative))
        covers.insert(position, covered)
        first = _first_firing(covers, n)
        correct = _predictions(rules, first, default) == y
        accuracy.append(float(correct.mean()))
    return LearnedList(tuple(rules), default, searcher.nodes, searcher.searches, searcher.unproven,
                       tuple(accuracy))


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


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
    categorical : list, optional
        Column indices (or names) of a numpy X to treat as categorical.

    After ``fit``: ``ruleset_`` (a ``Ruleset(kind="list")``), ``classes_``, ``binning_``.
    """

    method = "decision-list"
    binary = False

    def __init__(self, strategy: str = "prepend-ip2", tests: str = "inequality",
                 max_nodes: int | None = 1_000_000, discretization: str = "chimerge",
                 discretization_params: dict | None = None, categorical: list | None = None) -> None:
        self.strategy = strategy
        self.tests = tests
        self.max_nodes = max_nodes
        self.discretization = discretization
        self.discretization_params = discretization_params
        self.categorical = categorical

    def __sklearn_tags__(self):
        # p2 pruning stops before the small disjuncts by design: on scikit-learn's rounded blobs
        # (classes mixed within a cell) append-p2 reaches 0.82 training accuracy, below the 0.83 the
        # generic checks ask for, while append reaches 0.92. That is the method, not a bug.
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = str(self.strategy).endswith("p2")
        return tags

    def _check_params(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {sorted(STRATEGIES)}, got {self.strategy!r}")
        if self.tests not in TEST_KINDS:
            raise ValueError(f"tests must be one of {TEST_KINDS}, got {self.tests!r}")
        if self.max_nodes is not None and (not _is_int(self.max_nodes) or self.max_nodes < 1):
            raise ValueError(f"max_nodes must be a positive integer or None, got {self.max_nodes!r}")
        if self.discretization not in ("chimerge", "equal_frequency"):
            raise ValueError(f"discretization must be 'chimerge' or 'equal_frequency', "
                             f"got {self.discretization!r}")

    def _fit_ruleset(self, X: pd.DataFrame, schema: Schema, labels: np.ndarray,
                     rng: np.random.Generator) -> Ruleset:
        self._check_params()
        classes = class_order(labels)
        index = {c: k for k, c in enumerate(classes)}
        y = np.array([index[v] for v in labels.tolist()], dtype=np.int64)
        binning = FeatureBinning(method=self.discretization, **(self.discretization_params or {}))
        binning.fit(X, labels, categorical=list(schema.categorical_features))
        tests = attribute_tests(binning, binning.bin_index(X), self.tests)
        prepend, intern, p2 = STRATEGIES[self.strategy]
        max_nodes = None if self.max_nodes is None else int(self.max_nodes)
        if prepend:
            learned = learn_prepend(tests, y, len(classes), intern=intern,
                                    min_value=P2_VALUE if p2 else 0.5, max_nodes=max_nodes)
        else:
            learned = learn_append(tests, y, len(classes), min_value=P2_VALUE if p2 else -np.inf,
                                   max_nodes=max_nodes)
        first = _first_firing([tests.covers(r.tests) for r in learned.rules], y.shape[0])
        rules = tuple(
            Rule(tests.conditions(r.tests), classes[r.prediction],
                 n_positive=int(((first == k) & (y == r.prediction)).sum()),
                 n_negative=int(((first == k) & (y != r.prediction)).sum()))
            for k, r in enumerate(learned.rules)
        )
        self.binning_ = binning
        meta = {"strategy": self.strategy, "search_nodes": learned.nodes, "searches": learned.searches,
                "unproven_searches": learned.unproven, "training_accuracy": list(learned.accuracy),
                "n_tests": tests.n_tests}
        return Ruleset("list", rules, classes[learned.default], schema.features, classes, meta=meta)
