"""``optrules compare DATASET`` (or ``--csv PATH``): the default exact and heuristic methods on one
stratified hold-out split.

The default methods are :data:`optrules.registry.PREFERENCE` (one or two methods per family, so that a
comparison stays well under a minute on the bundled datasets; the list lives in the registry so that
``optrules --help`` can name it without importing the experiment runner). Methods that solve models
get ``time_limit`` seconds for their exact part (its warm start, model load and solve); one stopped at
the limit shows its status, best bound and gap, and one that returned its warm start says so under
the table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from optrules.experiments.config import load_config, method_seed
from optrules.experiments.run import execute, results_frame
from optrules.registry import METHODS, PREFERENCE, default_methods
from optrules.ruleset import Ruleset

__all__ = ["PREFERENCE", "Comparison", "compare", "default_methods"]


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`; ``str()`` is what ``optrules compare`` prints."""

    dataset: str
    positive: Any
    seed: int
    results: pd.DataFrame  #: one row per method, the columns of ``optrules.experiments.COLUMNS``
    rulesets: dict[str, Ruleset]  #: method -> its Ruleset learned on the training split

    def __str__(self) -> str:
        first = self.results.iloc[0]
        solver_width = max([len("solver")] + [len(_text(v)) for v in self.results["solver"]]) + 2
        status_width = max([len("status")] + [len(_text(v)) + 1 for v in self.results["status"]]) + 2
        lines = [f"# {self.dataset}: {first['n_train']} training / {first['n_test']} test samples "
                 f"(stratified hold-out, seed {self.seed}), positive class {self.positive!r}",
                 f"# randomised methods: random_state {method_seed(self.seed, 0)}, as `optrules fit --seed "
                 f"{self.seed}` gives them", "",
                 f"{'method':18s}{'kind':>10s}{'F1':>7s}{'acc.':>7s}{'bal.acc.':>9s}{'rules':>7s}"
                 f"{'atoms/rule':>11s}{'fit s':>8s}  {'solver':{solver_width}s}{'status':{status_width}s}"
                 f"{'objective':>11s}{'bound':>11s}{'gap':>8s}"]
        notes, marks = [], set()
        for row in self.results.itertuples(index=False):
            gap = "-" if pd.isna(row.gap) else f"{100 * row.gap:.1f}%"
            status = _text(row.status) + ("*" if isinstance(row.fallback, str) else "")
            mark = _row_marks(row)
            marks.update(mark)
            lines.append(f"{row.method + mark:18s}{'exact' if row.exact else 'heuristic':>10s}{row.f1:7.3f}"
                         f"{row.accuracy:7.3f}{row.balanced_accuracy:9.3f}{_count(row.n_rules):>7s}{_decimal(row.avg_atoms):>11s}"
                         f"{row.fit_seconds:8.2f}  {_text(row.solver):{solver_width}s}"
                         f"{status:{status_width}s}{_number(row.objective):>11s}{_number(row.bound):>11s}{gap:>8s}")
            if isinstance(row.fallback, str):
                notes.append(f"* {row.method}: {self.rulesets[row.method].meta.get('fallback_reason', '')}")
        legend = {"ᵃ": f"ᵃ a multi-class model: accuracy and balanced accuracy over all classes, not "
                       f"{self.positive!r} against the rest as in the other rows",
                  "∅": "∅ a model that predicts one class everywhere",
                  "⚠": "⚠ the fit warned (below)"}
        lines += [""] * bool(marks) + [legend[m] for m in legend if m in marks]
        if notes:
            lines += ["", "* the fit returned its warm start (fallback), not the exact model's solution:", *notes]
        warned = [(row.method, row.warnings) for row in self.results.itertuples(index=False)
                  if "⚠" in _row_marks(row)]
        if warned:
            lines += ["", "⚠ warnings:", *(f"⚠ {method}: {text}" for method, text in warned)]
        for method, ruleset in self.rulesets.items():
            size = (f"a scorecard of {len(ruleset.rules) + len(ruleset.linear)} terms" if ruleset.kind == "score"
                    else f"{ruleset.n_rules} rules, {ruleset.n_atoms} atoms")
            lines += ["", f"## {method}: {size}", str(ruleset)]
        return "\n".join(lines)


def _row_marks(row: Any) -> str:
    """A result row's marks in the printed table: ᵃ a multi-class model scored over all classes, ∅ a
    model that predicts one class everywhere, ⚠ a fit that warned (a row without those columns has none)."""
    warnings = getattr(row, "warnings", None)
    return ("ᵃ" if getattr(row, "all_classes", None) is True else "") + \
        ("∅" if getattr(row, "degenerate", None) is True else "") + \
        ("⚠" if isinstance(warnings, str) and warnings else "")


def _count(value: Any) -> str:
    """A rule count, "-" where it does not apply (a scorecard)."""
    return "-" if pd.isna(value) else str(int(value))


def _decimal(value: Any) -> str:
    return "-" if pd.isna(value) else f"{value:.2f}"


def _number(value: Any) -> str:
    return "-" if value is None or pd.isna(value) else f"{value:.5g}"


def _text(value: Any) -> str:
    return "-" if pd.isna(value) else str(value)


def compare(dataset: str | None = None, methods: list[str] | None = None, test_size: float = 0.3,
            seed: int = 0, time_limit: float | None = 10.0, jobs: int = 1, *, csv: str | os.PathLike[str] | None = None,
            label: str = "class", positive: Any = None, categorical: list[str] | None = None,
            solver: str | None = None, numeric: list[str] | None = None,
            missing: list[str] | None = None) -> Comparison:
    """Fit ``methods`` (default :func:`default_methods`) with their default parameters on a stratified
    ``1 - test_size`` training split of one dataset and score them on the rest; every method that
    solves models gets ``time_limit`` seconds for its exact part (None: no limit) and, when given,
    ``solver`` (a solver that cannot solve a method's models is an error before any fit, naming both).

    The dataset is a bundled one (``dataset``, see :func:`optrules.datasets.list_datasets`) or a CSV
    file (``csv``, read by :func:`optrules.datasets.load_csv` with its ``label`` column, the columns
    ``categorical`` forced to categories, the columns ``numeric`` declared numbers and the strings
    ``missing`` read as missing values; ``dataset`` then names it in the table, default the file's
    name). ``positive``: the positive class (default: the bundled dataset's, else the minority class)."""
    if dataset is None and csv is None:
        raise ValueError("compare needs a bundled dataset name or csv=PATH")
    if csv is None and (categorical or numeric or missing or label != "class"):
        raise ValueError("label, categorical, numeric and missing describe a CSV file: give them with csv=PATH")
    if isinstance(test_size, bool) or not isinstance(test_size, (int, float)) or not 0 < test_size < 1:
        raise ValueError(f"test_size (--test-size) must be a fraction of the rows in (0, 1), got {test_size!r}")
    spec: dict[str, Any] = {"name": dataset if dataset is not None else Path(csv).name.split(".")[0]}
    if csv is not None:
        spec.update({"path": str(Path(csv).resolve()), "label": label})
        for key, values in (("categorical", categorical), ("numeric", numeric), ("missing", missing)):
            if values:
                spec[key] = list(values)
    if positive is not None:
        spec["positive"] = positive
    entries = []
    for name in methods or default_methods():
        entry: dict[str, Any] = {"name": name}
        params = METHODS[name].estimator().get_params() if name in METHODS else {}
        if time_limit is not None and "solver_options" in params:
            entry["solver_options"] = {"time_limit": time_limit}
        if solver is not None and "solver" in params:
            entry["solver"] = solver
        entries.append(entry)
    config = load_config({
        "title": f"compare {spec['name']}",
        "datasets": [spec],
        "protocol": {"kind": "splits", "repeats": 1, "train_size": 1.0 - test_size, "seed": seed},
        "methods": entries,
        "parallel": {"jobs": jobs},
    })
    resolved, outcomes = execute(config, verbose=False)
    return Comparison(resolved.datasets[0].name, resolved.datasets[0].positive, seed, results_frame(outcomes),
                      {o.row["method"]: o.ruleset for o in outcomes})
