"""Compiled kernels of ChiMerge (Kerber, AAAI-92): the chi-square of two intervals, the class-count
table of a sorted column and the bottom-up merge loop that :func:`optrules.discretize.chimerge` runs.

The conventions (expected-count floor, rounding of the statistic, tie rule, stop rule) are those of
:mod:`optrules.discretize` and ``docs/discretization.md``; this module is the home of the two
constants the kernels compile in. Count tables are ``float64`` (counts, or summed sample weights).
Built ahead of time when the package is installed (``setup.py``, which compiles without fused
multiply-add so every statistic is the IEEE result of the operations as written); after its
arguments are checked, :func:`chimerge_kernel` holds no lock (it runs without the GIL), so features
are discretised in parallel threads (:meth:`optrules.encode.FeatureBinning.fit`).
"""

from libc.math cimport INFINITY, rint
from libc.stdint cimport int64_t

import numpy as np

__all__ = ["CHI2_DECIMALS", "EXPECTED_FLOOR", "adjacent_chi2", "chimerge_kernel", "pair_chi2"]

#: Value that replaces an expected count of exactly 0 in the chi-square
#: statistic (Kerber 1992).  With it an empty cell of the 2 x n_classes table
#: contributes ``(0 - 0.1)**2 / 0.1 = 0.1``.
EXPECTED_FLOOR = 0.1

#: Chi-square values are rounded to this many decimals (``rint(x * 1e9) / 1e9``)
#: before they are compared, so that pairs whose statistics are mathematically
#: equal but differ by floating-point noise (which depends on the order of the
#: class columns) are treated as ties and resolved by the leftmost-pair rule.
CHI2_DECIMALS = 9

cdef double _FLOOR = EXPECTED_FLOOR
cdef double _SCALE = 10.0 ** CHI2_DECIMALS
#: The largest finite float64: a statistic that is not below it (an overflow to ``inf``, or ``nan``)
#: enters the tournament tree as this value, so the tree's root is a live pair while one is left.
cdef double _LARGEST = np.finfo(np.float64).max


cdef double _rows_chi2(const double* counts, Py_ssize_t n_classes, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    """Chi-square of the 2 x n_classes table made of rows ``i`` and ``j`` of the row-major table
    ``counts`` (``n_classes`` columns of float64, possibly weighted, class counts).

    ``E_kc = R_k * C_c / N``, with an expected count of 0 replaced by :data:`EXPECTED_FLOOR`.  The
    row totals are summed class by class, then the cell terms in the order (row i, class 0), (row j,
    class 0), (row i, class 1), ...; the sum is rounded to ``CHI2_DECIMALS`` decimals half to even
    (``rint(total * 1e9) / 1e9``).  Every statistic of ChiMerge comes from this function, so equal
    tables always give bit-identical statistics and ties resolve the same way everywhere.
    """
    cdef const double* row_i = counts + i * n_classes
    cdef const double* row_j = counts + j * n_classes
    cdef double ra = 0.0, rb = 0.0, n, total = 0.0, a, b, cc, ea, eb, da, db
    cdef Py_ssize_t c
    for c in range(n_classes):
        ra += row_i[c]
        rb += row_j[c]
    n = ra + rb
    for c in range(n_classes):
        a = row_i[c]
        b = row_j[c]
        cc = a + b
        ea = ra * cc / n
        eb = rb * cc / n
        if ea == 0.0:
            ea = _FLOOR
        if eb == 0.0:
            eb = _FLOOR
        da = a - ea
        db = b - eb
        total += da * da / ea
        total += db * db / eb
    return rint(total * _SCALE) / _SCALE


cdef void _adjacent_chi2(const double* counts, Py_ssize_t m, Py_ssize_t n_classes, double* out) noexcept nogil:
    """:func:`_rows_chi2` of every adjacent pair of rows ``(i, i + 1)`` into ``out[i]``."""
    cdef Py_ssize_t i
    for i in range(m - 1):
        out[i] = _rows_chi2(counts, n_classes, i, i + 1)


def adjacent_chi2(const double[:, ::1] counts):
    """Chi-square (rounded to ``CHI2_DECIMALS`` decimals) of every adjacent pair of rows of a float64
    class-count table of shape ``(m, n_classes)``: entry ``i`` of the ``m - 1`` results is that of
    rows ``i`` and ``i + 1``."""
    cdef Py_ssize_t m = counts.shape[0]
    out_array = np.empty(max(m - 1, 0), dtype=np.float64)
    cdef double[::1] out = out_array
    if m >= 2:
        with nogil:
            _adjacent_chi2(&counts[0, 0], m, counts.shape[1], &out[0])
    return out_array


def pair_chi2(const double[::1] a, const double[::1] b) -> float:
    """Chi-square of the 2 x n_classes table with (possibly weighted) count rows ``a`` and ``b``,
    rounded to ``CHI2_DECIMALS`` decimals."""
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"rows of different lengths ({a.shape[0]} != {b.shape[0]})")
    cdef Py_ssize_t n_classes = a.shape[0], c
    table_array = np.empty((2, n_classes), dtype=np.float64)
    cdef double[:, ::1] table = table_array
    for c in range(n_classes):
        table[0, c] = a[c]
        table[1, c] = b[c]
    if n_classes == 0:
        return _rows_chi2(NULL, 0, 0, 1)
    return _rows_chi2(&table[0, 0], n_classes, 0, 1)


def chimerge_kernel(const double[::1] values, const int64_t[::1] codes, const double[::1] weights,
                    Py_ssize_t n_classes, double threshold, Py_ssize_t max_intervals,
                    Py_ssize_t min_intervals):
    """ChiMerge on sorted values: returns the cuts (float64), i.e. the first value of every final
    interval but the first.

    ``values`` are sorted and free of NaN, ``codes[i]`` is the class (``0..n_classes-1``) of
    ``values[i]``, ``weights`` its weight, or empty for unit weights; ``max_intervals < 0`` means no
    maximum.  One pass groups equal values into the class-count table (one float64 row per
    distinct value; the weights of a cell are added in the order of the rows), then
    :func:`_merge_kernel` merges its rows.  Runs without the GIL once its arrays are allocated.
    """
    cdef Py_ssize_t n = values.shape[0], m = 0, i, row, k, n_cuts
    if codes.shape[0] != n or (weights.shape[0] != 0 and weights.shape[0] != n):
        raise ValueError(f"values, codes and weights of different lengths "
                         f"({n}, {codes.shape[0]}, {weights.shape[0]})")
    if n_classes < 1 and n > 0:
        raise ValueError(f"n_classes must be >= 1, got {n_classes}")
    first_array = np.empty(n, dtype=np.int64)  # first[r]: position of distinct value r in `values`
    cdef int64_t[::1] first = first_array
    cdef Py_ssize_t bad = -1  # a row whose class code is outside 0..n_classes-1
    with nogil:
        for i in range(n):
            if codes[i] < 0 or codes[i] >= n_classes:
                bad = i
                break
            if i == 0 or values[i] != values[i - 1]:
                first[m] = i
                m += 1
    if bad >= 0:
        raise ValueError(f"class code {codes[bad]} of row {bad} outside 0..{n_classes - 1}")
    table_array = np.zeros((m, n_classes), dtype=np.float64)
    starts_array = np.empty(m, dtype=np.int64)
    cdef double[:, ::1] table = table_array
    cdef int64_t[::1] starts = starts_array
    # the merge loop's work arrays (see _merge_kernel); allocated with the GIL held
    cdef Py_ssize_t leaves = 1
    while leaves < m - 1:
        leaves *= 2
    cdef int64_t[::1] nxt = np.empty(m, dtype=np.int64)
    cdef int64_t[::1] prv = np.empty(m, dtype=np.int64)
    cdef double[::1] pair_chi = np.empty(max(m - 1, 1), dtype=np.float64)
    cdef double[::1] best_chi = np.empty(2 * leaves, dtype=np.float64)
    cdef int64_t[::1] best_pair = np.empty(2 * leaves, dtype=np.int64)
    if m == 0:
        return np.empty(0, dtype=np.float64)
    with nogil:
        row = -1
        for i in range(n):
            if i == 0 or values[i] != values[i - 1]:
                row += 1
            if weights.shape[0] == 0:
                table[row, codes[i]] += 1.0
            else:
                table[row, codes[i]] += weights[i]
        n_cuts = _merge_kernel(&table[0, 0], m, n_classes, threshold, max_intervals, min_intervals,
                               &nxt[0], &prv[0], &pair_chi[0], &best_chi[0], &best_pair[0], leaves,
                               &starts[0]) - 1
    cuts_array = np.empty(n_cuts, dtype=np.float64)
    cdef double[::1] cuts = cuts_array
    with nogil:
        for k in range(n_cuts):
            cuts[k] = values[first[starts[k + 1]]]
    return cuts_array


cdef inline void _tree_set(double* best_chi, int64_t* best_pair, Py_ssize_t leaves, Py_ssize_t pair,
                           double value) noexcept nogil:
    """Give ``pair`` the statistic ``value`` in the tournament tree and update the winners above it.

    Leaf ``leaves + pair`` holds the pair's statistic; node ``k`` holds the lower ``(chi2, pair)``
    of its children ``2k`` and ``2k + 1``, the left child winning a tie (its pairs are the left
    ones), so every node holds the leftmost lowest pair below it and node 1 the next merge.  The
    walk up stops at the first node whose winner does not change (its ancestors are then right).
    """
    cdef Py_ssize_t k = leaves + pair, child
    cdef int64_t winner
    best_chi[k] = value
    k >>= 1
    while k >= 1:
        child = 2 * k + <Py_ssize_t>(best_chi[2 * k + 1] < best_chi[2 * k])
        value = best_chi[child]
        winner = best_pair[child]
        if best_chi[k] == value and best_pair[k] == winner:
            break
        best_chi[k] = value
        best_pair[k] = winner
        k >>= 1


cdef inline double _tree_value(double chi) noexcept nogil:
    """The tree's value of a statistic: itself when below the largest float, else the largest."""
    return chi if chi < _LARGEST else _LARGEST


cdef Py_ssize_t _merge_kernel(double* counts, Py_ssize_t m, Py_ssize_t n_classes, double threshold,
                              Py_ssize_t max_intervals, Py_ssize_t min_intervals, int64_t* nxt, int64_t* prv,
                              double* pair_chi, double* best_chi, int64_t* best_pair, Py_ssize_t leaves,
                              int64_t* starts) noexcept nogil:
    """ChiMerge's merge loop: writes the sorted first rows of the final intervals into ``starts``
    and returns how many there are.

    ``counts`` (float64, ``m >= 1`` rows of ``n_classes``, row-major) is merged in place;
    ``max_intervals < 0`` means no maximum.  ``nxt``, ``prv`` (``m`` entries), ``pair_chi``
    (``m - 1``), ``best_chi`` and ``best_pair`` (``2 * leaves``, ``leaves`` the smallest power of 2
    that is ``>= m - 1``) are work arrays.

    Intervals are a doubly linked list (``nxt``, ``prv``) indexed by their first row; a merge adds
    the right interval's counts to the left one's.  The pair ``(i, nxt[i])`` is named by its left
    row ``i`` and ``pair_chi[i]`` is its statistic.  The next merge is the lowest pair, the
    leftmost among equal ones: a tournament tree (a complete binary tree over ``leaves >= m - 1``
    leaves, one per row that can start a pair, in arrays ``best_chi``, ``best_pair`` of ``2 *
    leaves`` nodes, node 1 the root, node ``k``'s children ``2k`` and ``2k + 1``) keeps at every
    node the lowest ``(chi2, pair)`` below it, the left child winning ties, so the root is the next
    merge.  A row that starts no pair (absorbed, the last interval, padding) has the leaf value
    ``+inf``; a statistic that is not below the largest float (an overflow to ``inf`` or ``nan``)
    enters the tree as the largest float, so the root is always a live pair while one is left.

    Merging the root pair ``(left, right)`` into ``left`` sets three leaves (:func:`_tree_set`), in
    this order: ``right`` to ``+inf`` (it starts no pair any more), ``left`` to the statistic of
    ``(left, after)`` (:func:`_rows_chi2`; ``+inf`` when there is no ``after``), ``before`` to that
    of ``(before, left)``.  Each walks up to the first node whose winner stays the same, so a
    merge costs at most ``O(n_classes + log m)``; the tree never holds a stale entry (a lazy heap
    pops about one and a half stale entries per merge, each a walk down from the root).  On
    uniform values with random binary labels the three walks climb about 2, 15 and 5 levels of
    the 20 of a million rows.  The tree is built bottom-up in ``O(m)``.

    The loop stops when the root's statistic is ``>= threshold`` with at most ``max_intervals``
    intervals (when given), or at ``min_intervals`` intervals: the merges are exactly those of the
    plain loop that rescans every pair.  (Merging the runs of one class first is no such shortcut:
    with the expected-count floor two pure intervals of one class have chi2 ``0.2 (n_classes - 1)``,
    not 0, a mixed pair can be lower (``(1, 0), (10, 1)``: 0.099), and the grown run changes its
    neighbours' statistics; e.g. rows ``(3,0) (3,1) (0,1) (5,1) (1,0) (2,0)`` at threshold 0.5 keep
    4 intervals, but 5 when the run ``(1,0) (2,0)`` is merged first.)
    """
    cdef Py_ssize_t n_int = m, i, k, c, child, left, right, after, before
    cdef double value
    for i in range(m):
        nxt[i] = i + 1  # nxt[i] == m: no next interval
        prv[i] = i - 1
    if m >= 2 and m > min_intervals:
        _adjacent_chi2(counts, m, n_classes, pair_chi)
        for i in range(leaves):
            best_pair[leaves + i] = i
            best_chi[leaves + i] = INFINITY
        for i in range(m - 1):
            best_chi[leaves + i] = _tree_value(pair_chi[i])
        for k in range(leaves - 1, 0, -1):
            child = 2 * k
            if best_chi[child + 1] < best_chi[child]:
                child += 1
            best_chi[k] = best_chi[child]
            best_pair[k] = best_pair[child]
        while n_int > min_intervals:
            left = best_pair[1]
            if pair_chi[left] >= threshold and (max_intervals < 0 or n_int <= max_intervals):
                break
            right = nxt[left]
            for c in range(n_classes):  # merge `right` into `left`
                counts[left * n_classes + c] += counts[right * n_classes + c]
            after = nxt[right]
            nxt[left] = after
            n_int -= 1
            if right < m - 1:
                _tree_set(best_chi, best_pair, leaves, right, INFINITY)
            value = INFINITY
            if after < m:
                prv[after] = left
                pair_chi[left] = _rows_chi2(counts, n_classes, left, after)
                value = _tree_value(pair_chi[left])
            _tree_set(best_chi, best_pair, leaves, left, value)
            before = prv[left]
            if before >= 0:
                pair_chi[before] = _rows_chi2(counts, n_classes, before, left)
                _tree_set(best_chi, best_pair, leaves, before, _tree_value(pair_chi[before]))
    i = 0
    for k in range(n_int):
        starts[k] = i
        i = nxt[i]
    return n_int
