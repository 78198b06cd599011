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

from optrules.solvers.highs_arrays import load_arrays, model_arrays, run_loaded, set_up
from optrules.solvers.options import with_safe_options
from optrules.solvers.output import silenced
from optrules.solvers.registry import SolverError
from optrules.solvers.report import Outcome, finite, time_left
from optrules.solvers.standard_form import StandardForm

__all__ = ["HIGHS_WORDS", "LARGE_MIP_NONZEROS", "LARGE_MIP_OPTIONS", "limit_safe_options", "run_highs", "runs_apart"]

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
    return with_safe_options(native, LARGE_MIP_OPTIONS, runs_apart(is_mip, nonzeros, limited),
                             f"a MIP of {nonzeros:,} nonzeros under a time limit", "HiGHS",
                             "HiGHS does not check its time limit inside those phases on a model this large")


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
            refused = set_up(highs, highspy, native, start, verbose)
            loaded = time.perf_counter()
            load_seconds = loaded - began
            if refused:
                return Outcome(f"error: {refused}", False, version=version, load_seconds=load_seconds)
            limit = time_left(native.get("time_limit"), deadline, loaded)
            if limit is not None and limit <= 0:
                return Outcome.not_run("HiGHS", version, load_seconds)
            found = run_loaded(highs, limit)
            run_seconds = time.perf_counter() - loaded
    if found.get("error"):  # an option the child's HiGHS refused
        return Outcome(f"error: {found['error']}", False, version=version, load_seconds=load_seconds)
    return _outcome(form, found, native, safe_note, version, load_seconds, run_seconds, limit)


def runs_apart(is_mip: bool, nonzeros: int, limited: bool) -> bool:
    """Whether a HiGHS solve is "large" (a MIP of at least :data:`LARGE_MIP_NONZEROS` nonzeros under
    a time limit, the models whose set-up HiGHS does not interrupt; docs/solvers.md, "Time limits"):
    it gets :data:`LARGE_MIP_OPTIONS` and runs in a child process stopped at the deadline."""
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
