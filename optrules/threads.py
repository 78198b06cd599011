"""numpy's BLAS held to one thread for a block of work, whatever the environment sets.

Two reasons, both measured. Reproducibility: a floating-point product's last bits depend on how
many BLAS threads share it, and where such products decide between near ties (the set cover's cut
separation) a serial run and a parallel one (one thread per worker) returned different optimal rule
sets. Speed on a busy machine: BLAS threads waiting for a core made the column generation's small
products 30 times slower (docs/methods/column_generation.md).
"""

from __future__ import annotations

import functools
import importlib
from contextlib import AbstractContextManager
from typing import Any

__all__ = ["one_blas_thread"]


@functools.cache
def _controller() -> Any:
    """threadpoolctl's view of the BLAS libraries loaded (numpy's and scipy's, loaded on import): made
    once, since finding them costs about 4 ms and limiting them then 0.06 ms."""
    from threadpoolctl import ThreadpoolController

    for module in ("numpy", "scipy.linalg"):  # their BLAS libraries loaded before the libraries are listed
        importlib.import_module(module)

    return ThreadpoolController()


def one_blas_thread() -> AbstractContextManager[Any]:
    """A context in which every BLAS library loaded uses one thread (restored on leaving)."""
    return _controller().limit(limits=1, user_api="blas")
