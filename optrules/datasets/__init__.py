"""Bundled benchmark datasets and a loader for CSV files in the same format.

The package ships 15 small real-world classification data sets (mostly from
the UCI Machine Learning Repository; see ``data/README.md`` for sources and
citations).  Every file is a gzip-compressed CSV with a header row, a label
column ``class`` holding the class values as strings, and missing values
written as empty fields.  ``data/manifest.json`` records, for each data set,
which columns are categorical and which are numeric, the class counts, the
positive class (if one is conventional) and the number of missing cells.

Typical use::

    from optrules import datasets

    datasets.list_datasets()          # ['adult', 'australian', ...]
    X, y = datasets.load("german")    # X: DataFrame, y: Series of str
    y.attrs["positive"]               # positive class from the manifest
    datasets.info("german")["citation"]

    X, y = datasets.load_csv("my.csv.gz", label="target", positive="yes")

Column conventions for the returned ``X``:

* categorical columns have pandas ``category`` dtype whose categories are the
  original strings from the file (codes such as ``"1"``, ``"A11"`` or ``"y"``
  are never converted to numbers);
* numeric columns are ``float64``;
* missing values are ``NaN``.

Listing the datasets and their manifest entries reads JSON only; pandas is imported by the loaders.
"""

from __future__ import annotations

import copy
import difflib
import functools
import json
import os
import re
import warnings
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["list_datasets", "load", "info", "load_csv"]

_DATA_PACKAGE = __name__
_DATA_DIR = "data"
_MANIFEST = "manifest.json"
_README = "README.md"
_LABEL = "class"
#: :func:`load_csv` warns about a column it reads as numbers whose values are all integers, at most
#: this many distinct ones, each repeated on average (more rows than values): bit columns and
#: category codes look like that, and read as numbers they are binned or standardised, not matched.
FEW_INTEGER_VALUES = 10
#: A column read as categories although at most this many distinct values of it are not numbers,
#: in less than ``FEW_TEXT_SHARE`` of its non-missing rows, is warned about: those values are often
#: markers of missing values (``NA``, ``?``, ``NaN``) that made a numeric column categorical.
FEW_TEXT_VALUES = 3
FEW_TEXT_SHARE = 0.5


# --------------------------------------------------------------------------
# Manifest and README
# --------------------------------------------------------------------------


def _data_file(filename: str) -> Any:
    """Return an ``importlib.resources`` handle for a bundled data file."""
    return resources.files(_DATA_PACKAGE).joinpath(_DATA_DIR).joinpath(filename)


@functools.lru_cache(maxsize=1)
def _manifest() -> dict[str, dict[str, Any]]:
    """Read ``manifest.json`` once and index its entries by data set name."""
    text = _data_file(_MANIFEST).read_text(encoding="utf-8")
    raw = json.loads(text)
    entries = raw.values() if isinstance(raw, dict) else raw
    out: dict[str, dict[str, Any]] = {}
    for entry in entries:
        out[entry["name"]] = entry
    return out


@functools.lru_cache(maxsize=1)
def _citations() -> dict[str, str]:
    """Extract the per-data-set ``Citation:`` sentence(s) from ``README.md``.

    The README has one ``## <name>`` section per data set; the citation is
    the text following ``Citation:`` in that section.  Data sets without such
    a line are simply absent from the result.
    """
    try:
        text = _data_file(_README).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return {}
    out: dict[str, str] = {}
    for section in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        heading, _, body = section.partition("\n")
        match = re.search(r"Citation:\s*(.+?)(?:\n\s*\n|\Z)", body, flags=re.DOTALL)
        if match:
            out[heading.strip()] = " ".join(match.group(1).split())
    return out


def _canonical_name(name: str) -> str:
    """Map a user-supplied data set name to its manifest key.

    Matching ignores case, surrounding whitespace, and treats ``-`` and
    spaces like ``_`` (so ``"House-Votes-84"`` finds ``house_votes_84``).

    Raises:
        TypeError: if ``name`` is not a string.
        ValueError: if no bundled data set has that name; the message lists
            the known names and, when there is one, the closest match.
    """
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a str, got {type(name).__name__}")
    manifest = _manifest()
    if name in manifest:
        return name
    key = re.sub(r"[\s\-]+", "_", name.strip().lower())
    if key in manifest:
        return key
    known = sorted(manifest)
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(
        f"unknown dataset {name!r}.{hint} Known datasets: {', '.join(known)}"
    )


# --------------------------------------------------------------------------
# Public API: bundled data sets
# --------------------------------------------------------------------------


def list_datasets() -> list[str]:
    """Return the names of the bundled data sets, sorted alphabetically."""
    return sorted(_manifest())


def info(name: str) -> dict[str, Any]:
    """Return the manifest entry of a bundled data set.

    The result is a fresh copy of the entry from ``manifest.json`` (keys such
    as ``n_rows``, ``n_features``, ``categorical``, ``numeric``, ``classes``
    (class value -> count), ``positive_class`` (may be ``None``),
    ``missing_cells``, ``source``, ``notes``, ``used_in``) plus ``citation``:
    the citation text from ``data/README.md``, or ``None`` if there is none.

    Raises:
        ValueError: if ``name`` is not a bundled data set.
    """
    canonical = _canonical_name(name)
    entry = copy.deepcopy(_manifest()[canonical])
    entry["citation"] = _citations().get(canonical)
    return entry


@functools.lru_cache(maxsize=None)
def _load_cached(canonical: str) -> tuple[pd.DataFrame, pd.Series]:
    """Read and type one bundled data set (cached; never hand out directly)."""
    import pandas as pd

    entry = _manifest()[canonical]
    label = entry.get("label", _LABEL)
    categorical = list(entry.get("categorical", []))
    numeric = list(entry.get("numeric", []))

    # Categorical and label columns are read as text so that codes such as
    # "1" or "A11" stay strings; only empty fields count as missing.
    dtypes: dict[str, Any] = {c: str for c in categorical}
    dtypes.update({c: "float64" for c in numeric})
    dtypes[label] = str
    with resources.as_file(_data_file(entry["file"])) as path:
        frame = pd.read_csv(
            path,
            compression="gzip",
            dtype=dtypes,
            keep_default_na=False,
            na_values=[""],
        )

    expected = set(categorical) | set(numeric) | {label}
    if set(frame.columns) != expected:
        extra = sorted(set(frame.columns) - expected)
        absent = sorted(expected - set(frame.columns))
        raise RuntimeError(
            f"bundled file {entry['file']!r} does not match manifest.json "
            f"(unexpected columns: {extra}; missing columns: {absent})"
        )

    y = frame.pop(label)
    y.name = _LABEL
    for col in categorical:
        frame[col] = frame[col].astype("category")
    for col in numeric:
        frame[col] = frame[col].astype("float64")
    return frame, y


def load(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """Load a bundled data set.

    Args:
        name: one of :func:`list_datasets` (case-insensitive; ``-`` may be
            used for ``_``).

    Returns:
        ``(X, y)``. ``X`` keeps the column order of the file; categorical
        columns (per the manifest) are ``category`` dtype with the original
        string values as categories, numeric columns are ``float64``, missing
        values are ``NaN``. ``y`` is a Series of strings named ``"class"``;
        ``y.attrs["positive"]`` holds the manifest's ``positive_class``
        (``None`` for data sets without a conventional positive class) and
        ``y.attrs["dataset"]`` the data set name.

        Results are cached per process; every call returns fresh copies, so
        modifying them does not affect later calls.

    Raises:
        ValueError: if ``name`` is not a bundled data set.
    """
    canonical = _canonical_name(name)
    X_cached, y_cached = _load_cached(canonical)
    X = X_cached.copy(deep=True)
    y = y_cached.copy(deep=True)
    X.attrs = {"dataset": canonical}
    y.attrs = {
        "dataset": canonical,
        "positive": _manifest()[canonical].get("positive_class"),
    }
    return X, y


# --------------------------------------------------------------------------
# Public API: arbitrary CSV files
# --------------------------------------------------------------------------


def _same_number(text: str, other: str) -> bool:
    """Whether two texts are the same number ("1" and "1.0"); False when either is not a number."""
    try:
        return float(text) == float(other)
    except ValueError:
        return False


def _is_gzip(path: Path) -> bool:
    """True if the file starts with the gzip magic number."""
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _as_numeric(values: pd.Series) -> pd.Series | None:
    """Parse a text column as float64, or return ``None`` if it is not numeric.

    A column is numeric when every non-missing value parses as a number
    (an all-missing column counts as numeric).
    """
    import pandas as pd

    try:
        parsed = pd.to_numeric(values, errors="raise")
    except (ValueError, TypeError):
        return None
    return parsed.astype("float64")


def _numbers(values: pd.Series) -> set[str]:
    """The entries of a text column that parse as numbers."""
    import pandas as pd

    parsed = pd.to_numeric(values, errors="coerce")
    return set(values[parsed.notna()])


def _format_values(values: Iterable[Any]) -> str:
    """Render a short, sorted list of values for error messages."""
    shown = sorted(map(str, values))
    if len(shown) > 20:
        shown = shown[:20] + ["..."]
    return "[" + ", ".join(repr(v) if v != "..." else v for v in shown) + "]"


def _looks_like_codes(values: pd.Series) -> bool:
    """True for a float64 column of integers with few distinct values (see ``FEW_INTEGER_VALUES``)."""
    present = values.dropna()
    distinct = present.unique()
    return (0 < len(distinct) <= FEW_INTEGER_VALUES and len(present) > len(distinct)
            and bool((distinct == distinct.round()).all()))


def _numbers_but_a_few(values: pd.Series) -> list[str] | None:
    """The values of a text column that are not numbers when they are few (at most
    ``FEW_TEXT_VALUES`` distinct ones, in less than ``FEW_TEXT_SHARE`` of the non-missing rows) and
    the numbers have more than ``FEW_INTEGER_VALUES`` distinct values (a quantity, not a few codes
    with a word among them such as car_evaluation's doors 2, 3, 4, "5more"); else None."""
    import pandas as pd

    present = values.dropna()
    is_text = pd.to_numeric(present, errors="coerce").isna()
    distinct = sorted(set(present[is_text]))
    if (0 < len(distinct) <= FEW_TEXT_VALUES and is_text.sum() < FEW_TEXT_SHARE * len(present)
            and present[~is_text].nunique() > FEW_INTEGER_VALUES):
        return distinct
    return None


def load_csv(
    path: str | os.PathLike[str],
    label: str = "class",
    positive: Any = None,
    categorical: list[str] | None = None,
    numeric: list[str] | None = None,
    missing: list[str] | None = None,
) -> tuple[pd.DataFrame, pd.Series]:
    """Load any CSV file in the bundled format.

    The file may be plain text or gzip-compressed (detected from its content,
    not its name). It must have a header row; empty fields are missing, and so
    are the strings listed in ``missing`` (e.g. ``["NA", "?"]``); any other
    string such as ``"NA"`` or ``"?"`` is kept as a value.

    Column types of ``X``:

    * a column whose non-missing values all parse as numbers becomes
      ``float64`` (an entirely empty column too);
    * any other column (text, ``True``/``False``, mixed) becomes
      ``category`` whose categories are the strings found in the file;
    * columns listed in ``categorical`` are always ``category`` of strings,
      even if they look numeric (e.g. codes ``"1"``, ``"2"``, ``"3"``);
    * columns listed in ``numeric`` must parse as numbers (``float64``).

    A column read as numbers whose values are all integers, with at most
    ``FEW_INTEGER_VALUES`` (10) distinct ones and more rows than values (a
    bit column, category codes) gets a ``UserWarning`` naming it: read as a
    number it is binned (rule learners) or standardised (CLSVM), not matched
    by value. List it in ``categorical`` to read it as categories, or in
    ``numeric`` to say it is a quantity; either silences the warning.

    A column read as categories although most of its values are numbers (at
    most ``FEW_TEXT_VALUES`` (3) distinct other values, in less than half of
    its rows, and more than ``FEW_INTEGER_VALUES`` (10) distinct numbers)
    gets a ``UserWarning`` naming it and those values: they are often
    markers of missing values (``NA`` as R writes it, ``?`` in UCI files)
    that would make every number a category of its own. List them in
    ``missing``, or the column in ``categorical`` to keep it as categories;
    either silences the warning.

    Args:
        path: path of the CSV file.
        label: name of the label column; it is removed from ``X`` and
            returned as ``y``.
        positive: optional positive class. It does not change ``y``; it is
            only checked to be one of the label values (non-string values are
            compared through ``str()``, so ``1`` matches ``"1"``; a number
            names the one label that is the same number, so ``"1"`` matches
            ``"1.0"``) and stored
            in ``y.attrs["positive"]`` (as the string found in the file).
        categorical: columns to force to ``category`` dtype.
        numeric: columns that are numbers, not codes (checked, not warned about).
        missing: strings that mark a missing value in any column, besides the
            empty field.

    Returns:
        ``(X, y)`` with ``y`` a Series of strings named after ``label``.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: if the header repeats a column name (pandas would rename
            the second one), if the file has no data rows, if the label column is absent (the message lists the
            columns present), if ``categorical`` or ``numeric`` names unknown
            columns or the label column, or a column in both, if a ``numeric``
            column has a value that is not a number, if the label column has missing values, or if
            ``positive`` is not a value of the label column (the message lists
            the classes present).
    """
    import pandas as pd

    file_path = Path(os.fspath(path))
    if not file_path.exists():
        raise FileNotFoundError(f"CSV file not found: {str(file_path)!r}")
    if file_path.is_dir():
        raise IsADirectoryError(f"expected a CSV file, got a directory: {str(file_path)!r}")

    markers = [missing] if isinstance(missing, str) else list(missing or [])  # one marker is a list of one
    if not all(isinstance(marker, str) for marker in markers):
        raise ValueError(f"missing must be a list of strings (the markers of a missing value), got {markers!r}")
    try:
        frame = pd.read_csv(
            file_path,
            compression="gzip" if _is_gzip(file_path) else None,
            dtype=str,
            keep_default_na=False,
            na_values=["", *markers],
        )
        header = pd.read_csv(file_path, compression="gzip" if _is_gzip(file_path) else None, dtype=str,
                             header=None, nrows=1, keep_default_na=False).iloc[0].tolist()
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise ValueError(f"{str(file_path)!r} cannot be read as a CSV file (UTF-8, comma-separated, a "
                         f"header row): {error}") from None
    repeated = sorted({name for name in header if name and header.count(name) > 1})  # '' is 'Unnamed: i'
    if repeated:  # read_csv would rename the second one ('class.1'): a repeated label would become a feature
        raise ValueError(f"the header of {str(file_path)!r} repeats column name(s) {repeated}; "
                         f"every column needs a name of its own")
    if frame.empty:
        raise ValueError(f"{str(file_path)!r} has a header but no data rows")

    columns = [str(c) for c in frame.columns]
    if label not in frame.columns:
        other = [sep for sep in (";", "\t", "|") if len(columns) == 1 and sep in columns[0]]
        hint = f" (one column whose name holds {other[0]!r}: the file is not comma-separated)" if other else ""
        raise ValueError(
            f"label column {label!r} not found in {str(file_path)!r}; "
            f"columns present: {columns}{hint}"
        )

    forced = list(categorical or [])
    declared = list(numeric or [])
    for kind, names in (("categorical", forced), ("numeric", declared)):
        unknown = [c for c in names if c not in frame.columns]
        if unknown:
            raise ValueError(
                f"{kind} columns not found in {str(file_path)!r}: {unknown}; "
                f"columns present: {columns}"
            )
        if label in names:
            raise ValueError(f"label column {label!r} cannot also be listed in {kind}")
    both = sorted(set(forced) & set(declared))
    if both:
        raise ValueError(f"columns listed both as categorical and as numeric: {both}")

    y = frame.pop(label)
    n_missing_labels = int(y.isna().sum())
    if n_missing_labels:
        raise ValueError(
            f"label column {label!r} in {str(file_path)!r} has "
            f"{n_missing_labels} missing value(s)"
        )

    forced_set = set(forced)
    codes, mostly_numbers = [], {}
    for col in list(frame.columns):
        parsed = None if col in forced_set else _as_numeric(frame[col])
        if parsed is None:
            if col in declared:
                raise ValueError(
                    f"numeric column {col!r} in {str(file_path)!r} has values that are not "
                    f"numbers: {_format_values(set(frame[col].dropna()) - _numbers(frame[col]))}"
                )
            others = None if col in forced_set else _numbers_but_a_few(frame[col])
            if others is not None:
                mostly_numbers[str(col)] = others
            frame[col] = frame[col].astype("category")
        else:
            frame[col] = parsed
            if col not in declared and _looks_like_codes(parsed):
                codes.append(str(col))
    if codes:
        warnings.warn(
            f"{str(file_path)!r}: column(s) {codes} hold integers with at most "
            f"{FEW_INTEGER_VALUES} distinct values and are read as numbers (binned or "
            f"standardised, not matched by value); if they are codes of categories, list "
            f"them in categorical= (a manifest's or a configuration's \"categorical\"); if "
            f"they are quantities, list them in numeric=",
            UserWarning,
            stacklevel=2,
        )

    row_numbers = [str(col) for col in frame.columns
                   if str(col).startswith("Unnamed: ") and frame[col].dtype == "float64" and len(frame) > 2
                   and frame[col].notna().all() and frame[col].is_unique
                   and frame[col].eq(frame[col].round()).all()]
    if row_numbers:
        warnings.warn(
            f"{str(file_path)!r}: column(s) {row_numbers} have no name in the header and hold a distinct "
            f"whole number per row: an index written with the data (pandas' to_csv writes one unless "
            f"index=False)? As a feature it tells the rows apart by their place in the file; drop it "
            f"unless it means something",
            UserWarning,
            stacklevel=2,
        )
    if mostly_numbers:
        tokens = sorted({token for others in mostly_numbers.values() for token in others})
        warnings.warn(
            f"{str(file_path)!r}: column(s) {list(mostly_numbers)} are read as categories, every "
            f"value a category of its own, although all their values but "
            f"{_format_values(tokens)} are numbers; if those mark missing values, list them in "
            f"missing= (a manifest's or a configuration's \"missing\", the command line's "
            f"--missing); to keep these columns as categories, list them in categorical=",
            UserWarning,
            stacklevel=2,
        )

    classes = set(y.unique())
    if positive is not None:
        pos_key = positive if isinstance(positive, str) else str(positive)
        same_number = [c for c in classes if _same_number(c, pos_key)]
        if pos_key not in classes and len(same_number) == 1:  # "1" names the label "1.0" of a 0.0 / 1.0 column
            pos_key = same_number[0]
        if pos_key not in classes:
            raise ValueError(
                f"positive class {positive!r} is not a value of label column "
                f"{label!r}; classes present: {_format_values(classes)}"
            )
        positive = pos_key

    frame.attrs = {"source": str(file_path)}
    y.attrs = {"source": str(file_path), "positive": positive}
    return frame, y
