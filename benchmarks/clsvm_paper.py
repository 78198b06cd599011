"""CLSVM strategies against the paper's Tables 2-5 (Carrizosa, Nogales-Gomez and Romero Morales), run by
the experiment runner.

Protocol, as far as the paper gives it (its Section 4 is cut in our copy): for each dataset, random
stratified splits with the training sizes of Table 1 (german 700, australian 500, car_evaluation
1200, mushroom 5000, adult 5000), the rest of the rows as the test set. The splits are the runner's
``kind = "splits"`` protocol with a per-dataset ``train_size``: scikit-learn's
``StratifiedShuffleSplit(splits, train_size=..., random_state=0)``. They differ from those of the
previous version of this script (``train_test_split(..., stratify=y, random_state=s)`` for split s)
except split 0, which ``train_test_split`` draws with the same splitter and seed. C is chosen on
the training data only (``C="cv"``: ``optrules.estimators.clsvm.C_GRID`` by 3-fold inner CV accuracy;
for ``clm`` the inner runs use ``svm-c``, its warm start). L = 2 clusters per feature, 10 randomized
roundings (cl-rr, clm-rr). car_evaluation is binarised as in the paper (30/70): ``unacc`` against the
rest, in a CSV the script writes next to the runs, so that the splits are stratified on the paper's
two classes; a CSV of more than two classes with a positive class in its manifest is binarised the
same way, so that it gives the figures of the same data by name.

Seeds: ``--seeds`` (default 0-4) refits every strategy whose fit draws random numbers with
``random_state`` = each seed on the same splits; every figure is then the mean over the seeds and
the splits. With ``C="cv"`` every strategy draws them: the inner CV's folds, and so the C chosen,
come from ``random_state``, and cl-rr and clm-rr round randomly besides
(``optrules.exact.clsvm.ROUNDING_STRATEGIES``). svm-o, svm-c and clm at a fixed C give the same
scorecard for every seed; a strategy the seed does not change (``seeded``) is fitted once, under the
first seed, and its spread over the seeds is reported as 0 (deterministic).

Every dataset and seed is one run of :func:`optrules.experiments.run` into
``RUNS/<dataset>/seed-<seed>/`` (``--runs``, default ``benchmarks/results/clsvm_paper_runs``) with
``resume=True``: every finished fit is in its ``results.jsonl`` at once, so an interrupted run
resumes where it stopped. ``clm`` and ``cl-rr`` fits run isolated, each in a child process with a
timeout (SCIP's heuristics aborted the process or hung on the 5,000-row MIQPs; clm's
``--clm-time-limit`` bounds its whole fit, the inner CV over C and the bound QPs included,
docs/methods/clsvm.md "Time limit"), and a fit that crashes, times out or raises is a row with its
status and error text (``on_error = "record"``). The methods are listed longest first (clm, cl-rr,
...) so that the two workers finish together. The figures come from the result table: accuracy,
balanced accuracy and F1, ``complexity`` (the CLSVM's ``Ruleset.meta["complexity"]``),
``fit_seconds``, the exact part's ``status``, ``objective``, ``bound``, ``gap``, ``fallback`` and
stage seconds, and the ``meta.*`` columns (C chosen, cl-rr's relaxation solver; for clm the MIQP's
termination and own objective, SVM_C's objective, the convex lower bound LB and the largest M_j).
Result tables written before those columns existed are read with the figures of their ``meta.*``
columns of the time. A dataset run before the script had seeds (``RUNS/<dataset>/results.csv``, no
``seed-*`` directory) is read as one seed: its strategies had the runner's ``random_state``, a
different one per split (``SeedSequence([0, split])``), and the report names those rows.

The markdown report (``--out``) is rebuilt from the ``results.csv`` of every dataset under RUNS (a
dataset appears once a run of it completed; ``--report-only`` rebuilds it without fitting): the
paper's values beside ours, accuracy and complexity (mean, sample std over the splits averaged over
the seeds, median over the splits of the seed means, and the sample std of the per-seed means), for
``clm`` each fit's status, objective, bound and gap against SVM_C's objective, then the acceptance.
Beside every row, on the same test splits: the accuracy of predicting the training split's majority
(positive vs rest) and the F1 of predicting every row positive (``benchmarks/acceptance.py``,
recomputed from the data and the runner's seeded splits, which the report checks against the stored
training and test sizes of every split), the strategy's F1, and its balanced accuracy with its
standard error over the splits (the seeds averaged per split first).

Acceptance per row: the checks of issue 4 that apply to it (SVM_O accuracy within 2 points of Table
2 on german, australian and car_evaluation; the complexity of every clustering strategy below SVM_O's
on german and australian and not above it elsewhere; clm's final objective never worse than SVM_C's
on the same split) and, on every row, balanced accuracy above 0.5 by more than its standard error
(``acceptance.beyond_prior``): a scorecard that predicts one class everywhere fails whatever its
accuracy.

Other data: ``--datasets`` also takes CSV files (paths, or names of files in ``--data-dir``) with a
``manifest.json`` beside them (``benchmarks/paper_data.py``). The protocol needs each one's training
rows per split, the manifest entry's ``"train_size"`` (a number of rows, or a fraction below 1; a
dataset without one is an error that says so), and its categorical features, the entry's
``"categorical"`` (without it: ``optrules.datasets.load_csv``'s typing, text columns categorical and
numeric columns numbers). Its label column is ``"label"`` (default ``class``) and its positive class
``"positive_class"`` (default: the runner's, the minority class). ``--positive`` (one ``VALUE`` or
``NAME=VALUE`` pairs) overrides the positive class of any dataset. Datasets without paper values are
reported with "-" in the paper columns.

The runner shows a progress bar over the fits on a terminal; a rerun resumes every dataset and seed
from its ``results.jsonl`` (``--rerun`` starts its log over).

    python benchmarks/clsvm_paper.py [--datasets german australian | data.csv] [--splits 10] \\
        [--strategies svm-o svm-c cl-rr clm-rr clm] [--seeds 0 1 2 3 4] [--clm-time-limit 300] [--jobs 2]
        [--report-only] [--data-dir DIR] [--positive VALUE | NAME=VALUE ...] [--rerun]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

import optrules
from optrules.exact.clsvm import ROUNDING_STRATEGIES
from optrules.experiments import run
from optrules.experiments.config import ConfigError

sys.path.insert(0, str(Path(__file__).parent))
from acceptance import (beyond_prior, fold_means, mean_spread, runner_splits, seed_configs,  # noqa: E402
                        seed_spread, standard_error, trivial_scores, verdict_of)
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)
from paper_data import (add_data_arguments, check_entry, check_positive, csv_dataset, entry_data,  # noqa: E402
                        is_bundled, parse_positive, positive_of)

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
#: the acceptance point of issue 4 on SVM_O's accuracy (points of %), on these datasets
SVM_O_TOLERANCE = 2.0
SVM_O_CHECKED = ("german", "australian", "car_evaluation")
#: issue 4: every clustering strategy's complexity below SVM_O's on these datasets, not above it elsewhere
STRICTLY_SIMPLER = ("german", "australian")
#: the learner's seeds (random_state): every figure is a mean over them, the splits fixed
SEEDS = (0, 1, 2, 3, 4)

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


def dataset_entry(spec: str, runs: Path, data_dir: Path | None,
                  positives: dict[str | None, str] | None = None) -> dict[str, Any]:
    """The runner's entry for a dataset of ``--datasets``: a dataset of Table 1 with its training size
    and positive class (car_evaluation as the binary unacc-vs-rest data set, written once to
    ``runs/data/``), else a CSV with its manifest's training size (a ``SystemExit`` naming the key
    when the entry has none). ``positives`` (``--positive``) overrides the positive class before a
    multi-class dataset is made binary; a positive class that is no label, or a CSV named like a
    dataset of Table 1 whose size is not that dataset's, is a ``SystemExit`` (``check_entry``)."""
    positives = positives or {}
    if spec not in TRAIN_SIZE:
        if is_bundled(spec, data_dir):
            raise SystemExit(f"clsvm_paper.py: {spec!r} is bundled but not a dataset of Table 1 "
                             f"({', '.join(TRAIN_SIZE)}), so it has no training size: write it as a CSV with "
                             f"a manifest.json entry that gives \"train_size\"")
        entry, manifest, _ = csv_dataset(spec, data_dir)
        if manifest.get("train_size") is None:
            raise SystemExit(f"clsvm_paper.py: dataset {entry['name']!r} has no training size: the CLSVM protocol "
                             f"needs \"train_size\" (rows per training split, or a fraction below 1) in its "
                             f"entry of {Path(entry['path']).parent / 'manifest.json'}")
        entry = {**entry, "train_size": manifest["train_size"]}
        if positive_of(positives, entry["name"]) is not None:
            entry["positive"] = positive_of(positives, entry["name"])
        if entry.get("positive") is None:
            check_entry(entry, TRAIN_SIZE)
            return entry
        X, y = entry_data(entry)
        check_entry(entry, TRAIN_SIZE, y)
        return binarised(entry, X, y, runs)
    is_bundled(spec, data_dir)  # a different file of this name in --data-dir is an error, never used silently
    name = spec
    entry: dict[str, Any] = {"name": name, "positive": positive_of(positives, name) or POSITIVE[name],
                             "train_size": TRAIN_SIZE[name]}
    check_entry(entry, TRAIN_SIZE)
    if name != "car_evaluation":
        return entry
    X, y = optrules.load(name)
    return binarised({**entry, "categorical": list(X.columns)}, X, y, runs)


def binarised(entry: dict[str, Any], X: Any, y: Any, runs: Path) -> dict[str, Any]:
    """A dataset of more than two classes as the binary positive-vs-rest data set, written once to
    ``runs/data/``, so that its splits are stratified on the two classes the CLSVM learns (the paper's
    car_evaluation: unacc against the rest), whether it came by name or from a CSV; a two-class
    dataset as it is."""
    labels = y.astype(str)
    if labels.nunique() <= 2:
        return entry
    positive = str(entry["positive"])
    path = runs / "data" / f"{entry['name']}_{positive}.csv.gz"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        X.assign(**{"class": labels.where(labels == positive, "rest")}).to_csv(path, index=False)
    return {**entry, "path": str(path.resolve()), "label": "class"}


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
    """The configuration of one dataset's run (``dataset``: its runner entry, ``dataset_entry``), before
    the seeds are set (``seed_configs``)."""
    return {
        "title": f"CLSVM strategies on {dataset['name']} (Carrizosa et al., Tables 2-5)",
        "protocol": {"kind": "splits", "repeats": splits, "seed": 0},
        "datasets": [dataset],
        "methods": [method_entry(s, clm_time_limit) for s in RUN_ORDER if s in strategies],
        "meta": META,
        "parallel": {"backend": "loky", "jobs": jobs, "on_error": "record"},
    }


def seeded(method: Mapping[str, Any]) -> bool:
    """Whether a strategy's fit depends on its ``random_state``: the randomized roundings always, and
    every strategy whose C is chosen by inner cross-validation (``C="cv"`` draws the inner folds from
    it). svm-o, svm-c and clm at a fixed C give the same scorecard for every seed."""
    return method["name"] in ROUNDING_STRATEGIES or method.get("params", {}).get("C") == "cv"


def seed_directory(runs: Path, name: str, seed: int) -> Path:
    """Where the runner writes dataset ``name``'s run under ``seed``."""
    return runs / name / f"seed-{seed}"


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


@dataclass(frozen=True)
class Stored:
    """What the report needs of one dataset's runs besides their rows: clm's time limit, the
    strategies the seed does not change, the seeds run (None: one run made before the script had
    seeds), and the trivial models' scores on its splits (None when the splits could not be
    recomputed, ``trivial_note`` saying why)."""

    clm_limit: float | None
    deterministic: frozenset[str]
    seeds: tuple[int, ...] | None
    trivial: dict[str, float] | None
    trivial_note: str


def _read_table(path: Path) -> pd.DataFrame:
    return _current_columns(pd.read_csv(path, dtype={"solver": object, "status": object, "error": object}))


def stored_config(directory: Path, runs: Path) -> dict[str, Any]:
    """The resolved configuration of the run in ``directory``, its CSV datasets read from
    ``runs/data/`` when the path it names is gone (the runs were made in another checkout)."""
    config = json.loads((directory / "config.json").read_text())
    for dataset in config["datasets"]:
        if "path" in dataset and not Path(dataset["path"]).is_file():
            moved = runs / "data" / Path(dataset["path"]).name
            if moved.is_file():
                dataset["path"] = str(moved.resolve())
    return config


def trivial_of(config: dict[str, Any], name: str, results: pd.DataFrame) -> tuple[dict[str, float] | None, str]:
    """The trivial models' scores on dataset ``name``'s splits, recomputed from the data and the
    runner's seeded splits of ``config``, provided every split has the training and test sizes
    ``results`` stored for it; else None and the reason."""
    try:
        splits = runner_splits(config, name)
    except (ConfigError, OSError) as error:  # the data cannot be read any more
        return None, f"the data cannot be read again: {error}"
    stored = results.groupby("fold")[["n_train", "n_test"]].first().astype(int)
    recomputed = {fold: (len(train), len(test)) for fold, (train, test) in enumerate(splits.folds)}
    if any(recomputed.get(fold) != (row.n_train, row.n_test) for fold, row in stored.iterrows()):
        return None, "the recomputed splits do not have the stored training and test sizes"
    folds = [splits.folds[fold] for fold in stored.index]
    return trivial_scores(splits.labels, folds, splits.positive), ""


def load_results(runs: Path, seeds: Sequence[int] | None = None) -> tuple[pd.DataFrame, dict[str, Stored]]:
    """Every completed dataset run under ``runs``, with a ``seed`` column (empty for a run made
    before the script had seeds): the rows (datasets in Table 1's order, then the others by name),
    and what the report needs besides them per dataset (``Stored``). A dataset with runs of its own
    seeds (``seed-*``) is read from those only, and only from ``seeds`` when given (a run's report
    is of the seeds it was asked for, not of seeds an earlier run left in ``runs``)."""
    frames, stored = [], {}
    others = sorted(d.name for d in runs.glob("*") if d.is_dir() and d.name not in TRAIN_SIZE) if runs.is_dir() else []
    for name in [*TRAIN_SIZE, *others]:
        seeded_runs = sorted((int(d.name.removeprefix("seed-")), d) for d in (runs / name).glob("seed-*")
                             if (d / "results.csv").is_file()
                             and (seeds is None or int(d.name.removeprefix("seed-")) in seeds))
        if seeded_runs:
            table = pd.concat([_read_table(d / "results.csv").assign(seed=seed) for seed, d in seeded_runs],
                              ignore_index=True)
            seeds, first = tuple(seed for seed, _ in seeded_runs), seeded_runs[0][1]
        elif (runs / name / "results.csv").is_file():
            table, seeds, first = _read_table(runs / name / "results.csv").assign(seed=pd.NA), None, runs / name
        else:
            continue
        table["seed"] = table["seed"].astype("Int64")
        config = stored_config(first, runs)
        directories = [d for _, d in seeded_runs] or [first]  # clm may have run under another seed than the first
        limits = [float(m["solver_options"]["time_limit"]) for d in directories
                  for m in stored_config(d, runs)["methods"] if m["name"] == "clm"]
        trivial, note = trivial_of(config, name, table)
        stored[name] = Stored(limits[0] if limits else None,
                              frozenset(m["label"] for m in config["methods"] if not seeded(m)), seeds, trivial, note)
        frames.append(table)
    return (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()), stored


def succeeded(results: pd.DataFrame) -> pd.DataFrame:
    failed = results["status"].isin(["error", "crashed", "timeout"])
    return results[~failed]


def figures(rows: pd.DataFrame, column: str, scale: float = 1.0) -> tuple[float, float, float]:
    """Mean over seeds and splits, sample std over the splits (averaged over the seeds) and median
    over the splits of the seed means of ``column`` times ``scale`` (NaN without rows)."""
    if rows.empty:
        return (float("nan"),) * 3
    scaled = rows.assign(**{column: scale * rows[column].astype(float)})
    mean, split_sd, _ = mean_spread(scaled, column)
    return mean, 0.0 if np.isnan(split_sd) else split_sd, float(np.median(fold_means(scaled, column)))


def C_counts(values: pd.Series) -> str:
    """The C chosen over the fits, as "C: fits" from the most often chosen."""
    return ", ".join(f"{C:g}: {n}" for C, n in values.value_counts().items())


def seeds_cell(rows: pd.DataFrame, strategy: str, info: Stored) -> str:
    if strategy in info.deterministic:
        return "1 (deterministic)"
    if info.seeds is None:
        return "1 (runner's per-split seeds)"
    return str(rows["seed"].nunique())


def row_checks(name: str, strategy: str, rows: pd.DataFrame, svm_o: pd.DataFrame) -> list[tuple[str, bool]]:
    """The acceptance checks of one (dataset, strategy) row of successful fits ``rows`` (``svm_o``: the
    same dataset's svm-o rows): those of issue 4 that apply to it, then balanced accuracy beyond the
    class prior."""
    checks = []
    if strategy == "svm-o" and name in SVM_O_CHECKED:
        paper = PAPER["svm-o"][PAPER_NAME[name]][0]
        checks.append(("accuracy", abs(100 * rows["accuracy"].mean() - paper) <= SVM_O_TOLERANCE))
    if strategy != "svm-o" and not svm_o.empty:
        ours, reference = rows["complexity"].mean(), svm_o["complexity"].mean()
        checks.append(("complexity", ours < reference if name in STRICTLY_SIMPLER else ours <= reference))
    if strategy == "clm":
        checks.append(("objective vs SVM_C", bool((rows["objective"] <= rows["meta.start_objective"] + 1e-7).all())))
    checks.append(("balanced accuracy", beyond_prior(fold_means(rows, "balanced_accuracy"))[2]))
    return checks


def summary_rows(results: pd.DataFrame, stored: dict[str, Stored]) -> list[dict]:
    rows = []
    ok = succeeded(results)
    for name in dict.fromkeys(results["dataset"]):
        info = stored[name]
        trivial = info.trivial or {}
        svm_o = ok[(ok["dataset"] == name) & (ok["method"] == "svm-o")]
        for strategy in STRATEGIES:
            every = results[(results["dataset"] == name) & (results["method"] == strategy)]
            mine = succeeded(every)
            if every.empty:
                continue
            failed = len(every) - len(mine)
            accuracy, complexity = figures(mine, "accuracy", 100.0), figures(mine, "complexity")
            balanced, balanced_se = (beyond_prior(fold_means(mine, "balanced_accuracy"))[:2] if len(mine)
                                     else (float("nan"), float("nan")))
            paper = PAPER[strategy].get(PAPER_NAME.get(name))
            rows.append({
                "dataset": name, "strategy": strategy, "seeds": seeds_cell(mine, strategy, info),
                "splits": f"{mine['fold'].nunique()}" + (f" (+{failed} failed fits)" if failed else ""),
                "acc mean": accuracy[0], "acc std": accuracy[1], "acc med": accuracy[2],
                "acc [seeds]": seed_spread(mine, "accuracy", strategy in info.deterministic, 100.0, 2),
                "paper acc (mean/std/med)": "-" if paper is None else f"{paper[0]:.2f} / {paper[1]:.2f} / {paper[2]:.2f}",
                "majority acc": 100 * trivial.get("majority accuracy", float("nan")),
                "balanced acc (SE)": f"{100 * balanced:.2f} ({100 * balanced_se:.2f})",
                "F1": mine["f1"].mean(), "all-positive F1": trivial.get("all-positive F1", float("nan")),
                "cx mean": complexity[0], "cx std": complexity[1], "cx med": complexity[2],
                "paper cx (mean/std/med)": "-" if paper is None else f"{paper[3]:.2f} / {paper[4]:.2f} / {paper[5]:.2f}",
                "C chosen": C_counts(mine["meta.C"]),
                "fit s": mine["fit_seconds"].mean(), "build s": mine["build_seconds"].mean(),
                "solve s": mine["solve_seconds"].mean(),
                "acceptance": verdict_of(row_checks(name, strategy, mine, svm_o)) if len(mine) else "FAIL (no fit)",
            })
    return rows


def _number(value: Any) -> float:
    return float("nan") if value is None or pd.isna(value) else float(value)


def _seed(value: Any) -> str:
    return "-" if pd.isna(value) else str(int(value))


def clm_rows(results: pd.DataFrame, stored: dict[str, Stored]) -> list[dict]:
    rows = []
    order = {name: k for k, name in enumerate(dict.fromkeys(results["dataset"]))}  # the datasets' order
    fits = results[results["method"] == "clm"].sort_values(
        ["dataset", "fold", "seed"], key=lambda column: column.map(order) if column.name == "dataset" else column)
    for _, r in fits.iterrows():
        failed = r["status"] in ("error", "crashed", "timeout")
        not_worse = "-" if failed else bool(r["objective"] <= r["meta.start_objective"] + 1e-7)
        limit = stored[r["dataset"]].clm_limit
        rows.append({"dataset": r["dataset"], "split": int(r["fold"]), "seed": _seed(r["seed"]),
                     "C": _number(r["meta.C"]), "limit s": float("nan") if limit is None else limit,
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
    return [{"dataset": r["dataset"], "strategy": r["method"], "split": int(r["fold"]), "seed": _seed(r["seed"]),
             "status": r["status"], "seconds": _number(r["fit_seconds"]),
             "error": str(r["error"])[:300].replace("|", "/").replace("\n", " ")}
            for _, r in failed.iterrows()]


def acceptance(results: pd.DataFrame, summary: list[dict], stored: dict[str, Stored]) -> str:
    """The verdict of every row, then the figures behind issue 4's checks."""
    lines = [f"- {r['dataset']} / {r['strategy']}: {r['acceptance']} (accuracy {r['acc mean']:.2f}, paper "
             f"{r['paper acc (mean/std/med)'].split(' / ')[0]}; balanced accuracy {r['balanced acc (SE)']})"
             for r in summary]
    passed = sum(r["acceptance"] == "pass" for r in summary)
    lines.insert(0, f"{passed} of {len(summary)} rows pass.\n")
    ok = succeeded(results)

    def of(name: str, strategy: str) -> pd.DataFrame:
        return ok[(ok["dataset"] == name) & (ok["method"] == strategy)]

    lines.append("")
    for name in SVM_O_CHECKED:
        mine = of(name, "svm-o")
        if mine.empty:
            continue
        ours, paper = 100 * mine["accuracy"].mean(), PAPER["svm-o"][PAPER_NAME[name]][0]
        error = 100 * standard_error(fold_means(mine, "accuracy"))
        verdict = "within" if abs(ours - paper) <= SVM_O_TOLERANCE else "NOT within"
        lines.append(f"- SVM_O accuracy on {name}: {ours:.2f} (standard error {error:.2f} over "
                     f"{mine['fold'].nunique()} splits) vs the paper's {paper:.2f}: {verdict} {SVM_O_TOLERANCE:g} points")
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
    clm = clm_rows(results, stored)
    for name in dict.fromkeys(results["dataset"]):
        fits = [r for r in clm if r["dataset"] == name]
        if not fits:
            continue
        solved = [r for r in fits if r["clm <= SVM_C"] != "-"]
        statuses = pd.Series([r["status"] for r in fits]).value_counts()
        worse = sum(not r["clm <= SVM_C"] for r in solved)
        gaps = [r["gap %"] for r in solved if r["gap %"] == r["gap %"]]
        limit = stored[name].clm_limit
        lines.append(f"- clm on {name} (limit {limit:g} s): {len(fits)} fits, "
                     + ", ".join(f"{n} {status}" for status, n in statuses.items())
                     + (f"; gap {min(gaps):.3f}-{max(gaps):.3f}%" if gaps else "")
                     + f"; final objective worse than SVM_C's on {worse} of {len(solved)}")
    return "\n".join(lines)


def seeds_note(stored: dict[str, Stored]) -> str:
    """Which rows are means over seeds, which come from one seed only."""
    seeded_runs = {name: info.seeds for name, info in stored.items() if info.seeds is not None}
    single = [name for name, info in stored.items() if info.seeds is None]
    deterministic = sorted({s for info in stored.values() for s in info.deterministic})
    parts = []
    if seeded_runs:
        parts.append("Means over the seeds of the strategies (random_state; the splits fixed): "
                     + "; ".join(f"{name} seeds {', '.join(map(str, seeds))}" for name, seeds in seeded_runs.items())
                     + ". [seeds] is the sample std of the per-seed means.")
    if single:
        parts.append(f"**One seed only: every row of {', '.join(single)}.** These runs were made before the "
                     "script had seeds: each strategy had the runner's random_state, a different one per split "
                     "(SeedSequence([0, split])), and their spread over seeds is not measured ([seeds] '-').")
    if deterministic:
        parts.append(f"Fitted once, the seed not changing them: {', '.join(deterministic)} ([seeds] 0).")
    return " ".join(parts)


def report(results: pd.DataFrame, stored: dict[str, Stored], out: Path, command: str, note: str) -> None:
    cl_rr = results[results["method"] == "cl-rr"]["meta.relaxation_solver"].dropna()
    failures = failure_rows(results)
    summary = summary_rows(results, stored)
    missing = [f"{name} ({info.trivial_note})" for name, info in stored.items() if info.trivial is None]
    body = "\n\n".join(part for part in [
        note,
        "## Accuracy and complexity (%) per strategy, beside the paper's Tables 2-5\n\n"
        "Complexity: relevant dummies (clusters, or categories for SVM_O, with a nonzero score) over the "
        "category dummies of the clustered features (`Ruleset.scorecard_complexity`). Mean: over the seeds "
        "and the splits; std: sample standard deviation over the splits, averaged over the seeds; med: "
        "median over the splits of the seed means. " + seeds_note(stored) + " Beside each row, on the same "
        "test splits (positive class vs the rest): majority acc, the accuracy of predicting the training "
        "split's more frequent class everywhere; all-positive F1, the F1 of predicting the positive class "
        "everywhere; the strategy's F1 and balanced accuracy (standard error over the splits: the sample "
        "std of the per-split values, each averaged over the seeds, over sqrt(splits)). The trivial scores "
        "are recomputed from the data and the runner's seeded splits (checked against the stored training "
        "and test sizes of every split)"
        + (f"; not available for {', '.join(missing)}" if missing else "") + ". "
        "Acceptance: issue 4's checks that apply to the row (svm-o on german, australian and car_evaluation: "
        f"accuracy within {SVM_O_TOLERANCE:g} points of Table 2; every other strategy: complexity below "
        "svm-o's on german and australian, not above it elsewhere; clm: final objective never worse than "
        "SVM_C's) and, on every row, balanced accuracy above 50 by more than its standard error (a "
        "scorecard that predicts one class everywhere has 50). Seconds are the final fit on the training "
        "split (build and solve: the strategy's main model, the SVM QP, the relaxation or the MIQP, its "
        "build and its solve; fit: everything, the inner CV over C included). Relaxation solver of cl-rr: "
        f"{', '.join(sorted(set(cl_rr))) or '-'}.\n\n"
        + markdown_table(summary),
        "## clm: the CL-bigM MIQP (SCIP, warm-started from SVM_C, per-feature big-M)\n\n"
        "status, termination, objective, bound, gap: the MIQP's solve report (the incumbent's objective; "
        "the fit keeps SVM_C's scorecard if the MIQP has none or a worse one). clm <= SVM_C compares the "
        "fit's final objective with SVM_C's on the same split and seed.\n\n"
        + (markdown_table(clm_rows(results, stored)) or "not run"),
        ("## Fits that failed\n\n" + markdown_table(failures)) if failures else "",
        "## Acceptance (computed from the runs above)\n\n" + acceptance(results, summary, stored),
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
                        help="fit every dataset again (default: resume each seed's run from its "
                             "RUNS/<dataset>/seed-<seed>/results.jsonl)")
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--strategies", nargs="+", default=list(STRATEGIES), choices=list(STRATEGIES))
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS),
                        help="random_state values of the strategies that draw random numbers (with C chosen by "
                             f"inner CV: all of them), each refitted on the same splits (default "
                             f"{' '.join(map(str, SEEDS))}); every figure is the mean over them")
    parser.add_argument("--clm-time-limit", type=float, default=300.0)
    parser.add_argument("--jobs", type=int, default=2, help="parallel fits (joblib loky workers)")
    parser.add_argument("--runs", default="benchmarks/results/clsvm_paper_runs",
                        help="the runner's output directories, one per dataset and seed")
    parser.add_argument("--out", default="benchmarks/results/clsvm_paper.md", help="the markdown report")
    parser.add_argument("--note", default="", help="a paragraph put at the top of the report")
    parser.add_argument("--report-only", action="store_true", help="rebuild the report from the runs")
    args = parser.parse_args(argv)
    runs = Path(args.runs)
    if not args.report_only:
        positives = parse_positive(args.positive)
        datasets = [dataset_entry(spec, runs, args.data_dir, positives) for spec in args.datasets]
        check_positive(positives, [d["name"] for d in datasets])
        for dataset in datasets:
            name = dataset["name"]
            config = experiment(dataset, args.splits, args.strategies, args.clm_time_limit, args.jobs)
            for seed, seed_config in seed_configs(config, args.seeds, seeded):
                directory = seed_directory(runs, name, seed)
                logged = directory / "results.jsonl"
                resumed = "" if args.rerun or not logged.is_file() else f", resumed from {logged}"
                strategies = [m["name"] for m in seed_config["methods"]]
                log(f"{name} seed {seed}: {args.splits} splits, {', '.join(strategies)}{resumed}")
                results = run(seed_config, out=directory, resume=not args.rerun, verbose=True)
                for strategy in strategies:
                    mine = results[results["method"] == strategy]
                    log(f"{name} seed {seed} {strategy}: accuracy {100 * mine['accuracy'].mean():.2f}, complexity "
                        f"{mine['complexity'].mean():.2f}, fit {mine['fit_seconds'].mean():.1f} s, "
                        f"statuses {({k: int(v) for k, v in mine['status'].fillna('-').value_counts().items()})}")
    results, stored = load_results(runs, None if args.report_only else args.seeds)
    command = "python benchmarks/clsvm_paper.py " + " ".join(without_note(sys.argv[1:] if argv is None else argv))
    report(results, stored, Path(args.out), command, args.note)


if __name__ == "__main__":
    main()
