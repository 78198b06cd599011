"""LIBRE's defaults against the previous ones and the majority model, on development and confirmation data.

The sets were fixed before any of the new defaults were measured:

* **development** (the defaults were chosen looking at these): the synthetic hidden 3-term DNF of
  ``benchmarks/synthetic.py`` with 10 features, 10,000 training rows (seed 0) and 20,000 test rows
  (seed 1), at label noise 0.05 and 0.1; the bundled ``pima`` and ``australian``;
* **confirmation** (measured once, after the choice): the synthetic data at noise 0 and 0.2 (train
  seed 2, test seed 3) and with 20 features at noise 0.05 (seeds 4 / 5); scikit-learn's breast
  cancer (WDBC, positive "malignant"); Orange's heart_cleveland, ionosphere and titanic
  (``benchmarks/orange_datasets.py``, read from ``--unseen``; skipped when absent).

Models: ``new defaults`` is ``LibreClassifier()`` as shipped; ``old defaults`` the parameters it had
before (alpha 0.7, no ChiMerge interval limit, top-200 filter, no stopping rule, strict conflicts;
5 features per learner, then as now); ``majority`` predicts the training majority class (F1 0 when that is the
negative class). Only the positive class is given (synthetic: "pos"; datasets: their manifest's) and
``random_state=0``. Synthetic rows are scored on the fresh test rows, datasets by stratified 5-fold CV
(shuffled, seed 0): mean test F1 of the positive class, mean number of rules, mean fit CPU seconds
(``time.process_time``; indicative, the machine is shared).

    python benchmarks/libre_defaults.py [--unseen /tmp/unseen] [--out benchmarks/results/libre_defaults.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold

import optrules
from optrules.estimators import LibreClassifier
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)
from synthetic import POSITIVE, hidden_rule_data  # noqa: E402

OLD_DEFAULTS = {"alpha": 0.7, "max_intervals": None, "top_k": 200, "min_gain": 0.0,
                "conflicts": "strict"}
MODELS = {"new defaults": {}, "old defaults": OLD_DEFAULTS}
SYNTHETIC_ROWS, TEST_ROWS = 10_000, 20_000
#: (name, features, noise, train seed, test seed)
DEVELOPMENT_SYNTHETIC = [("hidden DNF, noise 0.05", 10, 0.05, 0, 1), ("hidden DNF, noise 0.1", 10, 0.1, 0, 1)]
CONFIRMATION_SYNTHETIC = [("hidden DNF, noise 0", 10, 0.0, 2, 3), ("hidden DNF, noise 0.2", 10, 0.2, 2, 3),
                          ("hidden DNF, 20 features, noise 0.05", 20, 0.05, 4, 5)]
DEVELOPMENT_DATASETS = ["pima", "australian"]
UNSEEN = ["heart_cleveland", "ionosphere", "titanic"]


def fit_score(params: dict | None, X_train, y_train, X_test, y_test, positive) -> tuple[float, float, float]:
    """(test F1 of ``positive``, number of rules, fit CPU seconds); ``params`` None: the majority model."""
    y_train, y_test = np.asarray(y_train, dtype=object), np.asarray(y_test, dtype=object)
    if params is None:
        labels, counts = np.unique(y_train, return_counts=True)
        predicted = np.full(len(y_test), labels[np.argmax(counts)], dtype=object)
        return f1_score(y_test == positive, predicted == positive, zero_division=0.0), 0.0, 0.0
    model = LibreClassifier(**params, positive=positive, random_state=0)
    start = time.process_time()
    model.fit(X_train, y_train)
    seconds = time.process_time() - start
    predicted = model.predict(X_test)
    return f1_score(y_test == positive, predicted == positive), float(model.ruleset_.n_rules), seconds


def synthetic_rows(split: str, specs: list[tuple]) -> list[dict]:
    rows = []
    for name, features, noise, train_seed, test_seed in specs:
        X, y = hidden_rule_data(SYNTHETIC_ROWS, features, noise=noise, seed=train_seed)
        X_test, y_test = hidden_rule_data(TEST_ROWS, features, noise=noise, seed=test_seed)
        for model, params in [*MODELS.items(), ("majority", None)]:
            f1, rules, seconds = fit_score(params, X, y, X_test, y_test, POSITIVE)
            rows.append(row(split, name, model, f1, rules, seconds))
    return rows


def row(split: str, data: str, model: str, f1: float, rules: float, seconds: float) -> dict:
    result = {"set": split, "data": data, "model": model, "test F1": float(f1), "#rules": float(rules),
              "fit CPU s": float(seconds)}
    print(" | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in result.values()), flush=True)
    return result


def cv_rows(split: str, name: str, X: pd.DataFrame, y: pd.Series, positive) -> list[dict]:
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    rows = []
    for model, params in [*MODELS.items(), ("majority", None)]:
        scores = [fit_score(params, X.iloc[tr], y.iloc[tr], X.iloc[te], y.iloc[te], positive) for tr, te in folds]
        f1, rules, seconds = np.mean(scores, axis=0)
        rows.append(row(split, name, model, f1, rules, seconds))
    return rows


def unseen_dataset(directory: Path, name: str) -> tuple[pd.DataFrame, pd.Series, str] | None:
    manifest = directory / "manifest.json"
    if not manifest.is_file():
        return None
    entry = next((e for e in json.loads(manifest.read_text()) if e["name"] == name), None)
    if entry is None or not (directory / entry["file"]).is_file():
        return None
    X, y = optrules.datasets.load_csv(directory / entry["file"], label=entry.get("label", "class"),
                                      categorical=entry.get("categorical"))
    return X, y.astype(str), str(entry["positive_class"])


def breast_cancer() -> tuple[pd.DataFrame, pd.Series, str]:
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    labels = pd.Series(np.where(data.target == 0, "malignant", "benign"), index=data.frame.index)
    return data.data, labels, "malignant"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unseen", default="/tmp/unseen", help="directory of benchmarks/orange_datasets.py's output")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "libre_defaults.md"))
    args = parser.parse_args(argv)
    rows = synthetic_rows("development", DEVELOPMENT_SYNTHETIC)
    for name in DEVELOPMENT_DATASETS:
        X, y = optrules.load(name)
        rows += cv_rows("development", name, X, y.astype(str), str(optrules.datasets.info(name)["positive_class"]))
    rows += synthetic_rows("confirmation", CONFIRMATION_SYNTHETIC)
    rows += cv_rows("confirmation", "breast_cancer (sklearn WDBC)", *breast_cancer())
    missing = []
    for name in UNSEEN:
        found = unseen_dataset(Path(args.unseen), name)
        if found is None:
            missing.append(name)
            continue
        rows += cv_rows("confirmation", name, *found)
    table = markdown_table(rows)
    print(table)
    note = (f"\n\nNot run (no `{args.unseen}`): {', '.join(missing)}." if missing else "")
    command = "python benchmarks/libre_defaults.py" + (f" --unseen {args.unseen}" if args.unseen != "/tmp/unseen" else "")
    write_report(args.out, "LIBRE defaults: new, old and the majority model", command,
                 (__doc__.split("\n\n", 1)[1].split("    python")[0]) + "\n" + table + note + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
