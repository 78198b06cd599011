"""CLSVM models: CL against CL-bigM against enumeration, relaxations as bounds, Propositions 2.1 and 2.2,
MSSC against brute force, the Ipopt adapter's derivatives, solver swaps, and sample weights (integer
weights against duplicated rows, weights of ones against the unweighted models)."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optrules.exact.cl_ipopt import _Relaxation, ipopt_available, solve_relaxation_ipopt
from optrules.exact.clsvm import (STRATEGIES, StrategyInputs, big_m, canonical, constant_upper_bound, feature_big_m,
                                  randomized_rounding, run_strategy)
from optrules.exact.mssc import mssc_1d, within_sum_of_squares
from optrules.exact.scorecard import ScorecardDesign
from optrules.models import cl, cl_bigm, cl_lower_bound, svm
from optrules.models.cl import ClusterData, CLSolution
from optrules.solvers import ProblemClass, Status, UnsupportedProblemError, available_solvers, solve

C = 10.0


def tiny(seed: int, sizes: tuple[int, ...] = (3, 4), n: int = 16, numeric: int = 1, L: int = 2) -> ClusterData:
    """A small random instance whose labels depend on the categories (so scores are not all zero)."""
    rng = np.random.default_rng(seed)
    codes = tuple(rng.integers(0, k, n) for k in sizes)
    x = rng.normal(size=(n, numeric))
    effect = [rng.normal(size=k) * 2 for k in sizes]
    signal = sum(e[c] for e, c in zip(effect, codes)) + x.sum(axis=1) + rng.normal(scale=0.7, size=n)
    y = np.where(signal > np.median(signal), 1.0, -1.0)
    return ClusterData(codes, sizes, x, y, L)


def clustered_svm_objective(data: ClusterData, assignment: list[np.ndarray]) -> float:
    """The SVM on the clustered data (Figure 1): CL's optimum for this z."""
    L = data.clusters
    blocks = []
    for code, labels in zip(data.codes, assignment):
        block = np.zeros((data.n, L))
        block[np.arange(data.n), labels[code]] = 1.0
        blocks.append(block)
    model = svm.build(np.hstack(blocks), data.numeric, data.y, C, data.weights)
    report = solve(model.problem, ProblemClass.QP, "clarabel")
    assert report.status is Status.OPTIMAL
    return report.objective


def enumerate_cl(data: ClusterData) -> float:
    """min over every clustering with z_{j,0,0} = 1 of the clustered SVM: CL's optimum by brute force."""
    per_feature = [[np.array((0,) + rest) for rest in itertools.product(range(data.clusters), repeat=k - 1)]
                   for k in data.n_categories]
    return min(clustered_svm_objective(data, list(choice)) for choice in itertools.product(*per_feature))


def solve_exact(data: ClusterData, which: str) -> tuple[CLSolution, float]:
    """Solve CL ("cl"), CL-bigM with M = sqrt(2 UB) ("clm") or with the per-feature M_j ("clm-feature")."""
    upper = constant_upper_bound(data.y, C)
    if which == "cl":
        model = cl.build(data, C)
    elif which == "clm":
        model = cl_bigm.build(data, C, big_m(upper))
    else:
        M, lower, _ = feature_big_m(data, C, upper, "clarabel")
        assert (M <= big_m(upper)).all() and lower <= upper
        model = cl_bigm.build(data, C, M)
    report = solve(model.model, model.problem_class, "scip")
    assert report.status is Status.OPTIMAL and report.gap == pytest.approx(0.0, abs=1e-4)
    return cl.extract(model), report.objective


def assert_propositions(solution: CLSolution) -> None:
    for scores, labels in zip(solution.cluster_scores, solution.assignment):
        if len(set(labels.tolist())) == 1:  # Proposition 2.1: one cluster holds every category
            assert np.abs(scores).max() <= 1e-3
        if len(scores) == 2:  # Proposition 2.2
            assert scores[0] * scores[1] <= 1e-6


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cl_and_cl_bigm_reach_the_enumerated_optimum(seed):
    data = tiny(seed)
    brute = enumerate_cl(data)
    cl_solution, cl_value = solve_exact(data, "cl")
    bigm_solution, bigm_value = solve_exact(data, "clm")
    tight_solution, tight_value = solve_exact(data, "clm-feature")
    assert cl_value == pytest.approx(brute, rel=1e-4)
    assert bigm_value == pytest.approx(brute, rel=1e-4)
    assert tight_value == pytest.approx(brute, rel=1e-4)
    assert_propositions(cl_solution)
    assert_propositions(bigm_solution)
    assert_propositions(tight_solution)
    # the convex bound (LB) of optrules.models.cl_lower_bound is below the optimum too
    lower = solve(cl_lower_bound.build(data, C).problem, ProblemClass.QP, "clarabel")
    assert lower.status is Status.OPTIMAL and lower.objective <= brute + 1e-6
    # every relaxation bounds the optimum from below
    M = big_m(constant_upper_bound(data.y, C))
    relaxation = cl_bigm.build(data, C, M, relax=True, modeller="cvxpy")
    assert solve(relaxation.model, ProblemClass.QP, "clarabel").objective <= bigm_value + 1e-6
    qcqp = cl.build(data, C, relax=True)
    report = solve(qcqp.model, ProblemClass.NLP, "scip")
    assert report.status is Status.OPTIMAL
    assert report.objective <= cl_value + 1e-6


@pytest.mark.parametrize("which", ["cl", "clm"])
def test_proposition_2_1_a_feature_in_one_cluster_gets_zero_scores(which):
    """On random data no optimum puts a whole feature in one cluster, so force it: fix z of feature 0."""
    data = tiny(2)
    upper = constant_upper_bound(data.y, C)
    model = cl.build(data, C) if which == "cl" else cl_bigm.build(data, C, big_m(upper))
    for k in range(data.n_categories[0]):  # feature 0's categories are global categories 0..K_0 - 1
        model.model.z[k, 0].fix(1)
        model.model.z[k, 1].fix(0)
    report = solve(model.model, model.problem_class, "scip")
    assert report.status is Status.OPTIMAL
    solution = cl.extract(model)
    assert set(solution.assignment[0].tolist()) == {0}
    assert np.abs(solution.cluster_scores[0]).max() <= 1e-3  # SCIP's spatial B&B: scores to ~1e-3 at 1e-6 objective
    assert np.abs(solution.cluster_scores[1]).max() > 0.1  # the other feature is used
    assert_propositions(solution)


def test_propositions_hold_with_three_clusters():
    data = tiny(5, sizes=(4, 3), L=3)
    solution, value = solve_exact(data, "clm")
    assert value == pytest.approx(enumerate_cl(data), rel=1e-4)
    assert_propositions(solution)


def test_svm_o_is_not_an_upper_bound_for_cl_but_the_constant_classifier_is():
    """(7) counts each cluster score once, so CL can beat SVM_O (why M does not come from SVM_O)."""
    found = False
    for seed in range(6):
        data = tiny(seed)
        dummies = np.hstack([np.eye(k)[code] for k, code in zip(data.n_categories, data.codes)])
        svm_o = solve(svm.build(dummies, data.numeric, data.y, C).problem, ProblemClass.QP, "clarabel").objective
        optimum = enumerate_cl(data)
        assert optimum <= constant_upper_bound(data.y, C) + 1e-9
        found |= optimum < svm_o - 1e-6
    assert found


@settings(derandomize=True, max_examples=80, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=6), st.integers(1, 3))
def test_mssc_dynamic_programme_equals_brute_force(values, clusters):
    values = np.array(values)
    labels = mssc_1d(values, clusters)
    assert labels.min() >= 0 and labels.max() < clusters
    brute = min(within_sum_of_squares(values, np.array(choice))
                for choice in itertools.product(range(clusters), repeat=len(values)))
    assert within_sum_of_squares(values, labels) == pytest.approx(brute, abs=1e-9)


def test_mssc_clusters_are_runs_of_the_sorted_scores():
    labels = mssc_1d(np.array([0.1, -2.0, 0.2, 3.0, -1.9, 0.0]), 3)
    assert labels.tolist() == [1, 0, 1, 2, 0, 1]
    assert canonical(labels).tolist() == [0, 1, 0, 2, 1, 0]  # labels 0 and 1 swapped


@pytest.mark.skipif(not ipopt_available(), reason="cyipopt is not installed")
@pytest.mark.parametrize("weighted", [False, True])
def test_ipopt_adapter_derivatives_match_finite_differences(weighted):
    data = tiny(3, sizes=(3, 4), numeric=2)
    if weighted:
        data = dataclasses.replace(data, weights=np.random.default_rng(1).uniform(0.0, 3.0, data.n))
    relaxation = _Relaxation(data, C)
    rng = np.random.default_rng(0)
    x = rng.normal(size=relaxation.size)
    x[relaxation.i_z:] = rng.random(relaxation.size - relaxation.i_z)
    lagrange = rng.normal(size=relaxation.n_constraints)
    step = 1e-6

    def dense(rows, cols, values, shape):
        matrix = np.zeros(shape)
        np.add.at(matrix, (rows, cols), values)
        return matrix

    jacobian = dense(*relaxation.jacobianstructure(), relaxation.jacobian(x), (len(lagrange), relaxation.size))
    numeric_jac = np.column_stack([(relaxation.constraints(x + step * e) - relaxation.constraints(x - step * e))
                                   / (2 * step) for e in np.eye(relaxation.size)])
    assert np.allclose(jacobian, numeric_jac, atol=1e-5)
    gradient = np.column_stack([(relaxation.gradient(x + step * e) - relaxation.gradient(x - step * e))
                                / (2 * step) for e in np.eye(relaxation.size)])
    lagrangian_hessian = 0.7 * gradient + np.einsum("c,cij->ij", lagrange, np.stack([
        np.column_stack([(dense(*relaxation.jacobianstructure(), relaxation.jacobian(x + step * e),
                                (len(lagrange), relaxation.size))[c]
                          - dense(*relaxation.jacobianstructure(), relaxation.jacobian(x - step * e),
                                  (len(lagrange), relaxation.size))[c]) / (2 * step)
                         for e in np.eye(relaxation.size)])
        for c in range(len(lagrange))]))
    lower = dense(*relaxation.hessianstructure(), relaxation.hessian(x, lagrange, 0.7),
                  (relaxation.size, relaxation.size))
    assert np.allclose(np.tril(lagrangian_hessian), lower, atol=1e-5)
    w, total = data.hinge_weights()
    assert relaxation.objective(x) == pytest.approx(  # (7)
        x[:relaxation.i_b] @ x[:relaxation.i_b] / 2 + C / total * w @ x[relaxation.i_xi:relaxation.i_z])


@pytest.mark.skipif(not ipopt_available(), reason="cyipopt is not installed")
@pytest.mark.parametrize("seed", [0, 1])
def test_ipopt_local_optimum_is_feasible_and_not_below_scips_global_one(seed):
    data = tiny(seed)
    start = CLSolution(tuple(np.zeros(2) for _ in data.n_categories), np.zeros(1), 0.0,
                       tuple(np.full((k, 2), 0.5) for k in data.n_categories), 0.0)
    local, report = solve_relaxation_ipopt(data, C, start)
    assert report.status is Status.FEASIBLE and report.termination == "locally_optimal"
    assert report.best_bound is None
    for z in local.z:
        assert np.allclose(z.sum(axis=1), 1, atol=1e-6) and z[0, 0] == pytest.approx(1, abs=1e-6)
    glob = solve(cl.build(data, C, relax=True).model, ProblemClass.NLP, "scip")
    assert glob.status is Status.OPTIMAL
    assert local.objective >= glob.objective - 1e-5


QP_SOLVERS = available_solvers(ProblemClass.QP, "cvxpy")


def test_svm_and_bigm_relaxation_agree_across_solvers():
    data = tiny(4, sizes=(3, 5), n=40, numeric=2)
    dummies = np.hstack([np.eye(k)[code] for k, code in zip(data.n_categories, data.codes)])
    M = big_m(constant_upper_bound(data.y, C))
    svm_values, relaxation_values = {}, {}
    for solver in QP_SOLVERS:
        report = solve(svm.build(dummies, data.numeric, data.y, C).problem, ProblemClass.QP, solver)
        assert report.status is Status.OPTIMAL, solver
        svm_values[solver] = report.objective
        report = solve(cl_bigm.build(data, C, M, relax=True, modeller="cvxpy").model, ProblemClass.QP, solver)
        assert report.status is Status.OPTIMAL, solver
        relaxation_values[solver] = report.objective
    for solver in available_solvers(ProblemClass.QP, "pyomo"):  # the same relaxation declared in Pyomo
        report = solve(cl_bigm.build(data, C, M, relax=True, modeller="pyomo").model, ProblemClass.QP, solver)
        assert report.status is Status.OPTIMAL, solver
        relaxation_values[f"{solver} (pyomo)"] = report.objective
    assert {"clarabel", "osqp", "highs", "scip"} <= set(svm_values)
    reference = svm_values["clarabel"]
    for solver, value in svm_values.items():
        assert value == pytest.approx(reference, rel=1e-3 if solver == "osqp" else 1e-5), solver
    reference = relaxation_values["clarabel"]
    for solver, value in relaxation_values.items():
        assert value == pytest.approx(reference, rel=1e-3 if solver == "osqp" else 1e-5), solver


def test_miqp_solved_by_every_capable_solver_and_highs_is_refused_naming_scip():
    data = tiny(1)
    M = big_m(constant_upper_bound(data.y, C))
    values = [solve(cl_bigm.build(data, C, M, modeller=modeller).model, ProblemClass.MIQP, solver).objective
              for modeller in cl_bigm.MODELLERS
              for solver in available_solvers(ProblemClass.MIQP, modeller)]
    assert len(values) >= 2 and max(values) - min(values) <= 1e-5 * max(1.0, abs(values[0]))
    with pytest.raises(UnsupportedProblemError, match="highs cannot solve MIQP.*scip"):
        solve(cl_bigm.build(data, C, M).model, ProblemClass.MIQP, "highs")


def test_big_m_must_be_positive():
    with pytest.raises(ValueError, match="big-M values must be positive"):
        cl_bigm.build(tiny(0), C, 0.0, relax=True)


def test_cluster_data_rejects_codes_out_of_range():
    with pytest.raises(ValueError, match="codes of clustered feature 0 must lie in 0..2"):
        ClusterData((np.array([0, 3]),), (3,), np.zeros((2, 0)), np.array([1.0, -1.0]))


def test_randomized_rounding_draws_from_z():
    rng = np.random.default_rng(0)
    certain = (np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]),)
    assert [c[0].tolist() for c in randomized_rounding(certain, 20, rng)] == [[0, 1, 1]]
    # category 1 is in cluster 1 with probability 0.9, category 2 with probability 0.5
    uncertain = (np.array([[1.0, 0.0], [0.1, 0.9], [0.5, 0.5]]),)
    draws = randomized_rounding(uncertain, 200, rng)
    assert {tuple(c[0].tolist()) for c in draws} == {(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1)}
    counts = np.array([draw[0] for draw in
                       (randomized_rounding(uncertain, 1, np.random.default_rng(s))[0] for s in range(400))])
    assert counts[:, 1].mean() == pytest.approx(0.9, abs=0.05)
    assert counts[:, 2].mean() == pytest.approx(0.5, abs=0.08)


@st.composite
def cluster_instances(draw):
    """Tiny random CL instances: one or two clustered features of 3-4 categories, 0-2 numerics."""
    seed = draw(st.integers(0, 2**31 - 1))
    sizes = tuple(draw(st.lists(st.integers(3, 4), min_size=1, max_size=2)))
    numeric = draw(st.integers(0, 2))
    n = draw(st.integers(10, 20))
    return tiny(seed % 10_000, sizes=sizes, n=n, numeric=numeric)


MIQP_BOTH = [(modeller, solver) for modeller in cl_bigm.MODELLERS
             for solver in available_solvers(ProblemClass.MIQP, modeller)]
QP_BOTH = [(modeller, solver) for modeller in cl_bigm.MODELLERS
           for solver in available_solvers(ProblemClass.QP, modeller)]


@settings(derandomize=True, max_examples=12, deadline=None)
@given(cluster_instances())
def test_cl_bigm_built_by_pyomo_and_by_cvxpy_reaches_the_enumerated_optimum_with_every_solver(data):
    """The MIQP from both layers with every capable solver (SCIP through each here), and its QP
    relaxation with every QP solver of each layer: the same optima, the MIQP's the brute-force one."""
    M = big_m(constant_upper_bound(data.y, C))
    brute = enumerate_cl(data)
    assert len(MIQP_BOTH) >= 2
    for modeller, solver in MIQP_BOTH:
        model = cl_bigm.build(data, C, M, modeller=modeller)
        report = solve(model.model, ProblemClass.MIQP, solver)
        assert report.status is Status.OPTIMAL, (modeller, solver, report)
        assert report.objective == pytest.approx(brute, rel=1e-4, abs=1e-6), (modeller, solver)
        assert model.solution().objective == pytest.approx(report.objective, rel=1e-4, abs=1e-6)
    relaxed = {}
    for modeller, solver in QP_BOTH:
        # HiGHS' QP solver stalls at the optimum of cvxpy's canonical form of this relaxation on some
        # instances (measured: 3 of 36, never through Pyomo): a work limit makes it stop, reported
        # as FEASIBLE at iteration_limit, never as optimal
        options = {"qp_iteration_limit": 10_000} if solver == "highs" else None
        report = solve(cl_bigm.build(data, C, M, relax=True, modeller=modeller).model, ProblemClass.QP, solver,
                       options)
        stalled = solver == "highs" and modeller == "cvxpy" and report.termination == "iteration_limit"
        assert report.status is (Status.FEASIBLE if stalled else Status.OPTIMAL), (modeller, solver, report)
        relaxed[(modeller, solver)] = report.objective
    reference = relaxed[("cvxpy", "clarabel")]
    for (modeller, solver), value in relaxed.items():
        first_order = solver == "osqp"  # ADMM: about 1e-5 accurate with cvxpy's tolerances
        assert value == pytest.approx(reference, rel=1e-3 if first_order else 1e-5,
                                      abs=1e-4 if first_order else 1e-6), (modeller, solver)
        assert value <= brute + 1e-4


# ------------------------------------------------------------------------------------ sample weights
def with_weights(data: ClusterData, seed: int) -> ClusterData:
    """``data`` with integer sample weights 0..3 (a few 0)."""
    return dataclasses.replace(data, weights=np.random.default_rng(seed).integers(0, 4, data.n).astype(float))


def duplicated(data: ClusterData) -> ClusterData:
    """The unweighted instance with every sample repeated as many times as its integer weight."""
    rows = np.repeat(np.arange(data.n), data.weights.astype(np.int64))
    return ClusterData(tuple(code[rows] for code in data.codes), data.n_categories, data.numeric[rows],
                       data.y[rows], data.clusters)


def design_of(data: ClusterData) -> ScorecardDesign:
    """A design whose coordinates are ``data``'s (the strategies take its dummies)."""
    P = data.numeric.shape[1]
    return ScorecardDesign(tuple(f"f{j}" for j in range(len(data.n_categories))),
                           tuple(tuple(range(k)) for k in data.n_categories), (), tuple(f"x{p}" for p in range(P)),
                           np.zeros(P), np.ones(P))


def one_hot(data: ClusterData) -> np.ndarray:
    return np.hstack([np.eye(k)[code] for k, code in zip(data.n_categories, data.codes)])


def solved_svm(data: ClusterData, weights: np.ndarray | None) -> tuple[float, svm.SVMSolution]:
    model = svm.build(one_hot(data), data.numeric, data.y, C, weights)
    report = solve(model.problem, ProblemClass.QP, "clarabel")
    assert report.status is Status.OPTIMAL
    return report.objective, svm.extract(model)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_svm_with_integer_weights_is_the_svm_on_duplicated_rows(seed):
    """(1) with w_i copies of sample i: the same optimum, scores and predictions (weights 0 included)."""
    data = with_weights(tiny(seed, n=30, numeric=2), seed)
    copies = duplicated(data)
    weighted_value, weighted = solved_svm(data, data.weights)
    copied_value, copied = solved_svm(copies, None)
    assert weighted_value == pytest.approx(copied_value, rel=1e-6, abs=1e-8)
    assert np.allclose(weighted.omega, copied.omega, atol=1e-5)
    assert np.allclose(weighted.omega_numeric, copied.omega_numeric, atol=1e-5)
    score = one_hot(data) @ weighted.omega + data.numeric @ weighted.omega_numeric + weighted.b
    copied_score = one_hot(data) @ copied.omega + data.numeric @ copied.omega_numeric + copied.b
    assert ((score > 0) == (copied_score > 0)).all()
    point = (weighted.omega, weighted.omega_numeric, weighted.b, one_hot(data), data.numeric, data.y, C)
    assert svm.objective_value(*point, data.weights) == pytest.approx(weighted_value, rel=1e-6)


def test_weights_of_ones_are_the_unweighted_models_bit_for_bit():
    data = tiny(4, n=30, numeric=2)
    ones = dataclasses.replace(data, weights=np.ones(data.n))
    assert not ones.weighted and ones.digest(C) == data.digest(C)
    (plain_value, plain), (ones_value, with_ones) = solved_svm(data, None), solved_svm(data, np.ones(data.n))
    assert plain_value == ones_value and plain.b == with_ones.b
    assert np.array_equal(plain.omega, with_ones.omega) and np.array_equal(plain.omega_numeric, with_ones.omega_numeric)
    upper = constant_upper_bound(data.y, C)
    assert constant_upper_bound(data.y, C, np.ones(data.n)) == upper
    (plain_m, plain_lower, _), (ones_m, ones_lower, _) = (feature_big_m(d, C, upper, "clarabel") for d in (data, ones))
    assert np.array_equal(plain_m, ones_m) and plain_lower == ones_lower
    M = big_m(upper)
    for modeller in cl_bigm.MODELLERS:
        values = []
        for instance in (data, ones):
            model = cl_bigm.build(instance, C, M, modeller=modeller)
            report = solve(model.model, ProblemClass.MIQP, "scip", {"limits/nodes": 200})
            values.append((report.status, report.objective, report.best_bound, model.solution().objective))
        assert values[0] == values[1], modeller
    design = design_of(data)
    for strategy in ("svm-c", "clm-rr"):
        plain, weighted = (run_strategy(strategy, StrategyInputs(design, instance), C, draws=3)
                           for instance in (data, ones))
        assert (plain.objective, plain.meta["gap"]) == (weighted.objective, weighted.meta["gap"]), strategy


def test_cluster_data_checks_its_weights_and_its_digest_counts_them():
    data = tiny(0)
    for weights, message in ((np.ones(3), f"weights has 3 values for {data.n} samples"),
                             (np.full(data.n, -1.0), f"weights contains {data.n} negative value"),
                             (np.full(data.n, np.nan), f"weights contains {data.n} NaN"),
                             (np.zeros(data.n), r"weights sums to 0")):
        with pytest.raises(ValueError, match=message):
            dataclasses.replace(data, weights=weights)
    weighted = with_weights(data, 0)
    assert weighted.weighted and (weighted.weights == 0).any()
    assert weighted.digest(C) != data.digest(C) != dataclasses.replace(data, weights=np.full(data.n, 2.0)).digest(C)
    # a sample of weight 0 changes nothing: support() drops it, and the digest is that of the support
    support = weighted.support()
    assert support.n == int((weighted.weights > 0).sum()) and (support.weights > 0).all()
    assert support.hinge_weights()[1] == weighted.hinge_weights()[1]
    assert weighted.digest(C) == support.digest(C) and support.support() is support and data.support() is data


def test_constant_upper_bound_weighs_the_classes():
    y = np.array([1.0, 1.0, -1.0, -1.0, -1.0])
    assert constant_upper_bound(y, 3.0) == pytest.approx(2 * 3.0 * 2 / 5)
    # the positives weigh 6 of 7: b = +1 leaves the negatives' 2 C 1 / 7
    assert constant_upper_bound(y, 3.0, np.array([1.0, 5.0, 0.0, 1.0, 0.0])) == pytest.approx(2 * 3.0 * 1 / 7)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cl_bigm_with_integer_weights_is_cl_bigm_on_duplicated_rows(seed):
    """The MIQP (16)-(28), under a node limit and proved optimal (gap 0) on a tiny instance, from
    both layers: the weighted optimum is the duplicated one and the weighted brute force; the
    relaxation, the bound (LB) and the per-feature M_j agree as well (weights 0 kept in the model)."""
    data = with_weights(tiny(seed), seed + 10)
    copies = duplicated(data)
    upper = constant_upper_bound(data.y, C, data.weights)
    assert upper == pytest.approx(constant_upper_bound(copies.y, C), rel=1e-12)
    M, lower, _ = feature_big_m(data, C, upper, "clarabel")
    M_copies, lower_copies, _ = feature_big_m(copies, C, upper, "clarabel")
    assert lower == pytest.approx(lower_copies, rel=1e-6, abs=1e-8)
    assert np.allclose(M, M_copies, rtol=1e-5)
    brute = enumerate_cl(data)
    assert brute == pytest.approx(enumerate_cl(copies), rel=1e-6, abs=1e-8)
    options = {"limits/nodes": 10_000, "limits/gap": 0.0}
    for modeller in cl_bigm.MODELLERS:
        values = []
        for instance in (data, copies):
            model = cl_bigm.build(instance, C, M, modeller=modeller)
            report = solve(model.model, ProblemClass.MIQP, "scip", options)
            assert report.status is Status.OPTIMAL, (modeller, report)
            values.append(report.objective)
            assert model.solution().objective == pytest.approx(report.objective, rel=1e-6, abs=1e-8)
        assert values[0] == pytest.approx(values[1], rel=1e-6, abs=1e-8), modeller
        assert values[0] == pytest.approx(brute, rel=1e-6, abs=1e-8), modeller
        relaxed = [solve(cl_bigm.build(instance, C, M, relax=True, modeller="cvxpy").model, ProblemClass.QP,
                         "clarabel").objective for instance in (data, copies)]
        assert relaxed[0] == pytest.approx(relaxed[1], rel=1e-6, abs=1e-8) and relaxed[0] <= brute + 1e-6


@pytest.mark.skipif(not ipopt_available(), reason="cyipopt is not installed")
def test_ipopt_relaxation_with_integer_weights_is_the_relaxation_on_duplicated_rows():
    data = with_weights(tiny(1), 3)
    start = CLSolution(tuple(np.zeros(2) for _ in data.n_categories), np.zeros(1), 0.0,
                       tuple(np.full((k, 2), 0.5) for k in data.n_categories), 0.0)
    (weighted, report), (copied, copied_report) = (solve_relaxation_ipopt(instance, C, start)
                                                   for instance in (data, duplicated(data)))
    assert report.termination == copied_report.termination == "locally_optimal"
    assert weighted.objective == pytest.approx(copied.objective, rel=1e-5)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_drops_the_samples_of_weight_zero(strategy):
    """Samples of weight 0 (here with labels flipped and features scaled by 1000) change nothing:
    every strategy returns exactly what it returns without them."""
    data = with_weights(tiny(2, n=24), 5)
    zero = data.weights == 0
    noisy = dataclasses.replace(data, y=np.where(zero, -data.y, data.y),
                                numeric=np.where(zero[:, None], 1000.0 * data.numeric, data.numeric))
    design = design_of(data)
    options = {"limits/nodes": 50} if strategy in ("clm", "cl") else None
    first, second = (run_strategy(strategy, StrategyInputs(design, instance), C, draws=3, options=options)
                     for instance in (noisy, data.support()))
    assert first.objective == second.objective
    assert [a.tolist() for a in first.card.assignment] == [a.tolist() for a in second.card.assignment]
