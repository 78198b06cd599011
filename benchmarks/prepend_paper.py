"""prepend-ip2, append-p2 and append against Webb's Tables 2 and 3 ("Recent Progress in Learning
Decision Lists by Prepending Inferred Rules"), run by the experiment runner.

The fits run through :func:`optrules.experiments.run` with ``benchmarks/configs/prepend.toml``, whose
command-line overrides are applied to the configuration dict before the run: ``--repetitions``
(``protocol.repeats``), ``--datasets``, ``--variants`` (the methods kept; prepend-ip2 always, as the
reference), ``--max-nodes`` and ``--tests`` (every method's parameters), ``--positive`` (the
datasets' ``positive``) and ``--jobs`` (``parallel.jobs``). The search figures come from the configuration's ``meta`` keys
(``Ruleset.meta["search_nodes"]``, ``["searches"]``, ``["unproven_searches"]``: the result table's
``meta.*`` columns).

Protocol: the runner's "splits" protocol, as the paper's "Experimental evaluation" describes it:
``repeats`` random splits of each dataset into 80% training and 20% evaluation data, the same for
every variant, unstratified as the paper's ("Each data set was randomly divided"): the protocol's
``stratify = false``, scikit-learn's ``ShuffleSplit(repeats, train_size=0.8, random_state=seed)``,
seed 0. ``--stratify`` runs stratified splits instead (``StratifiedShuffleSplit``, same seed).
Reported: mean and sample standard deviation of the evaluation accuracy (%) and of the number of
rules, counted as the paper does (Table 3: the default rule is counted for prepend-ip2 but not for
append and append-p2, "due to it often being unreachable"), the two-tailed matched-pairs t-test
p-value of each variant against prepend-ip2 on the same splits (as in Tables 2 and 3), the search
nodes per fit, the share of rule searches that stopped at ``--max-nodes`` (not proven optimal), and
fit seconds (the runner's ``fit_seconds``).

``benchmarks/results/prepend_paper.md`` was written by this script before its splits became
unstratified: it holds the stratified splits' figures (as with ``--stratify`` now); the report says
which splits it used.
``prepend_paper_equality.md`` and ``prepend_paper_breast_cancer_1M.md`` were written by the previous
version, which ran its own loop over unstratified splits (``train_test_split(test_size=0.2,
random_state=r)`` for ``r = 0 .. repetitions - 1``) with the same fits and the same summaries; the
splits, and so the figures, differ from the runner's.

Beside every row, on the same test splits (``benchmarks/acceptance.py``): the accuracy of predicting
the training split's most frequent class everywhere (the majority, the trivial model whose accuracy a
list must beat), the variant's balanced accuracy with its standard error over the splits, and on
two-class data its F1 of the dataset's positive class beside the F1 of predicting every row positive.
The lists are scored on the original labels (multi-class accuracy), and so are the trivial models.

Acceptance (issue 5): prepend-ip2 accuracy at least Table 2's minus 3 points on each dataset, and
fewer rules than append on most datasets. Every row besides: balanced accuracy above chance by more
than its standard error (``acceptance.beyond_prior``), so that a list that predicts one class
everywhere fails whatever its accuracy. Chance is what the best constant prediction scores on the same
splits (``acceptance.constant_chance``): 0.5 on two classes, 1 / k on k only where every test split
holds all k classes (scikit-learn averages recall over the classes present in a split).

Seeds: ``--seeds`` (default 0-4) would refit every variant that draws random numbers with
``random_state`` = each seed on the same splits (``acceptance.seed_configs``). No decision list draws
any (``DecisionListClassifier`` has no ``random_state``: no step of its fit, the binning, the exact
rule searches or the list building, draws a random number), so each variant is fitted once and the
report says so ([seeds] 0, deterministic).

All seven datasets are nominal, as in the paper (missing values are a value of their own); the
rules use attribute-value inequality tests, as in the paper.

Other data: ``--datasets`` also takes any other bundled dataset and CSV files (paths, or names of
files in ``--data-dir``) with a ``manifest.json`` beside them (``benchmarks/paper_data.py``: its
"label", default "class", "categorical" and "positive_class"). The categorical features are the
manifest's "categorical" columns; without that key, ``optrules.datasets.load_csv``'s typing (text
columns categorical, numeric columns numbers, which the estimators bin with ChiMerge; list a column
in "categorical" to read it as nominal, as the paper's data are). Datasets without paper values are
reported with "-" in the paper columns and no acceptance check.

Each dataset's fits are written to ``RUNS/<dataset>.json`` (``--runs``, default the report's path
without ``.md`` plus ``_runs``) as soon as it finished; a rerun with the same settings reads them
instead of fitting again (``--rerun`` fits again). The runner shows a progress bar over the fits on a
terminal.

    python benchmarks/prepend_paper.py [--repetitions 100] [--datasets monk1 ... | data.csv] [--jobs 2]
                                       [--positive VALUE | NAME=VALUE ...] [--data-dir DIR] [--seeds 0 1 2 3 4]
                                       [--max-nodes 1000000] [--out benchmarks/results/prepend_paper.md]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import ttest_rel

from optrules.experiments import load_config, run

sys.path.insert(0, str(Path(__file__).parent))
from acceptance import (beyond_prior, constant_chance, fold_means, mean_spread, runner_splits,  # noqa: E402
                        seed_configs, seed_spread, takes_seed, trivial_scores, verdict_of)
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)
from paper_data import (add_data_arguments, add_results_arguments, check_entry, check_positive,  # noqa: E402
                        csv_dataset, done, is_bundled, parse_positive, positive_of, save)

CONFIG = Path(__file__).parent / "configs" / "prepend.toml"
#: the learner's seeds (random_state) of the variants that draw random numbers (none does)
SEEDS = (0, 1, 2, 3, 4)
VARIANTS = ("prepend-ip2", "append-p2", "append")
DATASETS = ("breast_cancer", "house_votes_84", "monk1", "monk2", "monk3", "mushroom", "tic_tac_toe")

#: Table 2 (accuracy %, mean and std over 100 splits) and Table 3 (number of rules).
PAPER_ACCURACY = {
    "breast_cancer": {"prepend-ip2": (61.2, 5.6), "append-p2": (64.8, 5.9), "append": (64.5, 6.2)},
    "house_votes_84": {"prepend-ip2": (94.9, 2.5), "append-p2": (94.6, 2.6), "append": (94.5, 2.6)},
    "monk1": {"prepend-ip2": (100.0, 0.0), "append-p2": (100.0, 0.0), "append": (100.0, 0.0)},
    "monk2": {"prepend-ip2": (99.1, 1.5), "append-p2": (98.1, 2.0), "append": (98.2, 1.9)},
    "monk3": {"prepend-ip2": (97.9, 1.2), "append-p2": (97.5, 1.4), "append": (97.3, 1.3)},
    "mushroom": {"prepend-ip2": (100.0, 0.0), "append-p2": (100.0, 0.0), "append": (100.0, 0.0)},
    "tic_tac_toe": {"prepend-ip2": (96.9, 1.0), "append-p2": (98.7, 2.0), "append": (98.7, 1.9)},
}
PAPER_RULES = {
    "breast_cancer": {"prepend-ip2": (9.6, 1.1), "append-p2": (16.3, 1.0), "append": (19.9, 1.6)},
    "house_votes_84": {"prepend-ip2": (5.0, 0.5), "append-p2": (8.3, 1.1), "append": (10.7, 1.3)},
    "monk1": {"prepend-ip2": (4.7, 0.5), "append-p2": (6.0, 0.4), "append": (6.0, 0.4)},
    "monk2": {"prepend-ip2": (15.8, 0.4), "append-p2": (25.1, 1.5), "append": (25.6, 1.7)},
    "monk3": {"prepend-ip2": (4.9, 0.7), "append-p2": (10.3, 1.2), "append": (12.8, 1.6)},
    "mushroom": {"prepend-ip2": (4.0, 0.0), "append-p2": (4.0, 0.1), "append": (4.0, 0.1)},
    "tic_tac_toe": {"prepend-ip2": (12.0, 0.8), "append-p2": (16.3, 2.0), "append": (16.6, 2.4)},
}


def log(*args) -> None:
    print(time.strftime("%H:%M:%S"), *args, flush=True)


def dataset_entry(spec: str, bundled: list[dict[str, Any]], data_dir: Path | None) -> dict[str, Any]:
    """The runner's entry of a dataset of ``--datasets``: the configuration's for its datasets, any
    other bundled dataset by name, else a CSV's (``paper_data.csv_dataset``: its manifest's label,
    categorical columns and positive class)."""
    if is_bundled(spec, data_dir):  # a different file of this name in data_dir is an error, never used silently
        return next((dict(entry) for entry in bundled if entry["name"] == spec), {"name": spec})
    return csv_dataset(spec, data_dir)[0]


def experiment(args: argparse.Namespace) -> dict[str, Any]:
    """``prepend.toml`` as a dict, with the command line's overrides."""
    config = load_config(CONFIG).to_dict()
    variants = {v for v in VARIANTS if v == "prepend-ip2" or v in args.variants}
    config["protocol"]["repeats"] = args.repetitions
    if args.stratify:
        config["protocol"].pop("stratify", None)  # the runner's default: stratified
    config["datasets"] = [dataset_entry(spec, config["datasets"], args.data_dir) for spec in args.datasets]
    positives = parse_positive(args.positive)
    check_positive(positives, [d["name"] for d in config["datasets"]])
    for entry in config["datasets"]:
        if positive_of(positives, entry["name"]) is not None:
            entry["positive"] = positive_of(positives, entry["name"])
        check_entry(entry, PAPER_ACCURACY)  # before any fit: a positive class that is a label, a paper name
    config["methods"] = [{**m, "params": {**m["params"], "max_nodes": args.max_nodes, "tests": args.tests}}
                         for m in config["methods"] if m["label"] in variants]
    config["parallel"]["jobs"] = args.jobs
    return config


def records_of(results: pd.DataFrame) -> list[dict]:
    """One record per fit (the runner's rows, with the ``seed`` of their run), with the rules counted
    as in the paper's Table 3."""
    def learned_rules(row: pd.Series) -> int:
        # a list that learned an IF TRUE rule holds it as its default (the majority default after it
        # is dead): the paper's lists still count it as a rule
        return row.n_rules + int(row.get("meta.default_rule") == "learned")

    return [{
        "dataset": row.dataset, "repetition": row.fold, "variant": row.method, "seed": row.seed,
        "accuracy": 100.0 * row.accuracy, "balanced_accuracy": 100.0 * row.balanced_accuracy, "f1": row.f1,
        # Table 3 counts the default rule for prepend-ip2 only
        "rules": learned_rules(row) + (1 if row.method.startswith("prepend") else 0),
        "rules_without_default": learned_rules(row), "atoms": row.n_atoms,
        "nodes": row["meta.search_nodes"], "searches": row["meta.searches"],
        "unproven": row["meta.unproven_searches"], "seconds": row.fit_seconds,
    } for _, row in results.iterrows()]


def mean_std(runs: pd.DataFrame, column: str) -> str:
    """Mean of ``column`` over seeds and splits (sample std over the splits, averaged over the seeds)."""
    mean, split_sd, _ = mean_spread(runs.assign(**{column: runs[column].astype(float)}), column)
    return f"{mean:.1f} ({0.0 if np.isnan(split_sd) else split_sd:.1f})"


def paired_p(a: np.ndarray, b: np.ndarray) -> str:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if np.allclose(a, b):
        return "1.00"
    with warnings.catch_warnings():  # a constant difference makes the t statistic infinite: p = 0
        warnings.simplefilter("ignore", RuntimeWarning)
        return f"{ttest_rel(a, b).pvalue:.2f}"


def trivial_of(config: dict[str, Any], name: str) -> dict[str, Any]:
    """The trivial models' scores on dataset ``name``'s splits of ``config``, scored as the lists are
    (on the original labels), its number of classes, and balanced accuracy's chance level on those
    splits (:func:`acceptance.constant_chance`: 1 / classes where every test split holds them all)."""
    splits = runner_splits(config, name)
    return {**trivial_scores(splits.labels, splits.folds, splits.positive, one_vs_rest=False),
            "classes": splits.n_classes, "chance": constant_chance(splits.labels, splits.folds)}


def row_checks(name: str, variant: str, accuracy: float, fold_balanced: np.ndarray,
               chance: float) -> list[tuple[str, bool]]:
    """A row's acceptance checks: issue 5's on prepend-ip2's accuracy where Table 2 has the dataset,
    and on every row balanced accuracy (%) above ``chance`` (%, the best constant prediction's on the
    same splits) by more than its standard error."""
    checks = []
    if variant == "prepend-ip2" and name in PAPER_ACCURACY:
        checks.append(("accuracy", accuracy >= PAPER_ACCURACY[name]["prepend-ip2"][0] - 3.0))
    checks.append(("balanced accuracy", beyond_prior(fold_balanced, chance)[2]))
    return checks


def summarize(records: list[dict], trivial: dict[str, dict[str, Any]],
              deterministic: set[str]) -> tuple[list[dict], dict]:
    """The table rows (one per dataset and variant: means over the seeds and the splits) and the
    per-dataset verdicts of issue 5. ``trivial``: per dataset, ``trivial_of``; ``deterministic``: the
    variants the seed does not change."""
    rows, verdicts = [], {}
    frame = pd.DataFrame(records).rename(columns={"repetition": "fold"})
    for name in dict.fromkeys(frame["dataset"]):
        mine = frame[frame["dataset"] == name]
        baseline = trivial[name]
        two_classes = baseline["classes"] == 2
        chance = 100.0 * baseline.get("chance", 1.0 / baseline["classes"])  # runs saved before it was kept
        present = [v for v in VARIANTS if (mine["variant"] == v).any()]
        by_variant = {v: mine[mine["variant"] == v].sort_values(["fold", "seed"]) for v in present}
        reference = by_variant["prepend-ip2"]
        for variant in present:
            runs = by_variant[variant]
            paper_acc = PAPER_ACCURACY.get(name, {}).get(variant)
            paper_rules = PAPER_RULES.get(name, {}).get(variant)
            versus = "" if variant == "prepend-ip2" else (
                paired_p(fold_means(reference, "accuracy"), fold_means(runs, "accuracy")) + " / "
                + paired_p(fold_means(reference, "rules"), fold_means(runs, "rules")))
            fold_balanced = fold_means(runs, "balanced_accuracy")
            balanced, balanced_se, _ = beyond_prior(fold_balanced, chance)
            atoms_per_rule = runs["atoms"].sum() / max(1, runs["rules_without_default"].sum())
            rows.append({
                "dataset": name, "variant": variant,
                "seeds": "1 (deterministic)" if variant in deterministic else str(runs["seed"].nunique()),
                "accuracy %": mean_std(runs, "accuracy"),
                "acc [seeds]": seed_spread(runs, "accuracy", variant in deterministic, digits=1),
                "paper": "-" if paper_acc is None else f"{paper_acc[0]:.1f} ({paper_acc[1]:.1f})",
                "majority acc %": f"{100 * baseline['majority accuracy']:.1f}",
                "balanced acc % (SE)": f"{balanced:.1f} ({balanced_se:.1f})",
                "F1": f"{runs['f1'].mean():.3f}" if two_classes else "-",
                "all-positive F1": f"{baseline['all-positive F1']:.3f}" if two_classes else "-",
                "#rules": mean_std(runs, "rules"),
                "paper #rules": "-" if paper_rules is None else f"{paper_rules[0]:.1f} ({paper_rules[1]:.1f})",
                "p vs ip2 (acc / rules)": versus,
                "atoms/rule": f"{atoms_per_rule:.2f}",
                "nodes/fit": f"{runs['nodes'].mean():.3g}",
                "unproven searches": f"{runs['unproven'].sum()}/{runs['searches'].sum()}",
                "seconds/fit": f"{runs['seconds'].mean():.2f}",
                "acceptance": verdict_of(row_checks(name, variant, runs["accuracy"].mean(), fold_balanced,
                                                    chance)),
            })
        if name not in PAPER_ACCURACY:  # no paper value to check against
            continue
        ip2_rules = reference["rules"].mean()
        append_rules = by_variant.get("append", reference)["rules"].mean()
        verdicts[name] = {
            "accuracy": reference["accuracy"].mean() >= PAPER_ACCURACY[name]["prepend-ip2"][0] - 3.0,
            "fewer_rules": "append" in by_variant and ip2_rules < append_rules,
        }
    return rows, verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=100)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS),
                        help=f"the paper's bundled datasets ({' '.join(DATASETS)}), other bundled datasets, CSV "
                             "paths, or names of CSV files in --data-dir (with a manifest.json beside them)")
    add_data_arguments(parser, "where CSV datasets named by --datasets are")
    parser.add_argument("--jobs", type=int, default=2, help="parallel fits (joblib loky workers)")
    parser.add_argument("--max-nodes", type=int, default=1_000_000)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS,
                        help="variants to fit (prepend-ip2 is always fitted: it is the reference)")
    parser.add_argument("--stratify", action="store_true",
                        help="stratified splits (default: unstratified random splits, as the paper's)")
    parser.add_argument("--tests", default="inequality", choices=("inequality", "equality"),
                        help="attribute-value tests of the rules (the paper's: inequality)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS),
                        help="random_state values of the variants that draw random numbers, each refitted on the "
                             f"same splits (default {' '.join(map(str, SEEDS))}); no decision list draws any, so each "
                             "variant is fitted once")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "prepend_paper.md"))
    add_results_arguments(parser)
    args = parser.parse_args(argv)
    if args.repetitions < 1:
        parser.error("--repetitions must be at least 1")
    config = experiment(args)
    out = Path(args.out)
    runs = Path(args.runs) if args.runs else out.with_name(out.stem + "_runs")
    deterministic = {m["label"] for m in config["methods"] if not takes_seed(m)}
    seconds = 0.0
    records: list[dict] = []
    trivial: dict[str, dict[str, Any]] = {}
    for dataset in config["datasets"]:  # one run per dataset, to report after each: the same splits
        name = dataset["name"]
        pairs = seed_configs({**config, "datasets": [dataset]}, args.seeds, takes_seed)
        settings = {"configs": [one for _, one in pairs]}
        earlier = done(runs, name, settings, args.rerun)
        if earlier is not None:
            log(f"{name}: done earlier, read from {runs / name}.json (--rerun fits it again)")
        else:
            log(f"{name}: {args.repetitions} splits, seeds {[seed for seed, _ in pairs]} (the variants the seed "
                f"does not change once: {', '.join(sorted(deterministic)) or 'none'})")
            began = time.perf_counter()
            fitted = [row for seed, one in pairs for row in records_of(run(one, verbose=True).assign(seed=seed))]
            earlier = {"records": fitted, "trivial": trivial_of(pairs[0][1], name),
                       "seconds": time.perf_counter() - began}
            log(f"{name}: written to {save(runs, name, settings, earlier)}")
        records += earlier["records"]
        trivial[name] = earlier["trivial"]
        seconds += earlier["seconds"]
        report(args, argv, config, records, trivial, deterministic, seconds)
    return 0


def split_kind(protocol: dict[str, Any]) -> str:
    """How the runner draws the splits of ``protocol`` (its configuration dict), for the report."""
    if protocol.get("stratify", True):
        return f"stratified (`StratifiedShuffleSplit`, seed {protocol['seed']})"
    return f"unstratified, as the paper's (`ShuffleSplit`, seed {protocol['seed']})"


def report(args: argparse.Namespace, argv: list[str] | None, config: dict[str, Any], records: list[dict],
           trivial: dict[str, dict[str, Any]], deterministic: set[str], seconds: float) -> None:
    rows, verdicts = summarize(records, trivial, deterministic)
    passed = [n for n, v in verdicts.items() if v["accuracy"]]
    fewer = [n for n, v in verdicts.items() if v["fewer_rules"]]
    compared = [n for n in verdicts if any(r["dataset"] == n and r["variant"] == "append" for r in records)]
    protocol = config["protocol"]
    train = protocol["train_size"]
    seeded = sorted({r["variant"] for r in records} - deterministic)
    lines = [
        f"Total run time: {seconds:.0f} s (the datasets' own times, also of those read from a "
        f"results file). Splits per dataset: {args.repetitions} "
        f"(the experiment runner's `splits` protocol with `{CONFIG.relative_to(CONFIG.parents[2])}`: "
        f"{split_kind(protocol)} random {train:.0%}/{1 - train:.0%} splits, the same for every variant); `max_nodes` = {args.max_nodes} per rule "
        f"search; {args.tests} tests; missing values a value of their own.",
        "",
        "Values are mean (sample std over the splits) over the seeds and the splits; the paper's are Table 2 "
        "(accuracy) and Table 3 (#rules: the default rule is counted for prepend-ip2 only, as in the paper). "
        + (f"Seeds {', '.join(map(str, args.seeds))} were asked for; {', '.join(sorted(deterministic))} draw no random "
           "number (a decision list has no random_state), so each was fitted once: [seeds] 0 (deterministic). "
           if deterministic else "")
        + (f"Refitted with random_state = each seed: {', '.join(seeded)} ([seeds]: the sample std of the per-seed "
           "means). " if seeded else "")
        + "Beside each row, on the same test splits and scored as the lists are (on the original labels): "
        "majority acc, the accuracy of predicting the training split's most frequent class everywhere; the "
        "variant's balanced accuracy (standard error over the splits: the sample std of the per-split values, "
        "each averaged over the seeds, over sqrt(splits)); on two-class data its F1 of the dataset's positive "
        "class and the F1 of predicting every row positive. `p vs ip2`: two-tailed matched-pairs t-test "
        "against prepend-ip2 on the per-split seed means (1.00 when identical). `nodes/fit`: rules evaluated "
        "by all searches of one fit; `unproven searches`: searches stopped at `max_nodes` (their rule is the "
        "best found, not proven optimal).",
        "",
        "Acceptance of a row: balanced accuracy above chance (what the best constant prediction scores on the "
        "same splits: 50 on two classes, 100 / k on k where every test split holds all k) by more than "
        "its standard error, so that a list that predicts one class everywhere fails whatever its accuracy; "
        "for prepend-ip2 on a dataset of Table 2 also accuracy >= Table 2 - 3 points.",
        "",
        markdown_table(rows),
        "",
        "## Acceptance",
        "",
        f"{sum(r['acceptance'] == 'pass' for r in rows)} of {len(rows)} rows pass: "
        + "; ".join(f"{r['dataset']} / {r['variant']} {r['acceptance']}" for r in rows) + ".",
        "",
        *([f"* prepend-ip2 accuracy >= Table 2 - 3 points: {len(passed)}/{len(verdicts)} datasets "
           f"({', '.join(passed) or 'none'})"
           + ("" if len(passed) == len(verdicts) else
              f"; missed: {', '.join(n for n in verdicts if n not in passed)}") + ".",
           (f"* prepend-ip2 has fewer rules than append (paper counting): {len(fewer)}/{len(compared)} "
            f"datasets ({', '.join(fewer) or 'none'})." if compared else "* append was not run.")]
          if verdicts else ["* no dataset of this run has paper values: nothing to check against the paper."]),
        "",
        "Discussion: `docs/methods/decision_lists.md` (reproduction section).",
        "",
    ]
    command = "python benchmarks/prepend_paper.py " + " ".join(argv if argv is not None else sys.argv[1:])
    write_report(args.out, "Decision lists by prepending against the paper (Tables 2 and 3)",
                 command.strip(), "\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
