"""Exact one-dimensional minimum-sum-of-squares clustering (MSSC) by dynamic programming.

The CLSVM paper's SVM_C strategy (Carrizosa, Nogales-Gomez and Romero Morales, Figure 3) clusters
the SVM_O scores nu_1..nu_K of one categorical feature into L clusters so that the sum of squared
distances to the cluster means is minimal. In one dimension an optimal clustering consists of
runs of the sorted values nu_(1) <= ... <= nu_(K) (Figure 3, Step 2), so the breakpoints
i_1 < ... < i_{L-1} are found exactly by dynamic programming over prefixes:

    D[l][m] = min_{t < m} D[l-1][t] + F({t+1, ..., m}),     D[0][0] = 0,

with F(I) the within-run sum of squares, computed in O(1) from prefix sums. Time O(L K^2).

Sample weights do not enter here: each category counts once, as in Figure 3, however many samples
(or how much weight) it has, which is what the unweighted strategy does too. The weights reach the
clustering through the SVM_O scores nu alone, and there a row of integer weight w is w copies of
it; copies change neither the set of categories nor, at the optimum, their scores, so the
unweighted MSSC is what duplicating the rows gives. (A category met only by rows of weight 0 has
SVM_O score 0 and is clustered like the others.)
"""

from __future__ import annotations

import numpy as np

__all__ = ["mssc_1d", "within_sum_of_squares"]


def within_sum_of_squares(values: np.ndarray, labels: np.ndarray) -> float:
    """sum_l sum_{k in cluster l} (nu_k - mean of cluster l)^2."""
    values = np.asarray(values, dtype=float)
    labels = np.asarray(labels)
    total = 0.0
    for label in np.unique(labels):
        members = values[labels == label]
        total += float(((members - members.mean()) ** 2).sum())
    return total


def mssc_1d(values: np.ndarray, clusters: int) -> np.ndarray:
    """Optimal labels (0..clusters-1) of the one-dimensional MSSC of ``values``.

    Clusters are numbered in increasing order of their values; with fewer distinct runs than
    ``clusters`` the higher labels stay empty.
    """
    nu = np.asarray(values, dtype=float)
    if nu.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {nu.shape}")
    if clusters < 1:
        raise ValueError(f"clusters must be >= 1, got {clusters}")
    size = nu.size
    if size == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(nu, kind="stable")
    sorted_nu = nu[order]
    first = np.concatenate([[0.0], np.cumsum(sorted_nu)])
    second = np.concatenate([[0.0], np.cumsum(sorted_nu ** 2)])

    def cost(start: int, stop: np.ndarray | int) -> np.ndarray:
        """F of the runs sorted[start:stop] (stop may be an array)."""
        count = np.asarray(stop) - start
        total = first[stop] - first[start]
        return np.maximum(second[stop] - second[start] - total ** 2 / np.maximum(count, 1), 0.0)

    levels = min(clusters, size)
    best = np.full((levels + 1, size + 1), np.inf)
    choice = np.zeros((levels + 1, size + 1), dtype=np.int64)
    best[0, 0] = 0.0
    for level in range(1, levels + 1):
        for stop in range(level, size + 1):
            starts = np.arange(level - 1, stop)
            candidates = best[level - 1, starts] + np.array([cost(int(t), stop) for t in starts])
            pick = int(np.argmin(candidates))
            best[level, stop] = candidates[pick]
            choice[level, stop] = starts[pick]
    labels_sorted = np.zeros(size, dtype=np.int64)
    stop = size
    for level in range(levels, 0, -1):
        start = int(choice[level, stop])
        labels_sorted[start:stop] = level - 1
        stop = start
    labels = np.empty(size, dtype=np.int64)
    labels[order] = labels_sorted
    return labels
