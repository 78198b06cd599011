"""optrules beside other rule learners: fit time (CPU and wall), rules and test F1, side by side.

Peers (the optional extra ``peers``: ``pip install -e ".[peers]"``): wittgenstein's ``RIPPER`` and
imodels' ``RuleFitClassifier``, ``BoostedRulesClassifier`` and ``SkopeRulesClassifier``. A peer that
is not installed is skipped and the report says so. optrules: the heuristics ``setcover-greedy``,
``libre``, ``bottom-up``, ``prepend``, ``append``, ``prepend-ip2`` with their defaults and the exact
``setcover`` ILP with a solver time limit (``--ilp-time-limit``).

Data:

* ``hidden_rule_data(n, 10, noise=0.05, seed=0)`` (``benchmarks/synthetic.py``) at each ``--rows``,
  test F1 on 20,000 fresh rows (seed 1);
* the bundled data sets of ``--datasets``, one fixed stratified split (70% training, 30% test,
  ``random_state=0``), the positive class the loader names (else the minority class).

Each fit runs in a **fresh process** (``python peers.py --child ...``, ``PYTHONHASHSEED=0``): the
child imports its library, builds the data, then times ``fit`` alone with ``time.process_time``
(CPU seconds of every thread of the process) and ``time.perf_counter`` (wall), so the CPU figures
include whatever a first fit in a process pays (e.g. loading compiled kernels), and the imports do
not count. Figures are medians over ``--repeats`` runs (#rules and F1 too; they do not vary for the
seeded methods). A child that uses more than ``--timeout`` CPU seconds (``RLIMIT_CPU``: a limit
that does not depend on what else the shared machine runs; it counts the child's imports and data
too) or more than ``--wall-factor`` times that in wall seconds is stopped, and the fit reported as
"did not finish"; that method is then not run on larger synthetic data. ``x RIPPER`` is RIPPER's
median CPU seconds over the method's, both measured in the same run (">" when RIPPER did not finish,
against the CPU timeout).

#rules: optrules' ``len(ruleset_.rules)``; RIPPER's ``len(ruleset_.rules)``; imodels' ``rules_``
(RuleFit: the rules kept by its lasso; Skope: the deduplicated rules), or the boosted rules
(``estimators_``) of ``BoostedRulesClassifier``. imodels takes numeric arrays: categorical columns
are one-hot encoded and missing values set to the training median for imodels only. Skope's rules
are read as a rule set (positive where any rule fires, as skope-rules defines it): imodels' own
``predict`` takes the argmax of the averaged rule precisions and predicts no positive here.

    python benchmarks/peers.py [--rows 1000 10000 100000] [--repeats 3] [--timeout 1800]
                               [--methods ripper setcover-greedy ...] [--datasets heart_statlog ...]

Prints the rows as they come and writes ``benchmarks/results/peers.md`` at the end, and ``peers.json``
beside it after every (data, method), so that a run stopped early keeps what it measured.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

HERE = Path(__file__).resolve().parent
OPTRULES_METHODS = ("setcover-greedy", "libre", "bottom-up", "prepend", "append", "prepend-ip2", "setcover")
#: Peer name -> (module that must be importable, constructor expression's description).
PEERS = {
    "ripper": "wittgenstein",
    "rulefit": "imodels",
    "boosted-rules": "imodels",
    "skope-rules": "imodels",
}
METHODS = ("ripper", *OPTRULES_METHODS, "rulefit", "boosted-rules", "skope-rules")
DEFAULT_DATASETS = ("heart_statlog", "pima", "australian", "german", "tic_tac_toe", "mushroom")
TEST_ROWS = 20_000
#: Address-space limit of each child (the host is shared).
ADDRESS_SPACE_LIMIT = 8 * 2**30


# --------------------------------------------------------------------------------------------- child

def _data(spec: dict):
    """(X_train, y_train, X_test, y_test, positive) for a synthetic size or a bundled data set."""
    import pandas as pd

    if spec["kind"] == "synthetic":
        from synthetic import POSITIVE, hidden_rule_data

        X, y = hidden_rule_data(spec["rows"], 10, noise=0.05, seed=0)
        X_test, y_test = hidden_rule_data(TEST_ROWS, 10, noise=0.05, seed=1)
        return X, pd.Series(y, name="class"), X_test, pd.Series(y_test, name="class"), POSITIVE
    import optrules
    from sklearn.model_selection import train_test_split

    X, y = optrules.load(spec["dataset"])
    positive = y.attrs.get("positive")
    if positive is None:
        positive = y.value_counts().idxmin()
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    return (X_train.reset_index(drop=True), y_train.reset_index(drop=True),
            X_test.reset_index(drop=True), y_test.reset_index(drop=True), positive)


def _numeric(X_train, X_test):
    """One-hot categorical columns and training-median imputation, for the peers that take arrays."""
    import pandas as pd

    both = pd.get_dummies(pd.concat([X_train, X_test], keys=["train", "test"]), dtype=float)
    both = both.fillna(both.loc["train"].median())
    return both.loc["train"].to_numpy(float), both.loc["test"].to_numpy(float)


def _fit_and_score(method: str, spec: dict, ilp_time_limit: float) -> dict:
    """Build the data, time one fit, predict the test set; the child's one result."""
    import numpy as np
    from sklearn.metrics import f1_score

    X, y, X_test, y_test, positive = _data(spec)
    truth = (y_test == positive).to_numpy()
    if method == "ripper":
        import wittgenstein

        model = wittgenstein.RIPPER(random_state=0)
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        model.fit(X, y, pos_class=positive)
        cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
        predicted = np.asarray(model.predict(X_test), dtype=bool)
        rules = len(model.ruleset_.rules)
    elif method in ("rulefit", "boosted-rules", "skope-rules"):
        import warnings

        import imodels

        warnings.filterwarnings("ignore")
        model = {"rulefit": imodels.RuleFitClassifier, "boosted-rules": imodels.BoostedRulesClassifier,
                 "skope-rules": imodels.SkopeRulesClassifier}[method](random_state=0)
        train, test = _numeric(X, X_test)
        labels = (y == positive).to_numpy().astype(int)
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        model.fit(train, labels)
        cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
        if method == "skope-rules":  # a rule set: positive where any rule fires (imodels' predict
            predicted = model.predict_proba(test)[:, 1] > 0  # takes an argmax of averaged rule scores)
        else:
            predicted = np.asarray(model.predict(test)) == 1
        rules = len(model.rules_) if hasattr(model, "rules_") else len(model.estimators_)
    else:
        import optrules

        params = {"solver_options": {"time_limit": ilp_time_limit}} if method == "setcover" else {}
        if "positive" in optrules.get_method(method).estimator.parameters:
            params["positive"] = positive  # the decision lists predict every class and take none
        model = optrules.make_estimator(method, **params)
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        model.fit(X, y)
        cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
        predicted = np.asarray(model.predict(X_test)) == positive
        rules = len(model.ruleset_.rules)
    f1 = float(f1_score(truth, predicted, zero_division=0.0))
    return {"cpu": cpu, "wall": wall, "rules": rules, "f1": f1,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


# -------------------------------------------------------------------------------------------- parent

def _limits(cpu_seconds: float):
    """The child's resource limits: address space, and CPU seconds (SIGXCPU, then SIGKILL)."""
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_seconds), int(cpu_seconds) + 5))
    return apply


def run_child(method: str, spec: dict, timeout: float, ilp_time_limit: float, wall_factor: float) -> dict:
    """One fit in a fresh process; {"status": "ok", ...figures} or {"status": "timeout" / "failed"}."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child",
               json.dumps({"method": method, "spec": spec, "ilp_time_limit": ilp_time_limit})]
    env = dict(os.environ, PYTHONHASHSEED="0")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=wall_factor * timeout, env=env,
                              preexec_fn=_limits(timeout))
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "error": f"more than {wall_factor * timeout:g} wall seconds"}
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return {"status": "timeout", "error": f"more than {timeout:g} CPU seconds"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        message = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": "failed", "error": message[:200]}
    return {"status": "ok", **json.loads(lines[-1])}


def installed(method: str) -> bool:
    return method not in PEERS or importlib.util.find_spec(PEERS[method]) is not None


def measure(method: str, spec: dict, repeats: int, timeout: float, ilp_time_limit: float,
            wall_factor: float) -> dict:
    """Medians over ``repeats`` fresh-process fits; stops at the first fit that does not finish."""
    runs = []
    for _ in range(repeats):
        result = run_child(method, spec, timeout, ilp_time_limit, wall_factor)
        if result["status"] != "ok":
            return result
        runs.append(result)
    return {"status": "ok", "runs": len(runs),
            **{key: statistics.median(r[key] for r in runs) for key in ("cpu", "wall", "rules", "f1")},
            "peak_mb": max(r["peak_mb"] for r in runs)}


def _label(spec: dict) -> str:
    return f"synthetic {spec['rows']:,}" if spec["kind"] == "synthetic" else spec["dataset"]


def table_rows(results: list[dict], timeout: float) -> list[dict]:
    """One markdown row per (data, method), with the CPU ratio against RIPPER on the same data."""
    ripper = {r["data"]: r for r in results if r["method"] == "ripper"}
    rows = []
    for r in results:
        reference = ripper.get(r["data"])
        ratio = "-"
        if r["status"] == "ok" and reference is not None and r["method"] != "ripper":
            if reference["status"] == "ok":
                ratio = f"{reference['cpu'] / max(r['cpu'], 1e-9):.1f}"
            elif reference["status"] == "timeout":
                ratio = f"> {timeout / max(r['cpu'], 1e-9):.0f}"
        status = {"ok": "", "timeout": f"did not finish ({r.get('error', '')})",
                  "failed": f"failed: {r.get('error', '')}"}[r["status"]]
        nan = float("nan")
        rows.append({"data": r["data"], "method": r["method"],
                     "CPU s": r.get("cpu", nan), "wall s": r.get("wall", nan),
                     "x RIPPER (CPU)": ratio, "#rules": r.get("rules", nan), "test F1": r.get("f1", nan),
                     "peak MB": r.get("peak_mb", nan), "runs": r.get("runs", 0), "note": status})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--rows", type=int, nargs="*", default=[1_000, 10_000, 100_000])
    parser.add_argument("--datasets", nargs="*", default=list(DEFAULT_DATASETS))
    parser.add_argument("--methods", nargs="*", default=list(METHODS), choices=METHODS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=1800.0, help="CPU seconds per fit (its child process)")
    parser.add_argument("--wall-factor", type=float, default=4.0, help="wall limit: this many times --timeout")
    parser.add_argument("--ilp-time-limit", type=float, default=120.0, help="setcover's solver time limit")
    parser.add_argument("--out", default=str(HERE / "results" / "peers.md"))
    parser.add_argument("--report", help="only write the markdown of a results JSON this script wrote")
    args = parser.parse_args()
    if args.child:
        job = json.loads(args.child)
        print(json.dumps(_fit_and_score(job["method"], job["spec"], job["ilp_time_limit"])), flush=True)
        return
    if args.report:
        results = json.loads(Path(args.report).read_text())
        write_markdown(Path(args.out), results, [], args.timeout)
        return

    missing = [m for m in args.methods if not installed(m)]
    methods = [m for m in args.methods if m not in missing]
    for m in missing:
        print(f"skipped {m}: {PEERS[m]} is not installed (pip install -e \".[peers]\")", flush=True)
    specs = [{"kind": "synthetic", "rows": n} for n in sorted(args.rows)]
    specs += [{"kind": "dataset", "dataset": name} for name in args.datasets]
    results, stopped, out = [], set(), Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for spec in specs:
        for method in methods:
            if spec["kind"] == "synthetic" and method in stopped:
                continue
            result = {"data": _label(spec), "method": method,
                      **measure(method, spec, args.repeats, args.timeout, args.ilp_time_limit, args.wall_factor)}
            if spec["kind"] == "synthetic" and result["status"] != "ok":
                stopped.add(method)
            results.append(result)
            print(json.dumps(result), flush=True)
            out.with_suffix(".json").write_text(json.dumps(results, indent=1))  # kept as the run goes
    write_markdown(out, results, missing, args.timeout)


def write_markdown(out: Path, results: list[dict], missing: list[str], timeout: float) -> None:
    """The results page: the table, the peers skipped, the methods stopped on the synthetic sizes."""
    not_run = [f"{r['method']} at {r['data']} and larger" for r in results
               if r["status"] != "ok" and r["data"].startswith("synthetic")]
    body = markdown_table(table_rows(results, timeout)) + "\n"
    if missing:
        body += "\nNot installed, skipped: " + ", ".join(missing) + ".\n"
    if not_run:
        body += "\nNot run on larger synthetic data after a fit that did not finish: " + "; ".join(not_run) + ".\n"
    command = "python benchmarks/peers.py " + " ".join(sys.argv[1:])
    write_report(out, "optrules beside RIPPER and imodels' rule learners", command.strip(),
                 __doc__.split("\n\n", 1)[1].split("    python benchmarks/peers.py")[0] + "\n" + body)


if __name__ == "__main__":
    main()
