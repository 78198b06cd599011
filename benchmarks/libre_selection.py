"""Where LIBRE's nested selection loses: selection rules and sub-grids of the paper protocol compared
on the same fits (docs/methods/libre.md, "Where the shortfall on new data comes from").

For one dataset and one learner seed, every configuration of ``benchmarks/libre_paper.py``'s grid is
fitted once on every inner training split of every outer training fold (the runner's splits: outer
stratified 5-fold, inner ``StratifiedKFold(5, shuffle=True, random_state=0)``) and once on every
outer training fold, and the confusion counts of every greedy prefix k are kept (inner validation
and outer test). Any selection rule is then the runner's own :func:`optrules.experiments.tune.choose`
applied to a slice of those counts, and its outer test F1 is read, not refitted: each rule's figures
are those ``libre_paper.py`` reports for seed 0 under that rule. Rows:

* ``V0`` the protocol of ``libre_paper.py`` until 2026-12-04: the 324-configuration grid, libre by the
  one-SE rule (fewest rules, then the best mean inner F1), libre 3 by the best mean inner F1 with k = 3;
* ``V1`` the grid with ChiMerge ``max_intervals = 3`` only (162 configurations), same rules;
* ``V2`` V1 with libre taking the best mean inner F1 (ties: fewest rules), no one-SE margin: the
  protocol of ``libre_paper.py`` on datasets of at most 10,000 rows since 2026-12-04;
* references on the same outer folds: ``LibreClassifier()`` with its defaults and the learner's seed,
  fixed, not tuned, and a depth-5 scikit-learn tree (as ``libre_paper.py --baselines``);
* diagnostics, not candidates: the paper's own grid (E x heuristic x alpha at ChiMerge threshold 6,
  5 features, no interval cap; 18 configurations), the same with the 3-interval cap, and "peeking"
  (the best mean test F1 of one configuration and k fixed for all folds, chosen on the test folds).

The fits of a dataset are kept in ``FITS/<dataset>_seed<seed>.npz`` and reused.

    python benchmarks/libre_selection.py --datasets wdbc ionosphere titanic --data-dir DIR [--seed 0]
        [--jobs 2] [--fits DIR] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from optrules.estimators.libre import LibreClassifier
from optrules.exceptions import DegenerateFitWarning
from optrules.experiments.tune import (InnerTask, TuneSpec, choose, inner_scores, inner_splits,
                                       metric_of_counts, stack_scores)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import libre_paper  # noqa: E402  (benchmarks/libre_paper.py: the protocol's grid, datasets and folds)
from machine import markdown_table, write_report  # noqa: E402

#: The selection rules compared: (label, sub-grid {parameter: kept values}, libre's tune keys).
ONE_SE = {"select": "one-se", "prefer": ("max_rules", "-score")}
BEST = {"select": 0.0, "prefer": ("max_rules", "-score")}
VARIANTS = [
    ("V0 until 2026-12-04 (324)", {}, ONE_SE),
    ("V1 3 intervals only (162)", {"max_intervals": (3,)}, ONE_SE),
    ("V2 3 intervals only, best inner F1 (162; since 2026-12-04)", {"max_intervals": (3,)}, BEST),
    ("paper grid (18; diagnostic)", {"chi2_threshold": (6.0,), "max_features": (5,), "max_intervals": (None,)}, ONE_SE),
    ("paper grid, 3 intervals (18; diagnostic)", {"chi2_threshold": (6.0,), "max_features": (5,), "max_intervals": (3,)},
     ONE_SE),
]
LIBRE3 = {"select": "best", "prefer": (), "min_prefix": libre_paper.LIBRE3_MAX, "max_prefix": libre_paper.LIBRE3_MAX}


def counts_of(prepared, configuration: dict, train: np.ndarray, valid: np.ndarray, seed: int) -> np.ndarray:
    """Confusion counts (prefixes x 4) of LIBRE with ``configuration`` fitted on ``train`` and
    scored on ``valid`` (positions in ``prepared``'s rows)."""
    estimator = LibreClassifier(**{**prepared.method.params, **configuration, "random_state": seed,
                                   "positive": prepared.positive})
    task = InnerTask("libre_selection", estimator, prepared.X, prepared.y, train, valid, prepared.positive,
                     "f1", prefix=True, counts=True)
    with warnings.catch_warnings():  # a fit without rules is a candidate like any other here
        warnings.simplefilter("ignore", DegenerateFitWarning)
        return inner_scores(task)


def fit_all(prepared, configurations: list[dict], seed: int, jobs: int
            ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Per outer fold: the inner counts (configurations x inner splits x prefixes x 4), the outer
    test counts (configurations x prefixes x 4) and the number of rules of each outer fit."""
    inner, outer, rules = [], [], []
    for train, test in prepared.folds:
        splits = [(train[t], train[v]) for t, v in
                  inner_splits(prepared.y.iloc[train], 5, 1, libre_paper.SEED)]
        pairs = [(c, t, v) for c in configurations for t, v in splits] + [(c, train, test) for c in configurations]
        found = Parallel(n_jobs=jobs)(delayed(counts_of)(prepared, c, t, v, seed) for c, t, v in pairs)
        n_inner = len(configurations) * len(splits)
        rows = [found[i * len(splits):(i + 1) * len(splits)] for i in range(len(configurations))]
        inner.append(stack_scores(rows, prefix=True, min_length=libre_paper.LIBRE3_MAX + 1))
        outer.append(stack_scores([[f] for f in found[n_inner:]], prefix=True,
                                  min_length=libre_paper.LIBRE3_MAX + 1)[:, 0])
        rules.append(np.array([len(f) - 1 for f in found[n_inner:]]))
    return inner, outer, rules


def test_f1(outer: np.ndarray, k: int) -> float:
    """The outer test F1 of a fit cut to its first k rules (a fit with fewer rules: all of them)."""
    return float(metric_of_counts(outer[min(k, outer.shape[0] - 1)], "f1"))


def evaluate(grid: tuple, configurations: list[dict], inner: list[np.ndarray], outer: list[np.ndarray],
             rules_of: list[np.ndarray], kept: dict, keys: dict) -> tuple[float, float]:
    """Mean test F1 and mean number of rules of the selection ``keys`` on the sub-grid ``kept``."""
    sub = tuple((name, kept.get(name, values)) for name, values in grid)
    index = [i for i, c in enumerate(configurations) if all(c[name] in values for name, values in sub)]
    spec = TuneSpec(sub, prefix="max_rules", **keys)
    f1s, rules = [], []
    for fold_inner, fold_outer, fold_rules in zip(inner, outer, rules_of):
        choice = choose(spec, metric_of_counts(fold_inner[index], "f1"))
        chosen = index[[configurations[i] for i in index].index(choice.configuration)]
        f1s.append(test_f1(fold_outer[chosen], choice.k))
        rules.append(min(choice.k, fold_rules[chosen]))
    return float(np.mean(f1s)), float(np.mean(rules))


def references(prepared, seed: int) -> dict[str, tuple[float, float | None]]:
    """Mean outer test F1 (and #rules) of ``LibreClassifier()`` with its defaults and of a depth-5 tree."""
    from sklearn.metrics import f1_score
    from sklearn.tree import DecisionTreeClassifier

    target = (prepared.y == prepared.positive).to_numpy()
    encoded = pd.get_dummies(prepared.X, dummy_na=False).to_numpy(dtype=float)
    libre_f1, libre_rules, tree_f1 = [], [], []
    for train, test in prepared.folds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateFitWarning)
            model = LibreClassifier(random_state=seed, positive=prepared.positive).fit(
                prepared.X.iloc[train], prepared.y.iloc[train])
        libre_f1.append(f1_score(target[test], model.predict(prepared.X.iloc[test]) == prepared.positive))
        libre_rules.append(model.ruleset_.n_rules)
        tree = DecisionTreeClassifier(max_depth=5, random_state=libre_paper.SEED).fit(encoded[train], target[train])
        tree_f1.append(f1_score(target[test], tree.predict(encoded[test]), zero_division=0.0))
    return {"LibreClassifier() defaults (reference)": (float(np.mean(libre_f1)), float(np.mean(libre_rules))),
            "dt depth 5 (reference)": (float(np.mean(tree_f1)), None)}


def peeking(inner_outer: list[np.ndarray], lowest: int, highest: int | None) -> float:
    """The best mean test F1 over the folds of one (configuration, k), k in [lowest, highest]."""
    width = max(o.shape[1] for o in inner_outer)
    padded = [np.concatenate([o, np.repeat(o[:, -1:], width - o.shape[1], axis=1)], axis=1) for o in inner_outer]
    f1 = np.mean([metric_of_counts(o, "f1") for o in padded], axis=0)  # configurations x k
    return float(f1[:, lowest:None if highest is None else highest + 1].max())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", required=True)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0, help="the learner's random_state")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--fits", type=Path, default=Path("benchmarks/results/libre_selection_fits"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/libre_selection.md"))
    args = parser.parse_args(argv)
    # the grid of the protocol until 2026-12-04 (V0), of which every variant is a slice
    protocol_args = libre_paper.parse_args(["--seeds", str(args.seed), "--max-intervals", "none", "3",
                                            "--tolerance", "se"])
    args.fits.mkdir(parents=True, exist_ok=True)
    rows, began = [], time.perf_counter()
    for spec in args.datasets:
        dataset = libre_paper.find_dataset(spec, args.data_dir)
        prepared = libre_paper.prepare(libre_paper.experiment(protocol_args, dataset, args.seed))
        grid = prepared.method.tune.grid
        configurations = prepared.method.tune.configurations()
        path = args.fits / f"{dataset.name}_seed{args.seed}.npz"
        if path.exists():
            saved = np.load(path)
            n = len(prepared.folds)
            inner, outer, rules_of = ([saved[f"{key}{f}"] for f in range(n)] for key in ("inner", "outer", "rules"))
        else:
            inner, outer, rules_of = fit_all(prepared, configurations, args.seed, args.jobs)
            np.savez_compressed(path, **{f"{key}{f}": a for key, arrays in
                                         (("inner", inner), ("outer", outer), ("rules", rules_of))
                                         for f, a in enumerate(arrays)})
        for label, kept, keys in VARIANTS:
            libre_f1, libre_rules = evaluate(grid, configurations, inner, outer, rules_of, kept, keys)
            three_f1, three_rules = evaluate(grid, configurations, inner, outer, rules_of, kept, LIBRE3)
            rows.append({"dataset": dataset.name, "selection": label, "libre F1": f"{libre_f1:.3f}",
                         "libre #rules": f"{libre_rules:.1f}", "libre 3 F1": f"{three_f1:.3f}",
                         "libre 3 #rules": f"{three_rules:.1f}"})
        for label, (f1, rules) in references(prepared, args.seed).items():
            rows.append({"dataset": dataset.name, "selection": label, "libre F1": f"{f1:.3f}",
                         "libre #rules": "-" if rules is None else f"{rules:.1f}", "libre 3 F1": "-",
                         "libre 3 #rules": "-"})
        rows.append({"dataset": dataset.name, "selection": "peeking (not an estimate)",
                     "libre F1": f"{peeking(outer, 1, None):.3f}", "libre #rules": "-",
                     "libre 3 F1": f"{peeking(outer, libre_paper.LIBRE3_MAX, libre_paper.LIBRE3_MAX):.3f}",
                     "libre 3 #rules": "-"})
        print(markdown_table(rows[-len(VARIANTS) - 3:]), flush=True)
    command = "python benchmarks/libre_selection.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    body = (f"Learner seed {args.seed}; outer folds and inner splits of `benchmarks/libre_paper.py` "
            f"(seed 0). The fits are kept in `{args.fits}` and read back when present: this run took "
            f"{time.perf_counter() - began:.0f} s.\n\n" + markdown_table(rows))
    write_report(args.out, "LIBRE: selection rules on the same fits", command, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
