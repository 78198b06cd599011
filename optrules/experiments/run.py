"""Run an experiment: every dataset x method x fold fitted and scored, serially or in parallel.

Each fit is one task carrying its own training and test data, so it runs the same in this process,
in joblib worker processes or on a Dask cluster (joblib's Dask backend). Tasks are gathered in their
submission order (dataset, method, fold) and every randomised method gets a ``random_state`` set by
the protocol's seed and the fold alone, so the table does not depend on where the fits ran: rerunning
a configuration reproduces it exactly, except the timing column ``fit_seconds``.

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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, parallel_config
from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score
from tqdm.auto import tqdm

from optrules.experiments.config import ConfigError, DatasetSpec, ExperimentConfig, MethodSpec, load_config
from optrules.experiments.tune import TUNE_PREFIX, inner_scores, tune_tasks
from optrules.registry import make_estimator
from optrules.ruleset import Ruleset
from optrules.solvers import SolveReport, Status

__all__ = ["COLUMNS", "META_PREFIX", "TIMING_COLUMNS", "FitError", "Outcome", "execute", "run"]

#: The columns of the result table, in order (one row per dataset x method x fold).
COLUMNS = ("dataset", "method", "exact", "fold", "n_train", "n_test", "f1", "accuracy", "balanced_accuracy",
           "n_rules", "n_atoms", "avg_atoms", "complexity", "fit_seconds", "solver", "status", "objective",
           "gap")
#: Columns that measure time and so differ between otherwise identical runs.
TIMING_COLUMNS = ("fit_seconds",)
#: Prefix of the columns holding ``Ruleset.meta`` entries named by a configuration's ``meta`` keys.
META_PREFIX = "meta."

# Least favourable first: a method that solved several models reports the worst status among them.
_STATUS_ORDER = (Status.ERROR, Status.UNBOUNDED, Status.INFEASIBLE, Status.NO_SOLUTION, Status.FEASIBLE,
                 Status.OPTIMAL)


class FitError(RuntimeError):
    """A fit that failed inside an experiment; the message names the dataset, method and fold."""


@dataclass(frozen=True)
class Task:
    dataset: str
    method: MethodSpec
    fold: int
    positive: Any
    X_train: pd.DataFrame
    y_train: pd.Series
    X_test: pd.DataFrame
    y_test: pd.Series
    tuned: Mapping[str, Any] = field(default_factory=dict)  #: a tuned method's tune.* columns


@dataclass(frozen=True)
class Outcome:
    """One fit: its row of the result table and the learned Ruleset."""

    row: dict[str, Any]
    ruleset: Ruleset


def run(config: ExperimentConfig | Mapping[str, Any] | str | Path, *, jobs: int | None = None,
        scheduler: str | None = None, out: str | Path | None = None, verbose: bool = True) -> pd.DataFrame:
    """Run the experiment of ``config`` (a dict, a TOML path or an :class:`ExperimentConfig`).

    ``jobs`` and ``scheduler`` override the configuration's ``[parallel]`` table (a scheduler address
    selects the Dask backend). With ``out``, the table, the resolved configuration, the package
    version, the markdown report and the plots are written there (:func:`write_outputs`). A progress
    bar is shown on a terminal unless ``verbose`` is False.

    Returns one row per dataset x method x fold with the columns :data:`COLUMNS`, then a column
    ``meta.<key>`` for every ``meta`` key of the configuration (in the order the methods name them),
    then the ``tune.<...>`` columns of tuned methods (:mod:`optrules.experiments.tune`).
    """
    resolved, outcomes = execute(load_config(config).with_parallel(jobs, scheduler), verbose=verbose)
    results = results_frame(outcomes)
    if out is not None:
        from optrules.experiments.output import write_outputs

        write_outputs(results, resolved, out)
    return results


def results_frame(outcomes: list[Outcome]) -> pd.DataFrame:
    """The rows as a table: :data:`COLUMNS`, then the ``meta.<key>`` columns in order of appearance
    (the rows are in dataset, method, fold order, so the order is the configuration's), then the
    ``tune.<...>`` columns likewise. A method that does not list a key, or is not tuned, has an empty
    (NaN) cell in such a column."""
    meta_columns = dict.fromkeys(k for o in outcomes for k in o.row if k.startswith(META_PREFIX))
    tune_columns = dict.fromkeys(k for o in outcomes for k in o.row if k.startswith(TUNE_PREFIX))
    return pd.DataFrame([o.row for o in outcomes], columns=[*COLUMNS, *meta_columns, *tune_columns])


def execute(config: ExperimentConfig, verbose: bool = True) -> tuple[ExperimentConfig, list[Outcome]]:
    """Load the datasets, fit and score every task; returns the configuration with each dataset's
    positive class resolved, and the outcomes in (dataset, method, fold) order."""
    datasets, tasks = [], []
    for spec in config.datasets:
        X, y = spec.load()
        spec = replace(spec, positive=_positive(spec, y))
        datasets.append(spec)
        tasks += _tasks(config, spec, X, y)
    progress = tqdm(total=len(tasks), unit="fit", desc=config.title or "optrules run",
                    disable=not (verbose and sys.stderr.isatty()))
    outcomes = []
    with progress, _backend(config) as n_jobs:
        pool = Parallel(n_jobs=n_jobs, return_as="generator")
        if any(t.method.tune is not None for t in tasks):
            tasks = _tune(tasks, config.protocol.seed, pool, progress)
        for outcome in pool(delayed(fit_and_score)(t) for t in tasks):
            outcomes.append(outcome)
            progress.update()
    return replace(config, datasets=tuple(datasets)), outcomes


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
    return replace(task, method=replace(task.method, params=params), tuned=columns)


def _positive(spec: DatasetSpec, y: pd.Series) -> Any:
    """The configured positive class, else the dataset's, else the minority class."""
    if spec.positive is not None and spec.path is None:
        return spec.positive
    if y.attrs.get("positive") is not None:  # the manifest's, or a CSV's configured one as in the file
        return y.attrs["positive"]
    counts = y.value_counts()
    return min(counts.index[counts == counts.min()])


def _tasks(config: ExperimentConfig, dataset: DatasetSpec, X: pd.DataFrame, y: pd.Series) -> list[Task]:
    tasks = []
    splits = [(config.protocol.subsample(train, y, dataset.max_train), test)
              for train, test in config.protocol.splits(y)]
    for method in config.methods:
        for fold, (train, test) in enumerate(splits):
            params = dict(method.params)
            if method.accepts("positive"):
                params.setdefault("positive", dataset.positive)
            if method.accepts("random_state"):
                params.setdefault("random_state", config.protocol.method_seed(fold))
            tasks.append(Task(dataset.name, replace(method, params=params), fold,
                              params.get("positive", dataset.positive), X.iloc[train], y.iloc[train],
                              X.iloc[test], y.iloc[test]))
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


def fit_and_score(task: Task) -> Outcome:
    """Fit ``task.method`` on the training data and score it on the test data."""
    try:
        estimator = make_estimator(task.method.name, **task.method.params).fit(task.X_train, task.y_train)
        predictions = estimator.predict(task.X_test)
    except Exception as error:
        raise FitError(f"{task.method.label} on {task.dataset}, fold {task.fold}: "
                       f"{type(error).__name__}: {error}") from error
    ruleset = estimator.ruleset_
    truth = task.y_test.to_numpy()
    row = {
        "dataset": task.dataset,
        "method": task.method.label,
        "exact": task.method.exact,
        "fold": task.fold,
        "n_train": len(task.X_train),
        "n_test": len(task.X_test),
        "f1": float(f1_score(truth == task.positive, predictions == task.positive, zero_division=0.0)),
        "accuracy": float(accuracy_score(truth, predictions)),
        "balanced_accuracy": float(balanced_accuracy_score(truth, predictions)),
        "n_rules": ruleset.n_rules,
        "n_atoms": ruleset.n_atoms,
        "avg_atoms": float(ruleset.avg_atoms),
        "complexity": float(ruleset.meta.get("complexity", ruleset.n_atoms)),
        "fit_seconds": float(ruleset.meta["fit_seconds"]),
        **_solve_summary(ruleset.meta),
        **{META_PREFIX + key: _meta_value(ruleset.meta.get(key)) for key in task.method.meta},
        **task.tuned,
    }
    return Outcome(row, ruleset)


def _meta_value(value: Any) -> Any:
    """A ``Ruleset.meta`` entry as a table cell: None (a key the method did not record), numbers,
    strings and booleans as they are (numpy scalars as Python ones), anything else as JSON text."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (str, bool, numbers.Number)):
        return value
    return json.dumps(value, default=str)


def _solve_summary(meta: Mapping[str, Any]) -> dict[str, Any]:
    """solver, status, objective and gap from the Ruleset's solve reports (None without a solver).

    Several reports (a strategy solving a sequence of models): the distinct solvers joined by "+",
    the least favourable status, the largest known gap. The objective is the method's own
    ``meta["objective"]`` when it records one (heuristic selections too), else the last report's.
    """
    reports: list[SolveReport] = list(meta.get("solve_reports", []))
    objective = meta.get("objective", reports[-1].objective if reports else None)
    if not reports:
        return {"solver": None, "status": None, "objective": _number(objective), "gap": None}
    gaps = [r.gap for r in reports if r.gap is not None]
    return {
        "solver": "+".join(dict.fromkeys(r.solver for r in reports)),
        "status": min((r.status for r in reports), key=_STATUS_ORDER.index).value,
        "objective": _number(objective),
        "gap": max(gaps) if gaps else None,
    }


def _number(value: Any) -> float | None:
    return None if value is None else float(np.asarray(value, dtype=float))
