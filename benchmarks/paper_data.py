"""What the paper scripts (``*_paper.py``) share about their datasets: a bundled name or a CSV file
with a ``manifest.json`` beside it, the ``--positive`` flag, and the per-dataset results files that
let a rerun resume.

A dataset is named on the command line as a bundled dataset, a CSV path, or the name of a CSV file in
``--data-dir`` (``<name>``, ``<name>.csv.gz`` or ``<name>.csv``). A CSV's manifest is the
``manifest.json`` in its directory: a list of entries, or a dict of entries keyed by name, in the
bundled manifest's format ("file", "name", "label", "categorical", "numeric", "missing",
"positive_class"; a script may read keys of its own, such as CLSVM's "train_size"). The entry is
the one whose "file" is the CSV's file name, else the one whose "name" is the dataset's name (the
file name up to its first dot). A
bundled name is the bundled dataset, unless ``--data-dir`` holds a different file of that name: that
is an error asking for the file's path, never a silent choice of one (``is_bundled``).

``--positive`` takes ``VALUE`` (the positive class of every dataset of the run; meant for one
dataset at a time) or ``NAME=VALUE`` pairs (one per dataset; a value may itself contain "="); it
overrides the manifest's or the bundled dataset's positive class.

Each script writes one results file per dataset, ``<runs>/<dataset>.json``, as soon as that dataset
finished, with the settings it was run with (the runner's configuration and the script's flags that
change the figures); a rerun with the same settings reads it instead of fitting again (``done``),
unless ``--rerun`` is given. Other settings fit again and overwrite it.
"""

from __future__ import annotations

import argparse
import json
from importlib import resources
from pathlib import Path
from typing import Any

import optrules


def manifest_entry(path: Path) -> dict[str, Any]:
    """The entry of ``manifest.json`` beside ``path`` for this file, else {}."""
    manifest = path.parent / "manifest.json"
    if not manifest.is_file():
        return {}
    try:
        raw = json.loads(manifest.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise SystemExit(f"{manifest}: not valid JSON: {error}") from None
    if isinstance(raw, dict) and all(isinstance(value, dict) for value in raw.values()):
        entries = [{"name": key, **value} for key, value in raw.items()]
    elif isinstance(raw, list) and all(isinstance(value, dict) for value in raw):
        entries = raw
    else:
        raise SystemExit(f"{manifest}: expected a list of entries (objects with \"file\", \"label\", ...) or an "
                         "object of such entries keyed by dataset name")
    by_file = [e for e in entries if e.get("file") == path.name]
    by_name = [e for e in entries if e.get("name") == path.name.split(".")[0]]
    entry = (by_file or by_name or [{}])[0]
    for key in ("categorical", "numeric", "missing"):  # a single name (or marker) is a list of one
        if isinstance(entry.get(key), str):
            entry = {**entry, key: [entry[key]]}
    return entry


def is_bundled(spec: str, data_dir: Path | None) -> bool:
    """Whether ``spec`` names a bundled dataset; a ``SystemExit`` when ``data_dir`` also holds a file of
    that name (``<spec>``, ``.csv.gz`` or ``.csv``) whose bytes differ from the bundled file's, naming
    both (a copy of the bundled file, as in ``../shared/data``, is the bundled dataset)."""
    if spec not in optrules.datasets.list_datasets():
        return False
    if data_dir is None:
        return True
    bundled = Path(str(resources.files("optrules.datasets").joinpath("data", optrules.datasets.info(spec)["file"])))
    for suffix in ("", ".csv.gz", ".csv"):
        local = data_dir / f"{spec}{suffix}"
        if local.is_file() and local.read_bytes() != bundled.read_bytes():
            raise SystemExit(f"--datasets: {spec!r} is both a bundled dataset and the file {local}, which differs "
                             f"from it; name the file by its path ({local}) to use it, or rename it")
    return True


def find_csv(spec: str, data_dir: Path | None) -> tuple[Path, bool]:
    """The CSV file ``spec`` names (a path, or a file of ``data_dir``) and whether it was found in
    ``data_dir``; a ``SystemExit`` naming where it looked when there is none."""
    path = Path(spec)
    if path.is_file():
        return path, False
    if data_dir is not None:
        for suffix in ("", ".csv.gz", ".csv"):
            if (data_dir / f"{spec}{suffix}").is_file():
                return data_dir / f"{spec}{suffix}", True
    looked = f" (looked for {data_dir / spec}, .csv.gz and .csv)" if data_dir is not None else ""
    raise SystemExit(f"--datasets: {spec!r} is neither a bundled dataset "
                     f"({', '.join(optrules.datasets.list_datasets())}) nor a CSV file{looked}")


def csv_dataset(spec: str, data_dir: Path | None) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """A CSV dataset as the experiment runner's dataset entry (name, path, label, and the manifest's
    categorical and numeric columns, missing-value markers and positive class when it has them), its
    manifest entry (for the keys a script reads itself) and whether it came from ``data_dir``."""
    path, from_data_dir = find_csv(spec, data_dir)
    manifest = manifest_entry(path)
    entry: dict[str, Any] = {"name": path.name.split(".")[0], "path": str(path.resolve()),
                             "label": manifest.get("label") or "class"}
    if manifest.get("categorical"):
        entry["categorical"] = list(manifest["categorical"])
    for key in ("numeric", "missing"):
        if manifest.get(key):
            entry[key] = list(manifest[key])
    if manifest.get("positive_class") is not None:
        entry["positive"] = manifest["positive_class"]
    return entry, manifest, from_data_dir


def add_data_arguments(parser: argparse.ArgumentParser, data_dir_help: str, positive_help: str = "") -> None:
    """``--data-dir`` and ``--positive`` (see the module docstring), as every paper script takes them."""
    parser.add_argument("--data-dir", type=Path, default=None, help=data_dir_help)
    parser.add_argument("--positive", nargs="+", default=None, metavar="VALUE | NAME=VALUE",
                        help="the positive class: one VALUE for every dataset, or NAME=VALUE per dataset"
                             + (f" ({positive_help})" if positive_help else ""))


def add_results_arguments(parser: argparse.ArgumentParser) -> None:
    """``--runs`` (the per-dataset results files; default beside the report) and ``--rerun``."""
    parser.add_argument("--runs", default=None,
                        help="one results file per dataset, <RUNS>/<dataset>.json, written as it finishes "
                             "(default: the report's path without .md, plus _runs)")
    parser.add_argument("--rerun", action="store_true",
                        help="fit every dataset again (default: read those already in --runs with the same settings)")


def parse_positive(values: list[str] | None) -> dict[str | None, str]:
    """``--positive``'s values as {dataset name: positive class}; a bare ``VALUE`` is the key None
    (every dataset). A ``SystemExit`` when a bare value is mixed with pairs or given twice."""
    if not values:
        return {}
    pairs = dict(value.split("=", 1) for value in values if "=" in value)
    bare = [value for value in values if "=" not in value]
    if bare and (pairs or len(bare) > 1):
        raise SystemExit("--positive: one VALUE (for every dataset) or NAME=VALUE pairs, not both")
    return {None: bare[0]} if bare else pairs


def positive_of(positives: dict[str | None, str], name: str) -> str | None:
    """The positive class ``--positive`` gives dataset ``name``, else None."""
    return positives.get(name, positives.get(None))


def check_positive(positives: dict[str | None, str], names: list[str]) -> None:
    """A ``SystemExit`` when a ``NAME=VALUE`` pair names no dataset of the run (a misspelt name would
    otherwise be ignored silently)."""
    unknown = [name for name in positives if name is not None and name not in names]
    if unknown:
        raise SystemExit(f"--positive: {', '.join(unknown)} is not a dataset of this run ({', '.join(names)})")


def entry_data(entry: dict[str, Any]) -> tuple[Any, Any]:
    """``(X, y)`` of a runner dataset entry (a bundled dataset by name, or a CSV by ``path``), read as
    the runner reads them; a ``SystemExit`` naming the dataset when the file does not read (a label or
    column its manifest names is not in it)."""
    try:
        if "path" not in entry:
            return optrules.load(entry["name"])
        return optrules.load_csv(entry["path"], label=entry.get("label") or "class",
                                 categorical=entry.get("categorical"), numeric=entry.get("numeric"),
                                 missing=entry.get("missing"))
    except ValueError as error:
        raise SystemExit(f"dataset {entry['name']!r}: {error}") from None


def check_entry(entry: dict[str, Any], paper_names: Any, labels: Any = None, tolerance: float = 0.05) -> None:
    """Before any fit: a ``SystemExit`` when the entry's positive class is no label of its data
    (naming the labels), or when a CSV is named like a dataset of the paper (a name in ``paper_names``
    that is also a bundled dataset's) but its number of rows is more than ``tolerance`` from that
    dataset's: it would be compared with the paper's figures. ``labels``: the entry's, when the caller
    has read them already."""
    labels = (entry_data(entry)[1] if labels is None else labels).astype(str)
    positive = entry.get("positive")
    if positive is not None and str(positive) not in set(labels):
        raise SystemExit(f"dataset {entry['name']!r}: positive class {positive!r} is not a label; labels: "
                         f"{sorted(set(labels))}")
    name = entry["name"]
    if "path" in entry and name in paper_names and name in optrules.datasets.list_datasets():
        rows = optrules.datasets.info(name)["n_rows"]
        if abs(len(labels) - rows) > tolerance * rows:
            raise SystemExit(f"dataset {name!r} ({entry['path']}) is named like the paper's {name!r} but has "
                             f"{len(labels):,} rows against its {rows:,}: it would be compared with the paper's "
                             f"figures; rename the file")


def results_file(runs: Path, name: str) -> Path:
    """Where a script keeps dataset ``name``'s results."""
    return runs / f"{name}.json"


def _plain(value: Any) -> Any:
    """A numpy scalar as its Python number; any other object JSON cannot write as its text."""
    return value.item() if hasattr(value, "item") else str(value)


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples as lists, numpy scalars as numbers)."""
    return json.loads(json.dumps(value, default=_plain))


def done(runs: Path, name: str, settings: Any, rerun: bool) -> Any | None:
    """The results written for dataset ``name`` by an earlier run with the same ``settings``, or None
    when there are none, they were made with other settings, or ``rerun`` asks to fit again."""
    path = results_file(runs, name)
    if rerun or not path.is_file():
        return None
    stored = json.loads(path.read_text(encoding="utf-8"))
    return stored["results"] if stored.get("settings") == _normal(settings) else None


def save(runs: Path, name: str, settings: Any, results: Any) -> Path:
    """Write dataset ``name``'s results (JSON-serialisable) and their settings at once, atomically:
    a stopped run keeps every dataset it finished."""
    path = results_file(runs, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps({"settings": _normal(settings), "results": results}, indent=1, default=_plain),
                       encoding="utf-8")
    partial.replace(path)
    return path
