"""numpy's BLAS held to one thread for a block of work, whatever the environment sets.

Two reasons, both measured. Reproducibility: a floating-point product's last bits depend on how
many BLAS threads share it, and where such products decide between near ties (the set cover's cut
separation) a serial run and a parallel one (one thread per worker) returned different optimal rule
sets. Speed on a busy machine: BLAS threads waiting for a core made the column generation's small
products 30 times slower (docs/methods/column_generation.md).

The limit is the process's: blocks that overlap (fits in several threads, or one inside another)
share it, the first to enter sets it and the last to leave restores what was there before. OpenBLAS
(0.3.30 and 0.3.31 measured) does not always take a thread count set from a thread other than the
main one: once the main thread has set one, it ignored another thread's. Fits run in threads of a
process whose main thread changed BLAS's threads may therefore run with those threads.
"""

from __future__ import annotations

import functools
import importlib
import threading
from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["one_blas_thread"]


@functools.cache
def _controller() -> Any:
    """threadpoolctl's view of the BLAS libraries of numpy and scipy (loaded here first): made once,
    since finding the libraries costs about 4 ms and limiting them then 0.06 ms. A BLAS library that
    another package loads later is not among them."""
    from threadpoolctl import ThreadpoolController

    for module in ("numpy", "scipy.linalg"):  # their BLAS libraries loaded before the libraries are listed
        importlib.import_module(module)
    return ThreadpoolController()


class _SharedLimit:
    """The one-thread limit, counted: set by the first block to enter, restored by the last to leave."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = 0
        self._limiter: Any = None

    def enter(self) -> None:
        with self._lock:
            if self._inside == 0:
                self._limiter = _controller().limit(limits=1, user_api="blas")
            self._inside += 1

    def leave(self) -> None:
        with self._lock:
            self._inside -= 1
            if self._inside == 0:
                self._limiter.restore_original_limits()
                self._limiter = None


_LIMIT = _SharedLimit()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """A block in which numpy's and scipy's BLAS libraries use one thread (restored when the last
    overlapping block leaves)."""
    _LIMIT.enter()
    try:
        yield
    finally:
        _LIMIT.leave()
