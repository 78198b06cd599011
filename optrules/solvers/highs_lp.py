"""A persistent HiGHS LP for algorithms that add columns and re-solve (column generation).

``optrules.solvers.solve`` loads a whole model per call. Column generation re-solves one LP after
adding a few columns, hundreds of times: rebuilding and reloading the model each time costs more
than the simplex re-solve from the previous basis (measured: 10,000 rows, 1,756 columns, 112 s of
rebuilt master solves). :class:`HighsLP` keeps the LP in one HiGHS instance; its runs are reported
as every solve is (:func:`optrules.solvers.solving.judge`), under the same process-wide lock.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from optrules.solvers.highs import highs_word
from optrules.solvers.options import check_unified, native_options
from optrules.solvers.output import silenced
from optrules.solvers.registry import SolverError, backend_for, version_string
from optrules.solvers.report import Outcome, ProblemClass, SolveReport, time_left
from optrules.solvers.solving import SOLVE_LOCK, judge, report_note

__all__ = ["HighsLP"]


class HighsLP:
    """An LP kept in one HiGHS instance, for algorithms that add columns and re-solve (column
    generation): ``min c^T x  s.t.  row_lower <= A x <= row_upper,  col_lower <= x <= col_upper``.

    :meth:`add_columns` appends columns (their entries in the existing rows) with ``addCols``;
    :meth:`solve` re-runs HiGHS from the last basis within ``deadline`` and returns a
    :class:`~optrules.solvers.report.SolveReport` judged as every solve is; :meth:`values` and
    :meth:`row_duals` read the solution (HiGHS' sign convention: >= 0 on a binding lower bound of a
    minimisation). Options: the unified ones and HiGHS' own, as for :func:`optrules.solvers.solve`.
    """

    def __init__(self, row_lower: np.ndarray, row_upper: np.ndarray, options: dict[str, Any] | None = None) -> None:
        import highspy

        self._highspy = highspy
        self._spec, self._backend = backend_for("highs", ProblemClass.LP, "pyomo")
        self.options = check_unified(options)
        self._native = native_options(self.options, self._backend.options)
        with silenced(bool(self.options.get("verbose", False))):  # HiGHS prints a banner when made
            self.highs = highspy.Highs()
        self.highs.setOptionValue("output_flag", bool(self.options.get("verbose", False)))
        for name, value in self._native.items():
            if name != "time_limit" and self.highs.setOptionValue(name, value) == highspy.HighsStatus.kError:
                raise SolverError(f"HiGHS refused option {name}={value!r}")
        lower, upper = np.asarray(row_lower, dtype=float), np.asarray(row_upper, dtype=float)
        self.highs.addRows(int(lower.size), lower, upper, 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        self.n_rows = int(lower.size)
        self.n_cols = 0

    def add_columns(self, cost: np.ndarray, lower: np.ndarray, upper: np.ndarray, A: Any) -> None:
        """Append ``len(cost)`` columns; ``A`` (rows x new columns, scipy.sparse) holds their entries."""
        csc = sp.csc_matrix(A, dtype=float)
        if csc.shape != (self.n_rows, len(cost)):
            raise ValueError(f"A has shape {csc.shape}, expected ({self.n_rows}, {len(cost)})")
        csc.sum_duplicates()
        status = self.highs.addCols(int(len(cost)), np.asarray(cost, dtype=float), np.asarray(lower, dtype=float),
                                    np.asarray(upper, dtype=float), int(csc.nnz), csc.indptr[:-1].astype(np.int32),
                                    csc.indices.astype(np.int32), csc.data)
        if status == self._highspy.HighsStatus.kError:
            raise RuntimeError("HiGHS refused the added columns")
        self.n_cols += len(cost)

    def solve(self, deadline: float | None = None) -> Any:
        """Re-solve from the last basis until ``deadline`` at the latest; the report of the run."""
        began = time.perf_counter()
        limit = time_left(self.options.get("time_limit"), deadline, began)
        version = version_string(self._backend)
        if limit is not None and limit <= 0:
            out = Outcome.not_run("HiGHS", version, 0.0)
        else:
            # HiGHS compares its time_limit with the instance's run clock, which keeps counting over
            # the runs: the limit of this run is the clock so far plus what is left
            self.highs.setOptionValue("time_limit", self.highs.getRunTime() + float(limit) if limit is not None
                                      else float("inf"))
            with SOLVE_LOCK, silenced(bool(self.options.get("verbose", False))):
                self.highs.run()
            info = self.highs.getInfo()
            termination = highs_word(self.highs.getModelStatus().name, info.mip_node_count, self._native)
            has_solution = info.primal_solution_status == 2 and termination not in (
                "infeasible", "unbounded", "infeasible_or_unbounded")
            objective = float(info.objective_function_value) if has_solution else None
            out = Outcome(termination, has_solution, objective, None, version, "", 0.0,
                          time.perf_counter() - began, limit)
        status, termination, gap, bound = judge(out, ProblemClass.LP, self._backend)
        return SolveReport(self._spec.name, out.version, ProblemClass.LP, status, termination,
                           out.objective if status.value in ("optimal", "feasible") else None, bound, gap,
                           out.solve_seconds or 0.0, 0.0, dict(self.options), 0.0, out.time_limit,
                           report_note(status, out, bound, self._backend, ProblemClass.LP))

    def values(self) -> np.ndarray:
        return np.asarray(self.highs.getSolution().col_value, dtype=float)

    def row_duals(self) -> np.ndarray:
        return np.asarray(self.highs.getSolution().row_dual, dtype=float)
