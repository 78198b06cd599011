"""HiGHS on a :class:`~optrules.solvers.standard_form.StandardForm`: one ``passModel`` call, then run.

The columns, bounds, integrality, the constraint matrix (column-wise) and, for a QP, the Hessian go
into HiGHS together. The time limit HiGHS gets is what is left of the caller's deadline *after*
loading, so loading counts against the limit; a deadline already passed means HiGHS does not run.
At any stop HiGHS' own figures are read: the model status, whether the primal solution is feasible,
and for a MIP the dual bound (``mip_dual_bound``, also at a time or node limit). An LP whose model
asks for duals (a Pyomo ``dual`` suffix) gets HiGHS' row duals written into it.

A MIP under a time limit is solved in a child process that is stopped at the deadline
(:func:`runs_apart`, :mod:`optrules.solvers.highs_process`): HiGHS 1.16 does not look at its clock
inside some phases of a MIP solve (set-cover ILPs of about 32,000 nonzeros ran 25 s under a 10 s
limit: ``benchmarks/results/highs_limit_checks.md``), and only a process can be stopped from outside. The child
writes each incumbent and bound as HiGHS reports them, so a stopped solve keeps the last ones. A
large MIP under a limit also runs with :data:`LARGE_MIP_OPTIONS` (see :func:`limit_safe_options`):
the phases those options switch off run for minutes on such a model before HiGHS checks its clock.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from optrules.solvers.highs_arrays import load_arrays, model_arrays, run_loaded, set_up
from optrules.solvers.options import with_safe_options
from optrules.solvers.output import silenced
from optrules.solvers.registry import SolverError
from optrules.solvers.report import Outcome, finite, time_left
from optrules.solvers.standard_form import StandardForm

__all__ = ["HIGHS_WORDS", "HighsRun", "LARGE_MIP_NONZEROS", "LARGE_MIP_OPTIONS", "NO_DUAL_BOUND_NOTE", "highs_word",
           "limit_safe_options", "run_arrays", "run_highs", "runs_apart"]

HIGHS_WORDS = {
    "kOptimal": "optimal", "kInfeasible": "infeasible", "kUnbounded": "unbounded",
    "kUnboundedOrInfeasible": "infeasible_or_unbounded", "kTimeLimit": "time_limit",
    "kIterationLimit": "iteration_limit", "kSolutionLimit": "solution_limit",
    "kObjectiveBound": "objective_limit", "kObjectiveTarget": "objective_limit",
    "kInterrupt": "interrupted", "kMemoryLimit": "memory_limit", "kUnknown": "unknown",
}


def highs_word(status_name: str, node_count: int = -1, native: dict[str, Any] | None = None) -> str:
    """HiGHS' model status name as a termination word.

    HiGHS 1.16 has no node-limit status: ``mip_max_nodes`` stops it with ``kSolutionLimit``, told
    apart here by HiGHS' ``node_count`` (``mip_node_count``) against the ``native`` options."""
    word = HIGHS_WORDS.get(status_name, f"error: HiGHS status {status_name}")
    nodes = (native or {}).get("mip_max_nodes")
    if word == "solution_limit" and nodes is not None and node_count >= nodes:
        return "node_limit"
    return word


#: Why a MIP stopped at a limit has no bound in its report.
NO_DUAL_BOUND_NOTE = "HiGHS had no dual bound yet (it stopped before its root LP relaxation was solved)"


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
    """``native`` with :data:`LARGE_MIP_OPTIONS` added for a MIP of at least
    :data:`LARGE_MIP_NONZEROS` nonzeros solved under a time limit (``limited``), and the note that
    says so; options the caller set are kept as they are."""
    return with_safe_options(native, LARGE_MIP_OPTIONS, runs_apart(is_mip, limited) and nonzeros >= LARGE_MIP_NONZEROS,
                             f"a MIP of {nonzeros:,} nonzeros under a time limit", "HiGHS",
                             "HiGHS does not check its time limit inside those phases on a model this large")


def run_highs(form: StandardForm, native: dict[str, Any], verbose: bool, warm_start: bool,
              deadline: float | None, version: str) -> Outcome:
    """Load ``form`` into HiGHS, run it until ``deadline`` (a ``time.perf_counter()`` value) at the
    latest, and load the solution back into the form's variables when there is one."""
    if form.quadratic_rows:
        raise SolverError("HiGHS takes no quadratic constraint; the model has "
                          f"{len(form.quadratic_rows)} (solve it with scip)")
    if form.n_cols == 0:  # nothing to decide: HiGHS would say kModelEmpty
        return Outcome("optimal", True, form.constant, form.constant, version)
    began = time.perf_counter()
    start = form.start() if warm_start else None
    run = run_arrays(model_arrays(form), native, start, began, deadline, verbose, version)
    return run if isinstance(run, Outcome) else _outcome(form, run, native, version)


@dataclass(frozen=True)
class HighsRun:
    """What HiGHS found on a model's arrays (:func:`optrules.solvers.highs_arrays.run_loaded`), the
    seconds spent loading (from the caller's start) and running, the limit HiGHS was given, and the
    report's note on how that limit was kept (options added by :func:`limit_safe_options`, a child
    process stopped at the deadline)."""

    found: dict[str, Any]
    load_seconds: float
    run_seconds: float
    limit: float | None
    note: str


def run_arrays(arrays: dict[str, np.ndarray], native: dict[str, Any], start: np.ndarray | None, began: float,
               deadline: float | None, verbose: bool, version: str) -> HighsRun | Outcome:
    """Run HiGHS on the model of ``arrays`` (:func:`optrules.solvers.highs_arrays.model_arrays`) from
    the starting point ``start`` (NaN: unknown; None: none) until ``deadline`` at the latest; the work
    since ``began`` counts as loading. The Pyomo and the cvxpy paths both end here.

    A MIP under a limit (:func:`runs_apart`) is solved in a child process that is stopped at the
    deadline (:mod:`optrules.solvers.highs_process`): HiGHS 1.16 does not look at its clock inside
    some phases of a MIP solve. An :class:`Outcome` comes back when there is nothing to read: an
    option HiGHS refused, a deadline passed before HiGHS started, a child stopped before HiGHS had
    reported an incumbent or a bound."""
    import highspy

    limited = native.get("time_limit") is not None or deadline is not None
    is_mip, nonzeros = bool(arrays["integer"].size), int(arrays["a_value"].size)
    native, note = limit_safe_options(native, is_mip, nonzeros, limited)
    if runs_apart(is_mip, limited):
        from optrules.solvers.highs_process import run_apart

        handed = time.perf_counter()
        limit = time_left(native.get("time_limit"), deadline, handed)
        if limit <= 0:
            return Outcome.not_run("HiGHS", version, handed - began)
        apart = run_apart(arrays, native, start, handed + limit, verbose)
        load_seconds = handed - began + apart.load_seconds
        if apart.limit <= 0:  # spent while the model was written for the child
            return Outcome.not_run("HiGHS", version, load_seconds)
        note = "; ".join(part for part in (apart.note, note) if part)
        if apart.found is None:
            return Outcome("time_limit", False, version=version, note=note, load_seconds=load_seconds,
                           solve_seconds=apart.run_seconds, time_limit=apart.limit)
        found, run_seconds, limit = apart.found, apart.run_seconds, apart.limit
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
    return HighsRun(found, load_seconds, run_seconds, limit, note)


def runs_apart(is_mip: bool, limited: bool) -> bool:
    """Whether a HiGHS solve runs in a child process stopped at the deadline: every MIP under a time
    limit (docs/solvers.md, "Time limits"). An LP or QP stays in this process: HiGHS' simplex and
    interior point methods check the clock as they iterate."""
    return is_mip and limited


def _outcome(form: StandardForm, run: HighsRun, native: dict[str, Any], version: str) -> Outcome:
    """The outcome of a HiGHS run; the solution (and an LP's row duals, when the model asks for
    them) go into the form's variables."""
    found = run.found
    termination = highs_word(found["status"], found["mip_node_count"], native)
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
            note = NO_DUAL_BOUND_NOTE
    note = "; ".join(part for part in (note, run.note) if part)
    return Outcome(termination, has_solution, objective, bound, version, note, run.load_seconds, run.run_seconds,
                   run.limit)
