"""Synthetic data with a known answer, shared by the benchmarks.

:func:`hidden_rule_data`: ``features`` numeric features, uniform on [0, 1); the label is the 3-term DNF

    (x0 > 0.5 AND x1 > 0.5) OR (x2 <= 0.3 AND x3 > 0.7) OR (x4 > 0.8),

each label flipped with probability ``noise`` (so the Bayes-optimal accuracy is 1 - noise). The rows
are drawn from ``numpy.random.default_rng(seed)``: different seeds give independent samples of the
same distribution, e.g. a training set (seed 0) and a fresh test set (seed 1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

POSITIVE = "pos"


def hidden_rule_data(rows: int, features: int = 10, noise: float = 0.0,
                     seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """``rows`` samples: a DataFrame of columns x0..x{features-1} and labels ``"pos"`` / ``"neg"``."""
    if features < 5:
        raise ValueError(f"the hidden rule reads x0..x4: features must be >= 5, got {features}")
    rng = np.random.default_rng(seed)
    X = rng.random((rows, features))
    label = ((X[:, 0] > 0.5) & (X[:, 1] > 0.5)) | ((X[:, 2] <= 0.3) & (X[:, 3] > 0.7)) | (X[:, 4] > 0.8)
    label ^= rng.random(rows) < noise
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(features)]), np.where(label, POSITIVE, "neg")
