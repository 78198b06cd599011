"""Compiled kernels of ChiMerge (Kerber, AAAI-92): the chi-square of two intervals, the sort of an
unweighted column class by class (:func:`group_by_class`, :func:`merge_class_groups`), the
class-count table of a sorted column and the bottom-up merge loop that
:func:`optrules.discretize.chimerge` runs.

The conventions (expected-count floor, rounding of the statistic, tie rule, stop rule) are those of
:mod:`optrules.discretize` and ``docs/discretization.md``; this module is the home of the two
constants the kernels compile in. Count tables are ``float64`` (counts, or summed sample weights).
Built ahead of time when the package is installed (``setup.py``, which compiles without fused
multiply-add so every statistic is the IEEE result of the operations as written); after its
arguments are checked, every kernel holds no lock (it runs without the GIL), so features are
discretised in parallel threads (:meth:`optrules.encode.FeatureBinning.fit`).
"""

from libc.math cimport INFINITY, rint
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

import numpy as np

__all__ = ["CHI2_DECIMALS", "EXPECTED_FLOOR", "adjacent_chi2", "chimerge_kernel", "group_by_class",
           "merge_class_groups", "pair_chi2"]

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
#: Columns of at most this many rows (counts below 2**26, products of two below 2**53, exact in
#: float64) may start the merge loop from one row per run of one class (:func:`_runs_first`).
cdef Py_ssize_t _RUN_ROWS_LIMIT = 2 ** 26


#: A node of the tournament tree (see :func:`_merge_kernel`).
ctypedef struct Node:
    double chi      # the lowest tree value below the node (a leaf: its pair's)
    int64_t pair    # the pair that has it, the leftmost among equal ones


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


def group_by_class(const double[::1] values, const int64_t[::1] codes, Py_ssize_t n_classes):
    """The values of each class, one class after the other: returns ``(grouped, offsets)``.

    ``codes[i]`` is the class of ``values[i]`` (``0..n_classes-1``, or negative for a missing
    label).  Rows whose value is NaN or whose label is missing are left out; the classes that keep
    no row are left out too, the others keep their order, so ``grouped[offsets[c]:offsets[c + 1]]``
    are the values of the ``c``-th class that has rows, in row order (``offsets`` has one entry
    more than there are such classes).  Two passes (a count, then a scatter), without the GIL.
    """
    cdef Py_ssize_t n = values.shape[0], i
    if codes.shape[0] != n:
        raise ValueError(f"values and codes of different lengths ({n}, {codes.shape[0]})")
    cdef Py_ssize_t bad = -1  # a row whose class code is n_classes or more
    sizes_array = np.zeros(max(n_classes, 0), dtype=np.int64)
    cdef int64_t[::1] sizes = sizes_array
    with nogil:
        for i in range(n):
            if codes[i] >= n_classes:
                bad = i
                break
            if codes[i] >= 0 and values[i] == values[i]:  # a label and a value (not NaN)
                sizes[codes[i]] += 1
    if bad >= 0:
        raise ValueError(f"class code {codes[bad]} of row {bad} outside 0..{n_classes - 1}")
    held = np.flatnonzero(sizes_array)  # the classes that keep rows
    offsets_array = np.zeros(held.size + 1, dtype=np.int64)
    np.cumsum(sizes_array[held], out=offsets_array[1:])
    grouped_array = np.empty(offsets_array[held.size], dtype=np.float64)
    cdef double[::1] grouped = grouped_array
    fill_array = np.zeros(max(n_classes, 0), dtype=np.int64)  # the next slot of each class
    fill_array[held] = offsets_array[:held.size]
    cdef int64_t[::1] fill = fill_array
    with nogil:
        for i in range(n):
            if codes[i] >= 0 and values[i] == values[i]:
                grouped[fill[codes[i]]] = values[i]
                fill[codes[i]] += 1
    return grouped_array, offsets_array


def merge_class_groups(const double[::1] grouped, const int64_t[::1] offsets):
    """Merge the sorted values of each class into one sorted column with its class codes.

    ``grouped[offsets[c]:offsets[c + 1]]`` are the values of class ``c``, sorted (``offsets`` has
    ``n_classes + 1`` entries, ``0`` first and ``len(grouped)`` last).  Returns ``(values, codes)``:
    the ``len(grouped)`` values in ascending order and, for each, its class; equal values of
    several classes come out in class order.  This is how :func:`optrules.discretize.chimerge` sorts
    an unweighted column with few classes: one ``np.sort`` per class and this merge are about
    half the cost of one ``np.argsort`` of the column and the gathers through it, and the
    rows of one value may come in any order when every row weighs 1.  Each output is the minimum
    of the classes' heads (``O(n n_classes)``); runs without the GIL.
    """
    cdef Py_ssize_t n_classes = offsets.shape[0] - 1, n = grouped.shape[0], i, c, best
    if n_classes < 1 or offsets[0] != 0 or offsets[n_classes] != n:
        raise ValueError(f"offsets must run from 0 to {n}")
    for c in range(n_classes):
        if offsets[c + 1] < offsets[c]:
            raise ValueError(f"offsets must not decrease (class {c})")
    values_array = np.empty(n, dtype=np.float64)
    codes_array = np.empty(n, dtype=np.int64)
    cdef double[::1] values = values_array
    cdef int64_t[::1] codes = codes_array
    cdef int64_t[::1] head = np.empty(n_classes, dtype=np.int64)  # the next value of each class
    cdef double low = 0.0
    if n == 0:
        return values_array, codes_array
    with nogil:
        if n_classes == 2:
            _merge_two(&grouped[0], offsets[1], n, &values[0], &codes[0])
        else:
            for c in range(n_classes):
                head[c] = offsets[c]
            for i in range(n):
                best = -1
                for c in range(n_classes):
                    if head[c] < offsets[c + 1] and (best < 0 or grouped[head[c]] < low):
                        best = c
                        low = grouped[head[c]]
                values[i] = low
                codes[i] = best
                head[best] += 1
    return values_array, codes_array


cdef void _merge_two(const double* grouped, Py_ssize_t middle, Py_ssize_t n, double* values,
                     int64_t* codes) noexcept nogil:
    """:func:`merge_class_groups` of two classes (``grouped[:middle]`` and ``grouped[middle:n]``)
    without a branch on the comparison (random labels would mispredict half of them)."""
    cdef Py_ssize_t i = 0, j = middle, k = 0
    cdef bint second
    while i < middle and j < n:
        second = grouped[j] < grouped[i]
        values[k] = grouped[j] if second else grouped[i]
        codes[k] = second
        j += second
        i += 1 - second
        k += 1
    while i < middle:
        values[k] = grouped[i]
        codes[k] = 0
        i += 1
        k += 1
    while j < n:
        values[k] = grouped[j]
        codes[k] = 1
        j += 1
        k += 1


def chimerge_kernel(const double[::1] values, const int64_t[::1] codes, const double[::1] weights,
                    Py_ssize_t n_classes, double threshold, Py_ssize_t max_intervals,
                    Py_ssize_t min_intervals):
    """ChiMerge on sorted values: returns the cuts (float64), i.e. the first value of every final
    interval but the first.

    ``values`` are sorted and free of NaN, ``codes[i]`` is the class (``0..n_classes-1``) of
    ``values[i]``, ``weights`` its weight, or empty for unit weights; ``max_intervals < 0`` means no
    maximum.  A first pass checks the codes and counts the distinct values and the runs of one
    class; a second builds the class-count table, one float64 row per distinct value (the weights
    of a cell are added in the order of the rows) or, when :func:`_runs_first` shows that the merge
    loop would begin by merging every run of one class, one row per run; then
    :func:`_merge_kernel` merges its rows.  Runs without the GIL once its arrays are allocated.
    """
    cdef Py_ssize_t n = values.shape[0], m = 0, runs = 0, i, row, n_int
    if codes.shape[0] != n or (weights.shape[0] != 0 and weights.shape[0] != n):
        raise ValueError(f"values, codes and weights of different lengths "
                         f"({n}, {codes.shape[0]}, {weights.shape[0]})")
    if n_classes < 1 and n > 0:
        raise ValueError(f"n_classes must be >= 1, got {n_classes}")
    cdef Py_ssize_t bad = -1  # a row whose class code is outside 0..n_classes-1
    cdef bint pure = True  # every distinct value has rows of one class only
    with nogil:
        for i in range(n):
            if codes[i] < 0 or codes[i] >= n_classes:
                bad = i
                break
            if i == 0 or values[i] != values[i - 1]:
                m += 1
                if i == 0 or codes[i] != codes[i - 1]:
                    runs += 1
            elif codes[i] != codes[i - 1]:
                pure = False
    if bad >= 0:
        raise ValueError(f"class code {codes[bad]} of row {bad} outside 0..{n_classes - 1}")
    if m == 0:
        return np.empty(0, dtype=np.float64)
    cdef bint by_runs = _runs_first(n, weights.shape[0] == 0, pure, runs, n_classes, threshold, min_intervals)
    if by_runs:
        m = runs
    table_array = np.zeros((m, n_classes), dtype=np.float64)
    first_array = np.empty(m, dtype=np.float64)  # first[r]: the first (lowest) value of row r
    cdef double[:, ::1] table = table_array
    cdef double[::1] first = first_array
    # the merge loop's work arrays (see _merge_kernel), allocated with the GIL held
    cdef int64_t[::1] nxt = np.empty(m, dtype=np.int64)
    cdef int64_t[::1] prv = np.empty(m, dtype=np.int64)
    cdef double[::1] pair_chi = np.empty(m, dtype=np.float64)
    cdef Py_ssize_t nodes = (4 * _leaves(m) - 1) // 3
    cdef char* block = <char*> malloc((nodes + 7) * sizeof(Node))
    if block == NULL:
        raise MemoryError(f"no memory for the tournament tree of {m} rows")
    # four siblings 4p+1..4p+4 share a 64-byte cache line: node 1 starts a line
    cdef Node* tree = <Node*> (block + (64 - (<size_t>block) % 64) % 64 + 3 * sizeof(Node))
    try:
        with nogil:
            row = -1
            for i in range(n):
                if i == 0 or (codes[i] != codes[i - 1] if by_runs else values[i] != values[i - 1]):
                    row += 1
                    first[row] = values[i]
                if weights.shape[0] == 0:
                    table[row, codes[i]] += 1.0
                else:
                    table[row, codes[i]] += weights[i]
            n_int = _merge_kernel(&table[0, 0], &first[0], m, n_classes, threshold, max_intervals,
                                  min_intervals, &nxt[0], &prv[0], &pair_chi[0], tree)
    finally:
        free(block)
    return first_array[1:n_int].copy()


cdef bint _runs_first(Py_ssize_t n, bint unit_weights, bint pure, Py_ssize_t runs, Py_ssize_t n_classes,
                      double threshold, Py_ssize_t min_intervals):
    """Whether the merge loop on one row per distinct value would begin by merging every run of
    consecutive rows of one class, and so may start from one row per run instead.

    True when the ``n`` rows weigh 1 each (``n <= 2**26``), every distinct value has rows of one
    class (``pure``), the statistic ``s`` of two such rows of one class (:func:`_pure_pair_chi2`) is
    below ``threshold``, and the ``runs`` are at least ``min_intervals``.  Proof: the table's rows
    are then integer counts of one class each.  A pair of one class, ``a`` and ``b`` rows, has
    statistic ``s`` whatever ``a`` and ``b``: the class's expected counts are ``a (a + b) / (a + b)
    = a`` and ``b``, exact (the products are below ``2**53``), so its two terms are 0 and the other
    ``n_classes - 1`` classes add their floor terms ``0.1`` in the same order.  A pair of two
    classes, ``a`` rows of one and ``b`` of the other, has statistic ``a + b + 0.2 (n_classes - 2)
    >= s + 1.8`` (the 2 x 2 table of a perfect split has chi-square ``N``; the floating-point
    error is many orders below 1.8).  So while two adjacent rows of one class are left, the lowest
    statistic is ``s < threshold`` (the loop goes on: the stop rule needs the lowest ``>=
    threshold``), the pairs that have it are exactly those of one class and the merge of one of
    them leaves rows of one class.  Every merge until no two adjacent rows share a class, i.e.
    until one row per run is left, is therefore a merge of two rows of one run, ``m - runs``
    merges in all; ``runs >= min_intervals`` lets all of them happen.  Their order does not matter
    for what follows: integer counts add exactly in any order, and the merge loop on the row per
    run table is a function of that table alone.  (With a distinct value of two classes no such
    shortcut holds: a mixed pair can be lower than ``s``; see :func:`_merge_kernel`.)
    """
    if not unit_weights or not pure or n > _RUN_ROWS_LIMIT or runs < min_intervals:
        return False
    return threshold > _pure_pair_chi2(n_classes)


cdef double _pure_pair_chi2(Py_ssize_t n_classes):
    """The statistic of two rows of one class: :func:`_rows_chi2` of rows ``(1, 0, ..., 0)`` twice."""
    table_array = np.zeros((2, n_classes), dtype=np.float64)
    cdef double[:, ::1] table = table_array
    table[0, 0] = 1.0
    table[1, 0] = 1.0
    return _rows_chi2(&table[0, 0], n_classes, 0, 1)


cdef inline Py_ssize_t _leaves(Py_ssize_t rows) noexcept nogil:
    """Leaves of the tournament tree over the pairs of ``rows`` rows: the smallest power of 4 that
    is ``>= rows - 1`` (at least 1)."""
    cdef Py_ssize_t leaves = 1
    while leaves < rows - 1:
        leaves *= 4
    return leaves


cdef inline double _tree_value(double chi) noexcept nogil:
    """The tree's value of a statistic: itself when below the largest float, else the largest."""
    return chi if chi < _LARGEST else _LARGEST


cdef inline Py_ssize_t _winner(const Node* tree, Py_ssize_t first) noexcept nogil:
    """The child of ``first..first+3`` with the lowest statistic, the leftmost among equal ones."""
    cdef Py_ssize_t a = first + <Py_ssize_t>(tree[first + 1].chi < tree[first].chi)
    cdef Py_ssize_t b = first + 2 + <Py_ssize_t>(tree[first + 3].chi < tree[first + 2].chi)
    return b if tree[b].chi < tree[a].chi else a


cdef Py_ssize_t _tree_build(Node* tree, const double* pair_chi, Py_ssize_t rows) noexcept nogil:
    """Build the tournament tree over the ``rows - 1`` pairs of ``rows`` consecutive rows (their
    statistics ``pair_chi``) bottom-up in ``O(rows)``; returns the index of its first leaf."""
    cdef Py_ssize_t leaves = _leaves(rows), first = (leaves - 1) // 3, i, k
    for i in range(leaves):
        tree[first + i].pair = i
        tree[first + i].chi = _tree_value(pair_chi[i]) if i < rows - 1 else INFINITY
    for k in range(first - 1, -1, -1):
        tree[k] = tree[_winner(tree, 4 * k + 1)]
    return first


cdef inline void _tree_set(Node* tree, Py_ssize_t first, Py_ssize_t pair, double value) noexcept nogil:
    """Give ``pair`` the statistic ``value`` in the tournament tree and update the winners above it.

    Leaf ``first + pair`` holds the pair's statistic; node ``k`` holds the lowest ``(chi2, pair)``
    of its children ``4k + 1 .. 4k + 4``, the leftmost child winning a tie (its pairs are the left
    ones), so every node holds the leftmost lowest pair below it and node 0 the next merge.  The
    walk up stops at the first node whose winner does not change (its ancestors are then right).
    """
    cdef Py_ssize_t k = first + pair, parent, best
    tree[k].chi = value
    while k > 0:
        parent = (k - 1) >> 2
        best = _winner(tree, 4 * parent + 1)
        if tree[parent].chi == tree[best].chi and tree[parent].pair == tree[best].pair:
            break
        tree[parent] = tree[best]
        k = parent


cdef Py_ssize_t _compact(double* counts, double* first, double* pair_chi, int64_t* nxt, int64_t* prv,
                         Py_ssize_t n_int, Py_ssize_t n_classes) noexcept nogil:
    """Move the ``n_int`` intervals of the linked list to rows ``0..n_int-1`` in their order (their
    counts, first values and pair statistics) and relink them; returns ``n_int``.

    Row 0 always starts the first interval (a merge absorbs the right row) and the k-th interval's
    row is ``>= k``, so the moves go downwards and never overwrite a row still to be read.
    """
    cdef Py_ssize_t k, c, i = 0
    for k in range(n_int):
        if i != k:
            for c in range(n_classes):
                counts[k * n_classes + c] = counts[i * n_classes + c]
            first[k] = first[i]
            pair_chi[k] = pair_chi[i]
        i = nxt[i]
    for k in range(n_int):
        nxt[k] = k + 1
        prv[k] = k - 1
    return n_int


cdef Py_ssize_t _merge_kernel(double* counts, double* first, Py_ssize_t m, Py_ssize_t n_classes,
                              double threshold, Py_ssize_t max_intervals, Py_ssize_t min_intervals,
                              int64_t* nxt, int64_t* prv, double* pair_chi, Node* tree) noexcept nogil:
    """ChiMerge's merge loop: returns the number of final intervals, which it leaves in rows
    ``0..n_int-1`` of ``counts`` and ``first`` (the first value of each row), in order.

    ``counts`` (float64, ``m >= 1`` rows of ``n_classes``, row-major) is merged in place;
    ``max_intervals < 0`` means no maximum.  ``nxt``, ``prv``, ``pair_chi`` (``m`` entries) and
    ``tree`` (``(4 * _leaves(m) - 1) // 3`` nodes, node 1 at the start of a 64-byte line) are work
    arrays.

    Intervals are a doubly linked list of rows (``nxt``, ``prv``); a merge adds the right
    interval's counts to the left one's.  The pair ``(i, nxt[i])`` is named by its left row ``i``
    and ``pair_chi[i]`` is its statistic.  The next merge is the lowest pair, the leftmost among
    equal ones: a tournament tree (a complete tree of four children per node over ``leaves >= rows
    - 1`` leaves, one per row that can start a pair, node 0 the root, node ``k``'s children ``4k +
    1 .. 4k + 4``, each node a ``(chi2, pair)`` of 16 bytes so that four siblings fill one cache
    line) keeps at every node the lowest ``(chi2, pair)`` below it, the leftmost child winning
    ties, so the root is the next merge.  Four children per node halve the levels a walk climbs
    against two (each level reads one cache line either way): the merge loop of a million-row
    column took a quarter less time.  A row that starts no pair (absorbed, the last interval, padding) has
    the leaf value ``+inf``; a statistic that is not below the largest float (an overflow to
    ``inf`` or ``nan``) enters the tree as the largest float, so the root is always a live pair
    while one is left.

    Merging the root pair ``(left, right)`` into ``left`` sets three leaves (:func:`_tree_set`), in
    this order: ``right`` to ``+inf`` (it starts no pair any more), ``left`` to the statistic of
    ``(left, after)`` (:func:`_rows_chi2`; ``+inf`` when there is no ``after``), ``before`` to that
    of ``(before, left)``.  Each walks up to the first node whose winner stays the same, so a
    merge costs at most ``O(n_classes + log m)``; the tree never holds a stale entry (a lazy heap
    pops about one and a half stale entries per merge, each a walk down from the root).  The
    tree is built bottom-up in ``O(m)``.

    Whenever the intervals are at most half the rows in use, :func:`_compact` moves them to the
    first rows (in their order, with their statistics) and the tree is rebuilt over them: the
    merges that follow touch rows close together in memory and a smaller tree, and the next merge
    is the same (it depends on the statistics and the order of the pairs only).  The moves cost
    ``O(m n_classes)`` in all (each compaction at most half the previous).

    The loop stops when the root's statistic is ``>= threshold`` with at most ``max_intervals``
    intervals (when given), or at ``min_intervals`` intervals: the merges are exactly those of the
    plain loop that rescans every pair.  (Merging the runs of one class first is no such shortcut
    in general: with the expected-count floor two pure intervals of one class have chi2 ``0.2
    (n_classes - 1)``, not 0, a mixed pair can be lower (``(1, 0), (10, 1)``: 0.099), and the grown
    run changes its neighbours' statistics; e.g. rows ``(3,0) (3,1) (0,1) (5,1) (1,0) (2,0)`` at
    threshold 0.5 keep 4 intervals, but 5 when the run ``(1,0) (2,0)`` is merged first.  When no
    distinct value has two classes it is one: see :func:`_runs_first`.)
    """
    cdef Py_ssize_t n_int = m, rows = m, first_leaf, c, left, right, after, before
    cdef double value
    if m < 2 or m <= min_intervals:
        return m
    for left in range(m):
        nxt[left] = left + 1  # nxt[i] == rows: no next interval
        prv[left] = left - 1
    _adjacent_chi2(counts, m, n_classes, pair_chi)
    first_leaf = _tree_build(tree, pair_chi, rows)
    while n_int > min_intervals:
        if 2 * n_int <= rows:
            rows = _compact(counts, first, pair_chi, nxt, prv, n_int, n_classes)
            first_leaf = _tree_build(tree, pair_chi, rows)
        left = tree[0].pair
        if pair_chi[left] >= threshold and (max_intervals < 0 or n_int <= max_intervals):
            break
        right = nxt[left]
        for c in range(n_classes):  # merge `right` into `left`
            counts[left * n_classes + c] += counts[right * n_classes + c]
        after = nxt[right]
        nxt[left] = after
        n_int -= 1
        if right < rows - 1:
            _tree_set(tree, first_leaf, right, INFINITY)
        value = INFINITY
        if after < rows:
            prv[after] = left
            pair_chi[left] = _rows_chi2(counts, n_classes, left, after)
            value = _tree_value(pair_chi[left])
        _tree_set(tree, first_leaf, left, value)
        before = prv[left]
        if before >= 0:
            pair_chi[before] = _rows_chi2(counts, n_classes, before, left)
            _tree_set(tree, first_leaf, before, _tree_value(pair_chi[before]))
    if n_int < rows:
        _compact(counts, first, pair_chi, nxt, prv, n_int, n_classes)
    return n_int
