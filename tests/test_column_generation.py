"""Boolean rules via column generation: binarisation, master and pricing models, the loop's bound
against enumeration and brute force, the heuristics' objectives against the bound, honest stops."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import optrules
from optrules.binarize import binarize
from optrules.data import validate_features
from optrules.exact.column_generation import (DUALITY_TOLERANCE, LAGRANGIAN_STOP, DualPoint, PricedPoint, RuleProblem,
                                              _column_mass, _integral, column_generation, rule_objective)
from optrules.exact.rule_pricing import beam_pricing, search_pricing
from optrules.models import rule_pricing
from optrules.models.matrix import matrix_constraint
from optrules.models.rule_master import RuleMaster
from optrules.registry import make_estimator
from optrules.solvers import SolverError, Status, solve


def random_problem(seed: int, n_samples: int = 60, n_features: int = 4) -> tuple[pd.DataFrame, np.ndarray, RuleProblem]:
    """Binary features ('0'/'1' categories: two literals each, x == 0 and x == 1) and a noisy DNF label."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, size=(n_samples, n_features))
    if n_features >= 4:
        label = (bits[:, 0] & bits[:, 1]) | (bits[:, 2] & (1 - bits[:, 3]))
    else:
        label = bits[:, 0] ^ bits[:, 1]  # two clauses of two literals
    label = np.where(rng.random(n_samples) < 0.15, 1 - label, label).astype(bool)
    X = pd.DataFrame({f"f{j}": pd.Categorical(bits[:, j].astype(str)) for j in range(n_features)})
    frame, schema = validate_features(X)
    literals = binarize(frame, schema)
    return X, label, RuleProblem.from_samples(literals.matrix, label)


def all_clauses(n_literals: int, max_literals: int) -> list[tuple[int, ...]]:
    return [c for d in range(max_literals + 1) for c in itertools.combinations(range(n_literals), d)]


def master_over(problem: RuleProblem, clauses: list[tuple[int, ...]], penalty: float,
                max_complexity: float | None, modeller: str = "pyomo") -> RuleMaster:
    """The master (1)-(4) with a column for every clause listed."""
    master = RuleMaster(problem.pos[problem.positive_rows], max_complexity, modeller)
    master.add_columns(*problem.columns(clauses, penalty))
    return master


def full_lp_value(problem: RuleProblem, clauses: list[tuple[int, ...]], penalty: float,
                  max_complexity: float | None) -> float:
    """The master LP over every clause listed (the space enumerated)."""
    master = master_over(problem, clauses, penalty, max_complexity)
    report = solve(master.model, master.problem_class, "highs")
    assert report.status is Status.OPTIMAL
    return report.objective


def brute_force_optimum(problem: RuleProblem, clauses: list[tuple[int, ...]], penalty: float,
                        max_complexity: float | None) -> float:
    """min of (1) over every subset of clauses. Only the cheapest clause of each distinct coverage can
    be in an optimal set, and only clauses covering a positive row, so the subsets of those suffice."""
    cover = problem.coverage(clauses)
    cheapest: dict[bytes, tuple[int, ...]] = {}
    for k, clause in enumerate(clauses):
        key = cover[:, k].tobytes()
        if (problem.pos[cover[:, k]] > 0).any() and (key not in cheapest or len(clause) < len(cheapest[key])):
            cheapest[key] = clause
    distinct = list(cheapest.values())
    assert len(distinct) <= 14, "instance too large to brute-force"
    best = rule_objective(problem, [], penalty)
    for size in range(1, len(distinct) + 1):
        for subset in itertools.combinations(distinct, size):
            if max_complexity is None or sum(1 + len(c) for c in subset) <= max_complexity:
                best = min(best, rule_objective(problem, list(subset), penalty))
    return best


def enumerated_optimum(problem: RuleProblem, clauses: list[tuple[int, ...]], penalty: float,
                       max_complexity: float | None) -> float:
    """The integer master (1)-(4) over every clause listed, solved to optimality."""
    master = master_over(problem, clauses, penalty, max_complexity)
    master.set_integrality(True)
    report = solve(master.model, master.problem_class, "highs")
    assert report.status is Status.OPTIMAL
    chosen = [clauses[k] for k in np.flatnonzero(master.values() > 0.5)]
    assert rule_objective(problem, chosen, penalty) == pytest.approx(report.objective)
    return report.objective


# --------------------------------------------------------------------------- binarisation
def test_binarisation_quantile_thresholds_both_directions_and_explicit_missing():
    values = np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10, np.nan])
    X = pd.DataFrame({"age": values, "colour": pd.Categorical(["r", "g", "b", None, "r", "g", "b", "r", "g", "b", "r"])})
    frame, schema = validate_features(X)
    literals = binarize(frame, schema, n_thresholds=3)
    text = [str(c) for c in literals.conditions]
    # quartiles of 1..10: 3.25, 5.5, 7.75, in both directions
    for t in ("3.25", "5.5", "7.75"):
        assert f"age in [min, {t}]" in text and f"age in ({t}, max]" in text
    assert "age is missing" in text and "age in [min, max]" in text
    assert {"colour in {r}", "colour not in {r}", "colour is missing", "colour in {b, g, r}"} <= set(text)
    # a missing value satisfies only "is missing"
    truth = literals.matrix
    missing_age = np.flatnonzero(np.isnan(values))[0]
    satisfied = {text[j] for j in np.flatnonzero(truth[missing_age]) if literals.conditions[j].feature == "age"}
    assert satisfied == {"age is missing"}
    missing_colour = 3
    satisfied = {text[j] for j in np.flatnonzero(truth[missing_colour]) if literals.conditions[j].feature == "colour"}
    assert satisfied == {"colour is missing"}
    # evaluate() on the training frame reproduces the truth table
    assert (literals.evaluate(frame) == truth).all()


def test_binarisation_drops_constant_and_duplicate_literals():
    X = pd.DataFrame({"two": pd.Categorical(["a", "b", "a", "b"]), "one": pd.Categorical(["c"] * 4)})
    frame, schema = validate_features(X)
    literals = binarize(frame, schema)
    assert [str(c) for c in literals.conditions] == ["two in {a}", "two in {b}"]  # != a is == b; 'one' is constant
    with pytest.raises(ValueError, match="n_thresholds"):
        binarize(frame, schema, n_thresholds=0)


# --------------------------------------------------------------------------- models
def test_highs_writes_lp_duals_into_a_dual_suffix_and_scip_refuses():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(2), bounds=(0, None))
    m.rows = matrix_constraint(np.array([[1.0, 1.0], [1.0, 0.0]]), [m.x[0], m.x[1]], lower=np.array([2.0, 0.5]))
    m.cap = pyo.Constraint(expr=m.x[1] <= 1.0)
    m.obj = pyo.Objective(expr=3 * m.x[0] + 1 * m.x[1])
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    report = solve(m, "LP", "highs")
    # optimum x = (1, 1): both cover rows bind, the cap binds; duals 3, 0 and 3 - 1 = 2 on the cap (<=: -2)
    assert report.objective == pytest.approx(4.0)
    assert m.dual[m.rows[0]] == pytest.approx(3.0)
    assert m.dual[m.rows[1]] == pytest.approx(0.0, abs=1e-9)
    assert m.dual[m.cap] == pytest.approx(-2.0)
    with pytest.raises(SolverError, match="duals"):
        solve(m, "LP", "scip")


@pytest.mark.parametrize("seed", range(3))
def test_master_lp_and_duals_agree_between_pyomo_and_cvxpy(seed):
    _, _, problem = random_problem(seed)
    clauses = all_clauses(problem.truth.shape[1], 1)
    values = []
    for modeller in ("pyomo", "cvxpy"):
        master = master_over(problem, clauses, 0.5, 6.0, modeller)
        solver = "highs" if modeller == "pyomo" else "clarabel"
        report = solve(master.model, master.problem_class, solver)
        mu, lam = master.duals()
        # dual objective = primal objective (strong duality): sum mu - C lam
        assert mu.sum() - 6.0 * lam == pytest.approx(report.objective, abs=1e-5)
        values.append(report.objective)
    assert values[0] == pytest.approx(values[1], abs=1e-5)


@pytest.mark.parametrize("seed", range(12))
def test_search_pricing_and_the_pricing_ilp_prove_the_same_minimum(seed):
    rng = np.random.default_rng(seed)
    truth = rng.random((40, 8)) < 0.5
    gain = rng.choice([1.0, -1.0, -2.5, 0.5], size=40)
    kappa = float(rng.choice([0.1, 0.5, 1.0]))
    enumerated = min(float(gain[truth[:, list(c)].all(axis=1)].sum()) + kappa * (1 + len(c))
                     for c in all_clauses(8, 2))
    searched = search_pricing(truth, gain, kappa, 2, limit=5)
    assert searched.complete
    if enumerated < -1e-6:  # an improving clause exists: the search finds the least and proves it
        assert searched.lower_bound == pytest.approx(enumerated)
        assert searched.clauses[0][1] == pytest.approx(enumerated)
    else:  # none exists: the search proves it (its bound is at the tolerance or above, at most the least)
        assert -1e-6 <= searched.lower_bound <= enumerated + 1e-9 and not searched.clauses
    keep = np.flatnonzero(gain != 0)
    model = rule_pricing.build(truth[keep], gain[keep], kappa, 2)
    report = solve(model.model, rule_pricing.problem_class(), "highs")
    assert report.status is Status.OPTIMAL
    assert report.objective == pytest.approx(enumerated)
    chosen = model.chosen()
    assert float(gain[truth[:, chosen].all(axis=1)].sum()) + kappa * (1 + len(chosen)) == pytest.approx(enumerated)
    # the beam search is a heuristic: never better than the minimum, each clause's cost exact
    for clause, rc in beam_pricing(truth, gain, kappa, 2, width=3, limit=5).clauses:
        assert rc >= enumerated - 1e-9
        assert rc == pytest.approx(float(gain[truth[:, list(clause)].all(axis=1)].sum()) + kappa * (1 + len(clause)))


# --------------------------------------------------------------------------- the loop against enumeration
@pytest.mark.parametrize("seed,max_complexity,pricing", [(0, None, "search"), (1, 8.0, "search"),
                                                         (2, None, "ilp"), (3, 6.0, "ilp"), (4, 9.0, "search")])
def test_certified_bound_is_the_lp_over_all_conjunctions_and_brackets_the_brute_force_optimum(
        seed, max_complexity, pricing):
    _, _, problem = random_problem(seed)
    penalty = 0.5
    result = column_generation(problem, penalty, 2, max_complexity, pricing=pricing)
    assert result.certified and result.stop_reason == "pricing proved no improving column"
    clauses = all_clauses(problem.truth.shape[1], 2)
    lp = full_lp_value(problem, clauses, penalty, max_complexity)
    assert result.best_bound == pytest.approx(lp, abs=1e-6)
    assert result.lp_value == pytest.approx(lp, abs=1e-6)
    optimum = enumerated_optimum(problem, clauses, penalty, max_complexity)
    assert result.best_bound <= optimum + 1e-6
    assert result.objective >= optimum - 1e-9
    assert result.objective == pytest.approx(rule_objective(problem, result.clauses, penalty))
    if max_complexity is not None:
        assert sum(1 + len(c) for c in result.clauses) <= max_complexity
    if result.gap == 0.0:
        assert result.objective == pytest.approx(optimum)


@pytest.mark.parametrize("seed,max_complexity", [(0, None), (1, 7.0), (2, None), (3, 5.0)])
def test_on_tiny_instances_the_enumerated_optimum_is_the_brute_force_one(seed, max_complexity):
    _, _, problem = random_problem(seed, n_samples=30, n_features=2)
    clauses = all_clauses(problem.truth.shape[1], 2)
    optimum = brute_force_optimum(problem, clauses, 0.5, max_complexity)
    assert enumerated_optimum(problem, clauses, 0.5, max_complexity) == pytest.approx(optimum)
    result = column_generation(problem, 0.5, 2, max_complexity)
    assert result.certified and result.best_bound <= optimum + 1e-6 <= result.objective + 2e-6
    if result.gap == 0.0:
        assert result.objective == pytest.approx(optimum)


@pytest.mark.parametrize("seed", range(3))
def test_bound_is_below_every_heuristic_rule_set_on_the_same_binarisation(seed):
    """setcover, setcover-greedy and libre learn rules over the same binary features (each of their
    atoms is a literal x == v), so (1) of their rule sets is bounded by the certified bound."""
    X, label, problem = random_problem(seed, n_samples=80, n_features=4)
    y = np.where(label, "yes", "no")
    penalty = 0.5
    brcg = make_estimator("brcg", max_literals=4, complexity_penalty=penalty, positive="yes").fit(X, y).ruleset_
    assert brcg.meta["certified"]
    bound = brcg.meta["best_bound"]
    frame, schema = validate_features(X)
    literals = binarize(frame, schema)
    for name, params in (("setcover", {"candidates": {"max_len": 4, "min_support": 0.0}}),
                         ("setcover-greedy", {"candidates": {"max_len": 4, "min_support": 0.0}}),
                         ("libre", {"n_estimators": 3, "random_state": 0})):
        ruleset = make_estimator(name, positive="yes", **params).fit(X, y).ruleset_
        clauses = []
        for rule in ruleset.rules:
            # each atom is one literal: find it by its truth column on the training data
            clause = []
            for condition in rule.conditions:
                column = condition.evaluate(frame[condition.feature].to_numpy())
                matches = np.flatnonzero((literals.matrix == column[:, None]).all(axis=0))
                assert matches.size == 1, f"{name}'s condition {condition} is not a literal"
                clause.append(int(matches[0]))
            clauses.append(tuple(sorted(clause)))
        assert rule_objective(problem, clauses, penalty) >= bound - 1e-6, name
    assert brcg.meta["objective"] >= bound - 1e-9


def test_tic_tac_toe_eight_win_lines_with_a_certified_gap_of_zero():
    X, y = optrules.load("tic_tac_toe")
    ruleset = make_estimator("brcg", positive="positive", complexity_penalty=0.5).fit(X, y).ruleset_
    assert len(ruleset.rules) == 8 and all(rule.n_atoms == 3 for rule in ruleset.rules)
    assert ruleset.meta["certified"] and ruleset.meta["gap"] == 0.0
    assert ruleset.meta["objective"] == pytest.approx(8 * 4 * 0.5)  # no error: only the rules' complexity
    meta = ruleset.meta  # the counts of the loop, each under its own key
    assert meta["exact_pricing_statuses"][-1] == "optimal" and len(meta["exact_pricing_statuses"]) == \
        meta["exact_pricing_calls"] >= 1
    assert isinstance(meta["search_nodes"], int) and meta["search_nodes"] >= meta["exact_pricing_calls"]
    assert meta["heuristic_pricing_calls"] == meta["cg_iterations"] and meta["n_columns"] >= 8
    lines = {frozenset(c.feature for c in rule.conditions) for rule in ruleset.rules}
    rows, cols = ("top", "middle", "bottom"), ("left", "middle", "right")
    squares = [[f"{r}-{c}-square" for c in cols] for r in rows]
    wins = [frozenset(row) for row in squares] + [frozenset(squares[i][j] for i in range(3)) for j in range(3)]
    wins += [frozenset(squares[i][i] for i in range(3)), frozenset(squares[i][2 - i] for i in range(3))]
    assert lines == set(wins)
    assert (ruleset.predict(X) == y).all()


# --------------------------------------------------------------------------- honest stops
def test_an_iteration_limit_reports_an_uncertified_bound():
    _, _, problem = random_problem(0, n_samples=120, n_features=6)
    result = column_generation(problem, 0.5, 3, max_iterations=1)
    assert not result.certified
    assert result.stop_reason == "iteration_limit"
    if result.best_bound is None:
        assert "only the generated clauses" in result.bound_covers and result.gap is None
    else:
        assert "Lagrangian" in result.bound_covers and result.best_bound <= result.objective + 1e-9


def test_sampled_pricing_is_never_certified():
    _, _, problem = random_problem(1, n_samples=120, n_features=6)
    result = column_generation(problem, 0.5, 2, pricing_rows=20, pricing_literals=6, random_state=0)
    assert not result.certified and result.best_bound is None and result.gap is None
    assert result.stop_reason in ("no improving column on the sample", "iteration_limit")


@pytest.mark.parametrize("stopped", [False, True], ids=["proven", "stopped at a limit"])
def test_an_integer_master_stopped_with_the_start_says_it_fell_back(monkeypatch, stopped):
    """An integer master that stops at a limit with no incumbent better than the greedy start returns
    the start and says so (fallback 'start'), as setcover and clm do; before, brcg reported it as its
    own solution. The same solution proven optimal is the method's own. (The stop is simulated: the
    real solve's report is marked stopped at a limit, so this does not depend on speed.)"""
    import dataclasses

    import optrules.exact.column_generation as cg

    real = cg.solve

    def solve(model, problem_class, *args, **kwargs):
        report = real(model, problem_class, *args, **kwargs)
        if stopped and problem_class.name == "MILP":
            report = dataclasses.replace(report, status=Status.FEASIBLE, termination="time_limit")
        return report

    monkeypatch.setattr(cg, "solve", solve)
    _, _, problem = random_problem(3)
    result = column_generation(problem, 0.5, 2)
    if result.objective < result.start_objective - 1e-9:
        pytest.skip("the integer master improved on the start here")  # not the case this test is about
    assert result.fallback == ("start" if stopped else None)
    assert ("no incumbent better than the greedy selection" in result.fallback_reason) == stopped


def test_a_spent_time_limit_returns_without_a_bound_or_certificate():
    _, _, problem = random_problem(2)
    result = column_generation(problem, 0.5, 2, solver_options={"time_limit": 1e-9})
    assert result.stop_reason == "time_limit" and not result.certified and result.best_bound is None
    assert result.objective == pytest.approx(problem.pos.sum())  # no rule: every positive uncovered
    # the rule set without rules is the start, said as such
    assert result.fallback == "start" and "before any clause was generated" in result.fallback_reason


def test_a_lagrangian_bound_from_a_stopped_search_is_valid():
    """The search stopped after a few nodes still gives a lower bound on the least reduced cost."""
    rng = np.random.default_rng(0)
    truth = rng.random((60, 10)) < 0.5
    gain = rng.choice([1.0, -1.0, -2.0], size=60)
    exact = min(float(gain[truth[:, list(c)].all(axis=1)].sum()) + 0.2 * (1 + len(c)) for c in all_clauses(10, 3))
    stopped = search_pricing(truth, gain, 0.2, 3, limit=3, deadline=0.0)  # a deadline already passed
    assert not stopped.complete and stopped.lower_bound <= exact + 1e-9


def test_estimator_rejects_bad_parameters_before_any_work():
    X, y = optrules.load("haberman")
    for params, message in (({"pricing": "guess"}, "pricing"), ({"n_thresholds": 0}, "n_thresholds"),
                            ({"max_literals": 1.5}, "max_literals"), ({"complexity_penalty": -1}, "complexity_penalty"),
                            ({"max_complexity": 0}, "max_complexity"), ({"solver": "scip"}, "gives no duals.*use solver='highs'")):
        with pytest.raises(ValueError, match=message):
            make_estimator("brcg", **params).fit(X, y)


def test_cvxpy_master_gives_the_pyomo_result():
    X, label, _ = random_problem(5, n_samples=80)
    y = np.where(label, "yes", "no")
    results = [make_estimator("brcg", max_literals=2, positive="yes", modeller=modeller, solver=solver).fit(X, y).ruleset_
               for modeller, solver in (("pyomo", "highs"), ("cvxpy", "highs"))]
    assert all(r.meta["certified"] for r in results)
    assert results[0].meta["best_bound"] == pytest.approx(results[1].meta["best_bound"], abs=1e-5)
    assert results[0].meta["objective"] == pytest.approx(results[1].meta["objective"], abs=1e-6)


def test_persistent_highs_master_gives_the_rebuilt_models_lp_value_and_duals():
    _, _, problem = random_problem(7)
    clauses = all_clauses(problem.truth.shape[1], 1)
    half = len(clauses) // 2
    session, rebuilt = (master_over(problem, clauses[:half], 1.0, 5.0) for _ in range(2))
    session.solve_lp("highs", {}, None)  # a first solve, then columns added to the same HiGHS instance
    for master in (session, rebuilt):
        master.add_columns(*problem.columns(clauses[half:], 1.0))
    warm = session.solve_lp("highs", {}, None)
    cold = solve(rebuilt.model, rebuilt.problem_class, "highs")
    assert warm.status is Status.OPTIMAL and warm.objective == pytest.approx(cold.objective, abs=1e-7)
    for master in (session, rebuilt):  # any optimal duals satisfy strong duality
        mu, lam = master.duals()
        assert mu.sum() - 5.0 * lam == pytest.approx(cold.objective, abs=1e-6)


def test_beam_only_pricing_shares_the_instance_and_never_claims_optimality():
    X, label, _ = random_problem(8, n_samples=100)
    y = np.where(label, "yes", "no")
    exact = make_estimator("brcg", max_literals=2, positive="yes").fit(X, y).ruleset_.meta
    beam = make_estimator("brcg-beam", max_literals=2, positive="yes").fit(X, y).ruleset_.meta
    assert exact["instance"] == beam["instance"]
    assert beam["best_bound"] is None and not beam["certified"] and beam["status"] == "feasible"
    assert "heuristic pricing" in beam["stop_reason"]
    assert beam["objective"] >= exact["best_bound"] - 1e-9  # the heuristic against the certified bound
    assert exact["status"] == ("optimal" if exact["gap"] == 0.0 else "feasible")


def test_duals_that_break_strong_duality_are_refused_not_priced(monkeypatch):
    """A solver whose LP duals are missing or wrong would make every clause look unprofitable and
    'certify' the empty rule set: the loop checks strong duality and refuses them."""
    _, _, problem = random_problem(9)

    class NoDuals(RuleMaster):
        def duals(self):
            mu, lam = super().duals()
            return np.zeros_like(mu), 0.0

    import optrules.exact.column_generation as cg

    monkeypatch.setattr(cg, "RuleMaster", NoDuals)
    with pytest.raises(SolverError, match="strong duality"):
        column_generation(problem, 0.5, 2)
    monkeypatch.undo()
    X, label, _ = random_problem(9)
    with pytest.raises(ValueError, match="gives no duals.*use solver=.highs."):
        make_estimator("brcg", modeller="cvxpy", solver="scip").fit(X, np.where(label, "a", "b"))


# --------------------------------------------------------------------------- sample weights
def weighted_samples(seed: int, n_samples: int = 50) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Two binary features, a numeric one with missing values, a noisy label and integer weights in 0..3."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, size=(n_samples, 2))
    number = np.where(rng.random(n_samples) < 0.1, np.nan, rng.integers(0, 8, n_samples).astype(float))
    label = ((bits[:, 0] & bits[:, 1]) | (np.nan_to_num(number) > 5)).astype(bool)
    label = np.where(rng.random(n_samples) < 0.15, ~label, label)
    X = pd.DataFrame({"f0": pd.Categorical(bits[:, 0].astype(str)), "f1": pd.Categorical(bits[:, 1].astype(str)),
                      "n": number})
    weights = rng.integers(0, 4, n_samples)
    weights[[np.flatnonzero(label)[0], np.flatnonzero(~label)[0]]] = 1
    return X, label, weights


def weighted_and_duplicated(seed: int, n_thresholds: int = 3) -> tuple[RuleProblem, RuleProblem]:
    X, label, weights = weighted_samples(seed)
    frame, schema = validate_features(X)
    literals = binarize(frame, schema, n_thresholds, weights=weights.astype(float))
    copies = np.repeat(np.arange(len(X)), weights)
    frame_d, schema_d = validate_features(X.iloc[copies].reset_index(drop=True))
    literals_d = binarize(frame_d, schema_d, n_thresholds)
    assert [str(c) for c in literals.conditions] == [str(c) for c in literals_d.conditions]
    assert (literals.matrix[copies] == literals_d.matrix).all()
    return (RuleProblem.from_samples(literals.matrix, label, weights=weights.astype(float)),
            RuleProblem.from_samples(literals_d.matrix, label[copies]))


@pytest.mark.parametrize("seed", range(6))
def test_integer_weights_give_the_problem_of_duplicated_rows(seed):
    weighted, duplicated = weighted_and_duplicated(seed)
    assert (weighted.truth == duplicated.truth).all()
    assert (weighted.pos == duplicated.pos).all() and (weighted.neg == duplicated.neg).all()
    assert weighted.digest(0.5, 2, None) == duplicated.digest(0.5, 2, None)


@pytest.mark.parametrize("seed,max_complexity", [(0, None), (1, 6.0), (2, None)])
def test_integer_weights_give_the_optimum_and_bound_of_duplicated_rows(seed, max_complexity):
    weighted, duplicated = weighted_and_duplicated(seed, n_thresholds=2)
    results = [column_generation(problem, 0.5, 2, max_complexity) for problem in (weighted, duplicated)]
    assert results[0].certified and results[1].certified
    assert results[0].objective == results[1].objective and results[0].best_bound == results[1].best_bound
    clauses = all_clauses(weighted.truth.shape[1], 2)
    assert results[0].best_bound <= enumerated_optimum(weighted, clauses, 0.5, max_complexity) + 1e-6


def test_binarize_thresholds_are_weighted_quantiles_and_unit_weights_change_nothing():
    X = pd.DataFrame({"age": [1.0, 2.0, 3.0, 4.0, np.nan, 100.0], "colour": ["r", "g", "b", "r", "g", "b"]})
    frame, schema = validate_features(X)
    plain = binarize(frame, schema, n_thresholds=1)
    ones = binarize(frame, schema, n_thresholds=1, weights=np.ones(6))
    assert ones.conditions == plain.conditions and (ones.matrix == plain.matrix).all()
    # weight 3 on age 1 and 0 on the missing value and on 100: the median of 1, 1, 1, 2, 3, 4 is 1.5,
    # no missing literal, and "b" is decided on the one row of positive weight that has it
    weighted = binarize(frame, schema, n_thresholds=1, weights=np.array([3.0, 1.0, 1.0, 1.0, 0.0, 0.0]))
    text = [str(c) for c in weighted.conditions]
    assert "age in [min, 1.5]" in text and "age in (1.5, max]" in text
    assert not any("missing" in t for t in text)
    assert weighted.matrix.shape == (6, len(text))  # a row per sample, the weightless ones included
    # fractional weights: a row of weight w counts as w copies; with 0.5 x 1, 2, 3, 4 (total 3.5) the
    # median's virtual index is (3.5 - 1) / 2 = 1.25, a quarter of the way from 2 to 3
    half = binarize(frame, schema, n_thresholds=1, weights=np.array([0.5, 1.0, 1.0, 1.0, 0.0, 0.0]))
    assert "age in [min, 2.25]" in [str(c) for c in half.conditions]


def test_a_threshold_is_written_without_interpolation_noise_unless_that_would_move_a_value():
    """The median of 102.4 and 102.52 is 102.46000000000001 in floating point, and the rules printed it
    so (review, imports-85's wheel-base): it becomes 102.46, which splits the values alike."""
    X = pd.DataFrame({"base": [102.4, 102.52]})
    frame, schema = validate_features(X)
    text = [str(c) for c in binarize(frame, schema, n_thresholds=1).conditions]
    assert 0.5 * (102.4 + 102.52) != 102.46 and text == ["base in [min, 102.46]", "base in (102.46, max]"]
    # a value between the quantile and its 15-digit spelling keeps the quantile as it is
    close = np.array([1.0, 1.0000000000000002, 1.0000000000000004])
    frame, schema = validate_features(pd.DataFrame({"x": close}))
    thresholds = [c.intervals[0].high for c in binarize(frame, schema, n_thresholds=1).conditions[:1]]
    assert thresholds == [float(np.quantile(close, 0.5))]


def test_rows_of_weight_zero_leave_the_problem():
    matrix = np.array([[1, 0], [1, 0], [0, 1], [1, 1], [1, 1]], dtype=bool)
    is_positive = np.array([True, False, True, False, True])
    unit = RuleProblem.from_samples(matrix, is_positive)
    ones = RuleProblem.from_samples(matrix, is_positive, weights=np.ones(5))
    assert ones.digest(1.0, 2, None) == unit.digest(1.0, 2, None)
    # the pattern [1, 1] weighs 0 in total and goes; [1, 0] keeps its positive of weight 2.5 alone
    weighted = RuleProblem.from_samples(matrix, is_positive, weights=np.array([2.5, 0.0, 1.0, 0.0, 0.0]))
    assert weighted.truth.tolist() == [[False, True], [True, False]]
    assert weighted.pos.tolist() == [1.0, 2.5] and weighted.neg.tolist() == [0.0, 0.0]
    removed = RuleProblem.from_samples(matrix[[0, 2]], is_positive[[0, 2]], weights=np.array([2.5, 1.0]))
    assert weighted.digest(1.0, 2, None) == removed.digest(1.0, 2, None)
    with pytest.raises(ValueError, match="weights"):
        RuleProblem.from_samples(matrix, is_positive, weights=np.ones(4))


def test_fractional_weights_are_not_rounded_and_bracket_the_brute_force_optimum():
    X, label, weights = weighted_samples(4, n_samples=30)
    fractional = weights * 0.37
    frame, schema = validate_features(X[["f0", "f1"]])
    literals = binarize(frame, schema, weights=fractional)
    problem = RuleProblem.from_samples(literals.matrix, label, weights=fractional)
    clauses = all_clauses(problem.truth.shape[1], 2)
    optimum = brute_force_optimum(problem, clauses, 0.5, None)
    result = column_generation(problem, 0.5, 2)
    assert result.certified and result.best_bound <= optimum + 1e-6 <= result.objective + 2e-6
    assert result.best_bound != math.ceil(result.best_bound - 1e-6)  # the bound of (1) in fractions, unrounded


@pytest.mark.parametrize("seed,max_complexity", [(5, None), (6, 7.0)])
def test_pricing_ilp_by_scip_certifies_the_bound_and_rule_set_of_highs(seed, max_complexity):
    """The pricing solver is chosen apart from the master's: the pricing ILP (5)-(9) solved by SCIP
    proves the same LP bound over all conjunctions and leads to the same objective as with HiGHS."""
    _, _, problem = random_problem(seed)
    results = {solver: column_generation(problem, 0.5, 2, max_complexity, pricing="ilp", pricing_solver=solver,
                                         pricing_options={"limits/nodes": 10_000} if solver == "scip" else {})
               for solver in ("highs", "scip")}
    highs, scip = results["highs"], results["scip"]
    assert highs.certified and scip.certified
    assert scip.exact_pricing_calls >= 1 and set(scip.pricing_statuses) == {"optimal"}
    lp = full_lp_value(problem, all_clauses(problem.truth.shape[1], 2), 0.5, max_complexity)
    assert scip.best_bound == pytest.approx(highs.best_bound, abs=1e-6)
    assert scip.lp_value == pytest.approx(lp, abs=1e-6)
    optimum = enumerated_optimum(problem, all_clauses(problem.truth.shape[1], 2), 0.5, max_complexity)
    assert scip.best_bound <= optimum + 1e-6 <= scip.objective + 2e-6
    if highs.gap == 0.0 and scip.gap == 0.0:
        assert scip.objective == pytest.approx(highs.objective)


@pytest.mark.parametrize("seed,penalty", [(0, 0.5), (1, 1.0), (2, 2.0), (3, 0.25)])
def test_lagrangian_bound_with_the_column_mass_from_the_lp_value_is_below_the_full_lp(seed, penalty):
    """sum w of an optimal LP over all clauses is at most z_RMP / penalty, so the Lagrangian bound of
    any restricted master with that W stays below the LP optimum over all clauses."""
    _, _, problem = random_problem(seed)
    clauses = all_clauses(problem.truth.shape[1], 2)
    full = master_over(problem, clauses, penalty, None)
    full_report = full.solve_lp("highs", {}, None)
    assert full_report.status is Status.OPTIMAL
    optimum_lp = full_report.objective
    rng = np.random.default_rng(seed)
    subset = [clauses[k] for k in rng.choice(len(clauses), size=6, replace=False)]
    restricted = master_over(problem, subset, penalty, None)
    report = restricted.solve_lp("highs", {}, None)
    z_rmp = report.objective
    mu, lam = restricted.duals()
    gain = problem.neg.copy()
    gain[problem.positive_rows] -= mu
    cover = problem.coverage(clauses)
    rc = gain @ cover + (penalty + lam) * np.array([1.0 + len(c) for c in clauses])
    W = float(problem.positive_rows.size + 1)
    mass = _column_mass(W, z_rmp, penalty)
    assert mass <= z_rmp / penalty + 1e-12
    assert full.values().sum() <= mass + 1e-6
    assert z_rmp + mass * min(0.0, float(rc.min())) <= optimum_lp + 1e-6


# --------------------------------------------------------------------------- dual smoothing and Lagrangian bounds
@st.composite
def small_instances(draw):
    """A random small instance (two to four binary features, D = 2: every conjunction enumerable) and
    the objective's parameters."""
    seed = draw(st.integers(0, 10**6))
    n_samples = draw(st.integers(20, 80))
    n_features = draw(st.integers(2, 4))
    max_complexity = draw(st.sampled_from([None, 5.0, 8.0]))
    penalty = draw(st.sampled_from([0.25, 0.5, 1.0]))
    _, _, problem = random_problem(seed, n_samples, n_features)
    return problem, penalty, max_complexity


def lp_optimum_as_certified(problem: RuleProblem, penalty: float, max_complexity: float | None) -> float:
    """The LP optimum over every conjunction of at most 2 literals, rounded up when (1) is integral
    (the bound a certified fit reports then)."""
    lp = full_lp_value(problem, all_clauses(problem.truth.shape[1], 2), penalty, max_complexity)
    return math.ceil(lp - 1e-6) if _integral(problem, penalty) else lp


@settings(derandomize=True, max_examples=40, deadline=None)
@given(instance=small_instances(), smoothing=st.sampled_from(["auto", 0.3, 0.8]))
def test_smoothed_column_generation_certifies_the_lp_over_all_conjunctions(instance, smoothing):
    problem, penalty, max_complexity = instance
    clauses = all_clauses(problem.truth.shape[1], 2)
    lp = full_lp_value(problem, clauses, penalty, max_complexity)
    result = column_generation(problem, penalty, 2, max_complexity, smoothing=smoothing)
    assert result.certified
    # every Lagrangian bound of an exact pricing, at a smoothed point or the master's duals, is valid
    assert all(bound <= lp + 1e-6 for bound in result.lagrangian_bounds)
    if result.stop_reason == LAGRANGIAN_STOP:
        assert "Lagrangian bound of an exact pricing reached" in result.bound_covers
    else:
        assert result.stop_reason == "pricing proved no improving column"
        assert "pricing proved the LP optimal" in result.bound_covers
    # either certificate: the bound is the LP optimum over all conjunctions (rounded up when (1) is
    # integral), to the tolerance of the duals' strong-duality check
    expected = lp_optimum_as_certified(problem, penalty, max_complexity)
    assert abs(result.best_bound - expected) <= DUALITY_TOLERANCE * max(1.0, abs(lp)) + 1e-9
    assert result.best_bound <= enumerated_optimum(problem, clauses, penalty, max_complexity) + 1e-6


@settings(derandomize=True, max_examples=40, deadline=None)
@given(instance=small_instances(), smoothing=st.sampled_from(["auto", 0.5, None]),
       max_iterations=st.integers(1, 4))
def test_a_run_stopped_by_max_iterations_reports_a_valid_bound(instance, smoothing, max_iterations):
    problem, penalty, max_complexity = instance
    result = column_generation(problem, penalty, 2, max_complexity, smoothing=smoothing,
                               max_iterations=max_iterations)
    expected = lp_optimum_as_certified(problem, penalty, max_complexity)
    if result.best_bound is not None:
        assert result.best_bound <= expected + 1e-6
    lp = full_lp_value(problem, all_clauses(problem.truth.shape[1], 2), penalty, max_complexity)
    assert all(bound <= lp + 1e-6 for bound in result.lagrangian_bounds)
    if not result.certified:
        assert result.stop_reason == "iteration_limit"


def test_smoothing_off_prices_the_masters_duals_only():
    _, _, problem = random_problem(3, n_samples=120, n_features=5)
    result = column_generation(problem, 0.5, 3, smoothing=None)
    assert result.certified and result.mispricings == 0
    assert result.stop_reason in ("pricing proved no improving column", LAGRANGIAN_STOP)
    with pytest.raises(ValueError, match="smoothing"):
        column_generation(problem, 0.5, 3, smoothing=1.0)


@pytest.mark.parametrize("seed", range(40))
def test_search_pricing_ratio_and_rest_bound_hold_for_every_clause(seed):
    """Against enumeration (D up to 4, so the search's last two levels go through its Gram matrices):
    the least reduced cost, the clauses' reduced costs, and for every clause rc >= rest_bound or
    rc >= ratio * q (q = kappa c + its rows' positive gains), with and without tightening."""
    rng = np.random.default_rng(seed)
    n, n_literals, depth = int(rng.integers(10, 60)), int(rng.integers(2, 9)), int(rng.integers(1, 5))
    truth = rng.random((n, n_literals)) < rng.uniform(0.3, 0.8)
    gain = rng.choice([1.0, 2.0, -1.0, -0.3, -2.5, 0.0, 0.5], size=n)
    kappa = float(rng.choice([0.1, 0.5, 1.0]))
    clauses = all_clauses(n_literals, depth)
    cover = [truth[:, list(c)].all(axis=1) for c in clauses]
    rc = np.array([gain[c].sum() + kappa * (1 + len(k)) for k, c in zip(clauses, cover)])
    q = np.array([kappa * (1 + len(k)) + gain[c & (gain > 0)].sum() for k, c in zip(clauses, cover)])
    for tighten in (True, False):
        result = search_pricing(truth, gain, kappa, depth, limit=int(rng.integers(1, 6)), tighten=tighten)
        assert result.complete
        if rc.min() < -1e-6:
            assert result.lower_bound == pytest.approx(rc.min()) and result.clauses[0][1] == pytest.approx(rc.min())
        else:
            assert -1e-6 <= result.lower_bound <= rc.min() + 1e-9 and not result.clauses
        for clause, value in result.clauses:
            assert value == pytest.approx(rc[clauses.index(tuple(sorted(clause)))])
        assert np.all((rc >= result.rest_bound - 1e-9) | (rc >= result.ratio * q - 1e-9))
        if not tighten:
            assert result.rest_bound >= -1e-6 - 1e-12


def test_lagrangian_bound_at_any_dual_point_is_below_the_full_lp():
    """The two Lagrangian bounds (the column mass W and the ratio one) at dual points that are not
    the master's: interpolations between 0 and the restricted master's duals, and beyond them."""
    _, _, problem = random_problem(4, n_samples=80, n_features=4)
    clauses = all_clauses(problem.truth.shape[1], 2)
    penalty = 0.5
    lp = full_lp_value(problem, clauses, penalty, 6.0)
    restricted = master_over(problem, clauses[:5], penalty, 6.0)
    report = restricted.solve_lp("highs", {}, None)
    mu, lam = restricted.duals()
    mass = _column_mass(6.0, report.objective, penalty)
    for scale in (0.0, 0.3, 0.7, 1.0, 1.3):
        point = DualPoint(np.minimum(scale * mu, restricted.pos_weight), scale * lam)
        gain = problem.neg.copy()
        gain[problem.positive_rows] -= point.mu
        priced = search_pricing(problem.truth, gain, penalty + point.lam, 2, limit=3, tighten=False)
        bound = PricedPoint(point, priced.lower_bound, priced.ratio, priced.rest_bound).bound(
            mass, report.objective, 6.0)
        assert bound <= lp + 1e-6


def test_an_lp_optimum_of_0_proven_by_the_pricing_is_the_bound_and_the_fit_is_optimal():
    """At complexity_penalty=0 on data a rule separates, (1) is 0 at the optimum; the pricing proved
    it, yet the bound of 0 was dropped as trivial and the fit said 'feasible', no exact pricing having
    run (review)."""
    X = pd.DataFrame({"a": ["x", "x", "y", "y", "x", "y"]})
    y = pd.Series(["pos", "pos", "neg", "neg", "pos", "neg"])
    meta = make_estimator("brcg", positive="pos", complexity_penalty=0.0).fit(X, y).ruleset_.meta
    assert meta["certified"] and meta["objective"] == 0.0 and meta["best_bound"] == 0.0 and meta["gap"] == 0.0
    assert meta["status"] == "optimal" and "pricing proved the LP optimal" in meta["bound_covers"]
