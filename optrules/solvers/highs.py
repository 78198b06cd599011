"""HiGHS on a :class:`~optrules.solvers.standard_form.StandardForm`: one ``passModel`` call, then run.

The columns, bounds, integrality, the constraint matrix (column-wise) and, for a QP, the Hessian go
into HiGHS together. The time limit HiGHS gets is what is left of the caller's deadline *after*
loading, so loading counts against the limit; a deadline already passed means HiGHS does not run.
At any stop HiGHS' own figures are read: the model status, whether the primal solution is feasible,
and for a MIP the dual bound (``mip_dual_bound``, also at a time or node limit). An LP whose model
asks for duals (a Pyomo ``dual`` suffix) gets HiGHS' row duals written into it.

A large MIP under a time limit runs with :data:`LARGE_MIP_OPTIONS` (see :func:`limit_safe_options`):
HiGHS 1.16 does not check its time limit inside some setup phases of its MIP solver, which on a
large model run for minutes; the phases no option switches off (the root LP's first factorisation)
are why such a model is solved in a child process stopped at the deadline (:func:`runs_apart`,
:mod:`optrules.solvers.highs_process`).
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import numpy as np

from optrules.solvers.options import with_safe_options
from optrules.solvers.output import silenced
from optrules.solvers.registry import SolverError
from optrules.solvers.report import Outcome, finite, time_left
from optrules.solvers.standard_form import StandardForm

__all__ = ["HIGHS_WORDS", "LARGE_MIP_NONZEROS", "LARGE_MIP_OPTIONS", "limit_safe_options", "load_arrays", "model_arrays",
           "run_highs", "run_loaded", "runs_apart", "set_up"]

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


def model_arrays(form: StandardForm) -> dict[str, np.ndarray]:
    """What HiGHS is given of ``form``, as plain arrays: costs and offset, column and row bounds, the
    constraint matrix column-wise, the integer columns and, for a QP, the objective's quadratic part
    as HiGHS' lower-triangular Hessian Q (objective c^T x + x^T Q x / 2). Plain arrays travel to a
    child process (:mod:`optrules.solvers.highs_process`) as they are."""
    import scipy.sparse as sp

    csc = form.A.tocsc()
    arrays = {"shape": np.array([form.n_cols, form.A.shape[0]], dtype=np.int64),
              "cost": np.asarray(form.c, dtype=np.float64), "offset": np.array([form.constant], dtype=np.float64),
              "maximize": np.array([form.maximize]),
              "col_lower": np.asarray(form.col_lower, dtype=np.float64),
              "col_upper": np.asarray(form.col_upper, dtype=np.float64),
              "row_lower": np.asarray(form.row_lower, dtype=np.float64),
              "row_upper": np.asarray(form.row_upper, dtype=np.float64),
              "a_start": csc.indptr.astype(np.int32), "a_index": csc.indices.astype(np.int32),
              "a_value": csc.data.astype(np.float64), "integer": np.flatnonzero(form.integer).astype(np.int32)}
    if form.q_coef.size:
        n = form.n_cols
        i, j, v = form.q_i, form.q_j, form.q_coef
        values = np.where(i == j, 2.0 * v, v)  # q x_i^2 = (2q) x_i^2 / 2;  q x_i x_j = (q x_i x_j + q x_j x_i) / 2
        lower = sp.csc_matrix((values, (np.maximum(i, j), np.minimum(i, j))), shape=(n, n))
        lower.sum_duplicates()
        arrays.update(h_start=lower.indptr.astype(np.int32), h_index=lower.indices.astype(np.int32),
                      h_value=lower.data.astype(np.float64))
    return arrays


def load_arrays(arrays: dict[str, np.ndarray], highspy: Any) -> Any:
    """A silent ``highspy.Highs`` holding the model of :func:`model_arrays`: one ``passModel``, then
    the integrality of the integer columns as arrays."""
    model = highspy.HighsModel()
    lp = model.lp_
    lp.num_col_, lp.num_row_ = (int(v) for v in arrays["shape"])
    lp.col_cost_ = arrays["cost"]
    lp.offset_ = float(arrays["offset"][0])
    lp.col_lower_, lp.col_upper_ = arrays["col_lower"], arrays["col_upper"]
    lp.row_lower_, lp.row_upper_ = arrays["row_lower"], arrays["row_upper"]
    if bool(arrays["maximize"][0]):
        lp.sense_ = highspy.ObjSense.kMaximize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = (
        arrays["a_start"], arrays["a_index"], arrays["a_value"])
    if "h_value" in arrays:
        hessian = highspy.HighsHessian()
        hessian.dim_ = lp.num_col_
        hessian.format_ = highspy.HessianFormat.kTriangular
        hessian.start_, hessian.index_, hessian.value_ = arrays["h_start"], arrays["h_index"], arrays["h_value"]
        model.hessian_ = hessian
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    if highs.passModel(model) == highspy.HighsStatus.kError:
        raise RuntimeError("HiGHS refused the model (passModel returned kError)")
    integer = arrays["integer"]
    if integer.size:  # as arrays, after the model: a list of 10^5 HighsVarType objects costs more than the load
        status = highs.changeColsIntegrality(int(integer.size), integer,
                                             np.full(integer.size, int(highspy.HighsVarType.kInteger), dtype=np.uint8))
        if status == highspy.HighsStatus.kError:
            raise RuntimeError("HiGHS refused the integrality of the model's integer columns")
    return highs


def set_up(highs: Any, highspy: Any, native: dict[str, Any], start: np.ndarray | None, verbose: bool) -> str:
    """Give the loaded ``highs`` the ``native`` options (but the time limit) and the known entries of
    ``start`` (NaN: unknown) as a starting solution; the message of a refused option, else ""."""
    if verbose:
        highs.setOptionValue("output_flag", True)
    for name, value in native.items():
        if name != "time_limit" and highs.setOptionValue(name, value) == highspy.HighsStatus.kError:
            return f"HiGHS refused option {name}={value!r}"
    if start is not None:
        known = np.flatnonzero(~np.isnan(start))
        if known.size:
            highs.setSolution(int(known.size), known.astype(np.int32), start[known])
    return ""


def run_loaded(highs: Any, limit: float | None) -> dict[str, Any]:
    """Run the set-up ``highs`` under ``limit`` seconds (None: none) and read what it found: the model
    status name, HiGHS' info figures, and the primal (and row dual) values when there are some."""
    if limit is not None:
        highs.setOptionValue("time_limit", float(limit))
    highs.run()
    info = highs.getInfo()
    found: dict[str, Any] = {"status": highs.getModelStatus().name,
                             "primal_solution_status": int(info.primal_solution_status),
                             "mip_dual_bound": float(info.mip_dual_bound), "mip_node_count": int(info.mip_node_count)}
    if found["primal_solution_status"] == 2:
        solution = highs.getSolution()
        found["col_value"] = np.asarray(solution.col_value, dtype=float)
        if solution.dual_valid:
            found["row_dual"] = np.asarray(solution.row_dual, dtype=float)
    return found


def run_highs(form: StandardForm, native: dict[str, Any], verbose: bool, warm_start: bool,
              deadline: float | None, version: str) -> Outcome:
    """Load ``form`` into HiGHS, run it until ``deadline`` (a ``time.perf_counter()`` value) at the
    latest, and load the solution back into the form's variables when there is one.

    A large MIP under a limit (:func:`runs_apart`) is solved in a child process that is stopped at the
    deadline (:mod:`optrules.solvers.highs_process`): HiGHS 1.16 does not look at its clock while it
    sets up the root LP of such a model."""
    import highspy

    if form.quadratic_rows:
        raise SolverError("HiGHS takes no quadratic constraint; the model has "
                          f"{len(form.quadratic_rows)} (solve it with scip)")
    if form.n_cols == 0:  # nothing to decide: HiGHS would say kModelEmpty
        return Outcome("optimal", True, form.constant, form.constant, version)
    began = time.perf_counter()
    limited = native.get("time_limit") is not None or deadline is not None
    native, safe_note = limit_safe_options(native, form.is_mip, form.A.nnz, limited)
    start = form.start() if warm_start else None
    arrays = model_arrays(form)
    if runs_apart(form.is_mip, form.A.nnz, limited):
        from optrules.solvers.highs_process import run_apart

        apart = run_apart(arrays, native, start, began + time_left(native.get("time_limit"), deadline, began), verbose)
        found, load_seconds, run_seconds, limit = apart.found, apart.load_seconds, apart.run_seconds, apart.limit
        if found is None:
            note = "; ".join(part for part in (apart.note, safe_note) if part)
            return Outcome("time_limit", False, version=version, note=note, load_seconds=load_seconds,
                           solve_seconds=run_seconds, time_limit=limit)
    else:
        with silenced(verbose):
            highs = load_arrays(arrays, highspy)
            found = {"error": set_up(highs, highspy, native, start, verbose)}
            loaded = time.perf_counter()
            load_seconds = loaded - began
            limit = time_left(native.get("time_limit"), deadline, loaded)
            if not found["error"]:
                if limit is not None and limit <= 0:
                    return Outcome.not_run("HiGHS", version, load_seconds)
                found = run_loaded(highs, limit)
            run_seconds = time.perf_counter() - loaded
    if found.get("error"):
        return Outcome(f"error: {found['error']}", False, version=version, load_seconds=load_seconds)
    return _outcome(form, found, native, safe_note, version, load_seconds, run_seconds, limit)


def runs_apart(is_mip: bool, nonzeros: int, limited: bool) -> bool:
    """Whether a HiGHS solve goes to a child process that is stopped at the deadline: a MIP of at
    least :data:`LARGE_MIP_NONZEROS` nonzeros under a time limit (the models whose set-up HiGHS does
    not interrupt; measured in docs/solvers.md, "Time limits")."""
    return is_mip and limited and nonzeros >= LARGE_MIP_NONZEROS


def _outcome(form: StandardForm, found: dict[str, Any], native: dict[str, Any], safe_note: str, version: str,
             load_seconds: float, run_seconds: float, limit: float | None) -> Outcome:
    """The outcome of a HiGHS run from what :func:`run_loaded` read; the solution (and an LP's row
    duals, when the model asks for them) go into the form's variables."""
    info = SimpleNamespace(mip_node_count=found["mip_node_count"])
    termination = highs_word(found["status"], info, native)
    has_solution = "col_value" in found and termination not in ("infeasible", "unbounded", "infeasible_or_unbounded")
    objective = bound = None
    note = ""
    if has_solution:
        objective = form.objective_at(form.load(found["col_value"]))
        if form.dual_suffix is not None and not form.is_mip and "row_dual" in found:
            form.load_duals(found["row_dual"])
    if form.is_mip:
        bound = finite(found["mip_dual_bound"])
        if bound is None and termination != "optimal":
            note = "HiGHS had no dual bound yet (it stopped before its root LP relaxation was solved)"
    note = "; ".join(part for part in (note, safe_note) if part)
    return Outcome(termination, has_solution, objective, bound, version, note, load_seconds, run_seconds, limit)
