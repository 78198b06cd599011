"""Write an experiment's outputs into one directory.

    results.csv       the tidy table, one row per dataset x method x fold (results.parquet too when
                      pyarrow is installed)
    results.jsonl     (written by ``run`` during the run, not here) one line per finished fit, for
                      resuming (``optrules.experiments.resume``)
    config.json       the resolved configuration (defaults filled in, each dataset's positive class);
                      ``optrules run config.json`` reruns it
    environment.json  optrules' version and those of Python and the libraries the numbers depend on
    report.md         the paper-style tables (``optrules.experiments.report``)
    *.png             the plots (``optrules.experiments.plots``) when matplotlib is installed
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import platform
from pathlib import Path

import pandas as pd

from optrules.version import package_version
from optrules.experiments.config import ExperimentConfig
from optrules.experiments.report import markdown_report

__all__ = ["write_outputs"]

_LIBRARIES = ("numpy", "pandas", "scikit-learn", "pyomo", "highspy", "pyscipopt", "cvxpy", "joblib")


def write_outputs(results: pd.DataFrame, config: ExperimentConfig, out: str | Path) -> list[Path]:
    """Write the files listed in the module docstring; returns their paths."""
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    written = [directory / "results.csv", directory / "config.json", directory / "environment.json",
               directory / "report.md"]
    results.to_csv(written[0], index=False)
    written[1].write_text(json.dumps(config.to_dict(), indent=2, default=str) + "\n")
    written[2].write_text(json.dumps(_environment(), indent=2) + "\n")
    title = config.title or "Experiment"
    plots_note = ""
    if importlib.util.find_spec("matplotlib") is not None:
        from optrules.experiments.plots import write_plots

        plots = write_plots(results, directory)
        written += plots
        plots_note = "\n## Plots\n\n" + "\n".join(f"![{p.stem}]({p.name})" for p in plots) + "\n"
    written[3].write_text(f"# {title}\n\noptrules {package_version()}; configuration in `config.json`, "
                          f"one row per fit in `results.csv`.\n\n{markdown_report(results)}{plots_note}")
    if importlib.util.find_spec("pyarrow") is not None:
        written.append(directory / "results.parquet")
        results.to_parquet(written[-1], index=False)
    return written


def _environment() -> dict[str, str]:
    versions = {"optrules": package_version(), "python": platform.python_version()}
    for name in _LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions
