"""Compiled kernel of FindBoundary (Algorithm 1) and FindBoundaryPoint (Algorithm 2), on sparse zeros.

Paper: Mita, Papotti, Filippone, Michiardi, "LIBRE: Learning Interpretable Boolean Rule Ensembles",
Section 3.1. The semantics (distance, heuristics, ties, choice of seeds, update of ``S``, conflicting
positives) are those documented in :mod:`optrules.learners.boundary`, whose NumPy implementation is
the readable reference this kernel is tested against (``tests/test_boundary.py``).

Why a separate kernel: on inverse one-hot data a row has one zero per feature, and each call of
Algorithm 2 visits every one of its ones (``d`` bits: one flip-off or one move to ``J`` each). The
reference picks the best bit by scanning all remaining bits, ``O(d^2)`` per point, and holds
(rows x bits) matrices; with ChiMerge's thousands of bins per feature on large data (the paper's
Table 4) neither fits. Here

* rows are given by their **zeros only** (CSR: ``ptr``, ``col``), so memory is ``O(rows x features)``;
* the best bit comes from a **lazy max-heap**: ``|S_i^0|`` and ``|D+_i^0|`` are fixed during a call of
  Algorithm 2 and ``d_l(p, D-_i^0)`` only decreases, so a key in the heap can only be too good; a
  popped entry whose distance is stale is pushed back with the current one, and an entry whose
  distance is current is the true maximum (every other entry's key is >= its true key). A popped
  bit at distance 1 goes to ``J`` (the eager "move every ``i`` with distance 1" of Algorithm 2
  picks the same bits, since a distance of 1 stays 1 and such a bit is never chosen). Under H2,
  whose first key is the distance, one heap holds every bit. Under H1 (first keys ``|S_i^0|``,
  ``|D+_i^0|``) the bits are sorted by those two counts (a radix sort per call) and each run of
  equal counts gets a small heap of its own when its turn comes (:func:`_boundary_point_h1`):
  fewer and fresher distances, and heaps that stay in cache, for the same flips in the same order;
* flipping off bit ``i`` decrements ``c_y = d_l(p, y)`` of the negatives with ``y(i) = 0`` and
  lowers the distances of their other zeros: ``O(zeros of the touched negatives)``; ``c`` takes one
  byte per negative when no negative has more than 255 zeros.

A call of Algorithm 2 costs ``O(d log d + zeros of D-)`` instead of ``O(d^2)``.

The counts ``|S_i^0|``, ``|D+_i^0|`` and the heap keys take the dtype of the positives' ``weights``:
``int64`` (distinct elements or multiplicities, exact) or ``float64`` (sample weights); the kernel is
a Cython fused function compiled once per dtype, so the integer path is the unweighted one
unchanged. In the float path the bit index and the distance are stored in the float heap, exactly
(both are below 2**53). Built ahead of time when the package is installed (``setup.py``).
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy

import numpy as np

__all__ = ["boundary_kernel"]

ctypedef fused count_t:
    int64_t
    double

#: The type of ``c_y = d_l(p, y)`` (at most the zeros of ``y``): one byte when every negative has at
#: most 255 zeros (an inverse one-hot row has one per feature), so that the array of a million
#: negatives stays in a core's cache while the distances gather from it.
ctypedef fused distance_t:
    uint8_t
    int32_t

# state of a bit of the seed during Algorithm 2 (_OFF: a zero of p)
cdef enum:
    _OFF = 0
    _IN_I = 1
    _IN_J = 2


cdef inline bint _before(count_t[:, ::1] heap, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """Heap entry ``a`` ranks before ``b``: larger key columns 0..2 first, then the smaller bit."""
    cdef Py_ssize_t k
    for k in range(3):
        if heap[a, k] != heap[b, k]:
            return heap[a, k] > heap[b, k]
    return heap[a, 3] < heap[b, 3]


cdef void _sift_down(count_t[:, ::1] heap, Py_ssize_t size, Py_ssize_t at) noexcept nogil:
    cdef Py_ssize_t left, best, k
    while True:
        left = 2 * at + 1
        if left >= size:
            return
        best = left
        if left + 1 < size and _before(heap, left + 1, left):
            best = left + 1
        if not _before(heap, best, at):
            return
        for k in range(4):
            heap[at, k], heap[best, k] = heap[best, k], heap[at, k]
        at = best


cdef inline void _key(count_t s, count_t d, int64_t dist, count_t[:, ::1] out, Py_ssize_t row,
                      int64_t bit) noexcept nogil:
    """H2's key ``(d_l, |S_i^0|, |D+_i^0|)``, then the lowest bit (``out`` has the dtype of the
    counts)."""
    out[row, 0], out[row, 1], out[row, 2] = <count_t>dist, s, d
    out[row, 3] = <count_t>bit


cdef inline int64_t _distance(int64_t i, const int64_t[::1] bit_ptr, const int32_t[::1] bit_neg,
                              const distance_t[::1] c, int64_t big) noexcept nogil:
    """``d_l(p, D-_i^0) = min {c_y : y(i) = 0}`` (``big`` when no negative has ``y(i) = 0``)."""
    cdef int64_t best = big, e
    for e in range(bit_ptr[i], bit_ptr[i + 1]):
        if c[bit_neg[e]] < best:
            best = c[bit_neg[e]]
    return best


cdef void _start_point(int64_t seed, int64_t n_bits, const int64_t[::1] pos_ptr, const int64_t[::1] pos_col,
                      const int32_t[::1] neg_zeros, const int64_t[::1] bit_ptr, const int32_t[::1] bit_neg,
                      int8_t[::1] state, distance_t[::1] c) noexcept nogil:
    """The start of Algorithm 2 for positive ``seed``: ``p = x``, ``I`` its ones (``state``) and ``c_y =
    d_l(x, y)`` for every negative ``y`` (its zeros minus the zeros it shares with ``x``)."""
    cdef int64_t e, f, z, i
    for i in range(n_bits):
        state[i] = _IN_I
    for e in range(c.shape[0]):
        c[e] = neg_zeros[e]
    for e in range(pos_ptr[seed], pos_ptr[seed + 1]):
        z = pos_col[e]
        state[z] = _OFF  # the zeros of x are not in I
        for f in range(bit_ptr[z], bit_ptr[z + 1]):
            c[bit_neg[f]] -= 1


cdef inline void _flip_off(int64_t i, const int64_t[::1] bit_ptr, const int32_t[::1] bit_neg, int8_t[::1] state,
                           distance_t[::1] c) noexcept nogil:
    """Flip off bit ``i`` of ``p``: the negatives with ``y(i) = 0`` get one closer."""
    cdef int64_t e
    state[i] = _OFF
    for e in range(bit_ptr[i], bit_ptr[i + 1]):
        c[bit_neg[e]] -= 1


cdef void _boundary_point(int64_t seed, int64_t n_bits, const int64_t[::1] pos_ptr, const int64_t[::1] pos_col,
                          const int32_t[::1] neg_zeros, const int64_t[::1] bit_ptr, const int32_t[::1] bit_neg,
                          const count_t[::1] s_zero, const count_t[::1] d_zero,
                          int8_t[::1] state, distance_t[::1] c, count_t[:, ::1] heap) noexcept nogil:
    """Algorithm 2 for positive ``seed`` under H2, the best bit from one lazy max-heap over all of
    ``I`` (H2's first key, the distance, changes as bits are flipped off); on return ``state ==
    _IN_J`` marks the ones of ``p(J)``.

    ``neg_zeros`` holds each negative's number of zeros; ``state``, ``c`` and ``heap`` are work
    arrays (sizes n_bits, n_neg, n_bits x 4; ``heap`` of the dtype of ``s_zero`` and ``d_zero``).
    """
    cdef int64_t big = n_bits + 1  # d_l(., {}) = +inf ("undefined"), larger than every real distance
    cdef int64_t i, current
    cdef Py_ssize_t size, at, k
    cdef count_t stored
    _start_point(seed, n_bits, pos_ptr, pos_col, neg_zeros, bit_ptr, bit_neg, state, c)
    size = 0
    for i in range(n_bits):
        if state[i] == _IN_I:
            _key(s_zero[i], d_zero[i], _distance(i, bit_ptr, bit_neg, c, big), heap, size, i)
            size += 1
    for at in range(size // 2 - 1, -1, -1):
        _sift_down(heap, size, at)

    while size > 0:
        i = <int64_t>heap[0, 3]
        stored = heap[0, 0]
        current = _distance(i, bit_ptr, bit_neg, c, big)
        if current != stored and current != 1:  # stale (too good): back with its current distance
            _key(s_zero[i], d_zero[i], current, heap, 0, i)
            _sift_down(heap, size, 0)
            continue
        size -= 1  # pop
        for k in range(4):
            heap[0, k] = heap[size, k]
        _sift_down(heap, size, 0)
        if current == 1:  # flipping i off would create an element below a negative: keep it
            state[i] = _IN_J
            continue
        _flip_off(i, bit_ptr, bit_neg, state, c)


#: An entry of the heap of one group of bits in :func:`_boundary_point_h1`: a bit, its distance and
#: the number of flips done when that distance was computed (it is current while no flip follows).
ctypedef struct Entry:
    int64_t dist
    int64_t bit
    int64_t at


cdef inline bint _entry_before(const Entry* a, const Entry* b) noexcept nogil:
    """Entry ``a`` ranks before ``b``: the larger distance, then the smaller bit."""
    if a.dist != b.dist:
        return a.dist > b.dist
    return a.bit < b.bit


cdef void _entry_sift_down(Entry* heap, Py_ssize_t size, Py_ssize_t at) noexcept nogil:
    cdef Py_ssize_t left, best
    cdef Entry moving = heap[at]
    while True:
        left = 2 * at + 1
        if left >= size:
            break
        best = left
        if left + 1 < size and _entry_before(&heap[left + 1], &heap[left]):
            best = left + 1
        if not _entry_before(&heap[best], &moving):
            break
        heap[at] = heap[best]
        at = best
    heap[at] = moving


cdef void _boundary_point_h1(int64_t seed, int64_t n_bits, const int64_t[::1] pos_ptr, const int64_t[::1] pos_col,
                             const int32_t[::1] neg_zeros, const int64_t[::1] bit_ptr, const int32_t[::1] bit_neg,
                             const count_t[::1] s_zero, const count_t[::1] d_zero, const int64_t* order,
                             int8_t[::1] state, distance_t[::1] c, Entry* heap) noexcept nogil:
    """Algorithm 2 for positive ``seed`` under H1, group by group; on return ``state == _IN_J``
    marks the ones of ``p(J)``.

    H1 ranks a bit by ``(|S_i^0|, |D+_i^0|, d_l, -i)``, and its first two keys do not change during
    a call. ``order`` lists the bits by ``(|S_i^0|, |D+_i^0|)`` descending, then by index; a group is
    a run of bits with equal first keys. While a group holds a bit of ``I`` at distance >= 2 that
    bit ranks before every bit of a later group, so the groups are taken in order, each until its
    bits of ``I`` are spent: the flips are those of one lazy heap over every bit keyed by H1 (as
    :func:`_boundary_point` keeps for H2), in the same order. Within a group a lazy max-heap on ``(d_l, -i)`` of its bits picks the next
    one (distances computed when the group starts, an entry re-checked when popped unless no flip
    happened since it was computed). A bit at distance 1 goes to ``J`` whenever it is popped: its
    distance stays 1, and it is never flipped (see :func:`_boundary_point`). The heaps are small and
    the distances fresh, so this does a fraction of the single heap's work.
    """
    cdef int64_t big = n_bits + 1
    cdef int64_t i, current, flips = 0
    cdef Py_ssize_t start = 0, stop, size, at
    _start_point(seed, n_bits, pos_ptr, pos_col, neg_zeros, bit_ptr, bit_neg, state, c)
    while start < n_bits:
        stop = start + 1
        while (stop < n_bits and s_zero[order[stop]] == s_zero[order[start]]
               and d_zero[order[stop]] == d_zero[order[start]]):
            stop += 1
        size = 0
        for at in range(start, stop):
            i = order[at]
            if state[i] == _IN_I:
                heap[size].dist = _distance(i, bit_ptr, bit_neg, c, big)
                heap[size].bit = i
                heap[size].at = flips
                size += 1
        for at in range(size // 2 - 1, -1, -1):
            _entry_sift_down(heap, size, at)
        while size > 0:
            i = heap[0].bit
            current = heap[0].dist
            if heap[0].at != flips:
                current = _distance(i, bit_ptr, bit_neg, c, big)
                if current != heap[0].dist and current != 1:  # stale (too good): back, current
                    heap[0].dist = current
                    heap[0].at = flips
                    _entry_sift_down(heap, size, 0)
                    continue
            size -= 1  # pop
            heap[0] = heap[size]
            _entry_sift_down(heap, size, 0)
            if current == 1:
                state[i] = _IN_J
                continue
            _flip_off(i, bit_ptr, bit_neg, state, c)
            flips += 1
        start = stop


cdef inline uint64_t _order_key(count_t value) noexcept nogil:
    """An unsigned integer in the order of the count ``value`` (a float sum of counts can fall
    just below 0 when counts of very different sizes are added and taken away again): an integer
    with its sign bit flipped; a float's bit pattern with its sign bit flipped when it is >= 0 and
    all bits flipped when it is negative (``+ 0.0`` makes ``-0.0`` a ``0.0`` first)."""
    cdef double number
    cdef uint64_t key
    if count_t is double:
        number = value + 0.0
        memcpy(&key, &number, sizeof(key))
        return ~key if key >> 63 else key | (<uint64_t>1 << 63)
    else:
        return (<uint64_t>value) ^ (<uint64_t>1 << 63)


cdef void _sort_descending(const count_t[::1] values, int64_t* order, int64_t* work, uint64_t* keys,
                           Py_ssize_t n) noexcept nogil:
    """Sort the indices ``order[0..n)`` by ``values``, largest first, ties in their order: a
    least-significant-digit radix sort, byte by byte, that skips the bytes all keys share. ``work``
    (n indices) and ``keys`` (one per value) are work arrays."""
    cdef Py_ssize_t count[256]
    cdef Py_ssize_t k, total, size
    cdef int shift, b
    cdef int64_t* source = order
    cdef int64_t* target = work
    cdef int64_t* swap
    for k in range(values.shape[0]):
        keys[k] = _order_key(values[k])
    for shift in range(0, 64, 8):
        for b in range(256):
            count[b] = 0
        for k in range(n):
            count[(keys[source[k]] >> shift) & 255] += 1
        if n == 0 or count[(keys[source[0]] >> shift) & 255] == n:
            continue  # one byte for all: nothing to sort on
        total = 0
        for b in range(255, -1, -1):  # the largest byte first
            size = count[b]
            count[b] = total
            total += size
        for k in range(n):
            b = (keys[source[k]] >> shift) & 255
            target[count[b]] = source[k]
            count[b] += 1
        swap = source
        source = target
        target = swap
    if source != order:
        memcpy(order, source, n * sizeof(int64_t))


cdef object _below_some_negative(int64_t n_bits, const int64_t[::1] pos_ptr, const int64_t[::1] pos_col,
                                 const int64_t[::1] neg_ptr, const int64_t[::1] neg_col):
    """Mask over the positives: ``x <= y`` for some negative ``y`` (every zero of y is a zero of x).

    Negatives are grouped by their first zero, and ``x`` is tested only against the groups of its
    own zeros (a negative without zeros lies above everything).
    """
    cdef Py_ssize_t n_pos = pos_ptr.shape[0] - 1, n_neg = neg_ptr.shape[0] - 1
    cdef Py_ssize_t x, y, g
    cdef int64_t e, f, i, z
    cdef bint inside
    out = np.zeros(n_pos, dtype=np.bool_)
    cdef uint8_t[::1] below = out.view(np.uint8)
    for y in range(n_neg):
        if neg_ptr[y + 1] == neg_ptr[y]:
            out[:] = True
            return out
    cdef int64_t[::1] first_ptr = np.zeros(n_bits + 1, dtype=np.int64)
    cdef int64_t[::1] by_first = np.empty(n_neg, dtype=np.int64)
    cdef int64_t[::1] fill = np.empty(n_bits, dtype=np.int64)
    cdef uint8_t[::1] marked = np.zeros(n_bits, dtype=np.uint8)
    with nogil:
        for y in range(n_neg):
            first_ptr[neg_col[neg_ptr[y]] + 1] += 1
        for i in range(n_bits):
            first_ptr[i + 1] += first_ptr[i]
        for i in range(n_bits):
            fill[i] = first_ptr[i]
        for y in range(n_neg):
            i = neg_col[neg_ptr[y]]
            by_first[fill[i]] = y
            fill[i] += 1
        for x in range(n_pos):
            for e in range(pos_ptr[x], pos_ptr[x + 1]):
                marked[pos_col[e]] = 1
            for e in range(pos_ptr[x], pos_ptr[x + 1]):
                z = pos_col[e]
                for g in range(first_ptr[z], first_ptr[z + 1]):
                    y = by_first[g]
                    inside = True
                    for f in range(neg_ptr[y], neg_ptr[y + 1]):
                        if not marked[neg_col[f]]:
                            inside = False
                            break
                    if inside:
                        below[x] = 1
                        break
                if below[x]:
                    break
            for e in range(pos_ptr[x], pos_ptr[x + 1]):
                marked[pos_col[e]] = 0
    return out


def boundary_kernel(int64_t n_bits, pos_ptr, pos_col, count_t[::1] weights, neg_ptr, neg_col, bint h2):
    """Algorithm 1 on rows given by their zeros (CSR). Returns ``(points, seeds, conflicting)``.

    ``points`` is (k, n_bits) bool (the ones of each boundary point, in the order found), ``seeds``
    the positive each was grown from, ``conflicting`` the positives below some negative.
    ``weights`` (one per positive, ``int64`` or ``float64``) are what ``|S_i^0|`` and ``|D+_i^0|`` sum.
    """
    cdef const int64_t[::1] p_ptr = np.ascontiguousarray(pos_ptr, dtype=np.int64)
    cdef const int64_t[::1] p_col = np.ascontiguousarray(pos_col, dtype=np.int64)
    cdef const int64_t[::1] n_ptr = np.ascontiguousarray(neg_ptr, dtype=np.int64)
    cdef const int64_t[::1] n_col = np.ascontiguousarray(neg_col, dtype=np.int64)
    cdef Py_ssize_t n_pos = p_ptr.shape[0] - 1, n_neg = n_ptr.shape[0] - 1
    cdef Py_ssize_t x, y, a, kept, capacity, k, e
    cdef int64_t i, seed
    cdef bint covered
    dtype = np.asarray(weights).dtype
    # negatives with y(i) = 0, per bit (ascending)
    cdef int64_t[::1] bit_ptr = np.zeros(n_bits + 1, dtype=np.int64)
    cdef int32_t[::1] bit_neg = np.empty(n_col.shape[0], dtype=np.int32)
    cdef int64_t[::1] fill = np.empty(n_bits, dtype=np.int64)
    with nogil:
        for e in range(n_col.shape[0]):
            bit_ptr[n_col[e] + 1] += 1
        for i in range(n_bits):
            bit_ptr[i + 1] += bit_ptr[i]
        for i in range(n_bits):
            fill[i] = bit_ptr[i]
        for y in range(n_neg):
            for e in range(n_ptr[y], n_ptr[y + 1]):
                i = n_col[e]
                bit_neg[fill[i]] = y
                fill[i] += 1

    if n_neg > 0 and n_pos > 0:
        conflicting = _below_some_negative(n_bits, p_ptr, p_col, n_ptr, n_col)
    else:
        conflicting = np.zeros(n_pos, dtype=np.bool_)
    cdef const uint8_t[::1] is_conflicting = conflicting.view(np.uint8)
    cdef count_t[::1] d_zero = np.zeros(n_bits, dtype=dtype)  # |D+_i^0| (all positives), fixed
    cdef count_t[::1] s_zero = np.zeros(n_bits, dtype=dtype)  # |S_i^0|, shrinks with S
    cdef int64_t[::1] alive = np.empty(n_pos, dtype=np.int64)  # S, as a compacted list of positives
    cdef Py_ssize_t n_alive = 0
    with nogil:
        for x in range(n_pos):
            for e in range(p_ptr[x], p_ptr[x + 1]):
                d_zero[p_col[e]] += weights[x]
                if not is_conflicting[x]:
                    s_zero[p_col[e]] += weights[x]
            if not is_conflicting[x]:
                alive[n_alive] = x
                n_alive += 1

    cdef int8_t[::1] state = np.empty(n_bits, dtype=np.int8)
    cdef int32_t[::1] neg_zeros = np.diff(np.asarray(n_ptr)).astype(np.int32)
    cdef bint narrow = n_neg == 0 or np.max(neg_zeros) <= 255  # c_y fits a byte
    cdef uint8_t[::1] c8 = np.empty(n_neg if narrow else 0, dtype=np.uint8)
    cdef int32_t[::1] c32 = np.empty(0 if narrow else n_neg, dtype=np.int32)
    # H2: one heap of (key, bit) rows; H1: the bits by (|S_i^0|, |D+_i^0|) and a heap per group
    cdef count_t[:, ::1] heap = np.empty((n_bits if h2 else 0, 4), dtype=dtype)
    cdef int64_t[::1] by_d = np.arange(n_bits, dtype=np.int64)  # by |D+_i^0|, then index
    cdef int64_t[::1] order = np.empty(n_bits, dtype=np.int64)
    cdef int64_t[::1] work = np.empty(n_bits, dtype=np.int64)
    cdef uint64_t[::1] keys = np.empty(n_bits, dtype=np.uint64)
    entries = np.empty((0 if h2 else n_bits) * sizeof(Entry), dtype=np.uint8)
    cdef uint8_t[::1] entry_bytes = entries
    cdef Entry* group_heap = <Entry*> &entry_bytes[0] if entry_bytes.shape[0] else NULL
    if not h2 and n_bits > 0:
        with nogil:
            _sort_descending(d_zero, &by_d[0], &work[0], &keys[0], n_bits)
    capacity = 16
    points = np.zeros((capacity, n_bits), dtype=np.bool_)
    seeds = np.empty(capacity, dtype=np.int64)
    cdef uint8_t[:, ::1] point_bits = points.view(np.uint8)
    cdef int64_t[::1] seed_of = seeds
    k = 0
    while n_alive > 0:
        seed = alive[0]  # "choose x in S": the first remaining positive in input order
        with nogil:
            if h2 and narrow:
                _boundary_point(seed, n_bits, p_ptr, p_col, neg_zeros, bit_ptr, bit_neg,
                                s_zero, d_zero, state, c8, heap)
            elif h2:
                _boundary_point(seed, n_bits, p_ptr, p_col, neg_zeros, bit_ptr, bit_neg,
                                s_zero, d_zero, state, c32, heap)
            else:
                memcpy(&order[0], &by_d[0], n_bits * sizeof(int64_t))
                _sort_descending(s_zero, &order[0], &work[0], &keys[0], n_bits)
                if narrow:
                    _boundary_point_h1(seed, n_bits, p_ptr, p_col, neg_zeros, bit_ptr, bit_neg,
                                       s_zero, d_zero, &order[0], state, c8, group_heap)
                else:
                    _boundary_point_h1(seed, n_bits, p_ptr, p_col, neg_zeros, bit_ptr, bit_neg,
                                       s_zero, d_zero, &order[0], state, c32, group_heap)
        if k == capacity:
            capacity *= 2
            grown = np.zeros((capacity, n_bits), dtype=np.bool_)
            grown[:k] = points[:k]
            points = grown
            point_bits = points.view(np.uint8)
            grown_seeds = np.empty(capacity, dtype=np.int64)
            grown_seeds[:k] = seeds[:k]
            seeds = grown_seeds
            seed_of = seeds
        with nogil:
            for i in range(n_bits):
                point_bits[k, i] = state[i] == _IN_J
            seed_of[k] = seed
            k += 1
            # S loses every element the new point covers (p <= x: no zero of x is a one of p)
            kept = 0
            for a in range(n_alive):
                x = alive[a]
                covered = True
                for e in range(p_ptr[x], p_ptr[x + 1]):
                    if state[p_col[e]] == _IN_J:
                        covered = False
                        break
                if covered:
                    for e in range(p_ptr[x], p_ptr[x + 1]):
                        s_zero[p_col[e]] -= weights[x]
                else:
                    alive[kept] = x
                    kept += 1
            n_alive = kept
    return points[:k].copy(), seeds[:k].copy(), conflicting
