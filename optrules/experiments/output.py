"""Write an experiment's outputs into one directory.

    results.csv       the tidy table, one row per dataset x method x fold (results.parquet too when
                      pyarrow is installed)
    results.jsonl     (written by ``run`` during the run, not here) one line per finished fit, for
                      resuming (``optrules.experiments.resume``)
    rules/            (written beside results.jsonl) every fit's learned model,
                      ``rules/<dataset>/<method>/fold-<k>.json`` (``Ruleset.from_json`` reads it)
    config.json       the resolved configuration (defaults filled in, each dataset's positive class);
                      ``optrules run config.json`` reruns it
    baselines.csv     the trivial models on the same splits (``optrules.experiments.baselines``)
    environment.json  the versions of optrules (and its git commit, with a dirty flag, when it runs
                      from a checkout), Python and the installed libraries and solvers the numbers
                      depend on; the OS, the CPU model and its core count
    report.md         the paper-style tables with the baselines, the significance tests
                      (``optrules.experiments.report``, ``optrules.experiments.statistics``) and the plots
    *.png             the plots (``optrules.experiments.plots``) when matplotlib is installed

Plots and ``results.parquet`` an earlier run left in the directory are removed first, so that every
file there belongs to this run (``results.jsonl`` is the run's own, see ``run``).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd

from optrules.version import package_version
from optrules.experiments.baselines import baseline_results
from optrules.experiments.config import ExperimentConfig
from optrules.experiments.report import markdown_report

__all__ = ["environment", "write_outputs"]

#: The distributions whose versions environment.json records ("not installed" when absent): the
#: numerical stack, the modelling layers, every solver interface optrules can call (cyipopt under
#: either of its distributions), the compiled kernels' compiler, and the libraries of the report.
LIBRARIES = ("numpy", "scipy", "pandas", "scikit-learn", "joblib", "pyomo", "cvxpy", "highspy",
             "pyscipopt", "clarabel", "osqp", "scs", "ecos", "cyipopt", "cyipopt-wheels", "gurobipy", "matplotlib",
             "scikit-posthocs")


def write_outputs(results: pd.DataFrame, config: ExperimentConfig, out: str | Path) -> list[Path]:
    """Write the files listed in the module docstring; returns their paths. ``config`` is the
    resolved configuration (each dataset's positive class known), as ``run`` has it."""
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    _remove_earlier_outputs(directory)
    written = [directory / "results.csv", directory / "config.json", directory / "environment.json",
               directory / "report.md", directory / "baselines.csv"]
    results.to_csv(written[0], index=False)
    written[1].write_text(json.dumps(config.to_dict(), indent=2, default=str) + "\n")
    written[2].write_text(json.dumps(environment(), indent=2) + "\n")
    baselines = baseline_results(config)
    baselines.to_csv(written[4], index=False)
    title = config.title or "Experiment"
    plots_note, diagrams = "", {}
    if importlib.util.find_spec("matplotlib") is not None:
        from optrules.experiments.plots import write_plots

        plots = write_plots(results, directory)
        written += plots
        diagrams = {p.stem[len("critical_difference_"):]: p.name for p in plots
                    if p.stem.startswith("critical_difference_")}
        shown = [p for p in plots if not p.stem.startswith("critical_difference_")]
        plots_note = "\n## Plots\n\n" + "\n".join(f"![{p.stem}]({p.name})" for p in shown) + "\n"
    report = markdown_report(results, baselines=baselines, pairs=config.wilcoxon_pairs, diagrams=diagrams)
    positives = ", ".join(f"{d.name}: {d.positive!r}" for d in config.datasets)
    written[3].write_text(f"# {title}\n\noptrules {package_version()}; configuration in `config.json`, "
                          "one row per fit in `results.csv`, the baselines' rows in `baselines.csv`, "
                          f"versions and machine in `environment.json`.\n\n{protocol_text(config)}\n\n"
                          "Positive class of each dataset (every F1 "
                          f"is of it, one class against the rest): {positives}.\n\n{report}{plots_note}")
    if importlib.util.find_spec("pyarrow") is not None:
        written.append(directory / "results.parquet")
        results.to_parquet(written[-1], index=False)
    return written


def protocol_text(config: ExperimentConfig) -> str:
    """The protocol the tables come from, in words: the splits and their seed, each dataset's own
    training size, repeats or row cap, and the time limit of every exact method."""
    protocol = config.protocol
    if protocol.kind == "kfold":
        text = f"Protocol: stratified {protocol.folds}-fold cross-validation, seed {protocol.seed}"
    else:
        kind = "stratified random" if protocol.stratify else "random (unstratified)"
        text = (f"Protocol: {protocol.repeats} {kind} splits, {_train_size(protocol.train_size)} for training, "
                f"seed {protocol.seed}")
    own = []
    for dataset in config.datasets:
        parts = [f"{dataset.repeats} splits" if dataset.repeats is not None else "",
                 f"{_train_size(dataset.train_size)} for training" if dataset.train_size is not None else "",
                 f"at most {dataset.max_train} training rows" if dataset.max_train is not None else ""]
        if any(parts):
            own.append(f"{dataset.name}: {', '.join(p for p in parts if p)}")
    text += f" ({'; '.join(own)})" if own else ""
    limits = [f"{m.label} {_seconds((m.params.get('solver_options') or {}).get('time_limit'))}"
              for m in config.methods if m.exact]
    text += f". Time limits of the exact methods: {', '.join(limits)}" if limits else ""
    timeouts = [f"{m.label} {_seconds(m.execution.timeout)}" for m in config.methods if m.execution.timeout is not None]
    text += f". A fit stopped after (row status 'timeout'): {', '.join(timeouts)}" if timeouts else ""
    return text + "."


def _train_size(size: float | int) -> str:
    return f"{100 * size:g}% of the rows" if isinstance(size, float) else f"{size} rows"


def _seconds(limit: Any) -> str:
    return "none" if limit is None else f"{limit:g} s"


def _remove_earlier_outputs(directory: Path) -> None:
    """Delete the files of an earlier run that this one may not write again: its plots (one per
    dataset, a test's diagram only when the test ran) and its parquet table."""
    from optrules.experiments.plots import PLOT_FILES

    for pattern in (*PLOT_FILES, "results.parquet"):
        for path in directory.glob(pattern):
            path.unlink()


def environment() -> dict[str, Any]:
    """What environment.json holds: optrules' version and, from a git checkout, its commit and
    whether the work tree had changes; Python's version and implementation; the OS; the CPU model
    and the number of logical cores; every one of :data:`LIBRARIES` with its version."""
    found: dict[str, Any] = {"optrules": package_version(), **_commit(),
                             "python": f"{platform.python_implementation()} {platform.python_version()}",
                             "os": platform.platform(), "cpu": _cpu_model(), "cpu_count": os.cpu_count()}
    for name in LIBRARIES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def _cpu_model() -> str:
    """The CPU's model name (Linux: /proc/cpuinfo; elsewhere what ``platform`` knows)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _commit() -> dict[str, Any]:
    """``optrules_commit`` and ``optrules_dirty`` when the package is imported from a git checkout
    (the repository holding the package directory), else nothing."""
    package = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(package.parent), *args], capture_output=True, text=True,
                                  timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != package.parent:
        return {}
    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    if commit is None:
        return {}
    return {"optrules_commit": commit.strip(), "optrules_dirty": bool(status and status.strip())}
