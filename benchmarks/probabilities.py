"""Probability estimates of every registered method, beside a trivial model: 5-fold cross-validated
ROC AUC, average precision and log-loss (``cross_val_score`` with scikit-learn's scorers).

The labels are 1 for the positive class (the dataset's, else the minority) and 0 otherwise. The
trivial model is ``DummyClassifier(strategy="prior")``: AUC 0.5, average precision the positive
share, and the log-loss of the class prior. Exact methods get ``--time-limit`` seconds per fit.
Datasets: bundled names, ``wdbc`` (scikit-learn's), or CSVs of ``--data-dir`` with their
``manifest.json`` (``benchmarks/orange_datasets.py`` writes such a directory).

    python benchmarks/probabilities.py --datasets heart_statlog --out benchmarks/results/probabilities.md
    python benchmarks/probabilities.py --datasets wdbc ionosphere --data-dir /tmp/unseen \\
        --out benchmarks/results/probabilities_confirmation.md
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from brcg_paper import load  # noqa: E402  (benchmarks/brcg_paper.py)
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import StratifiedKFold, cross_validate

from optrules.registry import METHODS, make_estimator

SCORERS = {"AUC": "roc_auc", "AP": "average_precision", "log-loss": "neg_log_loss"}


def estimator(name: str, time_limit: float):
    if name == "trivial (prior)":
        return DummyClassifier(strategy="prior")
    params = {"random_state": 0} if "random_state" in METHODS[name].estimator().get_params() else {}
    if METHODS[name].exact:
        params["solver_options"] = {"time_limit": time_limit}
    return make_estimator(name, **params)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["heart_statlog"])
    parser.add_argument("--methods", nargs="+", default=sorted(METHODS))
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "probabilities.md"))
    args = parser.parse_args()
    rows = []
    for dataset in args.datasets:
        _, X, y, positive = load(dataset, args.data_dir)
        target = (y == positive).astype(int).to_numpy()
        folds = StratifiedKFold(5, shuffle=True, random_state=0)
        for name in ["trivial (prior)", *args.methods]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scores = cross_validate(estimator(name, args.time_limit), X, target, cv=folds,
                                        scoring=list(SCORERS.values()))
            row = {"dataset": dataset, "method": name}
            for label, scorer in SCORERS.items():
                values = scores[f"test_{scorer}"] * (-1 if scorer.startswith("neg_") else 1)
                row[label] = float(np.mean(values))
            rows.append(row)
            print(row, flush=True)
    body = ("5-fold stratified CV (seed 0); mean over the folds. AUC and AP: higher is better; log-loss: "
            "lower is better. The trivial model's row is the bar every method must clear.\n\n"
            + markdown_table(rows) + "\n")
    command = "python benchmarks/probabilities.py " + " ".join(sys.argv[1:])
    print(write_report(args.out, "Probability estimates against a trivial model", command, body))


if __name__ == "__main__":
    main()
