"""Decision lists on numeric data: append, prepend and prepend-ip2 at 1k, 10k and 100k rows, beside
wittgenstein's RIPPER when it is installed.

Data: :func:`synthetic.hidden_rule_data` (10 uniform features, a hidden 3-term DNF, 5% label noise),
``rows`` training rows with seed 0, scored (F1 of class ``pos``) on 20,000 fresh rows with seed 1.
Every method runs with its defaults (``DecisionListClassifier``: ChiMerge capped at
``max_intervals = 2``, ``max_nodes = 1,000,000`` per search). Each run is a fresh ``spawn`` child
process that builds the data and times one fit: process CPU seconds (the machine is shared, so
CPU seconds are the figure to compare) and wall seconds. Medians of ``--repeats`` runs; the
``x RIPPER`` column is RIPPER's median CPU seconds at the same size over the method's, both from
this run. A method whose run exceeds ``--timeout`` wall seconds is reported as such.
Prints the rows and writes ``benchmarks/results/decision_lists_numeric.md``.

    python benchmarks/decision_lists_numeric.py [--rows 1000 10000 100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
from pathlib import Path

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

METHODS = ("append", "prepend", "prepend-ip2", "ripper")


def one_run(method: str, rows: int, queue) -> None:
    """Fit ``method`` on ``rows`` training rows and put its figures on ``queue`` (in a child process)."""
    import time

    from sklearn.metrics import f1_score

    from synthetic import POSITIVE, hidden_rule_data

    X, y = hidden_rule_data(rows, 10, noise=0.05, seed=0)
    X_test, y_test = hidden_rule_data(20_000, 10, noise=0.05, seed=1)
    if method == "ripper":
        import wittgenstein

        model = wittgenstein.RIPPER(random_state=0)
        cpu, wall = time.process_time(), time.perf_counter()
        model.fit(X, y, pos_class=POSITIVE)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        predicted = [POSITIVE if p else "neg" for p in model.predict(X_test)]
        figures = {"rules": len(model.ruleset_.rules), "proven %": float("nan")}
    else:
        from optrules import DecisionListClassifier

        model = DecisionListClassifier(strategy=method)
        cpu, wall = time.process_time(), time.perf_counter()
        model.fit(X, y)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        predicted = model.predict(X_test)
        meta = model.ruleset_.meta
        figures = {"rules": model.ruleset_.n_rules, "proven %": 100 * meta["proven_share"],
                   "nodes": meta["search_nodes"]}
    queue.put({"CPU s": cpu, "wall s": wall, "F1": f1_score(y_test, predicted, pos_label=POSITIVE), **figures})


def measure(method: str, rows: int, repeats: int, timeout: float) -> dict | None:
    """Median figures of ``repeats`` fresh-process runs, or None when a run timed out."""
    context = multiprocessing.get_context("spawn")
    runs = []
    for _ in range(repeats):
        queue = context.Queue()
        child = context.Process(target=one_run, args=(method, rows, queue))
        child.start()
        child.join(timeout)
        if child.is_alive():
            child.kill()
            child.join()
            return None
        runs.append(queue.get())
    return {key: statistics.median(run.get(key, float("nan")) for run in runs) for key in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "decision_lists_numeric.md"))
    args = parser.parse_args()
    methods = [m for m in args.methods if m != "ripper" or _has_wittgenstein()]
    table = []
    for rows in args.rows:
        measured = {m: measure(m, rows, args.repeats, args.timeout) for m in methods}
        ripper = measured.get("ripper")
        for method, figures in measured.items():
            row = {"rows": rows, "method": method}
            if figures is None:
                row.update({"CPU s": float("nan"), "wall s": float("nan"), "rules": f"> {args.timeout:.0f} s wall",
                            "F1": float("nan"), "proven %": float("nan"), "x RIPPER": float("nan")})
            else:
                row.update({k: figures[k] for k in ("CPU s", "wall s", "rules", "F1", "proven %")})
                row["x RIPPER"] = ripper["CPU s"] / figures["CPU s"] if ripper else float("nan")
            table.append(row)
            print(row, flush=True)
    command = ("python benchmarks/decision_lists_numeric.py --rows " + " ".join(map(str, args.rows))
               + f" --methods {' '.join(args.methods)} --repeats {args.repeats} --timeout {args.timeout:.0f}")
    body = ("Synthetic hidden-rule data (10 features, 5% noise), training seed 0, F1 of `pos` on 20,000 fresh "
            f"rows (seed 1). Medians of {args.repeats} fresh-process runs; 'CPU s' is the fit's process CPU time, "
            "'x RIPPER' RIPPER's median CPU seconds over the method's (same run). 'proven %': the share of rule "
            "searches proven optimal (`ruleset_.meta['proven_share']`). Every method with its defaults.\n\n"
            + markdown_table(table))
    print(write_report(args.out, "Decision lists on numeric data", command, body))


def _has_wittgenstein() -> bool:
    try:
        import wittgenstein  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
