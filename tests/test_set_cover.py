"""Rule selection by weighted set cover: greedy vs ILP vs LP relaxation vs brute force, reductions, solvers."""

from __future__ import annotations

import itertools
import time

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


@settings(derandomize=True, max_examples=60, deadline=None)
@given(instances(max_rows=40, max_cols=10))
def test_a_reduction_stopped_at_its_deadline_is_still_exact(instance):
    """A dominance test cut short (a deadline already passed: one block of columns, then stop) marks a
    subset of what the whole test marks, and the reduced instance keeps the optimum."""
    from optrules.cover import _dominated

    pos, neg = instance.pos_weight, instance.neg_weight
    full = _dominated(instance.coverage, pos, neg, instance.cost, chunk=2)
    cut = _dominated(instance.coverage, pos, neg, instance.cost, chunk=2, deadline=time.perf_counter() - 1)
    assert not (cut & ~full).any() and not cut[2:].any()
    reduced = instance.reduce(deadline=time.perf_counter() - 1)
    small = reduced.instance
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


ONE_NODE = {"highs": {"mip_max_nodes": 1}, "scip": {"limits/nodes": 1}, "gurobi": {"NodeLimit": 1},
            "cbc": {"maxNodes": 1}}  # GLPK has no node limit


def hard_instance(rows: int = 2000, candidates: int = 300) -> CoverInstance:
    """Random coverage at 10% density: far from solved at the root (200 x 40: a 23% gap after one
    node with HiGHS and SCIP, measured; 2000 x 300 takes HiGHS minutes for its root node alone)."""
    rng = np.random.default_rng(3)
    coverage = rng.random((rows, candidates)) < 0.1
    is_positive = rng.random(rows) < 0.5
    return CoverInstance.from_samples(coverage, is_positive, 0.5, np.full(candidates, 0.5))


@pytest.mark.parametrize("solver", [solver for solver in MILP_SOLVERS if solver in ONE_NODE])
def test_a_solve_stopped_at_a_node_limit_reports_status_bound_gap_and_fallback(solver):
    instance = hard_instance(200, 40)
    result = solve_set_cover(instance, solver=solver, solver_options=ONE_NODE[solver], cut_rounds=0)
    assert result.report.status is Status.FEASIBLE and result.report.termination == "node_limit"
    greedy = instance.objective(greedy_cover(instance))
    assert result.objective <= greedy + 1e-6  # the greedy warm start is never lost
    assert result.best_bound is not None and result.best_bound <= result.objective + 1e-6
    assert result.gap == pytest.approx((result.objective - result.best_bound) / result.objective) and result.gap > 0
    if result.objective >= result.start_objective - 1e-9:
        assert result.fallback == "start" and "greedy start" in result.fallback_reason
    else:
        assert result.fallback is None


@pytest.mark.parametrize("solver", MILP_SOLVERS)
def test_a_tiny_time_limit_gives_an_honest_result_at_any_speed(solver):
    """Whatever the machine reaches in 0.01 s: never optimal unless proven, never worse than greedy,
    a fallback said when the selection is the start, every stage's seconds recorded."""
    instance = hard_instance()
    result = solve_set_cover(instance, solver=solver, solver_options={"time_limit": 0.01})
    assert result.objective <= instance.objective(greedy_cover(instance)) + 1e-6
    if result.report.status is Status.OPTIMAL:
        assert result.gap is not None and result.gap <= 1e-4
    else:
        assert result.report.termination == "time_limit"
        assert result.gap is None or result.gap > 0
    if result.fallback is not None:
        assert result.fallback == "start" and result.fallback_reason
        assert result.objective == pytest.approx(result.start_objective)
    assert result.budget["time_limit"] == 0.01 and result.budget["exact_seconds"] > 0
    assert {"build_seconds"} <= set(result.budget)


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
            assert len(violated_pairs(instance, x, (~covered).astype(float), covered.astype(float), 10)) == 0


def test_pair_inequalities_cut_the_fractional_spread():
    # Two rules each cover positive row 0 and negative row 1; x = (1/2, 1/2) covers row 0 in the LP
    # while v_1 = 1/2 pays only half a negative: (SC5) for pair (0, 1) is violated by 1/2.
    instance = CoverInstance.from_samples(np.array([[1, 1], [1, 1]], dtype=bool), np.array([True, False]), 0.5)
    pairs = violated_pairs(instance, np.array([0.5, 0.5]), np.array([0.0, 0.0]), np.array([0.0, 0.5]), 10)
    assert pairs.tolist() == [[0, 1]]


# ------------------------------------------------------------------------------------------
# The two modelling layers: the same model, the same optimum
# ------------------------------------------------------------------------------------------

from optrules.models import set_cover as set_cover_model  # noqa: E402
from optrules.solvers import solve  # noqa: E402

BOTH_LAYERS = [s for s in available_solvers(ProblemClass.MILP, "pyomo")
               if s in available_solvers(ProblemClass.MILP, "cvxpy") and s in ("highs", "scip")]


@settings(derandomize=True, max_examples=40, deadline=None)
@given(instances(max_rows=20, max_cols=8), st.sampled_from([None, 1, 2]), st.sampled_from(BOTH_LAYERS),
       st.booleans())
def test_pyomo_and_cvxpy_builds_reach_the_same_optimum(instance, max_rules, solver, relax):
    """The unreduced model (SC0)-(SC4), and its LP relaxation, built by each layer and solved by
    each solver that takes both: the same optimum, which for the ILP is the brute-force one."""
    values = {}
    for modeller in set_cover_model.MODELLERS:
        m = set_cover_model.build(instance, max_rules=max_rules, relax=relax, modeller=modeller)
        report = solve(m.model, m.problem_class, solver)
        assert report.status is Status.OPTIMAL, (modeller, report)
        values[modeller] = report.objective
        if not relax:
            chosen = set_cover_model.extract(m).selected
            assert instance.objective(chosen) == pytest.approx(report.objective, abs=1e-6)
    assert values["pyomo"] == pytest.approx(values["cvxpy"], abs=1e-6)
    if not relax:
        assert values["pyomo"] == pytest.approx(brute_force(instance, max_rules), abs=1e-6)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(instances(max_rows=30, max_cols=10))
def test_pair_cuts_added_in_bulk_give_both_layers_the_same_tightened_bound(instance):
    """The most violated (SC5) at the LP optimum, added as one block to each layer: equal LP bounds,
    never above the ILP optimum (the cuts are valid)."""
    bounds = {}
    for modeller in set_cover_model.MODELLERS:
        m = set_cover_model.build(instance, relax=True, modeller=modeller)
        assert solve(m.model, ProblemClass.LP, "highs").status is Status.OPTIMAL
        u, v = m.row_values()
        m.add_pair_cuts(violated_pairs(instance, m.solution().x, u, v, 50))
        report = solve(m.model, ProblemClass.LP, "highs")
        assert report.status is Status.OPTIMAL
        bounds[modeller] = report.objective
    assert bounds["pyomo"] == pytest.approx(bounds["cvxpy"], abs=1e-6)
    assert bounds["pyomo"] <= brute_force(instance) + 1e-6


@pytest.mark.parametrize("modeller", set_cover_model.MODELLERS)
def test_the_orchestration_gives_the_same_selection_value_through_either_layer(modeller):
    rng = np.random.default_rng(7)
    coverage = rng.random((150, 25)) < 0.12
    is_positive = rng.random(150) < 0.4
    instance = CoverInstance.from_samples(coverage, is_positive, 0.7, rng.choice([0.5, 1.0, 1.5], size=25))
    reference = brute_force(CoverInstance(instance.coverage, instance.pos_weight, instance.neg_weight,
                                          instance.cost, instance.alpha), max_rules=3)
    result = solve_set_cover(instance, max_rules=3, solver="highs", modeller=modeller)
    assert result.report.status is Status.OPTIMAL and result.gap == 0.0 and result.fallback is None
    assert result.objective == pytest.approx(reference, abs=1e-6)
    assert result.best_bound == pytest.approx(reference, abs=1e-5)


def test_an_unknown_modeller_is_refused():
    with pytest.raises(ValueError, match=r"modeller must be one of \['pyomo', 'cvxpy'\], got 'jump'"):
        set_cover_model.build(hard_instance(20, 5), modeller="jump")


def test_auto_takes_cvxpy_for_highs_and_pyomo_for_other_solvers():
    assert set_cover_model.DEFAULT_MODELLER == "auto"
    assert set_cover_model.resolve_modeller("auto", "highs") == "cvxpy"
    assert set_cover_model.resolve_modeller("auto", "scip") == "pyomo"
    assert set_cover_model.resolve_modeller("pyomo", "highs") == "pyomo"


def test_the_default_set_cover_reaches_highs_without_cvxpy_s_canonicalisation(monkeypatch):
    """The default modeller builds the ILP and its cut-round LPs in cvxpy, and every one of them is
    read straight into HiGHS' arrays (optrules.solvers.cvxpy_affine), never canonicalised."""
    import cvxpy as cp

    def refuse(*args, **kwargs):
        raise AssertionError("cvxpy's canonicalisation was called")

    monkeypatch.setattr(cp.Problem, "get_problem_data", refuse)
    instance = hard_instance(120, 12)
    result = solve_set_cover(instance, max_rules=4, solver="highs")
    assert result.report.status is Status.OPTIMAL
    assert result.objective == pytest.approx(brute_force(instance, max_rules=4), abs=1e-6)


def test_separation_stops_at_its_deadline_with_the_pairs_found_so_far():
    instance = hard_instance(400, 40)
    x = np.full(instance.n_candidates, 0.2)
    u = np.zeros(instance.coverage.shape[0])
    v = np.zeros(instance.coverage.shape[0])
    negatives = int((instance.neg_weight > 0).sum())
    cells = 10 * negatives  # ten positive rows per chunk
    every = violated_pairs(instance, x, u, v, 10**9, chunk_cells=cells)
    first_chunk = violated_pairs(instance, x, u, v, 10**9, chunk_cells=cells, deadline=time.perf_counter() - 1)
    positives = np.flatnonzero(instance.pos_weight > 0)
    assert 0 < len(first_chunk) < len(every)
    assert set(first_chunk[:, 0].tolist()) <= set(positives[:10].tolist())


# --------------------------------------------------------------------------- #
# sample weights
# --------------------------------------------------------------------------- #
def _weighted_and_duplicated(seed: int, n_rows: int = 30, n_cols: int = 8, max_weight: int = 4):
    """One random instance built twice: rows weighted by integer weights (0 included), and each row
    repeated that many times (a weight of 0 removes it)."""
    rng = np.random.default_rng(seed)
    coverage = rng.random((n_rows, n_cols)) < rng.choice([0.2, 0.4, 0.6])
    is_positive = rng.random(n_rows) < 0.5
    cost = rng.choice([0.0, 0.5, 1.0], size=n_cols)
    alpha = float(rng.choice([0.3, 0.5, 0.8]))
    weights = rng.integers(0, max_weight, n_rows)
    rows = np.repeat(np.arange(n_rows), weights)
    weighted = CoverInstance.from_samples(coverage, is_positive, alpha, cost, weights=weights.astype(float))
    duplicated = CoverInstance.from_samples(coverage[rows], is_positive[rows], alpha, cost)
    return weighted, duplicated


@pytest.mark.parametrize("seed", range(8))
def test_integer_weights_give_the_objective_of_duplicated_rows(seed):
    weighted, duplicated = _weighted_and_duplicated(seed)
    for k in range(3):
        for subset in itertools.combinations(range(weighted.n_candidates), k):
            assert weighted.objective(list(subset)) == duplicated.objective(list(subset))
    # the reduction drops the rows of weight 0 and merges the copies: the same reduced instance
    reduced_w, reduced_d = weighted.reduce(), duplicated.reduce()
    assert reduced_w.instance.digest() == reduced_d.instance.digest()
    assert (reduced_w.columns == reduced_d.columns).all()
    assert (greedy_cover(weighted) == greedy_cover(duplicated)).all()
    assert (greedy_cover(weighted, max_rules=2) == greedy_cover(duplicated, max_rules=2)).all()


@pytest.mark.parametrize("seed", range(4))
def test_integer_weights_give_the_optimum_of_duplicated_rows(seed):
    weighted, duplicated = _weighted_and_duplicated(seed, n_rows=25, n_cols=7)
    for max_rules in (None, 2):
        optimum = solve_set_cover(weighted, max_rules=max_rules)
        assert optimum.report.status is Status.OPTIMAL
        assert optimum.objective == pytest.approx(solve_set_cover(duplicated, max_rules=max_rules).objective,
                                                  abs=1e-9)
        assert optimum.objective == pytest.approx(brute_force(duplicated, max_rules), abs=1e-9)


def test_unit_weights_give_the_unweighted_instance():
    rng = np.random.default_rng(3)
    coverage, is_positive, cost = rng.random((40, 9)) < 0.3, rng.random(40) < 0.4, rng.random(9)
    plain = CoverInstance.from_samples(coverage, is_positive, 0.6, cost)
    ones = CoverInstance.from_samples(coverage, is_positive, 0.6, cost, weights=np.ones(40))
    assert ones.digest() == plain.digest() and ones.digest(3) == plain.digest(3)
    assert (ones.pos_weight == plain.pos_weight).all() and (ones.neg_weight == plain.neg_weight).all()


def test_a_row_of_weight_zero_acts_as_removed():
    coverage = np.array([[1, 0], [1, 1], [0, 1], [1, 0]], dtype=bool)
    is_positive = np.array([True, False, True, False])
    weights = np.array([2.0, 0.0, 0.5, 1.0])  # the negative row 1, covered by both rules, weighs nothing
    instance = CoverInstance.from_samples(coverage, is_positive, 0.5, np.zeros(2), weights=weights)
    kept = np.array([0, 2, 3])
    removed = CoverInstance(coverage[kept], instance.pos_weight[kept], instance.neg_weight[kept], np.zeros(2), 0.5)
    for subset in ([], [0], [1], [0, 1]):
        assert instance.objective(subset) == removed.objective(subset)
    assert instance.objective([1]) == 0.5 * 2.0  # the positive of weight 2 is left uncovered
    assert instance.reduce().instance.digest() == removed.reduce().instance.digest()


def test_weights_of_the_wrong_shape_are_refused():
    with pytest.raises(ValueError, match="weights"):
        CoverInstance.from_samples(np.ones((3, 2), bool), np.array([True, False, True]), 0.5, weights=np.ones(2))


@pytest.mark.parametrize("positives", [0.0, 0.4, 1.0], ids=["no positives", "both", "no negatives"])
@pytest.mark.parametrize("seed", range(3))
def test_cover_rows_are_sc1_then_sc2_over_x_u_v_row_by_row(positives, seed) -> None:
    """The one-matrix assembly of (SC1)-(SC2) for cvxpy, checked row by row against the definition;
    the Pyomo model's (SC1) and (SC2) blocks compile to the same rows, in canonical form (the compiler
    skips sorting them)."""
    import scipy.sparse as sp

    from optrules.solvers.standard_form import compile_model

    rng = np.random.default_rng(seed)
    coverage = rng.random((40, 7)) < 0.3
    is_positive = rng.random(40) < positives
    instance = CoverInstance.from_samples(coverage, is_positive, 0.6, np.ones(7))
    data = set_cover_model.matrices(instance)
    rows = data.cover_rows().toarray()
    n_x, n_u, n_v = data.n_x, data.pos_rows.size, data.neg_rows.size
    assert rows.shape == (n_u + data.pair_neg.size, n_x + n_u + n_v)
    for k, sample in enumerate(data.pos_rows):  # (SC1): sum_j a_kj x_j + u_k >= 1
        expected = np.zeros(n_x + n_u + n_v)
        expected[:n_x] = coverage[sample]
        expected[n_x + k] = 1.0
        np.testing.assert_array_equal(rows[k], expected)
    for r, (i, j) in enumerate(zip(data.pair_neg, data.pair_col)):  # (SC2): v_i - x_j >= 0
        expected = np.zeros(n_x + n_u + n_v)
        expected[j], expected[n_x + n_u + i] = -1.0, 1.0
        np.testing.assert_array_equal(rows[n_u + r], expected)
        assert coverage[data.neg_rows[i], j]
    assert data.pair_neg.size == coverage[data.neg_rows].sum()
    compiled = compile_model(set_cover_model.build(instance, modeller="pyomo").model).A
    np.testing.assert_array_equal(compiled.toarray(), rows)
    assert sp.csr_matrix((compiled.data, compiled.indices, compiled.indptr), shape=compiled.shape).has_canonical_format


def test_a_solution_reported_optimal_is_the_brute_force_optimum_on_the_review_s_instance():
    """22 rows x 9 candidates found in review: HiGHS took the greedy start (12.6) as optimal, and the
    bound was moved up to it over the true optimum of 11.6 (brute force). Whatever a solver returns,
    the bound never exceeds the optimum and 'optimal' means the optimum."""
    rows = ["001001100", "001010000", "001011000", "001100000", "001100100", "001110000", "100001000", "100100000",
            "101000110", "101010010", "101011010", "101100110", "101110010", "110000000", "110001000", "110100001",
            "111000110", "111001110", "111010010", "111011010", "111100111", "111110011"]
    coverage = np.array([[c == "1" for c in r] for r in rows])
    pos = [1, 2, 1, 0, 2, 1, 1, 1, 3, 3, 1, 1, 1, 4, 7, 9, 3, 2, 3, 1, 1, 4]
    neg = [0, 0, 0, 1, 0, 0, 4, 6, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0, 0, 0, 0, 0]
    cost = [1.75, 0.75, 0.75, -3.85, 0.75, -0.65, 0.75, 1.0, 1.0]
    instance = CoverInstance(coverage, pos, neg, cost, alpha=0.8, constant=10.4)
    optimum = min(instance.objective(list(s)) for r in range(10) for s in itertools.combinations(range(9), r))
    for modeller in ("cvxpy", "pyomo"):
        result = solve_set_cover(instance, modeller=modeller)
        assert result.best_bound <= optimum + 1e-9
        assert result.objective >= optimum - 1e-9
        if result.report.status is Status.OPTIMAL and result.fallback is None:
            assert result.objective == pytest.approx(optimum)


def test_a_claimed_optimum_not_verified_is_solved_again_and_keeps_the_stronger_bound(monkeypatch):
    """When the solver's optimum does not hold for its point (HiGHS 1.16 once took the greedy start as
    optimal), the set cover solves again without the start; the first solve's bound stays valid and
    was dropped when the second's was weaker (review)."""
    import dataclasses

    import optrules.exact.set_cover as exact_set_cover

    rng = np.random.default_rng(7)
    coverage = rng.random((150, 25)) < 0.12
    instance = CoverInstance.from_samples(coverage, rng.random(150) < 0.4, 0.7, np.full(25, 1.0))
    proven = solve_set_cover(instance, max_rules=6, solver="highs")
    calls = []

    def staged(*args, **kwargs):  # first: an unverified claim at the true bound; then: a weak bound
        report = solve(*args, **kwargs)
        calls.append(kwargs.get("warm_start"))
        if len(calls) == 1:
            return dataclasses.replace(report, status=Status.FEASIBLE, termination="optimum_not_verified")
        return dataclasses.replace(report, best_bound=0.0)

    monkeypatch.setattr(exact_set_cover, "solve", staged)
    result = solve_set_cover(instance, max_rules=6, solver="highs", cut_rounds=0)
    assert calls == [True, False]  # solved once more, without the start
    assert result.best_bound == pytest.approx(proven.best_bound) and result.objective == pytest.approx(proven.objective)


def test_a_proven_optimum_worse_than_the_greedy_start_returns_the_start_and_says_so(monkeypatch):
    """A solver's optimum holds within its gap tolerance (HiGHS: 1e-4), so its point may be a little
    worse than the greedy start; the start is returned then, as a fallback said with its reason (as
    clm and brcg do), never the worse point."""
    import dataclasses

    import optrules.exact.set_cover as exact_set_cover

    rng = np.random.default_rng(3)
    coverage = rng.random((80, 10)) < 0.3
    instance = CoverInstance.from_samples(coverage, rng.random(80) < 0.4, 0.7, np.full(10, 1.0))
    proven = solve_set_cover(instance, solver="highs", modeller="pyomo")

    def worse_point(model, *args, **kwargs):  # the claimed optimum is every candidate at once
        report = solve(model, *args, **kwargs)
        for var in model.x.values():
            var.set_value(1.0)
        return dataclasses.replace(report, status=Status.OPTIMAL)

    monkeypatch.setattr(exact_set_cover, "solve", worse_point)
    result = solve_set_cover(instance, solver="highs", modeller="pyomo", cut_rounds=0)
    everything = instance.objective(list(range(instance.n_candidates)))
    assert everything > result.start_objective  # the premise: selecting everything is worse than the start
    assert result.fallback == "start" and "worse than the greedy start" in result.fallback_reason
    assert result.objective == pytest.approx(result.start_objective)
    assert proven.objective - 1e-9 <= result.objective < everything


@pytest.mark.parametrize(("status", "objective", "use_start", "fallback"), [
    # SCIP's proven CL-bigM optimum 4e-8 above an optimal start: the start (the lower value), no fallback
    (Status.OPTIMAL, 4.169865688909288, True, False),
    (Status.OPTIMAL, 4.1699, True, True),  # 8e-6 above: worse than the start, which is returned
    (Status.OPTIMAL, 4.1698, False, False),  # a better proven optimum
    (Status.FEASIBLE, 4.169865688909288, True, True),  # stopped at a limit with nothing better
    (Status.FEASIBLE, 4.1698, False, False),  # stopped with a better incumbent
    (Status.FEASIBLE, None, True, True),  # no solution at all
])
def test_the_warm_start_gives_way_only_to_a_solution_no_worse_within_the_solvers_tolerance(status, objective,
                                                                                           use_start, fallback):
    from optrules.exact.warm_start import start_or_solver
    from optrules.solvers import ProblemClass, SolveReport

    report = SolveReport(solver="scip", solver_version="x", problem_class=ProblemClass.MIQP, status=status,
                         termination="optimal" if status is Status.OPTIMAL else "time_limit", objective=objective,
                         best_bound=4.1698, gap=None, solve_seconds=1.0, build_seconds=0.0)
    choice = start_or_solver(report, objective, 4.169865522376009, "scip", "the SVM_C start")
    assert choice.use_start == use_start and bool(choice.fallback_reason) == fallback
    assert not fallback or "the SVM_C start" in choice.fallback_reason
