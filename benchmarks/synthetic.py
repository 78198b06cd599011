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


#: The four letters of :func:`sequence_data`'s positions (a DNA-like alphabet, as UCI splice's).
LETTERS = ("A", "C", "G", "T")


def sequence_data(rows: int, features: int = 60, noise: float = 0.1,
                  seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """``rows`` sequences of ``features`` nominal positions p0..p{features-1}, each a letter of
    :data:`LETTERS` drawn uniformly; the label is ``"pos"`` when the middle two positions read "GT"
    (a splice-site-like motif) or position 0 is "A" and position 1 is "C", each label flipped with
    probability ``noise``. Every column is categorical (four categories), as in UCI splice."""
    if features < 4:
        raise ValueError(f"the motif reads four positions: features must be >= 4, got {features}")
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, len(LETTERS), size=(rows, features))
    letters = np.asarray(LETTERS)[codes]
    middle = features // 2
    label = ((letters[:, middle - 1] == "G") & (letters[:, middle] == "T")) | (
        (letters[:, 0] == "A") & (letters[:, 1] == "C"))
    label ^= rng.random(rows) < noise
    frame = pd.DataFrame({f"p{j}": pd.Categorical(letters[:, j], categories=LETTERS) for j in range(features)})
    return frame, np.where(label, POSITIVE, "neg")
