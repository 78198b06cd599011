"""Silencing solver output: solvers write to the process's file descriptors (highspy prints a banner
on the first ``Highs()`` of a process even with logging off), so output is swallowed at the
descriptor level: file descriptors 1 and 2 point at the null device inside the block, and Python's
``sys.stdout`` / ``sys.stderr`` at a null text stream. Two threads cannot do this at once, which is
why ``optrules.solvers.solve`` runs one solve at a time per process. (Pyomo's ``capture_output``
does the same with a capturing thread and cost about 1 ms per solve, measured: as much as loading
a 760-row set cover.)"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from typing import Any, Iterator

__all__ = ["silenced"]


@contextlib.contextmanager
def silenced(verbose: bool = False) -> Iterator[None]:
    """Swallow everything written to stdout and stderr inside the block, unless ``verbose``."""
    if verbose:
        yield
        return
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    saved = [os.dup(1), os.dup(2)]
    null_fd = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null_fd, 1)
        os.dup2(null_fd, 2)
        with open(os.devnull, "w") as null_text, contextlib.redirect_stdout(null_text), \
                contextlib.redirect_stderr(null_text):
            yield
    finally:
        # C++ solvers buffer through stdio: what they wrote is flushed while fd 1 is still the null device
        _flush_c_stdio()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null_fd):
            os.close(fd)


def _flush_c_stdio() -> None:
    """``fflush(NULL)``: flush every C stdio stream of the process (the solvers' printf output)."""
    libc = _c_library()
    if libc is not None:
        libc.fflush(None)


@functools.cache
def _c_library() -> Any:
    import ctypes

    try:
        return ctypes.CDLL(None)
    except OSError:  # no C library to ask: nothing buffered through it
        return None
