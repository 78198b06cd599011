"""The log of finished fits: one JSON line per row, appended as each fit completes, read back to resume.

``run(config, out=DIR)`` appends every finished row to ``DIR/results.jsonl`` the moment its fit
completes, so an interrupted experiment loses only the fits that were running. ``run(config,
out=DIR, resume=True)`` (``optrules run CONFIG --out DIR --resume``) takes the rows of tasks already
in the log instead of fitting them again, and returns the same table as an uninterrupted run (the
timing column ``fit_seconds`` is the one of the run that did the fit).

A task is identified by its dataset, method label and fold; each line also records the task's
*setup*: the protocol as it applies to the dataset, the dataset's entry (positive class resolved; a
CSV file by its name and the SHA-256 of its content, so a log resumes from another checkout or
directory but not on edited data: :func:`dataset_setup`), the method's entry with the parameters the fit received (``positive``, ``random_state``), its
``timeout`` and ``on_error``. A logged task whose setup differs from the configuration's is a
:class:`ConfigError` naming the first difference: the log would mix two experiments. Whether a method
runs isolated, the backend and the number of jobs are not part of the setup: they do not change a
successful fit's row. Crashed, timed-out and recorded failed fits are finished rows like any other;
delete their lines to fit them again. Lines of tasks the configuration does not have are kept in the
file and left out of the table. Without ``resume`` the log starts empty, when the first row is
written: a run that stops before any fit (a mistake in its configuration or data) leaves an earlier
run's log as it was.

Beside each row the log keeps the fit's learned model: ``DIR/rules/<dataset>/<method>/fold-<k>.json``
(:meth:`optrules.Ruleset.to_json`; ``Ruleset.from_json`` reads it back), so the rules behind every
score of the tables can be read and reused. A fit that failed has none. The directory starts over
with the log.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import shutil
import warnings
from pathlib import Path
from typing import IO, Any, Mapping

import numpy as np

from optrules.exceptions import CategoryWarning
from optrules.experiments.config import ConfigError, DatasetSpec, folder_name
from optrules.ruleset import Ruleset

__all__ = ["LOG_NAME", "RULES_DIR", "RowLog", "TaskKey", "dataset_setup", "rules_path"]

#: The log's file name inside the output directory.
LOG_NAME = "results.jsonl"
#: The directory of the learned models inside the output directory.
RULES_DIR = "rules"

TaskKey = tuple[str, str, int]  # (dataset, method label, fold)


def _drop_incomplete_line(path: Path) -> None:
    """Cut the log back to its last newline: a run killed while writing leaves a last line without
    one, which :func:`_read` skips (its fit runs again)."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as handle:
            handle.truncate(data.rfind(b"\n") + 1)


class RowLog:
    """The finished rows of ``directory/results.jsonl``: read on resume, appended to after every fit."""

    def __init__(self, directory: str | Path, resume: bool) -> None:
        self.path = Path(directory) / LOG_NAME
        self._finished: dict[TaskKey, tuple[dict[str, Any], dict[str, Any]]] = {}
        if resume and self.path.is_file():
            self._finished = _read(self.path)
            _drop_incomplete_line(self.path)  # appending after a cut-off line would corrupt the next row
        self._resume = resume
        self._handle: IO[str] | None = None  # opened at the first row

    def __enter__(self) -> RowLog:
        return self

    def __exit__(self, *_: Any) -> None:
        if self._handle is not None:
            self._handle.close()

    def finished_row(self, key: TaskKey, setup: Mapping[str, Any]) -> dict[str, Any] | None:
        """The logged row of task ``key`` (None: not logged); an error if it ran with another setup."""
        if key not in self._finished:
            return None
        logged_setup, row = self._finished[key]
        difference = _first_difference(logged_setup, _as_json(setup))
        if difference is not None:
            where, then, now = difference
            dataset, method, fold = key
            raise ConfigError(
                f"cannot resume from {self.path}: {method} on {dataset}, fold {fold} was run with another "
                f"configuration ({where}: {then!r} in the log, {now!r} now); run into another output "
                f"directory, or without resume to start the log over")
        return row

    def append(self, key: TaskKey, setup: Mapping[str, Any], row: Mapping[str, Any],
               ruleset: Ruleset | None = None) -> None:
        """Log one finished row (one line, flushed at once) and its learned ``ruleset`` (module docstring)."""
        dataset, method, fold = key
        line = {"dataset": dataset, "method": method, "fold": fold, "setup": _as_json(setup),
                "row": {k: _cell(v) for k, v in row.items()}}
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self._resume:
                shutil.rmtree(self.path.parent / RULES_DIR, ignore_errors=True)
            self._handle = self.path.open("a" if self._resume else "w", encoding="utf-8")
        if ruleset is not None:
            path = rules_path(self.path.parent, key)
            path.parent.mkdir(parents=True, exist_ok=True)
            with warnings.catch_warnings():  # a category JSON cannot hold was said when the fit warned
                warnings.simplefilter("ignore", CategoryWarning)
                path.write_text(ruleset.to_json(indent=1) + "\n", encoding="utf-8")
        self._handle.write(json.dumps(line, default=str) + "\n")
        self._handle.flush()

    def warn_other_tasks(self, keys: set[TaskKey]) -> None:
        """Warn when the log holds rows of tasks not in ``keys`` (a resumed run whose configuration
        dropped or renamed a method or dataset): their lines and saved models stay in the directory, out
        of the table, so that a later resume can take them back."""
        other = [key for key in self._finished if key not in keys]
        if other:
            methods = sorted({method for _, method, _ in other})
            datasets = sorted({dataset for dataset, _, _ in other})
            warnings.warn(f"{self.path.parent}: {len(other)} logged fit(s) of tasks not in this configuration "
                          f"(methods {methods} on datasets {datasets}) stay in {LOG_NAME} and {RULES_DIR}/, out of "
                          "the table; run without resume to start the directory over", UserWarning, stacklevel=3)


def rules_path(directory: str | Path, key: TaskKey) -> Path:
    """Where the learned model of task ``key`` is kept: ``rules/<dataset>/<method>/fold-<k>.json``
    (names made safe for file systems)."""
    dataset, method, fold = key
    return Path(directory) / RULES_DIR / folder_name(dataset) / folder_name(method) / f"fold-{fold}.json"


def dataset_setup(dataset: DatasetSpec) -> dict[str, Any]:
    """The dataset's part of a task's setup: its entry, a CSV file's path replaced by the file's name
    and the SHA-256 of its bytes."""
    entry = dataset.to_dict()
    if dataset.path is not None:
        path = Path(dataset.path)
        entry["path"] = path.name
        entry["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return entry


def _read(path: Path) -> dict[TaskKey, tuple[dict[str, Any], dict[str, Any]]]:
    """The log's lines by task; a last line cut short (the run was killed while writing it) is
    skipped with a warning, a damaged line elsewhere is an error."""
    lines = path.read_text(encoding="utf-8").splitlines()
    finished = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            entry = json.loads(text)
            finished[(entry["dataset"], entry["method"], int(entry["fold"]))] = (entry["setup"], entry["row"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            if number == len(lines):
                warnings.warn(f"{path}: line {number} is incomplete and is ignored (its fit runs again)",
                              stacklevel=3)
                continue
            raise ConfigError(f"{path}: line {number} is not a logged row ({error}); repair or remove it") from None
    return finished


def _as_json(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples as lists, numpy scalars as numbers), so a setup
    compares equal to its logged copy."""
    return json.loads(json.dumps(value, default=_plain))


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def _cell(value: Any) -> Any:
    """A row's cell as JSON writes it: numpy scalars as Python ones (NaN stays NaN)."""
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (str, bool, numbers.Number)):
        return value
    return str(value)


def _first_difference(then: Any, now: Any, where: str = "") -> tuple[str, Any, Any] | None:
    """The first place (dotted path) where two JSON values differ, with both values there."""
    if isinstance(then, dict) and isinstance(now, dict):
        for key in list(dict.fromkeys([*then, *now])):
            inner = f"{where}.{key}" if where else str(key)
            if key not in then or key not in now:
                return inner, then.get(key), now.get(key)
            difference = _first_difference(then[key], now[key], inner)
            if difference is not None:
                return difference
        return None
    return None if then == now else (where or "setup", then, now)
