"""clm on wide categorical data under a short time limit: do the stages before the MIQP leave it time?

Writes two synthetic datasets of the shapes on which the inner cross-validation over C and the J + 1
bound QPs used to take a clm fit's whole time limit (``benchmarks/synthetic.py``'s
``sequence_data``: every feature a four-letter nominal position, as in UCI splice): 3,190 rows x 60
features (the shape of UCI splice) and 5,822 rows x 85 features (the shape of COIL 2000 /
insurance), as CSV files with a ``manifest.json`` (70% training rows, positive class "pos"), and runs
``benchmarks/clsvm_paper.py`` on them with ``--strategies clm``, ``--clm-time-limit`` and one seed
(``--seeds 0``: the question is what the stages leave the MIQP, not the spread over seeds). The report's
clm table shows, per split, the inner CV's folds and seconds, how many of the J + 1 bound QPs ran,
the MIQP's status, termination and seconds (docs/methods/clsvm.md, "Time limit").

    python benchmarks/clsvm_stages.py [--time-limit 60] [--splits 1] [--out benchmarks/results/clsvm_stages.md]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import clsvm_paper  # noqa: E402  (benchmarks/clsvm_paper.py)
from synthetic import POSITIVE, sequence_data  # noqa: E402

#: (name, rows, features, seed)
SHAPES = (("sequence_3190x60", 3190, 60, 0), ("sequence_5822x85", 5822, 85, 1))


def write_data(directory: Path) -> list[str]:
    """The datasets of SHAPES as CSV files with their manifest in ``directory``; their names."""
    directory.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, rows, features, seed in SHAPES:
        X, y = sequence_data(rows, features, seed=seed)
        X.assign(**{"class": y}).to_csv(directory / f"{name}.csv", index=False)
        entries.append({"file": f"{name}.csv", "name": name, "label": "class", "positive_class": POSITIVE,
                        "categorical": list(X.columns), "train_size": 0.7})
    (directory / "manifest.json").write_text(json.dumps(entries, indent=1), encoding="utf-8")
    return [name for name, *_ in SHAPES]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="clm's time limit (the whole fit)")
    parser.add_argument("--splits", type=int, default=1)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "clsvm_stages.md"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    runs = out.with_name(out.stem + "_runs")
    names = write_data(runs / "data")
    clsvm_paper.main(["--datasets", *names, "--data-dir", str(runs / "data"), "--strategies", "clm",
                      "--splits", str(args.splits), "--clm-time-limit", f"{args.time_limit:g}", "--seeds", "0",
                      "--jobs", "1",
                      "--rerun", "--runs", str(runs), "--out", str(out),
                      "--note", f"Written by `python benchmarks/clsvm_stages.py {' '.join(argv or sys.argv[1:])}`: "
                                "synthetic four-letter sequences (benchmarks/synthetic.py, sequence_data), "
                                "clm with C = \"cv\" under a time limit that bounds the whole fit."])


if __name__ == "__main__":
    main()
