"""Bins, one-hot and LIBRE inverse one-hot encodings of a feature table, and their decoding into rules.

The LIBRE paper (Mita, Papotti, Filippone, Michiardi; Section 3 and Appendix A.1) turns every sample
into a point of a Boolean lattice:

1. each feature is split into ordered *bins* (numeric: the intervals of a discretisation;
   categorical: one bin per category; both: one more bin for missing values when the training
   column has any -- missing values are data, never imputed);
2. a feature with ``m`` bins takes ``m`` bits, all 1 except a 0 at the sample's bin (*inverse
   one-hot encoding*, Section 3: ``b(i) = 1`` for ``i != z``, ``b(i) = 0`` for ``i = z``);
3. the bits of all features are concatenated. Example 3.1: bins ``[[0,40),[40,100]]`` and
   ``[[0,30),[30,60),[60,100]]``, ``f1 = 33.1, f2 = 44.7`` give ``01 101``.

A lattice element ``a`` is read as a rule antecedent that covers ``x`` iff ``a <= x`` (every bit
set in ``a`` is set in ``x``; "From Boundary Set To Rules"). The zeros of ``a`` name the bins each
feature may take (Example 3.4: ``01 100`` -> ``f1 in [0, 40) AND f2 in [30, 100]``).

Main objects:

:class:`FeatureBinning`  fitted per-feature bins; ``one_hot``, ``inverse_one_hot``, ``transform``
                         (packed :class:`Lattice`), ``decode`` / ``to_rule`` back to conditions.
:class:`FeatureLayout`   one feature's bins and its range of bits.
:class:`Lattice`         rows of packed ``uint64`` bitsets: order test ``leq``, ``leq_matrix``,
                         ``unique_with_counts``, ``popcount``, bit strings like ``"01 101"``.

A value that belongs to no bin (a category unseen in training, a missing value of a feature that
had none in training, a number outside explicit domain ends) is encoded with all the feature's
bits at 0 in the inverse encoding (and all at 0 in one-hot): it is then below every element
except those that leave the feature unrestricted, exactly as the decoded conditions evaluate it.
See ``docs/encoding.md``.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Hashable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .data import Schema, validate_features
from .discretize import Bins, discretize
from .ruleset import CategoricalCondition, Condition, Interval, NumericCondition, Rule

__all__ = [
    "FeatureLayout",
    "FeatureBinning",
    "Lattice",
    "pack_bits",
    "unpack_bits",
    "popcount",
    "leq",
    "leq_matrix",
    "n_words",
]

WORD_BITS = 64
#: Default memory budget (bytes) of one temporary block in :meth:`Lattice.leq_matrix`.
DEFAULT_MAX_BYTES = 1 << 26


# --------------------------------------------------------------------------- #
# bit packing
# --------------------------------------------------------------------------- #
def n_words(n_bits: int) -> int:
    """Number of 64-bit words holding ``n_bits`` bits: ``ceil(n_bits / 64)``."""
    return (int(n_bits) + WORD_BITS - 1) // WORD_BITS


def pack_bits(bits: Any) -> np.ndarray:
    """Pack a (n, n_bits) 0/1 matrix into (n, ceil(n_bits / 64)) ``uint64`` words.

    Bit ``b`` (0 = first bin of the first feature, the leftmost character of the paper's strings)
    is stored in word ``b // 64`` at weight ``2 ** (63 - b % 64)``: the first bit is the most
    significant, so comparing rows word by word is comparing their bit strings
    lexicographically. Unused (padding) bits of the last word are 0.
    """
    array = np.asarray(bits)
    if array.ndim != 2:
        raise ValueError(f"bits must be a 2-d (rows x bits) array, got shape {array.shape}")
    if array.dtype != bool:
        if array.size and not np.isin(array, (0, 1)).all():
            raise ValueError("bits must contain only 0 and 1")
        array = array.astype(bool)
    n, width = array.shape
    words = n_words(width)
    padded = np.zeros((n, words * WORD_BITS), dtype=bool)
    padded[:, :width] = array
    packed = np.packbits(padded, axis=1, bitorder="big")  # (n, 8 * words) bytes, big-endian
    return np.ascontiguousarray(packed).view(">u8").astype(np.uint64)


def unpack_bits(words: Any, n_bits: int) -> np.ndarray:
    """Inverse of :func:`pack_bits`: (n, W) ``uint64`` words -> (n, n_bits) bool matrix."""
    array = np.asarray(words, dtype=np.uint64)
    if array.ndim != 2:
        raise ValueError(f"words must be a 2-d (rows x words) array, got shape {array.shape}")
    if array.shape[1] != n_words(n_bits):
        raise ValueError(f"{n_bits} bits need {n_words(n_bits)} words, got {array.shape[1]}")
    big = np.ascontiguousarray(array, dtype=">u8").view(np.uint8)
    return np.unpackbits(big, axis=1, count=int(n_bits), bitorder="big").astype(bool)


_BYTE_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def popcount(words: Any) -> np.ndarray:
    """Number of ones of each row of a (n, W) ``uint64`` word matrix (int64, vectorised)."""
    array = np.ascontiguousarray(words, dtype=np.uint64)
    if array.ndim != 2:
        raise ValueError(f"words must be a 2-d (rows x words) array, got shape {array.shape}")
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(array).sum(axis=1, dtype=np.int64)
    return _BYTE_POPCOUNT[array.view(np.uint8)].sum(axis=1, dtype=np.int64)


def _parse_bit_string(text: str, n_bits: int | None, widths: tuple[int, ...] | None) -> str:
    """Check one bit string (groups separated by blanks) and return its digits without blanks."""
    groups = text.split()
    digits = "".join(groups)
    if not digits or set(digits) - {"0", "1"}:
        raise ValueError(f"bit string {text!r} must contain only 0, 1 and blanks")
    if n_bits is not None and len(digits) != n_bits:
        raise ValueError(f"bit string {text!r} has {len(digits)} bits, expected {n_bits}")
    if widths is not None and len(groups) > 1 and tuple(len(g) for g in groups) != widths:
        raise ValueError(f"bit string {text!r} groups its bits as {[len(g) for g in groups]}, "
                         f"expected feature widths {list(widths)}")
    return digits


# --------------------------------------------------------------------------- #
# Lattice
# --------------------------------------------------------------------------- #
class Lattice:
    """Rows of the Boolean lattice ``{0,1}^d``, packed as ``uint64`` bitsets (see :func:`pack_bits`).

    ``words`` is an (n, W) ``uint64`` array with ``W = ceil(n_bits / 64)``; ``widths`` gives the
    number of bits of each feature in order (they sum to ``n_bits``) and ``features`` their names,
    so the bits of feature ``k`` are ``[sum(widths[:k]), sum(widths[:k+1]))`` (:attr:`ranges`).

    The order is the one the paper uses to apply a rule ("From Boundary Set To Rules",
    Definition 2.4, Appendix A.2): ``a <= x`` iff every bit set in ``a`` is set in ``x``
    (``a AND x == a``), i.e. ``a & ~x == 0`` on every word.
    """

    __slots__ = ("words", "n_bits", "widths", "features")

    def __init__(self, words: Any, n_bits: int, widths: Sequence[int] | None = None,
                 features: Sequence[str] | None = None) -> None:
        array = np.asarray(words)
        if array.dtype != np.uint64:
            raise TypeError(f"lattice words must be uint64, got {array.dtype}")
        n_bits = int(n_bits)
        if array.ndim != 2 or array.shape[1] != n_words(n_bits):
            raise ValueError(f"{n_bits} bits need an (n, {n_words(n_bits)}) word array, got shape {array.shape}")
        if n_bits % WORD_BITS and array.shape[0]:
            padding = np.uint64((1 << (WORD_BITS - n_bits % WORD_BITS)) - 1)
            if (array[:, -1] & padding).any():
                raise ValueError("the padding bits after the last bit must be 0")
        widths = (n_bits,) if widths is None else tuple(int(w) for w in widths)
        if sum(widths) != n_bits or any(w < 0 for w in widths):
            raise ValueError(f"feature widths {list(widths)} do not add up to {n_bits} bits")
        if features is not None:
            features = tuple(str(f) for f in features)
            if len(features) != len(widths):
                raise ValueError(f"{len(features)} feature names for {len(widths)} feature widths")
        self.words = array
        self.n_bits = n_bits
        self.widths = widths
        self.features = features

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_bools(cls, bits: Any, widths: Sequence[int] | None = None,
                   features: Sequence[str] | None = None) -> Lattice:
        """Pack a (n, n_bits) 0/1 matrix (a single 1-d row is taken as one row)."""
        array = np.asarray(bits)
        if array.ndim == 1:
            array = array[None, :]
        return cls(pack_bits(array), array.shape[1], widths, features)

    @classmethod
    def from_strings(cls, strings: str | Iterable[str], widths: Sequence[int] | None = None,
                     features: Sequence[str] | None = None) -> Lattice:
        """Rows from bit strings such as ``"01 101"`` (blanks separate features, first bit first).

        Without ``widths`` the feature widths are read from the blanks of the first string; with
        them, strings may also be written without blanks (``"11000"`` as in Appendix A.4).
        """
        items = [strings] if isinstance(strings, str) else list(strings)
        if not items and widths is None:
            raise ValueError("cannot infer the number of bits from no strings; pass widths")
        if widths is None:
            widths = tuple(len(g) for g in items[0].split())
        widths = tuple(int(w) for w in widths)
        n_bits = sum(widths)
        digits = "".join(_parse_bit_string(s, n_bits, widths) for s in items)
        flat = np.frombuffer(digits.encode("ascii"), dtype=np.uint8) == ord("1")
        return cls(pack_bits(flat.reshape(len(items), n_bits)), n_bits, widths, features)

    def _like(self, words: np.ndarray) -> Lattice:
        return Lattice(words, self.n_bits, self.widths, self.features)

    # ------------------------------------------------------------------ views
    def __len__(self) -> int:
        return int(self.words.shape[0])

    @property
    def n_words(self) -> int:
        return int(self.words.shape[1])

    @property
    def ranges(self) -> tuple[tuple[str, int, int], ...]:
        """The bit layout: ``(feature, first bit, end bit)`` per feature (names ``f0, f1, ...`` if unnamed)."""
        names = self.features or tuple(f"f{k}" for k in range(len(self.widths)))
        ends = np.cumsum((0,) + self.widths)
        return tuple((name, int(ends[k]), int(ends[k + 1])) for k, name in enumerate(names))

    def __getitem__(self, key: Any) -> Lattice:
        """Rows by integer, slice, index array or boolean mask; always a Lattice (an int gives one row)."""
        if isinstance(key, (int, np.integer)):
            index = int(key)
            if not -len(self) <= index < len(self):
                raise IndexError(f"row {index} out of range for {len(self)} rows")
            index %= len(self)
            return self._like(self.words[index:index + 1])
        return self._like(np.ascontiguousarray(self.words[key]))

    def to_bools(self) -> np.ndarray:
        """The (n, n_bits) bool matrix."""
        return unpack_bits(self.words, self.n_bits)

    def to_strings(self) -> list[str]:
        """Bit strings with a blank between features, e.g. ``["01 101"]`` (for tests and debugging)."""
        codes = np.where(self.to_bools(), np.uint8(ord("1")), np.uint8(ord("0")))
        blank = np.full((len(self), 1), ord(" "), dtype=np.uint8)
        ends = np.cumsum(self.widths)[:-1]
        pieces: list[np.ndarray] = []
        for k, part in enumerate(np.split(codes, ends, axis=1)):
            if k:
                pieces.append(blank)
            pieces.append(part)
        text = np.ascontiguousarray(np.concatenate(pieces, axis=1) if pieces else codes)
        return [row.tobytes().decode("ascii") for row in text]

    def __repr__(self) -> str:
        shown = self[:8].to_strings() if len(self) else []
        more = ", ..." if len(self) > 8 else ""
        return f"Lattice({len(self)} rows x {self.n_bits} bits: {shown}{more})"

    def popcount(self) -> np.ndarray:
        """Number of ones of each row (int64)."""
        return popcount(self.words)

    # ------------------------------------------------------------------ order
    def element(self, a: Any) -> np.ndarray:
        """One lattice element as its (W,) words.

        ``a`` may be a one-row Lattice of the same width, a bit string (``"01 100"``), a (W,)
        ``uint64`` word array, or a 0/1 / bool sequence of ``n_bits`` entries.
        """
        if isinstance(a, Lattice):
            if len(a) != 1 or a.n_bits != self.n_bits:
                raise ValueError(f"expected one row of {self.n_bits} bits, got {len(a)} rows of {a.n_bits}")
            return a.words[0]
        if isinstance(a, str):
            digits = _parse_bit_string(a, self.n_bits, self.widths)
            bits = np.frombuffer(digits.encode("ascii"), dtype=np.uint8) == ord("1")
            return pack_bits(bits[None, :])[0]
        array = np.asarray(a)
        if array.dtype == np.uint64 and array.shape == (self.n_words,):
            return array
        if array.ndim != 1 or array.shape[0] != self.n_bits:
            raise ValueError(f"expected {self.n_bits} bits or {self.n_words} uint64 words, got shape {array.shape}")
        return pack_bits(array[None, :])[0]

    def elements(self, A: Any) -> np.ndarray:
        """Several lattice elements as an (m, W) word array (a Lattice, strings, or a 0/1 matrix)."""
        if isinstance(A, Lattice):
            if A.n_bits != self.n_bits:
                raise ValueError(f"elements have {A.n_bits} bits, this lattice {self.n_bits}")
            return A.words
        if isinstance(A, str):
            return self.element(A)[None, :]
        if not isinstance(A, np.ndarray) and all(isinstance(s, str) for s in A):
            return np.stack([self.element(s) for s in A]) if len(A) else np.zeros((0, self.n_words), np.uint64)
        array = np.asarray(A)
        if array.dtype == np.uint64 and array.ndim == 2 and array.shape[1] == self.n_words:
            return array
        if array.ndim != 2 or array.shape[1] != self.n_bits:
            raise ValueError(f"expected (m, {self.n_bits}) bits, got shape {array.shape}")
        return pack_bits(array)

    def leq(self, a: Any) -> np.ndarray:
        """``a <= x`` for every row ``x``: a bool array of ``len(self)`` (the rows ``a`` covers)."""
        element = self.element(a)
        return ~np.any(element & ~self.words, axis=1)

    def geq(self, a: Any) -> np.ndarray:
        """``x <= a`` for every row ``x``."""
        element = self.element(a)
        return ~np.any(self.words & ~element, axis=1)

    def leq_matrix(self, A: Any, max_bytes: int = DEFAULT_MAX_BYTES) -> np.ndarray:
        """Bool matrix (elements x rows): entry (i, j) is ``A[i] <= self[j]``.

        Elements are processed in blocks so that a temporary (block x rows) word array takes at
        most about ``max_bytes``; words where no element of the block has a bit set are skipped.
        """
        elements = self.elements(A)
        m, n = elements.shape[0], len(self)
        out = np.empty((m, n), dtype=bool)
        if m == 0 or n == 0:
            out[...] = True
            return out
        block = max(1, int(max_bytes) // (8 * n))
        complement = ~self.words  # (n, W)
        for first in range(0, m, block):
            chunk = elements[first:first + block]
            result = out[first:first + chunk.shape[0]]
            result[...] = True
            for w in np.flatnonzero(chunk.any(axis=0)):
                result &= (chunk[:, w, None] & complement[None, :, w]) == 0
        return out

    # ------------------------------------------------------------------ duplicates
    def unique_with_counts(self) -> tuple[Lattice, np.ndarray, np.ndarray]:
        """Distinct rows (sorted as bit strings), their multiplicities, and the inverse index.

        ``unique[inverse]`` rebuilds the rows; ``counts[k]`` is how many rows equal ``unique[k]``.
        """
        n, width = self.words.shape
        if n == 0:
            return self._like(self.words.copy()), np.zeros(0, np.int64), np.zeros(0, np.int64)
        if width == 0:
            return self._like(self.words[:1].copy()), np.array([n], np.int64), np.zeros(n, np.int64)
        # Sort the rows by their words (first word most significant: bit-string order), then cut runs;
        # much faster than np.unique(axis=0) on wide rows.
        order = np.lexsort(self.words.T[::-1])
        ordered = self.words[order]
        starts = np.flatnonzero(np.concatenate(([True], (ordered[1:] != ordered[:-1]).any(axis=1))))
        counts = np.diff(np.append(starts, n))
        values = ordered[starts]
        inverse = np.empty(n, dtype=np.int64)
        inverse[order] = np.repeat(np.arange(starts.size), counts)
        return (self._like(np.ascontiguousarray(values, dtype=np.uint64)),
                counts.astype(np.int64), np.asarray(inverse, dtype=np.int64).reshape(-1))


def leq(a: Any, X: Lattice) -> np.ndarray:
    """``a <= x`` for each row ``x`` of ``X`` (see :meth:`Lattice.leq`)."""
    return X.leq(a)


def leq_matrix(A: Any, X: Lattice, max_bytes: int = DEFAULT_MAX_BYTES) -> np.ndarray:
    """Elements x rows matrix of ``A[i] <= X[j]`` (see :meth:`Lattice.leq_matrix`)."""
    return X.leq_matrix(A, max_bytes=max_bytes)


# --------------------------------------------------------------------------- #
# one feature
# --------------------------------------------------------------------------- #
def _category_key(value: Any) -> tuple[str, str]:
    """Categories are ordered by their text (ties by type name)."""
    return (str(value), type(value).__name__)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _no_value_condition(layout: FeatureLayout, missing: bool) -> Condition:
    """A condition that no present value satisfies; a missing value satisfies it iff ``missing``.

    The shared Condition classes cannot be empty, so this is written with an empty open interval
    ``(0, 0)`` (numeric: prints ``f in (0, 0) or missing``) or with the category ``None``, which a
    present value never equals (categorical: prints ``f in {None} or missing``). Both evaluate
    exactly, serialise and round-trip with the existing ``to_dict``/``from_dict``.
    """
    if layout.categorical:
        return CategoricalCondition(layout.feature, (None,), missing=missing)
    return NumericCondition(layout.feature, (Interval(0.0, 0.0, False, False),), missing=missing)


@dataclass(frozen=True)
class FeatureLayout:
    """One feature's ordered bins and the range of bits ``[start, stop)`` they take.

    Bins in order: the value bins (numeric: ``[low, c_1), [c_1, c_2), ..., [c_{k-1}, high]``;
    categorical: the training categories sorted by text), then the missing bin if the training
    column had missing values.
    """

    feature: str
    categorical: bool
    start: int
    n_value_bins: int
    has_missing: bool
    categories: tuple[Any, ...] = ()
    cuts: tuple[float, ...] = ()
    low: float = -math.inf
    high: float = math.inf

    @property
    def n_bins(self) -> int:
        return self.n_value_bins + int(self.has_missing)

    @property
    def stop(self) -> int:
        return self.start + self.n_bins

    @property
    def missing_bin(self) -> int | None:
        """Index (within the feature) of the missing bin, or None."""
        return self.n_value_bins if self.has_missing else None

    @property
    def bins(self) -> Bins:
        """The numeric discretisation (:class:`optrules.discretize.Bins`)."""
        return Bins(self.cuts)

    def value_interval(self, first: int, last: int | None = None) -> Interval:
        """The interval of numeric value bins ``first..last`` merged (left-closed; closed at the top end)."""
        last = first if last is None else last
        if self.categorical or not 0 <= first <= last < self.n_value_bins:
            raise IndexError(f"no numeric value bins {first}..{last} in feature {self.feature!r}")
        low = self.low if first == 0 else self.cuts[first - 1]
        top = last == self.n_value_bins - 1
        high = self.high if top else self.cuts[last]
        return Interval(low, high, True, top)

    def labels(self) -> tuple[str, ...]:
        """Readable bin names: ``[min, 40)``, ``[40, max]``, categories, ``missing``."""
        if self.categorical:
            names = [str(c) for c in self.categories]
        else:
            names = [str(self.value_interval(j)) for j in range(self.n_value_bins)]
        return tuple(names + (["missing"] if self.has_missing else []))

    def codes(self, column: Any) -> np.ndarray:
        """Bin index of each value (int64); ``-1`` for a value in no bin (unseen category,
        missing without a missing bin, number outside explicit domain ends)."""
        if self.categorical:
            values = np.asarray(column, dtype=object)
            missing = np.asarray(pd.isna(values), dtype=bool).reshape(-1)
            index = pd.Index(list(self.categories), dtype=object)
            codes = np.asarray(index.get_indexer(values), dtype=np.int64)
            codes[missing] = -1
        else:
            values = _float_column(self.feature, column)
            missing = np.isnan(values)
            codes = self.bins.assign(values)
            codes[(values < self.low) | (values > self.high)] = -1
        if self.has_missing:
            codes[missing] = self.n_value_bins
        return codes

    def condition(self, allowed: Any) -> Condition | None:
        """The condition "the value falls in an allowed bin" (None when every bin is allowed).

        Adjacent allowed numeric bins merge into one interval (Example 3.4), non-adjacent ones give a
        union (``age in [35, 39), [56, 57)``); categorical bins give ``feature in {...}``; the
        missing bin sets ``missing=True``. Allowing no value bin gives a condition met only by
        missing values (if the missing bin is allowed) or by nothing (see :func:`_no_value_condition`).
        """
        allowed = np.asarray(allowed, dtype=bool)
        if allowed.shape != (self.n_bins,):
            raise ValueError(f"feature {self.feature!r} has {self.n_bins} bins, got {allowed.shape}")
        if allowed.all():
            return None
        missing = bool(self.has_missing and allowed[self.n_value_bins])
        values = allowed[:self.n_value_bins]
        if not values.any():
            return _no_value_condition(self, missing)
        if self.categorical:
            chosen = [self.categories[j] for j in np.flatnonzero(values)]
            return CategoricalCondition(self.feature, chosen, negated=False, missing=missing)
        edges = np.diff(np.concatenate(([0], values.astype(np.int8), [0])))
        firsts = np.flatnonzero(edges == 1)
        lasts = np.flatnonzero(edges == -1) - 1
        # value_interval(first, last) for every run of allowed bins, vectorised
        bounds = np.concatenate(([self.low], np.asarray(self.cuts, dtype=float), [self.high]))
        top = lasts == self.n_value_bins - 1
        return NumericCondition.from_bounds(self.feature, bounds[firsts], bounds[lasts + 1], True, top,
                                            missing=missing)


def _float_column(feature: str, column: Any) -> np.ndarray:
    array = np.asarray(column)
    if array.dtype.kind in "fiub":
        return array.astype(float, copy=False).reshape(-1)
    try:
        return np.asarray(pd.to_numeric(pd.Series(np.asarray(array, dtype=object)), errors="raise"),
                          dtype=float)
    except (ValueError, TypeError) as error:
        raise ValueError(f"numeric feature {feature!r} has non-numeric values: {error}") from None


# --------------------------------------------------------------------------- #
# the fitted binning
# --------------------------------------------------------------------------- #
class FeatureBinning:
    """Fitted bins of every feature, the (inverse) one-hot encodings, and decoding to conditions.

    Parameters
    ----------
    bins:
        Optional cut points per numeric feature name: a :class:`~optrules.discretize.Bins` or a
        sequence of increasing cuts. Numeric features not listed are discretised at ``fit`` with
        ``discretize(values, y, method, **params)``.
    method, **params:
        The discretiser for unlisted numeric features (``"chimerge"`` needs ``y``;
        ``"equal_frequency"`` takes ``n_bins``).
    domain:
        Optional explicit ``(low, high)`` ends per numeric feature (default ``(-inf, inf)``, printed
        ``min``/``max``). With ``{"f1": (0, 100)}`` the first bin is ``[0, c_1)`` and the last
        ``[c_{k-1}, 100]`` as in Example 3.1; values outside fall in no bin.

    After :meth:`fit`: ``features_``, ``schema_``, ``layout_`` (a :class:`FeatureLayout` per
    feature, bits in feature order), ``n_bits``, ``widths``.

    ``fit`` takes optional sample ``weights`` (one non-negative float per row): the discretiser
    counts a row by its weight (ChiMerge's weighted class counts, weighted quantiles), and a row
    of weight 0 is not part of the fit at all (its category, its missing value, its value outside
    the domain make no bin), so an integer weight acts as that many copies of the row.
    """

    def __init__(self, bins: Mapping[str, Bins | Sequence[float]] | None = None, *,
                 method: str = "chimerge", domain: Mapping[str, tuple[float, float]] | None = None,
                 **params: Any) -> None:
        self.bins = dict(bins or {})
        self.method = method
        self.domain = dict(domain or {})
        self.params = params

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any = None, categorical: Sequence[int] | Sequence[str] | None = None,
            feature_names: Sequence[str] | None = None, weights: Any = None) -> FeatureBinning:
        """Learn the bins of each feature of X (validated with :func:`optrules.data.validate_features`),
        its rows weighing ``weights`` (None: 1 each; see the class docstring)."""
        frame, schema = validate_features(X, categorical=categorical, feature_names=feature_names)
        if y is not None:
            y = np.asarray(y, dtype=object).reshape(-1)
            if y.shape[0] != len(frame):
                raise ValueError(f"X has {len(frame)} samples but y has {y.shape[0]} labels")
        live: np.ndarray | None = None  # the rows of positive weight (None: every row)
        if weights is not None:
            weights = np.asarray(weights, dtype=float)
            if weights.shape != (len(frame),):
                raise ValueError(f"X has {len(frame)} samples but weights has shape {weights.shape}")
            live = weights > 0
        unknown = sorted((set(self.bins) | set(self.domain)) - set(schema.features))
        if unknown:
            raise ValueError(f"bins/domain given for unknown feature(s) {unknown}")
        wrong = sorted((set(self.bins) | set(self.domain)) & set(schema.categorical_features))
        if wrong:
            raise ValueError(f"bins/domain apply to numeric features; {wrong} are categorical")
        learned = self._discretize(frame, schema, y, weights, live)
        layouts: list[FeatureLayout] = []
        start = 0
        for feature, is_categorical in zip(schema.features, schema.categorical):
            column = frame[feature].to_numpy()
            if is_categorical:
                layout = self._fit_categorical(feature, column if live is None else column[live], start)
            else:
                layout = self._fit_numeric(feature, column.astype(float), learned.get(feature), live, start)
            layouts.append(layout)
            start = layout.stop
        self.schema_: Schema = schema
        self.features_: tuple[str, ...] = schema.features
        self.layout_: tuple[FeatureLayout, ...] = tuple(layouts)
        starts = np.array([lay.start for lay in layouts], dtype=np.int64)
        self._starts = starts
        self._bit_feature = np.repeat(np.arange(len(layouts)), [lay.n_bins for lay in layouts])
        return self

    def _fit_categorical(self, feature: str, column: np.ndarray, start: int) -> FeatureLayout:
        """One bin per category of ``column`` (the rows of positive weight), one more if any is missing."""
        missing = np.asarray(pd.isna(column), dtype=bool)
        present = pd.unique(pd.Series(column[~missing], dtype=object))
        categories = tuple(sorted((_plain(v) for v in present), key=_category_key))
        return FeatureLayout(feature, True, start, len(categories), bool(missing.any()),
                             categories=categories)

    def _discretize(self, frame: pd.DataFrame, schema: Schema, y: np.ndarray | None,
                    weights: np.ndarray | None, live: np.ndarray | None) -> dict[str, Bins]:
        """The learnt bins of the numeric features without given cuts and with a non-missing value
        on a ``live`` row (positive weight; None: all rows): ``discretize`` on all rows, weighing
        ``weights``.

        The features are discretised in parallel threads, one feature per task (the ChiMerge kernel
        holds no lock); each feature's bins do not depend on the others, so neither on the threads.
        The labels are coded once for all features, as a categorical whose codes number the labels
        in order of first appearance, as ``chimerge`` numbers them (missing labels stay missing).
        """
        todo = [f for f, is_categorical in zip(schema.features, schema.categorical)
                if not is_categorical and f not in self.bins]
        if y is not None and todo:
            codes, distinct = pd.factorize(y)
            y = pd.Categorical.from_codes(codes, categories=pd.RangeIndex(len(distinct)))

        def learn(feature: str) -> Bins | None:
            values = frame[feature].to_numpy().astype(float)
            kept = values if live is None else values[live]
            if np.isnan(kept).all():
                return None
            return discretize(values, y, self.method, weights=weights, **self.params)

        workers = min(len(todo), os.cpu_count() or 1)
        if workers <= 1:
            found = [learn(feature) for feature in todo]
        else:
            with ThreadPoolExecutor(workers) as pool:
                found = list(pool.map(learn, todo))
        return {feature: bins for feature, bins in zip(todo, found) if bins is not None}

    def _fit_numeric(self, feature: str, values: np.ndarray, learned: Bins | None, live: np.ndarray | None,
                     start: int) -> FeatureLayout:
        """The given or ``learned`` bins of ``values`` (a single bin when neither: every live value
        is missing); the missing bin and the domain check look at the ``live`` rows (positive weight;
        None: all) only."""
        kept = values if live is None else values[live]
        missing = np.isnan(kept)
        given = self.bins.get(feature)
        if given is not None:
            bins = given if isinstance(given, Bins) else Bins(tuple(float(c) for c in given))
        else:
            bins = Bins(()) if learned is None else learned
        low, high = (float(v) for v in self.domain.get(feature, (-math.inf, math.inf)))
        if math.isnan(low) or math.isnan(high) or low > high:
            raise ValueError(f"domain of {feature!r} must be low <= high, got ({low}, {high})")
        if bins.cuts and not low < bins.cuts[0] <= bins.cuts[-1] < high:
            raise ValueError(f"cuts {list(bins.cuts)} of {feature!r} must lie strictly inside its "
                             f"domain ({low}, {high})")
        present = kept[~missing]
        if present.size and (present.min() < low or present.max() > high):
            raise ValueError(f"training values of {feature!r} fall outside its domain [{low}, {high}]")
        return FeatureLayout(feature, False, start, bins.n_bins, bool(missing.any()),
                             cuts=bins.cuts, low=low, high=high)

    def fit_transform(self, X: Any, y: Any = None, **kwargs: Any) -> Lattice:
        return self.fit(X, y, **kwargs).transform(X)

    # ------------------------------------------------------------------ layout
    def _check_fitted(self) -> None:
        if not hasattr(self, "layout_"):
            raise RuntimeError("this FeatureBinning is not fitted yet; call fit(X, y) first")

    @property
    def n_bits(self) -> int:
        """Total number of bins = bits of the encodings."""
        self._check_fitted()
        return self.layout_[-1].stop if self.layout_ else 0

    @property
    def widths(self) -> tuple[int, ...]:
        """Bits per feature, in feature order."""
        self._check_fitted()
        return tuple(lay.n_bins for lay in self.layout_)

    def layout(self, feature: str) -> FeatureLayout:
        """The :class:`FeatureLayout` of one feature by name."""
        self._check_fitted()
        for lay in self.layout_:
            if lay.feature == feature:
                return lay
        raise KeyError(f"unknown feature {feature!r}")

    def bit_labels(self) -> list[str]:
        """One readable name per bit: ``"f1 [min, 40)"``, ``"color red"``, ``"f1 missing"``."""
        self._check_fitted()
        return [f"{lay.feature} {label}" for lay in self.layout_ for label in lay.labels()]

    # ------------------------------------------------------------------ encode
    def _columns(self, X: Any) -> list[np.ndarray]:
        """The fitted features' columns of X: by name for a DataFrame, by position for an array."""
        if isinstance(X, pd.DataFrame):
            names = [str(c) for c in X.columns]
            absent = [f for f in self.features_ if f not in names]
            if absent:
                raise ValueError(f"X lacks feature column(s) {absent}")
            position = {name: i for i, name in enumerate(names)}
            return [X.iloc[:, position[f]].to_numpy() for f in self.features_]
        array = np.asarray(X, dtype=object)
        if array.ndim != 2 or array.shape[1] != len(self.features_):
            raise ValueError(f"X must be a 2-d array with {len(self.features_)} columns "
                             f"{list(self.features_)}, got shape {array.shape}")
        return [array[:, k] for k in range(array.shape[1])]

    def bin_index(self, X: Any) -> np.ndarray:
        """(n, n_features) int64 matrix: each sample's bin within each feature, ``-1`` for no bin."""
        self._check_fitted()
        columns = self._columns(X)
        n = len(columns[0]) if columns else 0
        out = np.empty((n, len(self.layout_)), dtype=np.int64)
        for k, (lay, column) in enumerate(zip(self.layout_, columns)):
            out[:, k] = lay.codes(column)
        return out

    def one_hot(self, X: Any) -> np.ndarray:
        """(n, n_bits) bool matrix: column j is "the sample falls in bin j" (no bin: all False)."""
        codes = self.bin_index(X)
        out = np.zeros((codes.shape[0], self.n_bits), dtype=bool)
        rows, feats = np.nonzero(codes >= 0)
        out[rows, self._starts[feats] + codes[rows, feats]] = True
        return out

    def inverse_one_hot(self, X: Any) -> np.ndarray:
        """(n, n_bits) bool matrix of the LIBRE inverse one-hot encoding (Section 3, Example 3.1).

        Each feature's bits are 1 except a 0 at the sample's bin; a value in no bin has all the
        feature's bits at 0.
        """
        codes = self.bin_index(X)
        out = np.ones((codes.shape[0], self.n_bits), dtype=bool)
        rows, feats = np.nonzero(codes >= 0)
        out[rows, self._starts[feats] + codes[rows, feats]] = False
        if rows.size != codes.size:  # some value is in no bin: zero its feature's bits
            out &= (codes >= 0)[:, self._bit_feature]
        return out

    def transform(self, X: Any) -> Lattice:
        """The inverse one-hot encoding of X as a packed :class:`Lattice`."""
        return Lattice.from_bools(self.inverse_one_hot(X), self.widths, self.features_)

    @property
    def starts(self) -> np.ndarray:
        """First bit of each feature's block, in feature order (int64)."""
        self._check_fitted()
        return self._starts.copy()

    def n_conditions(self, elements: Any) -> np.ndarray:
        """Number of conditions of each element's rule (``len(decode(a))``, without decoding): the
        features whose block holds a one. ``elements`` is a (k, n_bits) bool matrix."""
        self._check_fitted()
        elements = np.asarray(elements, dtype=bool)
        if elements.ndim != 2 or elements.shape[1] != self.n_bits:
            raise ValueError(f"elements must be (k, {self.n_bits}) bool, got shape {elements.shape}")
        ones = np.zeros((elements.shape[0], self.n_bits + 1), dtype=np.int64)
        np.cumsum(elements, axis=1, out=ones[:, 1:])
        stops = np.array([lay.stop for lay in self.layout_], dtype=np.int64)
        return ((ones[:, stops] - ones[:, self._starts]) > 0).sum(axis=1)

    def coverage(self, elements: Any, codes: Any) -> np.ndarray:
        """(k, n) bool: element ``j`` covers sample ``i`` (``elements[j] <= inverse_one_hot(X)[i]``).

        ``elements`` is a (k, n_bits) bool matrix, ``codes`` the samples' :meth:`bin_index`. Equal to
        ``self.transform(X).leq_matrix(elements)`` without encoding the samples: an element covers a
        sample when, in every feature, the sample's bin is one of the element's zeros (a sample in no
        bin has an all-zero block, covered only by elements with no one in that feature).

        The elements go 64 at a time, one bit each in a word per sample. Per feature a table over
        its bins holds the bits of the elements that have a 0 at the bin (its first row, for a
        sample in no bin: those with no one in the feature), and one lookup per sample ANDs it in:
        ``O(n x features)`` work per 64 elements, whatever the elements' ones.
        """
        self._check_fitted()
        elements = np.asarray(elements, dtype=bool)
        codes = np.asarray(codes, dtype=np.int64)
        if elements.ndim != 2 or elements.shape[1] != self.n_bits:
            raise ValueError(f"elements must be (k, {self.n_bits}) bool, got shape {elements.shape}")
        if codes.ndim != 2 or codes.shape[1] != len(self.layout_):
            raise ValueError(f"codes must be (n, {len(self.layout_)}), got shape {codes.shape}")
        out = np.empty((elements.shape[0], codes.shape[0]), dtype=bool)
        for first in range(0, elements.shape[0], 64):
            block = elements[first:first + 64]
            allowed = np.zeros((64, self.n_bits), dtype=bool)  # rows past the block: bits never read
            allowed[:block.shape[0]] = ~block
            holds = np.full(codes.shape[0], np.iinfo(np.uint64).max, dtype="<u8")
            for f, lay in enumerate(self.layout_):
                feature = allowed[:, lay.start:lay.stop]
                table = np.empty(lay.n_bins + 1, dtype="<u8")
                table[0] = np.packbits(feature.all(axis=1), bitorder="little").view("<u8")[0]
                table[1:] = np.ascontiguousarray(np.packbits(feature, axis=0, bitorder="little").T).view("<u8")[:, 0]
                holds &= table[codes[:, f] + 1]
            for j in range(block.shape[0]):
                np.not_equal(holds & np.uint64(1 << j), 0, out=out[first + j])
        return out

    def lattice(self, elements: str | Iterable[str] | Any) -> Lattice:
        """Lattice elements with this layout, from bit strings or a 0/1 matrix."""
        self._check_fitted()
        if isinstance(elements, str) or (not isinstance(elements, np.ndarray)
                                         and all(isinstance(e, str) for e in elements)):
            return Lattice.from_strings(elements, self.widths, self.features_)
        return Lattice.from_bools(elements, self.widths, self.features_)

    # ------------------------------------------------------------------ decode
    def _element_bits(self, a: Any) -> np.ndarray:
        empty = Lattice(np.zeros((0, n_words(self.n_bits)), np.uint64), self.n_bits, self.widths)
        return unpack_bits(empty.element(a)[None, :], self.n_bits)[0]

    def decode(self, a: Any) -> tuple[Condition, ...]:
        """The conditions of lattice element ``a`` ("From Boundary Set To Rules", Example 3.4).

        ``a`` is a bit string (``"01 100"``), a one-row :class:`Lattice`, a bool/0-1 vector of
        ``n_bits`` entries or a (W,) ``uint64`` word vector. For each feature the zeros of ``a`` are
        the allowed bins; a feature whose bits are all 0 gets no condition. The rule covers ``x``
        exactly when ``a <= encode(x)``.
        """
        self._check_fitted()
        bits = self._element_bits(a)
        conditions = []
        for lay in self.layout_:
            condition = lay.condition(~bits[lay.start:lay.stop])
            if condition is not None:
                conditions.append(condition)
        return tuple(conditions)

    def to_rule(self, a: Any, prediction: Hashable, weight: float | None = None,
                n_positive: int | None = None, n_negative: int | None = None) -> Rule:
        """``Rule(decode(a), prediction, ...)``."""
        return Rule(self.decode(a), prediction, weight, n_positive, n_negative)

    def to_rules(self, A: Lattice | Iterable[str], prediction: Hashable) -> tuple[Rule, ...]:
        """One rule per element of ``A`` (a Lattice or bit strings), all predicting ``prediction``."""
        lattice = A if isinstance(A, Lattice) else self.lattice(list(A))
        return tuple(self.to_rule(row, prediction) for row in lattice.to_bools())
