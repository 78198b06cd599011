"""Candidate rules for selection: conjunctions of simple conditions mined level by level on bitsets.

Atoms (single conditions) come from the discretised data:

- a categorical feature gives ``feature in {c}`` for each training category c;
- a numeric feature, discretised (ChiMerge by default, at most ``DEFAULT_MAX_INTERVALS`` bins) into bins with cuts c_1 < ... < c_{k-1},
  gives the thresholds ``feature in [min, c_j)`` and ``feature in [c_j, max]`` and every interior
  bin ``feature in [c_j, c_{j+1})``.

Conjunctions of up to ``max_len`` atoms on distinct features are grown Apriori-style: a conjunction
is extended only if it covers at least ``min_support`` of the positives (a share of them), which is
anti-monotone, so nothing frequent is missed. Coverage is held as packed uint64 bitsets and supports
are popcounts. Candidates are then kept if they cover a larger share of the positives than of the
negatives (local support, as in LIBRE's filter), deduplicated by coverage (fewest atoms kept; the
coverages are hashed, and only as far down the ranking as ``max_candidates`` distinct ones reach), and
the ``max_candidates`` best are returned, ranked by ``ranking``:

- ``"exclusiveness"``: exclusiveness lsup+ / (lsup+ + lsup-), then positive support, then fewer atoms;
- ``"gain"``: first the *improving* conjunctions, by their gain ``alpha * P - (1 - alpha) * N``
  (P, N: the positives and negatives covered; the weight the greedy set cover of
  ``optrules.learners.selection`` gives a rule at its first step), then fewer atoms; then all the
  others, by exclusiveness as above. A conjunction is improving when its gain exceeds the gain of
  each of its generalisations (the conjunctions one atom shorter; every atom is improving): a
  narrower rule that does not pay for the positives it gives up is listed after the broad ones.

Exclusiveness alone favours narrow conjunctions: on noisy data the most exclusive are those
whose few covered negatives are fewest by chance, all inside a broad true rule of lower
exclusiveness, and a budget of ``max_candidates`` fills with them (on the hidden DNF of
``benchmarks/synthetic.py`` at 10k rows and 5% noise the three true terms rank 3,215th, 4,748th and
5,980th of 36,620 distinct candidates, and 489 of the first 500 have three atoms). Ranked by gain,
the true terms come first, but so do the broad rule's near copies (the same rule and one more,
almost idle, atom); the improving ones leave those out. A missing value satisfies no atom.

With sample ``weights`` (one non-negative float per row) every count above is a sum of weights: the
supports, ``min_support`` (a share of the positives' weight; a candidate needs positive support
weight above 0 too, as it needs one positive without weights), the local supports and the ranking,
and the discretisation (weighted ChiMerge counts, weighted quantiles). Integer weights give exactly
the candidates and supports of that many copies of each row. Rows of weight 0 take no part in the
mining (supports, deduplication by coverage), as if removed; the returned coverage still has a row
for every sample. Unit weights take the popcount path, hence today's results bit for bit; other
weights take supports from matrix products of the unpacked coverage with the weight vector.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from optrules.bitset_kernels import extension_supports, joined_hashes, row_hashes
from optrules.data import Schema
from optrules.discretize import Bins, discretize
from optrules.encode import pack_bits, unpack_bits
from optrules.ruleset import CategoricalCondition, Condition, Interval, NumericCondition

__all__ = ["CandidateRules", "mine_candidates", "numeric_atoms", "DEFAULT_MAX_INTERVALS", "RANKINGS"]

#: ChiMerge at the papers' thresholds keeps hundreds of bins on noisy columns (adult's fnlwgt: ~1,200),
#: which multiplies the conjunctions; candidates cap each numeric feature at this many bins by default.
DEFAULT_MAX_INTERVALS = 6
#: The candidate rankings of ``mine_candidates`` (module docstring).
RANKINGS = ("exclusiveness", "gain")
#: Memory budget (bytes) of the unpacked parent coverage in one block of the weighted supports.
WEIGHTED_BLOCK_BYTES = 1 << 26


@dataclass(frozen=True)
class CandidateRules:
    """Candidate conjunctions and their coverage of the training samples (samples x candidates)."""

    conjunctions: tuple[tuple[Condition, ...], ...]
    coverage: np.ndarray
    n_mined: int

    @property
    def n_atoms(self) -> np.ndarray:
        return np.array([len(c) for c in self.conjunctions], dtype=int)

    def __len__(self) -> int:
        return len(self.conjunctions)


def numeric_atoms(feature: str, bins: Bins) -> list[NumericCondition]:
    """Threshold and interior-bin conditions of one discretised numeric feature."""
    cuts = list(bins.cuts)
    atoms = [NumericCondition(feature, [Interval(-math.inf, c, True, False)]) for c in cuts]
    atoms += [NumericCondition(feature, [Interval(c, math.inf, True, True)]) for c in cuts]
    atoms += [NumericCondition(feature, [Interval(lo, hi, True, False)]) for lo, hi in zip(cuts, cuts[1:])]
    return atoms


def _atoms(X: pd.DataFrame, schema: Schema, is_positive: np.ndarray, weights: np.ndarray | None,
           discretization: str, discretization_params: dict) -> tuple[list[Condition], np.ndarray, np.ndarray]:
    """All atoms, their feature index, and their coverage (samples x atoms).

    The coverage is what each atom's ``evaluate`` gives, computed a column at a time: a categorical
    column is factorised once (with the hashing pandas' ``isin`` uses), a numeric one compared with
    each interval's ends (a missing value satisfies no atom). Numeric columns are discretised with
    the rows weighing ``weights`` (None: 1 each)."""
    conditions: list[Condition] = []
    feature_of: list[int] = []
    masks: list[np.ndarray] = []
    for index, feature in enumerate(schema.features):
        column = X[feature].to_numpy()
        if schema.categorical[index]:
            codes, uniques = pd.factorize(pd.Series(column, dtype=object))
            order = sorted(range(len(uniques)), key=lambda k: (type(uniques[k]).__name__, str(uniques[k])))
            atoms: list[Condition] = [CategoricalCondition(feature, [uniques[k]]) for k in order]
            masks.extend(codes == k for k in order)
        else:
            values = column.astype(float)
            if np.isnan(values).all():
                continue
            bins = discretize(values, is_positive, method=discretization, weights=weights, **discretization_params)
            numeric = numeric_atoms(feature, bins)
            masks.extend(atom.intervals[0].contains(values) for atom in numeric)
            atoms = list(numeric)
        conditions.extend(atoms)
        feature_of.extend([index] * len(atoms))
    coverage = np.array(masks, dtype=bool).T if masks else np.zeros((len(X), 0), dtype=bool)
    return conditions, np.array(feature_of, dtype=int), coverage


@dataclass
class _Level:
    """The frequent conjunctions of one length, in lexicographic order of their atoms: their atoms (a
    row of indices into the frequent atoms per conjunction, increasing), their supports, the row of
    the previous level each was grown from and the atom it was grown by (``parents``, ``atoms``; none
    for the atoms), and their packed coverage, either formed (``bits``, for the levels that are
    extended) or as ``parent_bits[parents] & atom_bits[atoms]`` (the last level, never formed)."""

    items: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    bits: np.ndarray | None = None
    parent_bits: np.ndarray | None = None
    parents: np.ndarray | None = None
    atoms: np.ndarray | None = None

    def __len__(self) -> int:
        return self.items.shape[0]

    def rows(self, index: np.ndarray, atom_bits: np.ndarray) -> np.ndarray:
        if self.bits is not None:
            return self.bits[index]
        return self.parent_bits[self.parents[index]] & atom_bits[self.atoms[index]]

    def hashes(self, index: np.ndarray, atom_bits: np.ndarray) -> np.ndarray:
        """The two hashes of the coverage of the conjunctions ``index`` of this level."""
        if self.bits is not None:
            return row_hashes(np.ascontiguousarray(self.bits[index]))
        return joined_hashes(self.parent_bits, atom_bits, self.parents[index], self.atoms[index])


def _weighted_extensions(parent_bits: np.ndarray, weighted_pos: np.ndarray, weighted_neg: np.ndarray,
                         first_atom: np.ndarray,
                         min_weight: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The weighted twin of ``extension_supports``: for each parent p and atom a >= first_atom[p], the
    summed positive and negative weights of the rows parent & atom covers; returns (parent, atom,
    positive weight, negative weight) of the pairs whose positive weight is above 0 and at least
    ``min_weight``, in (parent, atom) order.

    ``parent_bits`` are packed over rows that list the positives first, then the negatives;
    ``weighted_pos`` / ``weighted_neg`` are the atoms' coverage of those positive / negative rows
    times each row's weight (float64). The supports are products of the unpacked parent coverage
    with them, a block of parents at a time, the negative ones only for the parents and atoms of
    some frequent pair (float64: sums of integer weights are exact, so integer weights give the
    counts of the repeated rows)."""
    n_pos_rows, n_atoms = weighted_pos.shape
    n_rows = n_pos_rows + weighted_neg.shape[0]
    block = max(1, WEIGHTED_BLOCK_BYTES // (8 * max(n_rows, 1)))
    parents, atoms, positives, negatives = [], [], [], []
    for start in range(0, parent_bits.shape[0], block):
        cover = unpack_bits(parent_bits[start:start + block], n_rows)  # (parents of the block, rows)
        pos = cover[:, :n_pos_rows].astype(np.float64) @ weighted_pos
        allowed = np.arange(n_atoms)[None, :] >= first_atom[start:start + cover.shape[0], None]
        frequent = allowed & (pos > 0) & (pos >= min_weight)
        some_parent, some_atom = frequent.any(axis=1), frequent.any(axis=0)
        neg = np.zeros_like(pos)
        neg[np.ix_(some_parent, some_atom)] = (cover[some_parent, n_pos_rows:].astype(np.float64)
                                               @ weighted_neg[:, some_atom])
        p, a = np.nonzero(frequent)
        parents.append(p + start)
        atoms.append(a)
        positives.append(pos[p, a])
        negatives.append(neg[p, a])
    if not parents:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    return (np.concatenate(parents).astype(np.int64), np.concatenate(atoms).astype(np.int64),
            np.concatenate(positives), np.concatenate(negatives))


def _hashes(levels: list[_Level], index: np.ndarray, atom_bits: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The two coverage hashes of the conjunctions of global indices ``index``, in that order."""
    level_of = np.searchsorted(offsets, index, side="right") - 1
    out = np.empty((len(index), 2), dtype=np.uint64)
    for k, level in enumerate(levels):
        at = np.flatnonzero(level_of == k)
        if at.size:
            out[at] = level.hashes(index[at] - offsets[k], atom_bits)
    return out


def _distinct_in_order(levels: list[_Level], ranked: np.ndarray, atom_bits: np.ndarray,
                       offsets: np.ndarray, limit: int) -> np.ndarray:
    """The positions in ``ranked`` (global indices of conjunctions) of the first conjunction of each
    distinct coverage, in order, the first ``limit`` of them. Coverages are equal when both hashes
    agree; if a first hash agrees and the second does not, the rows are compared themselves.

    Only a prefix of ``ranked`` is hashed, doubled until it holds ``limit`` distinct coverages (or is
    all of it): the first conjunction of a coverage within a prefix is its first in the whole list,
    so the answer is that of hashing everything, for the cost of the few thousand leaders."""
    size = min(len(ranked), 4 * limit)
    while True:
        prefix = ranked[:size]
        hashes = _hashes(levels, prefix, atom_bits, offsets)
        _, first, inverse = np.unique(hashes[:, 0], return_index=True, return_inverse=True)
        if (hashes[:, 1] != hashes[first[inverse], 1]).any():  # a collision of the first hash: compare the rows
            bits = _rows(levels, prefix, atom_bits, offsets)
            _, first = np.unique(bits.view(np.dtype((np.void, bits.shape[1] * 8))).ravel(), return_index=True)
        if len(first) >= limit or size == len(ranked):
            return np.sort(first)[:limit]
        size = min(len(ranked), 2 * size)


def _key_index(keys: np.ndarray, key_space: int, n_queries: int):
    """A function from keys (each one of the sorted, distinct ``keys``, all below ``key_space``) to
    their positions: a table indexed by key when it is at most a few times the queries, else a
    binary search."""
    if key_space <= 4 * n_queries + (1 << 16):
        table = np.empty(key_space, dtype=np.int64)
        table[keys] = np.arange(len(keys))
        return table.__getitem__
    return lambda queries: np.searchsorted(keys, queries)


def _best_generalisation(levels: list[_Level], gain: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For every conjunction (global index), the largest ``gain`` of its generalisations, the
    conjunctions one atom shorter (-inf for an atom).

    Every generalisation of a frequent conjunction is frequent (anti-monotone support), hence mined.
    Dropping the last atom gives the parent the conjunction was grown from; dropping an earlier one
    gives the extension, by the same last atom, of the parent's own generalisation without it, which
    is looked up among the children of that conjunction: a level lists its conjunctions in
    lexicographic order, so (parent, atom) pairs are sorted keys."""
    best = np.full(len(gain), -np.inf)
    n_atoms = len(levels[0])
    # dropped[i]: level-(k-1) index of each level-k conjunction without its atom at position i
    dropped: list[np.ndarray] = []
    for k in range(1, len(levels)):
        level, previous = levels[k], levels[k - 1]
        if k == 1:
            dropped = [level.atoms, level.parents]
        else:
            find = _key_index(previous.parents * n_atoms + previous.atoms, len(levels[k - 2]) * n_atoms, len(level))
            dropped = [find(d[level.parents] * n_atoms + level.atoms) for d in dropped]
            dropped.append(level.parents)
        block = slice(offsets[k], offsets[k] + len(level))
        for d in dropped:
            best[block] = np.maximum(best[block], gain[offsets[k - 1] + d])
    return best


def _rows(levels: list[_Level], index: np.ndarray, atom_bits: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Packed coverage of the conjunctions of global indices ``index``, in that order."""
    level_of = np.searchsorted(offsets, index, side="right") - 1
    out = np.empty((len(index), atom_bits.shape[1]), dtype=np.uint64)
    for k, level in enumerate(levels):
        at = np.flatnonzero(level_of == k)
        if at.size:
            out[at] = level.rows(index[at] - offsets[k], atom_bits)
    return out


def mine_candidates(
    X: pd.DataFrame,
    schema: Schema,
    is_positive: np.ndarray,
    max_len: int = 3,
    min_support: float = 0.05,
    max_candidates: int = 500,
    discretization: str = "chimerge",
    discretization_params: dict | None = None,
    weights: np.ndarray | None = None,
    ranking: str = "exclusiveness",
    alpha: float = 0.5,
) -> CandidateRules:
    """Mine candidate conjunctions from validated data, its rows weighing ``weights`` (one
    non-negative float per row; None: 1 each), ranked by ``ranking`` ("exclusiveness" or "gain",
    the latter with the cover's ``alpha``); see the module docstring."""
    if max_len < 1:
        raise ValueError(f"max_len must be at least 1, got {max_len}")
    if not 0.0 <= min_support <= 1.0:
        raise ValueError(f"min_support must lie in [0, 1], got {min_support}")
    if max_candidates < 1:
        raise ValueError(f"max_candidates must be at least 1, got {max_candidates}")
    if ranking not in RANKINGS:
        raise ValueError(f"ranking must be one of {list(RANKINGS)}, got {ranking!r}")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    is_positive = np.asarray(is_positive, dtype=bool)
    n = len(is_positive)
    if weights is not None:
        weights = np.asarray(weights, dtype=float)
        if weights.shape != is_positive.shape:
            raise ValueError(f"weights has shape {weights.shape} for {n} samples")
        if (weights == 1.0).all():
            weights = None  # unit weights: the popcount path, bit for bit today's unweighted mining

    params = dict(discretization_params or {})
    if discretization == "chimerge":
        params.setdefault("max_intervals", DEFAULT_MAX_INTERVALS)
    conditions, feature_of, atom_cover = _atoms(X, schema, is_positive, weights, discretization, params)
    if weights is None:
        n_pos, n_neg = int(is_positive.sum()), int((~is_positive).sum())
        min_count = max(1, math.ceil(min_support * n_pos))
        atom_bits = pack_bits(atom_cover.T)  # one bitset over the samples per atom
        pos_bits = pack_bits(is_positive[None, :])[0]
        neg_bits = pack_bits(~is_positive[None, :])[0]
        atom_pos = np.bitwise_count(atom_bits & pos_bits).sum(axis=-1).astype(np.int64)
        atom_neg = np.bitwise_count(atom_bits & neg_bits).sum(axis=-1).astype(np.int64)
        frequent = np.flatnonzero(atom_pos >= min_count)
    else:  # only the rows of positive weight are mined (a row of weight 0 acts as no row), positives first
        pos_rows = np.flatnonzero(is_positive & (weights > 0))
        neg_rows = np.flatnonzero(~is_positive & (weights > 0))
        n_pos, n_neg = float(weights[pos_rows].sum()), float(weights[neg_rows].sum())
        min_weight = min_support * n_pos
        weighted_pos = atom_cover[pos_rows] * weights[pos_rows, None]  # (rows x atoms) float64
        weighted_neg = atom_cover[neg_rows] * weights[neg_rows, None]
        atom_bits = pack_bits(atom_cover[np.concatenate([pos_rows, neg_rows])].T)
        atom_pos, atom_neg = weighted_pos.sum(axis=0), weighted_neg.sum(axis=0)
        frequent = np.flatnonzero((atom_pos > 0) & (atom_pos >= min_weight))
        weighted_pos, weighted_neg = weighted_pos[:, frequent], weighted_neg[:, frequent]
    atom_bits_f, feature_f = np.ascontiguousarray(atom_bits[frequent]), feature_of[frequent]
    # atoms come feature by feature, so those on a later feature than f start at after_feature[f]
    after_feature = np.searchsorted(feature_f, np.arange(len(schema.features)), side="right")

    # Every frequent conjunction, level by level; a level's coverage is formed only to extend it.
    levels = [_Level(np.arange(len(frequent), dtype=np.int64)[:, None], atom_pos[frequent], atom_neg[frequent],
                     bits=atom_bits_f)]
    for length in range(2, max_len + 1):
        parent_level = levels[-1]
        if not len(parent_level):
            break
        last_feature = feature_f[parent_level.items[:, -1]]
        parent_bits = np.ascontiguousarray(parent_level.bits)
        if weights is None:
            parent, atom, pos, neg = extension_supports(parent_bits, atom_bits_f, pos_bits, neg_bits,
                                                        after_feature[last_feature], min_count)
        else:
            parent, atom, pos, neg = _weighted_extensions(parent_bits, weighted_pos, weighted_neg,
                                                          after_feature[last_feature], min_weight)
        items = np.column_stack([parent_level.items[parent], atom])
        if length < max_len:
            levels.append(_Level(items, pos, neg, parents=parent, atoms=atom,
                                 bits=parent_bits[parent] & atom_bits_f[atom]))
        else:
            levels.append(_Level(items, pos, neg, parent_bits=parent_bits, parents=parent, atoms=atom))

    offsets = np.cumsum([0] + [len(level) for level in levels])
    n_found, offsets = int(offsets[-1]), offsets[:-1]
    pos_support = np.concatenate([level.pos for level in levels]).astype(float)
    neg_support = np.concatenate([level.neg for level in levels]).astype(float)
    if weights is not None and n_found:
        # Float sums of the same weights in another order may differ in their last bits: every
        # conjunction of one coverage (both hashes equal) takes the support of the first, so that
        # they tie exactly in the ranking and the fewest atoms win, as with counts.
        hashes = _hashes(levels, np.arange(n_found), atom_bits_f, offsets)
        _, first, inverse = np.unique(hashes, axis=0, return_index=True, return_inverse=True)
        canonical = first[inverse.ravel()]
        pos_support, neg_support = pos_support[canonical], neg_support[canonical]
    lsup_pos = pos_support / (n_pos or 1)
    lsup_neg = neg_support / (n_neg or 1)
    keep = np.flatnonzero(lsup_pos > lsup_neg)
    length = np.repeat(np.arange(1, len(levels) + 1), [len(level) for level in levels])
    exclusiveness = lsup_pos / np.maximum(lsup_pos + lsup_neg, 1e-300)

    def by_exclusiveness(index: np.ndarray) -> np.ndarray:
        return index[np.lexsort((index, length[index], -pos_support[index], -exclusiveness[index]))]

    if ranking == "exclusiveness":
        order = by_exclusiveness(keep)
        picked = _distinct_in_order(levels, order, atom_bits_f, offsets, max_candidates)
    else:  # "gain": the improving conjunctions by gain, then the others by exclusiveness
        gain = alpha * pos_support - (1 - alpha) * neg_support
        improving = gain[keep] > _best_generalisation(levels, gain, offsets)[keep]
        first, rest = keep[improving], keep[~improving]
        order = first[np.lexsort((first, length[first], -gain[first]))]
        picked = _distinct_in_order(levels, order, atom_bits_f, offsets, max_candidates)
        if len(picked) < max_candidates and len(rest):  # the others are ranked only when reached
            order = np.concatenate([order, by_exclusiveness(rest)])
            picked = _distinct_in_order(levels, order, atom_bits_f, offsets, max_candidates)
    order = order[picked]
    level_of = np.searchsorted(offsets, order, side="right") - 1
    found_items = [levels[k].items[i].tolist()
                   for k, i in zip(level_of.tolist(), (order - offsets[level_of]).tolist())]

    conjunctions = tuple(tuple(conditions[frequent[a]] for a in items) for items in found_items)
    if not len(order):
        coverage = np.zeros((n, 0), dtype=bool)
    elif weights is None:
        coverage = unpack_bits(_rows(levels, order, atom_bits_f, offsets), n).T
    else:  # the bitsets leave out the rows of weight 0: every sample's coverage from its atoms
        coverage = np.column_stack([atom_cover[:, frequent[items]].all(axis=1) for items in found_items])
    return CandidateRules(conjunctions, coverage, n_found)
