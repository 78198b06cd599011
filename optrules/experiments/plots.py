"""Plots of a result table (matplotlib, PNG), drawn on standalone Figures (no pyplot state).

* :func:`plot_metric_vs_size`: for one dataset, a metric (F1 by default) against each size measure
  that applies (#rules; atoms per rule, which does not apply to scorecards), one marker per method
  at its mean over the folds with standard-deviation bars (the LIBRE paper's Figures 11-12). Every
  method stays visible: each has its own marker and colour, and markers that would coincide (within
  2% of the axes' ranges) are spread sideways, so equal results sit side by side instead of on top
  of each other (the offset is for the eye; the front uses the true values). The Pareto
  front (no other method has as high a score with a size as small, one of them strictly better) is
  drawn as a step line through its methods, degenerate methods (one class predicted everywhere,
  drawn hollow, with on how many folds) left out of it. The legend is outside the axes.
* :func:`plot_fit_time`: the mean fit seconds of every method on every dataset, one column of
  points per dataset, the datasets ordered by their number of training rows and labelled with it;
  no line joins datasets (they are different problems, not one scaling curve).
* :func:`plot_critical_difference`: the critical-difference diagram of a Friedman/Nemenyi result
  (:mod:`optrules.experiments.statistics`), drawn by scikit-posthocs: the methods on their average
  ranks, joined where Nemenyi finds no difference, with the critical difference drawn above.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from optrules.experiments.config import folder_name
from optrules.experiments.report import METRICS, TESTED_METRICS, rank_scores
from optrules.experiments.statistics import ALPHA, Friedman, friedman_nemenyi

__all__ = ["SIZE_MEASURES", "pareto_front", "plot_critical_difference", "plot_fit_time", "plot_metric_vs_size",
           "write_plots"]

#: The size measures drawn against a metric, with their axis labels.
SIZE_MEASURES = {"n_rules": "#rules", "avg_atoms": "atoms per rule"}
_SHAPES = "osD^vP*Xhp<>"


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plots need matplotlib: pip install 'optrules[plots]'") from None
    return Figure(figsize=(width, height), layout="constrained")


def _styles(methods: list[str]) -> dict[str, tuple[str, Any]]:
    """A marker and a colour per method (tab10 colours, then the next shapes)."""
    from matplotlib import colormaps

    colours = colormaps["tab10"].colors
    return {m: (_SHAPES[i % len(_SHAPES)], colours[i % len(colours)]) for i, m in enumerate(methods)}


def _offsets(n: int, width: float) -> np.ndarray:
    """n sideways offsets, evenly spread over ``width`` and centred on 0."""
    return (np.arange(n) - (n - 1) / 2) * (width / max(n - 1, 1)) if n > 1 else np.zeros(1)


def _dodge(x: pd.Series, y: pd.Series, xerr: pd.Series) -> dict[Any, float]:
    """Sideways offsets that keep coinciding points apart: points within 2% of the ranges of each
    other (in both coordinates) form a group, spread evenly by 3% of the x extent (error bars
    included) per point; a point alone keeps its place."""
    if x.empty:
        return {}
    extent = float((x + xerr).max() - (x - xerr).min()) or 1.0
    height = float(y.max() - y.min()) or 1.0
    groups: list[list[Any]] = []
    for label in x.index:
        for group in groups:
            first = group[0]
            if abs(x[label] - x[first]) <= 0.02 * extent and abs(y[label] - y[first]) <= 0.02 * height:
                group.append(label)
                break
        else:
            groups.append([label])
    return {label: float(offset) for group in groups
            for label, offset in zip(group, _offsets(len(group), 0.03 * extent * (len(group) - 1)))}


def pareto_front(size: pd.Series, score: pd.Series) -> list[Any]:
    """The labels not dominated by another: none has a size as small and a score as high, one of the
    two strictly; sorted by size. NaN entries take no part."""
    both = pd.DataFrame({"size": size, "score": score}).dropna()
    front = [m for m in both.index
             if not ((both["size"] <= both.at[m, "size"]) & (both["score"] >= both.at[m, "score"])
                     & ((both["size"] < both.at[m, "size"]) | (both["score"] > both.at[m, "score"]))).any()]
    return sorted(front, key=lambda m: (both.at[m, "size"], -both.at[m, "score"]))


def plot_metric_vs_size(results: pd.DataFrame, dataset: str, metric: str = "f1") -> Any:
    """``metric`` against each size measure of :data:`SIZE_MEASURES` that some method on ``dataset``
    has (one panel each; a method without it is not drawn there); None when no measure applies."""
    rows = results[results["dataset"] == dataset]
    if "status" in rows:
        rows = rows[~rows["status"].isin(("error", "crashed", "timeout"))]
    methods = list(dict.fromkeys(rows["method"]))
    columns = [metric, *SIZE_MEASURES]
    stats = rows.groupby("method", sort=False)[columns].agg(["mean", "std"]).reindex(methods)
    folds = rows.groupby("method", sort=False).size().reindex(methods)
    degenerate = (rows.groupby("method", sort=False)["degenerate"].agg(lambda v: int(v.eq(True).sum()))
                  .reindex(methods) if "degenerate" in rows else pd.Series(0, index=methods))
    measures = [size for size in SIZE_MEASURES if stats[(size, "mean")].notna().any()]
    if not measures:
        return None
    figure = _figure(4.2 * len(measures) + 2.2, 3.8)
    axes = np.atleast_1d(figure.subplots(1, len(measures), sharey=True, squeeze=False)[0])
    styles = _styles(methods)
    for ax, size in zip(axes, measures):
        x, y = stats[(size, "mean")], stats[(metric, "mean")]
        drawn = [m for m in methods if not (np.isnan(x[m]) or np.isnan(y[m]))]
        shift = _dodge(x[drawn], y[drawn], stats[(size, "std")].fillna(0.0)[drawn])
        for method in drawn:
            marker, colour = styles[method]
            hollow = bool(degenerate[method])
            ax.errorbar(x[method] + shift[method], y[method], xerr=stats.at[method, (size, "std")],
                        yerr=stats.at[method, (metric, "std")], fmt=marker, color=colour, capsize=3,
                        markerfacecolor="none" if hollow else colour, markersize=7,
                        label=method + (f" (degenerate on {degenerate[method]}/{folds[method]} folds)" if hollow else ""))
        front = pareto_front(x[[m for m in drawn if not degenerate[m]]], y[[m for m in drawn if not degenerate[m]]])
        if front:
            ax.step(x[front], y[front], where="post", color="0.3", linestyle="--", linewidth=1, zorder=0,
                    label="Pareto front")
            ax.scatter(x[front] + pd.Series(shift)[front], y[front], s=170, facecolors="none", edgecolors="0.3",
                       linewidths=1, zorder=3)
        ax.set_xlabel(SIZE_MEASURES[size])
        ax.grid(alpha=0.3)
    positive = results.attrs.get("positive", {}).get(dataset)  # the class every F1 of a run is of
    title = METRICS[metric].title + (f" ({positive!r})" if metric == "f1" and positive is not None else "")
    axes[0].set_ylabel(title)
    handles, labels = axes[0].get_legend_handles_labels()
    for ax in axes[1:]:  # a method drawn only in a later panel still gets its entry
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    figure.legend(handles, labels, loc="outside right center", fontsize="small", frameon=False)
    figure.suptitle(f"{dataset}: {title} vs. size\n(mean ± std over the folds; coinciding markers spread "
                    "sideways to stay visible; circled: the Pareto front)", fontsize="medium")
    return figure


def plot_fit_time(results: pd.DataFrame) -> Any:
    """Mean fit seconds (log scale, bars: smallest to largest fold) of every method on every dataset,
    the datasets left to right by training rows, each labelled with its name and mean training rows."""
    methods = list(dict.fromkeys(results["method"]))
    seconds = results.groupby(["dataset", "method"], sort=False)["fit_seconds"].agg(["mean", "min", "max"])
    rows = results.groupby("dataset", sort=False)["n_train"].mean().sort_values(kind="stable")
    datasets = list(rows.index)
    figure = _figure(max(6.0, 1.1 * len(datasets) + 3.0), 4.2)
    ax = figure.subplots()
    styles = _styles(methods)
    shift = dict(zip(methods, _offsets(len(methods), 0.6)))
    for method in methods:
        marker, colour = styles[method]
        here = [d for d in datasets if (d, method) in seconds.index]
        if not here:
            continue
        mean = seconds.loc[[(d, method) for d in here]]
        positions = np.array([datasets.index(d) for d in here]) + shift[method]
        ax.errorbar(positions, mean["mean"], yerr=[mean["mean"] - mean["min"], mean["max"] - mean["mean"]],
                    fmt=marker, color=colour, capsize=2, markersize=6, linestyle="none", label=method)
    ax.set_xticks(range(len(datasets)), [f"{d}\n{rows[d]:,.0f} rows" for d in datasets], fontsize="small")
    ax.set_xlim(-0.6, len(datasets) - 0.4)
    ax.set_yscale("log")
    ax.set_ylabel("fit seconds (mean over folds, bars min-max)")
    ax.set_xlabel("dataset, with its training rows (datasets ordered by them)")
    ax.grid(alpha=0.3, which="both", axis="y")
    figure.legend(loc="outside right center", fontsize="small", frameon=False)
    figure.suptitle("Fit time per dataset (wall seconds)", fontsize="medium")
    return figure


def plot_critical_difference(friedman: Friedman, title: str) -> Any:
    """The critical-difference diagram of ``friedman`` (needs its Nemenyi p-values)."""
    if friedman.nemenyi is None:
        raise ValueError(f"no Nemenyi test to draw: {friedman.note}")
    import scikit_posthocs

    figure = _figure(7, 0.35 * len(friedman.ranks) + 1.6)
    ax = figure.subplots()
    scikit_posthocs.critical_difference_diagram(friedman.ranks, friedman.nemenyi, ax=ax, cd=friedman.cd,
                                                label_fmt_left="{label} ({rank:.2f})",
                                                label_fmt_right="({rank:.2f}) {label}")
    figure.suptitle(f"{title}: average ranks over {friedman.n_datasets} datasets (1 = best)\nbars join "
                    f"methods Nemenyi cannot tell apart at {ALPHA:g} (CD = {friedman.cd:.2f})", fontsize="medium")
    return figure


#: The file names :func:`write_plots` can write (glob patterns): an output directory's plots.
PLOT_FILES = ("f1_vs_size_*.png", "fit_time.png", "critical_difference_*.png")


def write_plots(results: pd.DataFrame, out: str | Path) -> list[Path]:
    """Write into ``out``: ``f1_vs_size_<dataset>.png`` for every dataset where a size measure
    applies, ``fit_time.png``, and ``critical_difference_<metric>.png`` for each metric of
    :data:`optrules.experiments.report.TESTED_METRICS` in ``results`` whose Nemenyi test ran (enough methods and
    datasets, scikit-posthocs installed)."""
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    written = []

    def save(figure: Any, name: str) -> None:
        path = directory / name
        figure.savefig(path, dpi=120)
        written.append(path)

    for dataset in dict.fromkeys(results["dataset"]):
        figure = plot_metric_vs_size(results, dataset)
        if figure is not None:
            save(figure, f"f1_vs_size_{folder_name(str(dataset))}.png")
    save(plot_fit_time(results), "fit_time.png")
    for metric in (m for m in TESTED_METRICS if m in results):
        friedman = friedman_nemenyi(rank_scores(results, metric), METRICS[metric].higher_is_better)
        if friedman.nemenyi is not None:
            save(plot_critical_difference(friedman, METRICS[metric].title), f"critical_difference_{metric}.png")
    return written
