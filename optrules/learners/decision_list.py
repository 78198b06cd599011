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
* Ties between rules: higher value, then more positives; among rules equal on both the search keeps
  the first it finds, its redundant tests dropped (:mod:`optrules.learners.opus`), which need not
  be the one of fewest tests; ties between classes go to the class searched first, the classes
  being searched in decreasing order of the optimistic value of their ``TRUE`` rule. The default
  class is the most common training class, ties to the first class in sorted order.
* The reported cover of each rule (``Rule.n_positive`` / ``n_negative``) is that of the final list on
  the training set: the cases for which the rule is the first to fire, each counted with its weight.
* A learned ``IF TRUE THEN c`` (append's last rule, often) makes the default rule after it dead: the
  estimator's Ruleset takes ``c`` as its default instead of listing both (``meta["default_rule"]``).

Case weights
------------
With ``weights`` (one non-negative number per training case; None or ones: unweighted) every count
is a sum of weights: the ``pos`` and ``neg`` of each Laplace value (:mod:`optrules.learners.opus`,
whose bounds stay valid), the order in which the classes are searched, the default (majority) class,
the gains that place an intern rule and the training accuracies. The sums are exact
(:class:`~optrules.learners.opus.CaseWeights`), so an integer weight acts exactly as that many
copies of the case, and a case of weight 0 as a removed one (``append`` stops once every case of
positive weight is covered). A rule added by ``prepend`` has ``pos > neg`` for the exact sums, so
each raises the exact weighted accuracy and the loop still ends. At least one weight must be
positive. Weights are in units of cases: the Laplace value's ``+ 1`` and ``+ 2`` and the p2
cut-off (a positive weight of 2, no negative) do not scale with them. ``ListRule.positive`` and
``negative`` are then summed weights (floats).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from optrules.learners.attribute_tests import AttributeTests
from optrules.learners.opus import Candidate, CaseWeights, best_rule, case_weights, laplace
from optrules.ruleset import first_firing

__all__ = ["STRATEGIES", "P2_VALUE", "ListRule", "LearnedList", "majority_class", "learn_append",
           "learn_prepend", "intern_position"]

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
    """A rule of a learned list: its tests, its class index, and the cover counts it was chosen for
    (numbers of cases, or their summed weights)."""

    tests: tuple[int, ...]
    prediction: int
    positive: float
    negative: float


@dataclass(frozen=True)
class LearnedList:
    """A learned decision list on class indices, with search statistics.

    ``accuracy`` holds the (weighted) training accuracy after each step (prepend: starting with the
    default rule alone; append: only the final list's).
    """

    rules: tuple[ListRule, ...]
    default: int
    nodes: int
    searches: int
    unproven: int
    accuracy: tuple[float, ...]


class _Searcher:
    """Finds the best rule over all classes, keeping count of the search effort and showing it on a
    progress bar (one tick per rule search; silent unless stderr is a terminal)."""

    def __init__(self, holds: np.ndarray, n_classes: int, weights: CaseWeights | None, min_value: float,
                 max_nodes: int | None, name: str) -> None:
        self.progress = tqdm(desc=name, unit="search", disable=None, leave=False)
        self.holds = holds
        self.n_classes = n_classes
        self.weights = weights
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
        order = sorted(range(self.n_classes), key=lambda c: (-_mass(masks[c][0], self.weights), c))
        found: tuple[int, Candidate] | None = None
        for c in order:
            result = best_rule(self.holds, *masks[c], weights=self.weights, min_value=self.min_value,
                               incumbent=None if found is None else found[1].key, max_nodes=self.max_nodes)
            self.nodes += result.nodes
            self.searches += 1
            self.unproven += int(not result.proven)
            self.progress.set_postfix(nodes=self.nodes, unproven=self.unproven, refresh=False)
            self.progress.update()
            if result.rule is not None:
                found = (c, result.rule)
        return found


def _mass(mask: np.ndarray, weights: CaseWeights | None) -> int:
    """The number of cases of ``mask``, or their exact weight (in units of the weights)."""
    return int(mask.sum()) if weights is None else weights.exact(mask)


def _list_weights(weights: Any, n: int) -> CaseWeights | None:
    """The weights of a list learner's ``n`` cases (None: unweighted); not all of them 0."""
    cases = case_weights(weights, n)
    if cases is not None and not cases.counted.any():
        raise ValueError("weights must not all be 0")
    return cases


def _accuracy(correct: np.ndarray, weights: CaseWeights | None) -> float:
    """The share of the cases (or of their weight) the list gets right."""
    if weights is None:
        return float(correct.mean())
    return weights.exact(correct) / weights.exact(np.ones_like(correct))  # exact ratio, rounded once


def _deciding_rules(covers: list[np.ndarray], n: int) -> np.ndarray:
    """Per case, the index of the rule that decides it (its first firing rule, or ``len(covers)``
    for the default rule), from the rules' covers in list order."""
    return first_firing(np.column_stack(covers) if covers else np.zeros((n, 0), dtype=bool))


def _predictions(rules: list[ListRule], first: np.ndarray, default: int) -> np.ndarray:
    """The list's class for each case, from each case's first firing rule."""
    return np.array([r.prediction for r in rules] + [default], dtype=np.int64)[first]


def majority_class(y: np.ndarray, n_classes: int, weights: Any = None) -> int:
    """The most common class index (by summed weight with ``weights``); ties to the smallest index."""
    cases = case_weights(weights, y.shape[0])
    if cases is None:
        return int(np.argmax(np.bincount(y, minlength=n_classes)))
    totals = [cases.exact(y == c) for c in range(n_classes)]
    return max(range(n_classes), key=lambda c: (totals[c], -c))


def learn_append(tests: AttributeTests, y: np.ndarray, n_classes: int, weights: Any = None, *,
                 min_value: float = -np.inf, max_nodes: int | None = None) -> LearnedList:
    """The paper's ``append`` (CN2's covering loop with exact rule search); ``min_value=P2_VALUE``
    gives ``append-p2``. ``weights``: one non-negative number per case (None: ones)."""
    cases = _list_weights(weights, y.shape[0])
    searcher = _Searcher(tests.holds, n_classes, cases, min_value, max_nodes, "append")
    remaining = np.ones(y.shape[0], dtype=bool) if cases is None else cases.counted.copy()
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
    searcher.progress.close()
    default = majority_class(y, n_classes, cases)
    accuracy = _accuracy(_predictions(rules, _deciding_rules(covers, y.shape[0]), default) == y, cases)
    return LearnedList(tuple(rules), default, searcher.nodes, searcher.searches, searcher.unproven,
                       (accuracy,))


def intern_position(first: np.ndarray, covered: np.ndarray, correct: np.ndarray, is_class: np.ndarray,
                    n_rules: int, weights: Any = None) -> int:
    """The deepest insertion position of a new rule that loses no training accuracy against the front.

    ``first`` is each case's first firing rule in the current list (``n_rules``: the default rule);
    ``covered`` the new rule's cover, ``correct`` whether the current list is right on each case,
    ``is_class`` whether each case is of the new rule's class. Inserted at position ``k`` (before rule
    ``k``; ``k = n_rules``: just before the default rule), the rule changes the prediction of the
    covered cases with ``first >= k``, gaining ``sum over them of is_class - correct``, each case
    counted with its weight when ``weights`` are given (exact sums, exact comparisons).
    """
    change = covered * (is_class.astype(np.int64) - correct.astype(np.int64))
    cases = case_weights(weights, first.shape[0])
    if cases is None:
        per_rule = np.bincount(first, weights=change, minlength=n_rules + 1)
    else:
        per_rule = np.zeros(n_rules + 1, dtype=cases.units.dtype)
        np.add.at(per_rule, first, change * cases.units)
    gain = np.cumsum(per_rule[::-1])[::-1]  # gain[k]: inserted before rule k
    return int(np.flatnonzero(gain >= gain[0])[-1])


def learn_prepend(tests: AttributeTests, y: np.ndarray, n_classes: int, weights: Any = None, *,
                  intern: bool = False, min_value: float = 0.5, max_nodes: int | None = None) -> LearnedList:
    """The paper's ``prepend``; ``intern=True`` and ``min_value=P2_VALUE`` give ``-i``, ``-p2``.
    ``weights``: one non-negative number per case (None: ones).

    Rules need a value above ``max(min_value, 1/2)``, i.e. ``pos > neg``.
    """
    n = y.shape[0]
    cases = _list_weights(weights, n)
    default = majority_class(y, n_classes, cases)
    searcher = _Searcher(tests.holds, n_classes, cases, max(float(min_value), 0.5), max_nodes, "prepend")
    rules: list[ListRule] = []
    covers: list[np.ndarray] = []
    first = _deciding_rules(covers, n)
    correct = _predictions(rules, first, default) == y
    accuracy = [_accuracy(correct, cases)]
    while True:
        found = searcher.best(lambda c: ~correct & (y == c), lambda c: correct & (y != c))
        if found is None:
            break
        c, rule = found
        covered = tests.covers(rule.tests)
        position = intern_position(first, covered, correct, y == c, len(rules), cases) if intern else 0
        rules.insert(position, ListRule(rule.tests, c, rule.positive, rule.negative))
        covers.insert(position, covered)
        first = _deciding_rules(covers, n)
        correct = _predictions(rules, first, default) == y
        accuracy.append(_accuracy(correct, cases))
    searcher.progress.close()
    return LearnedList(tuple(rules), default, searcher.nodes, searcher.searches, searcher.unproven,
                       tuple(accuracy))
