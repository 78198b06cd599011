"""Rule selection by weighted set cover: greedy vs ILP vs LP relaxation vs brute force, reductions, solvers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optrules.cover import CoverInstance
from optrules.exact.set_cover import solve_set_cover, violated_pairs
from optrules.learners.selection import greedy_cover
from optrules.solvers import ProblemClass, Status, available_solvers

MILP_SOLVERS = available_solvers(ProblemClass.MILP, interface="pyomo")


def brute_force(instance: CoverInstance, max_rules: int | None = None) -> float:
    n = instance.n_candidates
    limit = n if max_rules is None else min(n, max_rules)
    return min(instance.objective(list(s)) for k in range(limit + 1)
               for s in itertools.combinations(range(n), k))


@st.composite
def instances(draw, max_rows: int = 30, max_cols: int = 12):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    n_rows = draw(st.integers(1, max_rows))
    n_cols = draw(st.integers(1, max_cols))
    density = draw(st.sampled_from([0.1, 0.3, 0.6]))
    coverage = rng.random((n_rows, n_cols)) < density
    is_positive = rng.random(n_rows) < 0.5
    alpha = draw(st.sampled_from([0.3, 0.5, 0.7, 0.9]))
    cost = rng.choice([0.0, 0.5, 1.0, 2.0], size=n_cols)
    return CoverInstance.from_samples(coverage, is_positive, alpha, cost)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(instances(), st.sampled_from([None, 1, 2, 3]))
def test_ilp_matches_brute_force_and_brackets(instance, max_rules):
    exact = solve_set_cover(instance, max_rules=max_rules)
    assert exact.report.status is Status.OPTIMAL
    optimum = brute_force(instance, max_rules)
    assert exact.objective == pytest.approx(optimum, abs=1e-6)
    assert instance.objective(exact.selected) == pytest.approx(exact.objective, abs=1e-9)
    if max_rules is not None:
        assert len(exact.selected) <= max_rules
    greedy = greedy_cover(instance, max_rules=max_rules)
    assert exact.objective <= instance.objective(greedy) + 1e-9
    relaxed = solve_set_cover(instance, max_rules=max_rules, relax=True)
    assert relaxed.report.status is Status.OPTIMAL
    assert relaxed.objective <= exact.objective + 1e-6


@settings(derandomize=True, max_examples=60, deadline=None)
@given(instances(max_rows=40, max_cols=10))
def test_reduction_preserves_every_selection_value(instance):
    reduced = instance.reduce()
    small = reduced.instance
    # Any selection of surviving candidates has the same value in both instances ...
    for k in range(min(3, small.n_candidates) + 1):
        for subset in itertools.combinations(range(small.n_candidates), k):
            original = reduced.columns[list(subset)]
            assert small.objective(list(subset)) == pytest.approx(instance.objective(original), abs=1e-9)
    # ... and dropping candidates loses nothing: the optimum is still reachable.
    best_small = brute_force(small) if small.n_candidates else small.constant
    assert best_small == pytest.approx(brute_force(instance), abs=1e-9)


def test_reduction_merges_rows_and_drops_dominated_columns():
    coverage = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 0, 1]], dtype=bool)
    is_positive = np.array([True, True, True, False])
    instance = CoverInstance.from_samples(coverage, is_positive, 0.5, np.ones(3))
    reduced = instance.reduce()
    # column 1 covers a subset of column 0's positives and no fewer negatives: dominated
    assert 1 not in reduced.columns
    assert reduced.instance.objective([]) == pytest.approx(instance.objective([]))


def test_greedy_follows_the_paper_rule():
    # alpha = 0.5. A covers positives 0-2 and negative 3 (weight 1.5 - 0.5 = 1.0); B covers positives
    # 0-1 (weight 1.0); C covers positive 4 and negatives 5-6 (weight -0.5, never chosen).
    coverage = np.zeros((7, 3), dtype=bool)
    coverage[[0, 1, 2, 3], 0] = True
    coverage[[0, 1], 1] = True
    coverage[[4, 5, 6], 2] = True
    is_positive = np.array([True, True, True, False, True, False, False])
    instance = CoverInstance.from_samples(coverage, is_positive, 0.5)
    # A and B tie: fewer atoms wins. After B, A adds one positive and one negative: weight 0, stop.
    assert greedy_cover(instance, size=np.array([3, 1, 1])).tolist() == [1]
    # After A, B adds nothing: stop.
    assert greedy_cover(instance, size=np.array([1, 3, 1])).tolist() == [0]
    # With alpha = 0.9 A is worth 2.6, then C is worth 0.9 - 0.2 = 0.7 > 0.
    heavy = CoverInstance.from_samples(coverage, is_positive, 0.9)
    assert greedy_cover(heavy).tolist() == [0, 2]
    assert greedy_cover(heavy, max_rules=1).tolist() == [0]


@pytest.mark.parametrize("solver", MILP_SOLVERS)
def test_every_installed_milp_solver_reaches_the_same_optimum(solver):
    rng = np.random.default_rng(7)
    coverage = rng.random((150, 25)) < 0.12
    is_positive = rng.random(150) < 0.4
    instance = CoverInstance.from_samples(coverage, is_positive, 0.7, rng.choice([0.5, 1.0, 1.5], size=25))
    reference = solve_set_cover(instance, max_rules=6, solver="highs")
    result = solve_set_cover(instance, max_rules=6, solver=solver)
    assert result.report.status is Status.OPTIMAL
    assert result.report.solver == solver
    assert result.objective == pytest.approx(reference.objective, abs=1e-6)


@pytest.mark.parametrize("solver", MILP_SOLVERS)
def test_time_limited_solve_reports_status_and_gap_honestly(solver):
    rng = np.random.default_rng(3)
    coverage = rng.random((2000, 300)) < 0.1
    is_positive = rng.random(2000) < 0.5
    instance = CoverInstance.from_samples(coverage, is_positive, 0.5, np.full(300, 0.5))
    result = solve_set_cover(instance, solver=solver, solver_options={"time_limit": 0.5})
    assert result.report.status is not Status.OPTIMAL
    assert result.report.termination == "time_limit"
    # the greedy warm start guarantees a selection no worse than the heuristic's
    greedy = instance.objective(greedy_cover(instance))
    assert result.objective <= greedy + 1e-6
    report = result.report
    if report.status is Status.FEASIBLE and report.best_bound is not None:
        assert report.gap is not None and report.gap > 0
        assert report.best_bound <= report.objective + 1e-6
    else:  # stopped before a dual bound existed: the gap is unknown, never zero
        assert report.gap is None


@settings(derandomize=True, max_examples=40, deadline=None)
@given(instances(max_rows=25, max_cols=8))
def test_pair_inequalities_are_valid_for_every_integer_selection(instance):
    # (SC5) must never cut off an integer point: no pair is violated at any binary x with its u, v.
    coverage = instance.coverage
    for k in range(instance.n_candidates + 1):
        for subset in itertools.combinations(range(instance.n_candidates), k):
            x = np.zeros(instance.n_candidates)
            x[list(subset)] = 1
            covered = coverage[:, list(subset)].any(axis=1) if subset else np.zeros(len(coverage), bool)
            assert violated_pairs(instance, x, (~covered).astype(float), covered.astype(float), 10) == []


def test_pair_inequalities_cut_the_fractional_spread():
    # Two rules each cover positive row 0 and negative row 1; x = (1/2, 1/2) covers row 0 in the LP
    # while v_1 = 1/2 pays only half a negative: (SC5) for pair (0, 1) is violated by 1/2.
    instance = CoverInstance.from_samples(np.array([[1, 1], [1, 1]], dtype=bool), np.array([True, False]), 0.5)
    pairs = violated_pairs(instance, np.array([0.5, 0.5]), np.array([0.0, 0.0]), np.array([0.0, 0.5]), 10)
    assert pairs == [(0, 1)]
