"""one_blas_thread: the process's BLAS limit while fits run, restored when the last one ends."""

from __future__ import annotations

import threading

import numpy as np
from threadpoolctl import threadpool_info

from optrules.threads import _controller, one_blas_thread


def _blas_threads() -> set[int]:
    """The thread counts of the BLAS libraries the limit holds, numpy's and scipy's (a library another
    package loads later, such as SCS's, is not among them)."""
    limited = {library["filepath"] for library in _controller().info() if library["user_api"] == "blas"}
    return {library["num_threads"] for library in threadpool_info() if library["filepath"] in limited}


def test_overlapping_blocks_share_the_limit_and_the_last_to_leave_restores_the_threads():
    """A fit in a worker thread, then one in the main thread that ends last: each block used to restore
    what it found on entering, so the second, having found the first's limit, left BLAS at one thread
    for the rest of the process (review: 2 threads before 8 fits on 4 threads, 1 after). The last block
    to leave here is the main thread's: OpenBLAS takes a raised thread count from the main thread."""
    np.ones((2, 2)) @ np.ones((2, 2))  # numpy's BLAS loaded
    initial = _blas_threads()
    worker_inside, main_inside, worker_left = (threading.Event() for _ in range(3))

    def worker_fit() -> None:
        with one_blas_thread():
            worker_inside.set()
            main_inside.wait(5)
        worker_left.set()

    worker = threading.Thread(target=worker_fit)
    worker.start()
    worker_inside.wait(5)
    with one_blas_thread():
        main_inside.set()
        worker_left.wait(5)
        assert _blas_threads() == {1}  # the worker left, the main thread's fit still runs in one thread
    worker.join()
    assert _blas_threads() == initial
    with one_blas_thread():
        with one_blas_thread():
            assert _blas_threads() == {1}
        assert _blas_threads() == {1}  # the outer block still holds the limit
    assert _blas_threads() == initial
