"""Sample weights: the one check every weighted fit, model and kernel puts its weights through.

A weight is a finite number >= 0 that counts as that many copies of its row (weight 0: the row
is left out); a fit refuses weights that are all zero, since they leave nothing to fit, and an
estimator's fit weights that sum to more than :data:`MAX_TOTAL_WEIGHT` rows.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["MAX_TOTAL_WEIGHT", "validate_sample_weight"]

#: The largest total weight an estimator's fit takes: 2**53 rows, beyond which counts are not exact in
#: float64 (uniform weights of 1e154 made ChiMerge's squared counts overflow: every learner found no rule).
MAX_TOTAL_WEIGHT = float(2 ** 53)


def validate_sample_weight(sample_weight: Any, n_samples: int, name: str = "sample_weight", *,
                           zero_sum: bool = False, capped: bool = False) -> np.ndarray:
    """One float64 weight per sample (a new array, never the caller's).

    ``None`` gives ones; a scalar number gives that weight to every sample; otherwise a 1-d
    array-like of ``n_samples`` real numbers. Raises ``ValueError`` naming ``name`` and the problem:
    not 1-d, wrong length, booleans, complex or non-numeric values, NaN or infinite values,
    negative values, or weights that are all zero (unless ``zero_sum``: a search kernel may be handed
    rows that all weigh 0, e.g. the rows a decision list leaves, and then finds nothing to cover), or
    (``capped``, as an estimator's fit asks) weights that sum to more than :data:`MAX_TOTAL_WEIGHT`
    (the kernels take any finite weights, whose sums they keep exact).
    """
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    try:
        values = np.asarray(sample_weight)
    except ValueError:  # ragged nested sequences
        raise ValueError(f"{name} must be a 1-d array of numbers, one per sample") from None
    if values.ndim > 1:
        raise ValueError(f"{name} must be 1-dimensional (one weight per sample), got shape {values.shape}")
    if values.ndim == 1 and values.shape[0] != n_samples:
        raise ValueError(f"{name} has {values.shape[0]} values for {n_samples} samples")
    weights = np.broadcast_to(_as_float(values, name), (n_samples,)).copy()
    n_nan = int(np.isnan(weights).sum())
    if n_nan:
        raise ValueError(f"{name} contains {n_nan} NaN (missing) value(s); give every sample a weight")
    n_inf = int(np.isinf(weights).sum())
    if n_inf:
        raise ValueError(f"{name} contains {n_inf} infinite value(s); weights must be finite")
    negative = weights[weights < 0]
    if negative.size:
        raise ValueError(f"{name} contains {negative.size} negative value(s) (e.g. {float(negative[0])!r}); "
                         "weights must be >= 0")
    if capped and weights.sum() > MAX_TOTAL_WEIGHT:
        raise ValueError(f"{name} sums to {weights.sum():.3g}: weights count as rows, and beyond 2**53 rows "
                         "counts are no longer exact in floating point; rescale them, e.g. to mean 1")
    if not zero_sum and weights.sum() == 0:
        raise ValueError(f"{name} sums to 0 (every weight is zero); at least one sample needs a positive weight")
    return weights


def _as_float(values: np.ndarray, name: str) -> np.ndarray:
    """The weights as float64 (missing values as NaN); ``ValueError`` for booleans, complex and non-numbers."""
    kind = values.dtype.kind
    items = values.ravel().tolist() if kind == "O" else []
    if kind == "b" or any(isinstance(v, (bool, np.bool_)) for v in items):
        raise ValueError(f"{name} must be numbers, got booleans")
    if kind == "c" or any(isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real) for v in items):
        raise ValueError(f"{name} must be real numbers, got complex values")
    if kind in "iuf":
        return values.astype(np.float64)
    if kind != "O":
        raise ValueError(f"{name} must be numbers, got values of dtype {values.dtype}")
    others = [v for v in items if not isinstance(v, numbers.Real) and not pd.isna(v)]
    if others:
        raise ValueError(f"{name} must be numbers, got non-numeric value(s) e.g. {others[0]!r}")
    return np.array([np.nan if pd.isna(v) else float(v) for v in items], dtype=np.float64).reshape(values.shape)
