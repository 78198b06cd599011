"""SCIP on a :class:`~optrules.solvers.standard_form.StandardForm`, through PySCIPOpt.

PySCIPOpt has no call that takes a matrix, so the rows are added one by one, each from its slice of
the CSR arrays as one linear expression (about 12 microseconds a row here; measured in
docs/solvers.md). SCIP takes no quadratic objective, so a quadratic objective f(x) becomes
``min t  s.t.  f(x) - t <= 0`` (``t >= f(x)`` when maximising, reversed); the incumbent reported is
f at the loaded point, and SCIP's dual bound on t is a bound on f. A warm start is handed to SCIP as
one complete solution (t included) before it transforms the problem. As with HiGHS, the time limit
is what is left of the deadline after loading.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from optrules.solvers.options import with_safe_options
from optrules.solvers.output import silenced
from optrules.solvers.registry import SolverError
from optrules.solvers.report import Outcome, finite, time_left
from optrules.solvers.standard_form import StandardForm

__all__ = ["LARGE_MODEL_NONZEROS", "LARGE_MODEL_OPTIONS", "NO_BOUND_NOTE", "SCIP_WORDS", "limit_safe_options",
           "run_scip", "scip_dual_bound", "scip_word"]

SCIP_WORDS = {
    "optimal": "optimal", "gaplimit": "gap_limit", "timelimit": "time_limit",
    "nodelimit": "node_limit", "totalnodelimit": "node_limit", "stallnodelimit": "node_limit",
    "memlimit": "memory_limit", "sollimit": "solution_limit", "bestsollimit": "solution_limit",
    "restartlimit": "restart_limit", "primallimit": "objective_limit", "duallimit": "objective_limit",
    "userinterrupt": "interrupted", "terminate": "interrupted", "infeasible": "infeasible",
    "unbounded": "unbounded", "inforunbd": "infeasible_or_unbounded", "unknown": "unknown",
}


def scip_word(status: str) -> str:
    return SCIP_WORDS.get(status, f"error: SCIP status {status}")


#: The report's note when SCIP stopped without a dual bound.
NO_BOUND_NOTE = "SCIP had no dual bound yet (it stopped before bounding the problem)"


def scip_dual_bound(scip: Any) -> float | None:
    """SCIP's dual bound, or None when it has none: SCIP writes 'no bound' as its infinity (1e20 by
    default, a finite float), e.g. when it stops at a solution limit before its root LP."""
    bound = finite(scip.getDualbound())
    return None if bound is None or scip.isInfinity(abs(bound)) else bound


#: A model with at least this many constraint nonzeros is "large" for :func:`limit_safe_options`.
#: Measured (SCIP 10 / SoPlex 8, adult, 60 s limits): the CL relaxation of cl-rr (765,480 nonzeros)
#: overran its limit by 90 s; CL (the same matrix) and CL-bigM (1.1M) held theirs; german's (33k)
#: never come near.
LARGE_MODEL_NONZEROS = 500_000
#: SoPlex's own presolve (its simplifier, which SCIP calls on every LP of a node) does not check the
#: time limit: sampling the stack of the cl-rr fit above found it in ``SPxMainSM::multiaggregation``
#: for 100 s of a 20 s limit; with it off, SCIP stopped at its limit.
LARGE_MODEL_OPTIONS = {"lp/presolving": False}


def limit_safe_options(native: dict[str, Any], nonzeros: int, limited: bool) -> tuple[dict[str, Any], str]:
    """``native`` with :data:`LARGE_MODEL_OPTIONS` added for a large model solved under a time limit
    (``limited``), and the note that says so; options the caller set are kept as they are."""
    return with_safe_options(native, LARGE_MODEL_OPTIONS, limited and nonzeros >= LARGE_MODEL_NONZEROS,
                             f"a model of {nonzeros:,} nonzeros under a time limit", "SCIP",
                             "SoPlex's presolve does not check the time limit on a model this large")


#: Rows added to SCIP between two looks at the deadline (a look costs a clock read; 10^4 rows take
#: about 0.1 s through pyscipopt).
ROWS_PER_CHECK = 10_000


class _OutOfTime(Exception):
    """The deadline passed while the model was being loaded into SCIP."""


class _Loaded:
    """The SCIP model of a form: its columns, and the epigraph variable of a quadratic objective.
    Loading stops with :class:`_OutOfTime` when ``deadline`` passes (pyscipopt adds one row at a time:
    1.3M rows of a cut round took 12 s, most of a 2 s limit's fit, review on 20,000 candidates)."""

    def __init__(self, form: StandardForm, deadline: float | None = None) -> None:
        import pyscipopt
        from pyscipopt.scip import Expr, ExprCons, Term

        self.model = scip = pyscipopt.Model()
        self.form = form
        columns = []
        for j in range(form.n_cols):
            lower, upper = finite(form.col_lower[j]), finite(form.col_upper[j])
            kind = "C"
            if form.integer[j]:
                kind = "B" if lower is not None and upper is not None and lower >= 0 and upper <= 1 else "I"
            columns.append(scip.addVar(name=f"x{j}", vtype=kind, lb=lower, ub=upper))
        self.columns = columns
        terms = [Term(v) for v in columns]
        A = form.A
        indptr, indices, data = A.indptr, A.indices.tolist(), A.data.tolist()
        for r in range(A.shape[0]):
            if deadline is not None and r % ROWS_PER_CHECK == 0 and time.perf_counter() >= deadline:
                raise _OutOfTime
            start, stop = indptr[r], indptr[r + 1]
            expr = Expr(dict(zip([terms[k] for k in indices[start:stop]], data[start:stop])))
            scip.addCons(ExprCons(expr, lhs=finite(form.row_lower[r]), rhs=finite(form.row_upper[r])),
                         name=f"r{r}")
        for q, row in enumerate(form.quadratic_rows):
            coefficients: dict[Any, float] = {}
            for k, a in zip(row.linear_index.tolist(), row.linear_coef.tolist()):
                coefficients[terms[k]] = coefficients.get(terms[k], 0.0) + a
            for i, j, a in zip(row.quad_i.tolist(), row.quad_j.tolist(), row.quad_coef.tolist()):
                key = Term(columns[i], columns[j])
                coefficients[key] = coefficients.get(key, 0.0) + a
            scip.addCons(ExprCons(Expr(coefficients), lhs=finite(row.lower), rhs=finite(row.upper)), name=f"q{q}")
        linear = Expr({terms[j]: float(c) for j, c in enumerate(form.c.tolist()) if c != 0.0})
        sense = "maximize" if form.maximize else "minimize"
        self.epigraph = None
        if form.q_coef.size:
            quadratic: dict[Any, float] = {}
            for i, j, a in zip(form.q_i.tolist(), form.q_j.tolist(), form.q_coef.tolist()):
                key = Term(columns[i], columns[j])
                quadratic[key] = quadratic.get(key, 0.0) + a
            self.epigraph = t = scip.addVar(name="objective", vtype="C", lb=None, ub=None)
            f = Expr(quadratic) + linear - t
            scip.addCons(ExprCons(f, lhs=0.0) if form.maximize else ExprCons(f, rhs=0.0), name="objective")
            scip.setObjective(Expr({Term(t): 1.0}), sense)
        else:
            scip.setObjective(linear, sense)
        scip.addObjoffset(form.constant)

    def add_start(self, start: np.ndarray) -> None:
        """Hand SCIP the start as one complete solution (every column known), else as a partial one."""
        scip = self.model
        known = ~np.isnan(start)
        solution = scip.createSol() if known.all() else scip.createPartialSol()
        for var, value, ok in zip(self.columns, start.tolist(), known.tolist()):
            if ok:
                scip.setSolVal(solution, var, value)
        if self.epigraph is not None and known.all():
            scip.setSolVal(solution, self.epigraph, self.form.objective_at(start) - self.form.constant)
        scip.addSol(solution, free=True)

    def values(self) -> np.ndarray:
        scip = self.model
        best = scip.getBestSol()
        return np.array([scip.getSolVal(best, var) for var in self.columns], dtype=float)


def run_scip(form: StandardForm, native: dict[str, Any], verbose: bool, warm_start: bool,
             deadline: float | None, version: str) -> Outcome:
    """Load ``form`` into SCIP, solve until ``deadline`` at the latest, load the solution back."""
    if form.dual_suffix is not None:
        raise SolverError("the model asks for LP duals (a 'dual' suffix), which optrules reads from HiGHS "
                          "only; solve the LP with highs, or build it with cvxpy")
    began = time.perf_counter()
    with silenced(verbose):
        try:
            loaded = _Loaded(form, deadline)
        except _OutOfTime:
            return Outcome.not_run("SCIP", version, time.perf_counter() - began)
        scip = loaded.model
        if not verbose:
            scip.hideOutput()
        limited = native.get("limits/time") is not None or deadline is not None
        native, safe_note = limit_safe_options(native, form.A.nnz, limited)
        scip.setParams({k: v for k, v in native.items() if k != "limits/time"})
        if warm_start:
            loaded.add_start(form.start())
        ready = time.perf_counter()
        limit = time_left(native.get("limits/time"), deadline, ready)
        if limit is not None and limit <= 0:
            return Outcome.not_run("SCIP", version, ready - began)
        if limit is not None:
            scip.setParam("limits/time", float(limit))
        scip.optimize()
        finished = time.perf_counter()
    termination = scip_word(scip.getStatus())
    has_solution = scip.getNSols() > 0 and termination not in ("infeasible", "unbounded", "infeasible_or_unbounded")
    objective = None
    if has_solution:
        x = loaded.values()
        objective = form.objective_at(form.load(x))
    bound = scip_dual_bound(scip)
    note = "" if bound is not None or termination in ("optimal", "infeasible") else NO_BOUND_NOTE
    note = "; ".join(part for part in (note, safe_note) if part)
    return Outcome(termination, has_solution, objective, bound, version, note, ready - began,
                   finished - ready, limit)
