"""High-cardinality categoricals: fit seconds with the default grouping (``max_categories=100``)
against every category kept (``max_categories=None``), measured in the same run.

Data: ``rows`` rows, one categorical feature of ``rows`` possible values drawn uniformly (so about
63% distinct), 10% of the rows set to one frequent value, and a numeric feature; the label is that
frequent value or a numeric threshold, so a good rule set exists either way. Every fit runs in a
fresh process (``--repeats`` times); the table gives the median fit seconds, the ratio
ungrouped / grouped of those medians, and the training F1 of both (the grouping must not lose the
rule). A fit that takes longer than ``--cap`` seconds is stopped and shown as "> cap".

    python benchmarks/high_cardinality.py [--rows 2000 10000] [--methods setcover-greedy libre] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)


def child(rows: int, method: str, max_categories: int | None) -> None:
    """Fit once on the synthetic data and print the fit seconds and training F1 as JSON."""
    import warnings

    import numpy as np
    import pandas as pd
    from sklearn.metrics import f1_score

    from optrules.registry import METHODS, make_estimator

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"city": pd.Series([f"c{k}" for k in rng.integers(0, rows, rows)], dtype=object),
                      "size": rng.normal(size=rows)})
    X.loc[: rows // 10 - 1, "city"] = "capital"
    y = np.where(X["city"].eq("capital") | (X["size"] > 1.5), "yes", "no")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        binary = "positive" in METHODS[method].estimator().get_params()
        model = make_estimator(method, max_categories=max_categories, **({"positive": "yes"} if binary else {}))
        model.fit(X, y)
    print(json.dumps({"fit": model.ruleset_.meta["fit_seconds"],
                      "f1": float(f1_score(y == "yes", model.predict(X) == "yes"))}))


def measure(rows: int, method: str, max_categories: int | None, cap: float) -> dict | None:
    command = [sys.executable, __file__, "--child", str(rows), method, str(max_categories)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=cap, check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--methods", nargs="+", default=["setcover-greedy", "libre", "brcg-beam", "prepend"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cap", type=float, default=300.0)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "high_cardinality.md"))
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        rows, method, limit = args.child
        child(int(rows), method, None if limit == "None" else int(limit))
        return
    table = []
    for rows in args.rows:
        for method in args.methods:
            cells: dict = {"rows": rows, "method": method}
            medians = {}
            for label, limit in (("grouped", 100), ("all kept", None)):
                runs = [measure(rows, method, limit, args.cap) for _ in range(args.repeats)]
                finished = [r for r in runs if r is not None]
                if len(finished) < len(runs):
                    medians[label] = float("inf")
                    cells[f"{label} s"] = f"> {args.cap:.0f}"
                    cells[f"{label} F1"] = "-"
                else:
                    medians[label] = statistics.median(r["fit"] for r in finished)
                    cells[f"{label} s"] = medians[label]
                    cells[f"{label} F1"] = statistics.median(r["f1"] for r in finished)
            ratio = medians["all kept"] / medians["grouped"]
            cells["all kept / grouped"] = f"> {args.cap / medians['grouped']:.0f}" if ratio == float("inf") else ratio
            print(cells, flush=True)
            table.append(cells)
    command = "python benchmarks/high_cardinality.py " + " ".join(sys.argv[1:])
    body = (f"Median of {args.repeats} fits per cell, each in a fresh process; a categorical feature with "
            "about 0.63 x rows distinct values.\n\n" + markdown_table(table) + "\n")
    print(write_report(args.out, "High-cardinality categoricals: grouped vs every category kept", command, body))


if __name__ == "__main__":
    main()
