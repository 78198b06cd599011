"""Silencing solver output: solvers write to the process's file descriptors (highspy prints a banner
on the first ``Highs()`` of a process even with logging off), so output is captured at the
descriptor level. Two threads cannot capture at once, which is why ``optrules.solvers.solve`` runs
one solve at a time per process."""

from __future__ import annotations

import contextlib
from typing import Iterator

__all__ = ["silenced"]


@contextlib.contextmanager
def silenced(verbose: bool = False) -> Iterator[None]:
    """Swallow everything written to stdout and stderr inside the block, unless ``verbose``."""
    if verbose:
        yield
        return
    from pyomo.common.tee import capture_output

    with capture_output(capture_fd=True):
        yield
