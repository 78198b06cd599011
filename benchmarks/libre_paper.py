"""LIBRE against the paper's UCI results (Mita et al., Section 4 protocol, Appendix E Tables 7-9),
run by the experiment runner with its nested selection (the ``tune`` step).

The script builds a configuration dict per dataset and calls :func:`optrules.experiments.run`; the
table below is made from the returned rows (``f1``, ``n_rules``, ``avg_atoms`` and the ``tune.*``
columns of the chosen configurations). See docs/experiments.md, "Nested selection: the tune step".

Protocol (Section 4): outer stratified 5-fold CV (the runner's ``kfold`` protocol, seed 0); positive
class = the dataset's. Two methods, ``libre`` and ``libre 3``, both LIBRE tuned on every outer
training fold over the paper's grid E (``n_estimators``) in {5, 20, 50} x heuristic in {H1, H2} x
ChiMerge threshold in {6, 4.6, 4} x alpha in {.5, .7, .9}, with ``conflicts="majority"``
(``--conflicts``; docs/methods/libre.md) and no top-K filter. Datasets of at most 10,000 rows add a
dimension of our own, ``max_features`` in {2, 3, 5} ("each weak learner uses up to 5 features"), cap
ChiMerge at ``max_intervals = 3`` and use 5 inner folds (162 configurations; until 2026-12-04 also
``max_intervals`` none, 324: docs/methods/libre.md, "Where the shortfall on new data comes from").
Larger ones (adult, bank) keep 5 features and no ``max_intervals``, E in {5, 20}
(``--large-estimators``) and 3 inner folds (36 configurations), on the whole outer training fold
(``--large-train N`` subsamples it). ``--max-features``, ``--max-intervals``, ``--inner-folds`` and
``--tolerance`` override these for every dataset.
Every configuration is run once per seed of the learner (``random_state`` in ``--seeds``, default
0-4; the outer and inner folds stay those of seed 0) with ``n_jobs = 1``; every figure is the mean
over the seeds and the outer folds, shown as mean (sample std over the folds, averaged over the
seeds) [sample std of the per-seed means].

Acceptance (a row of a dataset with paper values): mean F1 >= paper - 0.03, mean #rules <=
max(1.5 x paper, paper + 3), and balanced accuracy above 0.5 by more than its standard error over
the outer folds (``benchmarks/acceptance.py``), so that a near-constant model cannot pass on F1
alone. Beside each row: the F1 of predicting every row positive and the accuracy of predicting the
training fold's majority, on the same test folds. ``--baselines`` also adds a depth-5 scikit-learn
tree (fixed, not tuned) on the same folds; on a dataset without paper values it is the bar (the
confirmation sets' acceptance of docs/methods/libre.md): mean F1 >= the tree's - 0.03, and the same
balanced-accuracy check.

Datasets: ``--datasets`` takes bundled names (default: the seven of the paper's tables that are
bundled), CSV files in the bundled format (label column ``class``), or names of such files in
``--data-dir`` (default ``../shared/data`` beside the checkout); a ``manifest.json`` beside a CSV
gives its label column, categorical columns and positive class (without one: column ``class``, the
paper's target class or the minority class). The paper's values for all 13 of its UCI datasets are
here (Adult, Australian, Balance, Bank, Haberman, Heart, Ilpd, Liver, Pima, Sonar, Tictactoe,
Transfusion, Wisconsin; not its proprietary Sap sets): a dataset is checked against one of them when
its name matches (``paper_row``) and its number of rows is within 5% of Table 6's
(``checked_row``); other datasets are reported without acceptance. A dataset checked against the
paper's Heart reads ``number_of_major_vessels`` as a number, as the paper does (``PAPER_NUMERIC``),
whatever its manifest says. The report goes to
``results/libre_paper.md`` only for the default datasets (``default_out``).

Alpha: with ``conflicts="strict"`` a LIBRE weak learner's points cover no training negative, so every
candidate's greedy weight is ``alpha * (positives it still covers)``: alpha scales all weights by the
same factor and cannot change the greedy choice, and the grid is collapsed to alpha = 0.7. The script
checks once per dataset (fold 0, outside the runner) that alpha .5 and .9 give the same rules as .7.
With ``conflicts="majority"`` (the default here) alpha decides which class a shared binned row goes
to, so the full alpha grid is searched.

Number of rules: the greedy cover only stops when the positives run out, hence ``max_rules`` is
chosen too, by the tune step's prefix scoring (``prefix = "max_rules"``): the greedy rules are in
selection order, so the model ``max_rules=k`` is the first k rules of the unlimited fit, and every k
is scored from one inner fit (tests/test_experiments.py checks this against refits for every
prefix-capable method).

Selection (training fold only): inner ``StratifiedKFold(inner folds, shuffle=True,
random_state=0)``; mean inner F1 per (configuration, k); among the (configuration, k) whose mean F1
is at least best mean - margin, the smallest k, then the highest mean inner F1, then grid order. The
margin (``--tolerance``) is 0 on datasets of at most 10,000 rows (the best mean inner F1, ties to the
fewest rules; until 2026-12-04 one standard error there too) and one standard error on larger ones
(``se``: SE = sample std / sqrt(folds) of the best's inner F1s; a number: that F1 difference;
``--pooling pooled`` scores the F1 of the counts summed over the inner validation splits, SE by
jackknife). Grid order (E 5, 20, 50 first, so the smallest E; then H1 before H2,
threshold 6, 4.6, 4, ...) -- ``prefer = ["max_rules", "-score"]``; "tied" is the number of near-ties
still tied after k and F1 (the runner's ``tune.ties``). Then refit on the whole outer training fold
with the chosen configuration and ``max_rules=k``; score on the outer test fold. "libre 3" (``--libre3 fixed``, the
default) is LIBRE with ``max_rules = 3``, as the paper defines it ("constrained to generate at most 3
rules"; the greedy stops earlier only when no candidate has a positive weight): k is not tuned
(``min_prefix = max_prefix = 3``) and the configuration with the best mean inner F1 is chosen (with
k fixed there is no simpler candidate for a one-SE rule to prefer; ties: grid order).
``--libre3 tuned`` instead tunes k <= 3 like libre's k (the protocol of the results before
2026-11-30: it chose 1-2 rules on most folds). The two methods share their inner fits (the runner
fits identical ones once).

Candidate filter: ``--top-k none`` (the default) fits LIBRE without the top-K filter, as the paper's
own parameter study does (Appendix C; the paper applies the filter "eventually", to save time); on
large data the filter keeps only the most specific points (docs/methods/libre.md). ``--top-k 200``
is the estimator's default.

``--oracle`` adds a diagnostic column, "F1 peeking": every configuration of the grid fitted on
every outer training fold and scored on the outer test folds, the best mean over the folds (k >= 1
for libre; k = 3 for libre 3, k <= 3 with ``--libre3 tuned``). It is not an estimate (it chooses by
looking at the test folds), nor a ceiling (the nested selection may choose differently on each
fold); it shows what one configuration fixed in advance reaches when chosen on the test folds.

``--baselines`` adds scikit-learn's decision tree and random forest, tuned by ``GridSearchCV`` on the
same outer training folds with the paper's grids (``baselines()``), beside the paper's dt and rf
columns of Table 7: a reference on any dataset, including those without paper values.

``--positive VALUE`` (every dataset) or ``--positive NAME=VALUE ...`` (per dataset) overrides the
positive class (``benchmarks/paper_data.py``). Each dataset's rows and checks are written to
``RUNS/<dataset>.json`` (``--runs``, default the report's path without ``.md`` plus ``_runs``) as soon
as it finished, with its configuration; a rerun with the same configuration and flags reads them
instead of fitting again (``--rerun`` fits again), so a stopped run keeps the datasets it finished;
within a dataset, every finished fit is logged in ``RUNS/<dataset>.fits/seed-<seed>/`` and a rerun
resumes from there.
The runner shows a progress bar over the fits on a terminal.

    python benchmarks/libre_paper.py [--quick] [--datasets pima haberman ilpd.csv.gz] [--data-dir DIR]
        [--jobs 2] [--conflicts majority] [--max-features 2 3 5] [--max-intervals none 3]
        [--inner-folds 5] [--tolerance se] [--top-k none] [--large-train all] [--large-estimators 5 20]
        [--libre3 fixed] [--oracle] [--baselines] [--seeds 0 1 2 3 4] [--out FILE.md]
        [--positive VALUE | NAME=VALUE ...] [--runs DIR] [--rerun]
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import shlex
import sys
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import optrules
from optrules.experiments import load_config, run
from optrules.experiments.run import _positive
from optrules.experiments.resume import LOG_NAME
from optrules.experiments.tune import InnerTask, inner_scores, stack_scores
from optrules.estimators import LibreClassifier

sys.path.insert(0, str(Path(__file__).parent))
from acceptance import (beyond_prior, fold_means, mean_spread, trivial_scores,  # noqa: E402  (benchmarks/acceptance.py)
                        verdict_of)
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)
from paper_data import (add_results_arguments, check_entry, check_positive, done, find_csv, is_bundled,  # noqa: E402
                        manifest_entry, parse_positive, positive_of, save)

MAX_FEATURES = 5
ALPHA = 0.7
ALPHAS = (0.5, 0.7, 0.9)
ESTIMATORS = (5, 20, 50)
LARGE_ESTIMATORS = (5, 20)
HEURISTICS = ("H1", "H2")
THRESHOLDS = (6.0, 4.6, 4.0)
SEED = 0
#: The learner's seeds (``random_state``, the weak learners' feature subsets): every figure is a mean
#: over them, the outer and inner folds staying those of seed 0.
SEEDS = (0, 1, 2, 3, 4)
LIBRE3_MAX = 3
LABELS = ("libre", "libre 3")

#: The paper's libre and libre 3 columns, Appendix E: F1 from Table 7, #rules from Table 8, atoms per
#: rule from Table 9 (mean, st. dev.), the F1 of its scikit-learn dt and rf (Table 7), and the number
#: of records and the target class of Table 6, for its 13 UCI datasets, keyed by the paper's names in lower case. Pima's libre 3
#: F1 is printed "..64(.05)".
PAPER = {
    "adult": {"records": 48842, "target": ">50k", "dt": (0.68, 0.01), "rf": (0.68, 0.01),
              "libre": {"f1": (0.70, 0.01), "rules": (14.0, 2.1), "atoms": (7.8, 1.0)},
              "libre 3": {"f1": (0.62, 0.01), "rules": (3.0, 0.0), "atoms": (6.5, 0.7)}},
    "australian": {"records": 690, "target": "2", "dt": (0.84, 0.02), "rf": (0.86, 0.02),
                   "libre": {"f1": (0.84, 0.03), "rules": (2.4, 1.4), "atoms": (4.4, 1.8)},
                   "libre 3": {"f1": (0.84, 0.03), "rules": (2.2, 0.7), "atoms": (4.4, 1.3)}},
    "balance": {"records": 625, "target": "B", "dt": (0.01, 0.03), "rf": (0.00, 0.00),
                "libre": {"f1": (0.16, 0.08), "rules": (9.0, 3.0), "atoms": (2.1, 0.0)},
                "libre 3": {"f1": (0.14, 0.06), "rules": (1.0, 0.0), "atoms": (2.1, 0.0)}},
    "bank": {"records": 45211, "target": "yes", "dt": (0.50, 0.01), "rf": (0.50, 0.01),
             "libre": {"f1": (0.55, 0.01), "rules": (15.0, 1.1), "atoms": (4.7, 0.5)},
             "libre 3": {"f1": (0.44, 0.01), "rules": (2.0, 0.6), "atoms": (2.0, 0.1)}},
    "haberman": {"records": 306, "target": "died", "dt": (0.36, 0.08), "rf": (0.26, 0.07),
                 "libre": {"f1": (0.41, 0.04), "rules": (1.6, 0.8), "atoms": (2.1, 0.3)},
                 "libre 3": {"f1": (0.41, 0.04), "rules": (1.6, 0.8), "atoms": (2.1, 0.3)}},
    "heart": {"records": 270, "target": "presence", "dt": (0.71, 0.01), "rf": (0.79, 0.07),
              "libre": {"f1": (0.77, 0.06), "rules": (10.6, 3.0), "atoms": (7.7, 0.7)},
              "libre 3": {"f1": (0.75, 0.02), "rules": (2.8, 0.4), "atoms": (6.1, 2.7)}},
    "ilpd": {"records": 583, "target": "liver patient", "dt": (0.42, 0.1), "rf": (0.44, 0.08),
             "libre": {"f1": (0.54, 0.06), "rules": (4.4, 2.3), "atoms": (3.3, 1.5)},
             "libre 3": {"f1": (0.52, 0.04), "rules": (2.2, 0.4), "atoms": (3.0, 0.6)}},
    "liver": {"records": 345, "target": "drinks>2", "dt": (0.56, 0.1), "rf": (0.58, 0.07),
              "libre": {"f1": (0.60, 0.07), "rules": (3.4, 1.9), "atoms": (2.5, 1.0)},
              "libre 3": {"f1": (0.63, 0.06), "rules": (2.8, 0.4), "atoms": (1.3, 0.4)}},
    "pima": {"records": 768, "target": "1", "dt": (0.6, 0.01), "rf": (0.63, 0.04),
             "libre": {"f1": (0.64, 0.05), "rules": (1.6, 1.0), "atoms": (2.5, 0.7)},
             "libre 3": {"f1": (0.64, 0.05), "rules": (1.6, 1.0), "atoms": (2.5, 0.7)}},
    "sonar": {"records": 208, "target": "R", "dt": (0.75, 0.05), "rf": (0.83, 0.05),
              "libre": {"f1": (0.79, 0.03), "rules": (6.6, 1.2), "atoms": (3.7, 1.0)},
              "libre 3": {"f1": (0.76, 0.04), "rules": (1.1, 0.2), "atoms": (2.2, 0.8)}},
    "tictactoe": {"records": 958, "target": "positive", "dt": (0.97, 0.01), "rf": (0.99, 0.01),
                  "libre": {"f1": (1.00, 0.00), "rules": (9.0, 1.1), "atoms": (3.8, 0.8)},
                  "libre 3": {"f1": (0.68, 0.04), "rules": (3.0, 0.0), "atoms": (3.0, 0.0)}},
    "transfusion": {"records": 748, "target": "yes", "dt": (0.35, 0.05), "rf": (0.35, 0.06),
                    "libre": {"f1": (0.49, 0.12), "rules": (1.2, 0.4), "atoms": (2.8, 0.7)},
                    "libre 3": {"f1": (0.49, 0.12), "rules": (1.2, 0.4), "atoms": (2.8, 0.7)}},
    "wisconsin": {"records": 699, "target": "malignant", "dt": (0.91, 0.04), "rf": (0.95, 0.01),
                  "libre": {"f1": (0.95, 0.01), "rules": (4.2, 0.7), "atoms": (3.2, 1.0)},
                  "libre 3": {"f1": (0.93, 0.02), "rules": (3.0, 0.0), "atoms": (2.8, 1.0)}},
}
#: Columns the paper reads as numbers where the bundled manifest has categories. Heart's number of
#: major vessels (a count, 0-3) is an interval in the paper's rules ("number_of_major_vessels in
#: [1,3]", Figure 14; categorical features are written as sets, "thal in {reversable_defect}"), and
#: the UCI Statlog documentation lists it as real; the bundled manifest (PMLB's metadata) makes it
#: categorical. The types of the other bundled paper datasets agree with the paper's rules and UCI's
#: documentation (docs/methods/libre.md, "Column types").
PAPER_NUMERIC = {"heart": ("number_of_major_vessels",)}

#: Other names of the paper's datasets (file names of common copies), normalised as by paper_row().
ALIASES = {"heartstatlog": "heart", "statlogheart": "heart",
           "balancescale": "balance", "bankmarketing": "bank", "indianliverpatient": "ilpd",
           "liverdisorders": "liver", "bupa": "liver", "bloodtransfusion": "transfusion",
           "breastcancerwisconsin": "wisconsin", "breastw": "wisconsin", "pimaindiansdiabetes": "pima",
           "diabetes": "pima", "australiancredit": "australian", "statlogaustralian": "australian",
           "connectionistbenchsonar": "sonar"}
#: The bundled datasets of the paper's tables, the default --datasets.
DATASETS = ["tic_tac_toe", "wisconsin", "australian", "pima", "heart_statlog", "haberman", "adult"]
#: Datasets with more rows than this get the large-data protocol (adult, bank; see the docstring).
LARGE_ROWS = 10_000
#: Per-size defaults of --max-features, --max-intervals and --inner-folds.
SMALL_DEFAULTS = {"max_features": [2, 3, 5], "max_intervals": ["3"], "inner_folds": 5, "tolerance": "0"}
LARGE_DEFAULTS = {"max_features": [MAX_FEATURES], "max_intervals": ["none"], "inner_folds": 3, "tolerance": "se"}


#: A dataset named like one of the paper's is checked against it only if its number of rows is within
#: this share of the paper's (copies differ by a few rows: duplicates or missing values dropped).
RECORDS_TOLERANCE = 0.05


def paper_row(name: str) -> str | None:
    """The key of ``PAPER`` for a dataset name (any case, "_", "-" or spaces ignored), else None."""
    key = re.sub(r"[^a-z0-9]", "", name.lower())
    key = ALIASES.get(key, key)
    return key if key in PAPER else None


@dataclass(frozen=True)
class Dataset:
    """A dataset of the run: the runner's dataset entry, its size, the paper row it is checked
    against (None: reported without acceptance, for the reason in ``note``) and whether it was found
    in the data directory."""

    name: str
    entry: dict[str, Any]
    n_rows: int
    paper: str | None
    note: str = ""
    from_data_dir: bool = False

    @property
    def large(self) -> bool:
        return self.n_rows > LARGE_ROWS


def checked_row(name: str, n_rows: int) -> tuple[str | None, str]:
    """The paper row a dataset is checked against and, when a row of that name is not used, why:
    the name must match (``paper_row``) and the number of rows be within ``RECORDS_TOLERANCE`` of
    Table 6's (a 4,521-row "bank" sample is not the paper's Bank)."""
    paper = paper_row(name)
    if paper is None:
        return None, "not a dataset of the paper"
    records = PAPER[paper]["records"]
    if abs(n_rows - records) > RECORDS_TOLERANCE * records:
        return None, f"named like the paper's {paper!r} but {n_rows:,} rows against its {records:,}"
    return paper, ""


def paper_categorical(paper: str | None, categorical: list[str]) -> list[str]:
    """The categorical columns of a dataset checked against paper row ``paper``: ``categorical``
    without the columns the paper reads as numbers (``PAPER_NUMERIC``)."""
    return [column for column in categorical if column not in PAPER_NUMERIC.get(paper or "", ())]


def find_dataset(spec: str, data_dir: Path | None) -> Dataset:
    """A bundled dataset by name, a CSV file by path, or ``<data_dir>/<spec>`` (also with ``.csv.gz``
    or ``.csv`` appended).

    A CSV's label column (default "class"), categorical and numeric columns, missing-value markers
    and positive class come from a ``manifest.json`` beside it (``paper_data.manifest_entry``:
    "label", "categorical", "numeric", "missing", "positive_class", as in the bundled manifest); a
    bundled name shadowed by a different file in ``data_dir`` is an error (``paper_data.is_bundled``). Without a manifest positive class
    the paper's target class (Table 6) is used when a label of the file spells it (ignoring case),
    else the runner's rule (the minority class). The dataset's name is the file name up to its first
    dot, as in the runner.
    """
    if is_bundled(spec, data_dir):
        meta = optrules.datasets.info(spec)
        paper, note = checked_row(spec, meta["n_rows"])
        categorical = paper_categorical(paper, meta["categorical"])
        if categorical == meta["categorical"]:
            return Dataset(spec, {"name": spec}, meta["n_rows"], paper, note)
        # the bundled file read as a CSV, with the paper's types (a pip-installed package's data files
        # are files on disk)
        path = Path(str(resources.files("optrules.datasets").joinpath("data", meta["file"])))
        entry = {"name": spec, "path": str(path), "label": meta["label"], "positive": meta["positive_class"],
                 "categorical": categorical}
        return Dataset(spec, entry, meta["n_rows"], paper, note)
    path, from_data_dir = find_csv(spec, data_dir)
    name = path.name.split(".")[0]
    manifest = manifest_entry(path)
    label = manifest.get("label") or "class"
    X, y = optrules.datasets.load_csv(path, label=label, categorical=manifest.get("categorical"),
                                      numeric=manifest.get("numeric"), missing=manifest.get("missing"))
    entry: dict[str, Any] = {"name": name, "path": str(path.resolve()), "label": label}
    paper, note = checked_row(name, len(X))
    categorical = paper_categorical(paper, list(manifest.get("categorical") or []))
    if categorical:
        entry["categorical"] = categorical
    for key in ("numeric", "missing"):
        if manifest.get(key):
            entry[key] = list(manifest[key])
    positive = manifest.get("positive_class")
    if positive is None and paper is not None:  # the paper's target, if a label spells it (any case)
        target = PAPER[paper]["target"].lower()
        positive = next((label for label in map(str, y.unique()) if label.lower() == target), None)
    if positive is not None:
        entry["positive"] = positive
    return Dataset(name, entry, len(X), paper, note, from_data_dir)


def log(*args) -> None:
    print(*args, flush=True)


def setting(args: argparse.Namespace, dataset: Dataset, key: str) -> Any:
    """--max-features, --max-intervals, --inner-folds or --tolerance: the flag when given, else the
    default of the dataset's size."""
    value = getattr(args, key)
    if value is not None:
        return value
    return (LARGE_DEFAULTS if dataset.large else SMALL_DEFAULTS)[key]


def grid_of(args: argparse.Namespace, dataset: Dataset) -> dict[str, list]:
    """The tuned parameters and their values, in grid order (E varies slowest)."""
    if args.quick:
        return {"n_estimators": [5, 20], "heuristic": ["H1"], "chi2_threshold": [6.0, 4.6], "alpha": [ALPHA],
                "max_features": [MAX_FEATURES], "max_intervals": [None]}
    return {"n_estimators": list(args.large_estimators if dataset.large else ESTIMATORS),
            "heuristic": list(HEURISTICS),
            "chi2_threshold": list(THRESHOLDS),
            "alpha": list(ALPHAS) if args.conflicts == "majority" else [ALPHA],
            "max_features": list(setting(args, dataset, "max_features")),
            "max_intervals": [None if v.lower() == "none" else int(v)
                              for v in setting(args, dataset, "max_intervals")]}


def experiment(args: argparse.Namespace, dataset: Dataset, seed: int) -> dict[str, Any]:
    """The runner's configuration for one dataset and one seed of the learner: libre and libre 3,
    tuned on every outer fold."""
    tolerance = setting(args, dataset, "tolerance")
    tune = {"grid": grid_of(args, dataset), "inner_folds": setting(args, dataset, "inner_folds"),
            "inner_repeats": args.inner_repeats, "metric": "f1",
            "select": "one-se" if tolerance == "se" else float(tolerance), "pooling": args.pooling,
            "prefix": "max_rules", "prefer": ["max_rules", "-score"]}
    # min_gain 0: no stopping rule; k = max_rules is tuned from the greedy prefixes instead
    params = {"conflicts": args.conflicts, "top_k": args.top_k, "min_gain": 0.0, "n_jobs": 1,
              "random_state": seed}
    entry = dict(dataset.entry)
    if dataset.large and args.large_train is not None:
        entry["max_train"] = args.large_train
    if args.libre3 == "fixed":
        libre3_tune = {**tune, "min_prefix": LIBRE3_MAX, "max_prefix": LIBRE3_MAX, "select": "best",
                       "prefer": []}
    else:
        libre3_tune = {**tune, "max_prefix": LIBRE3_MAX}
    return {
        "title": f"LIBRE paper: {dataset.name}",
        "protocol": {"kind": "kfold", "folds": 5, "seed": SEED},
        "datasets": [entry],
        "methods": [{"name": "libre", "label": "libre", "params": params, "tune": tune},
                    {"name": "libre", "label": "libre 3", "params": params,
                     "tune": libre3_tune}],
        "parallel": {"backend": "loky", "jobs": args.jobs},
    }


@dataclass(frozen=True)
class Prepared:
    """One dataset's configuration as the runner resolves it: the method spec (its params and tune
    grid), the data, the positive class and the outer folds as (training rows, test rows), the
    training rows subsampled to ``max_train`` as the runner does. Loaded once per dataset for the
    diagnostics below."""

    method: Any
    X: pd.DataFrame
    y: pd.Series
    positive: Any
    folds: list[tuple[np.ndarray, np.ndarray]]


def prepare(config: dict[str, Any]) -> Prepared:
    resolved = load_config(config)
    dataset = resolved.datasets[0]
    protocol = resolved.protocol.for_dataset(dataset)  # as the runner splits it
    X, y = dataset.load()
    folds = [(protocol.subsample(train, y, dataset.max_train), test) for train, test in protocol.splits(y)]
    return Prepared(resolved.methods[0], X, y, _positive(dataset, y), folds)


def alpha_premise(prepared: Prepared) -> bool:
    """Whether alpha .5, .7 and .9 give the same rules on fold 0's training data (the middle
    configuration of the grid): the premise of collapsing the alpha grid under conflicts="strict"."""
    method, (train, _) = prepared.method, prepared.folds[0]
    configurations = method.tune.configurations()
    chosen = {**method.params, **configurations[len(configurations) // 2], "positive": prepared.positive}
    X, y = prepared.X.iloc[train], prepared.y.iloc[train]
    rules = {str(LibreClassifier(**{**chosen, "alpha": a}).fit(X, y).ruleset_.rules) for a in ALPHAS}
    return len(rules) == 1


def oracle(prepared: Prepared, n_jobs: int, libre3: str) -> dict[str, float]:
    """Not an estimate: the best mean outer-test F1 of a configuration fixed in advance, chosen by
    looking at the outer test folds. Every configuration of the grid is fitted on every outer
    training fold (no inner CV) and every greedy prefix k scored on the outer test fold; the mean
    over the folds of (configuration, k) is maximised over k >= 1 ("libre") and over k = 3 ("libre 3",
    max_rules = 3; k <= 3 when ``libre3`` is "tuned"). This is the figure a selection that peeks at
    the test folds would report; the gap to the nested figure is the cost of choosing from training
    data only."""
    from joblib import Parallel, delayed

    method, folds, positive = prepared.method, prepared.folds, prepared.positive
    configurations = method.tune.configurations()
    tasks = [InnerTask(f"oracle {c}", LibreClassifier(**{**method.params, **c, "positive": positive}),
                       prepared.X, prepared.y, train, test, positive, "f1", True)
             for c in configurations for train, test in folds]
    scores = Parallel(n_jobs=n_jobs)(delayed(inner_scores)(task) for task in tasks)
    rows = [scores[c * len(folds):(c + 1) * len(folds)] for c in range(len(configurations))]
    means = stack_scores(rows, prefix=True, min_length=LIBRE3_MAX + 1).mean(axis=1)  # configuration x k
    lowest = LIBRE3_MAX if libre3 == "fixed" else 1
    return {"libre": float(means[:, 1:].max()), "libre 3": float(means[:, lowest:LIBRE3_MAX + 1].max())}


#: scikit-learn reference models of the paper's Table 7 and their grids (Section 4: "we optimize the
#: maximum depth in {5,10,20,None}, we tried all possible options for max_features and use a number
#: of trees in {20,50,100} for rf"). Large datasets try rf with 20 or 50 trees and sqrt features only.
BASELINE_GRIDS = {
    "dt": {"max_depth": [5, 10, 20, None], "max_features": [None, "sqrt", "log2"]},
    "rf": {"max_depth": [5, 10, 20, None], "n_estimators": [20, 50, 100], "max_features": [None, "sqrt", "log2"]},
}
LARGE_RF_GRID = {"max_depth": [5, 10, 20, None], "n_estimators": [20, 50], "max_features": ["sqrt"]}


def baselines(prepared: Prepared, large: bool, n_jobs: int) -> dict[str, np.ndarray]:
    """Test F1 per outer fold of scikit-learn's decision tree and random forest, each tuned by
    ``GridSearchCV`` (F1 of the positive class) on the same outer training rows as LIBRE (same
    splits, same ``max_train`` subsample, same positive class), with categorical features one-hot
    encoded (a missing category is a row of zeros) and missing numbers left to scikit-learn's trees.
    The inner folds are ``StratifiedKFold(inner folds, shuffle=True, random_state=seed + r)`` for
    r < inner repeats, stratified on positive-vs-rest (LIBRE's are stratified on the labels: the same
    folds on two-class data). The tuned dt and rf are context (the paper's dt and rf columns); the
    depth-5 tree ("dt depth 5", fixed) is the bar of a dataset without paper values (``verdict``)."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import f1_score
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier

    target = (prepared.y == prepared.positive).to_numpy().astype(int)
    encoded = pd.get_dummies(prepared.X, dummy_na=False).to_numpy(dtype=float)
    tune = prepared.method.tune
    models = {"dt": (DecisionTreeClassifier(random_state=SEED), BASELINE_GRIDS["dt"]),
              "rf": (RandomForestClassifier(random_state=SEED), LARGE_RF_GRID if large else BASELINE_GRIDS["rf"])}
    scores: dict[str, list[float]] = {name: [] for name in models}
    scores["dt depth 5"] = []
    for train, test in prepared.folds:
        tree = DecisionTreeClassifier(max_depth=5, random_state=SEED).fit(encoded[train], target[train])
        scores["dt depth 5"].append(f1_score(target[test], tree.predict(encoded[test]), zero_division=0.0))
        inner = [split for r in range(tune.inner_repeats)
                 for split in StratifiedKFold(tune.inner_folds, shuffle=True, random_state=SEED + r).split(
                     encoded[train], target[train])]
        for name, (model, grid) in models.items():
            search = GridSearchCV(model, grid, scoring="f1", cv=inner, n_jobs=n_jobs)
            search.fit(encoded[train], target[train])
            scores[name].append(f1_score(target[test], search.predict(encoded[test]), zero_division=0.0))
    return {name: np.array(values) for name, values in scores.items()}


def baseline_row(dataset: Dataset, name: str, f1: np.ndarray, note: str, oracle_column: bool,
                 trivial: dict[str, float]) -> dict:
    paper = PAPER[dataset.paper].get(name) if dataset.paper is not None else None
    return {"dataset": dataset.name + note, "method": f"{name} (scikit-learn)", "seeds": 1,
            "F1 (folds) [seeds]": f"{f1.mean():.3f} ({f1.std(ddof=1):.3f})",
            "paper F1": "-" if paper is None else f"{paper[0]:.2f} ({paper[1]:.2f})",
            "all-positive F1": f"{trivial['all-positive F1']:.3f}", "accuracy": "-",
            "majority accuracy": f"{trivial['majority accuracy']:.3f}", "balanced accuracy (SE)": "-",
            **({"F1 peeking (not an estimate)": "-"} if oracle_column else {}),
            "#rules": "-", "paper #rules": "-", "atoms/rule": "-", "paper atoms": "-", "acceptance": "reference"}


def config_text(row: pd.Series) -> str:
    intervals = row["tune.max_intervals"]
    return (f"E={int(row['tune.n_estimators'])} {row['tune.heuristic']} chi2={row['tune.chi2_threshold']:g} "
            f"alpha={row['tune.alpha']:g} features={int(row['tune.max_features'])} "
            f"intervals={'any' if intervals is None or pd.isna(intervals) else int(intervals)}")


def choices(results: pd.DataFrame) -> list[str]:
    """The chosen configuration of every method and outer fold, from the tune.* columns."""
    lines = []
    for _, row in results.sort_values(["seed", "fold", "method"], kind="stable").iterrows():
        lines.append(f"seed {row['seed']} {row['method']} fold {row['fold']}: {config_text(row)} k={int(row['tune.max_rules'])} "
                     f"(inner F1 {row['tune.score']:.3f}, best {row['tune.best']:.3f}, SE {row['tune.se']:.3f}, "
                     f"tied {int(row['tune.ties'])}) -> {row['n_rules']} rules, test F1 {row['f1']:.3f}")
    return lines


def verdict(f1: float, rules: float, fold_balanced: np.ndarray, paper: dict | None,
            tree_f1: float | None = None) -> str:
    """The row's acceptance: the paper's (mean F1 >= paper - 0.03, mean #rules <= max(1.5 x paper,
    paper + 3)) and the model's balanced accuracy above 0.5 by more than its standard error over
    the folds (``acceptance.beyond_prior``: a near-constant model fails it whatever its F1). Without
    paper values, the depth-5 tree's mean F1 on the same folds (``tree_f1``, with ``--baselines``) is
    the bar: F1 >= tree - 0.03, and the same balanced-accuracy check."""
    informative = ("balanced accuracy", beyond_prior(fold_balanced)[2])
    if paper is None:
        if tree_f1 is None:
            return "no paper value"
        return "vs dt depth 5: " + verdict_of((("F1", f1 >= tree_f1 - 0.03), informative))
    return verdict_of((("F1", f1 >= paper["f1"][0] - 0.03),
                       ("#rules", rules <= max(1.5 * paper["rules"][0], paper["rules"][0] + 3)),
                       informative))


def summarize(dataset: Dataset, label: str, rows: pd.DataFrame, note: str, peeked: float | None,
              trivial: dict[str, float], tree_f1: float | None = None) -> dict:
    """One table row of a method over every seed and outer fold: mean (sd over the folds) [sd over
    the seeds] of F1, accuracy and balanced accuracy, beside the trivial models on the same folds
    (``tree_f1``: the depth-5 tree's mean F1, the bar of a dataset without paper values)."""
    f1, f1_folds, f1_seeds = mean_spread(rows, "f1")
    accuracy = rows["accuracy"].mean()
    fold_balanced = fold_means(rows, "balanced_accuracy")
    balanced, balanced_se, _ = beyond_prior(fold_balanced)
    rules, rules_folds, _ = mean_spread(rows.assign(n_rules=rows["n_rules"].astype(float)), "n_rules")
    atoms = rows["avg_atoms"].mean()
    paper = PAPER[dataset.paper][label] if dataset.paper is not None else None
    return {"dataset": dataset.name + note, "method": label, "seeds": rows["seed"].nunique(),
            "F1 (folds) [seeds]": f"{f1:.3f} ({f1_folds:.3f}) [{f1_seeds:.3f}]",
            "paper F1": "-" if paper is None else f"{paper['f1'][0]:.2f} ({paper['f1'][1]:.2f})",
            "all-positive F1": f"{trivial['all-positive F1']:.3f}",
            "accuracy": f"{accuracy:.3f}", "majority accuracy": f"{trivial['majority accuracy']:.3f}",
            "balanced accuracy (SE)": f"{balanced:.3f} ({balanced_se:.3f})",
            **({} if peeked is None else {"F1 peeking (not an estimate)": f"{peeked:.3f}"}),
            "#rules": f"{rules:.1f} ({rules_folds:.1f})",
            "paper #rules": "-" if paper is None else f"{paper['rules'][0]:.1f} ({paper['rules'][1]:.1f})",
            "atoms/rule": f"{atoms:.2f}",
            "paper atoms": "-" if paper is None else f"{paper['atoms'][0]:.1f}",
            "acceptance": verdict(f1, rules, fold_balanced, paper, tree_f1)}


def command_of(args: argparse.Namespace, datasets: list[Dataset], data_dir: Path | None) -> str:
    """The command that reproduces this run (flags left at their defaults are not written; the data
    directory is, when a dataset came from it; the report and runs paths, when given)."""
    words = ["python", "benchmarks/libre_paper.py"] + (["--quick"] if args.quick else [])
    words += (["--datasets", *args.datasets] if args.datasets else []) + ["--jobs", str(args.jobs)]
    if any(d.from_data_dir for d in datasets):
        words += ["--data-dir", str(data_dir)]
    flags = [("--conflicts", [args.conflicts], args.conflicts != "majority"),
             ("--max-features", list(map(str, args.max_features or [])), args.max_features is not None),
             ("--max-intervals", list(args.max_intervals or []), args.max_intervals is not None),
             ("--tolerance", [args.tolerance], args.tolerance is not None),
             ("--inner-folds", [str(args.inner_folds)], args.inner_folds is not None),
             ("--inner-repeats", [str(args.inner_repeats)], args.inner_repeats != 1),
             ("--pooling", [args.pooling], args.pooling != "mean"),
             ("--top-k", [str(args.top_k)], args.top_k is not None),
             ("--libre3", [args.libre3], args.libre3 != "fixed"),
             ("--oracle", [], args.oracle), ("--baselines", [], args.baselines),
             ("--seeds", list(map(str, args.seeds)), args.seeds != list(SEEDS)),
             ("--positive", list(args.positive or []), args.positive is not None)]
    if any(d.large for d in datasets):
        flags += [("--large-train", [str(args.large_train)], args.large_train is not None),
                  ("--large-estimators", list(map(str, args.large_estimators)),
                   args.large_estimators != list(LARGE_ESTIMATORS))]
    flags += [("--runs", [str(args.runs)], bool(args.runs)), ("--out", [str(args.out)], args.out is not None)]
    for flag, values, given in flags:
        if given:
            words += [flag, *values]
    return shlex.join(words)


def margin_text(tolerance: str) -> str:
    """--tolerance in words."""
    return "one standard error" if tolerance == "se" else f"{float(tolerance):g} F1"


def grid_text(grid: dict[str, list], top_k: int | None, seeds: list[int]) -> str:
    return (f"E in {grid['n_estimators']}, heuristic in {grid['heuristic']}, ChiMerge threshold in "
            f"{grid['chi2_threshold']}, alpha in {grid['alpha']}, max_features in {grid['max_features']}, "
            f"ChiMerge max_intervals in {[v or 0 for v in grid['max_intervals']]} (0 = none), top_k = {top_k} "
            f"({'no filter' if top_k is None else 'filter'}), random_state in {seeds}, k = max_rules from the greedy prefixes")


def _rows_or_all(text: str) -> int | None:
    return None if text.lower() == "all" else int(text)


def _rows_or_none(text: str) -> int | None:
    return None if text.lower() == "none" else int(text)


def _default_data_dir() -> Path | None:
    """``../shared/data`` beside the checkout, where the project's datasets live, if it is there."""
    candidate = Path(__file__).resolve().parents[2] / "shared" / "data"
    return candidate if candidate.is_dir() else None


def default_out(args: argparse.Namespace, datasets: list[Dataset]) -> Path:
    """``results/libre_paper.md`` for the full run on the default datasets; any other run writes
    ``results/libre_paper_quick.md`` or ``results/libre_paper_<dataset names>.md`` instead, so that it
    never overwrites the main results."""
    results = Path(__file__).parent / "results"
    if args.quick:
        return results / "libre_paper_quick.md"
    if args.datasets is None:
        return results / "libre_paper.md"
    return results / ("libre_paper_" + "_".join(d.name for d in datasets)[:80] + ".md")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 datasets, smaller grid (a smoke run)")
    parser.add_argument("--datasets", nargs="+", default=None,
                        help="bundled dataset names, CSV paths, or names of CSV files in --data-dir "
                             f"(default: {' '.join(DATASETS)})")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where to look for <name>.csv.gz (and its manifest.json) when a name is not "
                             "bundled (default: ../shared/data beside the checkout, if present)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel fits (joblib loky workers)")
    parser.add_argument("--large-train", type=_rows_or_all, default=None,
                        help=f"datasets of more than {LARGE_ROWS:,} rows: stratified subsample of the outer "
                             "training fold (inner CV and refit); 'all' (default) = the whole fold")
    parser.add_argument("--large-estimators", type=int, nargs="+", default=list(LARGE_ESTIMATORS),
                        help=f"E values tried on datasets of more than {LARGE_ROWS:,} rows (reduced grid)")
    parser.add_argument("--conflicts", choices=["strict", "majority"], default="majority",
                        help="LibreClassifier(conflicts=...) for every fit")
    parser.add_argument("--max-features", type=int, nargs="+", default=None,
                        help="features per weak learner tried ('each weak learner uses up to 5 features'; "
                             f"default {SMALL_DEFAULTS['max_features']}, large datasets "
                             f"{LARGE_DEFAULTS['max_features']})")
    parser.add_argument("--max-intervals", nargs="+", default=None,
                        help="ChiMerge max_intervals tried ('none' = threshold only, the paper; default "
                             f"{SMALL_DEFAULTS['max_intervals']}, large datasets {LARGE_DEFAULTS['max_intervals']})")
    parser.add_argument("--tolerance", default=None,
                        help="near-ties of the best inner F1 for libre: 'se' (one standard error) or an F1 difference "
                             f"(default {SMALL_DEFAULTS['tolerance']}, large datasets {LARGE_DEFAULTS['tolerance']})")
    parser.add_argument("--inner-folds", type=int, default=None,
                        help=f"inner CV folds (default {SMALL_DEFAULTS['inner_folds']}, large datasets "
                             f"{LARGE_DEFAULTS['inner_folds']})")
    parser.add_argument("--inner-repeats", type=int, default=1,
                        help="repeated inner cross-validation: repeat r shuffles with seed + r")
    parser.add_argument("--pooling", choices=["mean", "pooled"], default="mean",
                        help="inner F1 of a candidate: the mean of its per-split F1 ('mean') or the F1 of its "
                             "confusion counts summed over the inner validation splits ('pooled', SE by "
                             "jackknife over the splits)")
    parser.add_argument("--top-k", type=_rows_or_none, default=None,
                        help="LibreClassifier(top_k=...): 'none' (the default here) fits without the "
                             "candidate filter, as the paper's experiments do; a number keeps that many")
    parser.add_argument("--libre3", choices=["fixed", "tuned"], default="fixed",
                        help="libre 3: max_rules = 3 with the configuration tuned ('fixed', the paper's "
                             "definition) or k <= 3 tuned like libre's k ('tuned', the earlier protocol)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS),
                        help="LibreClassifier(random_state=...) values (the feature subsets): every figure is "
                             f"the mean over them (default {' '.join(map(str, SEEDS))}); the outer and inner "
                             "splits keep seed 0")
    parser.add_argument("--oracle", action="store_true",
                        help="also report the best fixed configuration chosen on the outer test folds "
                             "(a diagnostic, not an estimate: see oracle())")
    parser.add_argument("--baselines", action="store_true",
                        help="also report scikit-learn's decision tree and random forest, tuned on the same "
                             "training folds (the paper's dt and rf columns; context, not acceptance)")
    parser.add_argument("--positive", nargs="+", default=None, metavar="VALUE | NAME=VALUE",
                        help="the positive class: one VALUE for every dataset, or NAME=VALUE per dataset "
                             "(default: the manifest's, else the paper's target, else the minority)")
    add_results_arguments(parser)
    parser.add_argument("--out", default=None,
                        help="the markdown report (default: results/libre_paper.md for the default datasets, "
                             "results/libre_paper_<names>.md for others, results/libre_paper_quick.md for --quick)")
    return parser.parse_args(argv)


def with_positive(dataset: Dataset, positive: str | None) -> Dataset:
    """``dataset`` with the positive class ``--positive`` gives it (None: unchanged)."""
    if positive is None:
        return dataset
    return dataclasses.replace(dataset, entry={**dataset.entry, "positive": positive})


def fit_dataset(args: argparse.Namespace, dataset: Dataset, configs: list[dict[str, Any]],
                runs: Path) -> dict[str, Any]:
    """One dataset's run, one runner configuration per seed of the learner (the folds are the
    same): its table rows, its paragraph of checks and chosen configurations, and its seconds. The
    runner shows a progress bar over the fits on a terminal and logs every finished fit in
    ``RUNS/<dataset>.fits/seed-<seed>/results.jsonl``, from which a stopped run resumes (unless
    ``--rerun``)."""
    rows = []
    config = configs[0]
    grid = config["methods"][0]["tune"]["grid"]
    log(f"{dataset.name}: {int(np.prod([len(v) for v in grid.values()]))} configurations, seeds {args.seeds}")
    fits = [runs / f"{dataset.name}.fits" / f"seed-{seed}" for seed in args.seeds]
    logged = [fit / LOG_NAME for fit in fits]  # one complete line per finished fit
    resumed = 0 if args.rerun else sum(path.read_text().count("\n") for path in logged if path.exists())
    began = time.perf_counter()
    results = pd.concat([run(c, out=fit, resume=not args.rerun,
                             verbose=True).assign(seed=seed) for seed, c, fit in zip(args.seeds, configs, fits)],
                        ignore_index=True)
    seconds = time.perf_counter() - began
    note = ""
    if dataset.large:
        note = f" ({'all' if args.large_train is None else args.large_train} train rows/fold)"
    prepared = prepare(config)
    trivial = trivial_scores(prepared.y.to_numpy(), prepared.folds, prepared.positive)
    peeked = oracle(prepared, args.jobs, args.libre3) if args.oracle else {}
    references = baselines(prepared, dataset.large, args.jobs) if args.baselines else {}
    tree_f1 = float(references["dt depth 5"].mean()) if references else None
    for label in LABELS:
        rows.append(summarize(dataset, label, results[results["method"] == label], note, peeked.get(label),
                              trivial, tree_f1))
        log(rows[-1])
    for name, f1 in references.items():
        rows.append(baseline_row(dataset, name, f1, note, args.oracle, trivial))
        log(rows[-1])
    alpha_same = alpha_premise(prepared) if args.conflicts == "strict" else "n/a (majority)"
    lines = choices(results)
    log("\n".join(f"  {dataset.name} {line}" for line in lines))
    positive = prepared.positive
    paper = f"none ({dataset.note})" if dataset.paper is None else f"{dataset.paper!r}"
    numeric = [c for c in PAPER_NUMERIC.get(dataset.paper or "", ()) if c in prepared.X.columns]
    if numeric:
        paper += f" (read with the paper's types: {', '.join(numeric)} numeric)"
    detail = (f"* {dataset.name}: {dataset.n_rows} rows, positive class {positive!r}, paper row {paper}; "
              f"{seconds:.0f} s{timed_part(resumed, len(results))}; alpha .5/.7/.9 same rules (fold 0): {alpha_same}\n"
              f"  * grid: {grid_text(grid, args.top_k, args.seeds)}; "
              f"{setting(args, dataset, 'inner_folds')} inner folds; libre's near-ties: within "
              f"{margin_text(setting(args, dataset, 'tolerance'))} of the best\n"
              + "\n".join(f"  * {line}" for line in lines))
    return {"rows": rows, "detail": detail, "seconds": seconds}


def timed_part(resumed: int, fits: int) -> str:
    """What a dataset's seconds leave out: the fits a resumed run read back from its fits log."""
    return f" (the {resumed} of {fits} fits read back from an earlier, stopped run not counted)" if resumed else ""


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    data_dir = args.data_dir if args.data_dir is not None else _default_data_dir()
    names = args.datasets or (["haberman", "wisconsin"] if args.quick else DATASETS)
    datasets = [find_dataset(name, data_dir) for name in names]
    out = Path(args.out) if args.out else default_out(args, datasets)

    positives = parse_positive(args.positive)
    check_positive(positives, [d.name for d in datasets])
    datasets = [with_positive(d, positive_of(positives, d.name)) for d in datasets]
    for dataset in datasets:  # before any fit (rows are checked against the paper's by checked_row)
        check_entry(dataset.entry, ())
    runs = Path(args.runs) if args.runs else out.with_name(out.stem + "_runs")

    rows, details, total = [], [], 0.0
    for dataset in datasets:
        configs = [experiment(args, dataset, seed) for seed in args.seeds]
        settings = {"configs": configs, "oracle": args.oracle, "baselines": args.baselines}
        earlier = done(runs, dataset.name, settings, args.rerun)
        if earlier is not None:
            log(f"{dataset.name}: done earlier, read from {runs / dataset.name}.json (--rerun fits it again)")
        else:
            earlier = fit_dataset(args, dataset, configs, runs)
            log(f"{dataset.name}: written to {save(runs, dataset.name, settings, earlier)}")
        rows += earlier["rows"]
        details.append(earlier["detail"])
        total += earlier["seconds"]
    table = markdown_table(rows)
    log(table)
    log(f"total {total:.0f} s")
    repeated = f", repeated {args.inner_repeats} times" if args.inner_repeats > 1 else ""
    inner_f1 = ("mean inner F1" if args.pooling == "mean" else
                "pooled inner F1 (the F1 of the confusion counts summed over the inner validation splits; "
                "its standard error by jackknife over the splits)")
    write_report(
        out, "LIBRE against the paper (Appendix E, Tables 7-9)", command_of(args, datasets, data_dir),
        f"Total run time: {total:.0f} s (the datasets' own times, also of those read from {runs}, but for "
        "fits a stopped run had already logged: see each dataset's line below; "
        f"{args.jobs} worker(s): "
        + ", ".join(["the nested runs by the experiment runner"]
                    + (["the alpha check"] if args.conflicts == "strict" else [])
                    + (["the --oracle fits"] if args.oracle else [])
                    + (["the scikit-learn baselines"] if args.baselines else [])) + ").\n\n"
        "Outer stratified 5-fold CV (shuffle, seed 0); selection by inner stratified CV on the outer "
        f"training fold{repeated} (the runner's tune step; each dataset's grid and number of inner folds "
        f"are listed below); conflicts = {args.conflicts!r}; libre: among the (configuration, k) within the "
        f"dataset's margin (listed below) of the best {inner_f1}, fewer rules first (smallest k, then "
        "highest inner F1, then grid order: "
        "smallest E first); refit on the outer training fold with max_rules = k. "
        + ("libre 3: max_rules = 3 (not tuned), the configuration with the best inner F1 (ties: grid "
           "order). " if args.libre3 == "fixed" else "libre 3: k <= 3. ")
        + "Acceptance: mean F1 >= paper - 0.03, mean #rules <= max(1.5 x paper, paper + 3), and "
        "balanced accuracy > 0.5 + its standard error over the outer folds (a model that predicts one "
        "class everywhere has 0.5)"
        + ("; on a dataset without paper values, mean F1 >= that of the depth-5 tree on the same folds "
           "- 0.03 and the same balanced-accuracy check" if args.baselines else "") + ". Values are means over the seeds of the learner (random_state in "
        f"{args.seeds}; the folds fixed) and the 5 outer folds, as mean (sample std over the folds) "
        "[sample std of the per-seed means]; all-positive F1 and majority accuracy are those of the "
        "trivial models on the same test folds (majority: the training fold's more frequent of positive "
        "and rest); paper values are the libre / libre 3 columns of Tables 7 (F1), 8 (#rules), 9 (atoms)."
        + (" \"F1 peeking\" is not an estimate: the best mean test F1 of one (configuration, k) of the grid "
           "fixed for all five folds, chosen by looking at the outer test folds (k >= 1 for libre, "
           + ("k = 3" if args.libre3 == "fixed" else "k <= 3") + " for libre 3; no inner CV). Nor is it a "
           "ceiling: the nested selection may choose a different configuration on each fold."
           if args.oracle else "")
        + (" dt and rf (scikit-learn) are references, tuned by GridSearchCV on the same training folds "
           + ("(by their mean inner F1, not pooled) " if args.pooling == "pooled" else "") + "(max_depth in {5, 10, 20, None}, max_features in {None, sqrt, log2}, rf trees in {20, 50, 100}; "
           "large datasets: rf with 20 or 50 trees and sqrt features), beside the paper's dt and rf columns "
           "of Table 7." if args.baselines else "") + "\n\n"
        f"{table}\n\n## Verdicts\n\n"
        + "\n".join(f"* {r['dataset']} / {r['method']}: {r['acceptance']} (F1 {r['F1 (folds) [seeds]']} vs {r['paper F1']}, "
                    f"#rules {r['#rules']} vs {r['paper #rules']})" for r in rows if r["acceptance"] != "reference")
        + "\n\n## Per-dataset checks and chosen configurations\n\n" + "\n".join(details) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
