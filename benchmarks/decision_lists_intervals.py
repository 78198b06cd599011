"""The default ``max_intervals`` of ``DecisionListClassifier``: chosen on development data, checked on
confirmation data it was not chosen on.

* development: scikit-learn's ``breast_cancer`` (wdbc: 569 rows, 30 numeric features) and the
  hidden-rule data of :mod:`synthetic` (1,000 training rows, seed 0; scored on 20,000 fresh rows,
  seed 1);
* confirmation: ``heart_cleveland`` and ``ionosphere`` (numeric features), written by
  ``benchmarks/orange_datasets.py`` into ``--unseen``.

Each real dataset is scored on ``--splits`` stratified 70/30 splits (the same for every cap), the
synthetic one once. Strategy ``prepend-ip2`` with ChiMerge (its default threshold) capped at each
``max_intervals``; every search is limited to ``--max-nodes`` rules.
Beside: the trivial majority model. Prints the table and writes
``benchmarks/results/decision_lists_intervals.md``.

    python benchmarks/decision_lists_intervals.py --unseen /tmp/unseen [--splits 5] [--max-nodes 10000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedShuffleSplit

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)
from synthetic import hidden_rule_data  # noqa: E402  (benchmarks/synthetic.py)

from optrules import DecisionListClassifier

CAPS = (2, 3, 4, 6, 8)


def real_dataset(name: str, unseen: Path) -> tuple[pd.DataFrame, np.ndarray, list[int]]:
    """A dataset as (X, y, categorical column indices)."""
    if name == "wdbc":
        data = load_breast_cancer(as_frame=True)
        return data.data, np.asarray(data.target).astype(str), []
    entry = next(e for e in json.loads((unseen / "manifest.json").read_text()) if e["name"] == name)
    frame = pd.read_csv(unseen / entry["file"])
    X, y = frame.drop(columns="class"), frame["class"].astype(str).to_numpy()
    return X, y, [X.columns.get_loc(c) for c in entry["categorical"]]


def splits(name: str, unseen: Path, n_splits: int):
    """(X_train, y_train, X_test, y_test, categorical) for each evaluation of a dataset."""
    if name == "synthetic":
        X, y = hidden_rule_data(1000, 10, noise=0.05, seed=0)
        X_test, y_test = hidden_rule_data(20000, 10, noise=0.05, seed=1)
        yield X, y, X_test, y_test, []
        return
    X, y, categorical = real_dataset(name, unseen)
    for train, test in StratifiedShuffleSplit(n_splits, test_size=0.3, random_state=0).split(X, y):
        yield X.iloc[train], y[train], X.iloc[test], y[test], categorical


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unseen", type=Path, required=True)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--max-nodes", type=int, default=10_000)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "decision_lists_intervals.md"))
    args = parser.parse_args()
    rows = []
    for role, names in (("development", ("wdbc", "synthetic")), ("confirmation", ("heart_cleveland", "ionosphere"))):
        for name in names:
            data = list(splits(name, args.unseen, args.splits))
            majority = [np.mean(y_test == pd.Series(y_train).mode()[0]) for _, y_train, _, y_test, _ in data]
            rows.append({"set": role, "dataset": name, "max_intervals": "majority",
                         "accuracy %": 100 * statistics.mean(majority), "rules": 0,
                         "proven %": float("nan"), "CPU s / fit": float("nan")})
            for cap in CAPS:
                accuracy, n_rules, proven, cpu = [], [], [], []
                for X_train, y_train, X_test, y_test, categorical in data:
                    start = time.process_time()
                    model = DecisionListClassifier(max_intervals=cap, max_nodes=args.max_nodes,
                                                   categorical=categorical or None).fit(X_train, y_train)
                    cpu.append(time.process_time() - start)
                    accuracy.append(np.mean(model.predict(X_test) == y_test))
                    n_rules.append(model.ruleset_.n_rules)
                    proven.append(model.ruleset_.meta["proven_share"])
                row = {"set": role, "dataset": name, "max_intervals": cap,
                       "accuracy %": 100 * statistics.mean(accuracy), "rules": statistics.mean(n_rules),
                       "proven %": 100 * statistics.mean(proven), "CPU s / fit": statistics.median(cpu)}
                rows.append(row)
                print(row, flush=True)
    command = (f"python benchmarks/decision_lists_intervals.py --unseen /tmp/unseen --splits {args.splits} "
               f"--max-nodes {args.max_nodes}")
    body = (f"prepend-ip2, ChiMerge (threshold 4.6) capped at max_intervals; {args.max_nodes} nodes per search. "
            f"Mean test accuracy and rules over {args.splits} stratified 70/30 splits (synthetic: one fit "
            "on 1,000 rows, scored on 20,000 fresh rows); 'proven %' the mean share of searches proven "
            "optimal; 'CPU s / fit' the median process CPU time of a fit.\n\n" + markdown_table(rows))
    print(write_report(args.out, "Decision lists: the cap on numeric intervals", command, body))


if __name__ == "__main__":
    main()
