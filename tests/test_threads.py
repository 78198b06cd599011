"""one_blas_thread: the process's BLAS limit while fits run, restored when the last one ends."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info

from optrules.threads import _controller, one_blas_thread


def _blas_threads() -> set[int]:
    """The thread counts of the BLAS libraries the limit holds, numpy's and scipy's (a library another
    package loads later, such as SCS's, is not among them)."""
    limited = {library["filepath"] for library in _controller().info() if library["user_api"] == "blas"}
    return {library["num_threads"] for library in threadpool_info() if library["filepath"] in limited}


def test_overlapping_blocks_share_the_limit_and_the_last_to_leave_restores_the_threads():
    """Two fits that overlap without nesting (in two threads: the first ends while the second runs):
    each block used to restore what it found on entering, so the first gave the second's fit its
    threads back and the second, having found the first's limit, left BLAS at one thread for the rest
    of the process (review: 2 threads before 8 fits on 4 threads, 1 after). Entered and left by hand in
    that order here, in one thread: OpenBLAS's thread counts are not all global across threads."""
    np.ones((2, 2)) @ np.ones((2, 2))  # numpy's BLAS loaded
    initial = _blas_threads()
    first, second = one_blas_thread(), one_blas_thread()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert _blas_threads() == {1}  # the second fit still runs in one thread
    second.__exit__(None, None, None)
    assert _blas_threads() == initial
    with one_blas_thread():
        with one_blas_thread():
            assert _blas_threads() == {1}
        assert _blas_threads() == {1}  # the outer block still holds the limit
    assert _blas_threads() == initial
