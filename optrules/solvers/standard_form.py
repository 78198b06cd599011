"""A Pyomo model as arrays: what the bulk loaders hand to HiGHS and SCIP in one pass.

optrules builds its formulations as Pyomo models whose large constraint families are
``MatrixConstraint`` components (``pyomo.core.base.matrix_constraint``: a CSR matrix over a list of
variables, with bound arrays), so no expression is created per row of data. :func:`compile_model`
reads such a model without forming the rows' expressions:

    min / max   constant + c^T x + sum_k q_k x_{i_k} x_{j_k}                  (objective)
    s.t.        row_lower <= A x <= row_upper                                  (linear rows)
                lower_r <= a_r^T x + sum_k q_{r,k} x_{i_k} x_{j_k} <= upper_r  (quadratic rows)
                col_lower <= x <= col_upper,   x_j integer for j in ``integer``

A matrix constraint becomes a block of A as it is (its deactivated rows left out); any other
active constraint (a few, e.g. the bilinear definitions of CL or a user's added cut) is read through
Pyomo's standard representation, linear ones into A and quadratic ones into ``quadratic_rows``. A
fixed variable gets lower = upper = its value. An objective made by
``optrules.models.matrix.linear_objective`` is read from its coefficient array, any other through its
expression. An expression that is neither linear nor quadratic is an error.

LP duals: when the model has an active import ``Suffix`` named ``dual`` (Pyomo's convention,
``model.dual = Suffix(direction=Suffix.IMPORT)``), ``rows`` keeps the constraint object of every row of
A so a loader can write each row's dual back into it (:meth:`StandardForm.load_duals`).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np
import scipy.sparse as sp

from optrules.solvers.registry import SolverError

__all__ = ["QuadraticRow", "StandardForm", "all_variables", "compile_model", "members", "stack_rows"]


@dataclass(frozen=True)
class QuadraticRow:
    """``lower <= sum linear_coef * x[linear_index] + sum quad_coef * x[quad_i] * x[quad_j] <= upper``."""

    linear_index: np.ndarray
    linear_coef: np.ndarray
    quad_i: np.ndarray
    quad_j: np.ndarray
    quad_coef: np.ndarray
    lower: float
    upper: float


@dataclass
class StandardForm:
    """The arrays of a model (module docstring); column j is ``variables[j]``."""

    variables: list[Any]
    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray
    A: sp.csr_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    c: np.ndarray
    constant: float = 0.0
    q_i: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    q_j: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    q_coef: np.ndarray = field(default_factory=lambda: np.zeros(0))
    quadratic_rows: list[QuadraticRow] = field(default_factory=list)
    maximize: bool = False
    dual_suffix: Any = None
    rows: list[Any] = field(default_factory=list)

    @property
    def n_cols(self) -> int:
        return len(self.variables)

    @property
    def is_mip(self) -> bool:
        return bool(self.integer.any())

    def start(self) -> np.ndarray:
        """The variables' current values (NaN where a variable has none)."""
        return np.array([np.nan if v.value is None else float(v.value) for v in self.variables], dtype=float)

    def load(self, x: np.ndarray) -> np.ndarray:
        """Set every free variable's value from the solution vector ``x`` and return the point set:
        integer columns within 1e-6 of an integer are rounded to it (a solver's 0.9999999 for 1)."""
        x = np.asarray(x, dtype=float)
        rounded = np.round(x)
        x = np.where(self.integer & (np.abs(x - rounded) <= 1e-6), rounded, x)
        for var, value in zip(self.variables, x.tolist()):
            if not var.fixed:
                var.set_value(value, skip_validation=True)
        return x

    def load_duals(self, row_duals: np.ndarray) -> None:
        """Write the LP dual of every row of A into the model's ``dual`` suffix (the solver's sign
        convention for a minimisation: >= 0 on a binding lower bound, <= 0 on a binding upper bound)."""
        suffix = self.dual_suffix
        suffix.clear()
        for row, value in zip(self.rows, np.asarray(row_duals, dtype=float).tolist()):
            suffix[row] = value

    def objective_at(self, x: np.ndarray) -> float:
        """The objective at the point ``x``."""
        x = np.asarray(x, dtype=float)
        value = self.constant + float(self.c @ x)
        if self.q_coef.size:
            value += float(self.q_coef @ (x[self.q_i] * x[self.q_j]))
        return value


def _bound(value: Any, default: float) -> float:
    from pyomo.environ import value as pyomo_value

    return default if value is None else float(pyomo_value(value))


class _Columns:
    """Column index of every variable: the model's own first, in declaration order (a ``Reference``
    names variables it does not own and adds none), then any other variable a constraint or the
    objective uses (Pyomo allows variables declared elsewhere).

    A list of variables made of whole indexed components in their order (``[*m.x.values(),
    *m.u.values()]``, how the formulations hand variables to their blocks and objectives) is
    recognised run by run from each component's first variable and an identity check in C; any
    other list is looked up variable by variable in a dictionary made the first time one is needed.
    """

    MAX_RUNS = 32

    def __init__(self, model: Any) -> None:
        import pyomo.environ as pyo

        self.variables: list[Any] = []
        self._runs: dict[int, tuple[int, int]] = {}  # id of a component's first variable: (first column, size)
        for component in model.component_objects(pyo.Var, descend_into=True):
            if component.is_reference():
                continue
            own = list(members(component))
            if own:
                self._runs[id(own[0])] = (len(self.variables), len(own))
                self.variables.extend(own)
        self._index: dict[int, int] | None = None

    def of(self, variables: Any) -> np.ndarray:
        variables = list(variables)
        runs = self._as_runs(variables)
        if runs is not None:
            return np.concatenate(runs) if len(runs) != 1 else runs[0]
        if self._index is None:
            self._index = dict(zip(map(id, self.variables), range(len(self.variables))))
        index = self._index
        try:  # every variable known (the usual case): one pass in C
            return np.fromiter(map(index.__getitem__, map(id, variables)), dtype=np.int64, count=len(variables))
        except KeyError:
            pass
        out = []
        for var in variables:
            j = index.get(id(var))
            if j is None:
                j = index[id(var)] = len(self.variables)
                self.variables.append(var)
            out.append(j)
        return np.array(out, dtype=np.int64)

    def _as_runs(self, variables: list[Any]) -> list[np.ndarray] | None:
        """The columns of ``variables`` as ranges, one per whole component (a last one may end
        early), or None when the list is not made that way, or made of more than
        :attr:`MAX_RUNS` components (many scalar variables: the dictionary is faster)."""
        runs, at = [], 0
        while at < len(variables):
            run = self._runs.get(id(variables[at]))
            if run is None or len(runs) == self.MAX_RUNS:
                return None
            first, size = run
            size = min(size, len(variables) - at)
            if not all(map(operator.is_, variables[at:at + size], self.variables[first:first + size])):
                return None
            runs.append(np.arange(first, first + size, dtype=np.int64))
            at += size
        return runs or [np.zeros(0, dtype=np.int64)]


def _numbers(values: Any, missing: float) -> np.ndarray:
    """An array of floats from numbers, None (``missing``) or Pyomo parameters."""
    try:
        out = np.asarray(values, dtype=float)
    except (TypeError, ValueError):  # None entries, or Pyomo Params / expressions
        return np.array([_bound(v, missing) for v in values], dtype=float)
    return np.where(np.isnan(out), missing, out) if out.size else out


class _Block(NamedTuple):
    """Rows of A in CSR arrays over the model's columns, their bounds, a function giving their row
    objects (asked only for duals), and whether the arrays are known to be canonical (entries sorted,
    no duplicates)."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    rows: Callable[[], list[Any]]
    canonical: bool


def _matrix_block(component: Any, columns: _Columns) -> _Block | None:
    """A MatrixConstraint's rows, its inactive rows left out; None when this Pyomo keeps its arrays
    under other names (the rows are then read one by one). A block whose row objects are made on
    demand (``optrules.models.matrix``) and have not been is read without them."""
    try:
        data, indices, indptr = component._A_data, component._A_indices, component._A_indptr
        lower, upper, x = component._lower, component._upper, component._x
    except AttributeError:
        return None
    cols = columns.of(x)
    # A block made by optrules.models.matrix is canonical (entries sorted, no duplicates) and stays so
    # when its columns keep their order in the model's.
    canonical = hasattr(component, "rows_made") and bool(np.all(cols[1:] > cols[:-1]))
    data = _numbers(data, 0.0)
    indices = cols[np.asarray(indices, dtype=np.int64)] if len(indices) else np.zeros(0, dtype=np.int64)
    indptr = np.asarray(indptr, dtype=np.int64)
    lower, upper = _numbers(lower, -np.inf), _numbers(upper, np.inf)
    if not getattr(component, "rows_made", True):  # rows made on demand, none yet: all active, none read
        return _Block(data, indices, indptr, lower, upper, lambda: [component[i] for i in range(len(lower))], canonical)
    rows = getattr(component, "_data", None)  # the row objects, in order
    rows = rows if isinstance(rows, tuple) and len(rows) == len(lower) else [component[i] for i in range(len(lower))]
    active = _flags(rows, "_active", "active")
    if not active.all():
        keep = sp.csr_matrix((data, indices, indptr), shape=(len(lower), max(int(indices.max(initial=-1)) + 1, 1)))
        keep = keep[active]
        data, indices, indptr, lower, upper = keep.data, keep.indices, keep.indptr, lower[active], upper[active]
        rows = [row for row, on in zip(rows, active.tolist()) if on]
    return _Block(data, indices, indptr, lower, upper, lambda: rows, canonical)


def _flags(objects: list[Any], slot: str, name: str) -> np.ndarray:
    """A boolean attribute of every object, read from its slot (``slot``, one pass in C) where the
    objects have it, else through the attribute ``name`` (a Pyomo property)."""
    try:
        values = list(map(operator.attrgetter(slot), objects))
    except AttributeError:
        values = list(map(operator.attrgetter(name), objects))
    return np.array(values, dtype=bool).reshape(len(values))


_LOWER, _UPPER, _DOMAIN = (operator.attrgetter(slot) for slot in ("_lb", "_ub", "_domain"))
_PLAIN = frozenset({int, float, type(None)})


def _column_bounds(variables: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower and upper bounds (the tighter of a variable's own bounds and its domain's) and
    integrality of every variable. Plain numbers and None are read from the variables' slots and
    each distinct domain is asked once (over five times faster than Pyomo's ``lb`` / ``ub`` /
    ``is_continuous`` per variable, measured on a 596-variable set cover); a model with bounds given as
    parameters or expressions, or variables of another kind, is read through Pyomo's properties."""
    try:
        lbs, ubs, domains = list(map(_LOWER, variables)), list(map(_UPPER, variables)), list(map(_DOMAIN, variables))
    except AttributeError:
        lbs = None
    if lbs is not None and set(map(type, lbs)) | set(map(type, ubs)) <= _PLAIN:
        ids = np.fromiter(map(id, domains), dtype=np.uintp, count=len(domains))
        _, first, code = np.unique(ids, return_index=True, return_inverse=True)  # one entry per domain object
        known = np.array([_domain_bounds(domains[i]) for i in first.tolist()], dtype=float).reshape(-1, 3)[code]
        lower = np.fmax(np.array(lbs, dtype=float), known[:, 0])  # None reads as NaN: no bound of its own;
        upper = np.fmin(np.array(ubs, dtype=float), known[:, 1])  # fmax / fmin take the other value there
        return lower, upper, known[:, 2].astype(bool)
    lower = np.array([-np.inf if v.lb is None else v.lb for v in variables], dtype=float)
    upper = np.array([np.inf if v.ub is None else v.ub for v in variables], dtype=float)
    return lower, upper, np.array([not v.is_continuous() for v in variables], dtype=bool)


def _domain_bounds(domain: Any) -> tuple[float, float, bool]:
    """A domain's (lower, upper, integer): Binary is (0, 1, True), Reals (-inf, inf, False)."""
    low, high = domain.bounds()
    interval = domain.get_interval()
    return (-np.inf if low is None else low, np.inf if high is None else high,
            not (interval is not None and interval[2] == 0))


def _linear_objective(expr: Any) -> tuple[float, list[Any], np.ndarray] | None:
    """Constant, variables and coefficients of a ``LinearExpression`` whose terms are numbers times
    variables, read from its terms (a fraction of Pyomo's standard representation, which the
    formulations' long linear objectives would otherwise go through); None for anything else."""
    from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression

    if type(expr) is not LinearExpression:
        return None
    args = expr.args
    if not set(map(type, args)) <= {int, float, MonomialTermExpression}:
        return None
    numbers = [arg for arg in args if type(arg) is not MonomialTermExpression]
    terms = [arg._args_ for arg in args if type(arg) is MonomialTermExpression]
    coefs, variables = (list(part) for part in zip(*terms)) if terms else ([], [])
    if not set(map(type, coefs)) <= {int, float}:
        return None
    if not all_variables(variables):
        return None
    return float(sum(numbers)), variables, np.array(coefs, dtype=float)


def all_variables(objects: list[Any]) -> bool:
    """Whether every object is a Pyomo variable, one object of each kind asked (a list of thousands
    holds two or three kinds)."""
    kinds = dict(zip(map(type, objects), objects)).values()
    return all(callable(getattr(obj, "is_variable_type", None)) and obj.is_variable_type() for obj in kinds)


def members(component: Any) -> Any:
    """The data objects of an indexed component in the order they were made (its own dictionary,
    read in C: 10 us for 1,500 variables against 170 us through ``values()``), or of any other
    component through Pyomo's ``values()``. A formulation that lists its variables this way hands the
    compiler lists it recognises as whole components."""
    data = getattr(component, "_data", None)
    return data.values() if type(data) is dict and component.is_indexed() else component.values()


def stack_rows(blocks: list[tuple[Any, ...]], n: int) -> sp.csr_matrix:
    """The CSR blocks (data, column indices, row pointers, then anything) one below the other, as one
    matrix of ``n`` columns that owns its arrays: theirs joined, the row pointers shifted (no scipy
    stacking)."""
    if not blocks:
        return sp.csr_matrix((0, n))
    offsets = np.cumsum([0] + [len(b[0]) for b in blocks])
    indptr = np.concatenate([[0]] + [np.asarray(b[2][1:], dtype=np.int64) + offset
                                     for b, offset in zip(blocks, offsets)])
    return sp.csr_matrix((np.concatenate([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks]),
                          indptr), shape=(len(indptr) - 1, n))


def compile_model(model: Any) -> StandardForm:
    """The :class:`StandardForm` of a Pyomo model (see the module docstring)."""
    from pyomo.common.gc_manager import PauseGC

    with PauseGC():  # many small lists and arrays, no cycles: no collector passes meanwhile
        return _compile(model)


def _compile(model: Any) -> StandardForm:
    import pyomo.environ as pyo
    from pyomo.core.base.matrix_constraint import MatrixConstraint
    from pyomo.repn import generate_standard_repn

    columns = _Columns(model)
    blocks: list[_Block] = []
    small_rows: list[tuple[np.ndarray, np.ndarray, float, float]] = []
    small_row_objects: list[Any] = []
    quadratic_rows: list[QuadraticRow] = []

    def one_row(con: Any) -> None:
        repn = generate_standard_repn(con.body, quadratic=True, compute_values=True)
        if repn.nonlinear_expr is not None:
            raise SolverError(f"constraint {con.name!r} is neither linear nor quadratic; the bulk loaders "
                              "take linear and quadratic expressions only")
        constant = float(repn.constant)
        lower, upper = _bound(con.lower, -np.inf) - constant, _bound(con.upper, np.inf) - constant
        lin_idx, lin_coef = columns.of(repn.linear_vars), np.array(repn.linear_coefs, dtype=float)
        if repn.quadratic_vars:
            quadratic_rows.append(QuadraticRow(lin_idx, lin_coef, columns.of(p[0] for p in repn.quadratic_vars),
                                               columns.of(p[1] for p in repn.quadratic_vars),
                                               np.array(repn.quadratic_coefs, dtype=float), lower, upper))
        else:
            small_rows.append((lin_idx, lin_coef, lower, upper))
            small_row_objects.append(con)

    for component in model.component_objects(pyo.Constraint, active=True, descend_into=True):
        block = _matrix_block(component, columns) if isinstance(component, MatrixConstraint) else None
        if block is not None:
            blocks.append(block)
            continue
        for con in component.values():
            if con.active:
                one_row(con)

    objectives = list(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
    if len(objectives) != 1:
        raise SolverError(f"a Pyomo model needs exactly one active objective, found {len(objectives)}")
    objective = objectives[0]
    linear = getattr(objective, "linear_terms", None)  # an objective kept as arrays (optrules.models.matrix)
    if linear is None:
        linear = _linear_objective(objective.expr)
    if linear is not None:
        constant, linear_vars, linear_coefs = linear
        q_i = q_j = np.zeros(0, dtype=np.int64)
        q_coefs = np.zeros(0)
    else:
        repn = generate_standard_repn(objective.expr, quadratic=True, compute_values=True)
        if repn.nonlinear_expr is not None:
            raise SolverError("the objective is neither linear nor quadratic; the bulk loaders take linear and "
                              "quadratic objectives only")
        constant, linear_vars = float(repn.constant), repn.linear_vars
        linear_coefs, q_coefs = np.array(repn.linear_coefs, dtype=float), np.array(repn.quadratic_coefs, dtype=float)
        q_i = columns.of(p[0] for p in repn.quadratic_vars)
        q_j = columns.of(p[1] for p in repn.quadratic_vars)
    linear_cols = columns.of(linear_vars)

    n = len(columns.variables)
    if small_rows:
        blocks.append(_Block(np.concatenate([r[1] for r in small_rows]), np.concatenate([r[0] for r in small_rows]),
                             np.cumsum([0] + [len(r[0]) for r in small_rows]),
                             np.array([r[2] for r in small_rows], dtype=float),
                             np.array([r[3] for r in small_rows], dtype=float), lambda: small_row_objects, False))
    A = stack_rows(blocks, n)
    if all(b.canonical for b in blocks):
        A.has_canonical_format = True  # every block canonical: nothing to sort or sum below
    A.sum_duplicates()  # a variable listed twice in one row's columns: its coefficients add up
    row_lower = np.concatenate([b.lower for b in blocks]) if blocks else np.zeros(0)
    row_upper = np.concatenate([b.upper for b in blocks]) if blocks else np.zeros(0)

    variables = columns.variables
    col_lower, col_upper, integer = _column_bounds(variables)
    suffix = model.component("dual")
    wants_duals = isinstance(suffix, pyo.Suffix) and suffix.active and suffix.import_enabled()
    rows = [row for b in blocks for row in b.rows()] if wants_duals else []
    for j in np.flatnonzero(_flags(variables, "_fixed", "fixed")):
        var = variables[j]
        if var.value is None:
            raise SolverError(f"variable {var.name!r} is fixed but has no value")
        col_lower[j] = col_upper[j] = float(var.value)
    c = np.zeros(n)
    np.add.at(c, linear_cols, linear_coefs)
    return StandardForm(variables, col_lower, col_upper, integer, A, row_lower, row_upper, c,
                        constant, q_i, q_j, q_coefs, quadratic_rows, objective.sense == pyo.maximize,
                        suffix if wants_duals else None, rows)
