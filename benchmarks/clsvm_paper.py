"""CLSVM strategies against the paper's Tables 2-5 (Carrizosa, Nogales-Gomez and Romero Morales), run by
the experiment runner.

Protocol, as far as the paper gives it (its Section 4 is cut in our copy): for each dataset, random
stratified splits with the training sizes of Table 1 (german 700, australian 500, car_evaluation
1200, mushroom 5000, adult 5000), the rest of the rows as the test set. The splits are the runner's
``kind = "splits"`` protocol with a per-dataset ``train_size``: scikit-learn's
``StratifiedShuffleSplit(splits, train_size=..., random_state=0)``. They differ from those of the
previous version of this script (``train_test_split(..., stratify=y, random_state=s)`` for split s)
except split 0, which ``train_test_split`` draws with the same splitter and seed; the randomised
strategies' seeds differ too (the runner gives split k the seed
``SeedSequence([0, k])``, not k). C is chosen on the training data only (``C="cv"``:
``optrules.estimators.clsvm.C_GRID`` by 3-fold inner CV accuracy; for ``clm`` the inner runs use ``svm-c``, its
warm start). L = 2 clusters per feature, 10 randomized roundings (cl-rr, clm-rr). car_evaluation is
binarised as in the paper (30/70): ``unacc`` against the rest, in a CSV the script writes next to the
runs, so that the splits are stratified on the paper's two classes.

Every dataset is one run of :func:`optrules.experiments.run` into ``RUNS/<dataset>/`` (``--runs``,
default ``benchmarks/results/clsvm_paper_runs``) with ``resume=True``: every finished fit is in
``RUNS/<dataset>/results.jsonl`` at once, so an interrupted run resumes where it stopped. ``clm`` and
``cl-rr`` fits run isolated, each in a child process with a timeout (SCIP's heuristics aborted the
process or hung on the 5,000-row MIQPs; clm's ``--clm-time-limit`` bounds its whole fit, the inner CV
over C and the bound QPs included, docs/methods/clsvm.md "Time limit"), and a fit that crashes, times out or raises is a row with
its status and error text (``on_error = "record"``). The methods are listed longest first (clm, cl-rr,
...) so that the two workers finish together. The figures come from the result table: accuracy,
``complexity`` (the CLSVM's ``Ruleset.meta["complexity"]``), ``fit_seconds``, the exact part's
``status``, ``objective``, ``bound``, ``gap``, ``fallback`` and stage seconds, and the ``meta.*``
columns (C chosen, cl-rr's relaxation solver; for clm the MIQP's termination and own objective,
SVM_C's objective, the convex lower bound LB and the largest M_j). Result tables written before those
columns existed are read with the figures of their ``meta.*`` columns of the time.

The markdown report (``--out``) is rebuilt from the ``results.csv`` of every dataset under RUNS (a
dataset appears once its run completed): the paper's values beside ours, accuracy and complexity
(mean, sample std, median over splits), and for ``clm`` each split's status, objective, bound and gap
against SVM_C's objective, then the acceptance checks of issue 4.

Other data: ``--datasets`` also takes CSV files (paths, or names of files in ``--data-dir``) with a
``manifest.json`` beside them (``benchmarks/paper_data.py``). The protocol needs each one's training
rows per split, the manifest entry's ``"train_size"`` (a number of rows, or a fraction below 1; a
dataset without one is an error that says so), and its categorical features, the entry's
``"categorical"`` (without it: ``optrules.datasets.load_csv``'s typing, text columns categorical and
numeric columns numbers). Its label column is ``"label"`` (default ``class``) and its positive class
``"positive_class"`` (default: the runner's, the minority class). ``--positive`` (one ``VALUE`` or
``NAME=VALUE`` pairs) overrides the positive class of any dataset. Datasets without paper values are
reported with "-" in the paper columns.

The runner shows a progress bar over the fits on a terminal; a rerun resumes every dataset from
its ``results.jsonl`` (``--rerun`` starts its log over).

    python benchmarks/clsvm_paper.py [--datasets german australian | data.csv] [--splits 10] \\
        [--strategies svm-o svm-c cl-rr clm-rr clm] [--clm-time-limit 300] [--jobs 2] [--report-only]
        [--data-dir DIR] [--positive VALUE | NAME=VALUE ...] [--rerun]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

import optrules
from optrules.experiments import run

sys.path.insert(0, str(Path(__file__).parent))
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)
from paper_data import (add_data_arguments, check_positive, csv_dataset, parse_positive,  # noqa: E402
                        positive_of)

TRAIN_SIZE = {"german": 700, "australian": 500, "car_evaluation": 1200, "mushroom": 5000, "adult": 5000}
POSITIVE = {"german": "good", "australian": "+", "car_evaluation": "unacc", "mushroom": "e", "adult": ">50K"}
PAPER_NAME = {"german": "german", "australian": "australian", "car_evaluation": "careval",
              "mushroom": "mushrooms", "adult": "adult"}
STRATEGIES = ("svm-o", "svm-c", "cl-rr", "clm-rr", "clm")
#: the order the methods are run in: the longest fits first
RUN_ORDER = ("clm", "cl-rr", "clm-rr", "svm-c", "svm-o")
#: timeout (seconds) of an isolated cl-rr fit (measured: up to about 160 s on the 5,000-row datasets)
CL_RR_TIMEOUT = 1800.0
#: an isolated clm fit may run this much longer than its time limit, which bounds the whole fit (the
#: inner CV over C at most CLSVMClassifier's CV_SHARE of it, the J + 1 bound QPs at most BOUND_SHARE of
#: what is left, the MIQP the rest): the margin covers the uninterruptible steps (a model build, the
#: loading of the MIQP into SCIP) and the child's start
CLM_TIMEOUT_FACTOR, CLM_TIMEOUT_MARGIN = 2.0, 300.0
#: the Ruleset.meta entries recorded for every strategy, and for clm only
META = ["C", "relaxation_solver"]
CLM_META = ["termination", "model_objective", "start_objective", "lower_bound", "big_m_max", "fallback_reason",
            "cv_folds", "cv_seconds", "bound_qps", "bound_qps_planned", "bound_qps_solved", "bound_seconds"]
#: the acceptance point of issue 4 on SVM_O's accuracy (points of %)
SVM_O_TOLERANCE = 2.0

#: Tables 2-5: (accuracy mean, std, median, complexity mean, std, median) in %
PAPER = {
    "svm-o": {"adult": (84.57, 0.22, 84.63, 83.93, 3.26, 84.62), "mushrooms": (100.0, 0.0, 100.0, 71.17, 0.0, 71.17),
              "careval": (96.74, 1.34, 96.97, 99.05, 2.86, 100.0), "german": (74.60, 2.71, 75.66, 94.62, 1.88, 95.19),
              "australian": (84.11, 3.17, 84.73, 86.90, 4.83, 89.66)},
    "svm-c": {"adult": (88.22, 2.44, 89.59, 13.76, 2.21, 13.68), "mushrooms": (100.0, 0.0, 100.0, 23.42, 0.0, 23.42),
              "careval": (82.80, 5.15, 82.95, 44.76, 8.57, 38.10), "german": (74.80, 2.36, 75.00, 42.31, 0.0, 42.31),
              "australian": (84.42, 3.32, 84.73, 19.31, 9.66, 24.14)},
    "cl-rr": {"adult": (83.44, 0.37, 83.44, 16.58, 1.34, 16.24), "mushrooms": (100.0, 0.0, 100.0, 19.28, 4.56, 18.02),
              "careval": (92.23, 1.28, 92.42, 41.90, 12.2, 38.10), "german": (74.60, 3.12, 74.00, 38.27, 4.59, 41.35),
              "australian": (84.53, 3.12, 84.73, 15.17, 11.03, 13.79)},
    "clm-rr": {"adult": (88.75, 2.96, 89.63, 10.17, 4.36, 8.55), "mushrooms": (98.58, 0.77, 98.59, 21.71, 5.87, 22.07),
               "careval": (83.94, 4.91, 85.41, 29.52, 10.82, 28.57), "german": (72.53, 3.77, 71.66, 36.92, 4.28, 36.54),
               "australian": (84.53, 3.05, 84.73, 5.52, 2.76, 6.90)},
    "clm": {"adult": (85.35, 3.16, 83.44, 9.23, 3.64, 9.83), "mushrooms": (100.0, 0.0, 100.0, 14.77, 1.57, 14.41),
            "careval": (94.17, 2.84, 93.37, 49.52, 3.81, 47.62), "german": (75.60, 3.01, 76.34, 42.31, 0.0, 42.31),
            "australian": (85.37, 3.28, 85.26, 23.45, 5.52, 27.59)},
}


def log(*args: Any) -> None:
    print(time.strftime("%H:%M:%S"), *args, flush=True)


# --------------------------------------------------------------------------------------------
# The configuration
# --------------------------------------------------------------------------------------------


def dataset_entry(spec: str, runs: Path, data_dir: Path | None) -> dict[str, Any]:
    """The runner's entry for a dataset of ``--datasets``: a dataset of Table 1 with its training size
    and positive class (car_evaluation as the binary unacc-vs-rest data set, written once to
    ``runs/data/``), else a CSV with its manifest's training size (a ``SystemExit`` naming the key
    when the entry has none)."""
    if spec not in TRAIN_SIZE:
        if spec in optrules.datasets.list_datasets():
            raise SystemExit(f"clsvm_paper.py: {spec!r} is bundled but not a dataset of Table 1 "
                             f"({', '.join(TRAIN_SIZE)}), so it has no training size: write it as a CSV with "
                             f"a manifest.json entry that gives \"train_size\"")
        entry, manifest, _ = csv_dataset(spec, data_dir)
        if manifest.get("train_size") is None:
            raise SystemExit(f"clsvm_paper.py: dataset {entry['name']!r} has no training size: the CLSVM protocol "
                             f"needs \"train_size\" (rows per training split, or a fraction below 1) in its "
                             f"entry of {Path(entry['path']).parent / 'manifest.json'}")
        return {**entry, "train_size": manifest["train_size"]}
    name = spec
    entry: dict[str, Any] = {"name": name, "positive": POSITIVE[name], "train_size": TRAIN_SIZE[name]}
    if name != "car_evaluation":
        return entry
    X, y = optrules.load(name)
    path = runs / "data" / "car_evaluation_unacc.csv.gz"
    if not path.is_file():
        labels = y.astype(str)
        path.parent.mkdir(parents=True, exist_ok=True)
        X.assign(**{"class": labels.where(labels == POSITIVE[name], "rest")}).to_csv(path, index=False)
    return {**entry, "path": str(path.resolve()), "label": "class", "categorical": list(X.columns)}


def method_entry(strategy: str, clm_time_limit: float) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": strategy, "params": {"C": "cv", "clusters": 2, "draws": 10}}
    if strategy == "cl-rr":
        entry.update(isolate=True, timeout=CL_RR_TIMEOUT)
    if strategy == "clm":
        entry.update(solver_options={"time_limit": clm_time_limit}, isolate=True,
                     timeout=CLM_TIMEOUT_FACTOR * clm_time_limit + CLM_TIMEOUT_MARGIN, meta=CLM_META)
    return entry


def experiment(dataset: dict[str, Any], splits: int, strategies: list[str], clm_time_limit: float,
               jobs: int) -> dict[str, Any]:
    """The configuration of one dataset's run (``dataset``: its runner entry, ``dataset_entry``)."""
    return {
        "title": f"CLSVM strategies on {dataset['name']} (Carrizosa et al., Tables 2-5)",
        "protocol": {"kind": "splits", "repeats": splits, "seed": 0},
        "datasets": [dataset],
        "methods": [method_entry(s, clm_time_limit) for s in RUN_ORDER if s in strategies],
        "meta": META,
        "parallel": {"backend": "loky", "jobs": jobs, "on_error": "record"},
    }


# --------------------------------------------------------------------------------------------
# The report, from the result tables
# --------------------------------------------------------------------------------------------


def _current_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """A result table written before the runner had its bound, fallback and stage columns (the runs
    committed before them), with those figures taken from its ``meta.*`` columns of the time."""
    if "bound" in frame:
        return frame
    frame = frame.copy()
    frame["bound"] = frame.get("meta.model_best_bound")
    if "meta.model_gap" in frame:
        frame["gap"] = frame["meta.model_gap"].where(frame["method"] == "clm", frame["gap"])
    started = frame.get("meta.solution_from_start", pd.Series(False, index=frame.index))
    frame["fallback"] = started.map(lambda value: "start" if value is True or value == "True" else None)
    frame["build_seconds"] = frame.get("meta.build_seconds")
    frame["solve_seconds"] = frame.get("meta.solve_seconds")  # then: summed over the fit's solves
    if "meta.model_solve_seconds" in frame:  # clm's MIQP alone
        frame["solve_seconds"] = frame["meta.model_solve_seconds"].where(frame["method"] == "clm",
                                                                         frame["solve_seconds"])
    frame["meta.termination"] = frame.get("meta.model_termination")
    return frame


def load_results(runs: Path) -> tuple[pd.DataFrame, dict[str, float]]:
    """Every completed dataset run under ``runs``: the rows (datasets in Table 1's order, then the
    others by name) and each dataset's clm time limit (from its resolved configuration)."""
    frames, limits = [], {}
    others = sorted(d.name for d in runs.glob("*") if d.is_dir() and d.name not in TRAIN_SIZE) if runs.is_dir() else []
    for name in [*TRAIN_SIZE, *others]:
        table, config = runs / name / "results.csv", runs / name / "config.json"
        if not table.is_file():
            continue
        frames.append(_current_columns(pd.read_csv(table, dtype={"solver": object, "status": object,
                                                                  "error": object})))
        for method in json.loads(config.read_text())["methods"]:
            if method["name"] == "clm":
                limits[name] = float(method["solver_options"]["time_limit"])
    return (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()), limits


def succeeded(results: pd.DataFrame) -> pd.DataFrame:
    failed = results["status"].isin(["error", "crashed", "timeout"])
    return results[~failed]


def stats(values: pd.Series) -> tuple[float, float, float]:
    values = list(values)
    if not values:
        return (float("nan"),) * 3
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return statistics.mean(values), std, statistics.median(values)


def summary_rows(results: pd.DataFrame) -> list[dict]:
    rows = []
    for name in dict.fromkeys(results["dataset"]):
        for strategy in STRATEGIES:
            every = results[(results["dataset"] == name) & (results["method"] == strategy)]
            mine = succeeded(every).sort_values("fold")
            if every.empty:
                continue
            failed = len(every) - len(mine)
            accuracy, complexity = stats(100 * mine["accuracy"]), stats(mine["complexity"])
            paper = PAPER[strategy].get(PAPER_NAME.get(name))
            rows.append({
                "dataset": name, "strategy": strategy,
                "splits": f"{len(mine)}" + (f" (+{failed} failed)" if failed else ""),
                "acc mean": accuracy[0], "acc std": accuracy[1], "acc med": accuracy[2],
                "paper acc (mean/std/med)": "-" if paper is None else f"{paper[0]:.2f} / {paper[1]:.2f} / {paper[2]:.2f}",
                "cx mean": complexity[0], "cx std": complexity[1], "cx med": complexity[2],
                "paper cx (mean/std/med)": "-" if paper is None else f"{paper[3]:.2f} / {paper[4]:.2f} / {paper[5]:.2f}",
                "C chosen": ", ".join(f"{c:g}" for c in mine["meta.C"]),
                "fit s": mine["fit_seconds"].mean(), "build s": mine["build_seconds"].mean(),
                "solve s": mine["solve_seconds"].mean(),
            })
    return rows


def _number(value: Any) -> float:
    return float("nan") if value is None or pd.isna(value) else float(value)


def clm_rows(results: pd.DataFrame, limits: dict[str, float]) -> list[dict]:
    rows = []
    for _, r in results[results["method"] == "clm"].iterrows():
        failed = r["status"] in ("error", "crashed", "timeout")
        not_worse = "-" if failed else bool(r["objective"] <= r["meta.start_objective"] + 1e-7)
        rows.append({"dataset": r["dataset"], "split": int(r["fold"]), "C": _number(r["meta.C"]),
                     "limit s": limits.get(r["dataset"], float("nan")),
                     "status": r["status"], "termination": "-" if failed else r["meta.termination"],
                     "fallback": "-" if failed or pd.isna(r["fallback"]) else r["fallback"],
                     "MIQP objective": _number(r["meta.model_objective"]), "objective": _number(r["objective"]),
                     "bound": _number(r["bound"]), "gap %": 100 * _number(r["gap"]),
                     "SVM_C objective": _number(r["meta.start_objective"]), "clm <= SVM_C": not_worse,
                     "LB (convex)": _number(r["meta.lower_bound"]), "max M_j": _number(r["meta.big_m_max"]),
                     **stage_cells(r), "MIQP s": _number(r["solve_seconds"]), "fit s": _number(r["fit_seconds"])})
    return rows


def stage_cells(r: pd.Series) -> dict[str, Any]:
    """What ran before clm's MIQP: the inner CV's folds and seconds, the bound QPs run of J + 1 (and
    solved to optimality) and their seconds ("-" in result tables written before these were recorded)."""
    def cell(key: str) -> Any:
        value = r.get(f"meta.{key}")
        return "-" if value is None or pd.isna(value) else value

    qps, planned, solved = cell("bound_qps"), cell("bound_qps_planned"), cell("bound_qps_solved")
    return {"CV folds": cell("cv_folds"), "CV s": cell("cv_seconds"),
            "bound QPs run (solved)": "-" if qps == "-" else f"{int(qps)}/{int(planned)} ({int(solved)})",
            "bound s": cell("bound_seconds")}


def failure_rows(results: pd.DataFrame) -> list[dict]:
    failed = results[~results.index.isin(succeeded(results).index)]
    return [{"dataset": r["dataset"], "strategy": r["method"], "split": int(r["fold"]), "status": r["status"],
             "seconds": _number(r["fit_seconds"]), "error": str(r["error"])[:300].replace("|", "/").replace("\n", " ")}
            for _, r in failed.iterrows()]


def acceptance(results: pd.DataFrame, limits: dict[str, float]) -> str:
    lines = []
    ok = succeeded(results)

    def of(name: str, strategy: str) -> pd.DataFrame:
        return ok[(ok["dataset"] == name) & (ok["method"] == strategy)]

    for name in ("german", "australian", "car_evaluation"):
        mine = of(name, "svm-o")
        if mine.empty:
            continue
        ours, paper = 100 * mine["accuracy"].mean(), PAPER["svm-o"][PAPER_NAME[name]][0]
        error = 100 * mine["accuracy"].std(ddof=1) / len(mine) ** 0.5 if len(mine) > 1 else float("nan")
        verdict = "within" if abs(ours - paper) <= SVM_O_TOLERANCE else "NOT within"
        lines.append(f"- SVM_O accuracy on {name}: {ours:.2f} (standard error {error:.2f}, {len(mine)} splits) "
                     f"vs the paper's {paper:.2f}: {verdict} {SVM_O_TOLERANCE:g} points")
    for name in dict.fromkeys(results["dataset"]):
        base = of(name, "svm-o")
        if base.empty:
            continue
        reference = base["complexity"].mean()
        for strategy in STRATEGIES[1:]:
            mine = of(name, strategy)
            if mine.empty:
                continue
            value = mine["complexity"].mean()
            relation = "below" if value < reference else ("equal to" if value == reference else "ABOVE")
            lines.append(f"- complexity of {strategy} on {name}: {value:.2f} {relation} SVM_O's {reference:.2f}")
    for r in clm_rows(results, limits):
        head = f"- clm on {r['dataset']} split {r['split']} (limit {r['limit s']:g} s): {r['status']}"
        if r["clm <= SVM_C"] == "-":
            lines.append(head)
            continue
        gap = r["gap %"]
        lines.append(f"{head}, objective {r['objective']:.6g}, bound {r['bound']:.6g}, gap {gap:.3f}%; "
                     f"final objective {'not worse' if r['clm <= SVM_C'] else 'WORSE'} than SVM_C's")
    return "\n".join(lines)


def report(results: pd.DataFrame, limits: dict[str, float], out: Path, command: str, note: str) -> None:
    cl_rr = results[results["method"] == "cl-rr"]["meta.relaxation_solver"].dropna()
    failures = failure_rows(results)
    body = "\n\n".join(part for part in [
        note,
        "## Accuracy and complexity (%) per strategy, beside the paper's Tables 2-5\n\n"
        "Complexity: relevant dummies (clusters, or categories for SVM_O, with a nonzero score) over the "
        "category dummies of the clustered features (`Ruleset.scorecard_complexity`). Std: sample standard "
        "deviation over the splits. Seconds are the final fit on the training split (build and solve: the "
        "strategy's main model, the SVM QP, the relaxation or the MIQP, its build and its solve; fit: "
        f"everything, the inner CV over C included). Relaxation solver of cl-rr: {', '.join(sorted(set(cl_rr))) or '-'}.\n\n"
        + markdown_table(summary_rows(results)),
        "## clm: the CL-bigM MIQP (SCIP, warm-started from SVM_C, per-feature big-M)\n\n"
        "status, termination, objective, bound, gap: the MIQP's solve report (the incumbent's objective; "
        "the fit keeps SVM_C's scorecard if the MIQP has none or a worse one). clm <= SVM_C compares the "
        "fit's final objective with SVM_C's on the same split.\n\n"
        + (markdown_table(clm_rows(results, limits)) or "not run"),
        ("## Fits that failed\n\n" + markdown_table(failures)) if failures else "",
        "## Acceptance checks (computed from the runs above)\n\n" + acceptance(results, limits),
    ] if part)
    write_report(out, "CLSVM strategies against Carrizosa et al., Tables 2-5", command, body + "\n")


def without_note(argv: list[str]) -> list[str]:
    """The command line without ``--note TEXT`` (the note is printed as the report's first paragraph)."""
    shown, skip = [], False
    for argument in argv:
        if skip:
            skip = False
        elif argument == "--note":
            skip = True
        elif not argument.startswith("--note="):
            shown.append(argument)
    return shown


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(TRAIN_SIZE),
                        help=f"datasets of Table 1 ({' '.join(TRAIN_SIZE)}), CSV paths, or names of CSV files "
                             "in --data-dir (with a manifest.json that gives their train_size)")
    add_data_arguments(parser, "where CSV datasets named by --datasets are")
    parser.add_argument("--rerun", action="store_true",
                        help="fit every dataset again (default: resume each from its RUNS/<dataset>/results.jsonl)")
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--strategies", nargs="+", default=list(STRATEGIES), choices=list(STRATEGIES))
    parser.add_argument("--clm-time-limit", type=float, default=300.0)
    parser.add_argument("--jobs", type=int, default=2, help="parallel fits (joblib loky workers)")
    parser.add_argument("--runs", default="benchmarks/results/clsvm_paper_runs",
                        help="the runner's output directories, one per dataset")
    parser.add_argument("--out", default="benchmarks/results/clsvm_paper.md", help="the markdown report")
    parser.add_argument("--note", default="", help="a paragraph put at the top of the report")
    parser.add_argument("--report-only", action="store_true", help="rebuild the report from the runs")
    args = parser.parse_args(argv)
    runs = Path(args.runs)
    if not args.report_only:
        datasets = [dataset_entry(spec, runs, args.data_dir) for spec in args.datasets]
        positives = parse_positive(args.positive)
        check_positive(positives, [d["name"] for d in datasets])
        for dataset in datasets:
            name = dataset["name"]
            if positive_of(positives, name) is not None:
                dataset["positive"] = positive_of(positives, name)
            logged = runs / name / "results.jsonl"
            resumed = "" if args.rerun or not logged.is_file() else f", resumed from {logged}"
            log(f"{name}: {args.splits} splits, {', '.join(args.strategies)}{resumed}")
            config = experiment(dataset, args.splits, args.strategies, args.clm_time_limit, args.jobs)
            results = run(config, out=runs / name, resume=not args.rerun, verbose=True)
            for strategy in args.strategies:
                mine = results[results["method"] == strategy]
                log(f"{name} {strategy}: accuracy {100 * mine['accuracy'].mean():.2f}, complexity "
                    f"{mine['complexity'].mean():.2f}, fit {mine['fit_seconds'].mean():.1f} s, "
                    f"statuses {({k: int(v) for k, v in mine['status'].fillna('-').value_counts().items()})}")
    results, limits = load_results(runs)
    command = "python benchmarks/clsvm_paper.py " + " ".join(without_note(sys.argv[1:] if argv is None else argv))
    report(results, limits, Path(args.out), command, args.note)


if __name__ == "__main__":
    main()
