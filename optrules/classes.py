"""The default positive class of a binary task: the minority class.

One rule for the whole package (estimators, the experiment runner, the command line): the class with
the fewest samples; among classes tied on that count, the last in the classes' sorted order. Pure
Python, so that ``optrules datasets`` can name it from the manifest's counts without loading data.
"""

from __future__ import annotations

from typing import Hashable, Mapping, Sequence

__all__ = ["minority_class"]


def minority_class(counts: Mapping[Hashable, int | float], classes: Sequence[Hashable] | None = None) -> Hashable:
    """The class of ``counts`` (class -> number of samples) with the fewest samples, ties going to the
    last of ``classes`` (the classes in sorted order; default ``sorted(counts)``)."""
    order = list(classes) if classes is not None else sorted(counts)
    if not order:
        raise ValueError("there is no class to choose a positive class from")
    fewest = min(counts.get(c, 0) for c in order)
    return [c for c in order if counts.get(c, 0) == fewest][-1]
