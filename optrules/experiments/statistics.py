"""Significance tests over datasets, as Demšar (2006) recommends for comparing classifiers.

Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7:1-30 (2006):

* :func:`friedman_nemenyi`: the Friedman test (Section 3.2.2) of the hypothesis that all methods
  perform alike, on the datasets x methods table of scores (one mean per dataset and method; the
  datasets are the independent samples, never the folds), then the Nemenyi post-hoc test of every
  pair and the critical difference CD = q_alpha sqrt(k (k + 1) / (6 N)) of the average ranks
  (Section 3.2.2, equation of CD; q_alpha the studentized range quantile over sqrt 2) that the
  critical-difference diagram draws (:func:`optrules.experiments.plots.plot_critical_difference`);
* :func:`wilcoxon_pairs`: the Wilcoxon signed-rank test (Section 3.1.3) of chosen pairs of methods
  over the datasets, with their wins, ties and losses.

The tests themselves are scipy's (``scipy.stats.friedmanchisquare``, ``scipy.stats.wilcoxon``) and
scikit-posthocs' (``posthoc_nemenyi_friedman``); scikit-posthocs is optional (the ``stats`` extra),
and without it the post-hoc part says so (:data:`NEEDS_POSTHOCS`) instead of failing.

What the tests need, said in the results rather than assumed: Friedman at least 3 methods
(scipy's test; two methods are a Wilcoxon pair) and at least 3 datasets, and its chi-square
approximation is rough below about 10 datasets and 5 methods (Demšar); the exact Wilcoxon test over
n datasets cannot give a two-sided p-value below 2 / 2^n, so with fewer than 6 datasets no pair can
differ at the 5% level.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["ALPHA", "MIN_DATASETS", "MIN_METHODS", "NEEDS_POSTHOCS", "Friedman", "average_ranks", "critical_difference",
           "friedman_nemenyi", "wilcoxon_pairs"]

#: The significance level of the report.
ALPHA = 0.05
#: The fewest methods and datasets for which the Friedman test is run.
MIN_METHODS = 3
MIN_DATASETS = 3
NEEDS_POSTHOCS = "the Nemenyi test and its diagram need scikit-posthocs: pip install 'optrules[stats]'"


@dataclass(frozen=True)
class Friedman:
    """The Friedman test and its Nemenyi post-hoc test on one datasets x methods table.

    ``ranks``: each method's average rank over the datasets (1 = best); ``statistic`` and
    ``p_value`` the Friedman chi-square and its p-value (NaN when not run, ``note`` says why);
    ``nemenyi``: the methods x methods p-values (None when not run); ``cd``: the critical difference
    of the average ranks at :data:`ALPHA`."""

    ranks: pd.Series
    n_datasets: int
    statistic: float
    p_value: float
    nemenyi: pd.DataFrame | None
    cd: float
    note: str

    @property
    def tested(self) -> bool:
        return not math.isnan(self.p_value)


def average_ranks(scores: pd.DataFrame, higher_is_better: bool = True) -> pd.Series:
    """Each column's mean rank over the rows (1 = best, ties share the average rank)."""
    return scores.rank(axis=1, ascending=not higher_is_better, method="average").mean()


def critical_difference(n_methods: int, n_datasets: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of average ranks (Demšar 2006, Section 3.2.2)."""
    q_alpha = stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / math.sqrt(2)
    return float(q_alpha * math.sqrt(n_methods * (n_methods + 1) / (6 * n_datasets)))


def friedman_nemenyi(scores: pd.DataFrame, higher_is_better: bool = True) -> Friedman:
    """The Friedman test over the rows (datasets) of ``scores`` (datasets x methods, no NaN), then
    Nemenyi's test of every pair of columns when scikit-posthocs is installed."""
    n_datasets, n_methods = scores.shape
    ranks = average_ranks(scores, higher_is_better) if n_datasets else pd.Series(np.nan, index=scores.columns)
    nan = float("nan")
    if n_methods < MIN_METHODS or n_datasets < MIN_DATASETS:
        note = (f"not tested: the Friedman test needs at least {MIN_METHODS} methods and {MIN_DATASETS} "
                f"datasets with every fit, here {n_methods} and {n_datasets}")
        return Friedman(ranks, n_datasets, nan, nan, None, nan, note)
    cd = critical_difference(n_methods, n_datasets)
    if (scores.nunique(axis=1) == 1).all():
        return Friedman(ranks, n_datasets, nan, nan, None, cd, "not tested: every method ties on every dataset")
    statistic, p_value = stats.friedmanchisquare(*(scores[m].to_numpy(dtype=float) for m in scores.columns))
    note = ("the chi-square approximation is rough with fewer than 10 datasets or 5 methods (Demšar 2006)"
            if n_datasets < 10 or n_methods < 5 else "")
    if importlib.util.find_spec("scikit_posthocs") is None:
        return Friedman(ranks, n_datasets, float(statistic), float(p_value), None, cd,
                        "; ".join(filter(None, [note, NEEDS_POSTHOCS])))
    import scikit_posthocs

    nemenyi = scikit_posthocs.posthoc_nemenyi_friedman(scores.reset_index(drop=True))
    nemenyi.index, nemenyi.columns = list(scores.columns), list(scores.columns)
    return Friedman(ranks, n_datasets, float(statistic), float(p_value), nemenyi, cd, note)


def wilcoxon_pairs(scores: pd.DataFrame, pairs: tuple[tuple[str, str], ...],
                   higher_is_better: bool = True) -> pd.DataFrame:
    """The two-sided Wilcoxon signed-rank test of each pair (a, b) of columns of ``scores`` over the
    rows where both have a score: the datasets, a's wins, ties and losses against b, the median
    difference a - b, the statistic and the p-value (scipy's default method: the exact distribution
    for small samples without ties; zero differences dropped, the "wilcox" method). A pair with no nonzero difference, or with a column not in
    ``scores``, has NaN statistic and p-value and a note."""
    rows = []
    for a, b in pairs:
        if a not in scores or b not in scores:
            missing = a if a not in scores else b
            rows.append({"pair": f"{a} vs {b}", "datasets": 0, "wins": 0, "ties": 0, "losses": 0,
                         "median difference": np.nan, "statistic": np.nan, "p_value": np.nan,
                         "note": f"{missing} has no complete dataset"})
            continue
        both = scores[[a, b]].dropna()
        difference = both[a].to_numpy(dtype=float) - both[b].to_numpy(dtype=float)
        better = difference > 0 if higher_is_better else difference < 0
        worse = difference < 0 if higher_is_better else difference > 0
        row = {"pair": f"{a} vs {b}", "datasets": len(both), "wins": int(better.sum()),
               "ties": int((difference == 0).sum()), "losses": int(worse.sum()),
               "median difference": float(np.median(difference)) if len(difference) else np.nan}
        nonzero = int((difference != 0).sum())
        if nonzero == 0:
            row.update(statistic=np.nan, p_value=np.nan, note="not tested: no dataset differs")
        else:
            result = stats.wilcoxon(both[a].to_numpy(dtype=float), both[b].to_numpy(dtype=float))
            smallest = 2.0 / 2 ** nonzero
            row.update(statistic=float(result.statistic), p_value=float(result.pvalue),
                       note=(f"{nonzero} differing dataset{'s' if nonzero != 1 else ''}: "
                             f"p cannot go below {smallest:.3g}"
                             if smallest >= ALPHA else ""))
        rows.append(row)
    return pd.DataFrame(rows, columns=["pair", "datasets", "wins", "ties", "losses", "median difference",
                                       "statistic", "p_value", "note"])
