"""Tests of the solver layer (optrules.solvers): golden models, honesty at limits, errors."""

from __future__ import annotations

import itertools
import json
import math
import time
from dataclasses import replace

import cvxpy as cp
import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optrules import solvers as S
from optrules.models.matrix import matrix_constraint
from optrules.solvers import options as solver_options
from optrules.solvers import registry as solver_registry
from optrules.solvers.report import Outcome
from optrules.solvers.solving import DEFAULT_MIP_GAP, judge
from optrules.solvers import (
    SOLVERS,
    ProblemClass,
    SolveReport,
    SolverError,
    SolverNotInstalledError,
    Status,
    UnknownSolverError,
    UnsupportedProblemError,
    available_solvers,
    solve,
)

PC = ProblemClass
TINY = 0.05  # seconds: far below what the hard instances need (HiGHS needs ~100 s, see docs)


# ------------------------------------------------------------------------------------------
# Golden models with known optima (Pyomo and cvxpy forms of the same problem)
# ------------------------------------------------------------------------------------------

KNAPSACK = [(10, 5), (13, 6), (7, 4), (8, 3), (6, 2)]  # (value, weight)
CAPACITY = 10


def knapsack_optimum() -> int:
    """Brute force over all subsets."""
    return max(
        sum(v for (v, _), pick in zip(KNAPSACK, picks) if pick)
        for picks in itertools.product([0, 1], repeat=len(KNAPSACK))
        if sum(w for (_, w), pick in zip(KNAPSACK, picks) if pick) <= CAPACITY
    )


def pyomo_lp() -> pyo.ConcreteModel:
    """max x + y + 1  s.t. x + 2y <= 4, 3x + y <= 6, x, y >= 0  ->  x=1.6, y=1.2, 3.8."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, None))
    m.y = pyo.Var(bounds=(0, None))
    m.c1 = pyo.Constraint(expr=m.x + 2 * m.y <= 4)
    m.c2 = pyo.Constraint(expr=3 * m.x + m.y <= 6)
    m.obj = pyo.Objective(expr=m.x + m.y + 1, sense=pyo.maximize)
    return m


def pyomo_qp() -> pyo.ConcreteModel:
    """min (x-1)^2 + (y-2)^2 + 0.5  s.t. x + y <= 2  ->  (0.5, 1.5), 1.0."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var()
    m.y = pyo.Var()
    m.c = pyo.Constraint(expr=m.x + m.y <= 2)
    m.obj = pyo.Objective(expr=(m.x - 1) ** 2 + (m.y - 2) ** 2 + 0.5)
    return m


def pyomo_milp() -> pyo.ConcreteModel:
    """0-1 knapsack, maximised."""
    m = pyo.ConcreteModel()
    m.i = pyo.RangeSet(0, len(KNAPSACK) - 1)
    m.x = pyo.Var(m.i, domain=pyo.Binary)
    m.cap = pyo.Constraint(expr=sum(KNAPSACK[i][1] * m.x[i] for i in m.i) <= CAPACITY)
    m.obj = pyo.Objective(expr=sum(KNAPSACK[i][0] * m.x[i] for i in m.i), sense=pyo.maximize)
    return m


def pyomo_miqp() -> pyo.ConcreteModel:
    """min (x-0.4)^2 + (y-1.6)^2 + 2, x, y integer in [-5, 5], x + y <= 1  ->  (0, 1), 2.52."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Integers, bounds=(-5, 5))
    m.y = pyo.Var(domain=pyo.Integers, bounds=(-5, 5))
    m.c = pyo.Constraint(expr=m.x + m.y <= 1)
    m.obj = pyo.Objective(expr=(m.x - 0.4) ** 2 + (m.y - 1.6) ** 2 + 2)
    return m


def pyomo_minlp() -> pyo.ConcreteModel:
    """Bilinear: max x + y - 2z s.t. xy <= 2 + z, z <= x/2, x, y in [0, 4], z binary  ->  4.5.

    z=0: xy <= 2 gives x + y <= 4 + 0.5 (x=4, y=0.5); z=1: x + 3/x - 2 <= 2.75 on [2, 4].
    """
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 4))
    m.y = pyo.Var(bounds=(0, 4))
    m.z = pyo.Var(domain=pyo.Binary)
    m.bilinear = pyo.Constraint(expr=m.x * m.y <= 2 + m.z)
    m.link = pyo.Constraint(expr=m.z <= 0.5 * m.x)
    m.obj = pyo.Objective(expr=m.x + m.y - 2 * m.z, sense=pyo.maximize)
    return m


def pyomo_nlp() -> pyo.ConcreteModel:
    """Nonconvex QCQP: min x + y s.t. x^2 + y^2 >= 1, x, y in [0, 2]  ->  1 at (1, 0) or (0, 1).

    (sqrt(.5), sqrt(.5)) with 1.414 is a KKT point a local solver can stop at.
    """
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 2), initialize=1.0)
    m.y = pyo.Var(bounds=(0, 2), initialize=1.0)
    m.outside = pyo.Constraint(expr=m.x**2 + m.y**2 >= 1)
    m.obj = pyo.Objective(expr=m.x + m.y)
    return m


def cvxpy_lp() -> cp.Problem:
    x, y = cp.Variable(nonneg=True), cp.Variable(nonneg=True)
    return cp.Problem(cp.Maximize(x + y + 1), [x + 2 * y <= 4, 3 * x + y <= 6])


def cvxpy_qp() -> cp.Problem:
    x, y = cp.Variable(), cp.Variable()
    return cp.Problem(cp.Minimize(cp.square(x - 1) + cp.square(y - 2) + 0.5), [x + y <= 2])


def cvxpy_milp() -> cp.Problem:
    x = cp.Variable(len(KNAPSACK), boolean=True)
    value, weight = (np.array(col) for col in zip(*KNAPSACK))
    return cp.Problem(cp.Maximize(value @ x), [weight @ x <= CAPACITY])


def cvxpy_miqp() -> cp.Problem:
    x, y = cp.Variable(integer=True), cp.Variable(integer=True)
    return cp.Problem(cp.Minimize(cp.square(x - 0.4) + cp.square(y - 1.6) + 2),
                      [x + y <= 1, x >= -5, x <= 5, y >= -5, y <= 5])


def matrix_lp() -> pyo.ConcreteModel:
    """pyomo_lp with its constraints as one MatrixConstraint block."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(2), bounds=(0, None))
    m.rows = matrix_constraint(np.array([[1.0, 2.0], [3.0, 1.0]]), list(m.x.values()), upper=[4.0, 6.0])
    m.obj = pyo.Objective(expr=m.x[0] + m.x[1] + 1, sense=pyo.maximize)
    return m


def knapsack_40() -> pyo.ConcreteModel:
    """A 40-item knapsack whose branch and bound stops early at a 1% gap."""
    rng = np.random.default_rng(1)
    weight = rng.integers(1000, 2000, 40)
    value = weight + rng.integers(0, 10, 40)
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(40), domain=pyo.Binary)
    m.cap = pyo.Constraint(expr=sum(int(weight[j]) * m.x[j] for j in range(40)) <= int(weight.sum() // 2))
    m.obj = pyo.Objective(expr=sum(int(value[j]) * m.x[j] for j in range(40)), sense=pyo.maximize)
    return m


def matrix_milp() -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(len(KNAPSACK)), domain=pyo.Binary)
    m.cap = matrix_constraint(np.array([[w for _, w in KNAPSACK]], dtype=float), list(m.x.values()), upper=CAPACITY)
    m.obj = pyo.Objective(expr=sum(v * m.x[i] for i, (v, _) in enumerate(KNAPSACK)), sense=pyo.maximize)
    return m


def matrix_miqp() -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Integers, bounds=(-5, 5))
    m.y = pyo.Var(domain=pyo.Integers, bounds=(-5, 5))
    m.c = matrix_constraint(np.array([[1.0, 1.0]]), [m.x, m.y], upper=1.0)
    m.obj = pyo.Objective(expr=(m.x - 0.4) ** 2 + (m.y - 1.6) ** 2 + 2)
    return m


def matrix_minlp() -> pyo.ConcreteModel:
    """pyomo_minlp with the linear constraint as a MatrixConstraint beside the bilinear one."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 4))
    m.y = pyo.Var(bounds=(0, 4))
    m.z = pyo.Var(domain=pyo.Binary)
    m.bilinear = pyo.Constraint(expr=m.x * m.y <= 2 + m.z)
    m.link = matrix_constraint(np.array([[1.0, -0.5]]), [m.z, m.x], upper=0.0)
    m.obj = pyo.Objective(expr=m.x + m.y - 2 * m.z, sense=pyo.maximize)
    return m


GOLDEN = [  # (class, interface, builder, optimum)
    (PC.LP, "pyomo", pyomo_lp, 3.8),
    (PC.QP, "pyomo", pyomo_qp, 1.0),
    (PC.MILP, "pyomo", pyomo_milp, 24.0),
    (PC.MIQP, "pyomo", pyomo_miqp, 2.52),
    (PC.MINLP, "pyomo", pyomo_minlp, 4.5),
    (PC.NLP, "pyomo", pyomo_nlp, 1.0),
    (PC.LP, "cvxpy", cvxpy_lp, 3.8),
    (PC.QP, "cvxpy", cvxpy_qp, 1.0),
    (PC.MILP, "cvxpy", cvxpy_milp, 24.0),
    (PC.MIQP, "cvxpy", cvxpy_miqp, 2.52),
    (PC.LP, "matrix", matrix_lp, 3.8),
    (PC.MILP, "matrix", matrix_milp, 24.0),
    (PC.MIQP, "matrix", matrix_miqp, 2.52),
    (PC.MINLP, "matrix", matrix_minlp, 4.5),
]


def capable(problem_class: ProblemClass, interface: str) -> list[str]:
    """Installed solvers for a class through an interface ("matrix": Pyomo models with MatrixConstraint
    blocks, which only the bulk-loading solvers read as arrays)."""
    if interface != "matrix":
        return available_solvers(problem_class, interface)
    return [s for s in available_solvers(problem_class, "pyomo") if SOLVERS[s].backends["pyomo"].bulk]


GOLDEN_CASES = [
    pytest.param(cls, build, optimum, solver, id=f"{cls.value}-{iface}-{solver}")
    for cls, iface, build, optimum in GOLDEN
    for solver in capable(cls, iface)
]


def objective_of(model) -> float:
    """The objective evaluated at the values loaded into the model."""
    if isinstance(model, cp.Problem):
        return float(model.objective.value)
    return pyo.value(next(model.component_data_objects(pyo.Objective, active=True)))


def test_knapsack_optimum_is_brute_force() -> None:
    assert knapsack_optimum() == 24


def test_every_default_solver_is_installed_here() -> None:
    """What `pip install optrules` brings must be usable (the matrix below depends on it)."""
    assert available_solvers()[:4] == ["highs", "scip", "clarabel", "osqp"]


@pytest.mark.parametrize(("problem_class", "build", "optimum", "solver"), GOLDEN_CASES)
def test_golden_models_solve_to_their_known_optimum(problem_class, build, optimum, solver) -> None:
    model = build()
    report = solve(model, problem_class, solver)
    assert report.status is Status.OPTIMAL
    assert report.termination == "optimal"
    assert report.has_solution
    assert report.objective == pytest.approx(optimum, abs=1e-6)
    assert report.gap == pytest.approx(0.0, abs=1e-9)
    assert report.best_bound == pytest.approx(optimum, abs=1e-6)
    assert objective_of(model) == pytest.approx(optimum, abs=1e-6)  # values were loaded
    assert report.solver == solver and report.problem_class is problem_class
    assert report.solve_seconds > 0 and report.options == {"verbose": False}


def test_golden_matrix_covers_every_class_and_both_interfaces() -> None:
    covered = {(p.values[0], p.id.split("-")[1]) for p in GOLDEN_CASES}
    assert {cls for cls, _ in covered} == set(ProblemClass)
    assert {(PC.QP, "cvxpy"), (PC.MIQP, "cvxpy"), (PC.MINLP, "pyomo"), (PC.NLP, "pyomo")} <= covered
    assert {(PC.LP, "matrix"), (PC.MILP, "matrix"), (PC.MIQP, "matrix"), (PC.MINLP, "matrix")} <= covered


def test_milp_values_loaded_into_pyomo_model() -> None:
    model = pyomo_milp()
    solve(model, PC.MILP, "highs")
    picked = [i for i in model.i if pyo.value(model.x[i]) > 0.5]
    assert sum(KNAPSACK[i][1] for i in picked) <= CAPACITY
    assert sum(KNAPSACK[i][0] for i in picked) == 24


def test_problem_class_may_be_given_as_string() -> None:
    assert solve(pyomo_lp(), "LP", "highs").problem_class is PC.LP


# ------------------------------------------------------------------------------------------
# Honesty at limits: hard market-split instances (Cornuejols & Dawande), 4 rows x 30 binaries
# ------------------------------------------------------------------------------------------


def market_split_data(seed: int = 0, rows: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 100, size=(rows, 10 * (rows - 1)))
    return a, a.sum(axis=1) // 2


def pyomo_market_split(slack: bool, maximize: bool = False, seed: int = 0) -> pyo.ConcreteModel:
    """With slack: min total deviation (x = 0 is feasible, LP bound 0, optimum >= 1 because the
    exact split of seed 0 is infeasible). Without: the infeasible exact split (HiGHS needs ~100 s
    to prove it), so no solver can have an incumbent after a tiny time limit."""
    a, d = market_split_data(seed)
    m = pyo.ConcreteModel()
    m.J = pyo.RangeSet(0, a.shape[1] - 1)
    m.I = pyo.RangeSet(0, a.shape[0] - 1)
    m.x = pyo.Var(m.J, domain=pyo.Binary)
    if slack:
        m.plus = pyo.Var(m.I, bounds=(0, None))
        m.minus = pyo.Var(m.I, bounds=(0, None))
        m.row = pyo.Constraint(m.I, rule=lambda m, i: sum(int(a[i, j]) * m.x[j] for j in m.J)
                               + m.plus[i] - m.minus[i] == int(d[i]))
        deviation = sum(m.plus[i] + m.minus[i] for i in m.I)
        m.obj = pyo.Objective(expr=-deviation if maximize else deviation,
                              sense=pyo.maximize if maximize else pyo.minimize)
    else:
        m.row = pyo.Constraint(m.I, rule=lambda m, i: sum(int(a[i, j]) * m.x[j] for j in m.J) == int(d[i]))
        m.obj = pyo.Objective(expr=sum(m.x[j] for j in m.J))
    return m


def cvxpy_market_split(slack: bool, maximize: bool = False) -> tuple[cp.Problem, cp.Variable]:
    a, d = market_split_data()
    x = cp.Variable(a.shape[1], boolean=True)
    if not slack:
        return cp.Problem(cp.Minimize(cp.sum(x)), [a @ x == d]), x
    plus, minus = cp.Variable(len(d), nonneg=True), cp.Variable(len(d), nonneg=True)
    deviation = cp.sum(plus + minus) + 3  # a constant: cvxpy drops it before the solver sees it
    objective = cp.Maximize(-deviation) if maximize else cp.Minimize(deviation)
    return cp.Problem(objective, [a @ x + plus - minus == d]), x


def assert_honest_limit_stop(report: SolveReport, maximize: bool, termination: str = "time_limit") -> None:
    """What holds at any machine speed for a solve stopped at a limit on an instance it cannot finish."""
    assert report.status in (Status.FEASIBLE, Status.NO_SOLUTION)
    assert report.termination == termination
    if report.status is Status.NO_SOLUTION:
        assert report.objective is None and report.gap is None
        return
    assert report.has_solution
    if report.best_bound is None:  # stopped before any bound was known: no gap is invented, and it says why
        assert report.gap is None and report.note
        return
    assert report.gap is not None and report.gap > 0
    if maximize:
        assert report.best_bound >= report.objective
    else:
        assert report.best_bound <= report.objective
    expected = abs(report.objective - report.best_bound) / max(abs(report.objective), 1e-10)
    assert report.gap == pytest.approx(expected)


MILP_PYOMO = available_solvers(PC.MILP, "pyomo")
MILP_CVXPY = available_solvers(PC.MILP, "cvxpy")


@pytest.mark.parametrize("maximize", [False, True], ids=["min", "max"])
@pytest.mark.parametrize("solver", MILP_PYOMO)
def test_pyomo_time_limit_with_incumbent_is_feasible_not_optimal(solver, maximize) -> None:
    model = pyomo_market_split(slack=True, maximize=maximize)
    report = solve(model, PC.MILP, solver, {"time_limit": TINY})
    assert_honest_limit_stop(report, maximize)
    if report.has_solution:
        assert objective_of(model) == pytest.approx(report.objective, abs=1e-6)


@pytest.mark.parametrize("maximize", [False, True], ids=["min", "max"])
@pytest.mark.parametrize("solver", MILP_CVXPY)
def test_cvxpy_time_limit_with_incumbent_is_feasible_not_optimal(solver, maximize) -> None:
    """cvxpy itself calls a SCIP time-limit stop 'optimal_inaccurate'; the report must not."""
    problem, _ = cvxpy_market_split(slack=True, maximize=maximize)
    report = solve(problem, PC.MILP, solver, {"time_limit": TINY})
    assert_honest_limit_stop(report, maximize)
    if report.has_solution:
        assert objective_of(problem) == pytest.approx(report.objective, abs=1e-6)
    if report.best_bound is not None:
        # the bound is translated back from the solver's constant-free minimisation: LP bound 0 + 3
        assert report.best_bound == pytest.approx(-3.0 if maximize else 3.0, abs=1e-6)


@pytest.mark.parametrize("solver", MILP_PYOMO)
def test_pyomo_time_limit_without_incumbent_loads_nothing(solver) -> None:
    model = pyomo_market_split(slack=False)
    report = solve(model, PC.MILP, solver, {"time_limit": TINY})
    assert report.status is Status.NO_SOLUTION and report.termination == "time_limit"
    assert not report.has_solution and report.objective is None and report.gap is None
    assert all(model.x[j].value is None for j in model.J)


@pytest.mark.parametrize("solver", MILP_CVXPY)
def test_cvxpy_time_limit_without_incumbent_loads_nothing(solver) -> None:
    """cvxpy would fill x with garbage (HiGHS) or raise SolverError (SCIP) here."""
    problem, x = cvxpy_market_split(slack=False)
    x.value = np.full(x.shape, 1.0)
    report = solve(problem, PC.MILP, solver, {"time_limit": TINY})
    assert report.status is Status.NO_SOLUTION and report.termination == "time_limit"
    assert report.objective is None
    np.testing.assert_array_equal(x.value, 1.0)


@pytest.mark.parametrize("maximize", [False, True])
@pytest.mark.parametrize("path", ["affine", "conic"])
@pytest.mark.parametrize("solver", MILP_CVXPY)
def test_a_cvxpy_mip_stopped_without_a_point_keeps_its_bound_in_the_problem_s_terms(solver, path, maximize) -> None:
    """The market split a x = d (no point within one node) under min sum(x) + 3, or max 3 - sum(x):
    the root bound sum(x) >= 12 is reported as 15, or -9, whether the problem is read straight into
    HiGHS' arrays (a vector variable) or goes through cvxpy's conic form (a matrix variable, which the
    affine reader declines; the form holds all but the constant, and a maximisation negated)."""
    a, d = market_split_data()
    x = cp.Variable((a.shape[1],) if path == "affine" else (a.shape[1], 1), boolean=True)
    rows = a @ x if path == "affine" else (a @ x)[:, 0]
    objective = cp.Maximize(3 - cp.sum(x)) if maximize else cp.Minimize(cp.sum(x) + 3)
    limit = {"highs": {"mip_max_nodes": 1, "mip_heuristic_effort": 0.0}, "scip": {"limits/nodes": 1}}[solver]
    report = solve(cp.Problem(objective, [rows == d]), PC.MILP, solver, limit)
    assert report.status is Status.NO_SOLUTION and report.termination == "node_limit"
    assert report.objective is None and report.gap is None and x.value is None
    assert report.best_bound == pytest.approx(-9.0 if maximize else 15.0, abs=1e-6)


def test_scip_node_limit_passes_through_and_is_named() -> None:
    """An unknown option key reaches the backend unchanged; the stop reason is reported."""
    report = solve(pyomo_market_split(slack=True), PC.MILP, "scip", {"limits/nodes": 1})
    assert report.status is Status.FEASIBLE and report.termination == "node_limit"
    assert report.options["limits/nodes"] == 1


@pytest.mark.parametrize(("solver", "option"), [("highs", "mip_rel_gap"), ("scip", "limits/gap")])
def test_a_gap_asked_for_in_the_solvers_own_name_is_the_tolerance_too(solver, option) -> None:
    """HiGHS' mip_rel_gap or SCIP's limits/gap set natively: a stop within it is a gap_limit, not an
    optimum the solver "did not verify" (review: the set cover then solved again without its start)."""
    if solver not in MILP_PYOMO:
        pytest.skip(f"{solver} is not installed")
    report = solve(knapsack_40(), PC.MILP, solver, {option: 0.01})
    assert report.termination in ("optimal", "gap_limit") and report.gap <= 0.01 + 1e-12
    assert (report.status is Status.OPTIMAL) == (report.gap <= DEFAULT_MIP_GAP)


@pytest.mark.parametrize("solver", MILP_PYOMO)
def test_mip_gap_stop_is_within_the_requested_gap(solver) -> None:
    report = solve(knapsack_40(), PC.MILP, solver, {"mip_gap": 0.01})
    assert report.termination in ("optimal", "gap_limit")
    assert report.gap <= 0.01 + 1e-12
    assert (report.gap == 0.0) == (report.termination == "optimal")
    # optimal only within the default tolerance; a stop within the looser gap asked for is a limit
    assert (report.status is Status.OPTIMAL) == (report.gap <= DEFAULT_MIP_GAP)
    assert report.status in (Status.OPTIMAL, Status.FEASIBLE) and report.has_solution
    assert report.best_bound >= report.objective


# ------------------------------------------------------------------------------------------
# Warm start
# ------------------------------------------------------------------------------------------


#: one branch-and-bound node: a deterministic work limit, whatever the machine's speed
ONE_NODE = {"highs": {"mip_max_nodes": 1}, "scip": {"limits/nodes": 1}, "gurobi": {"NodeLimit": 1}}


def planted_market_split(matrix: bool) -> pyo.ConcreteModel:
    """A 4 x 30 market split (seed 3) with a planted solution of deviation 4, set as the variables'
    values; its rows as expressions or as one MatrixConstraint. Measured: stopped after one node,
    cold HiGHS is at 10 and cold SCIP at 36."""
    a, _ = market_split_data(seed=3)
    planted = np.random.default_rng(7).integers(0, 2, a.shape[1])
    d = a @ planted + 1  # the planted x misses every row by exactly 1
    m = pyo.ConcreteModel()
    m.J, m.I = pyo.RangeSet(0, a.shape[1] - 1), pyo.RangeSet(0, a.shape[0] - 1)
    m.x = pyo.Var(m.J, domain=pyo.Binary)
    m.plus = pyo.Var(m.I, bounds=(0, None))
    m.minus = pyo.Var(m.I, bounds=(0, None))
    if matrix:
        m.row = matrix_constraint(np.hstack([a, np.eye(len(d)), -np.eye(len(d))]),
                                  [*m.x.values(), *m.plus.values(), *m.minus.values()], lower=d, upper=d)
    else:
        m.row = pyo.Constraint(m.I, rule=lambda m, i: sum(int(a[i, j]) * m.x[j] for j in m.J)
                               + m.plus[i] - m.minus[i] == int(d[i]))
    m.obj = pyo.Objective(expr=sum(m.plus[i] + m.minus[i] for i in m.I))
    for j in m.J:
        m.x[j].set_value(int(planted[j]))
    for i in m.I:
        m.plus[i].set_value(1)
        m.minus[i].set_value(0)
    return m


@pytest.mark.parametrize("matrix", [False, True], ids=["expressions", "matrix"])
@pytest.mark.parametrize("solver", [s for s in ("highs", "scip", "gurobi") if s in MILP_PYOMO])
def test_warm_start_incumbent_is_at_least_as_good_as_the_start(solver, matrix) -> None:
    m = planted_market_split(matrix)
    start = pyo.value(m.obj)
    assert start == 4
    cold = solve(planted_market_split(matrix), PC.MILP, solver, ONE_NODE[solver])
    assert cold.objective > start  # so the warm run below shows the start was passed on
    report = solve(m, PC.MILP, solver, ONE_NODE[solver], warm_start=True)
    assert report.has_solution
    assert report.objective <= start + 1e-9
    assert pyo.value(m.obj) <= start + 1e-9


def test_a_cvxpy_warm_start_reaches_highs() -> None:
    """Through cvxpy too, HiGHS gets the variables' values as its start (the planted point of
    deviation 4; stopped after one node, cold HiGHS is above it)."""
    def planted() -> tuple[cp.Problem, float]:
        pyomo_model = planted_market_split(matrix=True)
        a, _ = market_split_data(seed=3)
        d = np.array([pyo.value(pyomo_model.row._upper[i]) for i in range(a.shape[0])])
        x, plus, minus = cp.Variable(a.shape[1], boolean=True), cp.Variable(len(d)), cp.Variable(len(d))
        problem = cp.Problem(cp.Minimize(cp.sum(plus + minus) + 2),
                             [a @ x + plus - minus == d, plus >= 0, minus >= 0])
        x.value = np.array([pyo.value(v) for v in pyomo_model.x.values()])
        plus.value, minus.value = d - a @ x.value, np.zeros(len(d))
        return problem, problem.objective.value

    problem, start = planted()
    assert start == 4 + 2
    cold = solve(planted()[0], PC.MILP, "highs", ONE_NODE["highs"])
    assert cold.objective > start  # so the warm run below shows the start was passed on
    warm = solve(problem, PC.MILP, "highs", ONE_NODE["highs"], warm_start=True)
    assert warm.has_solution and warm.objective <= start + 1e-9


def test_scip_warm_start_is_a_complete_solution() -> None:
    """Pyomo alone passes a partial start that SCIP completes only later: stopped at its first
    solution, SCIP then returns its trivial point (objective 4.72). The complete start is used at once."""
    model = pyomo_miqp()
    model.x.set_value(0)
    model.y.set_value(1)
    report = solve(model, PC.MIQP, "scip", {"limits/solutions": 1}, warm_start=True)
    assert report.status is Status.FEASIBLE and report.termination == "solution_limit"
    assert report.objective == pytest.approx(2.52, abs=1e-9)


def test_scip_incumbent_is_the_objective_at_the_loaded_point() -> None:
    """Pyomo's SCIP interface minimises an auxiliary t >= f(x); SCIP's first solution here has
    t = 100000 while f(x) = 4.72. The report gives f at the loaded point."""
    model = pyomo_miqp()
    report = solve(model, PC.MIQP, "scip", {"limits/solutions": 1})
    assert report.status is Status.FEASIBLE and report.termination == "solution_limit"
    assert report.objective == pytest.approx(objective_of(model), abs=1e-9)
    assert report.objective < 100


@pytest.mark.parametrize("solver", ["highs", "scip"])
def test_a_partial_warm_start_is_passed_on_as_one(solver) -> None:
    """The bulk loaders hand a start with unset variables to the solver as a partial solution."""
    model = pyomo_milp()
    model.x[0].set_value(1)  # the others unset
    report = solve(model, PC.MILP, solver, warm_start=True)
    assert report.status is Status.OPTIMAL and report.objective == pytest.approx(24.0)


@pytest.fixture
def contrib_scip(monkeypatch, fresh_install_cache):
    """SCIP through pyomo.contrib.solver (the path Gurobi takes) instead of the bulk loader."""
    scip = SOLVERS["scip"]
    backends = dict(scip.backends, pyomo=replace(scip.backends["pyomo"], bulk=False))
    monkeypatch.setitem(SOLVERS, "scip", replace(scip, backends=backends))


def test_pyomo_s_own_interface_solves_and_reports(contrib_scip) -> None:
    for build, cls, optimum in [(pyomo_milp, PC.MILP, 24.0), (pyomo_minlp, PC.MINLP, 4.5), (pyomo_qp, PC.QP, 1.0)]:
        model = build()
        report = solve(model, cls, "scip")
        assert report.status is Status.OPTIMAL and report.gap == 0.0
        assert report.objective == pytest.approx(optimum, abs=1e-6) == objective_of(model)
    report = solve(pyomo_market_split(slack=True), PC.MILP, "scip", {"limits/nodes": 5})
    assert report.status is Status.FEASIBLE and report.termination == "node_limit" and report.best_bound is not None
    with pytest.raises(SolverError, match="warm_start=True needs a value for every integer variable"):
        solve(pyomo_milp(), PC.MILP, "scip", warm_start=True)


# ------------------------------------------------------------------------------------------
# Infeasible, unbounded
# ------------------------------------------------------------------------------------------


def infeasible_milp() -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(3), domain=pyo.Binary)
    m.c = pyo.Constraint(expr=2 * (m.x[0] + m.x[1] + m.x[2]) == 3)
    m.obj = pyo.Objective(expr=m.x[0])
    return m


def unbounded_lp() -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, None))
    m.obj = pyo.Objective(expr=m.x, sense=pyo.maximize)
    return m


@pytest.mark.parametrize("solver", MILP_PYOMO)
def test_infeasible_milp(solver) -> None:
    model = infeasible_milp()
    report = solve(model, PC.MILP, solver)
    assert report.status is Status.INFEASIBLE and report.termination == "infeasible"
    assert report.objective is None and not report.has_solution
    assert all(model.x[i].value is None for i in range(3))


@pytest.mark.parametrize("solver", available_solvers(PC.LP, "pyomo"))
def test_unbounded_lp_pyomo(solver) -> None:
    report = solve(unbounded_lp(), PC.LP, solver)
    assert report.status is Status.UNBOUNDED and report.objective is None


@pytest.mark.parametrize("solver", available_solvers(PC.LP, "cvxpy"))
def test_infeasible_and_unbounded_lp_cvxpy(solver) -> None:
    y = cp.Variable(nonneg=True)
    assert solve(cp.Problem(cp.Minimize(y), [y >= 2, y <= 1]), PC.LP, solver).status is Status.INFEASIBLE
    assert solve(cp.Problem(cp.Maximize(y)), PC.LP, solver).status is Status.UNBOUNDED


# ------------------------------------------------------------------------------------------
# Errors: each one specific
# ------------------------------------------------------------------------------------------


@pytest.fixture
def fresh_install_cache(monkeypatch):
    """Forget which backends were found installed, so a patched registry is probed anew."""
    monkeypatch.setattr(solver_registry, "_INSTALLED", {})


def test_unknown_solver_lists_the_known_names() -> None:
    with pytest.raises(UnknownSolverError, match=r"unknown solver 'cplexx'; known solvers: highs, scip, "
                                                 r"clarabel, osqp, gurobi, ipopt, cbc, glpk"):
        solve(pyomo_lp(), PC.LP, "cplexx")


def test_not_installed_solver_names_the_pip_package(monkeypatch, fresh_install_cache) -> None:
    gurobi = SOLVERS["gurobi"]
    absent = {k: replace(b, module="optrules_no_such_module") for k, b in gurobi.backends.items()}
    monkeypatch.setitem(SOLVERS, "gurobi", replace(gurobi, backends=absent))
    with pytest.raises(SolverNotInstalledError, match=r"'gurobi' is not installed for pyomo; .*pip install gurobipy"):
        solve(pyomo_milp(), PC.MILP, "gurobi")
    assert "gurobi" not in available_solvers()


@pytest.mark.skipif("ipopt" in available_solvers(), reason="cyipopt is installed here")
def test_ipopt_not_installed_names_cyipopt() -> None:
    with pytest.raises(SolverNotInstalledError, match=r"pip install cyipopt"):
        solve(pyomo_nlp(), PC.NLP, "ipopt")


def test_simulated_absence_of_an_installed_solver(monkeypatch, fresh_install_cache) -> None:
    highs = SOLVERS["highs"]
    absent = {k: replace(b, module="optrules_no_such_module") for k, b in highs.backends.items()}
    monkeypatch.setitem(SOLVERS, "highs", replace(highs, backends=absent))
    assert "highs" not in available_solvers(PC.LP)
    with pytest.raises(SolverNotInstalledError, match="pip install highspy"):
        solve(pyomo_lp(), PC.LP, "highs")


def test_miqp_on_highs_is_refused_before_solving() -> None:
    with pytest.raises(UnsupportedProblemError,
                       match=r"highs cannot solve MIQP problems through pyomo; installed solvers that can: scip$"):
        solve(pyomo_miqp(), PC.MIQP, "highs")
    with pytest.raises(UnsupportedProblemError, match=r"through cvxpy; installed solvers that can: scip$"):
        solve(cvxpy_miqp(), PC.MIQP, "highs")


def test_measured_fact_pyomo_highs_does_not_raise_on_miqp() -> None:
    """Why the capability check exists: HiGHS returns 'unknown' on a MIQP instead of failing."""
    from pyomo.contrib.solver.common.factory import SolverFactory

    results = SolverFactory("highs").solve(pyomo_miqp(), load_solutions=False,
                                           raise_exception_on_nonoptimal_result=False)
    assert results.termination_condition.name == "unknown"


def test_pyomo_model_on_cvxpy_only_solver() -> None:
    with pytest.raises(UnsupportedProblemError,
                       match=r"clarabel has no pyomo interface; installed solvers that can: highs, scip"):
        solve(pyomo_qp(), PC.QP, "clarabel")


def test_nonconvex_class_through_cvxpy_points_to_pyomo() -> None:
    with pytest.raises(UnsupportedProblemError, match=r"no installed solver can solve MINLP through cvxpy; "
                                                      r"build a Pyomo model and use scip"):
        solve(cvxpy_milp(), PC.MINLP, "scip")


def test_continuous_class_with_integer_variables_is_refused() -> None:
    with pytest.raises(SolverError, match=r"integer variables but problem_class is LP"):
        solve(pyomo_milp(), PC.LP, "highs")
    with pytest.raises(SolverError, match=r"integer variables but problem_class is QP"):
        solve(cvxpy_miqp(), PC.QP, "clarabel")


def test_model_must_have_one_active_objective() -> None:
    m = pyomo_lp()
    m.obj2 = pyo.Objective(expr=m.x)
    with pytest.raises(SolverError, match="exactly one active Objective, found 2"):
        solve(m, PC.LP, "highs")
    m.obj.deactivate()
    m.obj2.deactivate()
    with pytest.raises(SolverError, match="found 0"):
        solve(m, PC.LP, "highs")


def test_model_type_and_problem_class_are_checked() -> None:
    with pytest.raises(SolverError, match="model must be a Pyomo ConcreteModel or a cvxpy Problem, got dict"):
        solve({}, PC.LP, "highs")
    with pytest.raises(SolverError, match="unknown problem class 'SDP'"):
        solve(pyomo_lp(), "SDP", "highs")
    with pytest.raises(SolverError, match="unknown interface 'jump'"):
        available_solvers(PC.LP, "jump")


@pytest.mark.parametrize(("options", "message"), [
    ({"time_limit": 0}, r"time_limit must be a positive number of seconds \(finite\), got 0"),
    ({"time_limit": "10"}, "time_limit must be a positive number"),
    ({"time_limit": float("inf")}, "time_limit must be a positive number of seconds"),
    ({"mip_gap": -0.1}, r"mip_gap must be a relative gap in \[0, 1\), got -0.1"),
    ({"mip_gap": 1.0}, r"mip_gap must be a relative gap in \[0, 1\), got 1.0"),
    ({"threads": 0}, "threads must be an integer >= 1"),
    ({"threads": 2.0}, "threads must be an integer >= 1"),
    ({"seed": -1}, r"seed must be an integer in \[0, 2147483647\], got -1"),
    ({"seed": 2**31}, r"seed must be an integer in \[0, 2147483647\]"),
    ({"seed": 1.0}, "seed must be an integer"),
    ({"verbose": 1}, "verbose must be True or False"),
])
def test_bad_unified_options(options, message) -> None:
    with pytest.raises(SolverError, match=message):
        solve(pyomo_lp(), PC.LP, "highs", options)


def test_solver_errors_are_value_errors() -> None:
    for error in (UnknownSolverError, SolverNotInstalledError, UnsupportedProblemError):
        assert issubclass(error, SolverError) and issubclass(error, ValueError)


@pytest.mark.parametrize(("solver", "options"), [("scip", {"no/such/param": 1}), ("highs", {"presolv": "off"})])
def test_a_failing_solver_is_reported_not_raised_and_logged(solver, options, caplog) -> None:
    with caplog.at_level("WARNING", logger="optrules.solvers"):
        report = solve(pyomo_milp(), PC.MILP, solver, options)
    assert report.status is Status.ERROR and report.termination.startswith("error: ")
    assert not report.has_solution and report.objective is None
    assert [r.getMessage() for r in caplog.records] == [f"solver {solver} failed: {report.termination[7:]}"]


# ------------------------------------------------------------------------------------------
# Options, silence, registry
# ------------------------------------------------------------------------------------------


def test_option_translation_tables() -> None:
    opts = {"time_limit": 5.0, "mip_gap": 0.1, "threads": 2, "seed": 3, "verbose": False, "presolve": "off"}
    assert solver_options.native_options(opts, SOLVERS["highs"].backends["pyomo"].options) == {
        "time_limit": 5.0, "mip_rel_gap": 0.1, "threads": 2, "random_seed": 3, "presolve": "off"}
    assert solver_options.native_options(opts, SOLVERS["scip"].backends["pyomo"].options) == {
        "limits/time": 5.0, "limits/gap": 0.1, "lp/threads": 2, "randomization/randomseedshift": 3,
        "presolve": "off"}
    assert solver_options.native_options(opts, SOLVERS["osqp"].backends["cvxpy"].options) == {
        "time_limit": 5.0, "presolve": "off"}


def test_unified_options_are_recorded_and_accepted_by_every_backend() -> None:
    opts = {"time_limit": 3600, "mip_gap": 1e-6, "threads": 1, "seed": 5}  # a limit no solve comes near
    for cls, iface, build, optimum in GOLDEN:
        for solver in capable(cls, iface):
            report = solve(build(), cls, solver, opts)
            assert report.status is Status.OPTIMAL, (cls, iface, solver, report)
            assert report.objective == pytest.approx(optimum, abs=1e-6)
            assert report.options == {"time_limit": 3600.0, "mip_gap": 1e-6, "threads": 1, "seed": 5,
                                      "verbose": False}


def test_solver_output_is_silenced_by_default(capfd) -> None:
    solve(pyomo_milp(), PC.MILP, "highs")
    solve(pyomo_milp(), PC.MILP, "scip")
    solve(cvxpy_milp(), PC.MILP, "highs")
    solve(cvxpy_milp(), PC.MILP, "scip")
    solve(cvxpy_qp(), PC.QP, "osqp")
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_registry_declares_every_solver_and_interface() -> None:
    assert list(SOLVERS) == ["highs", "scip", "clarabel", "osqp", "gurobi", "ipopt", "cbc", "glpk"]
    for name, spec in SOLVERS.items():
        assert spec.name == name and spec.package and spec.install
        for iface, backend in spec.backends.items():
            assert iface in S.INTERFACES and backend.interface == iface and backend.classes
    assert SOLVERS["highs"].classes("pyomo") == {PC.LP, PC.QP, PC.MILP}
    assert SOLVERS["scip"].classes("pyomo") == set(ProblemClass)
    assert SOLVERS["clarabel"].classes("pyomo") == frozenset()


def test_available_solvers_filters() -> None:
    assert available_solvers(PC.MINLP, "pyomo") == ["scip"]
    assert available_solvers(PC.MINLP, "cvxpy") == []
    assert available_solvers(PC.QP, "cvxpy")[:4] == ["highs", "scip", "clarabel", "osqp"]
    assert available_solvers(PC.MIQP) == ["scip"] + [s for s in ("gurobi",) if s in available_solvers()]


def test_solver_version_names_package_and_interface() -> None:
    from importlib.metadata import version

    assert solve(pyomo_lp(), PC.LP, "highs").solver_version == \
        f"highspy {version('highspy')} (pyomo {version('pyomo')})"
    assert solve(cvxpy_lp(), PC.LP, "scip").solver_version == \
        f"pyscipopt {version('pyscipopt')} (cvxpy {version('cvxpy')})"


def test_build_seconds_is_copied() -> None:
    assert solve(pyomo_lp(), PC.LP, "highs", build_seconds=1.25).build_seconds == 1.25


# ------------------------------------------------------------------------------------------
# Classic Pyomo interface (used for cbc, glpk, ipopt), exercised through Pyomo's classic
# wrapper of SCIP; local-solver semantics
# ------------------------------------------------------------------------------------------


@pytest.fixture
def legacy_scip(monkeypatch, fresh_install_cache):
    scip = SOLVERS["scip"]
    backends = dict(scip.backends, pyomo=replace(scip.backends["pyomo"], legacy=True))
    monkeypatch.setitem(SOLVERS, "scip", replace(scip, backends=backends))


def test_legacy_interface_golden(legacy_scip) -> None:
    model = pyomo_minlp()
    report = solve(model, PC.MINLP, "scip")
    assert report.status is Status.OPTIMAL and report.gap == 0.0
    assert report.objective == pytest.approx(4.5, abs=1e-6) == objective_of(model)


@pytest.mark.parametrize("maximize", [False, True], ids=["min", "max"])
def test_legacy_interface_time_limit(legacy_scip, maximize) -> None:
    report = solve(pyomo_market_split(slack=True, maximize=maximize), PC.MILP, "scip", {"time_limit": TINY})
    assert_honest_limit_stop(report, maximize)


class StandInSolver:
    """What Pyomo's classic SolverFactory returns, for a solver that need not be installed: it records
    the options and keyword arguments of its call, writes ``log`` where it is asked to, and returns
    ``termination`` with a lower bound of 11.8 and, for ``intermediateNonInteger``, the LP
    relaxation's point (which must not be taken)."""

    def __init__(self, termination: str = "infeasible", log: str = "") -> None:
        self.options: dict = {}
        self.termination, self.log = termination, log
        self.calls: list[dict] = []

    def warm_start_capable(self) -> bool:
        return False

    def version(self) -> tuple:
        return (1, 0)

    def solve(self, model, **kwargs):
        from pyomo.opt import Solution, SolverResults, TerminationCondition

        self.calls.append({"options": dict(self.options), **kwargs})
        if "logfile" in kwargs:
            with open(kwargs["logfile"], "w") as log:
                log.write(self.log)
        results = SolverResults()
        results.solver.termination_condition = getattr(TerminationCondition, self.termination)
        results.problem.lower_bound = 11.8
        if self.termination == "intermediateNonInteger":
            results.solution.insert(Solution())
        return results


def test_a_time_limit_reaches_glpk_in_whole_seconds_rounded_down(monkeypatch, fresh_install_cache) -> None:
    """glpsol refuses a fractional ``--tmlim`` (a fit's remaining budget is one): GLPK gets the seconds
    left as a whole number, never more than the budget but at least one, and the report says what
    it was given (GLPK need not be installed: a stand-in takes the call)."""
    from optrules.solvers.options import native_time_limit

    backend = SOLVERS["glpk"].backends["pyomo"]
    monkeypatch.setitem(solver_registry._INSTALLED, (backend.interface, backend.engine, backend.module, backend.legacy), True)
    glpk = StandInSolver()
    monkeypatch.setattr(pyo, "SolverFactory", lambda name: glpk)
    report = solve(matrix_milp(), PC.MILP, "glpk", {"time_limit": 9.5, "mip_gap": 0.01})
    call = glpk.calls[0]
    # through Pyomo's timelimit (which ends the process 1 s past it), so 1 s less; not also as an option
    assert type(call["timelimit"]) is int and 1 <= call["timelimit"] <= 8 and "tmlim" not in call["options"]
    assert call["options"]["mipgap"] == 0.01
    assert report.time_limit == call["timelimit"] and report.status is Status.INFEASIBLE
    assert native_time_limit("tmlim", 0.3) == 1 and native_time_limit("sec", 14.98) == 14.98


def test_glpk_does_not_start_with_less_than_a_second_left(monkeypatch, fresh_install_cache) -> None:
    """GLPK can be given no less than 1 s: with less left of the budget it does not run (before, it
    got 1 s anyway, and the cut rounds of a 1 s set-cover fit ran 2 s)."""
    backend = SOLVERS["glpk"].backends["pyomo"]
    monkeypatch.setitem(solver_registry._INSTALLED, (backend.interface, backend.engine, backend.module, backend.legacy), True)
    glpk = StandInSolver()
    monkeypatch.setattr(pyo, "SolverFactory", lambda name: glpk)
    report = solve(matrix_milp(), PC.MILP, "glpk", {}, deadline=time.perf_counter() + 0.9)
    assert not glpk.calls and report.status is Status.NO_SOLUTION and report.termination == "time_limit"
    assert "whole seconds" in report.note


def test_an_executable_past_its_limit_is_ended_and_returns_no_solution(monkeypatch) -> None:
    """CBC checks its limit only in branch and bound (its first LP and MIP start took 7.8 s under a
    1.9 s limit); Pyomo ends the process 1 s past the timelimit it is given, which is the time left
    less 1 s. An ended run has no solution and says so; Pyomo's temporary-file context is closed."""
    import subprocess

    from pyomo.common.tempfiles import TempfileManager

    from optrules.solvers.pyomo_environ import run_pyomo_legacy

    class Overrunning(StandInSolver):
        def solve(self, model, **kwargs):
            self.calls.append({"options": dict(self.options), **kwargs})
            TempfileManager.push()  # as Pyomo's shell solvers do before they run the executable
            raise subprocess.TimeoutExpired("cbc", kwargs["timelimit"] + 1)

    cbc = Overrunning()
    monkeypatch.setattr(pyo, "SolverFactory", lambda name: cbc)
    depth = len(TempfileManager._context_stack)
    out = run_pyomo_legacy(pyomo_milp(), SOLVERS["cbc"].backends["pyomo"], {"sec": 5.0}, False, False, False, 5.0)
    assert cbc.calls[0]["timelimit"] == 4.0 and "sec" not in cbc.calls[0]["options"]
    assert (out.termination, out.has_solution, out.time_limit) == ("time_limit", False, 4.0)
    assert "was ended" in out.note and len(TempfileManager._context_stack) == depth


@pytest.mark.parametrize(("solver", "options", "message"), [
    ("cbc", {"time_limt": 10}, "did you mean 'time_limit'"),  # was accepted: an unlimited run, "optimal"
    ("glpk", {"mip_gpa": 0.1}, "did you mean 'mip_gap'"),  # was refused by glpsol only after the fit's work
    ("scip", {"time_limt": 10}, "did you mean 'time_limit'"),
])
def test_a_misspelt_unified_option_is_named_for_every_solver(solver, options, message) -> None:
    with pytest.raises(SolverError, match=message):
        S.check_solver_options(solver, options)


def test_cbc_s_own_options_pass_unchecked() -> None:
    assert S.check_solver_options("cbc", {"sec": 3, "maxNodes": 10})["maxNodes"] == 10


@pytest.mark.skipif("ipopt" not in available_solvers(), reason="cyipopt not installed")
@pytest.mark.parametrize("options", [{"max_itr": 100}, {"max_iter": "abc"}, {"tol": -1.0}])
def test_ipopt_s_options_are_checked_before_any_work(options) -> None:
    """A bad Ipopt option raised cyipopt's bare 'Error while assigning an option' after the fit's work."""
    with pytest.raises(SolverError, match=f"Ipopt refuses option {next(iter(options))!r}"):
        S.check_solver_options("ipopt", options)
    assert S.check_solver_options("ipopt", {"max_iter": 50, "tol": 1e-6})["max_iter"] == 50


@pytest.mark.parametrize(("log", "expected"), [
    ("+  7031: >>>>>   4.000000000e+00 >=   0.000000000e+00 100.0% (979; 962)\n"
     "+ 41323: mip =   4.000000000e+00 >=   1.500000000e+00  62.5% (4132; 5986)\n"
     "TIME LIMIT EXCEEDED; SEARCH TERMINATED\nTime used:   1.0 secs\n", ("time_limit", 1.5)),
    ("Solution found by heuristic: 29780\n+    40: mip =   2.978000000e+04 <=   2.999300000e+04   0.7% (3; 0)\n"
     "RELATIVE MIP GAP TOLERANCE REACHED; SEARCH TERMINATED\n", ("optimal", 29993.0)),
    ("+    12: mip =     not found yet >=              -inf        (1; 0)\nTIME LIMIT EXCEEDED; SEARCH TERMINATED\n",
     ("time_limit", None)),
    ("+    57: mip =   1.200000000e+01 >=     tree is empty   0.0% (0; 13)\nINTEGER OPTIMAL SOLUTION FOUND\n",
     (None, None)),
], ids=["time limit", "gap reached", "no incumbent", "optimal"])
def test_glpk_s_stop_and_bound_are_read_from_its_log(log, expected) -> None:
    """Pyomo reads a GLPK stop at a limit as 'feasible' with infinite bounds; the log says which stop
    it was and prints the bound (GLPK itself need not be installed for this)."""
    from optrules.solvers.pyomo_environ import glpk_log

    assert glpk_log(log) == expected


@pytest.mark.parametrize(("raw", "log", "expected"), [
    ("intermediateNonInteger", "Result - Stopped on time limit\n", "time_limit"),
    ("intermediateNonInteger", "Result - Stopped on node limit\n", "node_limit"),
    ("maxEvaluations", "Result - Stopped on node limit\n", "node_limit"),
    ("other", "Result - Stopped on solution limit\n", "solution_limit"),
    ("maxTimeLimit", "Result - Stopped on time limit\n", "time_limit"),
])
def test_cbc_s_limits_are_named_from_its_log_and_a_relaxation_point_is_no_solution(
        monkeypatch, raw, log, expected) -> None:
    """Pyomo names CBC's limits vaguely (a node limit 'maxEvaluations', a solution limit 'other') and
    reads a stop before any integer point as 'intermediateNonInteger', handing back the LP relaxation's
    point (measured: x = 0.928 on the market split), which is no solution. CBC's log names the limit,
    whichever limits were set (here both a time and a node limit; CBC need not be installed)."""
    from optrules.solvers.pyomo_environ import run_pyomo_legacy

    cbc = StandInSolver(raw, "Cbc0010I After 0 nodes\n" + log)
    monkeypatch.setattr(pyo, "SolverFactory", lambda name: cbc)
    out = run_pyomo_legacy(pyomo_milp(), SOLVERS["cbc"].backends["pyomo"], {"sec": 100.0, "maxNodes": 1},
                           False, False, False, 100.0)
    assert (out.termination, out.has_solution, out.objective, out.bound) == (expected, False, None, 11.8)
    assert "logfile" in cbc.calls[0]


@pytest.mark.skipif("glpk" not in available_solvers(), reason="glpsol not on PATH")
def test_glpk_solves_a_formulation_under_a_fractional_time_limit() -> None:
    """glpsol refused "--tmlim 9.5" (status error); now it runs, and whatever it reaches in the limit
    is reported honestly (a 4-item knapsack: optimal at any speed seen, but not asserted)."""
    report = solve(matrix_milp(), PC.MILP, "glpk", {"time_limit": 9.5})
    assert report.status is not Status.ERROR and not report.termination.startswith("error")
    assert type(report.time_limit) is int and 1 <= report.time_limit <= 9  # whole seconds, within the budget
    if report.status is Status.OPTIMAL:
        assert report.objective == pytest.approx(knapsack_optimum())


def test_local_solver_never_claims_a_nonconvex_optimum(monkeypatch, fresh_install_cache) -> None:
    """A backend marked local (like ipopt) reports FEASIBLE/'locally_optimal' on NLP and MINLP."""
    scip = SOLVERS["scip"]
    backends = dict(scip.backends, pyomo=replace(scip.backends["pyomo"], global_optimum=False))
    monkeypatch.setitem(SOLVERS, "scip", replace(scip, backends=backends))
    report = solve(pyomo_nlp(), PC.NLP, "scip")
    assert report.status is Status.FEASIBLE and report.termination == "locally_optimal"
    assert report.gap is None and report.objective == pytest.approx(1.0, abs=1e-6)
    assert solve(pyomo_qp(), PC.QP, "scip").status is Status.OPTIMAL  # convex: local is global


# ------------------------------------------------------------------------------------------
# Status judgement and the report type
# ------------------------------------------------------------------------------------------

GLOBAL = SOLVERS["scip"].backends["pyomo"]


@pytest.mark.parametrize(("outcome", "cls", "expected"), [
    (Outcome("time_limit", True, 10.0, 8.0), PC.MILP, (Status.FEASIBLE, "time_limit", 0.2, 8.0)),
    (Outcome("time_limit", False, None, 8.0), PC.MILP, (Status.NO_SOLUTION, "time_limit", None, 8.0)),
    (Outcome("optimal", True, -5.0, -5.0), PC.MILP, (Status.OPTIMAL, "optimal", 0.0, -5.0)),
    (Outcome("optimal", True, 100.0, 100.005), PC.MILP, (Status.OPTIMAL, "gap_limit", 5e-5, 100.005)),
    # a global solver's "optimal" on a nonconvex continuous problem is held to the same gap
    (Outcome("optimal", True, 100.0, 99.5), PC.NLP, (Status.FEASIBLE, "optimum_not_verified", 0.005, 99.5)),
    (Outcome("optimal", True, 100.0, 99.995), PC.NLP, (Status.OPTIMAL, "gap_limit", 5e-5, 99.995)),
    (Outcome("optimal", True, 2.0, None), PC.LP, (Status.OPTIMAL, "optimal", 0.0, 2.0)),
    (Outcome("optimal", True, 2.0, None), PC.MILP, (Status.OPTIMAL, "optimal", None, None)),
    (Outcome("optimal", False), PC.LP, (Status.ERROR, "error: optimal status without a solution", None, None)),
    (Outcome("node_limit", True, 0.0, -3.0), PC.MILP, (Status.FEASIBLE, "node_limit", 3e10, -3.0)),
    (Outcome("inaccurate", True, 1.0, None), PC.QP, (Status.FEASIBLE, "inaccurate", None, None)),
    (Outcome("infeasible", False), PC.MILP, (Status.INFEASIBLE, "infeasible", None, None)),
    (Outcome("unbounded", True, 0.0), PC.LP, (Status.UNBOUNDED, "unbounded", None, None)),
    (Outcome("infeasible_or_unbounded", False), PC.MILP,
     (Status.ERROR, "infeasible_or_unbounded", None, None)),
    (Outcome("unknown", False), PC.MILP, (Status.ERROR, "unknown", None, None)),
    # SCIP's own gaplimit stop, its gap measured on the objective without cvxpy's constant (a 40-item
    # knapsack with constant 1491 and mip_gap 0.05): a limit, never a claimed optimum
    (Outcome("gap_limit", True, 50.0, 4.74), PC.MILP, (Status.FEASIBLE, "gap_limit", 0.9052, 4.74)),
])
def test_judge(outcome, cls, expected) -> None:
    status, termination, gap, bound = judge(outcome, cls, GLOBAL)
    assert (status, termination, bound) == (expected[0], expected[1], expected[3])
    assert gap == (None if expected[2] is None else pytest.approx(expected[2]))


@pytest.mark.parametrize(("mip_gap", "expected"), [
    (None, (Status.FEASIBLE, "optimum_not_verified")),  # beyond the default tolerance (1e-4)
    (1e-4, (Status.FEASIBLE, "optimum_not_verified")),
    (0.01, (Status.FEASIBLE, "gap_limit")),  # within the gap the user allowed: a limit, not optimal
])
def test_a_claimed_optimum_far_from_its_bound_is_not_optimal(mip_gap, expected) -> None:
    """HiGHS 1.16 once called a warm start optimal at 10.85 while the point it returned was worth 12.6,
    7.9% from its bound (a set cover found in review); such a claim is FEASIBLE, not OPTIMAL."""
    status, termination, gap, bound = judge(Outcome("optimal", True, 100.0, 99.5), PC.MILP, GLOBAL, mip_gap)
    assert (status, termination) == expected and gap == pytest.approx(0.005) and bound == 99.5


def test_solve_report_round_trip_of_a_real_report() -> None:
    report = solve(pyomo_market_split(slack=True), PC.MILP, "highs", {"time_limit": TINY, "presolve": "on"})
    data = json.loads(json.dumps(report.to_dict()))
    assert SolveReport.from_dict(data) == report
    assert data["status"] == report.status.value and data["problem_class"] == "MILP"


finite = st.floats(allow_nan=False, allow_infinity=False)


@settings(derandomize=True, max_examples=200)
@given(
    solver=st.sampled_from(list(SOLVERS)),
    problem_class=st.sampled_from(ProblemClass),
    status=st.sampled_from(Status),
    termination=st.text(max_size=30),
    objective=st.none() | finite,
    best_bound=st.none() | finite,
    gap=st.none() | st.floats(min_value=0, allow_infinity=False),
    seconds=st.floats(min_value=0, max_value=1e6),
    options=st.dictionaries(st.sampled_from(["time_limit", "mip_gap", "threads", "seed", "verbose", "x/y"]),
                            st.none() | st.booleans() | st.integers(0, 99) | finite | st.text(max_size=5)),
)
def test_solve_report_round_trip(solver, problem_class, status, termination, objective, best_bound, gap,
                                 seconds, options) -> None:
    report = SolveReport(solver, "v 1.0", problem_class, status, termination, objective, best_bound, gap,
                         seconds, seconds / 3, options)
    assert SolveReport.from_dict(report.to_dict()) == report
    assert SolveReport.from_dict(json.loads(json.dumps(report.to_dict()))) == report
    assert report.has_solution == (status in (Status.OPTIMAL, Status.FEASIBLE))


def test_from_dict_rejects_wrong_keys() -> None:
    data = solve(pyomo_lp(), PC.LP, "highs").to_dict()
    with pytest.raises(ValueError, match=r"missing keys \['gap'\], unknown keys \['gapp'\]"):
        SolveReport.from_dict({**{k: v for k, v in data.items() if k != "gap"}, "gapp": 0.0})


def test_report_is_hashable_and_frozen() -> None:
    report = solve(pyomo_lp(), PC.LP, "highs")
    assert hash(report) == hash(replace(report))
    with pytest.raises(AttributeError):
        report.status = Status.ERROR  # type: ignore[misc]
    assert math.isfinite(report.solve_seconds)


def test_solves_from_several_threads_all_succeed() -> None:
    # solver output capture redirects the process's file descriptors: without the solve lock,
    # concurrent Pyomo/HiGHS solves in threads failed (status "error")
    from concurrent.futures import ThreadPoolExecutor

    def one(_: int) -> SolveReport:
        return solve(pyomo_milp(), PC.MILP, "highs")

    with ThreadPoolExecutor(4) as pool:
        reports = list(pool.map(one, range(8)))
    assert [r.status for r in reports] == [Status.OPTIMAL] * 8
    assert all(r.objective == pytest.approx(knapsack_optimum()) for r in reports)


# ------------------------------------------------------------------------------------------
# Bounds at a deterministic work limit, deadlines, loads, native options
# ------------------------------------------------------------------------------------------


def matrix_market_split(seed: int = 0) -> pyo.ConcreteModel:
    """The slack market split of pyomo_market_split with its rows as one MatrixConstraint."""
    a, d = market_split_data(seed)
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(a.shape[1]), domain=pyo.Binary)
    m.plus = pyo.Var(range(len(d)), bounds=(0, None))
    m.minus = pyo.Var(range(len(d)), bounds=(0, None))
    m.rows = matrix_constraint(np.hstack([a, np.eye(len(d)), -np.eye(len(d))]),
                               [*m.x.values(), *m.plus.values(), *m.minus.values()], lower=d, upper=d)
    m.obj = pyo.Objective(expr=sum(m.plus.values()) + sum(m.minus.values()))
    return m


FIVE_NODES = {"highs": {"mip_max_nodes": 5}, "scip": {"limits/nodes": 5}}


@pytest.mark.parametrize("interface", ["expressions", "matrix", "cvxpy"])
@pytest.mark.parametrize("solver", ["highs", "scip"])
def test_every_milp_solve_reports_its_bound_and_gap_at_a_node_limit(solver, interface) -> None:
    """A hard instance stopped after five nodes: an incumbent, the solver's dual bound (HiGHS' too,
    which Pyomo's HiGHS interface leaves out) and their gap, through every interface."""
    model = {"expressions": lambda: pyomo_market_split(slack=True), "matrix": matrix_market_split,
             "cvxpy": lambda: cvxpy_market_split(slack=True)[0]}[interface]()
    report = solve(model, PC.MILP, solver, FIVE_NODES[solver])
    assert report.status is Status.FEASIBLE and report.termination == "node_limit"
    assert report.best_bound is not None and report.gap is not None
    offset = 3.0 if interface == "cvxpy" else 0.0  # cvxpy_market_split adds a constant 3
    assert offset - 1e-6 <= report.best_bound <= report.objective
    assert report.objective >= 1 + offset - 1e-9  # the exact split of seed 0 is infeasible
    assert report.gap == pytest.approx((report.objective - report.best_bound) / report.objective)
    assert report.note == ""


def covering_knapsack(interface: str, maximize: bool):
    """min a.x s.t. a.x >= sum(a) / 2 (or max a.x s.t. a.x <= sum(a) / 2) over 30 binaries."""
    a = np.random.default_rng(0).integers(1, 100, 30).astype(float)
    half = float(a.sum() // 2)
    if interface == "cvxpy":
        x = cp.Variable(30, boolean=True)
        return cp.Problem(cp.Maximize(a @ x), [a @ x <= half]) if maximize else \
            cp.Problem(cp.Minimize(a @ x), [a @ x >= half])
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(30), domain=pyo.Binary)
    m.row = matrix_constraint(a[None, :], list(m.x.values()), lower=None if maximize else [half],
                              upper=[half] if maximize else None)
    m.obj = pyo.Objective(expr=sum(a[i] * m.x[i] for i in range(30)), sense=pyo.maximize if maximize else pyo.minimize)
    return m


@pytest.mark.parametrize("interface", ["matrix", "cvxpy"])
@pytest.mark.parametrize("maximize", [False, True])
def test_scip_s_infinity_is_no_bound(interface, maximize) -> None:
    """SCIP stopped at its first solution, found in presolving before anything was bounded, writes
    its dual bound as its infinity (the float 1e20): that is no bound, so no gap either, and the note
    says why; the incumbent is still returned (cvxpy's own SCIP interface would call it an error)."""
    model = covering_knapsack(interface, maximize)
    report = solve(model, PC.MILP, "scip", {"limits/solutions": 1})
    assert report.status is Status.FEASIBLE and report.termination == "solution_limit"
    assert report.objective is not None
    assert report.best_bound is None and report.gap is None
    assert "no dual bound" in report.note


@pytest.mark.parametrize("interface", ["pyomo", "cvxpy"])
@pytest.mark.parametrize("solver", ["highs", "scip", "highs apart"])
def test_a_deadline_passed_before_the_solve_runs_nothing_and_says_so(solver, interface, monkeypatch) -> None:
    """The deadline counts the load: one already passed leaves the solver unrun (true at any speed),
    a large MIP meant for a child process included (no child is started)."""
    if solver == "highs apart":
        from optrules.solvers import highs as highs_module

        monkeypatch.setattr(highs_module, "LARGE_MIP_NONZEROS", 1)  # every model is "large"
        solver = "highs"
    model = matrix_market_split() if interface == "pyomo" else cvxpy_market_split(slack=True)[0]
    report = solve(model, PC.MILP, solver, deadline=time.perf_counter() - 1.0)
    assert report.status is Status.NO_SOLUTION and report.termination == "time_limit"
    assert report.time_limit == 0.0 and report.solve_seconds == 0.0 and report.load_seconds > 0
    assert "did not run" in report.note
    variables = model.x.values() if interface == "pyomo" else model.variables()
    assert all(v.value is None for v in variables)


def test_loading_into_scip_stops_at_the_deadline_row_by_row(monkeypatch) -> None:
    """pyscipopt takes one row at a time: a cut round's 1.3M rows took 12 s of a 2 s limit (review).
    Loading looks at the deadline every ROWS_PER_CHECK rows; here every row, with a clock that passes
    the deadline after the third look (no wall-clock dependence)."""
    from optrules.solvers import scip as scip_module
    from optrules.solvers.standard_form import compile_model

    form = compile_model(matrix_market_split())
    assert form.A.shape[0] > 3
    looks = iter(range(100))
    monkeypatch.setattr(scip_module, "ROWS_PER_CHECK", 1)
    monkeypatch.setattr(scip_module.time, "perf_counter", lambda: float(next(looks)))
    with pytest.raises(scip_module._OutOfTime):
        scip_module._Loaded(form, deadline=2.5)  # looks at rows 0, 1, 2 pass; row 3's is past 2.5


@pytest.mark.parametrize("interface", ["pyomo", "cvxpy"])
def test_the_solver_gets_the_time_left_after_loading(interface) -> None:
    model = matrix_milp() if interface == "pyomo" else cvxpy_milp()
    report = solve(model, PC.MILP, "highs", {"time_limit": 30.0})
    assert report.status is Status.OPTIMAL
    assert 0 < report.time_limit < 30.0
    assert report.time_limit <= 30.0 - report.load_seconds + 1e-9  # the limit is set after all of the load
    assert report.options["time_limit"] == 30.0  # the options as given


def test_bulk_loading_errors_are_clear() -> None:
    m = pyomo_qp()
    m.bad = pyo.Constraint(expr=pyo.exp(m.x) <= 3)
    with pytest.raises(SolverError, match="'bad' is neither linear nor quadratic"):
        solve(m, PC.NLP, "scip")
    m = pyomo_qp()
    m.obj.set_value(pyo.exp(m.x))
    with pytest.raises(SolverError, match="the objective is neither linear nor quadratic"):
        solve(m, PC.NLP, "scip")
    with pytest.raises(SolverError, match="integer variables but problem_class is LP"):
        solve(matrix_milp(), PC.LP, "highs")
    with pytest.raises(ValueError, match="A has 2 columns but 3 variables were given"):
        matrix_constraint(np.ones((1, 2)), [pyo.Var(), pyo.Var(), pyo.Var()])


@pytest.mark.parametrize("solver", ["highs", "scip"])
def test_fixed_variables_and_deactivated_rows_are_honoured(solver) -> None:
    m = matrix_milp()
    m.x[1].fix(1)  # item 1 forced in: the optimum is not the free one (24)
    forced = max(sum(v for (v, _), pick in zip(KNAPSACK, picks) if pick)
                 for picks in itertools.product([0, 1], repeat=len(KNAPSACK))
                 if picks[1] and sum(w for (_, w), pick in zip(KNAPSACK, picks) if pick) <= CAPACITY)
    assert forced < knapsack_optimum()
    report = solve(m, PC.MILP, solver)
    assert report.status is Status.OPTIMAL and m.x[1].value == 1
    assert report.objective == pytest.approx(forced)
    m.x[1].unfix()
    m.cap[0].deactivate()  # no capacity row left: every item is taken
    report = solve(m, PC.MILP, solver)
    assert report.objective == pytest.approx(sum(v for v, _ in KNAPSACK))


def test_matrix_rows_are_made_only_when_asked_for_and_then_seen_by_pyomo() -> None:
    """The bulk loaders read a block's arrays and leave its row objects unmade; Pyomo's own
    machinery makes them on first use and sees every row."""
    m = matrix_milp()
    assert not m.cap.rows_made
    report = solve(m, PC.MILP, "highs")
    assert report.objective == pytest.approx(knapsack_optimum()) and not m.cap.rows_made
    rows = list(m.cap.values())
    assert len(rows) == len(m.cap) == 1 and m.cap.rows_made and rows[0] is m.cap[0]
    assert pyo.value(rows[0].upper) == CAPACITY and rows[0].body.polynomial_degree() == 1
    assert solve(m, PC.MILP, "highs").objective == pytest.approx(knapsack_optimum())  # made rows: same answer


def test_a_cloned_matrix_block_is_never_silently_reactivated() -> None:
    """A clone of a model whose block has a deactivated row keeps it deactivated (its rows are copied
    with their flags, over the clone's variables), and the clone and the original are independent."""
    m = matrix_lp()
    full = solve(m, PC.LP, "highs").objective
    m.rows[1].deactivate()
    expected = solve(m, PC.LP, "highs").objective
    assert expected != pytest.approx(full)
    clone = m.clone()
    assert [row.active for row in clone.rows.values()] == [True, False]
    assert clone.rows[0].parent_component() is clone.rows and set(map(id, clone.rows._x)) == set(map(id, clone.x.values()))
    assert solve(clone, PC.LP, "highs").objective == pytest.approx(expected)
    clone.rows[1].activate()
    assert solve(clone, PC.LP, "highs").objective == pytest.approx(full)
    assert solve(m, PC.LP, "highs").objective == pytest.approx(expected) and not m.rows[1].active


@pytest.mark.parametrize(("solver", "options", "message"), [
    ("highs", {"presolv": "off"}, r"HiGHS has no option 'presolv'; did you mean 'presolve'"),
    ("highs", {"mip_max_nodes": 2.5}, r"HiGHS option 'mip_max_nodes' takes an integer, got 2.5"),
    ("highs", {"presolve": True}, r"HiGHS option 'presolve' takes a string, got True"),
    ("highs", {"presolve": "sometimes"}, r"HiGHS option 'presolve' does not accept 'sometimes'"),
    ("scip", {"limits/node": 5}, r"SCIP has no option 'limits/node'; did you mean 'limits/nodes'"),
    ("scip", {"limits/nodes": 1.5}, r"SCIP option 'limits/nodes' takes an integer, got 1.5"),
    ("scip", {"limits/gap": -1.0}, r"SCIP parameter 'limits/gap' does not accept -1.0"),
    ("scip", {"display/verblevel": True}, r"SCIP option 'display/verblevel' takes an integer, got True"),
    ("clarabel", {"max_iters": 5}, r"Clarabel has no option 'max_iters'; did you mean 'max_iter'"),
    ("clarabel", {"max_iter": "5"}, r"Clarabel option 'max_iter' takes an integer"),
    ("osqp", {"eps_abs_typo": 1e-6}, r"OSQP has no option 'eps_abs_typo'; did you mean 'eps_abs'"),
    ("osqp", {"eps_abs": "tight"}, r"OSQP option 'eps_abs' takes a number, got 'tight'"),
    ("osqp", {"max_iter": 2.5}, r"OSQP option 'max_iter' takes an integer, got 2.5"),
    ("osqp", {"max_iter": True}, r"OSQP option 'max_iter' takes an integer, got True"),
    ("osqp", {"polishing": 0.5}, r"OSQP option 'polishing' takes True or False, got 0.5"),
    ("osqp", {"solver_type": "iterative"}, r"OSQP option 'solver_type' takes one of \['direct', 'indirect'\]"),
    ("cplexx", {}, r"unknown solver 'cplexx'"),
])
def test_native_options_are_checked_against_the_solver_s_own_names_and_types(solver, options, message) -> None:
    with pytest.raises(SolverError, match=message):
        S.check_solver_options(solver, options)


def test_valid_native_options_pass_the_check_and_unchecked_solvers_pass_them_on() -> None:
    assert S.check_solver_options("highs", {"presolve": "off", "mip_max_nodes": 3, "mip_rel_gap": 0}) == {
        "presolve": "off", "mip_max_nodes": 3, "mip_rel_gap": 0, "verbose": False}
    assert S.check_solver_options("scip", {"limits/nodes": 3, "limits/gap": 0.1, "time_limit": 2})["time_limit"] == 2.0
    assert S.check_solver_options("glpk", {"anything": 1}) == {"anything": 1, "verbose": False}
    osqp = {"eps_abs": 1e-6, "polishing": True, "max_iter": 50, "polish": False, "warm_start": True,
            "solver_type": "indirect", "cg_preconditioner": "diagonal"}  # OSQP 1.x's setup takes all of these
    assert S.check_solver_options("osqp", osqp) == {**osqp, "verbose": False}
    with pytest.raises(UnsupportedProblemError, match="highs cannot solve MIQP"):
        S.check_solver_options("highs", {}, PC.MIQP, "pyomo")


def test_highs_refuses_a_quadratic_constraint_instead_of_dropping_it() -> None:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 10))
    m.y = pyo.Var(bounds=(0, 10))
    m.disc = pyo.Constraint(expr=m.x ** 2 + m.y ** 2 <= 1)
    m.obj = pyo.Objective(expr=-m.x - m.y)
    with pytest.raises(SolverError, match="HiGHS takes no quadratic constraint; the model has 1"):
        solve(m, PC.QP, "highs")


@pytest.mark.parametrize("solver", ["highs", "scip"])
def test_a_variable_twice_in_a_matrix_row_adds_its_coefficients(solver) -> None:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 10))
    m.row = matrix_constraint(np.array([[1.0, 1.0]]), [m.x, m.x], lower=2.0)  # 2x >= 2
    m.obj = pyo.Objective(expr=m.x)
    report = solve(m, PC.LP, solver)
    assert report.status is Status.OPTIMAL and report.objective == pytest.approx(1.0)


@pytest.mark.parametrize("solver", ["highs", "scip"])
def test_parameters_in_bounds_and_a_model_without_variables(solver) -> None:
    from pyomo.core.base.matrix_constraint import MatrixConstraint

    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(2), bounds=(0, None))
    m.cap = pyo.Param(initialize=4.0, mutable=True)
    m.rows = MatrixConstraint([1.0, 2.0], [0, 1], [0, 2], [None], [m.cap], list(m.x.values()))
    m.obj = pyo.Objective(expr=m.x[0] + m.x[1], sense=pyo.maximize)
    assert solve(m, PC.LP, solver).objective == pytest.approx(4.0)  # x0 + 2 x1 <= cap: x0 = 4
    empty = pyo.ConcreteModel()
    empty.obj = pyo.Objective(expr=pyo.value(3.0) + 0 * 1)
    report = solve(empty, PC.LP, solver)
    assert report.status is Status.OPTIMAL and report.objective == pytest.approx(3.0)


# --- large MIPs under a time limit: HiGHS' setup phases that ignore the limit are switched off ---

def test_limit_safe_options_only_for_a_large_mip_under_a_limit_and_never_over_the_caller() -> None:
    from optrules.solvers.highs import LARGE_MIP_NONZEROS, LARGE_MIP_OPTIONS, limit_safe_options

    big = LARGE_MIP_NONZEROS
    assert limit_safe_options({}, True, big - 1, True) == ({}, "")
    assert limit_safe_options({}, False, big, True) == ({}, "")  # an LP has none of those phases
    assert limit_safe_options({}, True, big, False) == ({}, "")  # no limit: nothing to protect
    options, note = limit_safe_options({"presolve": "on"}, True, big, True)
    assert options == {**LARGE_MIP_OPTIONS, "presolve": "on"}  # the caller's choice is kept
    assert "presolve" not in note and "mip_detect_symmetry=False" in note and f"{big:,}" in note
    assert limit_safe_options(dict(LARGE_MIP_OPTIONS), True, big, True) == (LARGE_MIP_OPTIONS, "")


@pytest.mark.parametrize("interface", ["pyomo", "cvxpy"])
def test_a_large_mip_under_a_limit_says_which_highs_phases_it_switched_off(interface, monkeypatch) -> None:
    from optrules.solvers import highs as highs_module

    monkeypatch.setattr(highs_module, "LARGE_MIP_NONZEROS", 1)  # every model is "large"
    model = matrix_milp() if interface == "pyomo" else cvxpy_milp()
    limited = S.solve(model, PC.MILP, "highs", {"time_limit": 1e6})
    assert "presolve='off'" in limited.note and "mip_heuristic_run_feasibility_jump=False" in limited.note
    assert limited.status is Status.OPTIMAL and limited.objective == pytest.approx(knapsack_optimum())
    unlimited = S.solve(matrix_milp() if interface == "pyomo" else cvxpy_milp(), PC.MILP, "highs", {})
    assert unlimited.note == "" and unlimited.objective == pytest.approx(knapsack_optimum())


# --- large MIPs under a time limit: solved in a child process that is stopped at the deadline ---

@pytest.mark.parametrize("interface", ["pyomo", "cvxpy"])
def test_a_large_mip_under_a_limit_is_solved_in_a_child_process_with_the_same_answer(interface, monkeypatch) -> None:
    from optrules.solvers import highs as highs_module
    from optrules.solvers import highs_process

    calls = []
    original = highs_process.run_apart

    def recorded(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    def chosen(model) -> np.ndarray:
        if interface == "pyomo":
            return np.array([pyo.value(model.x[i]) for i in range(len(KNAPSACK))])
        return np.asarray(model.variables()[0].value)

    monkeypatch.setattr(highs_module, "LARGE_MIP_NONZEROS", 1)  # every model is "large"
    monkeypatch.setattr(highs_process, "run_apart", recorded)
    new_model = matrix_milp if interface == "pyomo" else cvxpy_milp
    model = new_model()
    apart = S.solve(model, PC.MILP, "highs", {"time_limit": 1e6, "mip_gap": 0.0})
    assert len(calls) == 1  # the child process ran it
    assert apart.status is Status.OPTIMAL and apart.objective == pytest.approx(knapsack_optimum())
    assert apart.best_bound == pytest.approx(knapsack_optimum()) and apart.gap == pytest.approx(0.0, abs=1e-9)
    values = np.array([v for v, _ in KNAPSACK])
    assert values @ chosen(model) == pytest.approx(knapsack_optimum())
    assert apart.load_seconds > 0 and apart.solve_seconds >= 0
    unlimited = S.solve(new_model(), PC.MILP, "highs", {})  # no limit: in this process
    assert len(calls) == 1 and unlimited.objective == pytest.approx(apart.objective)
    assert highs_module.runs_apart(True, True) and not highs_module.runs_apart(False, True)
    assert not highs_module.runs_apart(True, False)


@pytest.mark.parametrize("interface", ["pyomo", "cvxpy"])
def test_a_child_process_that_does_not_stop_is_stopped_after_the_deadline_and_the_report_says_so(interface,
                                                                                                 monkeypatch) -> None:
    import functools
    import sys

    from optrules.solvers import highs as highs_module
    from optrules.solvers import highs_process

    sleeper = [sys.executable, "-c", "import time; time.sleep(600)"]  # a HiGHS that never looks at its clock
    apart = highs_process.run_apart({}, {}, None, time.perf_counter() + 0.2, False, command=sleeper)
    assert apart.found is None and "stopped" in apart.note and "no solution or bound" in apart.note
    assert apart.run_seconds >= 0.2  # it was waited for until the deadline at least
    monkeypatch.setattr(highs_module, "LARGE_MIP_NONZEROS", 1)
    monkeypatch.setattr(highs_process, "run_apart", functools.partial(highs_process.run_apart, command=sleeper))
    report = S.solve(matrix_milp() if interface == "pyomo" else cvxpy_milp(), PC.MILP, "highs", {"time_limit": 0.2})
    assert report.status is Status.NO_SOLUTION and report.termination == "time_limit"
    assert report.objective is None and report.best_bound is None and report.gap is None
    assert "stopped" in report.note


def _streaming_child(tmp_path, incumbent: list[float] | None, bound: float) -> list[str]:
    """A stand-in for HiGHS' child process that reports an incumbent (or none) and the dual bound
    ``bound`` of the maximisation the way the real child's callback does, in the terms of the model
    HiGHS was given (a layer may pass it as the minimisation of the negated objective), then never
    stops."""
    import sys

    code = ("import json, sys, time, numpy as np; from pathlib import Path; folder = Path(sys.argv[1]); "
            "sign = 1.0 if np.load(folder / 'maximize.npy')[0] else -1.0; "
            + ("" if incumbent is None else f"np.save(folder / 'incumbent.out.npy', np.array({incumbent!r})); ")
            + f"(folder / 'progress.json').write_text(json.dumps({{'mip_dual_bound': sign * {bound}, "
            "'mip_node_count': 7, 'seconds': 0.25})); time.sleep(600)")
    return [sys.executable, "-c", code]


@pytest.mark.parametrize("interface", ["pyomo", "cvxpy"])
def test_a_stopped_child_keeps_the_last_incumbent_and_bound_it_reported(interface, monkeypatch, tmp_path) -> None:
    """The knapsack's child reports the incumbent {item 1, item 3} (value 21, not the optimum 24)
    and the dual bound 30, then hangs: the solve ends at the deadline with that incumbent, that
    bound and its gap, as a feasible point at a time limit, and the note says the process was
    stopped. A child that had reported only a bound keeps the bound and no point."""
    import functools

    from optrules.solvers import highs_process

    new_model = matrix_milp if interface == "pyomo" else cvxpy_milp
    child = _streaming_child(tmp_path, [0.0, 1.0, 0.0, 1.0, 0.0], 30.0)
    monkeypatch.setattr(highs_process, "run_apart", functools.partial(highs_process.run_apart, command=child))
    model = new_model()
    report = S.solve(model, PC.MILP, "highs", {"time_limit": 0.3})
    assert report.status is Status.FEASIBLE and report.termination == "time_limit"
    assert report.objective == pytest.approx(21.0) and report.best_bound == pytest.approx(30.0)
    assert report.gap == pytest.approx(9.0 / 21.0)
    assert "stopped" in report.note and "incumbent and dual bound HiGHS had reported 0.2 s" in report.note
    chosen = ([pyo.value(model.x[i]) for i in range(len(KNAPSACK))] if interface == "pyomo"
              else list(model.variables()[0].value))
    assert chosen == pytest.approx([0, 1, 0, 1, 0])
    bound_only = _streaming_child(tmp_path, None, 30.0)
    monkeypatch.setattr(highs_process, "run_apart", functools.partial(highs_process.run_apart, command=bound_only))
    report = S.solve(new_model(), PC.MILP, "highs", {"time_limit": 0.3})
    assert report.status is Status.NO_SOLUTION and report.termination == "time_limit"
    assert report.objective is None and report.best_bound == pytest.approx(30.0) and report.gap is None
    assert "no incumbent" in report.note


def test_a_stopped_child_s_incumbent_carries_its_own_objective_whatever_the_progress_file_says(tmp_path) -> None:
    """Stopped between its two files: an incumbent with no progress file yet is kept with no bound,
    and its objective is computed from the model's costs, never read from an older progress file."""
    from optrules.solvers import highs_process

    assert highs_process._last_progress(tmp_path) == (None, 0.0)  # nothing written: nothing kept
    np.save(tmp_path / "cost.npy", np.array([2.0, 3.0]))
    np.save(tmp_path / "offset.npy", np.array([1.0]))
    np.save(tmp_path / "incumbent.out.npy", np.array([1.0, 1.0]))
    found, seconds = highs_process._last_progress(tmp_path)
    assert found["objective"] == 6.0 and found["mip_dual_bound"] == -math.inf and seconds == 0.0
    (tmp_path / "progress.json").write_text(json.dumps({"mip_dual_bound": 4.5, "mip_node_count": 3, "seconds": 1.5}))
    found, seconds = highs_process._last_progress(tmp_path)
    assert (found["objective"], found["mip_dual_bound"], found["mip_node_count"], seconds) == (6.0, 4.5, 3, 1.5)
    (tmp_path / "incumbent.out.npy").unlink()
    found, _ = highs_process._last_progress(tmp_path)
    assert found["primal_solution_status"] == 0 and "col_value" not in found and found["objective"] == math.inf


def test_the_child_writes_each_incumbent_and_bound_as_highs_reports_them(tmp_path) -> None:
    """The real child, run to the end on the knapsack and its folder kept: the last incumbent it
    wrote is the optimum HiGHS returned, with its objective, and the bound it wrote is a valid one."""
    import sys

    from optrules.solvers import highs_process
    from optrules.solvers.highs_arrays import model_arrays
    from optrules.solvers.standard_form import compile_model

    kept = tmp_path / "kept"
    keeper = [sys.executable, "-c", "import shutil, sys; from pathlib import Path; "
              "from optrules.solvers.highs_process import _solve_folder; folder = Path(sys.argv[1]); "
              f"_solve_folder(folder); shutil.copytree(folder, {str(kept)!r})"]
    arrays = model_arrays(compile_model(matrix_milp()))
    apart = highs_process.run_apart(arrays, {"mip_rel_gap": 0.0}, None, time.perf_counter() + 60, False, command=keeper)
    assert apart.found["status"] == "kOptimal" and apart.found["objective"] == pytest.approx(knapsack_optimum())
    incumbent = np.load(kept / "incumbent.out.npy")
    assert incumbent == pytest.approx(apart.found["col_value"])
    progress = json.loads((kept / "progress.json").read_text())
    assert progress["mip_dual_bound"] >= knapsack_optimum() - 1e-9  # a maximisation's bound is above
    last, _ = highs_process._last_progress(kept)
    assert last["col_value"] == pytest.approx(incumbent) and last["objective"] == pytest.approx(knapsack_optimum())


def test_a_child_process_that_fails_is_an_error_with_its_message() -> None:
    import sys

    from optrules.solvers import highs_process

    failing = [sys.executable, "-c", "import sys; sys.stderr.write('no HiGHS here'); sys.exit(3)"]
    with pytest.raises(S.SolverError, match="exit status 3.*no HiGHS here"):
        highs_process.run_apart({}, {}, None, time.perf_counter() + 60, False, command=failing)


def test_a_set_cover_fit_whose_child_process_was_stopped_keeps_the_greedy_start_and_says_so(monkeypatch) -> None:
    import functools
    import sys

    from optrules.cover import CoverInstance
    from optrules.exact.set_cover import solve_set_cover
    from optrules.learners.selection import greedy_cover
    from optrules.solvers import highs as highs_module
    from optrules.solvers import highs_process

    rng = np.random.default_rng(3)
    instance = CoverInstance.from_samples(rng.random((60, 12)) < 0.2, rng.random(60) < 0.5, 0.5, np.full(12, 0.5))
    sleeper = [sys.executable, "-c", "import time; time.sleep(600)"]
    monkeypatch.setattr(highs_module, "LARGE_MIP_NONZEROS", 1)
    monkeypatch.setattr(highs_process, "run_apart", functools.partial(highs_process.run_apart, command=sleeper))
    result = solve_set_cover(instance, solver="highs", solver_options={"time_limit": 0.5}, cut_rounds=0)
    assert result.fallback == "start" and "no solution" in result.fallback_reason
    assert result.objective == pytest.approx(instance.objective(greedy_cover(instance)))
    assert "stopped" in result.report.note


def test_scip_s_limit_safe_options_only_for_a_large_model_under_a_limit_and_never_over_the_caller() -> None:
    from optrules.solvers.scip import LARGE_MODEL_NONZEROS, LARGE_MODEL_OPTIONS, limit_safe_options

    big = LARGE_MODEL_NONZEROS
    assert limit_safe_options({}, big - 1, True) == ({}, "")
    assert limit_safe_options({}, big, False) == ({}, "")  # no limit: nothing to protect
    options, note = limit_safe_options({}, big, True)
    assert options == LARGE_MODEL_OPTIONS and "lp/presolving=False" in note and f"{big:,}" in note
    assert limit_safe_options({"lp/presolving": True}, big, True) == ({"lp/presolving": True}, "")


@pytest.mark.parametrize("interface", ["pyomo", "cvxpy"])
def test_a_large_model_under_a_limit_says_scip_ran_without_soplex_s_presolve(interface, monkeypatch) -> None:
    from optrules.solvers import scip as scip_module

    monkeypatch.setattr(scip_module, "LARGE_MODEL_NONZEROS", 1)  # every model is "large"
    model = matrix_milp() if interface == "pyomo" else cvxpy_milp()
    limited = S.solve(model, PC.MILP, "scip", {"time_limit": 1e6})
    assert "lp/presolving=False" in limited.note
    assert limited.status is Status.OPTIMAL and limited.objective == pytest.approx(knapsack_optimum())
    unlimited = S.solve(matrix_milp() if interface == "pyomo" else cvxpy_milp(), PC.MILP, "scip", {})
    assert unlimited.note == "" and unlimited.objective == pytest.approx(knapsack_optimum())


def test_compiled_column_bounds_equal_pyomo_s_own_for_every_kind_of_bound() -> None:
    from optrules.solvers.standard_form import _column_bounds

    m = pyo.ConcreteModel()
    m.p = pyo.Param(initialize=2.5, mutable=True)
    m.a = pyo.Var(range(3), domain=pyo.Binary)
    m.b = pyo.Var(range(3), domain=pyo.NonNegativeReals, bounds=(None, 4))
    m.c = pyo.Var(domain=pyo.Integers, bounds=(-3, 7))
    m.d = pyo.Var(domain=pyo.UnitInterval, bounds=(0.25, 2))  # the domain is tighter above
    m.e = pyo.Var()
    m.a[1].setub(0)
    m.b[2].setlb(1.5)
    plain = [*m.a.values(), *m.b.values(), m.c, m.d, m.e]
    expected = (np.array([-np.inf if v.lb is None else v.lb for v in plain], dtype=float),
                np.array([np.inf if v.ub is None else v.ub for v in plain], dtype=float),
                np.array([not v.is_continuous() for v in plain]))
    for got, want in zip(_column_bounds(plain), expected):
        np.testing.assert_array_equal(got, want)
    m.f = pyo.Var(bounds=(m.p, None))  # a bound given as a parameter: read through Pyomo
    lower, upper, integer = _column_bounds([*plain, m.f])
    assert lower[-1] == 2.5 and upper[-1] == np.inf and not integer[-1]
    np.testing.assert_array_equal(lower[:-1], expected[0])
    np.testing.assert_array_equal(integer, [*expected[2], False])


def test_compiled_columns_are_one_per_variable_however_the_blocks_list_them() -> None:
    """Blocks listing whole components in order (read as runs), part of a component, components
    out of order, a ``Reference`` and a variable of another model all land on the variable's one
    column: the compiled matrix equals the one built from a per-variable lookup, and the solve
    loads every value where it belongs."""
    from optrules.solvers.standard_form import compile_model

    other = pyo.ConcreteModel()
    other.w = pyo.Var(bounds=(0, 5))
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(3), bounds=(0, 4))
    m.b = pyo.Block()
    m.b.y = pyo.Var(range(2), bounds=(0, 4))
    m.r = pyo.Reference(m.x)  # names m.x's variables again: no column of its own
    scalars = []
    for k in range(40):  # more components in one list than the runs are tried for
        m.add_component(f"s{k}", pyo.Var(bounds=(0, 4)))
        scalars.append(m.component(f"s{k}"))
    x, y, r = list(m.x.values()), list(m.b.y.values()), list(m.r.values())
    lists = {"runs": [*x, *y], "part": x[:2], "out of order": [*y, *x], "shuffled": [x[2], y[0], x[0]],
             "reference": r, "outside": [other.w, *x], "many scalars": [*scalars, *x]}
    for k, variables in enumerate(lists.values()):
        m.add_component(f"c{k}", matrix_constraint(np.arange(1.0, len(variables) + 1)[None, :], variables,
                                                   lower=1.0 + k))
    m.obj = pyo.Objective(expr=sum(v for v in [*x, *y, *scalars, other.w]) + 0.5 * x[1])
    form = compile_model(m)
    own = [*x, *y, *scalars]
    assert form.n_cols == 46 and form.variables[-1] is other.w  # the model's own in Pyomo's order, then others
    assert sorted(map(id, form.variables[:-1])) == sorted(map(id, own))
    column = {id(v): j for j, v in enumerate(form.variables)}
    for k, variables in enumerate(lists.values()):
        expected = np.zeros(46)
        np.add.at(expected, [column[id(v)] for v in variables], np.arange(1.0, len(variables) + 1))
        np.testing.assert_array_equal(form.A[[k]].toarray()[0], expected)
    c = np.ones(46)
    c[column[id(x[1])]] = 1.5
    np.testing.assert_array_equal(form.c, c)
    report = S.solve(m, PC.LP, "highs")
    assert report.status is Status.OPTIMAL
    for k, variables in enumerate(lists.values()):
        row = sum((i + 1) * v.value for i, v in enumerate(variables))
        assert row >= 1.0 + k - 1e-7
    assert report.objective == pytest.approx(pyo.value(m.obj))


def test_a_compiled_objective_equals_pyomo_s_standard_representation() -> None:
    """The objective read from a LinearExpression's terms (the fast path) and through Pyomo's standard
    representation (every other objective) agree: the same coefficient per free column and the same
    value at any point, with a constant, a variable listed twice, a fixed variable, a parameter
    coefficient and a quadratic term."""
    from pyomo.core.expr.numeric_expr import LinearExpression
    from pyomo.repn import generate_standard_repn

    from optrules.solvers.standard_form import compile_model

    objectives = {
        "linear expression": lambda m: LinearExpression(constant=2.0, linear_coefs=[1.0, -2.0, 3.0, 4.0, 0.5],
                                                        linear_vars=[m.x[0], m.x[1], m.x[0], m.x[3], m.x[2]]),
        "parameter coefficient": lambda m: m.p * m.x[0] + m.x[1] + 1.0,
        "quadratic": lambda m: m.x[0] * m.x[1] + 2 * m.x[2] - 1.0,
    }
    point = [0.3, 0.6, 0.9, 0.5]  # x[3] is fixed at 0.5
    for name, objective in objectives.items():
        m = pyo.ConcreteModel()
        m.x = pyo.Var(range(4), bounds=(0, 1))
        m.p = pyo.Param(initialize=1.5, mutable=True)
        m.x[3].fix(0.5)
        m.row = matrix_constraint(np.ones((1, 4)), list(m.x.values()), upper=3.0)
        m.obj = pyo.Objective(expr=objective(m))
        form = compile_model(m)
        repn = generate_standard_repn(m.obj.expr, quadratic=True, compute_values=True)
        column = {id(var): j for j, var in enumerate(form.variables)}
        expected = np.zeros(form.n_cols)
        for var, coef in zip(repn.linear_vars, repn.linear_coefs):
            expected[column[id(var)]] += coef
        free = [j for j, var in enumerate(form.variables) if not var.fixed]
        np.testing.assert_allclose(form.c[free], expected[free], err_msg=name)
        for var, value in zip(m.x.values(), point):
            if not var.fixed:
                var.set_value(value)
        x = np.array([var.value for var in form.variables])
        assert form.objective_at(x) == pytest.approx(pyo.value(m.obj)), name



def test_an_objective_kept_as_arrays_compiles_solves_and_reads_as_its_expression(contrib_scip) -> None:
    """``linear_objective``: the compiler reads its arrays (a variable listed twice adds up, a fixed
    one counts at its value), Pyomo's own interface and ``value`` read the expression made from them,
    and both give the same optimum; a clone keeps it, a new expression replaces it, a maximisation
    stays one."""
    from pyomo.repn import generate_standard_repn

    from optrules.models.matrix import linear_objective
    from optrules.solvers.standard_form import compile_model

    def model(maximize: bool = False) -> pyo.ConcreteModel:
        m = pyo.ConcreteModel()
        m.x = pyo.Var(range(4), bounds=(0, 1))
        m.x[3].fix(0.5)
        m.row = matrix_constraint(np.ones((1, 3)), [m.x[0], m.x[1], m.x[2]], lower=1.5)
        m.obj = linear_objective([1.0, -2.0, 3.0, 4.0, 0.5], [m.x[0], m.x[1], m.x[0], m.x[3], m.x[2]], 2.0,
                                 maximize=maximize)
        return m

    m = model()
    form = compile_model(m)
    assert m.obj.linear_terms is not None and not form.maximize
    repn = generate_standard_repn(m.obj.expr, quadratic=False, compute_values=True)
    column = {id(var): j for j, var in enumerate(form.variables)}
    expected = np.zeros(form.n_cols)
    for var, coef in zip(repn.linear_vars, repn.linear_coefs):
        expected[column[id(var)]] += coef
    np.testing.assert_allclose(form.c[:3], expected[:3])  # x[0]: 1 + 3; x[3] is fixed
    assert form.c[column[id(m.x[0])]] == 4.0 and form.constant == 2.0
    bulk = solve(m, PC.LP, "highs")
    assert bulk.status is Status.OPTIMAL and bulk.objective == pytest.approx(pyo.value(m.obj))
    assert bulk.objective == pytest.approx(2.0 + 4 * 0.0 - 2.0 * 1.0 + 0.5 * 0.5 + 4.0 * 0.5)  # x = (0, 1, 0.5)
    own = solve(model(), PC.LP, "scip")  # through pyomo.contrib.solver, which reads the expression
    assert own.status is Status.OPTIMAL and own.objective == pytest.approx(bulk.objective)
    assert solve(m.clone(), PC.LP, "highs").objective == pytest.approx(bulk.objective)
    assert solve(model(maximize=True), PC.LP, "highs").objective == pytest.approx(2.0 + 4.0 + 0.5 + 2.0)  # x = (1, 0, 1)
    m.obj.expr = m.x[0] + m.x[2]
    assert m.obj.linear_terms is None
    assert solve(m, PC.LP, "highs").objective == pytest.approx(0.5)  # x[1] = 1, x[0] + x[2] = 0.5
    with pytest.raises(ValueError, match="3 entries but 2 variables"):
        linear_objective([1.0, 2.0, 3.0], [m.x[0], m.x[1]])
    with pytest.raises(ValueError, match="finite"):
        linear_objective([1.0, np.nan], [m.x[0], m.x[1]])
    with pytest.raises(TypeError, match="Pyomo variables"):  # an indexed Var lists its indices
        linear_objective([1.0, 1.0, 1.0, 1.0], m.x)


def test_an_objective_of_arrays_keeps_its_own_copy_and_survives_a_pickle() -> None:
    """The caller's array changed afterwards changes neither the arrays nor the expression (HiGHS and
    Pyomo's writers read one objective); a pickled model, read back, solves to the same optimum with
    its arrays and its block's deactivated row."""
    import pickle

    from optrules.models.matrix import linear_objective

    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(3), bounds=(0, 1))
    m.rows = matrix_constraint(np.array([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]]), list(m.x.values()), lower=[1.0, 1.0])
    c = np.array([1.0, 2.0, 3.0])
    m.obj = linear_objective(c, list(m.x.values()), 0.5)
    c[0] = 50.0
    terms = m.obj.linear_terms[2]
    assert terms[0] == 1.0 and not terms.flags.writeable
    for var, value in zip(m.x.values(), [1.0, 0.0, 0.0]):
        var.set_value(value)
    assert pyo.value(m.obj) == 1.5  # the expression, made now, has the coefficient given at the call
    m.rows[1].deactivate()  # x[0] free again: the optimum takes x[0] = 1 at cost 1
    expected = solve(m, PC.LP, "highs").objective
    assert expected == pytest.approx(1.5)
    back = pickle.loads(pickle.dumps(m))
    assert back.obj.linear_terms is not None and not back.rows[1].active
    assert solve(back, PC.LP, "highs").objective == pytest.approx(expected)


def test_a_formulation_of_arrays_solves_through_pyomo_s_own_writer_and_interfaces(contrib_scip, tmp_path) -> None:
    """The set-cover ILP (matrix blocks, an objective of arrays, a batch of pair cuts) reaches the bulk
    loader's optimum through pyomo.contrib.solver (the path of Gurobi) and through Pyomo's LP writer
    (the path of CBC and GLPK), the LP file here solved by HiGHS."""
    import highspy

    from optrules.cover import CoverInstance
    from optrules.models import set_cover as set_cover_model

    rng = np.random.default_rng(7)
    instance = CoverInstance.from_samples(rng.random((60, 9)) < 0.3, rng.random(60) < 0.5, 0.7, np.ones(9)).reduce().instance

    def built() -> pyo.ConcreteModel:
        sc = set_cover_model.build(instance, modeller="pyomo")
        sc.add_pair_cuts(np.array([[k, i] for k in sc.data.pos_rows[:3] for i in sc.data.neg_rows[:3]]))
        return sc.model

    bulk = solve(built(), PC.MILP, "highs")
    assert bulk.status is Status.OPTIMAL
    own = solve(built(), PC.MILP, "scip")
    assert own.status is Status.OPTIMAL and own.objective == pytest.approx(bulk.objective)
    path = tmp_path / "set_cover.lp"
    built().write(str(path))
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.readModel(str(path))
    highs.run()
    assert highs.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert highs.getInfo().objective_function_value == pytest.approx(bulk.objective)


def test_a_cvxpy_start_lands_in_the_columns_of_cvxpy_s_conic_form() -> None:
    from optrules.solvers.cvxpy_backend import _conic_start

    x, y = cp.Variable((2, 3), name="x"), cp.Variable(2, integer=True, name="y")
    weights = np.arange(6.0).reshape(2, 3)
    problem = cp.Problem(cp.Minimize(cp.sum(cp.multiply(weights, x)) + np.array([3.0, -1.0]) @ y + 7),
                         [x >= 0, x <= 1, cp.sum(x, axis=0) >= np.array([1.0, 0.5, 0.2]), y >= -2, y <= 4,
                          y[0] - y[1] >= x[1, 2]])
    assert S.solve(problem, PC.MILP, "highs", {}).status is Status.OPTIMAL
    data = problem.get_problem_data("HIGHS")[0]
    start = _conic_start(problem, data)
    assert not np.isnan(start).any()
    # the optimum, written into the conic columns, is feasible there and has cvxpy's objective
    assert data["c"] @ start + 7 == pytest.approx(problem.value)
    assert (data["A"] @ start <= data["b"] + 1e-7).all()
    x.value = None
    assert np.isnan(_conic_start(problem, data)).sum() == x.size  # unknown where a variable has no value


def test_a_cvxpy_start_leaves_out_a_variable_cvxpy_stores_in_fewer_columns() -> None:
    """cvxpy keeps a symmetric matrix variable as its upper triangle under the same id: its start is
    unknown rather than spilled over the next variable's columns."""
    from optrules.solvers.cvxpy_backend import _conic_start

    x, sym = cp.Variable(2), cp.Variable((2, 2), symmetric=True)
    problem = cp.Problem(cp.Minimize(cp.sum(x) + cp.sum(sym)), [x >= 0, sym >= -1, sym <= 1])
    x.value, sym.value = np.array([0.5, 0.25]), np.array([[1.0, 2.0], [2.0, 3.0]])
    start = _conic_start(problem, problem.get_problem_data("HIGHS")[0])
    assert sorted(start[~np.isnan(start)]) == [0.25, 0.5] and np.isnan(start).sum() == 3
    report = solve(problem, PC.LP, "highs", warm_start=True)
    assert report.status is Status.OPTIMAL and report.objective == pytest.approx(-4.0)


def test_an_unverified_optimum_s_note_says_how_far_it_is() -> None:
    from optrules.solvers.solving import report_note

    out = Outcome("optimal", True, 12.6, 11.6)
    note = report_note(Status.FEASIBLE, out, 11.6, GLOBAL, PC.MILP, "optimum_not_verified", 0.0794, "highs")
    assert note == "highs reported an optimum, but the solution it returned is 7.94% from the bound, beyond the gap " \
                   "tolerance: not proven"
