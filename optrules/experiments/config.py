"""Experiment configuration: a TOML file or the same structure as a Python dict, validated once.

A configuration names the datasets, the evaluation protocol, the methods (each with its parameters,
solver and solver options) and how to run the fits in parallel::

    title = "exact vs greedy set cover"

    [protocol]
    kind = "kfold"            # stratified k-fold; or "splits": repeated stratified random splits
    folds = 5                 # kfold only
    seed = 0
    # stratify = false        # splits only: plain random splits (a class may then have one member)

    [[datasets]]
    name = "tic_tac_toe"      # a bundled dataset (optrules datasets)

    [[datasets]]
    path = "my_data.csv.gz"   # any CSV in the same format, relative to the config file
    label = "class"
    positive = "yes"
    train_size = 500          # kind = "splits" only: this dataset's own training size (and repeats)

    [[methods]]
    name = "setcover"
    solver = "scip"           # swapping solvers is editing this line
    solver_options = { time_limit = 60 }
    params = { alpha = 0.7, candidates = { max_len = 2 } }
    meta = ["n_candidates"]   # Ruleset.meta entries copied into the table (columns meta.<key>)
    isolate = true            # each fit of this method in a child process that may crash ...
    timeout = 900             # ... or be killed after this many seconds: a row "crashed" / "timeout"

    [[methods]]
    name = "libre"
    [methods.tune]            # nested selection on every outer training fold (experiments.tune)
    grid = { n_estimators = [5, 20], alpha = [0.5, 0.9] }

    [parallel]
    backend = "loky"          # "loky" (worker processes) or "dask"
    jobs = 2
    on_error = "record"       # an exception in a fit: a row with status "error" ("raise": stop)

    [report]                  # the Wilcoxon signed-rank tests of report.md, one per pair of labels;
    pairs = [["setcover", "libre"]]   # default: each exact method against every heuristic of its estimator

Every mistake is a :class:`ConfigError` naming the entry and the problem: an unknown key, method,
parameter, solver or dataset, a CSV file that does not exist, a malformed TOML file (with its line).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd
from sklearn.model_selection import ShuffleSplit, StratifiedKFold, StratifiedShuffleSplit, train_test_split

from optrules.data import matching_label
from optrules.datasets import info, load, load_csv
from optrules.experiments.tune import TuneSpec, parse_tune
from optrules.registry import get_method, make_estimator
from optrules.solvers import SOLVERS

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI
    import tomli as tomllib

__all__ = ["ConfigError", "DatasetSpec", "Execution", "ExperimentConfig", "MethodSpec", "Parallel", "Protocol", "method_seed",
           "default_pairs", "folder_name", "load_config"]

#: joblib backends a run may use. Threads are not offered: Pyomo's solver calls capture the process's
#: output streams and fail when two run at once in one process.
BACKENDS = ("loky", "dask")
PROTOCOLS = ("kfold", "splits")
#: What a fit that raises does: stop the run with a FitError, or become a row with status "error".
ON_ERROR = ("raise", "record")


class ConfigError(ValueError):
    """An experiment configuration that cannot run; the message names the entry and the problem."""


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset: a bundled one (``path`` is None) or a CSV file with its label column.

    ``categorical`` and ``numeric``: a CSV's columns typed as categories or declared numbers;
    ``missing``: the strings that mark a missing value besides the empty field
    (``optrules.datasets.load_csv``). ``positive`` is the positive class; None until resolved from the data (the dataset's own positive
    class, else the minority class). ``max_train``: at most this many training rows per fold, a
    stratified subsample (:meth:`Protocol.subsample`); None: the whole training fold. ``train_size``
    and ``repeats`` override the protocol's for this dataset (protocol kind "splits" only; None: the
    protocol's).
    """

    name: str
    path: str | None = None
    label: str = "class"
    positive: Any = None
    categorical: tuple[str, ...] = ()
    max_train: int | None = None
    train_size: float | int | None = None
    repeats: int | None = None
    numeric: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()

    def load(self) -> tuple[pd.DataFrame, pd.Series]:
        if self.path is None:
            X, y = load(self.name)
            if self.positive is not None and matching_label(self.positive, sorted(set(y))) is None:
                raise ConfigError(f"dataset {self.name!r}: positive class {self.positive!r} is not a label; "
                                  f"labels: {sorted(set(y))}")
            return X, y
        return load_csv(self.path, label=self.label, positive=self.positive,
                        categorical=list(self.categorical) or None, numeric=list(self.numeric) or None,
                        missing=list(self.missing) or None)

    def to_dict(self) -> dict[str, Any]:
        overrides = {"train_size": self.train_size, "repeats": self.repeats}
        if self.path is None:
            return _without_none({"name": self.name, "positive": self.positive, "max_train": self.max_train,
                                  **overrides})
        return _without_none({"name": self.name, "path": self.path, "label": self.label,
                              "positive": self.positive, "categorical": list(self.categorical) or None,
                              "max_train": self.max_train, **overrides, "numeric": list(self.numeric) or None,
                              "missing": list(self.missing) or None})


@dataclass(frozen=True)
class Execution:
    """How each fit of a method runs: in the worker's own process, or (``isolate``) in a fresh child
    process that may crash or run past ``timeout`` seconds without stopping the experiment (its row
    gets status "crashed" or "timeout"); ``on_error``: an exception in the fit stops the run
    ("raise") or becomes a row with status "error" ("record")."""

    isolate: bool = False
    timeout: float | None = None
    on_error: str = "raise"

    def to_dict(self) -> dict[str, Any]:
        return _without_none(asdict(self))


@dataclass(frozen=True)
class MethodSpec:
    """One method of the registry under a label (unique in the experiment) with its parameters.

    ``params`` holds everything passed to the estimator, ``solver`` and ``solver_options`` included.
    ``meta`` names the entries of the fitted ``Ruleset.meta`` copied into the result table (columns
    ``meta.<key>``): the configuration's top-level ``meta`` keys, then the method's own. ``tune``:
    the nested selection of some parameters on every outer training fold (:mod:`.tune`), or None.
    ``execution``: crash isolation, timeout and error handling (the method's keys over ``[parallel]``'s).
    """

    label: str
    name: str
    params: dict[str, Any] = field(default_factory=dict)
    meta: tuple[str, ...] = ()
    tune: TuneSpec | None = None
    execution: Execution = Execution()

    @property
    def exact(self) -> bool:
        """Whether its fits are exact: the registry's word, with its parameters (libre with
        ``selection = "ilp"`` is)."""
        return get_method(self.name).is_exact(self.params)

    def accepts(self, parameter: str) -> bool:
        return parameter in get_method(self.name).estimator().get_params()

    def to_dict(self) -> dict[str, Any]:
        params = dict(self.params)
        entry: dict[str, Any] = {"name": self.name, "label": self.label}
        for key in ("solver", "solver_options"):
            if key in params:
                entry[key] = params.pop(key)
        entry["params"] = params
        if self.meta:
            entry["meta"] = list(self.meta)
        if self.tune is not None:
            entry["tune"] = self.tune.to_dict()
        entry.update(self.execution.to_dict())
        return entry


def method_seed(seed: int, fold: int) -> int:
    """The ``random_state`` a randomised method gets on fold ``fold`` of a protocol seeded ``seed``: set
    by the two alone, so it does not depend on where or in which order the fits run. ``optrules
    compare`` and ``optrules fit`` use fold 0 of their seed, so their rules agree."""
    return int(np.random.SeedSequence([seed, fold]).generate_state(1)[0])


@dataclass(frozen=True)
class Protocol:
    """Stratified k-fold (``kind="kfold"``, ``folds``) or ``repeats`` random splits with ``train_size``
    (a fraction in (0, 1) or a number of rows) (``kind="splits"``), stratified on the class unless
    ``stratify`` is False (splits only: plain random splits, as some papers' protocols are; a class
    with a single member can then be split); ``seed`` fixes the splits and the methods' random states."""

    kind: str = "kfold"
    folds: int = 5
    repeats: int = 10
    train_size: float | int = 0.7
    seed: int = 0
    stratify: bool = True

    def splits(self, y: pd.Series) -> list[tuple[np.ndarray, np.ndarray]]:
        """(train indices, test indices) of every fold or repeat: ``StratifiedKFold``,
        ``StratifiedShuffleSplit`` or, unstratified, ``ShuffleSplit`` (each with ``random_state=seed``)."""
        if self.kind == "kfold":
            splitter = StratifiedKFold(self.folds, shuffle=True, random_state=self.seed)
        elif self.stratify:
            splitter = StratifiedShuffleSplit(self.repeats, train_size=self.train_size, random_state=self.seed)
        else:
            splitter = ShuffleSplit(self.repeats, train_size=self.train_size, random_state=self.seed)
        return list(splitter.split(np.zeros((len(y), 1)), y.to_numpy()))

    def for_dataset(self, dataset: DatasetSpec) -> Protocol:
        """The protocol with ``dataset``'s own ``train_size`` and ``repeats`` where it sets them."""
        return replace(self, train_size=dataset.train_size if dataset.train_size is not None else self.train_size,
                       repeats=dataset.repeats if dataset.repeats is not None else self.repeats)

    def subsample(self, train: np.ndarray, y: pd.Series, max_rows: int | None) -> np.ndarray:
        """At most ``max_rows`` of the training indices ``train``: a random subsample
        (``train_test_split(train, train_size=max_rows, stratify=labels, random_state=seed)``, in the
        order it returns them; without ``stratify`` when the protocol is unstratified), the same for
        every method."""
        if max_rows is None or len(train) <= max_rows:
            return train
        kept, _ = train_test_split(train, train_size=max_rows, random_state=self.seed,
                                   stratify=y.to_numpy()[train] if self.stratify else None)
        return kept

    def method_seed(self, fold: int) -> int:
        """The ``random_state`` given to randomised methods on fold ``fold`` (:func:`method_seed`)."""
        return method_seed(self.seed, fold)

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "kfold":
            return {"kind": self.kind, "folds": self.folds, "seed": self.seed}
        entry = {"kind": self.kind, "repeats": self.repeats, "train_size": self.train_size, "seed": self.seed}
        return entry if self.stratify else {**entry, "stratify": False}  # the default is left out


@dataclass(frozen=True)
class Parallel:
    """How the fits run: ``jobs`` joblib workers of ``backend`` (1: one after the other in this process);
    for "dask", the scheduler's address (``jobs`` does not apply: each worker, a single-threaded
    process, takes one fit at a time)."""

    backend: str = "loky"
    jobs: int = 1
    scheduler: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _without_none(asdict(self))


@dataclass(frozen=True)
class ExperimentConfig:
    """A validated experiment. ``pairs``: the (method label, method label) pairs that report.md tests
    with the Wilcoxon signed-rank test; None for :func:`default_pairs` of the methods. ``source``: the
    file it was read from ("" otherwise), which errors found later (in a dataset's file) name too."""

    datasets: tuple[DatasetSpec, ...]
    methods: tuple[MethodSpec, ...]
    protocol: Protocol = Protocol()
    parallel: Parallel = Parallel()
    title: str = ""
    pairs: tuple[tuple[str, str], ...] | None = None
    source: str = field(default="", compare=False)

    @property
    def wilcoxon_pairs(self) -> tuple[tuple[str, str], ...]:
        """The configured pairs, else :func:`default_pairs`."""
        return default_pairs(self.methods) if self.pairs is None else self.pairs

    def to_dict(self) -> dict[str, Any]:
        """The configuration with every default filled in (the default ``pairs`` follow from the
        methods, so only configured ones are written); :func:`load_config` reads it back."""
        entry = {"title": self.title, "protocol": self.protocol.to_dict(),
                 "datasets": [d.to_dict() for d in self.datasets],
                 "methods": [m.to_dict() for m in self.methods], "parallel": self.parallel.to_dict()}
        if self.pairs is not None:
            entry["report"] = {"pairs": [list(pair) for pair in self.pairs]}
        return entry

    def with_parallel(self, jobs: int | None = None, scheduler: str | None = None) -> ExperimentConfig:
        """Command-line overrides: ``jobs`` workers; a ``scheduler`` address switches to Dask."""
        parallel = self.parallel
        if jobs is not None:
            parallel = replace(parallel, jobs=_jobs(jobs, "--jobs"))
        if scheduler is not None:
            parallel = replace(parallel, backend="dask", scheduler=str(scheduler))
        return replace(self, parallel=parallel)


def default_pairs(methods: tuple[MethodSpec, ...]) -> tuple[tuple[str, str], ...]:
    """Each exact method against every heuristic of the experiment that the registry implements by the
    same estimator (setcover and setcover-greedy, brcg and brcg-beam, clm and svm-c, ...), as labels."""
    return tuple((exact.label, other.label) for exact in methods if exact.exact for other in methods
                 if not other.exact
                 and get_method(other.name).estimator_source == get_method(exact.name).estimator_source)


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def load_config(source: ExperimentConfig | Mapping[str, Any] | str | Path) -> ExperimentConfig:
    """Validate a configuration given as a dict, a TOML file or a ``config.json`` written by a run.

    Relative CSV paths are read from the configuration file's directory (from the working directory
    for a dict).
    """
    if isinstance(source, ExperimentConfig):
        return source
    if isinstance(source, Mapping):
        return _validate(source, Path.cwd())
    path = Path(source)
    if path.is_dir():
        raise ConfigError(f"{str(path)!r} is a directory: give the configuration file (a .toml, or a run's "
                          "config.json)")
    if not path.is_file():
        raise ConfigError(f"configuration file not found: {str(path)!r}")
    text = path.read_text(encoding="utf-8-sig")  # a byte-order mark, as some editors write, is not TOML
    try:
        raw = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:  # its message ends with "(at line L, column C)"
        raise ConfigError(f"{path}: malformed TOML: {error}") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}: malformed JSON: {error.msg} (at line {error.lineno}, "
                          f"column {error.colno})") from None
    try:
        return replace(_validate(raw, path.resolve().parent), source=str(path))
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def _validate(raw: Mapping[str, Any], base: Path) -> ExperimentConfig:
    _known_keys(raw, {"title", "meta", "protocol", "datasets", "methods", "parallel", "report"}, "the configuration")
    title = raw.get("title", "")
    if not isinstance(title, str):
        raise ConfigError(f"title must be a string, got {title!r}")
    shared_meta = _meta_keys(raw.get("meta", []), "meta")
    parallel = _table(raw, "parallel")
    execution = _execution(parallel, "parallel", Execution())
    protocol = _protocol(_table(raw, "protocol"))
    datasets = tuple(_dataset(entry, i, base) for i, entry in enumerate(_tables(raw, "datasets")))
    for index, dataset in enumerate(datasets):
        if protocol.kind != "splits" and (dataset.train_size is not None or dataset.repeats is not None):
            raise ConfigError(f"datasets[{index}] ({dataset.name!r}): train_size and repeats are for protocol "
                              f"kind 'splits', not {protocol.kind!r}")
    methods = tuple(_method(entry, i, shared_meta, execution) for i, entry in enumerate(_tables(raw, "methods")))
    for kind, names in (("dataset", [d.name for d in datasets]), ("method label", [m.label for m in methods])):
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ConfigError(f"{kind}s must be unique, repeated: {repeated} (give each a distinct "
                              f"{'name' if kind == 'dataset' else 'label'})")
        folders: dict[str, str] = {}
        for name in names:
            other = folders.setdefault(folder_name(name).lower(), name)
            if other != name:
                raise ConfigError(f"{kind}s {other!r} and {name!r} would share the folder "
                                  f"{folder_name(name)!r} of the saved rules (rules/<dataset>/<method>/; names "
                                  f"made safe for file systems, case ignored); give them names that differ there")
    return ExperimentConfig(datasets, methods, protocol, _parallel(parallel), title,
                            _pairs(_table(raw, "report"), [m.label for m in methods]))


def folder_name(name: str) -> str:
    """``name`` as a folder name safe on any file system: each run of characters other than letters,
    digits, ``_``, ``.`` and ``-`` becomes one ``_``; a name of dots only (``.``, ``..``: this folder,
    the parent) or an empty one is written with ``_``."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
    return (safe.replace(".", "_") or "_") if set(safe) <= {"."} else safe


def _pairs(report: Mapping[str, Any], labels: list[str]) -> tuple[tuple[str, str], ...] | None:
    """The ``[report]`` table's ``pairs``: two distinct method labels each (None when not given)."""
    _known_keys(report, {"pairs"}, "report")
    if "pairs" not in report:
        return None
    pairs = report["pairs"]
    if not isinstance(pairs, list):
        raise ConfigError(f"report.pairs must be a list of [label, label] pairs, got {pairs!r}")
    for index, pair in enumerate(pairs):
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)) or pair[0] == pair[1]:
            raise ConfigError(f"report.pairs[{index}] must be two different method labels, got {pair!r}")
        unknown = [p for p in pair if p not in labels]
        if unknown:
            raise ConfigError(f"report.pairs[{index}]: no method labelled {unknown[0]!r}; the labels are {labels}")
    return tuple((a, b) for a, b in pairs)


def _tables(raw: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    entries = raw.get(key)
    if not entries:
        raise ConfigError(f"no {key} given: add at least one [[{key}]] table")
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) for e in entries):
        raise ConfigError(f"{key} must be a list of tables ([[{key}]] in TOML)")
    return entries


def _table(raw: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    entry = raw.get(key, {})
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{key} must be a table ([{key}] in TOML), got {entry!r}")
    return entry


def _known_keys(entry: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(entry) - known)
    if unknown:
        raise ConfigError(f"unknown key(s) {unknown} in {where}; known keys: {sorted(known)}")


def _dataset(entry: Mapping[str, Any], index: int, base: Path) -> DatasetSpec:
    where = f"datasets[{index}]"
    overrides = {"train_size", "repeats"}
    if "path" not in entry:
        _known_keys(entry, {"name", "positive", "max_train"} | overrides,
                    f"{where} (a bundled dataset; a CSV file needs path)")
        if "name" not in entry:
            raise ConfigError(f"{where}: give the name of a bundled dataset or the path of a CSV file")
        try:
            name = info(entry["name"])["name"]
        except (ValueError, TypeError) as error:
            raise ConfigError(f"{where}: {error}") from None
        return DatasetSpec(name, positive=entry.get("positive"), max_train=_max_train(entry, where),
                           **_protocol_overrides(entry, f"{where} ({name!r})"))
    _known_keys(entry, {"name", "path", "label", "positive", "categorical", "numeric", "missing", "max_train"}
                | overrides, where)
    path = base / Path(entry["path"]).expanduser()
    if not path.is_file():
        raise ConfigError(f"{where}: CSV file not found: {str(path)!r}")
    categorical, numeric, missing = (entry.get(key, []) for key in ("categorical", "numeric", "missing"))
    for key, names, what in (("categorical", categorical, "column names"), ("numeric", numeric, "column names"),
                             ("missing", missing, "strings (the markers of a missing value)")):
        if not isinstance(names, list) or not all(isinstance(c, str) for c in names):
            raise ConfigError(f"{where}: {key} must be a list of {what}")
    name = entry.get("name", path.name.split(".")[0])
    return DatasetSpec(str(name), str(path.resolve()), str(entry.get("label", "class")),
                       entry.get("positive"), tuple(categorical), _max_train(entry, where),
                       **_protocol_overrides(entry, f"{where} ({name!r})"), numeric=tuple(numeric),
                       missing=tuple(missing))


def _max_train(entry: Mapping[str, Any], where: str) -> int | None:
    rows = entry.get("max_train")
    if rows is not None and (not _is_int(rows) or rows < 2):
        raise ConfigError(f"{where}: max_train must be a number of rows >= 2, got {rows!r}")
    return rows



def _protocol_overrides(entry: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A dataset's own ``train_size`` and ``repeats`` (None where not given), validated."""
    train_size, repeats = entry.get("train_size"), entry.get("repeats")
    if train_size is not None:
        _check_train_size(train_size, where)
    if repeats is not None:
        _check_repeats(repeats, where)
    return {"train_size": train_size, "repeats": repeats}


def _check_train_size(train_size: Any, where: str) -> None:
    fraction = isinstance(train_size, float) and 0 < train_size < 1
    if not (fraction or (_is_int(train_size) and train_size >= 2)):
        raise ConfigError(f"{where}: train_size must be a fraction in (0, 1) or a number of rows >= 2, "
                          f"got {train_size!r}")


def _check_repeats(repeats: Any, where: str) -> None:
    if not _is_int(repeats) or repeats < 1:
        raise ConfigError(f"{where}: repeats must be an integer >= 1, got {repeats!r}")


def _meta_keys(keys: Any, where: str) -> tuple[str, ...]:
    """A list of ``Ruleset.meta`` keys, validated."""
    if not isinstance(keys, list) or not all(isinstance(k, str) and k for k in keys):
        raise ConfigError(f"{where} must be a list of Ruleset.meta keys (non-empty strings), e.g. "
                          f"meta = [\"search_nodes\"]; got {keys!r}")
    return tuple(keys)


def _method(entry: Mapping[str, Any], index: int, shared_meta: tuple[str, ...] = (),
            execution: Execution = Execution()) -> MethodSpec:
    _known_keys(entry, {"name", "label", "params", "solver", "solver_options", "meta", "tune", *EXECUTION_KEYS},
                f"methods[{index}]")
    if "name" not in entry:
        raise ConfigError(f"methods[{index}]: no name; `optrules methods` lists the registered methods")
    name = entry["name"]
    where = f"methods[{index}] ({name!r})"
    try:
        get_method(name)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from None
    params = dict(_table(entry, "params"))
    for key in ("solver", "solver_options"):
        if key in entry:
            if key in params:
                raise ConfigError(f"{where}: {key} is given twice (top level and params); keep one")
            params[key] = entry[key]
    try:
        make_estimator(name, **params)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from None
    if "solver" in params and params["solver"] not in SOLVERS:
        raise ConfigError(f"{where}: unknown solver {params['solver']!r}; known solvers: {', '.join(SOLVERS)}")
    if "solver_options" in params and not isinstance(params["solver_options"], Mapping):
        raise ConfigError(f"{where}: solver_options must be a table, got {params['solver_options']!r}")
    label = entry.get("label", name)
    if not isinstance(label, str) or not label:
        raise ConfigError(f"{where}: label must be a non-empty string, got {label!r}")
    meta = _meta_keys(entry.get("meta", []), f"{where}: meta")
    try:
        tune = None if "tune" not in entry else parse_tune(entry["tune"], name, params)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from None
    return MethodSpec(label, name, params, tuple(dict.fromkeys(shared_meta + meta)), tune,
                      execution=_execution(entry, where, execution))


EXECUTION_KEYS = ("isolate", "timeout", "on_error")


def _execution(entry: Mapping[str, Any], where: str, defaults: Execution) -> Execution:
    """``isolate``, ``timeout`` and ``on_error`` of a method (or of ``[parallel]``, the defaults of
    every method). A timeout inherited from ``[parallel]`` lapses for a method that sets
    ``isolate = false``; one given with ``isolate = false`` is an error."""
    isolate = entry.get("isolate", defaults.isolate)
    if not isinstance(isolate, bool):
        raise ConfigError(f"{where}: isolate must be true or false, got {isolate!r}")
    timeout = entry.get("timeout", defaults.timeout if isolate else None)
    if timeout is not None:
        if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and np.isfinite(timeout)
                and timeout > 0):
            raise ConfigError(f"{where}: timeout must be a number of seconds > 0, got {timeout!r}")
        if not isolate:
            raise ConfigError(f"{where}: timeout needs isolate = true (a fit in the worker's own process "
                              f"cannot be stopped)")
        timeout = float(timeout)
    on_error = entry.get("on_error", defaults.on_error)
    if on_error not in ON_ERROR:
        raise ConfigError(f"{where}: on_error must be one of {list(ON_ERROR)}, got {on_error!r}")
    return Execution(isolate, timeout, on_error)


def _protocol(entry: Mapping[str, Any]) -> Protocol:
    kind = entry.get("kind", "kfold")
    if kind not in PROTOCOLS:
        raise ConfigError(f"protocol: unknown kind {kind!r}; use 'kfold' (stratified k-fold) or "
                          "'splits' (repeated random splits, stratified unless stratify = false)")
    keys = {"kind", "seed"} | ({"folds"} if kind == "kfold" else {"repeats", "train_size", "stratify"})
    _known_keys(entry, keys, f"protocol (kind {kind!r})")
    defaults = Protocol()
    folds = entry.get("folds", defaults.folds)
    repeats = entry.get("repeats", defaults.repeats)
    train_size = entry.get("train_size", defaults.train_size)
    seed = entry.get("seed", defaults.seed)
    stratify = entry.get("stratify", defaults.stratify)
    if not _is_int(folds) or folds < 2:
        raise ConfigError(f"protocol: folds must be an integer >= 2, got {folds!r}")
    _check_repeats(repeats, "protocol")
    _check_train_size(train_size, "protocol")
    if not _is_int(seed) or seed < 0:
        raise ConfigError(f"protocol: seed must be an integer >= 0, got {seed!r}")
    if not isinstance(stratify, bool):
        raise ConfigError(f"protocol: stratify must be true or false, got {stratify!r}")
    return Protocol(kind, folds, repeats, train_size, seed, stratify)


def _parallel(entry: Mapping[str, Any]) -> Parallel:
    _known_keys(entry, {"backend", "jobs", "scheduler", *EXECUTION_KEYS}, "parallel")
    backend = entry.get("backend", "loky")
    if backend not in BACKENDS:
        raise ConfigError(f"parallel: unknown backend {backend!r}; use one of {list(BACKENDS)}")
    scheduler = entry.get("scheduler")
    if scheduler is not None and backend != "dask":
        raise ConfigError("parallel: a scheduler address is for backend = 'dask'")
    if backend == "dask" and not isinstance(scheduler, str):
        raise ConfigError("parallel: backend 'dask' needs the scheduler's address, e.g. "
                          "scheduler = 'tcp://127.0.0.1:8786'")
    return Parallel(backend, _jobs(entry.get("jobs", 1), "parallel: jobs"), scheduler)


def _jobs(jobs: Any, where: str) -> int:
    if not _is_int(jobs) or not (jobs >= 1 or jobs == -1):
        raise ConfigError(f"{where} must be an integer >= 1 (or -1: one per core), got {jobs!r}")
    return int(jobs)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _without_none(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if v is not None}
