"""Compiled kernels over packed bitsets and bin codes: the inner loops of candidate mining
(``optrules.candidates``) and of LIBRE's coverage (``optrules.encode.FeatureBinning.coverage``).

* :func:`extension_supports`: the positive and negative supports of every allowed extension
  (parent conjunction AND one atom) by popcount over the packed words, without materialising the
  parents x atoms x words array of joined bitsets; only the extensions frequent enough are kept.
* :func:`row_hashes` / :func:`joined_hashes`: two independent 64-bit hashes of each packed bitset
  (of a parent AND an atom, for the last level, which is never formed), so that coverage duplicates
  are found by sorting integers instead of comparing rows of thousands of words: two coverages are
  taken as equal when both hashes agree, and ``candidates`` falls back to comparing the rows
  themselves when the first agrees and the second does not.
* :func:`lattice_coverage`: which samples each lattice element covers, from the samples' bin codes,
  feature by feature with an early exit, without a (elements x samples) array per feature.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["extension_supports", "joined_hashes", "lattice_coverage", "row_hashes"]


@njit(cache=True, inline="always")
def _popcount(x: np.uint64) -> np.int64:
    """Bits set in a 64-bit word (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def extension_supports(parent_bits: np.ndarray, atom_bits: np.ndarray, pos_bits: np.ndarray,
                       neg_bits: np.ndarray, first_atom: np.ndarray, min_count: int):
    """For each parent p and atom a >= first_atom[p]: the popcounts of parent & atom & positives and
    & negatives. Returns (parent, atom, positives, negatives) of the pairs with positives >= min_count,
    in (parent, atom) order."""
    n_parents, words = parent_bits.shape
    n_atoms = atom_bits.shape[0]
    total = 0
    for p in range(n_parents):
        total += max(n_atoms - first_atom[p], 0)
    parents = np.empty(total, dtype=np.int64)
    atoms = np.empty(total, dtype=np.int64)
    positives = np.empty(total, dtype=np.int64)
    negatives = np.empty(total, dtype=np.int64)
    parent_pos = np.empty(words, dtype=np.uint64)
    parent_neg = np.empty(words, dtype=np.uint64)
    kept = 0
    for p in range(n_parents):
        for w in range(words):
            parent_pos[w] = parent_bits[p, w] & pos_bits[w]
            parent_neg[w] = parent_bits[p, w] & neg_bits[w]
        for a in range(first_atom[p], n_atoms):
            pos = 0
            for w in range(words):
                pos += _popcount(parent_pos[w] & atom_bits[a, w])
            if pos < min_count:
                continue
            neg = 0
            for w in range(words):
                neg += _popcount(parent_neg[w] & atom_bits[a, w])
            parents[kept], atoms[kept], positives[kept], negatives[kept] = p, a, pos, neg
            kept += 1
    return parents[:kept], atoms[:kept], positives[:kept], negatives[:kept]


@njit(cache=True, inline="always")
def _mix(h: np.uint64, word: np.uint64, position: int) -> np.uint64:
    """One splitmix64 step of a running hash over a word and its position."""
    z = word ^ (np.uint64(position) * np.uint64(0xBF58476D1CE4E5B9)) ^ h
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def row_hashes(bits: np.ndarray) -> np.ndarray:
    """Two independent 64-bit hashes per row of packed words, (n, 2)."""
    n, words = bits.shape
    out = np.empty((n, 2), dtype=np.uint64)
    for i in range(n):
        first, second = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xD1B54A32D192ED03)
        for w in range(words):
            first = _mix(first, bits[i, w], w)
            second = _mix(second, bits[i, w], w + words)
        out[i, 0], out[i, 1] = first, second
    return out


@njit(cache=True)
def joined_hashes(parent_bits: np.ndarray, atom_bits: np.ndarray, parents: np.ndarray,
                  atoms: np.ndarray) -> np.ndarray:
    """:func:`row_hashes` of the rows parent_bits[parents[r]] & atom_bits[atoms[r]], without forming them."""
    n, words = parents.shape[0], parent_bits.shape[1]
    out = np.empty((n, 2), dtype=np.uint64)
    for r in range(n):
        p, a = parents[r], atoms[r]
        first, second = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xD1B54A32D192ED03)
        for w in range(words):
            word = parent_bits[p, w] & atom_bits[a, w]
            first = _mix(first, word, w)
            second = _mix(second, word, w + words)
        out[r, 0], out[r, 1] = first, second
    return out


@njit(cache=True)
def lattice_coverage(elements: np.ndarray, codes_by_feature: np.ndarray, starts: np.ndarray,
                     stops: np.ndarray) -> np.ndarray:
    """(k, n) bool: element j covers sample i when, in every feature f where j has a one, the
    sample has a bin (codes_by_feature[f, i] >= 0) and j's bit at that bin, starts[f] + that code,
    is 0. ``codes_by_feature`` is the samples' bin codes, one contiguous row per feature.

    For each element the samples are filtered feature by feature: only those still covered are
    looked at in the next restricted feature."""
    k = elements.shape[0]
    n_features, n = codes_by_feature.shape
    out = np.zeros((k, n), dtype=np.bool_)
    restricted = np.empty(n_features, dtype=np.int64)
    alive = np.empty(n, dtype=np.int64)
    for j in range(k):
        count = 0
        for f in range(n_features):
            for b in range(starts[f], stops[f]):
                if elements[j, b]:
                    restricted[count] = f
                    count += 1
                    break
        if count == 0:
            out[j, :] = True
            continue
        f = restricted[0]
        size = 0
        for i in range(n):
            code = codes_by_feature[f, i]
            if code >= 0 and not elements[j, starts[f] + code]:
                alive[size] = i
                size += 1
        for r in range(1, count):
            f = restricted[r]
            kept = 0
            for t in range(size):
                i = alive[t]
                code = codes_by_feature[f, i]
                if code >= 0 and not elements[j, starts[f] + code]:
                    alive[kept] = i
                    kept += 1
            size = kept
            if size == 0:
                break
        for t in range(size):
            out[j, alive[t]] = True
    return out
