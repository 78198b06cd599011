"""Compiled kernel of LIBRE's weighted candidate filter (:func:`optrules.learners.libre.rank_boundary`):
the weight of the positive and of the negative samples each boundary point covers.

Built ahead of time when the package is installed (``setup.py``); the loop runs without the GIL.
"""

from libc.stdint cimport uint8_t

import numpy as np

__all__ = ["covered_weights"]


def covered_weights(coverage, is_positive, weights):
    """Per point (row of the (points x samples) bool ``coverage``) the weight of the positive and of
    the negative samples it covers, summed in sample order (exact for integer weights below 2**53).
    Returns two ``float64`` arrays."""
    cdef const uint8_t[:, ::1] covers = np.ascontiguousarray(coverage, dtype=np.bool_).view(np.uint8)
    cdef const uint8_t[::1] positive = np.ascontiguousarray(is_positive, dtype=np.bool_).view(np.uint8)
    cdef const double[::1] weight = np.ascontiguousarray(weights, dtype=np.float64)
    cdef Py_ssize_t n_points = covers.shape[0], n_samples = covers.shape[1], p, s
    cdef double covered_pos, covered_neg
    pos = np.zeros(n_points)
    neg = np.zeros(n_points)
    cdef double[::1] pos_out = pos, neg_out = neg
    with nogil:
        for p in range(n_points):
            covered_pos, covered_neg = 0.0, 0.0
            for s in range(n_samples):
                if covers[p, s]:
                    if positive[s]:
                        covered_pos += weight[s]
                    else:
                        covered_neg += weight[s]
            pos_out[p], neg_out[p] = covered_pos, covered_neg
    return pos, neg
