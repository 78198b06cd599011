"""Tests of optrules.search_kernel: the sorted search against np.searchsorted."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from optrules.search_kernel import sorted_positions

#: Values that sit on ends, at the infinities, on both zeros, and NaN (NumPy sorts NaN last).
POOL = [-np.inf, -2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, np.inf, np.nan]


@settings(derandomize=True, deadline=None, max_examples=300)
@given(st.lists(st.sampled_from(POOL[:-1]) | st.floats(-5, 5), max_size=40),
       st.lists(st.sampled_from(POOL) | st.floats(-5, 5), max_size=40), st.booleans())
def test_sorted_positions_equal_numpy_searchsorted(ends, values, right):
    # duplicated ends, lengths on both sides of the eight values searched side by side
    ends = np.sort(np.array(ends, dtype=np.float64))
    values = np.array(values, dtype=np.float64)
    got = sorted_positions(ends, values, right)
    assert got.dtype == np.int64
    assert got.tolist() == np.searchsorted(ends, values, side="right" if right else "left").tolist()


def test_sorted_positions_on_a_large_column():
    rng = np.random.default_rng(2)
    ends = np.sort(rng.uniform(0, 100, 5000))
    values = np.concatenate([rng.uniform(-1, 101, 100_003), ends[::7]])
    for right in (False, True):
        assert np.array_equal(sorted_positions(ends, values, right),
                              np.searchsorted(ends, values, side="right" if right else "left"))
