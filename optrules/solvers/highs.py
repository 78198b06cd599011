"""HiGHS on a :class:`~optrules.solvers.standard_form.StandardForm`: one ``passModel`` call, then run.

The columns, bounds, integrality, the constraint matrix (column-wise) and, for a QP, the Hessian go
into HiGHS together. The time limit HiGHS gets is what is left of the caller's deadline *after*
loading, so loading counts against the limit; a deadline already passed means HiGHS does not run.
At any stop HiGHS' own figures are read: the model status, whether the primal solution is feasible,
and for a MIP the dual bound (``mip_dual_bound``, also at a time or node limit). An LP whose model
asks for duals (a Pyomo ``dual`` suffix) gets HiGHS' row duals written into it.

A large MIP under a time limit runs with :data:`LARGE_MIP_OPTIONS` (see :func:`limit_safe_options`):
HiGHS 1.16 does not check its time limit inside some setup phases of its MIP solver, which on a
large model run for minutes.
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

__all__ = ["HIGHS_WORDS", "LARGE_MIP_NONZEROS", "LARGE_MIP_OPTIONS", "limit_safe_options", "run_highs"]

HIGHS_WORDS = {
    "kOptimal": "optimal", "kInfeasible": "infeasible", "kUnbounded": "unbounded",
    "kUnboundedOrInfeasible": "infeasible_or_unbounded", "kTimeLimit": "time_limit",
    "kIterationLimit": "iteration_limit", "kSolutionLimit": "solution_limit",
    "kObjectiveBound": "objective_limit", "kObjectiveTarget": "objective_limit",
    "kInterrupt": "interrupted", "kMemoryLimit": "memory_limit", "kUnknown": "unknown",
}


def highs_word(status_name: str, info: Any = None, native: dict[str, Any] | None = None) -> str:
    """HiGHS' model status name as a termination word.

    HiGHS 1.16 has no node-limit status: ``mip_max_nodes`` stops it with ``kSolutionLimit``, told
    apart here by the node count in ``info`` (HiGHS' info) against the ``native`` options."""
    word = HIGHS_WORDS.get(status_name, f"error: HiGHS status {status_name}")
    nodes = (native or {}).get("mip_max_nodes")
    if word == "solution_limit" and info is not None and nodes is not None and info.mip_node_count >= nodes:
        return "node_limit"
    return word



#: A MIP with at least this many constraint nonzeros is "large" for :func:`limit_safe_options`.
#: Measured (HiGHS 1.16, set-cover ILPs with a 60 s limit): 1.6M nonzeros held their limit (62 s),
#: 4.0M and 16M did not (203 s and 314 s).
LARGE_MIP_NONZEROS = 2_000_000
#: HiGHS options whose phases ignore the time limit on a large MIP, found by sampling HiGHS' stack
#: on the 100k x 500 set cover (4.0M nonzeros) with a 20 s limit: presolve's probing ran 51 s and
#: made every continuous u, v an implied binary, after which the objective's clique partition
#: (``HighsObjectiveFunction::setupCliquePartition``) ran about 150 s; with presolve off, the
#: feasibility jump heuristic and symmetry detection ran 30 s more. With all three off the run took
#: 20.8 s in all.
LARGE_MIP_OPTIONS = {"presolve": "off", "mip_heuristic_run_feasibility_jump": False, "mip_detect_symmetry": False}


def limit_safe_options(native: dict[str, Any], is_mip: bool, nonzeros: int, limited: bool) -> tuple[dict[str, Any], str]:
    """``native`` with :data:`LARGE_MIP_OPTIONS` added for a large MIP solved under a time limit
    (``limited``), and the note that says so; options the caller set are kept as they are."""
    return with_safe_options(native, LARGE_MIP_OPTIONS, is_mip and limited and nonzeros >= LARGE_MIP_NONZEROS,
                             f"a MIP of {nonzeros:,} nonzeros under a time limit", "HiGHS",
                             "HiGHS does not check its time limit inside those phases on a model this large")


def _hessian(form: StandardForm, highspy: Any) -> Any:
    """The objective's quadratic part as HiGHS' lower-triangular Hessian Q (objective c^T x + x^T Q x / 2)."""
    import scipy.sparse as sp

    n = form.n_cols
    i, j, v = form.q_i, form.q_j, form.q_coef
    rows, cols = np.maximum(i, j), np.minimum(i, j)
    values = np.where(i == j, 2.0 * v, v)  # q x_i^2 = (2q) x_i^2 / 2;  q x_i x_j = (q x_i x_j + q x_j x_i) / 2
    lower = sp.csc_matrix((values, (rows, cols)), shape=(n, n))
    lower.sum_duplicates()
    hessian = highspy.HighsHessian()
    hessian.dim_ = n
    hessian.format_ = highspy.HessianFormat.kTriangular
    hessian.start_ = lower.indptr.astype(np.int32)
    hessian.index_ = lower.indices.astype(np.int32)
    hessian.value_ = lower.data.astype(np.float64)
    return hessian


def _load(form: StandardForm, highspy: Any) -> Any:
    model = highspy.HighsModel()
    lp = model.lp_
    n, m = form.n_cols, form.A.shape[0]
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = form.c
    lp.offset_ = form.constant
    lp.col_lower_, lp.col_upper_ = form.col_lower, form.col_upper
    lp.row_lower_, lp.row_upper_ = form.row_lower, form.row_upper
    if form.maximize:
        lp.sense_ = highspy.ObjSense.kMaximize
    csc = form.A.tocsc()
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = csc.indptr.astype(np.int32)
    lp.a_matrix_.index_ = csc.indices.astype(np.int32)
    lp.a_matrix_.value_ = csc.data.astype(np.float64)
    if form.q_coef.size:
        model.hessian_ = _hessian(form, highspy)
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    if highs.passModel(model) == highspy.HighsStatus.kError:
        raise RuntimeError("HiGHS refused the model (passModel returned kError)")
    integer = np.flatnonzero(form.integer).astype(np.int32)
    if integer.size:  # as arrays, after the model: a list of 10^5 HighsVarType objects costs more than the load
        status = highs.changeColsIntegrality(int(integer.size), integer,
                                             np.full(integer.size, int(highspy.HighsVarType.kInteger), dtype=np.uint8))
        if status == highspy.HighsStatus.kError:
            raise RuntimeError("HiGHS refused the integrality of the model's integer columns")
    return highs


def run_highs(form: StandardForm, native: dict[str, Any], verbose: bool, warm_start: bool,
              deadline: float | None, version: str) -> Outcome:
    """Load ``form`` into HiGHS, run it until ``deadline`` (a ``time.perf_counter()`` value) at the
    latest, and load the solution back into the form's variables when there is one."""
    import highspy

    if form.quadratic_rows:
        raise SolverError("HiGHS takes no quadratic constraint; the model has "
                          f"{len(form.quadratic_rows)} (solve it with scip)")
    if form.n_cols == 0:  # nothing to decide: HiGHS would say kModelEmpty
        return Outcome("optimal", True, form.constant, form.constant, version)
    began = time.perf_counter()
    with silenced(verbose):
        highs = _load(form, highspy)
        if verbose:
            highs.setOptionValue("output_flag", True)
        limited = native.get("time_limit") is not None or deadline is not None
        native, safe_note = limit_safe_options(native, form.is_mip, form.A.nnz, limited)
        for name, value in native.items():
            if name != "time_limit" and highs.setOptionValue(name, value) == highspy.HighsStatus.kError:
                return Outcome(f"error: HiGHS refused option {name}={value!r}", False, version=version,
                               load_seconds=time.perf_counter() - began)
        if warm_start:
            start = form.start()
            known = np.flatnonzero(~np.isnan(start))
            if known.size:
                highs.setSolution(int(known.size), known.astype(np.int32), start[known])
        loaded = time.perf_counter()
        limit = time_left(native.get("time_limit"), deadline, loaded)
        if limit is not None and limit <= 0:
            return Outcome.not_run("HiGHS", version, loaded - began)
        if limit is not None:
            highs.setOptionValue("time_limit", float(limit))
        highs.run()
        finished = time.perf_counter()
    info = highs.getInfo()
    termination = highs_word(highs.getModelStatus().name, info, native)
    has_solution = info.primal_solution_status == 2 and termination not in ("infeasible", "unbounded",
                                                                             "infeasible_or_unbounded")
    objective = bound = None
    note = ""
    if has_solution:
        solution = highs.getSolution()
        objective = form.objective_at(form.load(np.asarray(solution.col_value, dtype=float)))
        if form.dual_suffix is not None and not form.is_mip and solution.dual_valid:
            form.load_duals(np.asarray(solution.row_dual, dtype=float))
    if form.is_mip:
        bound = finite(info.mip_dual_bound)
        if bound is None and termination != "optimal":
            note = "HiGHS had no dual bound yet (it stopped before its root LP relaxation was solved)"
    note = "; ".join(part for part in (note, safe_note) if part)
    return Outcome(termination, has_solution, objective, bound, version, note, loaded - began,
                   finished - loaded, limit)

