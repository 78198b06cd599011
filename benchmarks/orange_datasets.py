"""Write three UCI datasets that ship inside the Orange3 wheel as CSV files in optrules' format, for
checking methods on data none of them was developed on (docs/methods/libre.md, "Other datasets").

The files (label column ``class``, missing values as empty fields) and a ``manifest.json`` naming
their categorical columns and positive class go to ``--out``; ``benchmarks/libre_paper.py --datasets
heart_cleveland ionosphere titanic --data-dir DIR`` then reads them. The Orange3 wheel is only
unpacked, not installed:

    pip download Orange3 --no-deps -d /tmp/orange
    python benchmarks/orange_datasets.py /tmp/orange/orange3-*.whl --out /tmp/unseen

* heart_cleveland: UCI Heart Disease, Cleveland (303 rows, 13 features, 6 missing cells);
  positive = diameter narrowing "1" (disease present).
* ionosphere: UCI Ionosphere (351 rows, 32 numeric features; Orange ignores a1 and a2, a2 is
  constant); positive = "b" (bad radar returns, the minority).
* titanic: the Titanic passengers (2,201 rows, 3 categorical features); positive = survived "yes".
* brown_selected: yeast gene expression (186 rows, 79 numeric features); positive = function "Resp"
  (the gene name, a meta column, is dropped).
* iris_versicolor: Fisher's iris (150 rows, 4 numeric features); positive = "Iris-versicolor".
* zoo: UCI Zoo (101 rows, 16 categorical features; the animal's name, a meta column, is dropped);
  positive = type "invertebrate".
* housing_high: UCI (Boston) Housing (506 rows, 13 numeric features); positive = "high", the median
  value MEDV in its top quarter (``benchmarks/regression_labels.py``), against "rest".
* imports85_expensive: UCI Automobile / imports-85 (201 rows with a price, 25 features of which 11
  categorical, missing cells kept); positive = "high", the price in its top quarter, against "rest".

The first three were run before the development / confirmation split of docs/methods/libre.md;
brown_selected, iris_versicolor and zoo are confirmation sets there, housing_high and
imports85_expensive sets of its second confirmation round.
"""

from __future__ import annotations

import argparse
import io
import json
import zipfile
from pathlib import Path

import pandas as pd

from regression_labels import HIGH, top_quarter

#: dataset name -> (member of the wheel, Orange's class column, positive class)
SOURCES = {
    "heart_cleveland": ("Orange/datasets/heart_disease.tab", "diameter narrowing", "1"),
    "ionosphere": ("Orange/tests/datasets/ionosphere.tab", "y", "b"),
    "titanic": ("Orange/datasets/titanic.tab", "survived", "yes"),
    "brown_selected": ("Orange/datasets/brown-selected.tab", "function", "Resp"),
    "iris_versicolor": ("Orange/datasets/iris.tab", "iris", "Iris-versicolor"),
    "zoo": ("Orange/datasets/zoo.tab", "type", "invertebrate"),
    "housing_high": ("Orange/datasets/housing.tab", "MEDV", HIGH),
    "imports85_expensive": ("Orange/tests/datasets/imports-85.tab", "price", HIGH),
}
#: the datasets whose class column is a number, labelled by :func:`regression_labels.top_quarter`
NUMERIC_TARGETS = ("housing_high", "imports85_expensive")
#: Orange's flags of the columns that are not features: ignored and meta (names, identifiers).
DROPPED_FLAGS = ("i", "meta", "m")


def read_tab(text: str, label: str) -> tuple[pd.DataFrame, list[str]]:
    """An Orange ``.tab`` file (names, types, flags, then rows) as a frame with the label renamed to
    ``class`` and ignored and meta columns dropped, and the names of its discrete features."""
    lines = text.splitlines()
    names, types, flags = ([cell.strip() for cell in line.split("\t")] for line in lines[:3])
    frame = pd.read_csv(io.StringIO("\n".join(lines[3:])), sep="\t", header=None, names=names, dtype=str,
                        keep_default_na=False)
    frame = frame.replace({"?": "", "~": ""})
    kept = [n for n, f in zip(names, flags + [""] * len(names)) if f.strip() not in DROPPED_FLAGS]
    categorical = [n for n, t in zip(names, types) if n in kept and n != label and t.strip() not in ("c", "continuous")]
    return frame[kept].rename(columns={label: "class"}), categorical


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path, help="an Orange3 wheel (pip download Orange3 --no-deps)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    manifest = []
    with zipfile.ZipFile(args.wheel) as wheel:
        for name, (member, label, positive) in SOURCES.items():
            frame, categorical = read_tab(wheel.read(member).decode("utf-8"), label)
            if name in NUMERIC_TARGETS:
                frame["class"] = top_quarter(frame["class"])
                frame = frame.dropna(subset=["class"]).reset_index(drop=True)
            frame = frame[[c for c in frame.columns if c != "class"] + ["class"]]
            frame.to_csv(args.out / f"{name}.csv.gz", index=False)
            manifest.append({"name": name, "file": f"{name}.csv.gz", "n_rows": len(frame),
                             "categorical": categorical, "positive_class": positive,
                             "source": f"Orange3 wheel {args.wheel.name}: {member}"})
            print(f"{name}: {len(frame)} rows, {frame.shape[1] - 1} features ({len(categorical)} categorical), "
                  f"classes {frame['class'].value_counts().to_dict()}")
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
