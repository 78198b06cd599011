"""Paper-style tables from a result table: mean (std) per dataset x method, an average-rank row, the
baselines, the significance tests.

The layout follows the LIBRE paper's Tables 7-9 (Mita et al., Appendix E): one row per dataset, one
column per method, each cell the mean over the folds with the standard deviation in parentheses
(population ones, ``ddof=0``: the paper does not say which it uses), and a last row "Avg Rank" (one
decimal): each method's mean rank over the datasets with its standard deviation. Bold and ranks
come from the same numbers, the means rounded as printed (:func:`rank_scores`), so the bold cells of
a ranked dataset are exactly its rank-best methods and equal printed means share their rank.

Each mark of a cell means one thing (:data:`MARKERS`): failed fits (status "error", "crashed" or
"timeout": NaN metrics) are counted (``[3/5 fits]``) and the ranks use only the datasets on which
every method has every fit, :func:`markdown_report` listing the failures; ``n/a`` is a measure that
does not apply to the method; ``∅k`` a degenerate model (one class predicted everywhere), never bold
on a complexity measure; ``⚠k`` a fit that warned. The majority and all-positive baselines
(:mod:`optrules.experiments.baselines`) follow the methods in the score tables, never bold nor ranked.
:func:`statistics_section` gives the Friedman, Nemenyi and Wilcoxon tests
(:mod:`optrules.experiments.statistics`) on the same rounded means.

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

__all__ = ["CERTAINTY_LEGEND", "COMPLEXITY", "MARKERS", "METRICS", "Metric", "certainty_mark", "certified_table",
           "exact_summary", "failures_table", "markdown_report", "markdown_table", "rank_scores",
           "statistics_section", "summary_table", "TESTED_METRICS"]


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
#: Complexity measures: fewer is better, and a degenerate model's few rules are not a merit.
COMPLEXITY = ("n_rules", "avg_atoms", "complexity")

#: What each mark in a summary cell means; each mark means one thing.
MARKERS = (
    "`[k/n fits]`: only k of the n fits succeeded (the others failed, listed at the end of the report; the mean is of the k); "
    "`-`: every fit failed; `n/a`: the measure does not apply to the method (e.g. atoms per rule of a "
    "scorecard), nothing failed; `∅k`: on k folds the model is degenerate, it predicts one class on every "
    "training and test row (a set or list without a rule does), it is never bold on a complexity measure "
    "and ranks behind every other model there; `⚠k`: on k folds the fit warned (the `warnings` column of "
    "results.csv says why); `(all classes)`: on a dataset of more than two classes the method (a decision "
    "list) learned and was scored on all the classes (its accuracies and its size), where the other cells are "
    "the positive class against the rest: a different task, ranked and tested beside them all the same (the "
    "`all_classes` column of results.csv). "
    "**Bold**: the best mean as printed, with the ranks computed from the same "
    "rounded means; (baseline) columns are trivial models on the same test folds, never bold or ranked.")
#: The metrics that a multi-class method is scored on over all the classes (F1 is always the positive class's).
ALL_CLASS_METRICS = ("accuracy", "balanced_accuracy")

CERTAINTY_LEGEND = (
    "Exact methods: ✓ every fold proven optimal (gap 0 to a bound, or the solver's proof); ⏱k/n: k of n folds not proven optimal (stopped "
    "at a time, node or gap limit, or, for column generation, a gap left between the integer master and "
    "the bound over all conjunctions), with g% their mean gap to the best bound "
    "(\"no bound\": the solver had none on some); ↩k: on k folds the solver found nothing better than "
    "its warm start, which was returned.")


def _is(value: Any, text: str) -> bool:
    return isinstance(value, str) and value == text


def _proven(rows: pd.DataFrame, suffix: str = "") -> pd.Series:
    """Rows whose solution is proven optimal: status optimal with no gap recorded and no fallback, or a
    gap of 0 to a bound whatever the status (a stop at a limit whose incumbent, the method's own or
    its start, the bound proves, e.g. the LP bound of the cut rounds). A stop within a gap tolerance
    (status optimal, gap > 0) is not proven."""
    status = rows[f"status{suffix}"]
    gap = (pd.to_numeric(rows[f"gap{suffix}"], errors="coerce") if f"gap{suffix}" in rows
           else pd.Series(np.nan, index=rows.index))
    fallback = rows[f"fallback{suffix}"] if f"fallback{suffix}" in rows else pd.Series(None, index=rows.index)
    closed = gap.notna() & (gap <= 1e-9)
    return (status.map(lambda s: _is(s, "optimal")) & gap.isna() & fallback.isna()) | closed


def certainty_mark(rows: pd.DataFrame) -> str:
    """The certainty of an exact method's folds (the result-table rows of one dataset x method)."""
    fitted = rows[~rows["status"].isin(FAILED_STATUSES)] if "status" in rows else rows
    if fitted.empty or "status" not in fitted:
        return ""
    fallback = fitted["fallback"].notna() if "fallback" in fitted else pd.Series(False, index=fitted.index)
    proven = _proven(fitted)
    returned = f" ↩{int(fallback.sum())}" if fallback.any() else ""
    if proven.all():
        return " ✓" + returned
    stopped = fitted[~proven]
    mark = f" ⏱{len(stopped)}/{len(fitted)}"
    gaps = pd.to_numeric(stopped["gap"], errors="coerce") if "gap" in stopped else pd.Series(dtype=float)
    if gaps.notna().any():
        mean = 100 * gaps.mean()
        mark += f" {mean:.2g}%" if 0 < mean < 0.05 else f" {mean:.1f}%"  # a gap within a tolerance is not "0.0%"
    if gaps.isna().any():
        mark += " no bound" if gaps.isna().all() else f" ({int(gaps.isna().sum())} no bound)"
    return mark + returned


def _cells(results: pd.DataFrame, metric: str) -> tuple[list[str], list[str], dict[str, pd.DataFrame]]:
    """The datasets and methods in order of appearance, and per dataset x method: the mean and
    population std of ``metric`` over the successful fits, the fits run, failed and degenerate, and
    whether the metric applies (some successful fit has a value)."""
    datasets = list(dict.fromkeys(results["dataset"]))
    methods = list(dict.fromkeys(results["method"]))
    failed = results["status"].isin(FAILED_STATUSES) if "status" in results else pd.Series(False, index=results.index)
    degenerate = (results["degenerate"].map(lambda v: v is True or v == 1.0) & ~failed if "degenerate" in results
                  else pd.Series(False, index=results.index))
    frame = results.assign(_failed=failed, _degenerate=degenerate,
                           _value=pd.to_numeric(results[metric], errors="coerce").where(~failed))
    grouped = frame.groupby(["dataset", "method"], sort=False)

    def table(series: pd.Series) -> pd.DataFrame:
        return series.unstack("method").reindex(index=datasets, columns=methods)

    counts = {"ran": table(grouped.size()).fillna(0).astype(int),
              "failed": table(grouped["_failed"].sum()).fillna(0).astype(int),
              "degenerate": table(grouped["_degenerate"].sum()).fillna(0).astype(int),
              "scored": table(grouped["_value"].count()).fillna(0).astype(int)}
    cells = {"mean": table(grouped["_value"].mean()), "std": table(grouped["_value"].std(ddof=0)), **counts}
    cells["applies"] = cells["scored"] > 0
    return datasets, methods, cells


def rank_scores(results: pd.DataFrame, metric: str) -> pd.DataFrame:
    """What a summary table ranks and bolds: datasets x methods of the means rounded as printed
    (:data:`METRICS` decimals), so bold and ranks agree with what the reader sees. On a complexity
    measure (fewer is better) a cell with a degenerate fit (one class predicted everywhere, see
    :data:`optrules.experiments.run.COLUMNS`) scores +inf: it ranks behind every model that
    learned something and is never bold. Methods the metric does not apply to, on any dataset they
    ran on, are left out; so are datasets where a remaining method has a failed fit. NaN-free."""
    datasets, methods, cells = _cells(results, metric)
    # a method the measure does not apply to on some dataset it ran on (the complexity of a scorecard
    # on numeric data) is left out of the ranks, not that dataset
    not_applying = (cells["ran"] > cells["failed"]) & ~cells["applies"]
    applies = [m for m in methods if cells["applies"][m].any() and not not_applying[m].any()]
    key = _rank_key(cells, metric)
    complete = ((cells["failed"][applies] == 0) & (cells["scored"][applies] == cells["ran"][applies])
                & (cells["ran"][applies] > 0)).all(axis=1)
    return key.loc[complete, applies]


def as_printed(value: float, decimals: int) -> float:
    """``value`` as a table prints it, ``f"{value:.{decimals}f}"`` (pandas' ``round`` differs on halves:
    1.05 prints 1.1 but rounds to 1.0); NaN stays NaN."""
    return value if np.isnan(value) else float(f"{value:.{decimals}f}")


def _rank_key(cells: dict[str, pd.DataFrame], metric: str) -> pd.DataFrame:
    """The means rounded as printed; on a complexity measure a cell with a degenerate fit is +inf."""
    key = cells["mean"].map(lambda mean: as_printed(mean, METRICS[metric].decimals))
    return key.mask(cells["degenerate"] > 0, np.inf) if metric in COMPLEXITY else key


def summary_table(results: pd.DataFrame, metric: str, baselines: pd.DataFrame | None = None) -> pd.DataFrame:
    """Datasets x methods of "mean (std)" strings for ``metric`` and the average-rank row.

    Bold and ranks come from the same numbers, the means rounded as printed (:func:`rank_scores`):
    on every dataset the bold cells are the methods of the best printed mean (ties all bold), which
    on a ranked dataset are exactly those of rank-best mean. A degenerate cell is never bold on a
    complexity measure (:data:`COMPLEXITY`). Each marker means one thing (:data:`MARKERS`): failed
    fits ``[k/n fits]``, ``n/a`` where the metric does not apply, the certainty of exact methods
    (:func:`certainty_mark`), ``∅k`` degenerate fits, ``⚠k`` fits that warned. With ``baselines``
    (:func:`optrules.experiments.baselines.baseline_results`) that score ``metric``, a column per
    baseline follows the methods, never bold nor ranked.
    """
    spec = METRICS[metric]
    datasets, methods, cells = _cells(results, metric)
    ranked = rank_scores(results, metric)
    ranks = ranked.rank(axis=1, ascending=not spec.higher_is_better, method="average")
    key = _rank_key(cells, metric)
    finite = key.where(np.isfinite(key))
    best = finite.max(axis=1) if spec.higher_is_better else finite.min(axis=1)
    exact = set(results.loc[results["exact"].astype(bool), "method"]) if "exact" in results else set()

    def text(mean: float, std: float, decimals: int = spec.decimals) -> str:
        return f"{mean:.{decimals}f} ({std:.{decimals}f})"

    def cell(d: str, m: str) -> str:
        ran, failed = cells["ran"].at[d, m], cells["failed"].at[d, m]
        marks = f" [{ran - failed}/{ran} fits]" if failed else ""
        rows = results[(results["dataset"] == d) & (results["method"] == m)]
        if m in exact:
            marks += certainty_mark(rows)
        if cells["degenerate"].at[d, m]:
            marks += f" ∅{cells['degenerate'].at[d, m]}"
        warned = int(rows["warnings"].notna().sum()) if "warnings" in rows else 0
        marks += f" ⚠{warned}" if warned else ""
        if metric in (*ALL_CLASS_METRICS, *COMPLEXITY) and "all_classes" in rows and rows["all_classes"].eq(True).any():
            marks += " (all classes)"
        if ran == failed:
            return "-" + marks
        if not cells["applies"].at[d, m]:
            return "n/a" + marks
        shown = text(cells["mean"].at[d, m], cells["std"].at[d, m])
        bold = np.isfinite(key.at[d, m]) and key.at[d, m] == best[d]
        return (f"**{shown}**" if bold else shown) + marks

    def rank_cell(m: str) -> str:
        if m not in ranks:
            return "n/a"
        return "-" if ranks.empty else text(ranks[m].mean(), ranks[m].std(ddof=0), 1)

    table = pd.DataFrame([[cell(d, m) for m in methods] for d in datasets],
                         index=pd.Index(datasets, name="dataset"), columns=methods)
    table.loc[RANK_ROW] = [rank_cell(m) for m in methods]
    if baselines is not None and metric in baselines and len(baselines):
        grouped = baselines.groupby(["dataset", "baseline"], sort=False)[metric]
        means, stds = grouped.mean(), grouped.std(ddof=0)
        for name in dict.fromkeys(baselines["baseline"]):
            column = f"{name} (baseline)"
            table[column] = [text(means[d, name], stds[d, name]) if (d, name) in means.index else "-"
                             for d in datasets] + ["not ranked"]
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


#: The metrics of the statistics section (higher is better on each).
TESTED_METRICS = ("f1", "accuracy")


def _p(value: float) -> str:
    return "-" if np.isnan(value) else f"{value:.3g}"


def statistics_section(results: pd.DataFrame, pairs: tuple[tuple[str, str], ...] = (),
                       metrics: tuple[str, ...] = TESTED_METRICS, diagrams: Mapping[str, str] | None = None) -> str:
    """The significance tests of :mod:`optrules.experiments.statistics` as markdown: per metric, the
    Friedman test over the ranked datasets of its summary table (the same rounded means,
    :func:`rank_scores`), the average ranks and the Nemenyi critical difference, the pairs Nemenyi
    finds different, the critical-difference diagram ``diagrams[metric]`` (a PNG file name) when given,
    then the Wilcoxon signed-rank test of each of ``pairs``."""
    from optrules.experiments.statistics import ALPHA, friedman_nemenyi, wilcoxon_pairs

    parts = ["## Statistical tests\n\nDemšar (2006, JMLR 7:1-30): the datasets are the samples (one mean "
             "per dataset and method, as printed above; the folds of a dataset are not independent), "
             f"significance level {ALPHA:g}. The Friedman test asks whether all methods rank alike; the "
             "Nemenyi post-hoc test compares every pair, two methods differ when their average ranks are "
             "more than the critical difference CD apart (the diagram joins methods that do not differ). "
             "The Wilcoxon signed-rank test compares one chosen pair over the datasets where both have "
             "every fit. Only datasets where every method has every fit take part.\n"]
    for metric in metrics:
        spec = METRICS[metric]
        scores = rank_scores(results, metric)
        friedman = friedman_nemenyi(scores, spec.higher_is_better)
        text = f"### {spec.title}\n\n"
        if friedman.tested:
            verdict = "differ" if friedman.p_value < ALPHA else "do not differ significantly"
            text += (f"Friedman chi-square {friedman.statistic:.3f}, p = {_p(friedman.p_value)} over "
                     f"{friedman.n_datasets} datasets and {scores.shape[1]} methods: the methods {verdict}. "
                     f"Nemenyi CD = {friedman.cd:.2f} ranks.")
        else:
            text += f"Friedman: {friedman.note}."
        if friedman.tested and friedman.note:
            text += f" Note: {friedman.note}."
        ranks = friedman.ranks.sort_values()
        if friedman.n_datasets:
            text += "\n\n" + markdown_table(pd.DataFrame({"average rank": ranks.map(lambda r: f"{r:.2f}")},
                                                          index=pd.Index(ranks.index, name="method")))
        if friedman.nemenyi is not None:
            names = list(friedman.nemenyi.columns)
            different = [f"{a} vs {b} (p = {_p(friedman.nemenyi.at[a, b])})" for i, a in enumerate(names)
                         for b in names[i + 1:] if friedman.nemenyi.at[a, b] < ALPHA]
            text += ("\n\nNemenyi: " + ("; ".join(different) if different else "no pair differs") + ".")
        if diagrams and metric in diagrams:
            text += f"\n\n![critical difference diagram, {spec.title}]({diagrams[metric]})"
        if pairs:
            wilcoxon = wilcoxon_pairs(scores, pairs, spec.higher_is_better)
            shown = wilcoxon.assign(**{"median difference": wilcoxon["median difference"].map(
                lambda v: "-" if np.isnan(v) else f"{v:+.{spec.decimals}f}"),
                "statistic": wilcoxon["statistic"].map(lambda v: "-" if np.isnan(v) else f"{v:g}"),
                "p_value": wilcoxon["p_value"].map(_p)}).rename(columns={"p_value": "p"})
            text += ("\n\nWilcoxon signed-rank, two-sided (wins: the first method better):\n\n"
                     + markdown_table(shown.set_index("pair")))
        parts.append(text + "\n")
    return "\n".join(parts)


def markdown_report(results: pd.DataFrame, metrics: tuple[str, ...] = tuple(METRICS),
                    baselines: pd.DataFrame | None = None, pairs: tuple[tuple[str, str], ...] | None = None,
                    diagrams: Mapping[str, str] | None = None) -> str:
    """One section per metric: its summary table (with the ``baselines`` columns where they score it),
    the markers' legend and, when exact methods ran, the certainty legend; then, unless ``pairs`` is
    None, the statistics (:func:`statistics_section`); then the certified distances of the
    heuristics; then the failed fits."""
    exact = "exact" in results and results["exact"].astype(bool).any()
    sections = [f"Marks: {MARKERS}" + (f" {CERTAINTY_LEGEND}" if exact else "") + "\n"]
    for metric in metrics:
        spec = METRICS[metric]
        order = "highest" if spec.higher_is_better else "lowest"
        sections.append(f"## {spec.title}\n\nMean (standard deviation) over the folds; rank 1 = {order}.\n\n"
                        f"{markdown_table(summary_table(results, metric, baselines))}\n")
    if pairs is not None:
        sections.append(statistics_section(results, pairs, tuple(m for m in TESTED_METRICS if m in metrics and m in results),
                                           diagrams))
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
    for model in ("relaxation", "svm"):  # the model a heuristic solved, beside the status of what it returns
        if meta.get(f"{model}_status") is not None:
            text += f"; {model} {meta[f'{model}_status']} ({meta.get(f'{model}_termination')})"
    if meta.get("fallback"):
        text += f"\nfallback: {meta['fallback']}: {meta.get('fallback_reason', '')}"
    stages = [(key[:-len("_seconds")], meta[key]) for key in meta
              if key.endswith("_seconds") and key not in ("fit_seconds", "exact_seconds") and meta[key] is not None]
    limit = meta.get("time_limit")
    text += (f"\nseconds: {meta.get('exact_seconds', 0.0):.2f} in the exact part"
             f"{'' if limit is None else f' (time limit {limit:g})'}"
             + ("; " + ", ".join(f"{name} {seconds:.2f}" for name, seconds in stages) if stages else ""))
    return text
