"""The experiment runner: config errors, tidy rows that check out, determinism, serial == joblib == Dask."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import sys
from pathlib import Path

import pandas as pd
import pytest
from sklearn.metrics import f1_score

import optrules
from optrules.experiments import TIMING_COLUMNS, ConfigError, FitError, load_config, run
from optrules.experiments.report import summary_table
from optrules.experiments.run import COLUMNS, execute, results_frame

SMALL_CANDIDATES = {"max_len": 2, "max_candidates": 40}


def small_config(**overrides) -> dict:
    config = {
        "title": "small",
        "protocol": {"kind": "kfold", "folds": 3, "seed": 3},
        "datasets": [{"name": "monk1"}, {"name": "haberman"}],
        "methods": [
            {"name": "setcover-greedy", "params": {"candidates": SMALL_CANDIDATES}},
            {"name": "bottom-up", "params": {"max_rules": 4}},
            {"name": "libre", "params": {"n_estimators": 3, "max_features": 2}},
        ],
    }
    config.update(overrides)
    return config


def without_timing(results: pd.DataFrame) -> pd.DataFrame:
    return results.drop(columns=list(TIMING_COLUMNS))


# ---------------------------------------------------------------------------------------------
# Configuration errors name the entry and the problem
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("change, message", [
    ({"methods": [{"name": "libr"}]}, r"methods\[0\] \('libr'\): unknown method 'libr'; known methods"),
    ({"methods": [{"name": "setcover", "params": {"alpah": 0.5}}]},
     r"methods\[0\] \('setcover'\): unknown parameter\(s\) \['alpah'\] for method 'setcover'"),
    ({"methods": [{"name": "setcover", "solver": "cplexx"}]},
     r"methods\[0\] \('setcover'\): unknown solver 'cplexx'; known solvers: highs, scip"),
    ({"methods": [{"name": "setcover", "solver": "scip", "params": {"solver": "highs"}}]},
     "solver is given twice"),
    ({"methods": [{"name": "setcover-greedy"}, {"name": "setcover-greedy"}]},
     r"method labels must be unique, repeated: \['setcover-greedy'\]"),
    ({"datasets": [{"name": "tic_tac_to"}]},
     r"datasets\[0\]: unknown dataset 'tic_tac_to'\. Did you mean 'tic_tac_toe'\?"),
    ({"datasets": [{"path": "no/such/file.csv", "label": "y"}]}, r"datasets\[0\]: CSV file not found: .*file\.csv"),
    ({"datasets": []}, r"no datasets given: add at least one \[\[datasets\]\] table"),
    ({"datasets": [{"name": "monk1", "label": "class"}]}, r"unknown key\(s\) \['label'\] in datasets\[0\]"),
    ({"protocol": {"kind": "loo"}}, "protocol: unknown kind 'loo'"),
    ({"protocol": {"kind": "kfold", "folds": 1}}, "folds must be an integer >= 2, got 1"),
    ({"protocol": {"kind": "splits", "folds": 5}}, r"unknown key\(s\) \['folds'\] in protocol \(kind 'splits'\)"),
    ({"protocol": {"kind": "splits", "train_size": 1.5}}, "train_size must be a fraction in"),
    ({"parallel": {"backend": "dask"}}, "backend 'dask' needs the scheduler's address"),
    ({"parallel": {"backend": "ray"}}, "unknown backend 'ray'"),
    ({"parallel": {"backend": "threading"}}, r"unknown backend 'threading'; use one of \['loky', 'dask'\]"),
    ({"cv": {"folds": 5}}, r"unknown key\(s\) \['cv'\] in the configuration"),
    ({"datasets": [{"name": "monk1", "train_size": 100}]},
     r"datasets\[0\] \('monk1'\): train_size and repeats are for protocol kind 'splits', not 'kfold'"),
    ({"protocol": {"kind": "splits"}, "datasets": [{"name": "monk1", "train_size": 1.0}]},
     r"datasets\[0\] \('monk1'\): train_size must be a fraction in \(0, 1\) or a number of rows >= 2, got 1\.0"),
    ({"protocol": {"kind": "splits"}, "datasets": [{"name": "monk1", "repeats": 0}]},
     r"datasets\[0\] \('monk1'\): repeats must be an integer >= 1, got 0"),
    ({"meta": "search_nodes"}, r"^meta must be a list of Ruleset\.meta keys \(non-empty strings\).*got 'search_nodes'"),
    ({"methods": [{"name": "setcover-greedy", "meta": ["n_candidates", 3]}]},
     r"methods\[0\] \('setcover-greedy'\): meta must be a list of Ruleset\.meta keys .*got \['n_candidates', 3\]"),
    ({"methods": [{"name": "setcover-greedy", "meta": {"n_candidates": True}}]}, r"meta must be a list"),
])
def test_config_errors_name_the_problem(change, message):
    with pytest.raises(ConfigError, match=message):
        load_config(small_config(**change))


CONFIGS = sorted((Path(__file__).parents[1] / "benchmarks" / "configs").glob("*.toml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_example_configs_are_valid_or_name_the_branch_they_need(path):
    """A config naming methods of branches not merged yet must say so at its top and fail clearly."""
    try:
        config = load_config(path)
    except ConfigError as error:
        assert re.search(r"unknown method '[\w-]+'; known methods", str(error))
        assert path.read_text().startswith("# NEEDS ")
    else:
        assert config.datasets and config.methods


def test_malformed_toml_reports_the_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[protocol]\nfolds = 3\n\n[[methods]]\nname = "setcover"\nparams = { alpha = }\n')
    with pytest.raises(ConfigError, match=r"bad\.toml: malformed TOML: .*\(at line 6, column \d+\)"):
        load_config(path)


def test_missing_config_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r"configuration file not found: .*nope\.toml"):
        run(tmp_path / "nope.toml")


def test_errors_in_a_toml_file_name_the_file(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text('[[datasets]]\nname = "monk1"\n\n[[methods]]\nname = "svm-zz"\n')
    with pytest.raises(ConfigError, match=r"exp\.toml: methods\[0\] \('svm-zz'\): unknown method"):
        load_config(path)


def test_a_failing_fit_names_dataset_method_and_fold():
    config = small_config(methods=[{"name": "setcover-greedy", "params": {"alpha": 2.0}}])
    with pytest.raises(FitError, match=r"setcover-greedy on monk1, fold 0: ValueError: alpha must lie in"):
        run(config, verbose=False)


# ---------------------------------------------------------------------------------------------
# Reading: TOML and dict agree; CSV datasets; resolved config round trip
# ---------------------------------------------------------------------------------------------


def test_toml_and_dict_give_the_same_config(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text("""
title = "small"
[protocol]
kind = "kfold"
folds = 3
seed = 3

[[datasets]]
name = "monk1"
[[datasets]]
name = "haberman"

[[methods]]
name = "setcover-greedy"
params = { candidates = { max_len = 2, max_candidates = 40 } }
[[methods]]
name = "bottom-up"
params = { max_rules = 4 }
[[methods]]
name = "libre"
params = { n_estimators = 3, max_features = 2 }
""")
    assert load_config(path) == load_config(small_config())


def test_csv_dataset_relative_to_the_config_file(tmp_path):
    X, y = optrules.load("monk1")
    (tmp_path / "data").mkdir()
    X.assign(target=y.map({"1": "yes", "0": "no"})).to_csv(tmp_path / "data" / "monks.csv", index=False)
    path = tmp_path / "exp.toml"
    path.write_text('[protocol]\nkind = "splits"\nrepeats = 2\ntrain_size = 400\n\n'
                    '[[datasets]]\npath = "data/monks.csv"\nlabel = "target"\npositive = "yes"\n'
                    'categorical = ["a1", "a2", "a3", "a4", "a5", "a6"]\n\n'
                    '[[methods]]\nname = "setcover-greedy"\n')
    resolved, outcomes = execute(load_config(path), verbose=False)
    assert resolved.datasets[0].name == "monks" and resolved.datasets[0].positive == "yes"
    assert [o.row["n_train"] for o in outcomes] == [400, 400]
    assert [o.row["n_test"] for o in outcomes] == [len(X) - 400] * 2
    assert all(o.ruleset.positive == "yes" for o in outcomes)


def test_datasets_may_set_their_own_training_size_and_repeats(tmp_path):
    X, y = optrules.load("haberman")
    X.assign(outcome=y).to_csv(tmp_path / "haberman.csv", index=False)
    config = load_config(small_config(
        protocol={"kind": "splits", "repeats": 3, "train_size": 0.5, "seed": 1},
        datasets=[{"name": "monk1", "train_size": 300, "repeats": 2}, {"name": "tic_tac_toe"},
                  {"path": str(tmp_path / "haberman.csv"), "label": "outcome", "train_size": 200}],
        methods=[{"name": "setcover-greedy", "params": {"candidates": SMALL_CANDIDATES}}]))
    assert load_config(config.to_dict()) == config  # config.json keeps the overrides
    results = results_frame(execute(config, verbose=False)[1])
    sizes = results.groupby("dataset", sort=False).agg(folds=("fold", "nunique"), n_train=("n_train", "unique"),
                                                       n_test=("n_test", "unique"))
    assert list(sizes.index) == ["monk1", "tic_tac_toe", "haberman"]
    assert list(sizes["folds"]) == [2, 3, 3]
    assert [list(n) for n in sizes["n_train"]] == [[300], [479], [200]]  # tic_tac_toe: half of 958 rows
    assert [list(n) for n in sizes["n_test"]] == [[556 - 300], [958 - 479], [len(X) - 200]]  # the rest
    too_many = small_config(protocol={"kind": "splits"}, datasets=[{"name": "monk1", "train_size": 5000}])
    with pytest.raises(ConfigError, match=r"dataset 'monk1': cannot split it with train_size 5000"):
        run(too_many, verbose=False)


def test_configured_positive_class_of_a_bundled_dataset():
    config = small_config(datasets=[{"name": "monk1", "positive": "1"}], methods=[{"name": "setcover-greedy"}])
    resolved, outcomes = execute(load_config(config), verbose=False)
    assert resolved.datasets[0].positive == "1"
    assert all(o.ruleset.positive == "1" for o in outcomes)
    with pytest.raises(ConfigError, match=r"dataset 'monk1': positive class 'yes' is not a label; labels: \['0', '1'\]"):
        run(small_config(datasets=[{"name": "monk1", "positive": "yes"}]), verbose=False)


# ---------------------------------------------------------------------------------------------
# The rows: what they claim checks out against the data and the fitted rule sets
# ---------------------------------------------------------------------------------------------


def test_rows_are_tidy_and_their_numbers_check_out():
    config = load_config(small_config())
    resolved, outcomes = execute(config, verbose=False)
    results = pd.DataFrame([o.row for o in outcomes], columns=list(COLUMNS))
    assert list(results.columns) == list(COLUMNS)
    assert len(results) == 2 * 3 * 3
    # monk1 has no conventional positive class and balanced classes: the smallest label; haberman's manifest
    assert [d.positive for d in resolved.datasets] == ["0", "died_within_5y"]
    for dataset in config.datasets:
        X, y = dataset.load()
        rows = results[results["dataset"] == dataset.name]
        assert (rows["n_train"] + rows["n_test"] == len(X)).all()
        # every sample is in exactly one test fold of each method
        assert rows.groupby("method")["n_test"].sum().eq(len(X)).all()
        splits = config.protocol.splits(y)
        positive = next(d.positive for d in resolved.datasets if d.name == dataset.name)
        for outcome in (o for o in outcomes if o.row["dataset"] == dataset.name):
            test = splits[outcome.row["fold"]][1]
            predicted = outcome.ruleset.predict(X.iloc[test])
            truth = y.iloc[test].to_numpy()
            assert outcome.row["f1"] == pytest.approx(f1_score(truth == positive, predicted == positive))
            assert outcome.row["accuracy"] == pytest.approx((predicted == truth).mean())
            assert outcome.row["n_rules"] == outcome.ruleset.n_rules
            assert outcome.row["avg_atoms"] == pytest.approx(outcome.ruleset.avg_atoms)
            assert outcome.row["complexity"] == outcome.ruleset.n_atoms
    assert results["solver"].isna().all() and results["status"].isna().all() and results["gap"].isna().all()
    assert not results["exact"].any()


def test_exact_rows_carry_the_solve_report_and_seeds_reach_random_methods():
    config = load_config(small_config(
        datasets=[{"name": "monk1"}], protocol={"kind": "splits", "repeats": 2, "train_size": 0.6, "seed": 5},
        methods=[{"name": "setcover", "solver": "highs", "params": {"candidates": SMALL_CANDIDATES}},
                 {"name": "libre", "params": {"n_estimators": 2}}]))
    _, outcomes = execute(config, verbose=False)
    exact = [o for o in outcomes if o.row["method"] == "setcover"]
    for outcome in exact:
        report = outcome.ruleset.meta["solve_reports"][0]
        assert outcome.row["exact"] and outcome.row["solver"] == "highs"
        assert outcome.row["status"] == report.status.value == "optimal"
        assert outcome.row["gap"] == report.gap == 0.0
        assert outcome.row["objective"] == pytest.approx(report.objective)
    seeds = [o.ruleset.meta["random_state"] for o in outcomes if o.row["method"] == "libre"]
    assert seeds == [config.protocol.method_seed(0), config.protocol.method_seed(1)] and seeds[0] != seeds[1]


def test_meta_keys_copy_the_fitted_rulesets_meta_into_columns():
    config = load_config(small_config(
        datasets=[{"name": "monk1"}], protocol={"kind": "kfold", "folds": 2, "seed": 1},
        meta=["n_candidates"],
        methods=[{"name": "setcover-greedy", "params": {"candidates": SMALL_CANDIDATES}, "meta": ["objective"]},
                 {"name": "prepend-ip2", "meta": ["search_nodes", "unproven_searches", "training_accuracy"]},
                 {"name": "bottom-up", "params": {"max_rules": 4}}]))
    assert [m.meta for m in config.methods] == [
        ("n_candidates", "objective"), ("n_candidates", "search_nodes", "unproven_searches", "training_accuracy"),
        ("n_candidates",)]
    assert load_config(config.to_dict()) == config  # the resolved configuration keeps them (config.json)
    _, outcomes = execute(config, verbose=False)
    results = results_frame(outcomes)
    assert list(results.columns) == [*COLUMNS, "meta.n_candidates", "meta.objective", "meta.search_nodes",
                                     "meta.unproven_searches", "meta.training_accuracy"]
    for outcome, (_, row) in zip(outcomes, results.iterrows(), strict=True):
        meta = outcome.ruleset.meta
        method = next(m for m in config.methods if m.label == row["method"])
        for key in ("n_candidates", "objective", "search_nodes", "unproven_searches", "training_accuracy"):
            cell = row[f"meta.{key}"]
            if key not in method.meta or key not in meta:  # not asked for, or not recorded: empty
                assert pd.isna(cell), (row["method"], key)
            elif key == "training_accuracy":  # a list: its JSON text
                assert json.loads(cell) == pytest.approx(list(meta[key]))
            else:
                assert cell == meta[key], (row["method"], key)
    decision_lists = results[results["method"] == "prepend-ip2"]
    assert (decision_lists["meta.search_nodes"] > 0).all() and decision_lists["meta.n_candidates"].isna().all()
    assert results[results["method"] == "setcover-greedy"]["meta.n_candidates"].notna().all()


# ---------------------------------------------------------------------------------------------
# Determinism and the parallel backends
# ---------------------------------------------------------------------------------------------


def test_rerunning_reproduces_the_table_and_is_silent_without_a_terminal(capsys):
    first = run(small_config(), verbose=True)
    second = run(small_config(), verbose=True)
    pd.testing.assert_frame_equal(without_timing(first), without_timing(second))
    assert capsys.readouterr().err == ""  # no progress bar: stderr is not a terminal under pytest


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_unless_not_verbose(monkeypatch):
    config = small_config(datasets=[{"name": "monk1"}], methods=[{"name": "setcover-greedy"}])
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    run(config, verbose=False)
    assert terminal.getvalue() == ""
    run(config, verbose=True)
    assert re.search(r"small: 100%.*3/3", terminal.getvalue())


def local_cluster(n_workers: int):
    """A Dask cluster on loopback inside this process (fast to start; the scheduler is reached over TCP)."""
    distributed = pytest.importorskip("dask.distributed")
    return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=False, protocol="tcp",
                                    host="127.0.0.1", dashboard_address=":0")


def test_serial_joblib_and_dask_give_identical_tables():
    methods = small_config()["methods"] + [
        {"name": "setcover", "solver": "highs", "params": {"candidates": {"max_len": 2, "max_candidates": 15}}}]
    config = small_config(methods=methods, meta=["n_candidates", "objective"])
    serial = run(config, verbose=False)
    assert serial["meta.n_candidates"].notna().all()  # every one of these methods records it
    assert (serial[serial["method"] == "setcover"]["status"] == "optimal").all()
    processes = run({**config, "parallel": {"backend": "loky", "jobs": 2}}, verbose=False)
    with local_cluster(1) as cluster:
        dask = run({**config, "parallel": {"backend": "dask", "scheduler": cluster.scheduler_address}},
                   verbose=False)
        dask_from_flag = run(config, scheduler=cluster.scheduler_address, verbose=False)
    for other in (processes, dask, dask_from_flag):
        pd.testing.assert_frame_equal(without_timing(serial), without_timing(other))


def test_dask_workers_sharing_a_process_are_refused():
    with local_cluster(2) as cluster:  # two worker threads in this one process: solves would collide
        with pytest.raises(ConfigError, match=r"every Dask worker must be a process of its own with one thread"):
            run(small_config(), scheduler=cluster.scheduler_address, verbose=False)
    with local_cluster(0) as cluster:
        with pytest.raises(ConfigError, match=r"the Dask scheduler at 'tcp://127\.0\.0\.1:\d+' has no workers"):
            run(small_config(), scheduler=cluster.scheduler_address, verbose=False)


def test_an_unreachable_scheduler_is_named():
    dask = pytest.importorskip("dask")
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(ConfigError, match=r"cannot reach the Dask scheduler at 'tcp://127\.0\.0\.1:9'"):
            run(small_config(), scheduler="tcp://127.0.0.1:9", verbose=False)


# ---------------------------------------------------------------------------------------------
# Outputs, report tables and plots
# ---------------------------------------------------------------------------------------------


def test_outputs_round_trip(tmp_path):
    results = run(small_config(), out=tmp_path, verbose=False)
    written = pd.read_csv(tmp_path / "results.csv", dtype={"solver": object, "status": object})
    pd.testing.assert_frame_equal(written[["dataset", "method", "fold", "f1", "n_rules"]],
                                  results[["dataset", "method", "fold", "f1", "n_rules"]], check_dtype=False)
    # the resolved configuration reruns to the same table
    rerun = run(tmp_path / "config.json", verbose=False)
    pd.testing.assert_frame_equal(without_timing(rerun), without_timing(results))
    environment = json.loads((tmp_path / "environment.json").read_text())
    assert environment["optrules"] == optrules.__version__
    report = (tmp_path / "report.md").read_text()
    assert "## F1-score of the positive class" in report and "| Avg Rank |" in report
    if importlib.util.find_spec("pyarrow") is not None:  # Parquet is written when pyarrow is installed
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "results.parquet"), results, check_dtype=False)
    else:
        assert not (tmp_path / "results.parquet").exists()
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["f1_vs_size_haberman.png", "f1_vs_size_monk1.png", "fit_time.png"]
    assert all((tmp_path / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_summary_table_means_bold_best_and_average_ranks():
    rows = [("d1", "a", 0.9), ("d1", "a", 0.7), ("d1", "b", 0.6), ("d1", "b", 0.6), ("d1", "c", 0.8),
            ("d1", "c", 0.8), ("d2", "a", 0.5), ("d2", "b", 0.5), ("d2", "c", 0.9)]
    results = pd.DataFrame(rows, columns=["dataset", "method", "f1"])
    table = summary_table(results, "f1")
    assert list(table.columns) == ["a", "b", "c"]
    assert list(table.index) == ["d1", "d2", "Avg Rank"]
    assert table.loc["d1", "a"] == "**0.80 (0.10)**"      # population std of 0.9, 0.7; tied best: both bold
    assert table.loc["d1", "c"] == "**0.80 (0.00)**"
    assert table.loc["d1", "b"] == "0.60 (0.00)"
    assert table.loc["d2", "c"] == "**0.90 (0.00)**"
    # d1: a and c tie at 0.8 -> ranks 1.5, 1.5, b 3; d2: c 1, a and b tie -> 2.5
    assert table.loc["Avg Rank", "a"] == "2.0 (0.5)"
    assert table.loc["Avg Rank", "b"] == "2.8 (0.2)"      # (3 + 2.5) / 2 = 2.75, std 0.25
    assert table.loc["Avg Rank", "c"] == "1.2 (0.2)"      # (1.5 + 1) / 2 = 1.25, std 0.25
    fewer_is_better = summary_table(results.rename(columns={"f1": "n_rules"}), "n_rules")
    assert fewer_is_better.loc["d2", "a"] == "**0.5 (0.0)**" and fewer_is_better.loc["d2", "b"] == "**0.5 (0.0)**"


# ---------------------------------------------------------------------------------------------
# Command line: optrules compare and optrules run
# ---------------------------------------------------------------------------------------------


def test_default_comparison_has_exact_and_heuristic_methods():
    from optrules.experiments import default_methods
    from optrules.experiments.compare import PREFERENCE
    from optrules.registry import METHODS

    methods = default_methods()
    assert methods == [m for m in PREFERENCE if m in METHODS]
    assert len(methods) >= 4
    assert {METHODS[m].exact for m in methods} == {True, False}


def test_compare_prints_a_table_and_every_method_s_rules(capsys):
    from optrules.cli import main
    from optrules.experiments import compare, default_methods
    from optrules.registry import METHODS

    assert main(["compare", "tic_tac_toe"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# tic_tac_toe: 670 training / 288 test samples (stratified hold-out, seed 0), "
                          "positive class 'positive'")
    comparison = compare("tic_tac_toe")
    for row in comparison.results.itertuples():
        kind = "exact" if METHODS[row.method].exact else "heuristic"
        printed = re.search(rf"^{re.escape(row.method)}\s+{kind}\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+(\d+)", out, re.M)
        assert printed, row.method
        assert float(printed.group(1)) == pytest.approx(row.f1, abs=5e-4)
        assert float(printed.group(2)) == pytest.approx(row.accuracy, abs=5e-4)
        assert int(printed.group(3)) == row.n_rules
        assert f"## {row.method}: {row.n_rules} rules" in out
        assert str(comparison.rulesets[row.method]) in out
    assert list(comparison.results["method"]) == default_methods()
    exact = comparison.results[comparison.results["method"] == "setcover"].iloc[0]
    assert exact["status"] == "optimal" and exact["f1"] >= 0.95
    assert re.search(r"^setcover\s+exact .* highs\s+optimal\s+0\.0%$", out, re.M)


def test_compare_with_chosen_methods_and_a_bad_one(capsys):
    from optrules.cli import main

    assert main(["compare", "monk1", "--methods", "setcover-greedy", "bottom-up", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "## setcover-greedy:" in out and "## bottom-up:" in out and "## setcover:" not in out
    assert main(["compare", "monk1", "--methods", "prepend-zz"]) == 2
    assert "unknown method 'prepend-zz'" in capsys.readouterr().err


def test_run_command_writes_outputs_and_reports_errors(tmp_path, capsys):
    from optrules.cli import main

    path = tmp_path / "exp.toml"
    path.write_text('[protocol]\nfolds = 2\n\n[[datasets]]\nname = "monk1"\n\n'
                    '[[methods]]\nname = "setcover-greedy"\nparams = { candidates = { max_len = 2 } }\n'
                    '[[methods]]\nname = "bottom-up"\n')
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4 fits; F1-score of the positive class")
    assert re.search(r"^\| monk1 \| .* \| .* \|$", out, re.M) and "| Avg Rank |" in out
    assert len(pd.read_csv(tmp_path / "out" / "results.csv")) == 4
    path.write_text('[[datasets]]\nname = "monk1"\n[[methods]]\nname = "setcover"\nsolver = "cplex"\n')
    assert main(["run", str(path)]) == 2
    assert re.search(r"optrules: error: .*exp\.toml: methods\[0\] \('setcover'\): unknown solver 'cplex'",
                     capsys.readouterr().err)
