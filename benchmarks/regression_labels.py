"""Two-class labels from a numeric target: the top quarter of its values against the rest.

The dataset writers (``benchmarks/orange_datasets.py``, ``benchmarks/sklearn_datasets.py``) turn
regression datasets into classification ones this way for the second confirmation round of
docs/methods/libre.md: a row is ``"high"`` when its target is at least the target's 75th percentile
over the whole dataset (pandas' linear interpolation), ``"rest"`` otherwise. Rows without a target are
dropped. The threshold is a definition of the label, fixed before any fit, not learned from a fold.
"""

from __future__ import annotations

import pandas as pd

HIGH, REST = "high", "rest"


def top_quarter(target: pd.Series) -> pd.Series:
    """``"high"`` where ``target >= target.quantile(0.75)``, else ``"rest"``; missing targets stay missing
    (the caller drops those rows). ``target`` may hold numbers as text, as an Orange ``.tab`` file does."""
    values = pd.to_numeric(target.replace("", None), errors="raise")
    labels = pd.Series(REST, index=target.index, dtype=object)
    labels[values >= values.quantile(0.75)] = HIGH
    labels[values.isna()] = None
    return labels
