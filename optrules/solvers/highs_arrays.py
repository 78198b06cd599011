"""A model as HiGHS' own arrays: built from a :class:`~optrules.solvers.standard_form.StandardForm`
(or from cvxpy's canonical data), loaded with one ``passModel``, given its options and starting
point, run, and read back.

Plain arrays are what both the in-process solve (:mod:`optrules.solvers.highs`) and the child
process (:mod:`optrules.solvers.highs_process`) work on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # not imported at run time: the child process of highs_process loads without scipy
    from optrules.solvers.standard_form import StandardForm

__all__ = ["ITERATION_COUNTS", "load_arrays", "model_arrays", "run_loaded", "set_up"]

#: HiGHS' iteration counters, one per algorithm, as its info names them.
ITERATION_COUNTS = ("simplex_iteration_count", "ipm_iteration_count", "crossover_iteration_count",
                    "pdlp_iteration_count", "qp_iteration_count")


def model_arrays(form: StandardForm) -> dict[str, np.ndarray]:
    """What HiGHS is given of ``form``, as plain arrays: costs and offset, column and row bounds, the
    constraint matrix column-wise (arrays that hold ``rowwise`` = [True] have it row-wise, ``a_start``
    with a pointer per row, and HiGHS turns it round itself), the integer columns and, for a QP, the
    objective's quadratic part as HiGHS' lower-triangular Hessian Q (objective c^T x + x^T Q x / 2).
    Plain arrays travel to a child process (:mod:`optrules.solvers.highs_process`) as they are."""
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
    """A silent ``highspy.Highs`` holding the model of :func:`model_arrays`, passed in one
    ``passModel`` call that takes the arrays as they are (numpy buffers). Filling a ``HighsLp``
    field by field instead converts every entry on its own: 4-7x slower (measured on set-cover
    models of 4,385 to 1.6M nonzeros: 0.77 ms against 0.18 ms, 283 ms against 73 ms)."""
    n_cols, n_rows = (int(v) for v in arrays["shape"])
    integrality = np.zeros(n_cols, dtype=np.int32)  # one entry per column: HiGHS reads n_cols of them
    integrality[arrays["integer"]] = int(highspy.HighsVarType.kInteger)
    sense = highspy.ObjSense.kMaximize if bool(arrays["maximize"][0]) else highspy.ObjSense.kMinimize
    head = (n_cols, n_rows, int(arrays["a_value"].size))
    columns_and_rows = (int(sense), float(arrays["offset"][0]), arrays["cost"], arrays["col_lower"],
                        arrays["col_upper"], arrays["row_lower"], arrays["row_upper"],
                        arrays["a_start"], arrays["a_index"], arrays["a_value"])
    colwise = int(highspy.MatrixFormat.kColwise)
    a_format = int(highspy.MatrixFormat.kRowwise) if bool(arrays.get("rowwise", [False])[0]) else colwise
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    if "h_value" in arrays:  # HiGHS' lower-triangular Hessian, column-wise
        status = highs.passModel(*head, int(arrays["h_value"].size), a_format, int(highspy.HessianFormat.kTriangular),
                                 *columns_and_rows, arrays["h_start"], arrays["h_index"], arrays["h_value"], integrality)
    else:
        status = highs.passModel(*head, a_format, *columns_and_rows, integrality)
    if status == highspy.HighsStatus.kError:
        raise RuntimeError("HiGHS refused the model (passModel returned kError)")
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
    status name, HiGHS' info figures (objective in HiGHS' own terms, dual bound, nodes, iterations of
    all its algorithms), and the primal (and row dual) values when there are some."""
    if limit is not None:
        highs.setOptionValue("time_limit", float(limit))
    highs.run()
    info = highs.getInfo()
    found: dict[str, Any] = {"status": highs.getModelStatus().name,
                             "primal_solution_status": int(info.primal_solution_status),
                             "objective": float(info.objective_function_value),
                             "mip_dual_bound": float(info.mip_dual_bound), "mip_node_count": int(info.mip_node_count),
                             "iteration_counts": {name: int(getattr(info, name)) for name in ITERATION_COUNTS}}
    if found["primal_solution_status"] == 2:
        solution = highs.getSolution()
        found["col_value"] = np.asarray(solution.col_value, dtype=float)
        if solution.dual_valid:
            found["row_dual"] = np.asarray(solution.row_dual, dtype=float)
    return found
