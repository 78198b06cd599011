"""Greedy weighted set cover: the LIBRE paper's final rule selection (Section 3.3).

At each step the candidate with the highest weight is chosen,

    weight_j = alpha * (positives j still covers) - (1 - alpha) * (negatives j still covers) - cost_j,

where "still" means not covered by a rule chosen before; ties go to the candidate of smaller
``size`` (the caller's measure of a rule's size: LIBRE passes the number of ones of each lattice
element, so that "the element with the highest number of zeros is preferred" as Section 3.3 says;
``SetCoverClassifier`` passes the number of atoms), then to the lower index. The samples it covers are removed
and the weights recomputed. The loop stops when no candidate has a positive weight (none would lower
the objective of ``optrules.cover``; in particular once every positive is covered, since costs are
non-negative), when no candidate is left, or after ``max_rules`` rules.

The weights are sums over rows of ``row value * coverage``. When the rows take few distinct values
(``MAX_PACKED_VALUES``; raw samples take two, ``alpha`` and ``-(1 - alpha)``), each such sum is a
count: the coverage is packed into bitsets once, and a value's contribution is its popcount over the
rows of that value, so no float copy of the (samples x candidates) coverage is made; otherwise
(e.g. merged rows of many counts) the sums are matrix products, of the rows just covered only
after the first.

The positive-weight stop is our reading of the paper's "until all samples are covered or a stopping
condition is met": the LIBRE authors' reference code has no stop and selects rules until the
positives run out, which is where its rule counts far above the paper's come from.
"""

from __future__ import annotations

import numpy as np

from optrules.cover import CoverInstance

__all__ = ["greedy_cover", "MAX_PACKED_VALUES"]

#: The most distinct row values for which the weights are counted on packed bitsets (module docstring).
MAX_PACKED_VALUES = 16


class _RowSums:
    """``row_value[rows] @ coverage[rows]`` for boolean row masks ``rows``: one popcount per distinct
    row value over the packed coverage, or a product with the float rows (see the module docstring)."""

    def __init__(self, coverage: np.ndarray, row_value: np.ndarray) -> None:
        self.coverage, self.row_value = coverage, row_value
        values, group = np.unique(row_value, return_inverse=True)
        self.packed = None
        if len(values) <= MAX_PACKED_VALUES:
            self.values = values
            self.group = group.ravel()
            self.packed = self._pack(coverage.T)  # (candidates, words)

    @staticmethod
    def _pack(bits: np.ndarray) -> np.ndarray:
        """Rows of booleans -> rows of uint64 words (bit order does not matter: only popcounts are taken)."""
        packed = np.packbits(bits, axis=-1)
        pad = -packed.shape[-1] % 8
        if pad:
            packed = np.concatenate([packed, np.zeros((*packed.shape[:-1], pad), np.uint8)], axis=-1)
        return np.ascontiguousarray(packed).view(np.uint64)

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        if self.packed is None:
            return self.row_value[rows] @ self.coverage[rows].astype(np.float64)
        total = np.zeros(self.packed.shape[0])
        for k, value in enumerate(self.values):
            if value != 0.0:
                mask = self._pack(rows & (self.group == k))
                total += value * np.bitwise_count(self.packed & mask).sum(axis=1)
        return total


def greedy_cover(instance: CoverInstance, max_rules: int | None = None,
                 size: np.ndarray | None = None, budget: float | None = None,
                 budget_use: np.ndarray | None = None) -> np.ndarray:
    """Indices of the chosen candidates, in the order they were chosen; ties to the smaller ``size``.

    With ``budget``, a candidate is chosen only while the ``budget_use`` of the chosen ones (one
    entry per candidate) stays within it (column generation's complexity budget C)."""
    coverage = instance.coverage
    n_cols = coverage.shape[1]
    size = np.zeros(n_cols) if size is None else np.asarray(size, dtype=float)
    alpha = instance.alpha
    row_sums = _RowSums(coverage, alpha * instance.pos_weight - (1 - alpha) * instance.neg_weight)
    active = np.ones(coverage.shape[0], dtype=bool)
    weight = row_sums(active) - instance.cost
    available = np.ones(n_cols, dtype=bool)
    chosen: list[int] = []
    limit = n_cols if max_rules is None else min(int(max_rules), n_cols)
    use = None if budget is None else np.asarray(budget_use, dtype=float)
    spent = 0.0
    while len(chosen) < limit:
        if use is not None:
            available &= spent + use <= budget + 1e-9
        candidates = np.flatnonzero(available)
        if candidates.size == 0:
            break
        best_weight = weight[candidates].max()
        if best_weight <= 1e-12:
            break
        tied = candidates[weight[candidates] >= best_weight - 1e-12]
        best = int(tied[np.lexsort((tied, size[tied]))[0]])
        chosen.append(best)
        available[best] = False
        if use is not None:
            spent += use[best]
        newly = active & coverage[:, best]
        # Rows just covered no longer count for any candidate: subtract their value.
        weight -= row_sums(newly)
        active &= ~newly
    return np.array(chosen, dtype=int)
