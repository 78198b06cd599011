"""Compiled kernels of ChiMerge (Kerber, AAAI-92): the chi-square of two adjacent intervals and the
bottom-up merge loop that :func:`optrules.discretize.chimerge` runs on a class-count table.

The conventions (expected-count floor, rounding of the statistic, tie rule, stop rule) are those of
:mod:`optrules.discretize` and ``docs/discretization.md``; this module is the home of the two
constants the kernels compile in. Count tables are ``int64`` (counts) or ``float64`` (summed sample
weights): the kernels are Cython fused functions compiled once per dtype. Built ahead of time when
the package is installed (``setup.py``); the merge loop holds no lock (it runs without the GIL), so
features are discretised in parallel threads (:meth:`optrules.encode.FeatureBinning.fit`).
"""

from libc.math cimport rint
from libc.stdint cimport int64_t, uint8_t

import numpy as np

__all__ = ["CHI2_DECIMALS", "EXPECTED_FLOOR", "merge_kernel", "pair_chi2"]

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

ctypedef fused count_t:
    int64_t
    double


cdef double _pair_chi2_kernel(const count_t* a, const count_t* b, Py_ssize_t n_classes) noexcept nogil:
    """Chi-square of the 2 x n_classes table with count rows ``a`` and ``b``.

    Scalar twin of :func:`optrules.discretize._adjacent_chi2`: the same operations in the same order,
    hence the same IEEE result, rounded to ``CHI2_DECIMALS`` decimals half to even like ``np.rint``.
    """
    cdef double ra = 0.0, rb = 0.0, n, total = 0.0, cj, ea, eb, da, db
    cdef Py_ssize_t j
    for j in range(n_classes):
        ra += a[j]
        rb += b[j]
    n = ra + rb
    for j in range(n_classes):
        cj = <double>(a[j] + b[j])
        ea = ra * cj / n
        eb = rb * cj / n
        if ea == 0.0:
            ea = _FLOOR
        if eb == 0.0:
            eb = _FLOOR
        da = a[j] - ea
        db = b[j] - eb
        total += da * da / ea
        total += db * db / eb
    return rint(total * _SCALE) / _SCALE


def pair_chi2(const double[::1] a, const double[::1] b) -> float:
    """Chi-square of the 2 x n_classes table with (possibly weighted) count rows ``a`` and ``b``,
    rounded to ``CHI2_DECIMALS`` decimals."""
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"rows of different lengths ({a.shape[0]} != {b.shape[0]})")
    if a.shape[0] == 0:
        return _pair_chi2_kernel[double](NULL, NULL, 0)
    return _pair_chi2_kernel(&a[0], &b[0], a.shape[0])


cdef inline bint _heap_before(double[::1] chi, int64_t[:, ::1] ints, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """Entry ``a`` pops before ``b``: lower chi-square, then the leftmost pair."""
    if chi[a] != chi[b]:
        return chi[a] < chi[b]
    return ints[a, 0] < ints[b, 0]


cdef inline void _heap_swap(double[::1] chi, int64_t[:, ::1] ints, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    cdef Py_ssize_t k
    chi[a], chi[b] = chi[b], chi[a]
    for k in range(3):
        ints[a, k], ints[b, k] = ints[b, k], ints[a, k]


cdef Py_ssize_t _heap_push(double[::1] chi, int64_t[:, ::1] ints, Py_ssize_t size, double value, int64_t left,
                           int64_t left_version, int64_t right_version) noexcept nogil:
    cdef Py_ssize_t at = size, parent
    chi[size] = value
    ints[size, 0], ints[size, 1], ints[size, 2] = left, left_version, right_version
    while at > 0:
        parent = (at - 1) // 2
        if not _heap_before(chi, ints, at, parent):
            break
        _heap_swap(chi, ints, at, parent)
        at = parent
    return size + 1


cdef Py_ssize_t _heap_pop(double[::1] chi, int64_t[:, ::1] ints, Py_ssize_t size) noexcept nogil:
    size -= 1
    _heap_swap(chi, ints, 0, size)
    _heap_sift_down(chi, ints, size, 0)
    return size


cdef void _heap_sift_down(double[::1] chi, int64_t[:, ::1] ints, Py_ssize_t size, Py_ssize_t at) noexcept nogil:
    cdef Py_ssize_t left, best
    while True:
        left = 2 * at + 1
        if left >= size:
            break
        best = left
        if left + 1 < size and _heap_before(chi, ints, left + 1, left):
            best = left + 1
        if not _heap_before(chi, ints, best, at):
            break
        _heap_swap(chi, ints, at, best)
        at = best


def merge_kernel(count_t[:, ::1] counts, const double[::1] initial_chi, double threshold,
                 Py_ssize_t max_intervals, Py_ssize_t min_intervals):
    """ChiMerge's merge loop; ``max_intervals < 0`` means no maximum. Merges in ``counts`` (modified
    in place) and returns the sorted start rows of the final intervals.

    Intervals are kept in a doubly linked list indexed by their first row. A min-heap holds
    ``(chi2, left start, left version, right version)`` for adjacent pairs; entries made stale by a
    merge are discarded lazily. Each merge recomputes only the two pairs that touch the merged
    interval, so the loop costs ``O(m log m)`` for ``m`` distinct values. The first heap is built
    bottom-up in ``O(m)``: the order of pops depends only on (chi2, left start), unique among live
    entries, not on how the heap was built. The loop runs without the GIL.
    """
    cdef Py_ssize_t m = counts.shape[0], n_classes = counts.shape[1]
    cdef Py_ssize_t n_int = m, size, at, i, j, left, right, after, before
    cdef double top
    alive_array = np.ones(m, dtype=np.bool_)
    if n_int <= min_intervals or m < 2:
        return np.flatnonzero(alive_array)
    cdef uint8_t[::1] alive = alive_array.view(np.uint8)
    cdef int64_t[::1] nxt = np.arange(1, m + 1, dtype=np.int64)  # nxt[i] == m: no next interval
    cdef int64_t[::1] prv = np.arange(-1, m - 1, dtype=np.int64)
    cdef int64_t[::1] version = np.zeros(m, dtype=np.int64)
    cdef Py_ssize_t capacity = 2 * m
    cdef double[::1] heap_chi = np.empty(capacity, dtype=np.float64)
    cdef int64_t[:, ::1] heap_ints = np.empty((capacity, 3), dtype=np.int64)
    with nogil:
        size = m - 1  # every adjacent pair, made a heap bottom-up in O(m)
        for i in range(size):
            heap_chi[i] = initial_chi[i]
            heap_ints[i, 0], heap_ints[i, 1], heap_ints[i, 2] = i, 0, 0
        for at in range(size // 2 - 1, -1, -1):
            _heap_sift_down(heap_chi, heap_ints, size, at)

        while n_int > min_intervals:
            while size > 0:  # drop stale entries from the top
                left = heap_ints[0, 0]
                if alive[left] and version[left] == heap_ints[0, 1]:
                    right = nxt[left]
                    if right < m and version[right] == heap_ints[0, 2]:
                        break
                size = _heap_pop(heap_chi, heap_ints, size)
            if size == 0:
                break
            top = heap_chi[0]
            if top >= threshold and (max_intervals < 0 or n_int <= max_intervals):
                break
            left = heap_ints[0, 0]
            size = _heap_pop(heap_chi, heap_ints, size)
            right = nxt[left]
            for j in range(n_classes):  # merge `right` into `left`
                counts[left, j] += counts[right, j]
            alive[right] = False
            after = nxt[right]
            nxt[left] = after
            if after < m:
                prv[after] = left
            version[left] += 1
            n_int -= 1
            before = prv[left]
            if before >= 0:
                size = _heap_push(heap_chi, heap_ints, size,
                                  _pair_chi2_kernel(&counts[before, 0], &counts[left, 0], n_classes),
                                  before, version[before], version[left])
            if after < m:
                size = _heap_push(heap_chi, heap_ints, size,
                                  _pair_chi2_kernel(&counts[left, 0], &counts[after, 0], n_classes),
                                  left, version[left], version[after])
    return np.flatnonzero(alive_array)
