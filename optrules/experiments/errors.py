"""The error an experiment raises when a fit fails (the runner and its tune step both raise it)."""

from __future__ import annotations

__all__ = ["FitError"]


class FitError(RuntimeError):
    """A fit that failed inside an experiment; the message names the dataset, method and fold."""
