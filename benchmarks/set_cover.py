"""Set-cover rule selection: model build and load against a direct highspy build, then the exact ILP
(HiGHS, under a time limit) against the greedy heuristic.

Instances: a two-rule instance (each layer's fixed cost per model), candidates mined from bundled data (adult, mushroom, german at 100, 500 and 2000
candidates) and random coverage, 1k / 10k / 100k samples x 500 candidates at 5% and 20% density,
each reduced exactly (``CoverInstance.reduce``) first.

Part 1, build and load (every instance of ``--build-instances``): in each of ``--repeats`` rounds,
the same reduced instance is put into HiGHS three ways, one after the other:

* direct: the (SC0)-(SC4) matrix assembled here with numpy / scipy.sparse and passed in one
  ``Highs.passModel`` call that takes the numpy arrays as buffers (column-wise, integrality
  included): the reference, the fastest way into the solver; also timed, as "direct (HighsLp)", the
  reference of the earlier tables: a ``HighsLp`` filled field by field (every entry converted on its
  own), ``passModel`` and ``changeColsIntegrality``;
* pyomo: ``optrules.models.set_cover.build(modeller="pyomo")`` (MatrixConstraint blocks), then
  loading (``optrules.solvers``: the model compiled to arrays and passed to HiGHS);
* cvxpy: ``build(modeller="cvxpy")``, then loading (``optrules.solvers``: the problem's affine
  expressions read into arrays, ``optrules.solvers.cvxpy_affine``, and passed to HiGHS).

Build and load seconds are medians of the rounds; the ratio to either direct build is the median
of the per-round ratios. A round of a small instance makes each build several times back to back (enough
for 50 ms of direct builds) and takes the mean per call. The models the two layers hand HiGHS are checked, before the timed
rounds, to be the direct model: costs, bounds, integrality and matrix, entry by entry.

Part 2, solve: ``solve_set_cover`` with ``time_limit`` (the budget of reduction, greedy start,
build, cut rounds, load and solve) and the default modeller ("auto": cvxpy for HiGHS; ``--modeller
pyomo`` or ``cvxpy`` to choose), against the greedy selection;
medians of ``--repeats`` for the real-data rows, one run for the random ones (the limit dominates).

``--instances LABEL ...`` keeps only the instances of those labels (e.g. "random 100k 20%") and
``--no-build`` skips part 1, ``--no-solve`` part 2; write such runs to their own ``--out``.

    python benchmarks/set_cover.py [--repeats 3] [--time-limit 60] [--quick] [--instances LABEL ...]
        [--no-build] [--no-solve] [--modeller auto|pyomo|cvxpy] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import gc
import shlex
import statistics
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

import optrules
from optrules.candidates import mine_candidates
from optrules.cover import CoverInstance
from optrules.data import binarize_target, validate_features, validate_target
from optrules.exact.set_cover import solve_set_cover
from optrules.learners.selection import greedy_cover
from optrules.models import set_cover as model
from optrules.solvers.cvxpy_affine import affine_form
from optrules.solvers.highs_arrays import load_arrays, model_arrays
from optrules.solvers.output import silenced
from optrules.solvers.standard_form import compile_model

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

ALPHA = 0.7
RULE_COST = 1.0
DEFAULT_OUT = Path(__file__).parent / "results" / "set_cover.md"
MIN_ROUND = 0.05  #: seconds of direct builds per timed round (small instances: several calls per round)


def real_instance(name: str, n_candidates: int) -> tuple[CoverInstance, np.ndarray]:
    X, y = optrules.load(name)
    frame, schema = validate_features(X)
    positive = y.attrs.get("positive") or y.value_counts().idxmin()
    target = binarize_target(validate_target(y, len(frame)), positive)
    candidates = mine_candidates(frame, schema, target.is_positive, max_len=3, min_support=0.02,
                                 max_candidates=n_candidates)
    return CoverInstance.from_samples(candidates.coverage, target.is_positive, ALPHA,
                                      np.full(len(candidates), RULE_COST)), candidates.n_atoms


def smallest_instance() -> CoverInstance:
    """Two rules, two positives, one negative: a 2 x 3 model after reduction, whose build and load
    times are each layer's fixed cost per model (what no vectorisation of the formulation removes)."""
    coverage = np.array([[True, False], [False, True], [True, True]])
    return CoverInstance.from_samples(coverage, np.array([True, True, False]), ALPHA, np.full(2, RULE_COST))


def random_instance(n_samples: int, n_candidates: int, density: float, seed: int) -> CoverInstance:
    rng = np.random.default_rng(seed)
    coverage = rng.random((n_samples, n_candidates)) < density
    is_positive = rng.random(n_samples) < 0.4
    return CoverInstance.from_samples(coverage, is_positive, ALPHA, np.full(n_candidates, RULE_COST))


def direct_highs(instance: CoverInstance, via_lp: bool = False):
    """(SC0)-(SC4) straight into highspy: columns x (binary), u, v; rows SC1 then SC2 (the reference).

    The arrays go to HiGHS in one ``passModel`` call that takes numpy buffers, the fastest way in;
    ``via_lp=True`` fills a ``HighsLp`` field by field and passes that, then sets the integrality
    (the reference of the earlier tables, which converts every entry on its own). Returns the
    seconds and the loaded ``highspy.Highs``."""
    import highspy

    began = time.perf_counter()
    coverage = instance.coverage
    n_x = coverage.shape[1]
    pos = np.flatnonzero(instance.pos_weight > 0)
    neg = np.flatnonzero(instance.neg_weight > 0)
    sc1_rows, sc1_cols = np.divmod(np.flatnonzero(coverage[pos]), n_x)  # np.nonzero's pairs, 3-6x faster
    sc2_rows, sc2_cols = np.divmod(np.flatnonzero(coverage[neg]), n_x)
    n_pairs = len(sc2_rows)
    rows = np.concatenate([sc1_rows, np.arange(len(pos)),  # SC1: coverage of x, then u_i
                           len(pos) + np.arange(n_pairs), len(pos) + np.arange(n_pairs)])  # SC2: v_i - x_j
    cols = np.concatenate([sc1_cols, n_x + np.arange(len(pos)), n_x + len(pos) + sc2_rows, sc2_cols])
    values = np.concatenate([np.ones(len(sc1_rows) + len(pos)), np.ones(n_pairs), -np.ones(n_pairs)])
    n_cols = n_x + len(pos) + len(neg)
    matrix = sp.csc_matrix((values, (rows, cols)), shape=(len(pos) + n_pairs, n_cols))
    cost = np.concatenate([instance.cost, ALPHA * instance.pos_weight[pos], (1 - ALPHA) * instance.neg_weight[neg]])
    col_lower, col_upper = np.zeros(n_cols), np.ones(n_cols)
    row_lower = np.concatenate([np.ones(len(pos)), np.zeros(n_pairs)])
    row_upper = np.full(matrix.shape[0], np.inf)
    with silenced():
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        if via_lp:
            lp = highspy.HighsLp()
            lp.num_col_, lp.num_row_ = n_cols, matrix.shape[0]
            lp.col_cost_, lp.offset_ = cost, instance.constant
            lp.col_lower_, lp.col_upper_, lp.row_lower_, lp.row_upper_ = col_lower, col_upper, row_lower, row_upper
            lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
            lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = matrix.indptr, matrix.indices, matrix.data
            highs.passModel(lp)
            highs.changeColsIntegrality(n_x, np.arange(n_x, dtype=np.int32), np.ones(n_x, dtype=np.uint8))
        else:
            integrality = np.zeros(n_cols, dtype=np.int32)
            integrality[:n_x] = int(highspy.HighsVarType.kInteger)
            highs.passModel(n_cols, matrix.shape[0], matrix.nnz, int(highspy.MatrixFormat.kColwise),
                            int(highspy.ObjSense.kMinimize), float(instance.constant), cost, col_lower, col_upper,
                            row_lower, row_upper, matrix.indptr, matrix.indices, matrix.data, integrality)
    return time.perf_counter() - began, highs


def layer_load(instance: CoverInstance, modeller: str) -> tuple[float, float, Any]:
    """Build seconds, load seconds and the loaded ``highspy.Highs`` of the model through ``modeller``:
    loading is what ``optrules.solvers.solve`` does before HiGHS runs (the Pyomo model compiled to
    arrays, or the cvxpy problem's affine expressions read into them, then one ``passModel``), done
    here in this process (``solve`` hands a MIP under a time limit to a child process, which loads it
    there; the starting point and options it also sets are not timed here)."""
    import highspy

    began = time.perf_counter()
    made = model.build(instance, modeller=modeller).model  # a cvxpy Problem is made when first asked for
    built = time.perf_counter() - began
    arrays = model_arrays(compile_model(made)) if modeller == "pyomo" else affine_form(made).arrays
    with silenced():
        highs = load_arrays(arrays, highspy)
    return built, time.perf_counter() - began - built, highs


def loaded_model(highs: Any) -> dict[str, Any]:
    """The model HiGHS holds, as arrays: costs and offset, bounds, integrality and the constraint
    matrix (column-wise, canonical: entries sorted, duplicates summed, zeros dropped)."""
    lp = highs.getLp()
    matrix = lp.a_matrix_
    parts = (np.asarray(matrix.value_), np.asarray(matrix.index_), np.asarray(matrix.start_))
    if matrix.format_ == type(matrix.format_).kColwise:
        A = sp.csc_matrix(parts, shape=(lp.num_row_, lp.num_col_))
    else:
        A = sp.csr_matrix(parts, shape=(lp.num_row_, lp.num_col_)).tocsc()
    A.sum_duplicates()
    A.eliminate_zeros()
    integer = np.array([int(kind) for kind in lp.integrality_], dtype=int)
    return {"cost": np.asarray(lp.col_cost_), "offset": np.array([lp.offset_]),
            "col_lower": np.asarray(lp.col_lower_), "col_upper": np.asarray(lp.col_upper_),
            "row_lower": np.asarray(lp.row_lower_), "row_upper": np.asarray(lp.row_upper_),
            "integer": integer if integer.size else np.zeros(lp.num_col_, dtype=int),
            "A": (A.indptr, A.indices, A.data)}


def check_same_model(direct: Any, layer: Any, label: str) -> tuple[int, int, int]:
    """Assert that two loaded HiGHS models are the same model, row for row and column for column;
    their (rows, columns, nonzeros)."""
    expected, got = loaded_model(direct), loaded_model(layer)
    for key, want in expected.items():
        pairs = zip(want, got[key]) if key == "A" else [(want, got[key])]
        for a, b in pairs:
            assert a.shape == b.shape and np.allclose(a, b), (label, key)
    return direct.getNumRow(), direct.getNumCol(), direct.getNumNz()


def inner_calls(instance: CoverInstance) -> int:
    """How many back-to-back calls make one timed round: enough for the direct build of a round to
    take at least ``MIN_ROUND`` seconds, so that millisecond builds are not timed one call at a time."""
    direct, _ = direct_highs(instance)
    return max(1, int(np.ceil(MIN_ROUND / max(direct, 1e-6))))


def measure_build(label: str, instance: CoverInstance, repeats: int) -> dict:
    small = instance.reduce().instance
    reference = direct_highs(small)[1]
    shape = check_same_model(reference, direct_highs(small, via_lp=True)[1], label)
    for modeller in ("pyomo", "cvxpy"):
        check_same_model(reference, layer_load(small, modeller)[2], f"{label}, {modeller}")
    calls = inner_calls(small)
    times = {"direct": [], "direct lp": [], "pyomo build": [], "pyomo load": [], "cvxpy build": [], "cvxpy load": []}
    ratios = {"pyomo": [], "cvxpy": [], "pyomo lp": [], "cvxpy lp": []}

    def batch(build: Callable[[], Any]) -> list[Any]:
        """``calls`` builds back to back, after a full garbage collection: cyclic garbage left by one
        path's models (Pyomo's) is not collected inside the next path's timing. What a batch's own
        models leave uncollected at its end is timed for no path."""
        gc.collect()
        return [build() for _ in range(calls)]

    for _ in range(repeats):
        direct = sum(seconds for seconds, _ in batch(lambda: direct_highs(small))) / calls
        direct_lp = sum(seconds for seconds, _ in batch(lambda: direct_highs(small, via_lp=True))) / calls
        times["direct"].append(direct)
        times["direct lp"].append(direct_lp)
        for modeller in ("pyomo", "cvxpy"):
            loads = batch(lambda: layer_load(small, modeller))
            built, loaded = (sum(part) / calls for part in list(zip(*loads))[:2])
            times[f"{modeller} build"].append(built)
            times[f"{modeller} load"].append(loaded)
            ratios[modeller].append((built + loaded) / direct)
            ratios[f"{modeller} lp"].append((built + loaded) / direct_lp)
    median = {key: statistics.median(values) for key, values in times.items()}
    ratio = {key: statistics.median(values) for key, values in ratios.items()}
    return {"instance": label, "rows x cols (nnz)": f"{shape[0]:,} x {shape[1]:,} ({shape[2]:,})",
            "calls per round": calls, "direct s": median["direct"], "direct (HighsLp) s": median["direct lp"],
            "pyomo build s": median["pyomo build"], "pyomo load s": median["pyomo load"],
            "pyomo / direct": ratio["pyomo"], "pyomo / direct (HighsLp)": ratio["pyomo lp"],
            "cvxpy build s": median["cvxpy build"], "cvxpy load s": median["cvxpy load"],
            "cvxpy / direct": ratio["cvxpy"], "cvxpy / direct (HighsLp)": ratio["cvxpy lp"]}


def measure_solve(label: str, instance: CoverInstance, atoms: np.ndarray | None, repeats: int,
                  time_limit: float, modeller: str) -> dict:
    greedy_times, walls, budgets = [], [], []
    for _ in range(repeats):
        started = time.perf_counter()
        greedy = greedy_cover(instance, size=atoms)
        greedy_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = solve_set_cover(instance, solver="highs", solver_options={"time_limit": time_limit}, size=atoms,
                                 modeller=modeller)
        walls.append(time.perf_counter() - started)
        budgets.append(result.budget)
    stage = {key: statistics.median(b.get(f"{key}_seconds", 0.0) for b in budgets)
             for key in ("build", "cut", "load", "solve")}
    greedy_objective = instance.objective(greedy)
    return {
        "instance": label,
        "samples x cand.": f"{instance.coverage.shape[0]} x {instance.n_candidates}",
        "reduced": f"{result.n_rows} x {result.n_candidates}",
        "build s": stage["build"], "cuts": result.n_cuts, "cut s": stage["cut"], "load s": stage["load"],
        "solve s": stage["solve"], "wall s": statistics.median(walls),
        "status": result.report.status.value, "fallback": result.fallback or "-",
        "ILP obj.": result.objective,
        "bound": result.best_bound if result.best_bound is not None else float("nan"),
        "gap %": 100 * result.gap if result.gap is not None else float("nan"),
        "greedy s": statistics.median(greedy_times), "greedy obj.": greedy_objective,
        "greedy / ILP": greedy_objective / result.objective if result.objective else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    parser.add_argument("--instances", nargs="+", default=None, metavar="LABEL",
                        help='only these instances, by label ("german (500)", "random 100k 20%%", ...)')
    parser.add_argument("--no-build", action="store_true", help="skip part 1 (build and load)")
    parser.add_argument("--no-solve", action="store_true", help="skip part 2 (the ILP solves)")
    parser.add_argument("--modeller", choices=(model.AUTO_MODELLER, *model.MODELLERS), default=model.DEFAULT_MODELLER,
                        help="the modelling layer of part 2 (the ILP solves)")
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args()

    def wanted(label: str) -> bool:
        return args.instances is None or label in args.instances

    samples = [1000] if args.quick else [1000, 10_000, 100_000]
    random_instances = [(f"random {n // 1000}k {d:.0%}", lambda n=n, d=d: random_instance(n, 500, d, seed=n))
                        for n in samples for d in (0.05, 0.2)]
    random_instances = [(label, make) for label, make in random_instances if wanted(label)]
    build_rows = []
    build_instances = [("fixed cost (2 rules)", smallest_instance), ("german (500)", lambda: real_instance("german", 500)[0])]
    for label, make in (build_instances + random_instances) if not args.no_build else []:
        if wanted(label):
            build_rows.append(measure_build(label, make(), args.repeats))
            print(build_rows[-1], flush=True)

    solve_rows = []
    datasets = ["german", "mushroom"] if args.quick else ["adult", "mushroom", "german"]
    sizes = [100] if args.quick else [100, 500, 2000]
    for name in datasets if not args.no_solve else []:
        for size in sizes:
            if wanted(f"{name} ({size})"):
                instance, atoms = real_instance(name, size)
                solve_rows.append(measure_solve(f"{name} ({size})", instance, atoms, args.repeats, args.time_limit,
                                               args.modeller))
                print(solve_rows[-1], flush=True)
    for label, make in random_instances if not args.no_solve else []:
        solve_rows.append(measure_solve(label, make(), None, 1, args.time_limit, args.modeller))
        print(solve_rows[-1], flush=True)

    build_table = markdown_table(build_rows) if build_rows else "(not run: --no-build)"
    solve_table = markdown_table(solve_rows) if solve_rows else "(not run: --no-solve)"
    print(build_table, solve_table, sep="\n\n")
    command = (f"python benchmarks/set_cover.py --repeats {args.repeats} --time-limit {args.time_limit:g}"
               f"{' --quick' if args.quick else ''}{' --no-build' if args.no_build else ''}"
               f"{' --no-solve' if args.no_solve else ''}"
               + ("" if args.modeller == model.DEFAULT_MODELLER else f" --modeller {args.modeller}")
               + (" --instances " + shlex.join(args.instances) if args.instances else "")
               + ("" if Path(args.out).resolve() == DEFAULT_OUT.resolve() else f" --out {args.out}"))
    write_report(
        args.out, "Set-cover rule selection: model builds against direct highspy, ILP (HiGHS) against greedy",
        command,
        f"alpha = {ALPHA}, rule cost = {RULE_COST}; real-data candidates: max_len 3, min support 2% of "
        "positives, ChiMerge (4.6, at most 6 bins); random: 40% positives. Every instance is reduced "
        "exactly first.\n\n"
        "## Build and load against a direct highspy build\n\n"
        f"Medians of {args.repeats} rounds (the ratio: median of the per-round ratios of build + load to "
        "direct; 'calls per round': each path built that many times back to back in a round, the mean "
        "per call taken, so that millisecond builds are not timed one call at a time). 'direct' assembles the same "
        "matrix with numpy / scipy.sparse and passes it to HiGHS in one passModel call that takes the arrays as "
        "buffers (the loader of optrules does the same); 'direct (HighsLp)', the reference of the tables before "
        "2026-12-05, fills a HighsLp field by field, passes it and sets the integrality. 'load' is the "
        "translation into HiGHS (for Pyomo the model compiled to arrays, for cvxpy its affine expressions "
        "read into arrays; either way passed in one passModel call, in this process). Each path's calls of a "
        "round start after a full garbage collection. The first row, "
        "a 2 x 3 model, is each path's fixed cost per model: on a millisecond instance such as german "
        "(500) that cost, not the size of the formulation, sets the ratio.\n\n"
        f"{build_table}\n\n"
        "## ILP against greedy\n\n"
        f"Models built with {args.modeller}; time_limit = {args.time_limit:g} s for the whole exact selection; medians of {args.repeats} runs "
        "for the real-data rows, one run for the random rows. 'build s' is reduction + greedy start + "
        "model build, 'cuts' / 'cut s' the pair inequalities (SC5) added in LP rounds and their time, "
        "'load s' / 'solve s' the final model's load into HiGHS and its branch and bound, 'wall s' the "
        "whole call. ILP and greedy objectives are the same function (optrules.cover); bound is the best "
        "lower bound known (HiGHS' dual bound or the LP bound after the cut rounds); fallback 'start' "
        "means HiGHS found nothing better than the greedy start.\n\n"
        f"{solve_table}\n"
    )


if __name__ == "__main__":
    main()
