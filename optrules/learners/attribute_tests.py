"""Attribute-value tests on a binned table, and their translation back into readable conditions.

The decision-list learners (Webb, "Recent Progress in Learning Decision Lists by Prepending Inferred
Rules") build rule antecedents as conjunctions of *attribute-value inequality tests* such as
``gender != male`` -- as expressive as internal disjunctions: ``colour != red AND colour != blue`` is
``colour in {every other value}``. Equality tests (``gender = male``) are offered as an option.

Every feature is first binned with :class:`optrules.encode.FeatureBinning`: a categorical feature has
one bin per training category, a numeric feature the bins of its discretisation (ChiMerge by
default), and a feature with missing training values one more bin for "missing", so missing is a
value of its own. Test ``(feature, bin)`` then holds for a case when the case's bin differs from
(inequality) or equals (equality) ``bin``. Tests are numbered feature by feature, bins in order;
tests that hold for every training case or for none are left out (no rule needs them).

A conjunction of tests reads back as one condition per feature:

* inequality, categorical: ``f not in {excluded values}`` (a value never seen in training satisfies
  it, as it differs from each excluded value); on a feature with missing training values it is
  satisfied by a missing value (``or missing``) unless ``missing`` is excluded too; excluding only
  ``missing`` gives ``f in {every training value}``;
* inequality, numeric: ``f in`` the union of the intervals of the bins not excluded (``or missing``
  on a feature with missing training values, unless ``missing`` is excluded);
* equality: the bin's own condition (``f in {v}``, ``f in [a, b)``, or missing only).

Missing values take part only where training had them, as a value of their own: on a feature
without missing training values no test mentions them, and a missing value met later satisfies no
condition on that feature (as a value outside the numeric bins' range would not), the rule that
every other learner of the package follows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optrules.encode import FeatureBinning
from optrules.ruleset import CategoricalCondition, Condition

__all__ = ["TEST_KINDS", "AttributeTests", "attribute_tests"]

TEST_KINDS = ("inequality", "equality")


@dataclass(frozen=True)
class AttributeTests:
    """The candidate tests of a binned training table.

    ``feature[j]`` and ``bin[j]`` name test ``j`` (feature index in the binning's order, bin within
    the feature); ``holds[i, j]`` says whether test ``j`` holds for training case ``i``.
    """

    kind: str
    binning: FeatureBinning
    feature: np.ndarray
    bin: np.ndarray
    holds: np.ndarray

    @property
    def n_tests(self) -> int:
        return int(self.feature.shape[0])

    def covers(self, tests: tuple[int, ...]) -> np.ndarray:
        """Boolean mask of the training cases covered by the conjunction of ``tests``."""
        return self.holds[:, list(tests)].all(axis=1)

    def describe(self, test: int) -> str:
        """``f != v`` or ``f = v`` with the bin's readable name."""
        layout = self.binning.layout_[int(self.feature[test])]
        operator = "!=" if self.kind == "inequality" else "="
        return f"{layout.feature} {operator} {layout.labels()[int(self.bin[test])]}"

    def conditions(self, tests: tuple[int, ...]) -> tuple[Condition, ...]:
        """The conditions equivalent to the conjunction of ``tests``, one per feature, in feature order."""
        conditions = []
        for k in sorted({int(self.feature[j]) for j in tests}):
            layout = self.binning.layout_[k]
            chosen = [int(self.bin[j]) for j in tests if int(self.feature[j]) == k]
            if self.kind == "equality":
                allowed = np.zeros(layout.n_bins, dtype=bool)
                allowed[chosen] = True
                conditions.append(layout.condition(allowed))
                continue
            values = [b for b in chosen if b != layout.missing_bin]
            if layout.categorical and values:
                conditions.append(CategoricalCondition(
                    layout.feature, [layout.categories[b] for b in values], negated=True,
                    missing=layout.has_missing and layout.missing_bin not in chosen))
            else:
                allowed = np.ones(layout.n_bins, dtype=bool)
                allowed[chosen] = False
                conditions.append(layout.condition(allowed))
        return tuple(conditions)


def attribute_tests(binning: FeatureBinning, codes: np.ndarray, kind: str = "inequality") -> AttributeTests:
    """The tests of every (feature, bin) of a fitted ``binning`` on the training bins ``codes``
    (``binning.bin_index(X)``: cases x features)."""
    if kind not in TEST_KINDS:
        raise ValueError(f"tests must be one of {TEST_KINDS}, got {kind!r}")
    codes = np.asarray(codes)
    widths = [layout.n_bins for layout in binning.layout_]
    feature = np.repeat(np.arange(len(widths)), widths)
    bins = np.concatenate([np.arange(w) for w in widths]) if widths else np.zeros(0, dtype=np.int64)
    equal = codes[:, feature] == bins[None, :]
    holds = equal if kind == "equality" else ~equal
    informative = holds.any(axis=0) & ~holds.all(axis=0)
    return AttributeTests(kind, binning, feature[informative], bins[informative],
                          np.ascontiguousarray(holds[:, informative]))
