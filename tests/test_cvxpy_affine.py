"""cvxpy LPs and MILPs read straight into HiGHS' arrays (optrules.solvers.cvxpy_affine) against
cvxpy's own canonicalisation and HiGHS interface: same status, objective, point and LP duals."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from optrules import solvers as S
from optrules.solvers import ProblemClass as PC
from optrules.solvers import Status
from optrules.solvers.cvxpy_affine import affine_form


def _by_cvxpy(problem: cp.Problem) -> tuple[str, float | None, list, list]:
    """Status, value, variable values and constraint duals from cvxpy's own chain and HiGHS interface."""
    problem.solve(solver=cp.HIGHS)
    return (problem.status, problem.value, [v.value for v in problem.variables()],
            [c.dual_value for c in problem.constraints])


def _random_lp(seed: int, integer: bool, maximize: bool, sparse_rows: bool) -> cp.Problem:
    """A bounded feasible problem over a vector x and a scalar y, written with every piece the reader
    takes: A @ x (dense or sparse), e @ A, multiply, division, slices, index arrays, sum, a broadcast
    scalar, negation, <=, >=, ==, NonNeg / NonPos constraints, box bounds and nonneg attributes."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 9)), int(rng.integers(1, 6))
    boolean = (np.arange(n // 2),) if integer else False
    x = cp.Variable(n, name="x", boolean=boolean, bounds=[-2.0 * np.ones(n), 3.0 * np.ones(n)])
    y = cp.Variable(name="y", nonneg=True, integer=integer)
    point = rng.uniform(-1, 1, n)  # a point inside every row below
    point[:n // 2] = rng.integers(0, 2, n // 2) if integer else point[:n // 2]
    A = rng.normal(size=(m, n))
    constant = sp.csr_matrix(A) if sparse_rows else A
    slack = rng.uniform(0.1, 1.0, m)
    B = rng.normal(size=(n, 2))
    weights = rng.normal(size=n)
    constraints = [
        constant @ x - slack <= A @ point,                     # A x - s <= A p
        x @ B >= point @ B - 1.5,                              # e @ A
        cp.sum(x[1:]) / 2 + y >= rng.uniform(-1, 0),           # division, slice, sum
        -(x[[0, n - 1]]) <= 2.5,                               # index array, negation
        cp.NonNeg(point[0] + 0.5 - x[0] + y * 0.1),            # NonNeg, a variable times a scalar
        cp.NonPos(cp.multiply(weights, x - point) - 0.5),      # multiply, broadcast scalar
        y <= 5,
    ]
    if not integer:
        constraints.append(x[2] + 0.3 * y == point[2] + 0.3)  # an equality row, feasible at (point, 1)
    objective = rng.normal(size=n) @ x + rng.normal() * y + 1.5
    return cp.Problem(cp.Maximize(objective) if maximize else cp.Minimize(objective), constraints)


@pytest.mark.filterwarnings(r"ignore:\s*Explicitly invoking")  # cvxpy deprecates NonPos(expr); the reader still takes it
@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), integer=st.booleans(), maximize=st.booleans(), sparse_rows=st.booleans())
def test_an_affine_problem_solves_as_through_cvxpy_s_own_chain(seed, integer, maximize, sparse_rows) -> None:
    problem = _random_lp(seed, integer, maximize, sparse_rows)
    assert affine_form(problem) is not None  # the problem is read straight, not canonicalised
    report = S.solve(problem, PC.MILP if integer else PC.LP, "highs", {})
    ours = (problem.status, problem.value, [v.value for v in problem.variables()],
            [c.dual_value for c in problem.constraints])
    theirs = _by_cvxpy(problem)
    assert report.status is Status.OPTIMAL and ours[0] == theirs[0] == cp.OPTIMAL
    assert report.objective == pytest.approx(theirs[1], abs=1e-6) and ours[1] == pytest.approx(theirs[1], abs=1e-6)
    if integer:
        assert report.best_bound == pytest.approx(report.objective, abs=1e-6)
        return
    # generic (Gaussian) data: the LP's optimum and its duals are unique
    for value, expected in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(value, expected, atol=1e-6)
    for dual, expected in zip(ours[3], theirs[3]):
        np.testing.assert_allclose(dual, expected, atol=1e-6)


def test_the_reader_turns_each_piece_into_the_rows_cvxpy_would() -> None:
    x = cp.Variable(3, name="x", bounds=[0, 1], boolean=(np.array([0, 2]),))
    y = cp.Variable(name="y", integer=True)
    rows = sp.csr_matrix([[1.0, 0.0, 2.0], [0.0, -1.0, 0.0]])
    problem = cp.Problem(cp.Maximize(np.array([1.0, 2.0, 3.0]) @ x - y + 4),
                         [rows @ x >= np.array([1.0, -1.0]), cp.sum(x[:2]) + y <= 3, y == 1, cp.NonNeg(y)])
    form = affine_form(problem)
    arrays = form.arrays
    assert list(arrays["shape"]) == [4, 5] and bool(arrays["rowwise"][0])
    A = sp.csr_matrix((arrays["a_value"], arrays["a_index"], arrays["a_start"]), shape=(5, 4)).toarray()
    np.testing.assert_array_equal(A, [[1, 0, 2, 0], [0, -1, 0, 0], [1, 1, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1]])
    np.testing.assert_array_equal(arrays["row_lower"], [1, -1, -np.inf, 1, 0])
    np.testing.assert_array_equal(arrays["row_upper"], [np.inf, np.inf, 3, 1, np.inf])
    np.testing.assert_array_equal(arrays["cost"], [-1, -2, -3, 1])  # a maximisation, minimised negated
    assert arrays["offset"][0] == -4
    np.testing.assert_array_equal(arrays["col_lower"], [0, 0, 0, -np.inf])
    np.testing.assert_array_equal(arrays["col_upper"], [1, 1, 1, np.inf])
    np.testing.assert_array_equal(arrays["integer"], [0, 2, 3])
    x.value, y.value = np.array([1.0, 0.5, 0.0]), None
    np.testing.assert_array_equal(form.start(), [1.0, 0.5, 0.0, np.nan])


@pytest.mark.parametrize("make", [
    lambda x, X: cp.Problem(cp.Minimize(cp.sum_squares(x)), [x >= 1]),       # quadratic
    lambda x, X: cp.Problem(cp.Minimize(cp.sum(cp.abs(x))), [x >= 1]),       # an atom read by cvxpy only
    lambda x, X: cp.Problem(cp.Minimize(cp.sum(X)), [X >= 1]),              # a matrix variable
    lambda x, X: cp.Problem(cp.Minimize(cp.sum(x)), [cp.sum(cp.vstack([x, x]), axis=0) >= 1]),  # along an axis
])
def test_what_the_reader_does_not_take_goes_through_cvxpy(make) -> None:
    x, X = cp.Variable(2), cp.Variable((2, 2))
    problem = make(x, X)
    assert affine_form(problem) is None
    if problem.is_qp() and not problem.is_lp():
        return
    report = S.solve(problem, PC.LP, "highs", {})
    assert report.status is Status.OPTIMAL and report.objective == pytest.approx(_by_cvxpy(problem)[1])


def test_a_parameter_is_read_at_its_value_at_solve_time() -> None:
    x = cp.Variable(2, bounds=[-1, 1])
    weight = cp.Parameter(name="weight", value=1.0)
    problem = cp.Problem(cp.Minimize(weight * cp.sum(x)), [x[0] - x[1] >= 0.5])
    assert S.solve(problem, PC.LP, "highs", {}).objective == pytest.approx(-1.5)  # x = (-0.5, -1)
    weight.value = -2.0
    assert S.solve(problem, PC.LP, "highs", {}).objective == pytest.approx(-3.0)  # x = (1, 0.5)
    weight.value = None
    assert affine_form(problem) is None  # cvxpy's chain then says what is missing


def test_infeasible_and_unbounded_affine_problems_load_nothing() -> None:
    x = cp.Variable(2)
    infeasible = cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1, cp.sum(x) <= 1])
    unbounded = cp.Problem(cp.Minimize(cp.sum(x)), [x <= 1])
    for problem, word in ((infeasible, "infeasible"), (unbounded, ("unbounded", "infeasible_or_unbounded"))):
        assert affine_form(problem) is not None
        report = S.solve(problem, PC.LP, "highs", {})
        assert report.termination in ((word,) if isinstance(word, str) else word)
        assert report.objective is None and x.value is None


@pytest.mark.parametrize("make", [
    lambda x: cp.Problem(cp.Minimize(cp.sum(x)), [cp.sum(x[::-1]) >= 4]),           # cvxpy: slice(4, -1, -1)
    lambda x: cp.Problem(cp.Maximize(cp.sum(x[::-1])), [x >= -0.5]),
    lambda x: cp.Problem(cp.Minimize(np.arange(5.0) @ x[::-1]), []),
    lambda x: cp.Problem(cp.Minimize(np.arange(3.0) @ x[1:4][::-1]), [x[3:0:-2] >= 0.5]),
])
def test_a_slice_with_a_negative_step_is_read_as_cvxpy_means_it(make) -> None:
    x = cp.Variable(5, bounds=[-1, 2])
    problem = make(x)
    assert affine_form(problem) is not None
    report = S.solve(problem, PC.LP, "highs", {})
    assert report.status is Status.OPTIMAL and report.objective == pytest.approx(_by_cvxpy(problem)[1])


@pytest.mark.parametrize("make", [
    lambda x: cp.Problem(cp.Minimize(cp.sum(x)), [x >= np.array([0, -np.inf, 1]), x >= -1]),  # an infinite side
    lambda x: cp.Problem(cp.Minimize(cp.sum(x)), [x == np.array([2 + 1j, 1, 0])]),            # a complex constant
])
def test_infinite_and_complex_constants_are_left_to_cvxpy(make) -> None:
    x = cp.Variable(3, bounds=[-5, 5])
    problem = make(x)
    assert affine_form(problem) is None
    expected_status, expected_value = _by_cvxpy(problem)[:2]
    report = S.solve(problem, PC.LP, "highs", {})
    assert (report.status is Status.OPTIMAL) == (expected_status == cp.OPTIMAL)
    if expected_status == cp.OPTIMAL:
        assert report.objective == pytest.approx(expected_value)


def test_reading_a_problem_leaves_its_sparse_constants_as_they_were() -> None:
    """A constant with unsorted, repeated entries (scipy allows them) is summed in a copy: the
    problem solves the same the second time and through cvxpy afterwards."""
    A = sp.csc_matrix((np.array([1.0, 2, 3, -1, 0.5, 4]), np.array([2, 0, 2, 1, 4, 3]), np.array([0, 3, 6])),
                      shape=(5, 2))
    x = cp.Variable(5, bounds=[-1, 1])
    problem = cp.Problem(cp.Minimize(np.array([1.0, 2, 3, 4, 5]) @ x), [x @ A >= -0.7])
    first = S.solve(problem, PC.LP, "highs", {}).objective
    assert S.solve(problem, PC.LP, "highs", {}).objective == pytest.approx(first)
    assert _by_cvxpy(problem)[1] == pytest.approx(first)


def test_a_scalar_constraint_s_dual_is_a_float_as_cvxpy_gives_it() -> None:
    x = cp.Variable(2, bounds=[0, 3])
    budget = cp.sum(x) <= 2
    problem = cp.Problem(cp.Maximize(np.array([1.0, 2.0]) @ x), [budget, x[0] - x[1] >= -1.5])
    S.solve(problem, PC.LP, "highs", {})
    ours = budget.dual_value
    assert isinstance(ours, float) and ours == pytest.approx(_by_cvxpy(problem)[3][0])
