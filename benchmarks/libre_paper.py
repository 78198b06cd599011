"""LIBRE against the paper's UCI results (Mita et al., Section 4 protocol, Appendix E Tables 7-9),
run by the experiment runner with its nested selection (the ``tune`` step).

The script builds a configuration dict per dataset and calls :func:`optrules.experiments.run`; the
table below is made from the returned rows (``f1``, ``n_rules``, ``avg_atoms`` and the ``tune.*``
columns of the chosen configurations). See docs/experiments.md, "Nested selection: the tune step".

Protocol (Section 4): outer stratified 5-fold CV (the runner's ``kfold`` protocol, seed 0); positive
class = the dataset's. Two methods, ``libre`` and ``libre 3``, both LIBRE tuned on every outer
training fold over the grid E (``n_estimators``) in {5, 20, 50} x heuristic in {H1, H2} x ChiMerge
threshold in {6, 4.6, 4} x alpha in {.5, .7, .9}, with 5 features per weak learner;
``--max-features 2 3 5`` and ``--max-intervals none 3`` add two dimensions of our own ("each weak
learner uses up to 5 features"; ChiMerge's maximum number of intervals). Every fit has
``random_state = 0`` (``--random-state``) and ``n_jobs = 1`` (the runner keeps a ``random_state``
set in ``params``).

Alpha: with ``conflicts="strict"`` (the default) a LIBRE weak learner's points cover no training
negative, so every candidate's greedy weight is ``alpha * (positives it still covers)``: alpha scales
all weights by the same factor and cannot change the greedy choice, and the grid is collapsed to
alpha = 0.7 (18 configurations). The script checks once per dataset (fold 0, outside the runner)
that alpha .5 and .9 give the same rules as .7. With ``--conflicts majority`` alpha decides which
class a shared binned row goes to, so the full alpha grid is searched (54 configurations).

Number of rules: the greedy cover only stops when the positives run out, hence ``max_rules`` is
chosen too, by the tune step's prefix scoring (``prefix = "max_rules"``): the greedy rules are in
selection order, so the model ``max_rules=k`` is the first k rules of the unlimited fit, and every k
is scored from one inner fit (tests/test_experiments.py checks this against refits for every
prefix-capable method).

Selection (training fold only): inner ``StratifiedKFold(--inner-folds, shuffle=True, random_state=0)``
(default 3); mean inner F1 per (configuration, k); one-standard-error rule: among the (configuration,
k) whose mean F1 is at least best mean - SE(best) (SE = sample std / sqrt(folds) of the best's inner
F1s; ``--tolerance 0.01`` uses a fixed F1 difference instead), the smallest k, then the highest mean
inner F1, then grid order (E 5, 20, 50 first, so the smallest E; then H1 before H2, threshold 6, 4.6,
4, ...) -- ``prefer = ["max_rules", "-score"]``; "tied" is the number of near-ties still tied after k
and F1 (the runner's ``tune.ties``). Then refit on the whole outer training fold with the chosen
configuration and ``max_rules=k``; score on the outer test fold. "libre 3" (``--libre3 fixed``, the
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

Adult (48,842 rows): ``--adult-train all`` (the default) tunes and fits on the full outer training
folds (a fit takes 2-11 s); a number of rows uses a stratified subsample of each outer training fold
instead (the runner's per-dataset ``max_train``), tested on the full outer test fold; E is
restricted to ``--adult-estimators``.

    python benchmarks/libre_paper.py [--quick] [--datasets pima haberman] [--n-jobs 2]
        [--conflicts majority] [--max-features 2 3 5] [--max-intervals none 3] [--inner-folds 5]
        [--tolerance se] [--top-k none] [--adult-train all] [--adult-estimators 5 20]
        [--libre3 fixed] [--oracle] [--random-state 0] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import optrules
from optrules.experiments import load_config, run
from optrules.experiments.run import _positive
from optrules.experiments.tune import InnerTask, inner_scores, stack_scores
from optrules.learners.libre import LibreClassifier

sys.path.insert(0, str(Path(__file__).parent))
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

MAX_FEATURES = 5
ALPHA = 0.7
ALPHAS = (0.5, 0.7, 0.9)
ESTIMATORS = (5, 20, 50)
HEURISTICS = ("H1", "H2")
THRESHOLDS = (6.0, 4.6, 4.0)
SEED = 0
LIBRE3_MAX = 3
LABELS = ("libre", "libre 3")

#: The paper's values, Appendix E: F1 from Table 7, #rules from Table 8, atoms per rule from Table 9
#: (columns "libre" and "libre 3"; mean and st. dev.). Pima's libre 3 F1 is printed "..64(.05)".
PAPER = {
    "tic_tac_toe": {"libre": {"f1": (1.00, 0.00), "rules": (9.0, 1.1), "atoms": (3.8, 0.8)},
                    "libre 3": {"f1": (0.68, 0.04), "rules": (3.0, 0.0), "atoms": (3.0, 0.0)}},
    "wisconsin": {"libre": {"f1": (0.95, 0.01), "rules": (4.2, 0.7), "atoms": (3.2, 1.0)},
                  "libre 3": {"f1": (0.93, 0.02), "rules": (3.0, 0.0), "atoms": (2.8, 1.0)}},
    "australian": {"libre": {"f1": (0.84, 0.03), "rules": (2.4, 1.4), "atoms": (4.4, 1.8)},
                   "libre 3": {"f1": (0.84, 0.03), "rules": (2.2, 0.7), "atoms": (4.4, 1.3)}},
    "pima": {"libre": {"f1": (0.64, 0.05), "rules": (1.6, 1.0), "atoms": (2.5, 0.7)},
             "libre 3": {"f1": (0.64, 0.05), "rules": (1.6, 1.0), "atoms": (2.5, 0.7)}},
    "heart_statlog": {"libre": {"f1": (0.77, 0.06), "rules": (10.6, 3.0), "atoms": (7.7, 0.7)},
                      "libre 3": {"f1": (0.75, 0.02), "rules": (2.8, 0.4), "atoms": (6.1, 2.7)}},
    "haberman": {"libre": {"f1": (0.41, 0.04), "rules": (1.6, 0.8), "atoms": (2.1, 0.3)},
                 "libre 3": {"f1": (0.41, 0.04), "rules": (1.6, 0.8), "atoms": (2.1, 0.3)}},
    "adult": {"libre": {"f1": (0.70, 0.01), "rules": (14.0, 2.1), "atoms": (7.8, 1.0)},
              "libre 3": {"f1": (0.62, 0.01), "rules": (3.0, 0.0), "atoms": (6.5, 0.7)}},
}

DATASETS = ["tic_tac_toe", "wisconsin", "australian", "pima", "heart_statlog", "haberman", "adult"]


def log(*args) -> None:
    print(*args, flush=True)


def grid_of(args: argparse.Namespace, dataset: str) -> dict[str, list]:
    """The tuned parameters and their values, in grid order (E varies slowest)."""
    if args.quick:
        grid = {"n_estimators": [5, 20], "heuristic": ["H1"], "chi2_threshold": [6.0, 4.6], "alpha": [ALPHA],
                "max_features": [MAX_FEATURES], "max_intervals": [None]}
    else:
        grid = {"n_estimators": list(ESTIMATORS), "heuristic": list(HEURISTICS),
                "chi2_threshold": list(THRESHOLDS),
                "alpha": list(ALPHAS) if args.conflicts == "majority" else [ALPHA],
                "max_features": list(args.max_features),
                "max_intervals": [None if v.lower() == "none" else int(v) for v in args.max_intervals]}
    if dataset == "adult":
        grid["n_estimators"] = [e for e in grid["n_estimators"] if e in args.adult_estimators]
    return grid


def experiment(args: argparse.Namespace, dataset: str) -> dict[str, Any]:
    """The runner's configuration for one dataset: libre and libre 3, tuned on every outer fold."""
    tune = {"grid": grid_of(args, dataset), "inner_folds": args.inner_folds,
            "inner_repeats": args.inner_repeats, "metric": "f1",
            "select": "one-se" if args.tolerance == "se" else float(args.tolerance),
            "prefix": "max_rules", "prefer": ["max_rules", "-score"]}
    params = {"conflicts": args.conflicts, "top_k": args.top_k, "n_jobs": 1, "random_state": args.random_state}
    entry: dict[str, Any] = {"name": dataset}
    if dataset == "adult" and args.adult_train is not None:
        entry["max_train"] = args.adult_train
    if args.libre3 == "fixed":
        libre3_tune = {**tune, "min_prefix": LIBRE3_MAX, "max_prefix": LIBRE3_MAX, "select": "best",
                       "prefer": []}
    else:
        libre3_tune = {**tune, "max_prefix": LIBRE3_MAX}
    return {
        "title": f"LIBRE paper: {dataset}",
        "protocol": {"kind": "kfold", "folds": 5, "seed": SEED},
        "datasets": [entry],
        "methods": [{"name": "libre", "label": "libre", "params": params, "tune": tune},
                    {"name": "libre", "label": "libre 3", "params": params,
                     "tune": libre3_tune}],
        "parallel": {"backend": "loky", "jobs": args.n_jobs},
    }


def alpha_premise(config: dict[str, Any]) -> bool:
    """Whether alpha .5, .7 and .9 give the same rules on fold 0's training data (the middle
    configuration of the grid): the premise of collapsing the alpha grid under conflicts="strict"."""
    resolved = load_config(config)
    dataset, method = resolved.datasets[0], resolved.methods[0]
    X, y = optrules.load(dataset.name)
    train = resolved.protocol.subsample(resolved.protocol.splits(y)[0][0], y, dataset.max_train)
    configurations = method.tune.configurations()
    chosen = {**method.params, **configurations[len(configurations) // 2]}
    rules = {str(LibreClassifier(**{**chosen, "alpha": a}).fit(X.iloc[train], y.iloc[train]).ruleset_.rules)
             for a in ALPHAS}
    return len(rules) == 1


def oracle(config: dict[str, Any], n_jobs: int, libre3: str) -> dict[str, float]:
    """Not an estimate: the best mean outer-test F1 of a configuration fixed in advance, chosen by
    looking at the outer test folds. Every configuration of the grid is fitted on every outer
    training fold (no inner CV) and every greedy prefix k scored on the outer test fold; the mean
    over the folds of (configuration, k) is maximised over k >= 1 ("libre") and over k = 3 ("libre 3",
    max_rules = 3; k <= 3 when ``libre3`` is "tuned"). This is the figure a selection that peeks at the test folds would report; the gap
    to the nested figure is the cost of choosing from training data only."""
    from joblib import Parallel, delayed

    resolved = load_config(config)
    dataset, method = resolved.datasets[0], resolved.methods[0]
    X, y = dataset.load()
    positive = _positive(dataset, y)  # the runner's rule: configured, else the manifest's, else minority
    splits = resolved.protocol.splits(y)
    configurations = method.tune.configurations()
    tasks = [InnerTask(f"oracle {c}", LibreClassifier(**{**method.params, **c, "positive": positive}), X, y,
                       resolved.protocol.subsample(train, y, dataset.max_train), test, positive, "f1", True)
             for c in configurations for train, test in splits]
    scores = Parallel(n_jobs=n_jobs)(delayed(inner_scores)(task) for task in tasks)
    rows = [scores[c * len(splits):(c + 1) * len(splits)] for c in range(len(configurations))]
    means = stack_scores(rows, prefix=True, min_length=LIBRE3_MAX + 1).mean(axis=1)  # configuration x k
    lowest = LIBRE3_MAX if libre3 == "fixed" else 1
    return {"libre": float(means[:, 1:].max()), "libre 3": float(means[:, lowest:LIBRE3_MAX + 1].max())}


def config_text(row: pd.Series) -> str:
    intervals = row["tune.max_intervals"]
    return (f"E={int(row['tune.n_estimators'])} {row['tune.heuristic']} chi2={row['tune.chi2_threshold']:g} "
            f"alpha={row['tune.alpha']:g} features={int(row['tune.max_features'])} "
            f"intervals={'any' if intervals is None or pd.isna(intervals) else int(intervals)}")


def choices(results: pd.DataFrame) -> list[str]:
    """The chosen configuration of every method and outer fold, from the tune.* columns."""
    lines = []
    for _, row in results.sort_values(["fold", "method"], kind="stable").iterrows():
        lines.append(f"{row['method']} fold {row['fold']}: {config_text(row)} k={int(row['tune.max_rules'])} "
                     f"(inner F1 {row['tune.score']:.3f}, best {row['tune.best']:.3f}, SE {row['tune.se']:.3f}, "
                     f"tied {int(row['tune.ties'])}) -> {row['n_rules']} rules, test F1 {row['f1']:.3f}")
    return lines


def summarize(name: str, label: str, rows: pd.DataFrame, adult_note: str, peeked: float | None) -> dict:
    f1 = rows["f1"].to_numpy()
    rules = rows["n_rules"].to_numpy(dtype=float)
    atoms = rows["avg_atoms"].to_numpy()
    paper = PAPER[name][label]
    f1_ok = f1.mean() >= paper["f1"][0] - 0.03
    rules_ok = rules.mean() <= max(1.5 * paper["rules"][0], paper["rules"][0] + 3)
    verdict = "pass" if f1_ok and rules_ok else "FAIL (" + ", ".join(
        w for w, ok in (("F1", f1_ok), ("#rules", rules_ok)) if not ok) + ")"
    return {"dataset": name + adult_note, "method": label,
            "F1": f"{f1.mean():.3f} ({f1.std(ddof=1):.3f})",
            "paper F1": f"{paper['f1'][0]:.2f} ({paper['f1'][1]:.2f})",
            **({} if peeked is None else {"F1 peeking (not an estimate)": f"{peeked:.3f}"}),
            "#rules": f"{rules.mean():.1f} ({rules.std(ddof=1):.1f})",
            "paper #rules": f"{paper['rules'][0]:.1f} ({paper['rules'][1]:.1f})",
            "atoms/rule": f"{atoms.mean():.2f}",
            "paper atoms": f"{paper['atoms'][0]:.1f}",
            "acceptance": verdict}


def command_of(args: argparse.Namespace, datasets: list[str]) -> str:
    intervals = [v.lower() for v in args.max_intervals]
    command = "python benchmarks/libre_paper.py" + (" --quick" if args.quick else "") + (
        f" --datasets {' '.join(args.datasets)}" if args.datasets else "") + f" --n-jobs {args.n_jobs}" + (
        f" --conflicts {args.conflicts}" if args.conflicts != "strict" else "") + (
        f" --max-features {' '.join(map(str, args.max_features))}" if args.max_features != [MAX_FEATURES] else "") + (
        f" --max-intervals {' '.join(args.max_intervals)}" if intervals != ["none"] else "") + (
        f" --tolerance {args.tolerance}" if args.tolerance != "se" else "") + (
        f" --inner-folds {args.inner_folds}" if args.inner_folds != 3 else "") + (
        f" --inner-repeats {args.inner_repeats}" if args.inner_repeats != 1 else "") + (
        f" --top-k {args.top_k}" if args.top_k is not None else "") + (
        f" --libre3 {args.libre3}" if args.libre3 != "fixed" else "") + (
        " --oracle" if args.oracle else "") + (
        f" --random-state {args.random_state}" if args.random_state != SEED else "")
    if "adult" in datasets:
        command += f" --adult-train {args.adult_train or 'all'} --adult-estimators " + " ".join(
            map(str, args.adult_estimators))
    return command


def grid_text(grid: dict[str, list], top_k: int | None, random_state: int) -> str:
    return (f"E in {grid['n_estimators']}, heuristic in {grid['heuristic']}, ChiMerge threshold in "
            f"{grid['chi2_threshold']}, alpha in {grid['alpha']}, max_features in {grid['max_features']}, "
            f"ChiMerge max_intervals in {[v or 0 for v in grid['max_intervals']]} (0 = none), top_k = {top_k} "
            f"({'no filter' if top_k is None else 'filter'}), random_state = {random_state}, k = max_rules from the greedy prefixes")


def _rows_or_all(text: str) -> int | None:
    return None if text.lower() == "all" else int(text)


def _rows_or_none(text: str) -> int | None:
    return None if text.lower() == "none" else int(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 datasets, smaller grid (a smoke run)")
    parser.add_argument("--datasets", nargs="+", default=None, choices=DATASETS)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--adult-train", type=_rows_or_all, default=None,
                        help="stratified subsample of adult's outer training fold (inner CV and refit); "
                             "'all' = the whole fold")
    parser.add_argument("--adult-estimators", type=int, nargs="+", default=[5, 20],
                        help="E values tried on adult (reduced grid)")
    parser.add_argument("--conflicts", choices=["strict", "majority"], default="strict",
                        help="LibreClassifier(conflicts=...) for every fit")
    parser.add_argument("--max-features", type=int, nargs="+", default=[MAX_FEATURES],
                        help="features per weak learner tried ('each weak learner uses up to 5 features')")
    parser.add_argument("--max-intervals", nargs="+", default=["none"],
                        help="ChiMerge max_intervals tried ('none' = threshold only, the paper)")
    parser.add_argument("--tolerance", default="se",
                        help="near-ties of the best inner F1: 'se' (one standard error) or an F1 difference")
    parser.add_argument("--inner-folds", type=int, default=3)
    parser.add_argument("--inner-repeats", type=int, default=1,
                        help="repeated inner cross-validation: repeat r shuffles with seed + r")
    parser.add_argument("--top-k", type=_rows_or_none, default=None,
                        help="LibreClassifier(top_k=...): 'none' (the default here) fits without the "
                             "candidate filter, as the paper's experiments do; a number keeps that many")
    parser.add_argument("--libre3", choices=["fixed", "tuned"], default="fixed",
                        help="libre 3: max_rules = 3 with the configuration tuned ('fixed', the paper's "
                             "definition) or k <= 3 tuned like libre's k ('tuned', the earlier protocol)")
    parser.add_argument("--random-state", type=int, default=SEED,
                        help="LibreClassifier(random_state=...) of every fit (the feature subsets); the "
                             "outer and inner splits keep seed 0")
    parser.add_argument("--oracle", action="store_true",
                        help="also report the best fixed configuration chosen on the outer test folds "
                             "(a diagnostic, not an estimate: see oracle())")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    datasets = args.datasets or (["haberman", "wisconsin"] if args.quick else DATASETS)
    out = Path(args.out) if args.out else Path(__file__).parent / "results" / "libre_paper.md"

    rows, details = [], []
    started = time.perf_counter()
    for name in datasets:
        config = experiment(args, name)
        n_configurations = int(np.prod([len(v) for v in config["methods"][0]["tune"]["grid"].values()]))
        log(f"{name}: {n_configurations} configurations")
        began = time.perf_counter()
        results = run(config)
        seconds = time.perf_counter() - began
        note = ""
        if name == "adult":
            rows_note = "all" if args.adult_train is None else f"{args.adult_train}"
            note = f" ({rows_note} train rows/fold, E in {sorted(set(args.adult_estimators))})"
        peeked = oracle(config, args.n_jobs, args.libre3) if args.oracle else {}
        for label in LABELS:
            rows.append(summarize(name, label, results[results["method"] == label], note, peeked.get(label)))
            log(rows[-1])
        alpha_same = alpha_premise(config)
        lines = choices(results)
        log("\n".join(f"  {name} {line}" for line in lines))
        details.append(f"* {name}: {seconds:.0f} s; alpha .5/.7/.9 same rules (fold 0): {alpha_same}\n"
                       + "\n".join(f"  * {line}" for line in lines))
    total = time.perf_counter() - started
    table = markdown_table(rows)
    log(table)
    log(f"total {total:.0f} s")
    grid = grid_of(args, "adult" if datasets == ["adult"] else "")
    repeated = f" repeated {args.inner_repeats} times" if args.inner_repeats > 1 else ""
    tolerance = "one standard error" if args.tolerance == "se" else f"{float(args.tolerance):g} F1"
    write_report(
        out, "LIBRE against the paper (Appendix E, Tables 7-9)", command_of(args, datasets),
        f"Total run time: {total:.0f} s ({args.n_jobs} worker(s); the nested runs by the experiment runner, "
        "the alpha check" + (" and the --oracle fits" if args.oracle else "") + ").\n\n"
        f"Grid: {grid_text(grid, args.top_k, args.random_state)}"
        + (f" (adult: E in {grid_of(args, 'adult')['n_estimators']})" if "adult" in datasets and datasets != ["adult"]
           else "") + ". Outer stratified 5-fold CV (shuffle, seed 0); selection by inner "
        f"stratified {args.inner_folds}-fold CV{repeated} on the outer training fold (the runner's tune step); among "
        f"the (configuration, k) within {tolerance} of the best mean inner F1, fewer rules first "
        "(smallest k, then highest inner F1, then grid order: smallest E first); refit on the outer "
        "training fold with max_rules = k. "
        + ("libre 3: max_rules = 3 (not tuned), the configuration with the best mean inner F1 (ties: grid "
           "order). " if args.libre3 == "fixed" else "libre 3: k <= 3. ")
        + "Acceptance: mean F1 >= paper - 0.03 and "
        "mean #rules <= max(1.5 x paper, paper + 3). Values are mean (sample std) over the 5 outer "
        "folds; paper values are the libre / libre 3 columns of Tables 7 (F1), 8 (#rules), 9 (atoms)."
        + (" \"F1 peeking\" is not an estimate: the best mean test F1 of one (configuration, k) of the grid "
           "fixed for all five folds, chosen by looking at the outer test folds (k >= 1 for libre, "
           + ("k = 3" if args.libre3 == "fixed" else "k <= 3") + " for libre 3; no inner CV). Nor is it a "
           "ceiling: the nested selection may choose a different configuration on each fold."
           if args.oracle else "") + "\n\n"
        f"{table}\n\n## Verdicts\n\n"
        + "\n".join(f"* {r['dataset']} / {r['method']}: {r['acceptance']} (F1 {r['F1']} vs {r['paper F1']}, "
                    f"#rules {r['#rules']} vs {r['paper #rules']})" for r in rows)
        + "\n\n## Per-dataset checks and chosen configurations\n\n" + "\n".join(details) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
