"""Reports that cannot mislead: bold and ranks agree, markers mean one thing each, baselines and the
degenerate flag are right, the statistics equal scipy's and scikit-posthocs', the plots are written."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from optrules.experiments import load_config, run
from optrules.experiments.baselines import baseline_results, baseline_scores
from optrules.experiments.config import ConfigError, default_pairs
from optrules.experiments.output import environment
from optrules.experiments.plots import pareto_front, plot_metric_vs_size, write_plots
from optrules.experiments.report import RANK_ROW, markdown_report, rank_scores, summary_table
from optrules.experiments.run import dataset_splits
from optrules.experiments.statistics import critical_difference, friedman_nemenyi, wilcoxon_pairs

posthocs = pytest.mark.skipif(importlib.util.find_spec("scikit_posthocs") is None, reason="needs scikit-posthocs")


def _bold(cell: str) -> bool:
    return cell.startswith("**")


# ---------------------------------------------------------------------------------------------
# Bold and ranks come from the same numbers
# ---------------------------------------------------------------------------------------------


@st.composite
def result_tables(draw):
    """Random tables: 2-4 datasets x 2-5 methods x 1-3 folds, values on a coarse grid (so rounding
    creates ties), some degenerate fits and, optionally, failed ones."""
    n_datasets, n_methods, n_folds = draw(st.integers(2, 4)), draw(st.integers(2, 5)), draw(st.integers(1, 3))
    rows = []
    for d in range(n_datasets):
        for m in range(n_methods):
            for fold in range(n_folds):
                failed = draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans())
                value = draw(st.integers(0, 40)) / 37.0
                rows.append({"dataset": f"d{d}", "method": f"m{m}", "fold": fold,
                             "f1": np.nan if failed else value, "n_rules": np.nan if failed else value * 10,
                             "degenerate": None if failed else draw(st.booleans()) and draw(st.booleans()),
                             "status": "error" if failed else None})
    return pd.DataFrame(rows)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(result_tables(), st.sampled_from(["f1", "n_rules"]))
def test_bold_cells_are_exactly_the_methods_of_rank_best_mean(results, metric):
    table = summary_table(results, metric)
    ranked = rank_scores(results, metric)
    ranks = ranked.rank(axis=1, ascending=metric == "n_rules", method="average")
    for dataset in ranked.index:
        finite = ranked.loc[dataset][np.isfinite(ranked.loc[dataset])]
        bold = {m for m in table.columns if _bold(table.at[dataset, m])}
        if finite.empty:  # every method degenerate on a complexity measure: none is bold
            assert bold == set()
            continue
        assert bold == set(ranks.columns[ranks.loc[dataset] == ranks.loc[dataset].min()])
    # the rank row is the mean of those ranks ("-" without a ranked dataset)
    for method in ranks.columns:
        assert table.at[RANK_ROW, method] == "-" if ranks.empty else table.at[RANK_ROW, method].startswith(
            f"{ranks[method].mean():.1f} (")


def test_ties_as_printed_are_all_bold_and_share_the_rank():
    """house_votes_84 in the issue: means equal to two decimals but not beyond were all bold while
    the ranks told them apart."""
    results = pd.DataFrame({"dataset": ["d1"] * 3 + ["d2"] * 3, "method": ["a", "b", "c"] * 2,
                            "f1": [0.951, 0.949, 0.9501, 0.5, 0.6, 0.7]})
    table = summary_table(results, "f1")
    assert all(_bold(table.at["d1", m]) for m in "abc")
    assert table.at[RANK_ROW, "a"] == "2.5 (0.5)" and table.at[RANK_ROW, "c"] == "1.5 (0.5)"


def test_bold_and_ranks_follow_the_printed_means_where_rounding_halves_differ():
    """pandas' round put 1.05 at 1.0 while the table printed 1.1, and 1.15 at 1.2 while it printed 1.1:
    a printed 1.1 was bold beside other printed 1.1 cells that were not (review)."""
    results = pd.DataFrame({"dataset": ["d1"] * 3 + ["d2"] * 3, "method": ["a", "b", "c"] * 2,
                            "n_rules": [1.05, 1.1, 1.15, 3.0, 2.0, 1.0]})
    table = summary_table(results, "n_rules")
    assert [table.at["d1", m].split(" ")[0] for m in "abc"] == ["**1.1", "**1.1", "**1.1"]
    assert table.at[RANK_ROW, "a"] == "2.5 (0.5)" and table.at[RANK_ROW, "c"] == "1.5 (0.5)"


# ---------------------------------------------------------------------------------------------
# Markers, degenerate models, baselines
# ---------------------------------------------------------------------------------------------


def test_each_marker_means_one_thing():
    nan = float("nan")
    results = pd.DataFrame([
        # a: one of two fits failed
        ("d", "a", 0, 0.8, 1.0, None, False, None), ("d", "a", 1, nan, nan, "timeout", None, None),
        # b: succeeded, no atoms-per-rule value (a scorecard)
        ("d", "b", 0, 0.7, nan, None, False, None), ("d", "b", 1, 0.7, nan, None, False, None),
        # c: degenerate on one fold
        ("d", "c", 0, 0.0, 0.0, None, True, None), ("d", "c", 1, 0.6, 2.0, None, False, None),
        # e: warned
        ("d", "e", 0, 0.5, 3.0, None, False, "it warned"), ("d", "e", 1, 0.5, 3.0, None, False, None),
    ], columns=["dataset", "method", "fold", "f1", "avg_atoms", "status", "degenerate", "warnings"])
    table = summary_table(results, "avg_atoms")
    assert table.at["d", "a"] == "**1.0 (0.0)** [1/2 fits]"  # c's 1.0 is degenerate: not bold
    assert table.at["d", "b"] == "n/a"
    assert table.at["d", "c"] == "1.0 (1.0) ∅1"
    assert table.at["d", "e"] == "3.0 (0.0) ⚠1"
    assert table.at[RANK_ROW, "b"] == "n/a"
    f1 = summary_table(results, "f1")
    assert f1.at["d", "b"] == "0.70 (0.00)" and "fits" not in f1.at["d", "b"]
    assert f1.at["d", "a"] == "**0.80 (0.00)** [1/2 fits]"


def test_a_degenerate_model_is_never_bold_on_complexity_and_ranks_last_there():
    results = pd.DataFrame({"dataset": ["d1"] * 3 + ["d2"] * 3, "method": ["empty", "small", "big"] * 2,
                            "n_rules": [0, 3, 9, 0, 2, 2], "f1": [0.0, 0.8, 0.9, 0.0, 0.7, 0.7],
                            "degenerate": [True, False, False, True, False, False]})
    rules = summary_table(results, "n_rules")
    assert rules.at["d1", "empty"] == "0.0 (0.0) ∅1" and _bold(rules.at["d1", "small"])
    assert _bold(rules.at["d2", "small"]) and _bold(rules.at["d2", "big"])
    assert rules.at[RANK_ROW, "empty"] == "3.0 (0.0)"
    # on a score a degenerate model is flagged but judged by its score
    assert summary_table(results, "f1").at["d1", "empty"] == "0.00 (0.00) ∅1"


def test_a_degenerate_model_is_judged_by_its_seconds_on_the_fit_seconds_table():
    """Only complexity measures rank a degenerate model last (the legend says so); fit seconds mark it
    but rank it by its seconds (it was +inf there too; review)."""
    results = pd.DataFrame([dict(dataset=d, method=m, fold=f, f1=0.5, fit_seconds=s,
                                 degenerate=(d == "d1" and m == "A"))
                            for d in ("d1", "d2") for m, s in (("A", 0.1), ("B", 0.5)) for f in (0, 1)])
    table = summary_table(results, "fit_seconds")
    assert table.at["d1", "A"] == "**0.10 (0.00)** ∅2" and not _bold(table.at["d1", "B"])
    assert table.at[RANK_ROW, "A"] == "1.0 (0.0)" and table.at[RANK_ROW, "B"] == "2.0 (0.0)"


def test_a_method_a_measure_does_not_apply_to_is_left_out_of_the_ranks_not_the_dataset():
    """A scorecard has no complexity on numeric data (n/a): it leaves the ranks, the other methods
    keep that dataset in theirs (the dataset was dropped from every method's average; review)."""
    values = {"d1": (1, 2, 3), "d2": (2, 1, np.nan), "d3": (1, 2, 3)}
    results = pd.DataFrame([dict(dataset=d, method=m, fold=0, f1=0.5, complexity=v, degenerate=False)
                            for d, row in values.items() for m, v in zip("ABC", row)])
    table = summary_table(results, "complexity")
    assert table.at["d2", "C"] == "n/a" and table.at[RANK_ROW, "C"] == "n/a"
    assert table.at[RANK_ROW, "A"] == "1.3 (0.5)" and table.at[RANK_ROW, "B"] == "1.7 (0.5)"


def test_baselines_on_a_hand_made_fold():
    # training 3 positives of 5: majority predicts positive; test 1 positive of 4
    scores = baseline_scores(np.array(["y", "y", "y", "n", "n"]), np.array(["y", "n", "n", "n"]), "y")
    assert scores["all-positive"] == pytest.approx({"f1": 2 * 0.25 / 1.25, "accuracy": 0.25, "balanced_accuracy": 0.5})
    assert scores["majority"] == scores["all-positive"]
    # training 1 positive of 4: majority predicts the rest, F1 0
    scores = baseline_scores(np.array([1, 0, 0, 0]), np.array([1, 1, 0]), 1)
    assert scores["majority"] == pytest.approx({"f1": 0.0, "accuracy": 1 / 3, "balanced_accuracy": 0.5})
    assert scores["all-positive"] == pytest.approx({"f1": 0.8, "accuracy": 2 / 3, "balanced_accuracy": 0.5})


def test_baselines_scored_as_a_multi_class_method_predict_the_most_frequent_label():
    train, test = np.array(["a", "b", "b", "c", "c", "c"]), np.array(["a", "b", "c", "c"])
    scores = baseline_scores(train, test, "a", one_vs_rest=False)
    # majority: "c" everywhere, on the original labels: 2 of 4 right, recall 1 on one class of 3
    assert scores["majority"] == pytest.approx({"f1": 0.0, "accuracy": 0.5, "balanced_accuracy": 1 / 3})
    assert scores["all-positive"] == pytest.approx({"f1": 2 * 0.25 / 1.25, "accuracy": 0.25, "balanced_accuracy": 1 / 3})
    # a tie goes to the positive class; positive vs rest, "a" (1 of 6) loses to the rest
    assert baseline_scores(np.array(["a", "a", "b", "b", "c"]), test, "a", one_vs_rest=False)["majority"]["accuracy"] == 0.25
    assert baseline_scores(train, test, "a")["majority"]["accuracy"] == 0.75
    # two classes: the same scores either way
    two_train, two_test = np.array(["y", "n", "n", "y", "y"]), np.array(["y", "n", "n"])
    assert baseline_scores(two_train, two_test, "y", one_vs_rest=False) == baseline_scores(two_train, two_test, "y")


def test_baseline_rows_use_the_experiment_s_splits():
    config = load_config({"protocol": {"kind": "kfold", "folds": 3, "seed": 1},
                          "datasets": [{"name": "haberman"}], "methods": [{"name": "setcover-greedy"}]})
    config = replace(config, datasets=(replace(config.datasets[0], positive="died_within_5y"),))
    rows = baseline_results(config)
    assert list(rows["baseline"]) == ["majority", "all-positive"] * 3
    X, y = config.datasets[0].load()
    for fold, (_, test) in enumerate(dataset_splits(config, config.datasets[0], y)):
        truth = y.to_numpy()[test] == "died_within_5y"
        majority = rows[(rows["fold"] == fold) & (rows["baseline"] == "majority")].iloc[0]
        assert majority["f1"] == 0.0 and majority["accuracy"] == pytest.approx(1 - truth.mean())
        positive = rows[(rows["fold"] == fold) & (rows["baseline"] == "all-positive")].iloc[0]
        assert positive["accuracy"] == pytest.approx(truth.mean())


def test_baseline_columns_follow_the_methods_unranked():
    results = pd.DataFrame({"dataset": ["d"] * 2, "method": ["a", "b"], "f1": [0.5, 0.6], "n_rules": [1, 2]})
    baselines = pd.DataFrame({"dataset": ["d", "d"], "baseline": ["majority", "all-positive"], "fold": [0, 0],
                              "f1": [0.0, 0.4], "accuracy": [0.7, 0.3], "balanced_accuracy": [0.5, 0.5]})
    table = summary_table(results, "f1", baselines)
    assert list(table.columns) == ["a", "b", "majority (baseline)", "all-positive (baseline)"]
    assert table.at["d", "all-positive (baseline)"] == "0.40 (0.00)"
    assert table.at[RANK_ROW, "majority (baseline)"] == "not ranked"
    assert list(summary_table(results, "n_rules", baselines).columns) == ["a", "b"]


def test_a_run_flags_a_model_without_rules_as_degenerate():
    config = {"protocol": {"kind": "kfold", "folds": 2, "seed": 0}, "datasets": [{"name": "haberman"}],
              "methods": [{"name": "libre", "params": {"n_estimators": 2, "min_gain": 1.0}},
                          {"name": "setcover-greedy", "params": {"candidates": {"max_len": 2, "max_candidates": 40}}},
                          {"name": "svm-o"}]}
    results = run(config, verbose=False)
    libre = results[results["method"] == "libre"]
    assert (libre["n_rules"] == 0).all() and libre["degenerate"].all()
    assert not results.loc[results["method"] == "setcover-greedy", "degenerate"].any()
    assert results.loc[results["method"] == "svm-o", "avg_atoms"].isna().all()  # does not apply to scorecards
    assert "n/a" in summary_table(results, "avg_atoms").at["haberman", "svm-o"]


def test_report_md_states_the_protocol_its_tables_come_from():
    """A table pasted from report.md could not be labelled without config.json (review): the report
    says the splits, their seed, a dataset's own training size and cap, and the exact methods' limits."""
    from optrules.experiments import load_config
    from optrules.experiments.output import protocol_text

    config = load_config({"protocol": {"kind": "splits", "repeats": 3, "train_size": 0.5, "seed": 7, "stratify": False},
                          "datasets": [{"name": "haberman", "max_train": 100}, {"name": "monk1", "train_size": 200}],
                          "methods": [{"name": "setcover", "solver_options": {"time_limit": 2.5}},
                                      {"name": "clm", "isolate": True, "timeout": 60}, {"name": "setcover-greedy"}]})
    assert protocol_text(config) == (
        "Protocol: 3 random (unstratified) splits, 50% of the rows for training, seed 7 (haberman: at most 100 "
        "training rows; monk1: 200 rows for training). Time limits of the exact methods: setcover 2.5 s, clm none. "
        "A fit stopped after (row status 'timeout'): clm 60 s.")
    kfold = load_config({"protocol": {"kind": "kfold", "folds": 4, "seed": 1}, "datasets": [{"name": "haberman"}],
                         "methods": [{"name": "setcover-greedy"}]})
    assert protocol_text(kfold) == "Protocol: stratified 4-fold cross-validation, seed 1."


# ---------------------------------------------------------------------------------------------
# Statistics equal scipy's and scikit-posthocs'
# ---------------------------------------------------------------------------------------------

SCORES = pd.DataFrame({"a": [0.81, 0.70, 0.92, 0.65, 0.77, 0.88, 0.59],
                       "b": [0.79, 0.71, 0.90, 0.60, 0.75, 0.85, 0.58],
                       "c": [0.70, 0.69, 0.85, 0.61, 0.70, 0.80, 0.50],
                       "d": [0.80, 0.72, 0.91, 0.66, 0.74, 0.86, 0.60]},
                      index=[f"d{i}" for i in range(7)])


@posthocs
def test_friedman_and_nemenyi_equal_scipy_and_scikit_posthocs():
    import scikit_posthocs

    result = friedman_nemenyi(SCORES)
    statistic, p_value = stats.friedmanchisquare(*(SCORES[c] for c in SCORES))
    assert result.statistic == pytest.approx(statistic) and result.p_value == pytest.approx(p_value)
    expected = scikit_posthocs.posthoc_nemenyi_friedman(SCORES.reset_index(drop=True))
    np.testing.assert_allclose(result.nemenyi.to_numpy(), expected.to_numpy())
    assert result.ranks.to_dict() == pytest.approx(SCORES.rank(axis=1, ascending=False).mean().to_dict())
    # Demšar's Table 5: q_0.05 = 2.569 for 4 methods; CD = q sqrt(k (k + 1) / 6N)
    assert result.cd == pytest.approx(2.569 * np.sqrt(4 * 5 / (6 * 7)), abs=1e-3)
    assert critical_difference(4, 7) == pytest.approx(result.cd)


def test_wilcoxon_equals_scipy_and_counts_wins():
    table = wilcoxon_pairs(SCORES, (("a", "b"), ("a", "c")))
    for row, (x, y) in zip(table.itertuples(), (("a", "b"), ("a", "c"))):
        expected = stats.wilcoxon(SCORES[x], SCORES[y])
        assert row.statistic == pytest.approx(expected.statistic) and row.p_value == pytest.approx(expected.pvalue)
    assert table.loc[0, ["wins", "ties", "losses"]].tolist() == [6, 0, 1]
    fewer = wilcoxon_pairs(SCORES.iloc[:4], (("a", "c"),))
    assert "cannot go below 0.125" in fewer.at[0, "note"]
    assert wilcoxon_pairs(SCORES.assign(e=SCORES["a"]), (("a", "e"),)).at[0, "note"] == "not tested: no dataset differs"


def test_too_few_datasets_or_methods_are_said_not_tested():
    two = friedman_nemenyi(SCORES.iloc[:2])
    assert not two.tested and "at least 3 methods and 3 datasets with every fit, here 4 and 2" in two.note
    assert not friedman_nemenyi(SCORES[["a", "b"]]).tested


def test_default_pairs_join_exact_methods_to_heuristics_of_their_estimator_and_pairs_are_validated():
    config = load_config({"datasets": [{"name": "haberman"}],
                          "methods": [{"name": "setcover"}, {"name": "setcover-greedy", "label": "greedy"},
                                      {"name": "clm"}, {"name": "svm-c"}, {"name": "libre"}]})
    assert default_pairs(config.methods) == (("setcover", "greedy"), ("clm", "svm-c"))
    assert config.wilcoxon_pairs == default_pairs(config.methods)
    chosen = load_config({**config.to_dict(), "report": {"pairs": [["libre", "greedy"]]}})
    assert chosen.wilcoxon_pairs == (("libre", "greedy"),) and load_config(chosen.to_dict()) == chosen
    with pytest.raises(ConfigError, match=r"report.pairs\[0\]: no method labelled 'nope'"):
        load_config({**config.to_dict(), "report": {"pairs": [["libre", "nope"]]}})
    with pytest.raises(ConfigError, match=r"report.pairs\[0\] must be two different method labels"):
        load_config({**config.to_dict(), "report": {"pairs": [["libre", "libre"]]}})


def _long(scores: pd.DataFrame) -> pd.DataFrame:
    return scores.rename_axis("dataset").reset_index().melt(id_vars="dataset", var_name="method", value_name="f1")


@posthocs
def test_the_report_carries_friedman_nemenyi_and_wilcoxon():
    report = markdown_report(_long(SCORES), ("f1",), pairs=(("a", "c"),))
    statistic, p_value = stats.friedmanchisquare(*(SCORES[c] for c in SCORES))
    assert f"Friedman chi-square {statistic:.3f}, p = {p_value:.3g} over 7 datasets and 4 methods" in report
    assert "Nemenyi CD = " in report and "| a vs c | 7 | 7 | 0 | 0 |" in report
    few = markdown_report(_long(SCORES.iloc[:2]), ("f1",), pairs=())
    assert "Friedman: not tested: the Friedman test needs at least 3 methods and 3 datasets" in few


# ---------------------------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------------------------


def test_pareto_front():
    size = pd.Series({"a": 1, "b": 2, "c": 2, "d": 5, "e": 0})
    score = pd.Series({"a": 0.7, "b": 0.8, "c": 0.6, "d": 0.8, "e": np.nan})
    assert pareto_front(size, score) == ["a", "b"]


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs matplotlib")
def test_plots_are_written_and_a_measure_that_does_not_apply_is_not_drawn(tmp_path):
    long = _long(SCORES).assign(fold=0, n_train=100, fit_seconds=0.5, n_rules=3.0, avg_atoms=2.0, degenerate=False)
    long.loc[long["method"] == "c", "avg_atoms"] = np.nan  # a scorecard: no atoms per rule
    figure = plot_metric_vs_size(long, "d0")
    assert [ax.get_xlabel() for ax in figure.axes] == ["#rules", "atoms per rule"]
    assert len(figure.axes[1].lines) < len(figure.axes[0].lines)  # c is not drawn on atoms per rule
    assert "'" not in figure.axes[0].get_ylabel()  # no positive class known: the metric's title alone
    long.attrs["positive"] = {"d0": "presence"}  # a run's table names each dataset's positive class
    named = plot_metric_vs_size(long, "d0")
    assert named.axes[0].get_ylabel() == "F1-score of the positive class ('presence')"
    assert named.get_suptitle().startswith("d0: F1-score of the positive class ('presence') vs. size")
    scorecards = long.assign(avg_atoms=np.nan)
    assert [ax.get_xlabel() for ax in plot_metric_vs_size(scorecards, "d0").axes] == ["#rules"]
    assert plot_metric_vs_size(scorecards.assign(n_rules=np.nan), "d0") is None
    written = write_plots(long, tmp_path)
    names = sorted(p.name for p in written)
    expected = sorted([f"f1_vs_size_d{i}.png" for i in range(7)] + ["fit_time.png"]
                      + (["critical_difference_f1.png"] if importlib.util.find_spec("scikit_posthocs") else []))
    assert names == expected
    assert all(p.stat().st_size > 1000 and p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written)


def test_environment_names_solvers_cpu_os_and_commit():
    found = environment()
    # the libraries the figures depend on (the compiled kernels are the package's own extension modules)
    for key in ("optrules", "python", "os", "cpu", "cpu_count", "clarabel", "osqp", "highspy", "scipy", "pyomo", "cvxpy"):
        assert key in found
    assert isinstance(found["cpu_count"], int) and found["cpu"]
    if "optrules_commit" in found:
        assert re.fullmatch(r"[0-9a-f]{40}", found["optrules_commit"]) and isinstance(found["optrules_dirty"], bool)


def test_without_scikit_posthocs_the_report_says_so_instead_of_failing(monkeypatch, tmp_path):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: None if name == "scikit_posthocs" else find_spec(name, *args))
    result = friedman_nemenyi(SCORES)
    assert result.tested and result.nemenyi is None and "need scikit-posthocs" in result.note
    report = markdown_report(_long(SCORES), ("f1",), pairs=(("a", "c"),))
    assert "the Nemenyi test and its diagram need scikit-posthocs" in report and "| a vs c | 7 |" in report
    if find_spec("matplotlib") is not None:
        long = _long(SCORES).assign(fold=0, n_train=100, fit_seconds=0.5, n_rules=3.0, avg_atoms=2.0)
        assert not any(p.name.startswith("critical_difference") for p in write_plots(long, tmp_path))
