"""Compiled kernels over packed bitsets and bin codes: the inner loops of candidate mining
(``optrules.candidates``) and of LIBRE's coverage (``optrules.encode.FeatureBinning.coverage``).

* :func:`extension_supports`: the positive and negative supports of every allowed extension
  (parent conjunction AND one atom) by popcount over the packed words, without materialising the
  parents x atoms x words array of joined bitsets; only the extensions frequent enough are kept.
* :func:`row_hashes`: a 64-bit hash of each packed bitset, so that coverage duplicates are found by
  sorting integers instead of comparing rows of thousands of words (``candidates`` checks equal
  hashes for equal bits, so a collision cannot merge two different coverages).
* :func:`lattice_coverage`: which samples each lattice element covers, from the samples' bin codes,
  feature by feature with an early exit, without a (elements x samples) array per feature.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["extension_supports", "lattice_coverage", "row_hashes"]


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


@njit(cache=True)
def row_hashes(bits: np.ndarray) -> np.ndarray:
    """A 64-bit hash per row of packed words (a splitmix64 mix of each word and its position)."""
    n, words = bits.shape
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        h = np.uint64(0x9E3779B97F4A7C15)
        for w in range(words):
            z = bits[i, w] ^ (np.uint64(w) * np.uint64(0xBF58476D1CE4E5B9)) ^ h
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            h = z ^ (z >> np.uint64(31))
        out[i] = h
    return out


@njit(cache=True)
def lattice_coverage(elements: np.ndarray, codes: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """(k, n) bool: element j covers sample i when, in every feature f where j has a one, the
    sample has a bin (codes[i, f] >= 0) and j's bit at that bin, starts[f] + codes[i, f], is 0.

    For each element the samples are filtered feature by feature: only those still covered are
    looked at in the next restricted feature."""
    k = elements.shape[0]
    n, n_features = codes.shape
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
        size = n
        for i in range(n):
            alive[i] = i
        for r in range(count):
            f = restricted[r]
            kept = 0
            for t in range(size):
                i = alive[t]
                code = codes[i, f]
                if code >= 0 and not elements[j, starts[f] + code]:
                    alive[kept] = i
                    kept += 1
            size = kept
            if size == 0:
                break
        for t in range(size):
            out[j, alive[t]] = True
    return out
