"""Write the UCI datasets that ship inside scikit-learn as CSV files in optrules' format, for the
development / confirmation split of docs/methods/libre.md.

The files (label column ``class``, with the class names as labels) and a ``manifest.json`` naming
their positive class go to ``--out``; ``benchmarks/libre_paper.py --datasets wdbc wine --data-dir
DIR`` then reads them. Every feature is numeric.

* wdbc: UCI Wisconsin Diagnostic Breast Cancer, ``load_breast_cancer`` (569 rows, 30 features);
  positive = "malignant" (development set).
* wine: UCI Wine, ``load_wine`` (178 rows, 13 features, 3 cultivars); positive = "class_2", one class
  against the rest (confirmation set).
* diabetes_high: Efron et al.'s diabetes data, ``load_diabetes`` (442 rows, 10 features, scaled as
  scikit-learn ships them); positive = "high", the disease progression after one year in its top
  quarter (``benchmarks/regression_labels.py``), against "rest" (second confirmation round).

    python benchmarks/sklearn_datasets.py --out /tmp/unseen
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
from sklearn import datasets

from regression_labels import HIGH, top_quarter

#: dataset name -> (scikit-learn loader, positive class)
SOURCES = {"wdbc": ("load_breast_cancer", "malignant"), "wine": ("load_wine", "class_2"),
           "diabetes_high": ("load_diabetes", HIGH)}


def frame_of(loader: str) -> pd.DataFrame:
    """A scikit-learn dataset as features plus a ``class`` column holding the class names (a numeric
    target: its top quarter, :func:`regression_labels.top_quarter`)."""
    bunch = getattr(datasets, loader)(as_frame=True)
    frame = bunch.data.copy()
    if "target_names" in bunch:
        frame["class"] = bunch.target.map(dict(enumerate(bunch.target_names)))
    else:
        frame["class"] = top_quarter(bunch.target)
    return frame


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else []
    names = set(SOURCES)
    manifest = [entry for entry in manifest if entry.get("name") not in names]  # other writers' entries kept
    for name, (loader, positive) in SOURCES.items():
        frame = frame_of(loader)
        frame.to_csv(args.out / f"{name}.csv.gz", index=False)
        manifest.append({"name": name, "file": f"{name}.csv.gz", "n_rows": len(frame), "categorical": [],
                         "positive_class": positive, "source": f"scikit-learn datasets.{loader}"})
        print(f"{name}: {len(frame)} rows, {frame.shape[1] - 1} features, classes {frame['class'].value_counts().to_dict()}")
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
