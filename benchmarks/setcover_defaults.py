"""setcover-greedy's candidate defaults: the variants considered, then the chosen against the previous
defaults, the majority and the all-positive model, on development and confirmation data.

The sets were fixed before any variant was measured:

* **development** (the default was chosen looking at these): the synthetic hidden 3-term DNF of
  ``benchmarks/synthetic.py`` with 10 features at label noise 0.05, 10,000 training rows (seed 0)
  and 20,000 test rows (seed 1); the bundled ``breast_cancer`` and ``heart_statlog``;
* **confirmation** (measured once, after the choice): the same synthetic distribution with 100,000
  training rows (seed 0; test seed 1, as ``benchmarks/peers.py`` at 100k), at noise 0 and 0.2 (10k
  rows, seeds 2 / 3) and with 20 features at noise 0.05 (seeds 4 / 5); scikit-learn's breast cancer
  (WDBC, positive "malignant"); Orange's heart_cleveland, ionosphere and titanic
  (``benchmarks/orange_datasets.py``, read from ``--unseen``; skipped when absent).

Variants (development only): the candidate ranking (``exclusiveness``, the previous default, or
``gain``, the cover's own weight with the filter of ``optrules.candidates``) times the candidate
budget ``max_candidates``. Models of both sets: ``new defaults`` is
``SetCoverClassifier(selection="greedy")`` as shipped (``optrules.fit(method="setcover-greedy")``);
``old defaults`` the candidate options it had before (exclusiveness, 500 candidates); ``majority``
predicts the training majority class (F1 0 when that is the negative class); ``all positive``
predicts the positive class everywhere. Only the positive class is given (synthetic: "pos";
datasets: their manifest's, else the minority class). Synthetic rows are scored on the fresh test
rows, datasets by stratified 5-fold CV (shuffled, seed 0): mean test F1 of the positive class, mean
number of rules, mean fit CPU seconds (``time.process_time``, the first fit of the process
included; indicative, the machine is shared: ``benchmarks/setcover_speed.py`` times the warm fit).

    python benchmarks/setcover_defaults.py [--unseen /tmp/unseen] [--out benchmarks/results/setcover_defaults.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold

import optrules
from optrules.estimators import SetCoverClassifier
from libre_defaults import breast_cancer, unseen_dataset  # noqa: E402  (benchmarks/libre_defaults.py)
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)
from synthetic import POSITIVE, hidden_rule_data  # noqa: E402

OLD_DEFAULTS = {"ranking": "exclusiveness", "max_candidates": 500}
VARIANTS = {f"{ranking}, {budget}": {"ranking": ranking, "max_candidates": budget}
            for ranking in ("exclusiveness", "gain") for budget in (250, 500, 1000, 2000)}
MODELS = {"new defaults": {}, "old defaults": OLD_DEFAULTS}
BASELINES = ("majority", "all positive")
TEST_ROWS = 20_000
#: (name, training rows, features, noise, train seed, test seed)
DEVELOPMENT_SYNTHETIC = [("hidden DNF 10k, noise 0.05", 10_000, 10, 0.05, 0, 1)]
CONFIRMATION_SYNTHETIC = [("hidden DNF 100k, noise 0.05", 100_000, 10, 0.05, 0, 1),
                          ("hidden DNF 10k, noise 0", 10_000, 10, 0.0, 2, 3),
                          ("hidden DNF 10k, noise 0.2", 10_000, 10, 0.2, 2, 3),
                          ("hidden DNF 10k, 20 features, noise 0.05", 10_000, 20, 0.05, 4, 5)]
DEVELOPMENT_DATASETS = ["breast_cancer", "heart_statlog"]
UNSEEN = ["heart_cleveland", "ionosphere", "titanic"]


def fit_score(model: str, candidates: dict | None, X_train, y_train, X_test, y_test,
              positive) -> tuple[float, float, float]:
    """(test F1 of ``positive``, number of rules, fit CPU seconds) of a candidate setting or a baseline."""
    y_train, y_test = np.asarray(y_train, dtype=object), np.asarray(y_test, dtype=object)
    truth = y_test == positive
    if model == "majority":
        labels, counts = np.unique(y_train, return_counts=True)
        return f1_score(truth, np.full(len(y_test), labels[np.argmax(counts)] == positive), zero_division=0.0), 0, 0
    if model == "all positive":
        return f1_score(truth, np.ones(len(y_test), dtype=bool), zero_division=0.0), 1.0, 0.0
    estimator = SetCoverClassifier(selection="greedy", candidates=candidates or None, positive=positive)
    start = time.process_time()
    estimator.fit(X_train, y_train)
    seconds = time.process_time() - start
    return f1_score(truth, estimator.predict(X_test) == positive), float(estimator.ruleset_.n_rules), seconds


def row(split: str, data: str, model: str, f1: float, rules: float, seconds: float) -> dict:
    result = {"set": split, "data": data, "model": model, "test F1": float(f1), "#rules": float(rules),
              "fit CPU s": float(seconds)}
    print(" | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in result.values()), flush=True)
    return result


def synthetic_rows(split: str, specs: list[tuple], models: dict) -> list[dict]:
    rows = []
    for name, n_rows, features, noise, train_seed, test_seed in specs:
        X, y = hidden_rule_data(n_rows, features, noise=noise, seed=train_seed)
        X_test, y_test = hidden_rule_data(TEST_ROWS, features, noise=noise, seed=test_seed)
        for model in [*models, *BASELINES]:
            rows.append(row(split, name, model, *fit_score(model, models.get(model), X, y, X_test, y_test, POSITIVE)))
    return rows


def cv_rows(split: str, name: str, X: pd.DataFrame, y: pd.Series, positive, models: dict) -> list[dict]:
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    rows = []
    for model in [*models, *BASELINES]:
        scores = [fit_score(model, models.get(model), X.iloc[tr], y.iloc[tr], X.iloc[te], y.iloc[te], positive)
                  for tr, te in folds]
        rows.append(row(split, name, model, *np.mean(scores, axis=0)))
    return rows


def bundled(name: str) -> tuple[pd.DataFrame, pd.Series, str]:
    X, y = optrules.load(name)
    y = y.astype(str)
    positive = optrules.datasets.info(name).get("positive_class") or y.value_counts().idxmin()
    return X, y, str(positive)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unseen", default="/tmp/unseen", help="directory of benchmarks/orange_datasets.py's output")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "setcover_defaults.md"))
    parser.add_argument("--development-only", action="store_true", help="only the development rows")
    args = parser.parse_args(argv)
    development = {**MODELS, **VARIANTS}
    rows = synthetic_rows("development", DEVELOPMENT_SYNTHETIC, development)
    for name in DEVELOPMENT_DATASETS:
        rows += cv_rows("development", name, *bundled(name), development)
    missing = []
    if not args.development_only:
        rows += synthetic_rows("confirmation", CONFIRMATION_SYNTHETIC, MODELS)
        rows += cv_rows("confirmation", "breast_cancer (sklearn WDBC)", *breast_cancer(), MODELS)
        for name in UNSEEN:
            found = unseen_dataset(Path(args.unseen), name)
            if found is None:
                missing.append(name)
                continue
            rows += cv_rows("confirmation", name, *found, MODELS)
    table = markdown_table(rows)
    print(table)
    note = (f"\n\nNot run (no `{args.unseen}`): {', '.join(missing)}." if missing else "")
    command = "python benchmarks/setcover_defaults.py" + (f" --unseen {args.unseen}" if args.unseen != "/tmp/unseen" else "")
    if args.development_only:
        command += " --development-only"
    write_report(args.out, "setcover-greedy candidate defaults: variants, new, old and the baselines", command,
                 (__doc__.split("\n\n", 1)[1].split("    python")[0]) + "\n" + table + note + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
