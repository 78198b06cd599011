"""CPU seconds of one prepend-ip2 fit, this checkout beside reference checkouts in the same run.

The fit is the one ``benchmarks/prepend_paper.py`` makes on each of its splits: the experiment
runner's ``splits`` protocol of ``benchmarks/configs/prepend.toml`` (``StratifiedShuffleSplit(100,
train_size=0.8, random_state=0)``; ``--split`` picks one of them, default 0), the estimator
``make_estimator("prepend-ip2", max_nodes=100000, tests="inequality")`` fitted on the training part
(``--dataset``, default breast_cancer; ``--max-nodes``).

Every checkout (this one, and each ``--reference NAME=DIR``, e.g. ``git worktree add --detach DIR
COMMIT`` with ``DIR/optrules/models`` linked to ``models/``) runs in fresh child processes with the
checkout first on ``PYTHONPATH``; the children of the checkouts alternate, ``--rounds`` times, so
that the machine's drift hits all alike. A child makes one warm-up fit, then ``--fits`` timed fits,
each timed by ``time.process_time()`` (CPU seconds of the child: the figure to trust on a shared,
loaded machine; wall seconds are printed beside them). Each fit also reports the search effort from
``Ruleset.meta`` (``search_nodes``, ``searches``, ``unproven_searches``) and a digest of the rules
and the default class, so the table shows whether the checkouts learn the same list.

Prints the table and writes ``benchmarks/results/prepend_fit_time.md``.

    python benchmarks/prepend_fit_time.py --reference 'before=DIR' [--reference ...] [--dataset breast_cancer]
        [--split 0] [--max-nodes 100000] [--rounds 3] [--fits 5] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

#: The child: fits on one split of the paper protocol, one JSON line per timed fit.
CHILD = r"""
import hashlib, json, sys, time
import numpy as np
from sklearn.base import clone
from sklearn.model_selection import StratifiedShuffleSplit
import optrules
from optrules.datasets import load
from optrules.registry import make_estimator

dataset, split, max_nodes, fits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
X, y = load(dataset)
splits = StratifiedShuffleSplit(100, train_size=0.8, random_state=0).split(np.zeros((len(y), 1)), y.to_numpy())
train, _ = list(splits)[split]
X_train, y_train = X.iloc[train], y.iloc[train]
estimator = make_estimator("prepend-ip2", max_nodes=max_nodes, tests="inequality")
clone(estimator).fit(X_train, y_train)  # warm-up: imports, first calls
for _ in range(fits):
    fitted = clone(estimator)
    cpu, wall = time.process_time(), time.perf_counter()
    fitted.fit(X_train, y_train)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    ruleset = fitted.ruleset_
    digest = hashlib.sha1((str(ruleset.rules) + "|" + str(ruleset.default)).encode()).hexdigest()[:10]
    print(json.dumps({"cpu": cpu, "wall": wall, "nodes": ruleset.meta["search_nodes"],
                      "searches": ruleset.meta["searches"], "unproven": ruleset.meta["unproven_searches"],
                      "rules": ruleset.n_rules, "digest": digest, "module": optrules.__file__}), flush=True)
"""


def run_child(checkout: Path, args: argparse.Namespace) -> list[dict]:
    """One fresh child with ``checkout`` first on the path: its timed fits."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, "-c", CHILD, args.dataset, str(args.split), str(args.max_nodes), str(args.fits)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    if done.returncode != 0:
        raise RuntimeError(f"the child in {checkout} exited {done.returncode}:\n{done.stderr[-2000:]}")
    fits = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    imported = Path(fits[0]["module"]).resolve()
    if checkout not in imported.parents:
        raise RuntimeError(f"the child for {checkout} imported optrules from {imported}")
    return fits


def measure(checkouts: dict[str, Path], args: argparse.Namespace) -> dict[str, list[dict]]:
    """Every checkout's timed fits, the checkouts' children alternating round by round."""
    fits: dict[str, list[dict]] = {name: [] for name in checkouts}
    for round_ in range(args.rounds):
        for name, checkout in checkouts.items():
            fits[name] += run_child(checkout, args)
            latest = fits[name][-args.fits:]
            print(f"round {round_ + 1}/{args.rounds} {name}: CPU s "
                  + " ".join(f"{f['cpu']:.2f}" for f in latest), flush=True)
    return fits


def rows_of(fits: dict[str, list[dict]], reference: str) -> list[dict]:
    """One row per checkout: CPU and wall medians, the ratio to ``reference``'s CPU median, the search."""
    base = statistics.median(f["cpu"] for f in fits[reference])
    rows = []
    for name, runs in fits.items():
        cpu = [f["cpu"] for f in runs]
        rows.append({
            "checkout": name, "fits": len(runs), "CPU s/fit (median)": statistics.median(cpu),
            "CPU s min-max": f"{min(cpu):.2f}-{max(cpu):.2f}",
            f"CPU ratio to {reference}": statistics.median(cpu) / base,
            "wall s/fit (median)": statistics.median(f["wall"] for f in runs),
            "search nodes": " ".join(str(n) for n in sorted({f["nodes"] for f in runs})),
            "searches (unproven)": " ".join(sorted({f"{f['searches']} ({f['unproven']})" for f in runs})),
            "rules": " ".join(str(n) for n in sorted({f["rules"] for f in runs})),
            "rule list digest": " ".join(sorted({f["digest"] for f in runs})),
        })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", action="append", default=[], metavar="NAME=DIR",
                        help="another checkout measured alongside (repeatable); the first is the ratios' base")
    parser.add_argument("--dataset", default="breast_cancer")
    parser.add_argument("--split", type=int, default=0, help="which of the paper protocol's 100 splits")
    parser.add_argument("--max-nodes", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fits", type=int, default=5, help="timed fits per child (after one warm-up fit)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "prepend_fit_time.md"))
    args = parser.parse_args()
    if not 0 <= args.split < 100:
        parser.error("--split must be in 0..99")
    if args.rounds < 1 or args.fits < 1:
        parser.error("--rounds and --fits must be at least 1")
    checkouts: dict[str, Path] = {}
    for given in args.reference:
        name, sep, directory = given.partition("=")
        if not sep or not name or not directory:
            parser.error(f"--reference takes NAME=DIR, got {given!r}")
        checkouts[name] = Path(directory).resolve()
    checkouts["this checkout"] = Path(__file__).resolve().parent.parent
    fits = measure(checkouts, args)
    table = markdown_table(rows_of(fits, next(iter(checkouts))))
    body = (f"prepend-ip2 on {args.dataset}, split {args.split} of the paper protocol (80% training, "
            f"`StratifiedShuffleSplit(100, train_size=0.8, random_state=0)`), `max_nodes` = {args.max_nodes}, "
            f"inequality tests. {args.rounds} rounds of one fresh child per checkout, alternating; each "
            f"child makes one warm-up fit and {args.fits} timed fits (CPU seconds of the fit by "
            f"`time.process_time()`). Checkouts: "
            + ", ".join(f"{name} = `{path}`" for name, path in checkouts.items()) + ".\n\n"
            + table + "\n")
    print(table)
    references = " ".join(f"--reference '{name}=DIR'" for name in checkouts if name != "this checkout")
    command = (f"python benchmarks/prepend_fit_time.py {references} --dataset {args.dataset} --split {args.split} "
               f"--max-nodes {args.max_nodes} --rounds {args.rounds} --fits {args.fits}")
    write_report(args.out, "prepend-ip2 fit time against other checkouts", command, body)


if __name__ == "__main__":
    main()
