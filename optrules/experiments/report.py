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

An exact method's cell also says how certain its folds are (:func:`certainty_mark`, legend in
:data:`CERTAINTY_LEGEND`): proven optimal on every fold, or stopped at a limit on some with their
mean gap, and how many returned their warm start instead of the solver's solution. Where a heuristic
and an exact method optimised the same instance on the same fold (the same ``instance`` digest),
:func:`certified_table` holds the heuristic's objective against the exact method's bound: its
certified distance from the optimum.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from optrules.experiments.run import FAILED_STATUSES

__all__ = ["CERTAINTY_LEGEND", "METRICS", "Metric", "certainty_mark", "certified_table", "exact_summary",
           "failures_table", "markdown_report", "markdown_table", "summary_table"]


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

CERTAINTY_LEGEND = (
    "Exact methods: ✓ every fold proven optimal (gap 0); ⏱k/n: k of n folds not proven optimal (stopped "
    "at a time, node or gap limit, or, for column generation, a gap left between the integer master and "
    "the bound over all conjunctions), with g% their mean gap to the best bound "
    "(\"no bound\": the solver had none on some); ↩k: on k folds the solver found nothing better than "
    "its warm start, which was returned. Any method: ⚠k: on k folds the fit warned (e.g. it predicts "
    "one class everywhere or has no rule; the `warnings` column of results.csv says why).")


def _is(value: Any, text: str) -> bool:
    return isinstance(value, str) and value == text


def _proven(rows: pd.DataFrame, suffix: str = "") -> pd.Series:
    """Rows whose solution is the solver's own, proven optimal: status optimal, gap 0 (or no gap
    recorded), no fallback. A stop within a gap tolerance (status optimal, gap > 0) is not proven."""
    status = rows[f"status{suffix}"]
    gap = (pd.to_numeric(rows[f"gap{suffix}"], errors="coerce") if f"gap{suffix}" in rows
           else pd.Series(np.nan, index=rows.index))
    fallback = rows[f"fallback{suffix}"] if f"fallback{suffix}" in rows else pd.Series(None, index=rows.index)
    return status.map(lambda s: _is(s, "optimal")) & (gap.isna() | (gap <= 1e-9)) & fallback.isna()


def certainty_mark(rows: pd.DataFrame) -> str:
    """The certainty of an exact method's folds (the result-table rows of one dataset x method)."""
    fitted = rows[~rows["status"].isin(FAILED_STATUSES)] if "status" in rows else rows
    if fitted.empty or "status" not in fitted:
        return ""
    fallback = fitted["fallback"].notna() if "fallback" in fitted else pd.Series(False, index=fitted.index)
    proven = _proven(fitted)
    if proven.all():
        return " ✓"
    stopped = fitted[~proven]
    mark = f" ⏱{len(stopped)}/{len(fitted)}"
    gaps = pd.to_numeric(stopped["gap"], errors="coerce") if "gap" in stopped else pd.Series(dtype=float)
    if gaps.notna().any():
        mark += f" {100 * gaps.mean():.1f}%"
    if gaps.isna().any():
        mark += " no bound" if gaps.isna().all() else f" ({int(gaps.isna().sum())} no bound)"
    if fallback.any():
        mark += f" ↩{int(fallback.sum())}"
    return mark


def summary_table(results: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Datasets x methods of "mean (std)" strings for ``metric``, best mean in bold, the certainty
    mark of exact methods (:func:`certainty_mark`), and the average-rank row; datasets and methods
    in their order of appearance."""
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
    exact = set(results.loc[results["exact"].astype(bool), "method"]) if "exact" in results else set()

    def cell(mean: float, std: float, best: bool, decimals: int = spec.decimals, fits: str = "") -> str:
        if np.isnan(mean):
            return "-" + fits
        text = f"{mean:.{decimals}f} ({std:.{decimals}f})"
        return (f"**{text}**" if best else text) + fits

    def notes(d: str, m: str) -> str:
        text = f" [{scored.at[d, m]}/{ran.at[d, m]} fits]" if scored.at[d, m] < ran.at[d, m] else ""
        rows = results[(results["dataset"] == d) & (results["method"] == m)]
        if m in exact:
            text += certainty_mark(rows)
        warned = int(rows["warnings"].notna().sum()) if "warnings" in rows else 0
        return text + (f" ⚠{warned}" if warned else "")

    shown = means.round(spec.decimals)  # bold every best mean as printed, ties included
    best = shown.max(axis=1) if spec.higher_is_better else shown.min(axis=1)
    table = pd.DataFrame(
        [[cell(means.at[d, m], stds.at[d, m], shown.at[d, m] == best[d], fits=notes(d, m)) for m in methods]
         for d in datasets],
        index=pd.Index(datasets, name="dataset"), columns=methods)
    table.loc[RANK_ROW] = [cell(ranks[m].mean(), ranks[m].std(ddof=0), False, 1) for m in methods]
    return table


def certified_table(results: pd.DataFrame) -> pd.DataFrame:
    """For every heuristic and exact method that optimised the same instances (same dataset, fold and
    ``instance`` digest) with the exact method's bound known: the folds matched, the heuristic's mean
    and largest certified distance from the optimum, (objective - bound) / |objective|, and on how
    many of them the exact method proved its own solution optimal. Empty without such pairs."""
    needed = {"instance", "objective", "bound", "exact", "fold"}
    if not needed <= set(results.columns):
        return pd.DataFrame()
    rows = results[results["instance"].notna() & results["objective"].notna()]
    heuristic, exact = rows[~rows["exact"].astype(bool)], rows[rows["exact"].astype(bool) & rows["bound"].notna()]
    keys = ["dataset", "fold", "instance"]
    pairs = heuristic.merge(exact, on=keys, suffixes=("", "_exact"))
    if pairs.empty:
        return pd.DataFrame()
    objective = pairs["objective"].astype(float)
    pairs["distance"] = (objective - pairs["bound_exact"].astype(float)).clip(lower=0.0) / objective.abs().clip(lower=1e-10)
    pairs["proven"] = _proven(pairs, "_exact")
    table = pairs.groupby(["dataset", "method", "method_exact"], sort=False).agg(
        folds=("distance", "size"), mean=("distance", "mean"), largest=("distance", "max"),
        proven=("proven", "sum"))
    return table.rename_axis(index=["dataset", "heuristic", "exact bound from"])


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


def _certified_section(results: pd.DataFrame) -> str:
    table = certified_table(results)
    if table.empty:
        return ""
    shown = table.reset_index()
    shown["mean"] = shown["mean"].map(lambda d: f"{100 * d:.2f}%")
    shown["largest"] = shown["largest"].map(lambda d: f"{100 * d:.2f}%")
    shown["proven"] = [f"{p}/{f}" for p, f in zip(shown["proven"], shown["folds"])]
    shown = shown.rename(columns={"mean": "mean distance", "largest": "largest", "proven": "exact proven optimal"})
    return ("## Certified distance from optimal\n\nA heuristic's objective against the best bound of an exact "
            "method on the same instance (same fold, same candidates and objective): (objective - bound) / "
            "objective. 0% means the heuristic found an optimum; the true distance is at most this.\n\n"
            f"{markdown_table(shown.set_index('dataset'))}\n")


def markdown_report(results: pd.DataFrame, metrics: tuple[str, ...] = tuple(METRICS)) -> str:
    """One section per metric: its summary table, with how the ranks read and the certainty legend
    when exact methods ran; then the certified distances of the heuristics; then the failed fits."""
    exact = "exact" in results and results["exact"].astype(bool).any()
    sections = []
    for metric in metrics:
        spec = METRICS[metric]
        order = "highest" if spec.higher_is_better else "lowest"
        legend = f" {CERTAINTY_LEGEND}" if exact else ""
        sections.append(f"## {spec.title}\n\nMean (standard deviation) over the folds; rank 1 = {order}.{legend}\n\n"
                        f"{markdown_table(summary_table(results, metric))}\n")
    certified = _certified_section(results)
    if certified:
        sections.append(certified)
    failures = failures_table(results)
    if len(failures):
        flat = failures.reset_index().set_index("dataset")
        sections.append("## Failed fits\n\nNot in the means above (their metrics are NaN); the ranks use only "
                        "the datasets where every method has every fit; the `error` column of the result "
                        f"table says why.\n\n{markdown_table(flat)}\n")
    return "\n".join(sections)


def exact_summary(meta: Mapping[str, Any]) -> str:
    """One paragraph on a fit's exact part from its ``Ruleset.meta``: status, objective, bound and gap,
    the fallback and its reason, and where the seconds went; "" for a fit that solved nothing."""
    if "status" not in meta or meta.get("status") is None:
        return ""

    def number(value: Any) -> str:
        return "-" if value is None else f"{value:.6g}"

    gap = meta.get("gap")
    text = (f"exact part: status {meta['status']} ({meta.get('termination')}), objective "
            f"{number(meta.get('objective'))}, best bound {number(meta.get('best_bound'))}, gap "
            f"{'-' if gap is None else f'{100 * gap:.2f}%'}")
    if meta.get("fallback"):
        text += f"\nfallback: {meta['fallback']}: {meta.get('fallback_reason', '')}"
    stages = [(key[:-len("_seconds")], meta[key]) for key in meta
              if key.endswith("_seconds") and key not in ("fit_seconds", "exact_seconds") and meta[key] is not None]
    limit = meta.get("time_limit")
    text += (f"\nseconds: {meta.get('exact_seconds', 0.0):.2f} in the exact part"
             f"{'' if limit is None else f' (time limit {limit:g})'}"
             + ("; " + ", ".join(f"{name} {seconds:.2f}" for name, seconds in stages) if stages else ""))
    return text
