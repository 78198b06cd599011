"""Run an experiment: every dataset x method x fold fitted and scored, serially or in parallel.

Each fit is one task carrying its own estimator, training and test data, so it runs the same in this
process, in joblib worker processes, on a Dask cluster (joblib's Dask backend) or, for a method with
``isolate``, in a child process of the worker (``optrules.experiments.isolation``) that may crash or
time out without stopping the run. Rows are put in (dataset, method, fold) order whatever order the
fits finish in, and every randomised method gets a ``random_state`` set by the protocol's seed and the
fold alone, so the table does not depend on where the fits ran: rerunning a configuration reproduces
it exactly, except the timing column ``fit_seconds``. With an output directory every finished row is
logged at once, and a resumed run takes the logged rows (``optrules.experiments.resume``).

Methods with a ``tune`` step run in two phases in the same pool: first the inner fits of every tuned
method (:mod:`optrules.experiments.tune`), then, once each outer fold's configuration is chosen, all
the outer fits.
"""

from __future__ import annotations

import contextlib
import json
import numbers
import os
import socket
import sys
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, parallel_config
from sklearn.base import clone
from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score
from tqdm.auto import tqdm

from optrules.data import binarize_target, categorical_names, matching_label, validate_target
from optrules.estimators import RulesetClassifier
from optrules.exceptions import OptrulesWarning
from optrules.experiments.config import ConfigError, DatasetSpec, ExperimentConfig, MethodSpec, load_config
from optrules.exceptions import FitError
from optrules.experiments.isolation import Ending, call_in_child
from optrules.experiments.resume import RowLog, dataset_setup
from optrules.experiments.tune import TUNE_PREFIX, inner_scores, tune_tasks
from optrules.registry import make_estimator
from optrules.ruleset import Ruleset
from optrules.solvers import SolveReport, Status

__all__ = ["COLUMNS", "FAILED_STATUSES", "META_PREFIX", "SOLVE_COLUMNS", "STAGE_COLUMNS", "TIMING_COLUMNS",
           "FitError", "Outcome", "dataset_splits", "execute", "perform", "run"]

#: What a fit's exact part (or any solved model) reports, in result-table order: the main model's
#: status, the objective of what the fit returned, the best bound known and the gap between them,
#: the fallback (None, "start" or "constant"), the instance digest (fits of equal digest optimise
#: the same objective over the same candidates, so a heuristic's objective meets an exact bound) and,
#: for column generation, whether the bound is certified over all conjunctions (else empty).
SOLVE_COLUMNS = ("solver", "status", "objective", "bound", "gap", "fallback", "instance", "certified")
#: Seconds of the exact part: its whole wall time and its stages (optrules.exact.budget).
STAGE_COLUMNS = ("exact_seconds", "build_seconds", "load_seconds", "cut_seconds", "solve_seconds")
#: The columns of the result table, in order (one row per dataset x method x fold).
#: ``n_rules``, ``n_atoms`` and ``avg_atoms`` are NaN for a scorecard (kind "score"): its terms are a
#: score per cluster of categories and per numeric feature, not rules (its size measure is
#: ``complexity``, the share of relevant dummies); ``degenerate`` is True for a model that predicts one
#: class on every training and test row (every set or list without a rule does), however it scores.
COLUMNS = ("dataset", "method", "exact", "fold", "n_train", "n_test", "f1", "accuracy", "balanced_accuracy",
           "all_classes", "n_rules", "n_atoms", "avg_atoms", "complexity", "degenerate", "fit_seconds", *SOLVE_COLUMNS, "time_limit",
           *STAGE_COLUMNS, "warnings", "error")
#: The ``status`` of a fit that gave no classifier: an exception recorded (``on_error = "record"``), an
#: isolated fit whose process died, or one killed at its timeout. Their metrics are NaN.
FAILED_STATUSES = ("error", "crashed", "timeout")
#: Columns that measure time and so differ between otherwise identical runs.
TIMING_COLUMNS = ("fit_seconds", *STAGE_COLUMNS)
#: Prefix of the columns holding ``Ruleset.meta`` entries named by a configuration's ``meta`` keys.
META_PREFIX = "meta."

# Least favourable first: a method that solved several models reports the worst status among them.
_STATUS_ORDER = (Status.ERROR, Status.UNBOUNDED, Status.INFEASIBLE, Status.NO_SOLUTION, Status.FEASIBLE,
                 Status.OPTIMAL)


@dataclass(frozen=True)
class Task:
    """One fit: the estimator (made from the registry where the run started, so workers and child
    processes need no registry entry), its data, and its setup (what the resume log compares)."""

    dataset: str
    method: MethodSpec
    fold: int
    positive: Any
    X_train: pd.DataFrame
    y_train: pd.Series
    X_test: pd.DataFrame
    y_test: pd.Series
    estimator: RulesetClassifier
    exact: bool
    setup: Mapping[str, Any]
    tuned: Mapping[str, Any] = field(default_factory=dict)  #: a tuned method's tune.* columns

    @property
    def key(self) -> tuple[str, str, int]:
        return self.dataset, self.method.label, self.fold


@dataclass(frozen=True)
class Outcome:
    """One fit: its row of the result table and the learned Ruleset (None for a failed fit and for a
    row taken from the log by a resumed run)."""

    row: dict[str, Any]
    ruleset: Ruleset | None


def run(config: ExperimentConfig | Mapping[str, Any] | str | Path, *, jobs: int | None = None,
        scheduler: str | None = None, out: str | Path | None = None, resume: bool = False,
        verbose: bool = True) -> pd.DataFrame:
    """Run the experiment of ``config`` (a dict, a TOML path or an :class:`ExperimentConfig`).

    ``jobs`` and ``scheduler`` override the configuration's ``[parallel]`` table (a scheduler address
    selects the Dask backend). With ``out``, every finished row is appended to ``out/results.jsonl``
    as its fit completes, and at the end the table, the resolved configuration, the package version,
    the markdown report and the plots are written there (:func:`write_outputs`). ``resume`` (needs
    ``out``) takes the rows already in ``out/results.jsonl`` instead of fitting those tasks again
    (``optrules.experiments.resume``). A progress bar is shown on a terminal, one line per finished fit on stderr
    otherwise (a log file), nothing when ``verbose`` is False.

    Returns one row per dataset x method x fold with the columns :data:`COLUMNS`, then a column
    ``meta.<key>`` for every ``meta`` key of the configuration (in the order the methods name them),
    then the ``tune.<...>`` columns of tuned methods (:mod:`optrules.experiments.tune`);
    ``attrs["positive"]`` maps each dataset to its positive class, the one every F1 is of.
    """
    if resume and out is None:
        raise ConfigError("resume needs the output directory of the run to resume (out, or --out)")
    config = load_config(config).with_parallel(jobs, scheduler)
    if out is None:
        resolved, outcomes = execute(config, verbose=verbose)
        return _finished_table(resolved, outcomes)
    with RowLog(out, resume) as log:
        resolved, outcomes = execute(config, verbose=verbose, log=log)
        log.warn_other_tasks({(o.row["dataset"], o.row["method"], o.row["fold"]) for o in outcomes})
    results = _finished_table(resolved, outcomes)
    from optrules.experiments.output import write_outputs

    write_outputs(results, resolved, out)
    return results


def _finished_table(resolved: ExperimentConfig, outcomes: list[Outcome]) -> pd.DataFrame:
    """The run's table with each dataset's positive class in ``attrs["positive"]``; a ``meta`` key that
    no successful fit of its method recorded (a typo, or a key of another method) is warned about."""
    results = results_frame(outcomes)
    results.attrs["positive"] = {dataset.name: dataset.positive for dataset in resolved.datasets}
    fitted = ~results["status"].isin(FAILED_STATUSES)
    for method in resolved.methods:
        rows = results[(results["method"] == method.label) & fitted]
        unrecorded = [key for key in method.meta if len(rows) and rows[META_PREFIX + key].isna().all()]
        if unrecorded:
            warnings.warn(f"method {method.label!r}: no fit recorded meta key(s) {unrecorded} (not keys of its "
                          "Ruleset.meta: a typo?); their columns are empty", UserWarning, stacklevel=3)
    return results


def results_frame(outcomes: list[Outcome]) -> pd.DataFrame:
    """The rows as a table: :data:`COLUMNS`, then the ``meta.<key>`` columns in order of appearance
    (the rows are in dataset, method, fold order, so the order is the configuration's), then the
    ``tune.<...>`` columns likewise. A method that does not list a key, or is not tuned, has an empty
    (NaN) cell in such a column."""
    meta_columns = dict.fromkeys(k for o in outcomes for k in o.row if k.startswith(META_PREFIX))
    tune_columns = dict.fromkeys(k for o in outcomes for k in o.row if k.startswith(TUNE_PREFIX))
    return pd.DataFrame([o.row for o in outcomes], columns=[*COLUMNS, *meta_columns, *tune_columns])


def execute(config: ExperimentConfig, verbose: bool = True,
            log: RowLog | None = None) -> tuple[ExperimentConfig, list[Outcome]]:
    """Load the datasets, fit and score every task; returns the configuration with each dataset's
    positive class resolved, and the outcomes in (dataset, method, fold) order. With a ``log``, the
    tasks it holds are taken from it and every new row is appended to it as its fit finishes."""
    try:
        datasets, tasks = _datasets_and_tasks(config)
    except ConfigError as error:  # found in a dataset: the file is named too, as for every configuration error
        if not config.source:
            raise
        raise ConfigError(f"{config.source}: {error}") from None
    outcomes: list[Outcome | None] = [None] * len(tasks)
    if log is not None:
        for index, task in enumerate(tasks):
            row = log.finished_row(task.key, task.setup)
            if row is not None:
                outcomes[index] = Outcome(row, None)
    pending = [(index, task) for index, task in enumerate(tasks) if outcomes[index] is None]
    on_terminal = sys.stderr.isatty()
    progress = tqdm(total=len(tasks), initial=len(tasks) - len(pending), unit="fit",
                    desc=config.title or "optrules run", disable=not (verbose and on_terminal))
    finished = len(tasks) - len(pending)
    with progress, _backend(config) as n_jobs:
        if any(t.method.tune is not None for _, t in pending):
            chosen = _tune([t for _, t in pending], config.protocol.seed,
                           Parallel(n_jobs=n_jobs, return_as="generator"), progress)
            pending = [(index, task) for (index, _), task in zip(pending, chosen, strict=True)]
        for index, outcome in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                delayed(_perform_indexed)(index, task) for index, task in pending):
            outcomes[index] = outcome
            if log is not None:
                log.append(tasks[index].key, tasks[index].setup, outcome.row, outcome.ruleset)
            progress.update()
            finished += 1
            if verbose and not on_terminal:  # a log file: one line per finished fit instead of a bar
                print(_progress_line(finished, len(tasks), outcome.row), file=sys.stderr, flush=True)
    return replace(config, datasets=tuple(datasets)), outcomes


def _datasets_and_tasks(config: ExperimentConfig) -> tuple[list[DatasetSpec], list[Task]]:
    """Every dataset loaded, its positive class resolved, and its tasks made (its splits, its methods'
    checks against the data); a problem found on the way is a ConfigError naming the entry."""
    datasets, tasks = [], []
    for index, spec in enumerate(config.datasets):
        try:
            X, y = spec.load()
            spec = replace(spec, positive=_positive(spec, y))
        except ConfigError:
            raise
        except (ValueError, OSError) as error:  # a CSV's label or positive class, a missing file: name the entry
            raise ConfigError(f"datasets[{index}] ({spec.name!r}): {error}") from None
        datasets.append(spec)
        tasks += _tasks(config, spec, X, y)
    return datasets, tasks


def _progress_line(done: int, total: int, row: dict[str, Any]) -> str:
    """``[done/total] dataset method fold k: status, F1, seconds`` of a finished fit."""
    status = row.get("status") or "fitted"  # a heuristic's fit has no solver status
    f1 = row.get("f1")
    score = "" if f1 is None or f1 != f1 else f", F1 {f1:.3f}"
    seconds = row.get("fit_seconds")
    took = "" if seconds is None or seconds != seconds else f", {seconds:.2f} s"
    return f"[{done}/{total}] {row['dataset']} {row['method']} fold {row['fold']}: {status}{score}{took}"


def _perform_indexed(index: int, task: Task) -> tuple[int, Outcome]:
    return index, perform(task)


def _tune(tasks: list[Task], seed: int, pool: Parallel, progress: tqdm) -> list[Task]:
    """The inner fits of the tuned methods in ``pool``, counted on the progress bar; returns the
    tasks with each tuned one's chosen configuration (:func:`optrules.experiments.tune.tune_tasks`)."""
    def planned(n_inner: int) -> None:
        progress.total += n_inner
        progress.refresh()

    return tune_tasks(tasks, seed, lambda inner: pool(delayed(inner_scores)(t) for t in inner), _chosen,
                      progress=progress.update, planned=planned)


def _chosen(task: Task, params: dict[str, Any], columns: dict[str, Any]) -> Task:
    """A tuned task made into the outer fit of its chosen parameters, recording ``columns``."""
    return replace(task, method=replace(task.method, params=params), tuned=columns,
                   estimator=make_estimator(task.method.name, **params))


def _positive(spec: DatasetSpec, y: pd.Series) -> Any:
    """The configured positive class, else the dataset's, else the minority class."""
    if spec.positive is not None and spec.path is None:
        return matching_label(spec.positive, sorted(set(y)))  # the label itself: '1' for a configured 1
    if y.attrs.get("positive") is not None:  # the manifest's, or a CSV's configured one as in the file
        return y.attrs["positive"]
    chosen = binarize_target(validate_target(y, len(y)), None).positive  # the estimators' own rule
    counts = y.value_counts()
    tied = sorted(map(str, counts[counts == counts.min()].index))
    if len(tied) > 1:
        warnings.warn(f"dataset {spec.name!r}: classes {tied} tie for the fewest rows ({counts.min()}); the positive "
                      f"class (the F1 score's) is {chosen!r}, the last in sorted order: to choose, set positive "
                      "in the dataset's entry (optrules compare and fit: --positive)", UserWarning, stacklevel=2)
    return chosen


def dataset_splits(config: ExperimentConfig, dataset: DatasetSpec, y: pd.Series) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (training, test) row positions of every outer fit on ``dataset``: the protocol's splits,
    each training part subsampled to the dataset's ``max_train``. Every method (and every baseline,
    ``optrules.experiments.baselines``) is fitted and scored on these."""
    protocol = config.protocol.for_dataset(dataset)
    counts = y.value_counts()
    if protocol.kind == "splits" and protocol.stratify and counts.min() < 2:
        raise ConfigError(f"dataset {dataset.name!r}: class {counts.idxmin()!r} has a single member, so the "
                          f"splits cannot be stratified: drop that row, or, in a configuration, set "
                          f"stratify = false in [protocol] for plain random splits")
    try:
        outer = protocol.splits(y)
    except ValueError as error:  # e.g. a train_size of more rows than the dataset has
        raise ConfigError(f"dataset {dataset.name!r}: cannot split it with train_size "
                          f"{protocol.train_size!r}: {error}") from None
    return [(protocol.subsample(train, y, dataset.max_train), test) for train, test in outer]


def _check_params_against_data(method: MethodSpec, dataset: DatasetSpec, X: pd.DataFrame, y: pd.Series) -> None:
    """A method's ``positive`` and ``categorical`` parameters checked against the loaded dataset, so a
    label or column that is not there stops the run before any fit (not at that method's first fold,
    after the fits of the methods before it)."""
    where = f"method {method.label!r} on dataset {dataset.name!r}"
    positive = method.params.get("positive")
    labels = sorted(set(y), key=str)
    if positive is not None and matching_label(positive, labels) is None:
        raise ConfigError(f"{where}: positive class {positive!r} is not a label; labels: {labels}")
    columns = [str(c) for c in X.columns]
    try:
        categorical_names(columns, method.params.get("categorical"), list(X.columns))
    except ValueError as error:
        raise ConfigError(f"{where}: {error}; features: {columns}") from None


def _tasks(config: ExperimentConfig, dataset: DatasetSpec, X: pd.DataFrame, y: pd.Series) -> list[Task]:
    tasks = []
    protocol = config.protocol.for_dataset(dataset)
    splits = dataset_splits(config, dataset, y)
    dataset_entry = dataset_setup(dataset)
    for method in config.methods:
        _check_params_against_data(method, dataset, X, y)
        for fold, (train, test) in enumerate(splits):
            params = dict(method.params)
            if method.accepts("positive"):
                params.setdefault("positive", dataset.positive)
            if method.accepts("random_state"):
                params.setdefault("random_state", protocol.method_seed(fold))
            resolved = replace(method, params=params)
            setup = {"protocol": protocol.to_dict(), "dataset": dataset_entry,
                     "method": {k: v for k, v in resolved.to_dict().items() if k != "isolate"}}
            # scored on the dataset's positive class, as every column and baseline of the tables is,
            # even where a method's own `positive` makes it learn another class against the rest
            tasks.append(Task(dataset.name, resolved, fold, dataset.positive,
                              X.iloc[train], y.iloc[train], X.iloc[test], y.iloc[test],
                              make_estimator(method.name, **params), method.exact, setup))
    return tasks


@contextlib.contextmanager
def _backend(config: ExperimentConfig) -> Iterator[int]:
    """Enter the configured joblib backend; yields the ``n_jobs`` to use under it."""
    parallel = config.parallel
    if parallel.backend != "dask":
        with parallel_config(backend=parallel.backend):
            yield parallel.jobs
        return
    try:
        from dask.distributed import Client
    except ImportError:
        raise ConfigError("backend 'dask' needs dask.distributed: pip install 'optrules[dask]'") from None
    from distributed.comm.addressing import parse_address, parse_host_port

    try:  # checked before connecting: a malformed address left a half-made client that held the exit 60 s
        protocol, location = parse_address(parallel.scheduler)
        if protocol in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
    except (ValueError, TypeError) as error:
        raise ConfigError(f"scheduler {parallel.scheduler!r} is not a Dask scheduler address such as "
                          f"tcp://127.0.0.1:8786: {error}") from None
    try:
        client = Client(parallel.scheduler, set_as_default=False)
    except OSError as error:  # unreachable address, or timed out
        raise ConfigError(f"cannot reach the Dask scheduler at {parallel.scheduler!r}: {error}") from None
    with client:
        _check_workers(client)
        with parallel_config(backend="dask", client=client):
            yield -1


def _worker_process() -> tuple[str, int]:
    return socket.gethostname(), os.getpid()


def _check_workers(client: Any) -> None:
    """Every Dask worker must be its own process with one thread: Pyomo's solver calls capture the
    process's output streams, and two solves at once in one process fail."""
    threads = client.nthreads()
    if not threads:
        raise ConfigError(f"the Dask scheduler at {client.scheduler.address!r} has no workers")
    processes = list(client.run(_worker_process).values())
    if max(threads.values()) > 1 or len(set(processes)) < len(processes):
        raise ConfigError("every Dask worker must be a process of its own with one thread (solver calls "
                          "cannot run two at once in one process): start them with "
                          "`dask worker ADDRESS --nthreads 1 --nworkers N`; threads per worker: "
                          f"{sorted(threads.values())}")


def perform(task: Task) -> Outcome:
    """Fit and score ``task`` as its method's ``execution`` says: in this process, or in a child
    process (``isolate``) whose crash or timeout becomes a row with status "crashed" or "timeout".
    A fit that raises stops the run with a :class:`FitError` (``on_error = "raise"``) or becomes a
    row with status "error" (``"record"``); either way the message is the same, isolated or not."""
    execution = task.method.execution
    if not execution.isolate:
        began = time.perf_counter()
        try:
            return fit_and_score(task)
        except FitError as error:
            if execution.on_error == "raise":
                raise
            return failed_outcome(task, "error", str(error), time.perf_counter() - began)
    result = call_in_child(fit_and_score, task, execution.timeout)
    if result.ending is Ending.RETURNED:
        return result.value
    if result.ending is Ending.RAISED:
        if execution.on_error == "raise":
            raise result.value
        return failed_outcome(task, "error", str(result.value), result.seconds)
    label = f"{task.method.label} on {task.dataset}, fold {task.fold}"
    return failed_outcome(task, result.ending.value, f"{label}: {result.message}", result.seconds)


def failed_outcome(task: Task, status: str, error: str, seconds: float) -> Outcome:
    """The row of a fit that gave no classifier: NaN metrics, ``status`` one of
    :data:`FAILED_STATUSES`, the ``error`` text, and ``fit_seconds`` until it failed (for an
    isolated fit: the child process's whole life); its ``meta`` cells are empty."""
    nan = float("nan")
    row = {
        **_task_columns(task),
        **dict.fromkeys(("f1", "accuracy", "balanced_accuracy", "n_rules", "n_atoms", "avg_atoms", "complexity"),
                        nan),
        "all_classes": None, "degenerate": None,
        "fit_seconds": seconds, **dict.fromkeys(SOLVE_COLUMNS), "time_limit": None,
        **dict.fromkeys(STAGE_COLUMNS), "status": status, "warnings": None, "error": error,
        **{META_PREFIX + key: None for key in task.method.meta},
        **task.tuned,
    }
    return Outcome(row, None)


def _task_columns(task: Task) -> dict[str, Any]:
    return {"dataset": task.dataset, "method": task.method.label, "exact": task.exact, "fold": task.fold,
            "n_train": len(task.X_train), "n_test": len(task.X_test)}


def fit_and_score(task: Task) -> Outcome:
    """Fit (a clone of) ``task.estimator`` on the training data and score it on the test data."""
    try:
        with warnings.catch_warnings(record=True) as caught:  # the package's warnings go to a column
            warnings.simplefilter("always", OptrulesWarning)
            estimator = clone(task.estimator).fit(task.X_train, task.y_train)
            predictions = estimator.predict(task.X_test)
            trained = estimator.predict(task.X_train)
        for other in caught:
            if not issubclass(other.category, OptrulesWarning):
                warnings.warn_explicit(other.message, other.category, other.filename, other.lineno)
    except Exception as error:
        raise FitError(f"{task.method.label} on {task.dataset}, fold {task.fold}: "
                       f"{type(error).__name__}: {error}") from error
    ruleset = estimator.ruleset_
    one_vs_rest = ruleset.positive is not None
    row = {
        **_task_columns(task),
        **test_scores(task.y_test.to_numpy(), np.asarray(predictions), task.positive, one_vs_rest),
        "all_classes": not one_vs_rest and task.y_train.nunique() > 2,
        "n_rules": float("nan") if ruleset.kind == "score" else ruleset.n_rules,
        "n_atoms": float("nan") if ruleset.kind == "score" else ruleset.n_atoms,
        "avg_atoms": float("nan") if ruleset.kind == "score" else float(ruleset.avg_atoms),
        "complexity": float(ruleset.meta.get("complexity", ruleset.n_atoms)),
        "degenerate": len(pd.unique(np.concatenate([np.asarray(trained), np.asarray(predictions)]))) == 1,
        "fit_seconds": float(ruleset.meta["fit_seconds"]),
        **_solve_summary(ruleset.meta),
        "warnings": "; ".join(dict.fromkeys(str(w.message) for w in caught
                                            if issubclass(w.category, OptrulesWarning))) or None,
        "error": None,
        **{META_PREFIX + key: _meta_value(ruleset.meta.get(key)) for key in task.method.meta},
        **task.tuned,
    }
    return Outcome(row, ruleset)


def test_scores(truth: np.ndarray, predictions: np.ndarray, positive: Any, one_vs_rest: bool) -> dict[str, float]:
    """F1 of the positive class, accuracy and balanced accuracy on the test rows.

    A method that learns the positive class against the rest (its Ruleset has a ``positive`` class)
    predicts one stand-in label for every other class, so on data with more than two classes its
    accuracies are those of the task it solves, positive against the rest; a multi-class method (a
    decision list) is scored on the original labels. On two-class data both are the same.
    """
    is_positive, predicted_positive = truth == positive, predictions == positive
    f1 = float(f1_score(is_positive, predicted_positive, zero_division=0.0))
    if one_vs_rest:
        truth, predictions = is_positive, predicted_positive
    return {"f1": f1, "accuracy": float(accuracy_score(truth, predictions)),
            "balanced_accuracy": float(balanced_accuracy_score(truth, predictions))}


def _meta_value(value: Any) -> Any:
    """A ``Ruleset.meta`` entry as a table cell: None (a key the method did not record), numbers,
    strings and booleans as they are (numpy scalars as Python ones), anything else as JSON text."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (str, bool, numbers.Number)):
        return value
    return json.dumps(value, default=str)


def _solve_summary(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The :data:`SOLVE_COLUMNS`, ``time_limit`` and :data:`STAGE_COLUMNS` of a fit from its Ruleset's meta.

    The method's own figures come first: ``status``, ``best_bound``, ``gap``, ``fallback``,
    ``objective``, ``instance`` and the stage seconds that the exact methods record (a method stopped
    by its limit before any solve keeps the status it records). A method that only left solve reports
    gets the least favourable status among them and the largest known gap; the solver column joins
    the distinct solvers with "+". Without a solver and a status every cell is empty but the objective
    (heuristic selections record one) and the instance.
    """
    reports: list[SolveReport] = list(meta.get("solve_reports", []))
    objective = meta.get("objective", reports[-1].objective if reports else None)
    row: dict[str, Any] = {"solver": meta.get("solver") if isinstance(meta.get("solver"), str) else None,
                           "status": meta.get("status"), "objective": _number(objective),
                           "bound": _number(meta.get("best_bound")), "gap": _number(meta.get("gap")),
                           "fallback": meta.get("fallback"), "instance": meta.get("instance"),
                           "certified": meta.get("certified"),
                           "time_limit": _number(meta.get("time_limit")),
                           **{column: _number(meta.get(column)) for column in STAGE_COLUMNS}}
    if not reports:
        return row
    gaps = [r.gap for r in reports if r.gap is not None]
    row.update(solver="+".join(dict.fromkeys(r.solver for r in reports)),
               status=meta.get("status") or min((r.status for r in reports), key=_STATUS_ORDER.index).value,
               bound=_number(meta.get("best_bound")),
               gap=_number(meta["gap"]) if "gap" in meta else (max(gaps) if gaps else None))
    return row


def _number(value: Any) -> float | None:
    return None if value is None else float(np.asarray(value, dtype=float))
