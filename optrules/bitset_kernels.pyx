"""Compiled kernels over packed bitsets: the inner loops of candidate mining (``optrules.candidates``).

* :func:`extension_supports`: the positive and negative supports of every allowed extension
  (parent conjunction AND one atom) by popcount over the packed words, without materialising the
  parents x atoms x words array of joined bitsets; only the extensions frequent enough are kept.
* :func:`row_hashes` / :func:`joined_hashes`: two independent 64-bit hashes of each packed bitset
  (of a parent AND an atom, for the last level, which is never formed), so that coverage duplicates
  are found by sorting integers instead of comparing rows of thousands of words: two coverages are
  taken as equal when both hashes agree, and ``candidates`` falls back to comparing the rows
  themselves when the first agrees and the second does not.

Built ahead of time by Cython when the package is installed (``setup.py``); the loops run without
the GIL. Words are ``uint64`` with C's wrap-around arithmetic, so the hashes are the same on every
build.
"""

from libc.stdint cimport int64_t, uint64_t, uint8_t

import numpy as np

__all__ = ["extension_supports", "joined_hashes", "row_hashes"]


cdef inline int64_t _popcount(uint64_t x) noexcept nogil:
    """Bits set in a 64-bit word (SWAR)."""
    x = x - ((x >> 1) & 0x5555555555555555ULL)
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL
    return <int64_t>((x * 0x0101010101010101ULL) >> 56)


def extension_supports(parent_bits, atom_bits, pos_bits, neg_bits, first_atom, int64_t min_count):
    """For each parent p and atom a >= first_atom[p]: the popcounts of parent & atom & positives and
    & negatives. Returns (parent, atom, positives, negatives) of the pairs with positives >= min_count,
    in (parent, atom) order (``int64`` arrays); the bitsets are ``uint64`` words, one row each."""
    cdef const uint64_t[:, ::1] parents_view = np.ascontiguousarray(parent_bits, dtype=np.uint64)
    cdef const uint64_t[:, ::1] atoms_view = np.ascontiguousarray(atom_bits, dtype=np.uint64)
    cdef const uint64_t[::1] pos_view = np.ascontiguousarray(pos_bits, dtype=np.uint64)
    cdef const uint64_t[::1] neg_view = np.ascontiguousarray(neg_bits, dtype=np.uint64)
    cdef const int64_t[::1] first = np.ascontiguousarray(first_atom, dtype=np.int64)
    cdef Py_ssize_t n_parents = parents_view.shape[0], words = parents_view.shape[1]
    cdef Py_ssize_t n_atoms = atoms_view.shape[0]
    cdef Py_ssize_t total = 0, kept = 0, p, a, w
    cdef int64_t pos, neg
    for p in range(n_parents):
        total += max(n_atoms - first[p], 0)
    parents = np.empty(total, dtype=np.int64)
    atoms = np.empty(total, dtype=np.int64)
    positives = np.empty(total, dtype=np.int64)
    negatives = np.empty(total, dtype=np.int64)
    cdef int64_t[::1] parents_out = parents, atoms_out = atoms
    cdef int64_t[::1] positives_out = positives, negatives_out = negatives
    cdef uint64_t[::1] parent_pos = np.empty(words, dtype=np.uint64)
    cdef uint64_t[::1] parent_neg = np.empty(words, dtype=np.uint64)
    with nogil:
        for p in range(n_parents):
            for w in range(words):
                parent_pos[w] = parents_view[p, w] & pos_view[w]
                parent_neg[w] = parents_view[p, w] & neg_view[w]
            for a in range(first[p], n_atoms):
                pos = 0
                for w in range(words):
                    pos += _popcount(parent_pos[w] & atoms_view[a, w])
                if pos < min_count:
                    continue
                neg = 0
                for w in range(words):
                    neg += _popcount(parent_neg[w] & atoms_view[a, w])
                parents_out[kept], atoms_out[kept] = p, a
                positives_out[kept], negatives_out[kept] = pos, neg
                kept += 1
    return parents[:kept], atoms[:kept], positives[:kept], negatives[:kept]


cdef inline uint64_t _mix(uint64_t h, uint64_t word, int64_t position) noexcept nogil:
    """One splitmix64 step of a running hash over a word and its position."""
    cdef uint64_t z = word ^ (<uint64_t>position * 0xBF58476D1CE4E5B9ULL) ^ h
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


def row_hashes(bits):
    """Two independent 64-bit hashes per row of packed ``uint64`` words, (n, 2) ``uint64``."""
    cdef const uint64_t[:, ::1] view = np.ascontiguousarray(bits, dtype=np.uint64)
    cdef Py_ssize_t n = view.shape[0], words = view.shape[1], i, w
    cdef uint64_t first, second
    out = np.empty((n, 2), dtype=np.uint64)
    cdef uint64_t[:, ::1] hashes = out
    with nogil:
        for i in range(n):
            first, second = 0x9E3779B97F4A7C15ULL, 0xD1B54A32D192ED03ULL
            for w in range(words):
                first = _mix(first, view[i, w], w)
                second = _mix(second, view[i, w], w + words)
            hashes[i, 0], hashes[i, 1] = first, second
    return out


def joined_hashes(parent_bits, atom_bits, parents, atoms):
    """:func:`row_hashes` of the rows parent_bits[parents[r]] & atom_bits[atoms[r]], without forming them."""
    cdef const uint64_t[:, ::1] parents_view = np.ascontiguousarray(parent_bits, dtype=np.uint64)
    cdef const uint64_t[:, ::1] atoms_view = np.ascontiguousarray(atom_bits, dtype=np.uint64)
    cdef const int64_t[::1] parent_of = np.ascontiguousarray(parents, dtype=np.int64)
    cdef const int64_t[::1] atom_of = np.ascontiguousarray(atoms, dtype=np.int64)
    cdef Py_ssize_t n = parent_of.shape[0], words = parents_view.shape[1], r, w
    cdef int64_t p, a
    cdef uint64_t first, second, word
    out = np.empty((n, 2), dtype=np.uint64)
    cdef uint64_t[:, ::1] hashes = out
    with nogil:
        for r in range(n):
            p, a = parent_of[r], atom_of[r]
            first, second = 0x9E3779B97F4A7C15ULL, 0xD1B54A32D192ED03ULL
            for w in range(words):
                word = parents_view[p, w] & atoms_view[a, w]
                first = _mix(first, word, w)
                second = _mix(second, word, w + words)
            hashes[r, 0], hashes[r, 1] = first, second
    return out
