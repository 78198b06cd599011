"""Compiled kernel of a sorted search: where many values fall in one sorted array of ends.

``np.searchsorted`` with a million unsorted values spends most of its time on mispredicted branches
(one per level of the binary search, each a coin toss). :func:`sorted_positions` gives the same
positions with a binary search whose step is a conditional add, not a branch, run on eight values
at once so that their memory loads overlap. Used wherever the package bins a column: the bins of a
numeric feature (:meth:`optrules.discretize.Bins.assign`) and the pieces of the line that a
ruleset's interval ends cut (:func:`optrules.ruleset.line_pieces`). Built ahead of time when the
package is installed (``setup.py``); runs without the GIL.
"""

from libc.stdint cimport int64_t

import numpy as np

__all__ = ["sorted_positions"]

#: Values searched side by side: their loads are independent, so the core overlaps them.
cdef enum:
    _LANES = 8


cdef inline Py_ssize_t _position(const double* ends, Py_ssize_t n, double value, bint right) noexcept nogil:
    """The number of ``ends`` below ``value`` (``right``: not above it); ``n`` for NaN."""
    cdef Py_ssize_t base = 0, size = n, half
    if value != value:
        return n
    while size > 1:
        half = size >> 1
        if right:
            base += half * <Py_ssize_t>(ends[base + half - 1] <= value)
        else:
            base += half * <Py_ssize_t>(ends[base + half - 1] < value)
        size -= half
    if right:
        return base + <Py_ssize_t>(ends[base] <= value)
    return base + <Py_ssize_t>(ends[base] < value)


def sorted_positions(const double[::1] ends, const double[::1] values, bint right=False):
    """``np.searchsorted(ends, values, side="right" if right else "left")`` (int64) for sorted
    ``ends`` free of NaN: for each value the number of ends below it (``right``: not above it), and
    ``len(ends)`` for NaN (NumPy sorts NaN last).

    The search keeps the invariant "the answer lies in ``[base, base + size]``" and halves ``size``
    by adding ``half`` to ``base`` when ``ends[base + half - 1]`` is below the value (a multiply by
    the comparison, which compiles without a branch); eight values go through the levels together.
    """
    cdef Py_ssize_t n = ends.shape[0], m = values.shape[0], i, k, size, half
    out = np.zeros(m, dtype=np.int64)
    cdef int64_t[::1] positions = out
    cdef Py_ssize_t base[_LANES]
    cdef double key[_LANES]
    cdef const double* first
    if n == 0 or m == 0:
        return out
    first = &ends[0]
    with nogil:
        i = 0
        while i + _LANES <= m:
            for k in range(_LANES):
                base[k] = 0
                key[k] = values[i + k]
            size = n
            while size > 1:
                half = size >> 1
                for k in range(_LANES):
                    if right:
                        base[k] += half * <Py_ssize_t>(first[base[k] + half - 1] <= key[k])
                    else:
                        base[k] += half * <Py_ssize_t>(first[base[k] + half - 1] < key[k])
                size -= half
            for k in range(_LANES):
                if key[k] != key[k]:
                    positions[i + k] = n
                elif right:
                    positions[i + k] = base[k] + <Py_ssize_t>(first[base[k]] <= key[k])
                else:
                    positions[i + k] = base[k] + <Py_ssize_t>(first[base[k]] < key[k])
            i += _LANES
        while i < m:
            positions[i] = _position(first, n, values[i], right)
            i += 1
    return out
