"""Paper-style tables from a result table: mean (std) per dataset x method and an average-rank row.

The layout follows the LIBRE paper's Tables 7-9 (Mita et al., Appendix E): one row per dataset, one
column per method, each cell the mean over the folds with the standard deviation in parentheses, the
best mean of a row (as printed, so ties are all bold) in bold, and a last row "Avg Rank" (one decimal): on every dataset the methods are ranked by
their mean (1 = best; ties share the average rank), and the row gives each method's mean rank over
the datasets with its standard deviation. Standard deviations are population ones (``ddof=0``): the
paper does not say which it uses.

Failed fits (status "error", "crashed" or "timeout": NaN metrics) are not averaged away silently: a
cell over fewer fits than the method ran says so (``[3/5 fits]``), the ranks use only the datasets on
which every method has every fit, and :func:`markdown_report` lists the failures.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from optrules.experiments.run import FAILED_STATUSES

__all__ = ["METRICS", "Metric", "failures_table", "markdown_report", "markdown_table", "summary_table"]


@dataclass(frozen=True)
class Metric:
    title: str
    higher_is_better: bool
    decimals: int


#: The metrics reported, in report order: column of the result table -> how to read it.
METRICS: dict[str, Metric] = {
    "f1": Metric("F1-score of the positive class", True, 2),
    "accuracy": Metric("Accuracy", True, 2),
    "balanced_accuracy": Metric("Balanced accuracy", True, 2),
    "n_rules": Metric("#rules", False, 1),
    "avg_atoms": Metric("#atoms per rule", False, 1),
    "complexity": Metric("Complexity", False, 1),
    "fit_seconds": Metric("Fit seconds", False, 2),
}

RANK_ROW = "Avg Rank"


def summary_table(results: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Datasets x methods of "mean (std)" strings for ``metric``, best mean in bold, and the
    average-rank row; datasets and methods in their order of appearance."""
    spec = METRICS[metric]
    datasets = list(dict.fromkeys(results["dataset"]))
    methods = list(dict.fromkeys(results["method"]))
    grouped = results.groupby(["dataset", "method"], sort=False)[metric]
    means = grouped.mean().unstack("method").reindex(index=datasets, columns=methods)
    stds = grouped.std(ddof=0).unstack("method").reindex(index=datasets, columns=methods)
    scored = grouped.count().unstack("method").reindex(index=datasets, columns=methods).fillna(0).astype(int)
    ran = grouped.size().unstack("method").reindex(index=datasets, columns=methods).fillna(0).astype(int)
    complete = (scored == ran).all(axis=1) & (ran > 0).all(axis=1)
    ranks = means[complete].rank(axis=1, ascending=not spec.higher_is_better, method="average")

    def cell(mean: float, std: float, best: bool, decimals: int = spec.decimals, fits: str = "") -> str:
        if np.isnan(mean):
            return "-" + fits
        text = f"{mean:.{decimals}f} ({std:.{decimals}f})"
        return (f"**{text}**" if best else text) + fits

    def fits(d: str, m: str) -> str:
        return f" [{scored.at[d, m]}/{ran.at[d, m]} fits]" if scored.at[d, m] < ran.at[d, m] else ""

    shown = means.round(spec.decimals)  # bold every best mean as printed, ties included
    best = shown.max(axis=1) if spec.higher_is_better else shown.min(axis=1)
    table = pd.DataFrame(
        [[cell(means.at[d, m], stds.at[d, m], shown.at[d, m] == best[d], fits=fits(d, m)) for m in methods]
         for d in datasets],
        index=pd.Index(datasets, name="dataset"), columns=methods)
    table.loc[RANK_ROW] = [cell(ranks[m].mean(), ranks[m].std(ddof=0), False, 1) for m in methods]
    return table


def markdown_table(table: pd.DataFrame) -> str:
    """A DataFrame as a markdown table, its index as the first column."""
    header = [table.index.name or ""] + [str(c) for c in table.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join([str(index)] + [str(v) for v in row]) + " |"
              for index, row in zip(table.index, table.itertuples(index=False))]
    return "\n".join(lines)


def failures_table(results: pd.DataFrame) -> pd.DataFrame:
    """Failed fits per dataset x method x status (empty without failures, or without a status column)."""
    if "status" not in results:
        return pd.DataFrame()
    failed = results[results["status"].isin(FAILED_STATUSES)]
    return failed.groupby(["dataset", "method", "status"], sort=False).size().rename("fits").reset_index(
        level="status").rename_axis(index=["dataset", "method"])


def markdown_report(results: pd.DataFrame, metrics: tuple[str, ...] = tuple(METRICS)) -> str:
    """One section per metric: its summary table, with how the ranks read; then the failed fits."""
    sections = []
    for metric in metrics:
        spec = METRICS[metric]
        order = "highest" if spec.higher_is_better else "lowest"
        sections.append(f"## {spec.title}\n\nMean (standard deviation) over the folds; rank 1 = {order}.\n\n"
                        f"{markdown_table(summary_table(results, metric))}\n")
    failures = failures_table(results)
    if len(failures):
        flat = failures.reset_index().set_index("dataset")
        sections.append("## Failed fits\n\nNot in the means above (their metrics are NaN); the ranks use only "
                        "the datasets where every method has every fit; the `error` column of the result "
                        f"table says why.\n\n{markdown_table(flat)}\n")
    return "\n".join(sections)
