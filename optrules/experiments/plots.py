"""Plots of a result table (matplotlib, PNG), drawn on standalone Figures (no pyplot state).

* :func:`plot_f1_vs_size`: for one dataset, F1 against #rules and against atoms per rule, one
  marker per method at its mean over the folds with standard-deviation bars (the LIBRE paper's
  Figures 11-12);
* :func:`plot_fit_time`: mean fit seconds against the number of training rows, one line per method
  across the datasets, both axes logarithmic.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["plot_f1_vs_size", "plot_fit_time", "write_plots"]


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plots need matplotlib: pip install 'optrules[plots]'") from None
    return Figure(figsize=(width, height), layout="constrained")


def _markers(methods: list[str]) -> dict[str, str]:
    shapes = "osD^vP*Xhp<>"
    return {m: shapes[i % len(shapes)] for i, m in enumerate(methods)}


def plot_f1_vs_size(results: pd.DataFrame, dataset: str) -> Any:
    """F1 against #rules (left) and against atoms per rule (right) on ``dataset``."""
    rows = results[results["dataset"] == dataset]
    methods = list(dict.fromkeys(rows["method"]))
    stats = rows.groupby("method", sort=False)[["f1", "n_rules", "avg_atoms"]].agg(["mean", "std"])
    figure = _figure(9, 3.8)
    axes = figure.subplots(1, 2, sharey=True)
    markers = _markers(methods)
    for ax, size, label in zip(axes, ("n_rules", "avg_atoms"), ("#rules", "atoms per rule")):
        for method in methods:
            ax.errorbar(stats.at[method, (size, "mean")], stats.at[method, ("f1", "mean")],
                        xerr=stats.at[method, (size, "std")], yerr=stats.at[method, ("f1", "std")],
                        fmt=markers[method], capsize=3, label=method)
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("F1-score")
    axes[1].legend(loc="best", fontsize="small")
    figure.suptitle(f"{dataset}: F1-score vs. #rules and atoms per rule")
    return figure


def plot_fit_time(results: pd.DataFrame) -> Any:
    """Mean fit seconds against training rows, one line per method over the datasets."""
    methods = list(dict.fromkeys(results["method"]))
    means = results.groupby(["method", "dataset"], sort=False)[["n_train", "fit_seconds"]].mean()
    figure = _figure(6, 4)
    ax = figure.subplots()
    markers = _markers(methods)
    for method in methods:
        points = means.loc[method].sort_values("n_train")
        ax.plot(points["n_train"], points["fit_seconds"], marker=markers[method], label=method)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training rows")
    ax.set_ylabel("fit seconds (mean over folds)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="best", fontsize="small")
    figure.suptitle("Fit time vs. data size")
    return figure


def write_plots(results: pd.DataFrame, out: str | Path) -> list[Path]:
    """Write ``f1_vs_size_<dataset>.png`` for every dataset and ``fit_time.png`` into ``out``."""
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for dataset in dict.fromkeys(results["dataset"]):
        path = directory / f"f1_vs_size_{re.sub(r'[^A-Za-z0-9_.-]+', '_', str(dataset))}.png"
        plot_f1_vs_size(results, dataset).savefig(path, dpi=110)
        written.append(path)
    path = directory / "fit_time.png"
    plot_fit_time(results).savefig(path, dpi=110)
    written.append(path)
    return written
