"""The experiment runner: config errors, tidy rows that check out, determinism, serial == joblib == Dask."""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import json
import math
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score
from sklearn.model_selection import ShuffleSplit, StratifiedKFold, train_test_split

import optrules
from optrules.experiments import TIMING_COLUMNS, ConfigError, FitError, load_config, run
from optrules.experiments.report import markdown_report, summary_table
from optrules.experiments.run import COLUMNS, _chosen, _tasks, execute, results_frame
from optrules.estimators import LibreClassifier

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
     r"methods\[0\] \('setcover'\): the 'solver' parameter of SetCoverClassifier must be one of 'highs', 'scip'"),
    ({"methods": [{"name": "setcover", "solver": "scip", "params": {"solver": "highs"}}]},
     "solver is given twice"),
    ({"methods": [{"name": "setcover-greedy"}, {"name": "setcover-greedy"}]},
     r"method labels must be unique, repeated: \['setcover-greedy'\]"),
    ({"methods": [{"name": "setcover-greedy", "label": "greedy (a)"},
                  {"name": "setcover-greedy", "label": "Greedy [a]"}]},
     r"method labels 'greedy \(a\)' and 'Greedy \[a\]' would share the folder 'Greedy_a_' of the saved rules"),
    ({"methods": [{"name": "setcover-greedy", "label": ".."}, {"name": "setcover-greedy", "label": "__"}]},
     r"method labels '\.\.' and '__' would share the folder '__'"),
    ({"datasets": [{"name": "tic_tac_to"}]},
     r"datasets\[0\]: unknown dataset 'tic_tac_to'\. Did you mean 'tic_tac_toe'\?"),
    ({"datasets": [{"path": "no/such/file.csv", "label": "y"}]}, r"datasets\[0\]: CSV file not found: .*file\.csv"),
    ({"datasets": []}, r"no datasets given: add at least one \[\[datasets\]\] table"),
    ({"datasets": [{"name": "monk1", "label": "class"}]}, r"unknown key\(s\) \['label'\] in datasets\[0\]"),
    ({"protocol": {"kind": "loo"}}, "protocol: unknown kind 'loo'"),
    ({"protocol": {"kind": "kfold", "folds": 1}}, "folds must be an integer >= 2, got 1"),
    ({"protocol": {"kind": "splits", "folds": 5}}, r"unknown key\(s\) \['folds'\] in protocol \(kind 'splits'\)"),
    ({"protocol": {"kind": "splits", "train_size": 1.5}}, "train_size must be a fraction in"),
    ({"protocol": {"kind": "splits", "stratify": "no"}}, "protocol: stratify must be true or false, got 'no'"),
    ({"protocol": {"kind": "kfold", "stratify": False}}, r"unknown key\(s\) \['stratify'\] in protocol \(kind 'kfold'\)"),
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


def test_a_failing_fit_names_dataset_method_and_fold(failing_method):
    # (a positive class that is no label, the failure this test used, now stops the run before any fit)
    config = small_config(methods=[{"name": "failing", "params": {"failure": "raise"}}])
    with pytest.raises(FitError, match=r"failing on monk1, fold 0: ValueError: failing on purpose"):
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


def test_unstratified_splits_are_plain_shuffle_splits_and_split_a_class_of_one(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 40)
    labels = np.where(x > 0.5, "pos", "neg").astype(object)
    labels[0] = "rare"  # a class with one member: stratified splits are impossible
    pd.DataFrame({"x": x, "class": labels}).to_csv(tmp_path / "rare.csv", index=False)
    dataset = {"path": str(tmp_path / "rare.csv"), "positive": "pos"}
    methods = [{"name": "setcover-greedy", "params": {"candidates": SMALL_CANDIDATES}}]
    stratified = small_config(protocol={"kind": "splits", "repeats": 4, "train_size": 0.75, "seed": 2},
                              datasets=[dataset], methods=methods)
    with pytest.raises(ConfigError, match=r"dataset 'rare': class 'rare' has a single member.*stratify = false"):
        run(stratified, verbose=False)
    plain = {**stratified, "protocol": {**stratified["protocol"], "stratify": False}}
    config = load_config(plain)
    assert config.protocol.stratify is False and load_config(config.to_dict()) == config
    assert "stratify" not in load_config(stratified).to_dict()["protocol"]  # the default is not written
    y = pd.Series(labels)
    expected = list(ShuffleSplit(4, train_size=0.75, random_state=2).split(np.zeros((40, 1))))
    for (train, test), (want_train, want_test) in zip(config.protocol.splits(y), expected, strict=True):
        assert np.array_equal(train, want_train) and np.array_equal(test, want_test)
    results = run(plain, verbose=False)
    assert len(results) == 4 and (results["n_train"] == 30).all() and (results["n_test"] == 10).all()
    # the rare row is in some training part and in some test part of the four splits
    in_train = [0 in train for train, _ in expected]
    assert any(in_train) and not all(in_train)
    # an unstratified subsample: train_test_split without stratify, so the single member may stay
    kept = config.protocol.subsample(np.arange(40), y, 10)
    assert np.array_equal(kept, train_test_split(np.arange(40), train_size=10, random_state=2)[0])


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
    # monk1 has no conventional positive class and balanced classes: the estimators' tie-break, the last
    # label in sorted order (docs/estimators.md); haberman's from its manifest
    assert [d.positive for d in resolved.datasets] == ["1", "died_within_5y"]
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


def test_accuracies_are_of_the_task_a_method_solves_on_multi_class_data():
    """car_evaluation has four classes: a rule set learns 'good' against the rest and predicts one
    stand-in label for the other three, so its accuracies are positive-vs-rest; a decision list
    predicts every class and is scored on the labels."""
    config = load_config(small_config(
        protocol={"kind": "kfold", "folds": 2, "seed": 0},
        datasets=[{"name": "car_evaluation", "positive": "good"}],
        methods=[{"name": "bottom-up", "params": {"max_rules": 3}}, {"name": "append"}]))
    _, outcomes = execute(config, verbose=False)
    X, y = config.datasets[0].load()
    splits = config.protocol.splits(y)
    for outcome in outcomes:
        test = splits[outcome.row["fold"]][1]
        predicted, truth = outcome.ruleset.predict(X.iloc[test]), y.iloc[test].to_numpy()
        if outcome.row["method"] == "bottom-up":
            truth, predicted = truth == "good", predicted == "good"
            assert outcome.ruleset.positive == "good"
        else:
            assert outcome.ruleset.positive is None and len(set(predicted)) > 2
        assert outcome.row["accuracy"] == pytest.approx((predicted == truth).mean())
        recalls = [(predicted[truth == c] == c).mean() for c in np.unique(truth)]
        assert outcome.row["balanced_accuracy"] == pytest.approx(np.mean(recalls))


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


def test_rerunning_reproduces_the_table_and_logs_a_line_per_fit_without_a_terminal(capsys):
    first = run(small_config(), verbose=True)
    second = run(small_config(), verbose=True)
    pd.testing.assert_frame_equal(without_timing(first), without_timing(second))
    # no progress bar (stderr is not a terminal under pytest): one line per finished fit, nothing else
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == len(first) + len(second)
    assert all(re.match(r"\[\d+/\d+\] \S+ \S+ fold \d+: ", line) for line in lines)


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
    tuned = small_config(datasets=[{"name": "haberman"}], protocol={"kind": "kfold", "folds": 2},
                         methods=[{"name": "bottom-up", "tune": {"grid": {"chi2_threshold": [4.6, 6.0]},
                                                                  "inner_folds": 2}}])
    run(tuned, verbose=True)  # 2 outer fits and 2 x 2 x 2 inner fits
    assert re.search(r"small: 100%.*10/10", terminal.getvalue())


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


def test_a_malformed_scheduler_address_is_an_error_before_connecting(tmp_path):
    """'notaurl' reached Dask's Client, whose half-made instance then held the exit for 60 s; the
    address is now checked first (this message is the check's, not a failed connection's)."""
    pytest.importorskip("distributed")
    with pytest.raises(ConfigError, match=r"scheduler 'notaurl' is not a Dask scheduler address .* missing port"):
        run(small_config(), scheduler="notaurl", out=tmp_path, verbose=False)


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


def test_failed_fits_are_counted_in_cells_left_out_of_ranks_and_listed():
    """b fails on 3 of its 4 folds of d2: its one surviving fold must not win d2's rank."""
    nan = float("nan")
    rows = [("d1", "a", 0.9, "optimal"), ("d1", "a", 0.9, "optimal"), ("d1", "b", 0.5, None), ("d1", "b", 0.5, None),
            ("d2", "a", 0.5, None), ("d2", "a", 0.5, None), ("d2", "b", 0.95, None), ("d2", "b", nan, "timeout"),
            ("d2", "b", nan, "crashed"), ("d2", "b", nan, "crashed")]
    results = pd.DataFrame(rows, columns=["dataset", "method", "f1", "status"])
    table = summary_table(results, "f1")
    assert table.loc["d2", "b"] == "**0.95 (0.00)** [1/4 fits]" and table.loc["d2", "a"] == "0.50 (0.00)"
    assert table.loc["Avg Rank", "a"] == "1.0 (0.0)" and table.loc["Avg Rank", "b"] == "2.0 (0.0)"  # d1 only
    report = markdown_report(results, ("f1",))
    assert "## Failed fits" in report and "| d2 | b | crashed | 2 |" in report and "| d2 | b | timeout | 1 |" in report
    assert "Failed fits" not in markdown_report(results[results["f1"].notna()], ("f1",))


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

    # no time limit: what each method reaches does not depend on the machine's speed
    assert main(["compare", "tic_tac_toe", "--time-limit", "none"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# tic_tac_toe: 670 training / 288 test samples (stratified hold-out, seed 0), "
                          "positive class 'positive'")
    comparison = compare("tic_tac_toe", time_limit=None)
    for row in comparison.results.itertuples():
        kind = "exact" if METHODS[row.method].exact else "heuristic"
        printed = re.search(rf"^{re.escape(row.method)}\s+{kind}\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+(\d+|-)", out, re.M)
        assert printed, row.method
        assert float(printed.group(1)) == pytest.approx(row.f1, abs=5e-4)
        assert float(printed.group(2)) == pytest.approx(row.accuracy, abs=5e-4)
        ruleset = comparison.rulesets[row.method]
        if ruleset.kind == "score":  # a scorecard has terms, not rules: no rule count
            assert printed.group(3) == "-" and math.isnan(row.n_rules)
            assert f"## {row.method}: a scorecard of {len(ruleset.rules) + len(ruleset.linear)} terms" in out
        else:
            assert int(printed.group(3)) == row.n_rules
            assert f"## {row.method}: {int(row.n_rules)} rules" in out
        assert str(comparison.rulesets[row.method]) in out
    assert list(comparison.results["method"]) == default_methods()
    exact = comparison.results[comparison.results["method"] == "setcover"].iloc[0]
    assert exact["status"] == "optimal" and exact["f1"] >= 0.95
    assert re.search(rf"^setcover\s+exact .* highs\s+optimal\s+{exact['objective']:.5g}\s+{exact['bound']:.5g}\s+0\.0%$",
                     out, re.M)


def test_compare_with_chosen_methods_and_a_bad_one(capsys):
    from optrules.cli import main

    assert main(["compare", "monk1", "--methods", "setcover-greedy", "bottom-up", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "## setcover-greedy:" in out and "## bottom-up:" in out and "## setcover:" not in out
    assert main(["compare", "monk1", "--methods", "prepend-zz"]) == 2
    assert "unknown method 'prepend-zz'" in capsys.readouterr().err


def test_compare_with_one_solver_for_every_exact_method(capsys):
    """``--solver`` goes to every method that solves models (the table's solver column says it) and
    leaves the heuristics alone; a solver that cannot solve a method's models stops the comparison
    before any fit, naming the method, the solver and the solvers that can."""
    from optrules.cli import main
    from optrules.experiments import compare
    from optrules.experiments.config import ConfigError

    comparison = compare("monk1", methods=["setcover", "setcover-greedy"], solver="scip", time_limit=None)
    rows = comparison.results.set_index("method")
    assert rows.loc["setcover", "solver"] == "scip" and rows.loc["setcover", "status"] == "optimal"
    default = compare("monk1", methods=["setcover"], time_limit=None).results.iloc[0]
    assert default["solver"] == "highs" and default["objective"] == pytest.approx(rows.loc["setcover", "objective"])
    with pytest.raises(ConfigError, match=r"methods\[0\] \('clm'\): clarabel has no pyomo interface; "
                                          r"installed solvers that can: .*scip"):
        compare("monk1", methods=["clm", "setcover"], solver="clarabel")
    assert main(["compare", "monk1", "--methods", "setcover", "--solver", "scip", "--time-limit", "none"]) == 0
    assert re.search(r"^setcover\s+exact .* scip\s+optimal", capsys.readouterr().out, re.M)


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
    assert re.search(r"optrules: error: .*exp\.toml: methods\[0\] \('setcover'\): the 'solver' parameter of "
                     r"SetCoverClassifier must be one of .*; got 'cplex'",
                     capsys.readouterr().err)


# ---------------------------------------------------------------------------------------------
# The tune step: nested selection (optrules.experiments.tune) and per-dataset max_train
# ---------------------------------------------------------------------------------------------

from optrules.experiments.tune import (  # noqa: E402  (kept beside the tests that use them)
    InnerTask, TuneSpec, choose, confusion_counts, inner_scores, inner_splits, metric_of_counts, parse_tune,
    stack_scores, tune_tasks)
from optrules.registry import METHODS, make_estimator  # noqa: E402


def hand_scores() -> np.ndarray:
    """3 configurations (a = 1, 2, 3) x 4 inner folds x k = 0..3, dyadic values so means are exact.

    Means by (configuration, k=1..3): a=1: .5, .75, .625; a=2: .6875, .75, .75; a=3: .25, .5, .75.
    The best is a=1, k=2 (the first .75); its scores .5, .75, .75, 1 have SE sqrt(.125 / 3) / 2 = .1021.
    """
    scores = np.empty((3, 4, 4))
    scores[:, :, 0] = [[0.0] * 4, [0.0] * 4, [1.0] * 4]  # k = 0 of a=3 scores 1.0 but is not a model
    scores[0, :, 1:] = np.array([[0.5] * 4, [0.5, 0.75, 0.75, 1.0], [0.625] * 4]).T
    scores[1, :, 1:] = np.array([[0.6875] * 4, [0.75] * 4, [0.75] * 4]).T
    scores[2, :, 1:] = np.array([[0.25] * 4, [0.5] * 4, [0.5, 1.0, 0.5, 1.0]]).T
    return scores


def hand_spec(**changes) -> TuneSpec:
    spec = TuneSpec(grid=(("a", (1, 2, 3)),), inner_folds=4, prefix="max_rules")
    return dataclasses.replace(spec, **changes)


SE = float(np.sqrt(0.125 / 3) / 2)


@pytest.mark.parametrize("changes, a, k, score, ties", [
    # one-SE: near-ties are >= .75 - .1021: (1,2) (2,1) (2,2) (2,3) (3,3); fewest rules first
    ({"prefer": ("max_rules", "-score")}, 2, 1, 0.6875, 1),
    # highest score first, then fewest rules: (1,2) and (2,2) tie, grid order decides
    ({"prefer": ("-score", "max_rules")}, 1, 2, 0.75, 2),
    # no prefer key: grid order, then the smaller k; all five near-ties are tied
    ({"prefer": ()}, 1, 2, 0.75, 5),
    # descending on a grid parameter
    ({"prefer": ("-a",)}, 3, 3, 0.75, 1),
    ({"prefer": ("a", "-max_rules")}, 1, 2, 0.75, 1),
    # "best": only the .75s; fewest rules: (1,2) (2,2) tie
    ({"select": "best", "prefer": ("max_rules",)}, 1, 2, 0.75, 2),
    # tolerances: .1 admits (2,1) at .6875; .05 does not
    ({"select": 0.1, "prefer": ("max_rules",)}, 2, 1, 0.6875, 1),
    ({"select": 0.05, "prefer": ("max_rules", "-a")}, 2, 2, 0.75, 1),
    # the k cap: k <= 2 leaves (1,2) as the best, (2,1) and (2,2) near it
    ({"max_prefix": 2, "prefer": ("-score",)}, 1, 2, 0.75, 2),
])
def test_selection_arithmetic_on_hand_made_scores(changes, a, k, score, ties):
    choice = choose(hand_spec(**changes), hand_scores())
    assert (choice.configuration, choice.k, choice.score, choice.ties) == ({"a": a}, k, score, ties)
    assert choice.best == 0.75 and choice.se == pytest.approx(SE)


def test_min_prefix_leaves_out_smaller_k_and_pads_fits_with_fewer_rules():
    # k >= 2: the best is (1,2) .75 as before; one-SE near-ties without k = 1: (1,2) (2,2) (2,3) (3,3)
    choice = choose(hand_spec(min_prefix=2, prefer=("max_rules", "-score")), hand_scores())
    assert (choice.configuration, choice.k, choice.score, choice.ties) == ({"a": 1}, 2, 0.75, 2)
    # k fixed at 3 (min_prefix = max_prefix = 3): candidates (1,3) .625, (2,3) .75, (3,3) .75
    choice = choose(hand_spec(min_prefix=3, max_prefix=3, select="best"), hand_scores())
    assert (choice.configuration, choice.k, choice.score, choice.ties, choice.se) == ({"a": 2}, 3, 0.75, 2, 0.0)
    # every fit has at most 3 rules (k = 0..3); min_prefix 5 scores k = 5 as each fit's whole rule set
    choice = choose(hand_spec(min_prefix=5, select="best"), hand_scores())
    assert (choice.configuration, choice.k, choice.score, choice.best) == ({"a": 2}, 5, 0.75, 0.75)


def test_pooling_is_validated_and_round_trips():
    libre = tuned_config()["methods"][0]
    spec = parse_tune({**libre["tune"], "pooling": "pooled"}, "libre", libre["params"])
    assert spec.pooling == "pooled" and spec.to_dict()["pooling"] == "pooled"
    assert parse_tune(spec.to_dict(), "libre", libre["params"]) == spec
    assert "pooling" not in parse_tune(libre["tune"], "libre", libre["params"]).to_dict()  # the default, "mean"
    with pytest.raises(ValueError, match=r"pooling must be one of \['mean', 'pooled'\], got 'sum'"):
        parse_tune({**libre["tune"], "pooling": "sum"}, "libre", libre["params"])


def test_selection_with_a_cap_of_one_rule_and_without_prefix_scoring():
    choice = choose(hand_spec(max_prefix=1, prefer=("max_rules",)), hand_scores())
    assert (choice.configuration, choice.k, choice.score, choice.best, choice.se) == ({"a": 2}, 1, 0.6875, 0.6875, 0)
    # without prefix scoring the candidates are the configurations: here the k = 2 slice
    plain = TuneSpec(grid=(("a", (1, 2, 3)),), inner_folds=4)
    choice = choose(plain, hand_scores()[:, :, 2:3])
    assert (choice.configuration, choice.k, choice.best, choice.ties) == ({"a": 1}, None, 0.75, 2)
    assert choice.se == pytest.approx(SE)
    columns = choice.columns(plain)
    assert columns == {"tune.a": 1, "tune.score": 0.75, "tune.best": 0.75, "tune.se": choice.se, "tune.ties": 2,
                       "tune.failed": 0}


def reference_selection(scores: np.ndarray, k_max: int | None, tolerance: float | None) -> tuple[int, int, int]:
    """The selection benchmarks/libre_paper.py made before the runner had a tune step, written out
    loop by loop: (configuration, k, ties) with the fewest rules, then the highest mean, then the
    first configuration (E varies slowest in its grid), among the near-ties of the best."""
    n_configs, n_folds, length = scores.shape
    ks = range(1, length if k_max is None else min(length, k_max + 1))
    means = {(c, k): scores[c, :, k].mean() for c in range(n_configs) for k in ks}
    best = max(means.values())
    first_best = next((c, k) for c in range(n_configs) for k in ks if means[c, k] == best)
    margin = scores[first_best[0], :, first_best[1]].std(ddof=1) / np.sqrt(n_folds) if tolerance is None \
        else tolerance
    near = [(k, -m, c) for (c, k), m in means.items() if m >= best - margin - 1e-12]
    k, negative_mean, c = min(near)
    return c, k, sum(1 for key in near if key[:2] == (k, negative_mean))


def test_selection_equals_the_old_benchmark_selection_on_random_scores():
    rng = np.random.default_rng(7)
    spec = TuneSpec(grid=(("a", tuple(range(6))),), inner_folds=3, prefix="max_rules",
                    prefer=("max_rules", "-score"))
    for trial in range(300):
        scores = rng.integers(0, 5, size=(6, 3, int(rng.integers(2, 6)))) / 4  # coarse: many ties
        k_max = [None, 1, 3][trial % 3]
        tolerance = [None, 0.1][trial % 2]
        trial_spec = dataclasses.replace(spec, max_prefix=k_max,
                                         select="one-se" if tolerance is None else tolerance)
        choice = choose(trial_spec, scores)
        assert (choice.configuration["a"], choice.k, choice.ties) == reference_selection(scores, k_max, tolerance)


def test_stacked_prefix_scores_pad_short_fits_with_their_full_rule_set():
    rows = [[np.array([0.0, 0.5]), np.array([0.0, 0.25, 0.75, 1.0])], [np.array([0.1]), np.array([0.0, 0.5])]]
    stacked = stack_scores(rows, prefix=True)
    assert stacked.shape == (2, 2, 4)
    assert stacked[0, 0].tolist() == [0.0, 0.5, 0.5, 0.5]   # 1 rule: k = 2, 3 are that rule
    assert stacked[1, 0].tolist() == [0.1] * 4              # no rule at all
    assert stack_scores([[np.array([0.0]), np.array([0.5])]], prefix=True).shape == (1, 2, 2)  # k = 1 exists
    assert stack_scores([[np.array([0.3]), np.array([0.5])]], prefix=False).tolist() == [[[0.3], [0.5]]]


SKLEARN_METRICS = {"f1": lambda t, p: f1_score(t, p, zero_division=0.0),
                   "accuracy": accuracy_score, "balanced_accuracy": balanced_accuracy_score}


def test_metrics_of_confusion_counts_agree_with_scikit_learn():
    rng = np.random.default_rng(0)
    truth = rng.random(40) < 0.3
    predicted = rng.random((40, 5)) < 0.4
    predicted[:, 0] = False  # nothing predicted positive: F1 0
    counts = confusion_counts(predicted, truth)
    assert counts.shape == (5, 4) and (counts.sum(axis=1) == 40).all()
    for metric, reference in SKLEARN_METRICS.items():
        expected = [reference(truth, predicted[:, j]) for j in range(5)]
        assert metric_of_counts(counts, metric) == pytest.approx(expected), metric
    # a fold with one class only: balanced accuracy is that class's rate, as scikit-learn's (which warns)
    negatives_only = np.zeros(40, dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = [balanced_accuracy_score(negatives_only, predicted[:, j]) for j in range(5)]
    assert metric_of_counts(confusion_counts(predicted, negatives_only), "balanced_accuracy") == pytest.approx(expected)


def test_pooled_counts_score_the_concatenated_validation_splits():
    """Summed confusion counts give the metric of all validation predictions put together, which
    differs from the mean of the per-split metrics."""
    rng = np.random.default_rng(3)
    truths = [rng.random(n) < 0.3 for n in (17, 23, 9)]
    predictions = [rng.random(len(t)) < 0.4 for t in truths]
    pooled = sum(confusion_counts(p, t) for p, t in zip(predictions, truths))
    for metric, reference in SKLEARN_METRICS.items():
        everything = reference(np.concatenate(truths), np.concatenate(predictions))
        assert metric_of_counts(pooled, metric)[0] == pytest.approx(everything), metric
    per_split = np.mean([SKLEARN_METRICS["f1"](t, p) for t, p in zip(truths, predictions)])
    assert abs(metric_of_counts(pooled, "f1")[0] - per_split) > 1e-3


def reference_pooled_selection(predictions: list[list[list[np.ndarray]]], truths: list[np.ndarray],
                               metric: str) -> tuple[int, int, float, float]:
    """Pooled selection written out with scikit-learn on concatenated predictions: (configuration, k,
    score, SE) of the fewest-rules candidate within one jackknife SE of the best pooled score;
    ``predictions[c][s][k]`` is configuration c's prediction on split s with its first k + 1 rules."""
    n_splits = len(truths)
    score_of = SKLEARN_METRICS[metric]

    def pooled(c: int, k: int, splits: range | list[int]) -> float:
        return score_of(np.concatenate([truths[s] for s in splits]),
                        np.concatenate([predictions[c][s][k] for s in splits]))

    candidates = [(c, k) for c in range(len(predictions)) for k in range(len(predictions[0][0]))]
    scores = {(c, k): pooled(c, k, range(n_splits)) for c, k in candidates}
    best = max(scores.values())
    c_best, k_best = next(candidate for candidate in candidates if scores[candidate] == best)
    left_out = np.array([pooled(c_best, k_best, [t for t in range(n_splits) if t != s]) for s in range(n_splits)])
    se = float(np.sqrt((n_splits - 1) / n_splits * ((left_out - left_out.mean()) ** 2).sum()))
    near = sorted((k, -scores[c, k], c) for c, k in candidates if scores[c, k] >= best - se - 1e-12)
    k, negative_score, c = near[0]
    return c, k + 1, -negative_score, se


@pytest.mark.parametrize("metric", ["f1", "balanced_accuracy"])
def test_pooled_selection_equals_scikit_learn_on_concatenated_predictions(metric):
    rng = np.random.default_rng(11)
    spec = TuneSpec(grid=(("a", tuple(range(4))),), inner_folds=3, prefix="max_rules",
                    prefer=("max_rules", "-score"), pooling="pooled", metric=metric)
    for trial in range(40):
        truths = [rng.random(n) < 0.35 for n in (11, 12, 12)]
        predictions = [[[rng.random(len(t)) < rng.uniform(0.2, 0.6) for _ in range(3)] for t in truths]
                       for _ in range(4)]
        no_rule = [np.zeros(len(t), dtype=bool) for t in truths]  # k = 0 predicts nothing (not a candidate)
        counts = np.array([[[confusion_counts(p, t)[0] for p in [none, *split]]
                            for split, t, none in zip(configuration, truths, no_rule)] for configuration in predictions])
        choice = choose(spec, counts)
        c, k, score, se = reference_pooled_selection(predictions, truths, metric)
        assert (choice.configuration["a"], choice.k) == (c, k), trial
        assert (choice.score, choice.se) == pytest.approx((score, se)), trial


PREFIX_METHODS = sorted(name for name, method in METHODS.items() if method.prefix is not None)


def test_the_prefix_capable_methods_are_the_greedy_rule_sets():
    assert PREFIX_METHODS == ["bottom-up", "libre", "setcover-greedy"]


@pytest.mark.parametrize("params", [{}, {"conflicts": "majority", "alpha": 0.9}], ids=["strict", "majority"])
@pytest.mark.parametrize("name", PREFIX_METHODS)
def test_prefix_scores_equal_refits_with_max_rules(name, params):
    """The declared claim: the fit with max_rules=k has the first k rules of the unlimited fit, and
    the inner scores of every prefix equal the F1 of those refits."""
    if name == "setcover-greedy":
        params = {"alpha": params.get("alpha", 0.7)}
    X, y = optrules.load("tic_tac_toe")
    train, valid = np.arange(0, len(X), 2), np.arange(1, len(X), 2)
    params = {**METHODS[name].test_params, **params, "positive": "positive"}
    full = make_estimator(name, **params).fit(X.iloc[train], y.iloc[train]).ruleset_
    assert full.n_rules >= 3
    task = InnerTask("test", make_estimator(name, **params), X, y, train, valid, "positive", "f1", prefix=True)
    scores = inner_scores(task)
    assert len(scores) == full.n_rules + 1
    truth = y.iloc[valid].to_numpy() == "positive"
    for k in range(1, full.n_rules + 2):
        refit = make_estimator(name, **params, max_rules=k).fit(X.iloc[train], y.iloc[train])
        assert refit.ruleset_.rules == full.rules[:k], k
        predicted = refit.predict(X.iloc[valid]) == "positive"
        assert scores[min(k, full.n_rules)] == f1_score(truth, predicted), k


def tuned_config(**overrides) -> dict:
    config = {
        "title": "tuned",
        "protocol": {"kind": "kfold", "folds": 3, "seed": 2},
        "datasets": [{"name": "haberman"}, {"name": "monk1"}],
        "methods": [
            {"name": "libre", "params": {"max_features": 2, "conflicts": "majority"},
             "tune": {"grid": {"n_estimators": [2, 4], "alpha": [0.5, 0.9]}, "inner_folds": 2,
                      "prefix": "max_rules", "prefer": ["max_rules", "-score"]}},
            {"name": "libre", "label": "libre 2", "params": {"max_features": 2, "conflicts": "majority"},
             "tune": {"grid": {"n_estimators": [2, 4], "alpha": [0.5, 0.9]}, "inner_folds": 2,
                      "prefix": "max_rules", "max_prefix": 2, "prefer": ["max_rules", "-score"]}},
            {"name": "bottom-up", "params": {"max_rules": 4},
             "tune": {"grid": {"chi2_threshold": [4.6, 6.0]}, "inner_folds": 3, "metric": "balanced_accuracy",
                      "select": "best"}},
            {"name": "setcover-greedy", "params": {"candidates": SMALL_CANDIDATES}},
        ],
    }
    config.update(overrides)
    return config


def test_a_failing_inner_fit_stops_the_run_or_drops_its_configuration_with_record(failing_method):
    """failure = "raise" fails every fit: with on_error = "raise" its first inner fit stops the run;
    with "record" that configuration is not a candidate and the rows say so; when every
    configuration fails the run stops either way."""
    def config(failures, on_error):
        return {"protocol": {"kind": "kfold", "folds": 2, "seed": 0}, "datasets": [{"name": "monk1"}],
                "methods": [{"name": "failing", "params": {"candidates": SMALL_CANDIDATES},
                             "on_error": on_error, "tune": {"grid": {"failure": failures}, "inner_folds": 2}}]}
    with pytest.raises(FitError, match=r"inner split 0, \{'failure': 'raise'\}: ValueError: failing on purpose"):
        run(config(["none", "raise"], "raise"), verbose=False)
    with pytest.warns(UserWarning, match="inner fit failed"):
        results = run(config(["none", "raise"], "record"), verbose=False)
    assert (results["tune.failure"] == "none").all() and (results["tune.failed"] == 1).all()
    assert results["f1"].notna().all()
    with pytest.raises(FitError, match="fold 0: every configuration of the grid failed"), \
            pytest.warns(UserWarning):
        run(config(["raise"], "record"), verbose=False)


@pytest.mark.parametrize("metric", ["f1", "balanced_accuracy"])
def test_a_failed_configuration_is_dropped_with_pooled_counts_too(metric, failing_method):
    config = {"protocol": {"kind": "kfold", "folds": 2, "seed": 0}, "datasets": [{"name": "monk1"}],
              "methods": [{"name": "failing", "params": {"candidates": SMALL_CANDIDATES}, "on_error": "record",
                           "tune": {"grid": {"failure": ["raise", "none"]}, "inner_folds": 2, "pooling": "pooled",
                                    "metric": metric}}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no arithmetic on the failed configuration's NaNs
        with pytest.warns(UserWarning, match="inner fit failed"):
            results = run(config, verbose=False)
    assert (results["tune.failure"] == "none").all() and (results["tune.failed"] == 1).all()
    assert results["tune.score"].between(0, 1).all() and results["f1"].notna().all()


def test_a_tuned_run_chooses_from_the_grid_and_its_row_is_the_direct_fit():
    config = load_config(tuned_config())
    resolved, outcomes = execute(config, verbose=False)
    results = results_frame(outcomes)
    assert list(results.columns) == [*COLUMNS, "tune.n_estimators", "tune.alpha", "tune.max_rules", "tune.score",
                                     "tune.best", "tune.se", "tune.ties", "tune.failed", "tune.chi2_threshold"]
    untuned = results[results["method"] == "setcover-greedy"]
    assert untuned.filter(like="tune.").isna().all().all()
    for dataset in resolved.datasets:
        X, y = dataset.load()
        splits = config.protocol.splits(y)
        tuned = [o for o in outcomes if o.row["dataset"] == dataset.name and o.row["method"] != "setcover-greedy"]
        for outcome in tuned:
            row = outcome.row
            method = next(m for m in config.methods if m.label == row["method"])
            chosen = {name: row[f"tune.{name}"] for name in method.tune.parameters}
            assert chosen in method.tune.configurations()
            assert row["tune.best"] - row["tune.se"] - 1e-12 <= row["tune.score"] <= row["tune.best"]
            assert row["tune.ties"] >= 1
            params = {**method.params, **chosen, "positive": dataset.positive}
            if method.accepts("random_state"):  # inner and outer fits get the fold's seed
                params["random_state"] = config.protocol.method_seed(row["fold"])
            train, test = splits[row["fold"]]
            inner = StratifiedKFold(method.tune.inner_folds, shuffle=True, random_state=config.protocol.seed)
            inner_splits = list(inner.split(np.zeros((len(train), 1)), y.iloc[train]))
            if method.tune.prefix:
                k = row["tune.max_rules"]
                assert 1 <= k <= (method.tune.max_prefix or k)
                inner_f1 = []
                for fit_rows, valid_rows in inner_splits:  # the chosen candidate's inner score, by refits
                    X_fit, y_fit = X.iloc[train].iloc[fit_rows], y.iloc[train].iloc[fit_rows]
                    model = make_estimator(method.name, **params, max_rules=k).fit(X_fit, y_fit)
                    truth = y.iloc[train].iloc[valid_rows] == dataset.positive
                    inner_f1.append(f1_score(truth, model.predict(X.iloc[train].iloc[valid_rows]) == dataset.positive))
                assert row["tune.score"] == pytest.approx(np.mean(inner_f1))
                params["max_rules"] = k
            direct = make_estimator(method.name, **params).fit(X.iloc[train], y.iloc[train])
            assert direct.ruleset_.rules == outcome.ruleset.rules
            truth = y.iloc[test] == dataset.positive
            assert row["f1"] == f1_score(truth, direct.predict(X.iloc[test]) == dataset.positive)
    # libre and libre 2 share their inner fits: where libre's choice has k <= 2, libre 2 chooses the same
    libre = results[results["method"] == "libre"].reset_index(drop=True)
    libre2 = results[results["method"] == "libre 2"].reset_index(drop=True)
    same = libre["tune.max_rules"] <= 2
    assert same.any()
    pd.testing.assert_frame_equal(without_timing(libre[same].drop(columns="method")),
                                  without_timing(libre2[same].drop(columns="method")))


def tune_on_haberman(methods: list[dict]) -> tuple[list, list[InnerTask], list]:
    """The tasks of ``methods`` on haberman (tuned_config's protocol), the inner tasks fitted, in
    order, and the resolved tasks."""
    config = load_config({**tuned_config(datasets=[{"name": "haberman"}]), "methods": methods})
    tasks = _tasks(config, dataclasses.replace(config.datasets[0], positive="died_within_5y"),
                   *config.datasets[0].load())
    fitted: list[InnerTask] = []

    def fit(inner):
        for task in inner:
            fitted.append(task)
            yield inner_scores(task)

    return tasks, fitted, tune_tasks(tasks, config.protocol.seed, fit, _chosen)


def test_fixed_k_by_min_prefix_shares_the_inner_fits_and_refits_max_rules_k():
    """min_prefix = max_prefix = 2 is the model max_rules = 2 with only the configuration tuned: it
    reuses libre's inner fits, chooses k = 2 on every fold, and its outer fit is max_rules = 2."""
    libre = tuned_config()["methods"][0]
    fixed = {**libre, "label": "libre k=2",
             "tune": {**libre["tune"], "min_prefix": 2, "max_prefix": 2, "select": "best", "prefer": []}}
    tasks, fitted, resolved = tune_on_haberman([libre, fixed])
    assert len(fitted) == 4 * 2 * 3  # 4 configurations x 2 inner splits x 3 folds, shared
    chosen = [task for task in resolved if task.method.label == "libre k=2"]
    assert len(chosen) == 3
    for task in chosen:
        assert task.method.params["max_rules"] == 2 and task.tuned["tune.max_rules"] == 2
        assert task.tuned["tune.score"] == task.tuned["tune.best"]  # select = "best"


def test_pooled_tuning_scores_the_chosen_candidate_on_all_validation_rows_together():
    """With pooling = "pooled" the inner fits return confusion counts, and the chosen candidate's
    tune.score is the F1 of its refits' predictions on all inner validation splits put together."""
    libre = tuned_config()["methods"][0]
    pooled = {**libre, "label": "libre pooled", "tune": {**libre["tune"], "pooling": "pooled", "inner_folds": 3}}
    tasks, fitted, resolved = tune_on_haberman([pooled])
    assert fitted and all(task.counts for task in fitted)
    assert all(inner_scores(task).shape[1:] == (4,) for task in fitted[:3])
    checked_se = 0
    for task in resolved:
        params = {**task.method.params}
        predictions, truths = [], []
        for train, valid in inner_splits(task.y_train, 3, 1, 2):
            model = make_estimator("libre", **params).fit(task.X_train.iloc[train], task.y_train.iloc[train])
            predictions.append(model.predict(task.X_train.iloc[valid]) == "died_within_5y")
            truths.append(task.y_train.iloc[valid].to_numpy() == "died_within_5y")
        assert task.tuned["tune.score"] == pytest.approx(f1_score(np.concatenate(truths), np.concatenate(predictions)))
        assert task.tuned["tune.best"] - task.tuned["tune.se"] - 1e-12 <= task.tuned["tune.score"]
        if task.tuned["tune.score"] == task.tuned["tune.best"]:  # the chosen one is the best: its SE, by jackknife
            left_out = [f1_score(np.concatenate(truths[:s] + truths[s + 1:]),
                                 np.concatenate(predictions[:s] + predictions[s + 1:])) for s in range(3)]
            assert task.tuned["tune.se"] == pytest.approx(np.sqrt(2 / 3 * np.sum((left_out - np.mean(left_out)) ** 2)))
            checked_se += 1
    assert checked_se


def test_identical_inner_fits_of_two_methods_run_once():
    methods = tuned_config()["methods"]
    other_splits = {**methods[0], "label": "libre 3 inner folds", "tune": {**methods[0]["tune"], "inner_folds": 3}}
    tasks, fitted, resolved = tune_on_haberman([*methods, other_splits])
    # libre and libre 2: 4 configurations x 2 inner splits x 3 folds, once; bottom-up: 2 x 3 x 3;
    # libre on 3 inner splits shares nothing: 4 x 3 x 3
    assert len(fitted) == 4 * 2 * 3 + 2 * 3 * 3 + 4 * 3 * 3
    assert all(task.estimator.max_rules is None for task in fitted if type(task.estimator) is LibreClassifier)
    assert [t.method.label for t in resolved] == [t.method.label for t in tasks]
    assert all(t.tuned == {} and t is u for t, u in zip(resolved, tasks) if t.method.tune is None)


def test_repeated_inner_folds_extend_the_unrepeated_ones_and_every_split_is_scored():
    y = optrules.load("haberman")[1]
    once, twice = inner_splits(y, 3, 1, 7), inner_splits(y, 3, 2, 7)
    assert len(twice) == 6
    for (a, b), (c, d) in zip(once, twice[:3]):
        assert np.array_equal(a, c) and np.array_equal(b, d)
    for r in range(2):  # each repeat partitions the rows into its validation splits
        assert np.array_equal(np.sort(np.concatenate([v for _, v in twice[3 * r:3 * r + 3]])), np.arange(len(y)))
    assert not np.array_equal(twice[0][1], twice[3][1])
    method = tuned_config()["methods"][0]
    _, fitted, resolved = tune_on_haberman([{**method, "tune": {**method["tune"], "inner_repeats": 2}}])
    assert len(fitted) == 4 * 2 * 2 * 3  # configurations x inner folds x repeats x outer folds
    assert all(0 <= t.tuned["tune.score"] <= t.tuned["tune.best"] for t in resolved)


def test_tuned_runs_agree_serial_joblib_dask_and_on_rerun(tmp_path):
    config = tuned_config(datasets=[{"name": "haberman"}])
    serial = run(config, out=tmp_path, verbose=False)
    written = pd.read_csv(tmp_path / "results.csv")
    tune_columns = [c for c in serial.columns if c.startswith("tune.")]
    assert len(tune_columns) == 9
    pd.testing.assert_frame_equal(written[tune_columns], serial[tune_columns], check_dtype=False)
    assert "| haberman |" in (tmp_path / "report.md").read_text()
    rerun_from_json = run(tmp_path / "config.json", verbose=False)
    pd.testing.assert_frame_equal(without_timing(serial), without_timing(rerun_from_json))
    again = run(config, verbose=False)
    processes = run({**config, "parallel": {"backend": "loky", "jobs": 2}}, verbose=False)
    with local_cluster(1) as cluster:
        dask = run(config, scheduler=cluster.scheduler_address, verbose=False)
    for other in (again, processes, dask):
        pd.testing.assert_frame_equal(without_timing(serial), without_timing(other))


def test_tune_tables_in_toml_round_trip(tmp_path):
    path = tmp_path / "tuned.toml"
    path.write_text("""
[protocol]
folds = 3
seed = 2

[[datasets]]
name = "haberman"
[[datasets]]
name = "monk1"

[[methods]]
name = "libre"
params = { max_features = 2, conflicts = "majority" }
[methods.tune]
grid = { n_estimators = [2, 4], alpha = [0.5, 0.9] }
inner_folds = 2
prefix = "max_rules"
prefer = ["max_rules", "-score"]

[[methods]]
name = "libre"
label = "libre 2"
params = { max_features = 2, conflicts = "majority" }
[methods.tune]
grid = { n_estimators = [2, 4], alpha = [0.5, 0.9] }
inner_folds = 2
prefix = "max_rules"
max_prefix = 2
prefer = ["max_rules", "-score"]

[[methods]]
name = "bottom-up"
params = { max_rules = 4 }
tune = { grid = { chi2_threshold = [4.6, 6.0] }, inner_folds = 3, metric = "balanced_accuracy", select = "best" }

[[methods]]
name = "setcover-greedy"
params = { candidates = { max_len = 2, max_candidates = 40 } }
""")
    config = load_config(path)
    assert config == load_config(tuned_config(title=""))
    assert load_config(config.to_dict()) == config  # config.json reruns the same tune steps
    assert config.methods[1].tune.configurations() == [
        {"n_estimators": 2, "alpha": 0.5}, {"n_estimators": 2, "alpha": 0.9},
        {"n_estimators": 4, "alpha": 0.5}, {"n_estimators": 4, "alpha": 0.9}]


def tune_error_config(tune: dict, name: str = "libre", params: dict | None = None) -> dict:
    return small_config(methods=[{"name": name, "params": params or {}, "tune": tune}])


@pytest.mark.parametrize("tune, name, params, message", [
    ({"grid": {"alpah": [0.5]}}, "libre", None,
     r"methods\[0\] \('libre'\): tune: unknown parameter\(s\) \['alpah'\] in the grid of method 'libre'; valid:"),
    ({"grid": {"alpha": []}}, "libre", None, r"tune: grid alpha must be a non-empty list of values, got \[\]"),
    ({"grid": {"alpha": 0.5}}, "libre", None, r"tune: grid alpha must be a non-empty list of values, got 0\.5"),
    ({"grid": {}}, "libre", None, r"tune: grid must be a non-empty table"),
    ({"inner_folds": 3}, "libre", None, r"tune: grid must be a non-empty table"),
    ({"grid": {"alpha": [0.5]}, "inner_folds": 1}, "libre", None, r"tune: inner_folds must be an integer >= 2, got 1"),
    ({"grid": {"alpha": [0.5]}, "inner_repeats": 0}, "libre", None,
     r"tune: inner_repeats must be an integer >= 1, got 0"),
    ({"grid": {"alpha": [0.5]}, "metric": "auc"}, "libre", None,
     r"tune: unknown metric 'auc'; use one of \['f1', 'accuracy', 'balanced_accuracy'\]"),
    ({"grid": {"alpha": [0.5]}, "select": "two-se"}, "libre", None,
     r"tune: select must be 'one-se', 'best' or a tolerance >= 0, got 'two-se'"),
    ({"grid": {"alpha": [0.5]}, "select": -0.1}, "libre", None, r"select must be .* got -0\.1"),
    ({"grid": {"alpha": [0.5]}, "folds": 3}, "libre", None, r"unknown key\(s\) \['folds'\] in tune; known keys"),
    ({"grid": {"alpha": [0.5]}}, "libre", {"alpha": 0.7}, r"tune: \['alpha'\] given in params and in the grid"),
    ({"grid": {"selection": ["ilp"]}}, "setcover-greedy", None, r"method 'setcover-greedy' fixes \['selection'\]"),
    ({"grid": {"alpha": [0.5]}, "prefix": "max_rules"}, "setcover", None,
     r"tune: method 'setcover' cannot score greedy prefixes of 'max_rules' \(its prefix parameter: None\); "
     r"methods that can: \['bottom-up', 'libre', 'setcover-greedy'\]"),
    ({"grid": {"alpha": [0.5]}, "prefix": "n_estimators"}, "libre", None,
     r"cannot score greedy prefixes of 'n_estimators'"),
    ({"grid": {"alpha": [0.5]}, "prefix": "max_rules"}, "libre", {"selection": "ilp"},
     r"tune: prefix scoring of 'libre' needs selection = 'greedy' .*got \['ilp'\]"),
    ({"grid": {"alpha": [0.5], "selection": ["greedy", "ilp"]}, "prefix": "max_rules"}, "bottom-up", None,
     r"needs selection = 'greedy'"),
    ({"grid": {"alpha": [0.5]}, "prefix": "max_rules"}, "libre", {"max_rules": 3},
     r"tune: max_rules is chosen by prefix scoring; do not set it in params or the grid"),
    ({"grid": {"alpha": [0.5]}, "max_prefix": 3}, "libre", None, r"tune: max_prefix needs prefix"),
    ({"grid": {"alpha": [0.5]}, "prefix": "max_rules", "max_prefix": 0}, "libre", None,
     r"tune: max_prefix must be an integer >= 1, got 0"),
    ({"grid": {"alpha": [0.5]}, "min_prefix": 3}, "libre", None, r"tune: min_prefix needs prefix"),
    ({"grid": {"alpha": [0.5]}, "prefix": "max_rules", "min_prefix": 1.5}, "libre", None,
     r"tune: min_prefix must be an integer >= 1, got 1.5"),
    ({"grid": {"alpha": [0.5]}, "prefix": "max_rules", "min_prefix": 3, "max_prefix": 2}, "libre", None,
     r"tune: min_prefix 3 exceeds max_prefix 2"),
    ({"grid": {"alpha": [0.5]}, "prefer": ["max_rules"]}, "libre", None,
     r"tune: unknown prefer key 'max_rules'; use a grid parameter, the prefix parameter or 'score'"),
    ({"grid": {"alpha": [0.5]}, "prefer": "score"}, "libre", None, r"tune: prefer must be a list of keys"),
    ({"grid": {"max_intervals": [None, "x", 3]}, "prefer": ["max_intervals"]}, "libre", None,
     r"tune: grid max_intervals = 'x': the 'max_intervals' parameter of LibreClassifier must be an integer"),
    ({"grid": {"solver_options": [{"time_limit": 5}, {"time_limit": 9}]}, "prefer": ["solver_options"]}, "setcover",
     None, r"tune: prefer 'solver_options': the grid values \[\{'time_limit': 5\}, \{'time_limit': 9\}\] cannot be "
     "ordered"),
    ([1, 2], "libre", None, r"tune must be a table"),
])
def test_tune_config_errors_name_the_problem(tune, name, params, message):
    with pytest.raises(ConfigError, match=message):
        load_config(tune_error_config(tune, name, params))


def test_max_train_is_a_stratified_seeded_subsample_of_each_training_fold():
    with pytest.raises(ConfigError, match=r"datasets\[0\]: max_train must be a number of rows >= 2, got 1"):
        load_config(small_config(datasets=[{"name": "monk1", "max_train": 1}]))
    config = load_config(small_config(datasets=[{"name": "haberman", "max_train": 100}, {"name": "monk1"}],
                                      methods=[{"name": "setcover-greedy"}]))
    assert config.datasets[0].max_train == 100 and load_config(config.to_dict()) == config
    X, y = config.datasets[0].load()
    for train, test in config.protocol.splits(y):
        kept = config.protocol.subsample(train, y, 100)
        assert len(kept) == 100 and set(kept) <= set(train)
        assert np.array_equal(kept, config.protocol.subsample(train, y, 100))  # seeded
        share = (y.iloc[train] == "died_within_5y").mean()
        assert abs((y.iloc[kept] == "died_within_5y").sum() - 100 * share) <= 1  # stratified
        assert config.protocol.subsample(train, y, None) is train
        assert config.protocol.subsample(train, y, len(train)) is train
    results = run(config, verbose=False)
    haberman = results[results["dataset"] == "haberman"]
    assert (haberman["n_train"] == 100).all() and haberman["n_test"].sum() == len(X)
    assert (results[results["dataset"] == "monk1"]["n_train"] > 100).all()


# ---------------------------------------------------------------------------------------------
# Certainty of exact results: the row columns, the report's marks, certified distances, fallbacks
# ---------------------------------------------------------------------------------------------


def test_rows_carry_status_bound_gap_fallback_instance_and_stage_seconds():
    config = small_config(datasets=[{"name": "monk1"}], protocol={"kind": "kfold", "folds": 2, "seed": 0},
                          methods=[{"name": "setcover", "params": {"candidates": SMALL_CANDIDATES},
                                    "solver_options": {"mip_max_nodes": 1000}},
                                   {"name": "setcover-greedy", "params": {"candidates": SMALL_CANDIDATES}}])
    resolved, outcomes = execute(load_config(config), verbose=False)
    results = results_frame(outcomes)
    for outcome, row in zip(outcomes, results.itertuples(index=False)):
        meta = outcome.ruleset.meta
        assert row.objective == pytest.approx(meta["objective"]) and row.instance == meta["instance"]
        if row.method == "setcover":
            assert (row.status, row.fallback) == (meta["status"], meta["fallback"])
            assert row.bound == pytest.approx(meta["best_bound"]) and row.gap == pytest.approx(meta["gap"])
            assert row.bound <= row.objective + 1e-6
            for column in ("exact_seconds", "build_seconds", "load_seconds", "cut_seconds", "solve_seconds"):
                assert getattr(row, column) == pytest.approx(meta[column]) and getattr(row, column) >= 0
        else:
            assert pd.isna(row.status) and pd.isna(row.bound) and pd.isna(row.fallback)
            assert pd.isna(row.exact_seconds)
    # the greedy and the ILP optimised the same instance on each fold
    by_fold = results.groupby("fold")["instance"].nunique()
    assert (by_fold == 1).all()


def test_a_fit_stopped_before_its_first_solve_keeps_its_status_and_fallback_in_its_row():
    """brcg with its time limit spent before any solve records status, termination and fallback but no
    solve report: the row has them (it had an empty status)."""
    config = small_config(datasets=[{"name": "monk1"}], protocol={"kind": "kfold", "folds": 2, "seed": 0},
                          methods=[{"name": "brcg", "solver_options": {"time_limit": 1e-9}}])
    _, outcomes = execute(load_config(config), verbose=False)
    for outcome in outcomes:
        meta, row = outcome.ruleset.meta, outcome.row
        assert not meta.get("solve_reports") and meta["termination"] == "time_limit"
        assert row["status"] == meta["status"] == "feasible" and row["fallback"] == "start"
        assert row["bound"] is None and row["gap"] is None


def _certainty_rows(statuses, gaps, fallbacks):
    return pd.DataFrame({"dataset": "d", "method": "m", "exact": True, "f1": 0.5, "status": statuses,
                         "gap": gaps, "fallback": fallbacks})


@pytest.mark.parametrize(("statuses", "gaps", "fallbacks", "mark"), [
    (["optimal", "optimal"], [0.0, 0.0], [None, None], " ✓"),
    (["optimal", "feasible", "feasible", "optimal"], [0.0, 0.1, 0.15, 0.0], [None, None, "start", None],
     " ⏱2/4 12.5% ↩1"),
    (["feasible", "no_solution"], [None, None], ["start", "start"], " ⏱2/2 no bound ↩2"),
    (["feasible", "feasible", "optimal"], [0.2, None, 0.0], [None, None, None], " ⏱2/3 20.0% (1 no bound)"),
    (["optimal", "timeout"], [0.0, None], [None, None], " ✓"),  # a failed fit is counted by [k/n fits]
    # within HiGHS' gap tolerance: not proven, and its gap shown as it is, not as "0.0%"
    (["optimal", "optimal"], [0.0, 5e-5], [None, None], " ⏱1/2 0.005%"),
    # stopped at a limit with an incumbent its bound proves (gap 0): proven, as the legend says
    (["feasible", "optimal"], [0.0, 0.0], [None, None], " ✓"),
    (["feasible"], [0.0], ["start"], " ✓ ↩1"),  # a start its bound proves optimal; still said to be the start
])
def test_certainty_marks(statuses, gaps, fallbacks, mark):
    from optrules.experiments.report import certainty_mark

    assert certainty_mark(_certainty_rows(statuses, gaps, fallbacks)) == mark


def test_summary_cells_of_exact_methods_carry_their_mark_and_the_report_a_legend():
    exact = _certainty_rows(["optimal", "feasible"], [0.0, 0.3], [None, None])
    heuristic = exact.assign(method="h", exact=False, status=None, gap=None)
    results = pd.concat([exact, heuristic], ignore_index=True)
    table = summary_table(results, "f1")
    assert table.loc["d", "m"] == "**0.50 (0.00)** ⏱1/2 30.0%" and table.loc["d", "h"] == "**0.50 (0.00)**"
    report = markdown_report(results, ("f1",))
    assert "⏱k/n: k of n folds not proven optimal (stopped at a time, node or gap limit" in report
    assert "⏱k/n" not in markdown_report(heuristic, ("f1",))


def test_certified_distance_holds_a_heuristic_objective_against_the_exact_bound():
    from optrules.experiments.report import certified_table

    rows = [  # dataset, method, exact, fold, instance, objective, bound, status, fallback
        ("d", "greedy", False, 0, "A", 110.0, None, None, None),
        ("d", "ilp", True, 0, "A", 100.0, 100.0, "optimal", None),
        ("d", "greedy", False, 1, "B", 50.0, None, None, None),
        ("d", "ilp", True, 1, "B", 48.0, 40.0, "feasible", None),
        ("d", "greedy", False, 2, "C", 10.0, None, None, None),
        ("d", "ilp", True, 2, "D", 9.0, 9.0, "optimal", None),  # another instance: not paired
    ]
    results = pd.DataFrame(rows, columns=["dataset", "method", "exact", "fold", "instance", "objective", "bound",
                                          "status", "fallback"])
    table = certified_table(results)
    entry = table.loc[("d", "greedy", "ilp")]
    assert entry["folds"] == 2 and entry["proven"] == 1
    assert entry["mean"] == pytest.approx((10 / 110 + 10 / 50) / 2) and entry["largest"] == pytest.approx(0.2)
    report = markdown_report(results.assign(f1=0.5), ("f1",))
    assert "## Certified distance from optimal" in report and "| d | greedy | ilp | 2 | 14.55% | 20.00% | 1/2 |" in report


def test_a_run_reports_the_greedy_s_certified_distance_to_the_ilp(tmp_path):
    config = small_config(datasets=[{"name": "monk1"}], protocol={"kind": "kfold", "folds": 2, "seed": 0},
                          methods=[{"name": "setcover", "params": {"candidates": SMALL_CANDIDATES}},
                                   {"name": "setcover-greedy", "params": {"candidates": SMALL_CANDIDATES}}])
    results = run(config, out=tmp_path, verbose=False)
    from optrules.experiments.report import certified_table

    entry = certified_table(results).loc[("monk1", "setcover-greedy", "setcover")]
    assert entry["folds"] == 2 and entry["proven"] == 2  # small instances: the ILP proves its optimum
    exact = results[results["method"] == "setcover"].set_index("fold")
    greedy = results[results["method"] == "setcover-greedy"].set_index("fold")
    expected = ((greedy["objective"] - exact["bound"]) / greedy["objective"]).mean()
    assert entry["mean"] == pytest.approx(expected) and entry["mean"] >= 0
    written = pd.read_csv(tmp_path / "results.csv")
    assert {"status", "gap", "bound", "fallback", "build_seconds", "load_seconds", "solve_seconds"} <= set(written)
    assert "## Certified distance from optimal" in (tmp_path / "report.md").read_text()


def test_compare_says_when_a_fit_returned_its_warm_start():
    from optrules.experiments.compare import Comparison
    from optrules.ruleset import Ruleset

    ruleset = Ruleset("set", (), "no", ("a",), ("no", "yes"), positive="yes",
                      meta={"fallback": "start", "fallback_reason": "highs stopped (time_limit) with no incumbent "
                                                                    "better than the greedy start, which is returned"})
    results = pd.DataFrame([{"method": "setcover", "exact": True, "n_train": 10, "n_test": 5, "f1": 0.5,
                             "accuracy": 0.6, "balanced_accuracy": 0.55, "n_rules": 0, "avg_atoms": 0.0,
                             "fit_seconds": 1.0, "solver": "highs", "status": "feasible", "objective": 7.0,
                             "bound": 5.0, "gap": 2 / 7, "fallback": "start"}])
    text = str(Comparison("d", "yes", 0, results, {"setcover": ruleset}))
    assert re.search(r"^setcover\s+exact .* highs\s+feasible\*\s+7\s+5\s+28\.6%$", text, re.M)
    assert "* setcover: highs stopped (time_limit) with no incumbent better than the greedy start" in text


def test_exact_summary_of_a_fit():
    from optrules.experiments.report import exact_summary

    meta = {"status": "feasible", "termination": "node_limit", "objective": 12.5, "best_bound": 10.0, "gap": 0.2,
            "fallback": "start", "fallback_reason": "nothing better", "time_limit": 30.0, "exact_seconds": 4.0,
            "build_seconds": 1.0, "load_seconds": 0.5, "cut_seconds": 1.5, "solve_seconds": 1.0, "fit_seconds": 9.0}
    assert exact_summary(meta) == (
        "exact part: status feasible (node_limit), objective 12.5, best bound 10, gap 20.00%\n"
        "fallback: start: nothing better\n"
        "seconds: 4.00 in the exact part (time limit 30); build 1.00, load 0.50, cut 1.50, solve 1.00")
    assert exact_summary({"objective": 3.0}) == ""


def test_a_grid_searches_option_keys_declared_or_free_form_and_checks_each_value():
    """``candidates__max_len`` is a declared option key; ``solver_options__mip_rel_gap`` a key the solver
    judges: both are grid parameters, and the chosen one reaches the outer fit's estimator."""
    config = load_config(small_config(
        datasets=[{"name": "monk1"}], protocol={"kind": "kfold", "folds": 2, "seed": 0},
        methods=[{"name": "setcover", "params": {"candidates": {"max_candidates": 30}},
                  "tune": {"grid": {"candidates__max_len": [1, 2], "solver_options__mip_rel_gap": [0.0, 0.5]},
                           "inner_folds": 2}}]))
    assert config.methods[0].tune.parameters == ("candidates__max_len", "solver_options__mip_rel_gap")
    _, outcomes = execute(config, verbose=False)
    for outcome in outcomes:
        chosen = outcome.row["tune.candidates__max_len"]
        assert chosen in (1, 2) and outcome.row["tune.solver_options__mip_rel_gap"] in (0.0, 0.5)
        assert max((len(rule.conditions) for rule in outcome.ruleset.rules), default=0) <= chosen
    with pytest.raises(ConfigError, match=r"tune: grid candidates__max_len = 'x': .*max_len"):
        load_config(tune_error_config({"grid": {"candidates__max_len": [1, "x"]}}, "setcover", None))
    with pytest.raises(ConfigError, match=r"unknown parameter\(s\) \['candidate__max_len'\]"):
        load_config(tune_error_config({"grid": {"candidate__max_len": [1]}}, "setcover", None))


def test_progress_off_a_terminal_is_one_line_per_fit(capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    config = {"datasets": [{"name": "monk1"}], "protocol": {"kind": "kfold", "folds": 2, "seed": 0},
              "methods": [{"name": "setcover-greedy"}]}
    results = run(config)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert len(lines) == len(results) == 2
    assert re.fullmatch(r"\[[12]/2\] monk1 setcover-greedy fold [01]: \w+, F1 [\d.]+, [\d.]+ s", lines[0])
    run(config, verbose=False)
    assert not [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]


def test_a_method_s_own_positive_is_still_scored_on_the_dataset_s_positive_class():
    """A method with params.positive learns that class; its F1 column used to be that class's F1,
    beside baselines and methods scored on the dataset's positive class. Now every row is scored on
    the dataset's: the F1 of the predictions for it, recomputed here from the predictions."""
    from sklearn.metrics import f1_score

    config = load_config(small_config(datasets=[{"name": "monk1", "positive": "1"}],
                                      methods=[{"name": "setcover-greedy", "params": {"positive": "0"}}]))
    rows = run(config, verbose=False)
    tasks = _tasks(config, config.datasets[0], *config.datasets[0].load())
    assert len(tasks) == len(rows)
    for task, row in zip(tasks, rows.itertuples()):
        predicted = task.estimator.fit(task.X_train, task.y_train).predict(task.X_test)
        assert task.positive == "1" and task.estimator.positive == "0"
        assert row.f1 == pytest.approx(f1_score(task.y_test == "1", predicted == "1"))


def test_accuracies_over_all_classes_are_marked_beside_one_vs_rest_ones(tmp_path):
    """On car_evaluation (4 classes) a decision list's accuracy is over all the classes, a rule set's
    positive against the rest: the column says which, and the report marks the list's cells."""
    config = small_config(datasets=[{"name": "car_evaluation", "positive": "good"}],
                          methods=[{"name": "setcover-greedy"}, {"name": "prepend"}])
    rows = run(config, out=tmp_path, verbose=False)
    by_method = rows.groupby("method")["all_classes"].agg(set)
    assert by_method["prepend"] == {True} and by_method["setcover-greedy"] == {False}
    report = (tmp_path / "report.md").read_text()
    accuracy = report.split("## Accuracy")[1].split("##")[0]
    line = next(row for row in accuracy.splitlines() if row.startswith("| car_evaluation"))
    cells = line.split("|")[2:4]
    assert "(all classes)" not in cells[0] and "(all classes)" in cells[1]
    f1 = report.split("## F1-score of the positive class")[1].split("##")[0]
    assert "(all classes)" not in f1
    # the list's size is that of a list over all the classes too (it was unmarked there; review)
    rules = report.split("## #rules")[1].split("##")[0]
    cells = next(row for row in rules.splitlines() if row.startswith("| car_evaluation")).split("|")[2:4]
    assert "(all classes)" not in cells[0] and "(all classes)" in cells[1]


def test_a_positive_class_given_as_a_number_names_a_label_read_as_text():
    """monk3's labels are '0' and '1': positive = 1 (a TOML integer, a --param) was an error for a
    bundled dataset and for a method, though a CSV took it. It names the label '1' everywhere."""
    as_text = run(small_config(datasets=[{"name": "monk3", "positive": "1"}]), verbose=False)
    as_number = run(small_config(datasets=[{"name": "monk3", "positive": 1}]), verbose=False)
    pd.testing.assert_frame_equal(without_timing(as_number), without_timing(as_text))
    X, y = optrules.load("monk3")
    assert optrules.fit(X, y, method="setcover-greedy", positive=1).positive == "1"
    with pytest.raises(ConfigError, match="positive class 2 is not a label"):
        run(small_config(datasets=[{"name": "monk3", "positive": 2}]), verbose=False)


def test_a_csv_dataset_s_errors_name_its_entry(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a,class\n1,x\n2,y\n3,x\n4,y\n5,x\n6,y\n")
    with pytest.raises(ConfigError, match=r"datasets\[0\] \('data'\): label column 'outcome' not found"):
        run(small_config(datasets=[{"path": str(path), "label": "outcome"}]), verbose=False)


def test_a_csv_dataset_s_errors_name_the_configuration_file_too(tmp_path):
    """Errors found while reading a dataset named its entry but not the file (review): as every other
    configuration error, they now name both."""
    (tmp_path / "data.csv").write_text("a,class\n1,x\n2,y\n3,x\n4,y\n5,x\n6,y\n")
    config = tmp_path / "exp.toml"
    config.write_text('[[datasets]]\npath = "data.csv"\npositive = "z"\n\n[[methods]]\nname = "setcover-greedy"\n')
    with pytest.raises(ConfigError, match=r"exp\.toml: datasets\[0\] \('data'\): .*'z'"):
        run(config, out=tmp_path / "out", verbose=False)


def test_a_csv_dataset_s_missing_markers_are_read_as_missing_and_checked(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a,class\n" + "".join(f"{'NA' if i % 4 == 0 else i},{'xy'[i % 2]}\n" for i in range(12)))
    spec = load_config(small_config(datasets=[{"path": str(path), "missing": ["NA"]}])).datasets[0]
    X, _ = spec.load()
    assert X["a"].dtype == np.float64 and int(X["a"].isna().sum()) == 3
    assert spec.to_dict()["missing"] == ["NA"]  # kept in config.json and in the resume log's setup
    with pytest.raises(ConfigError, match=r"missing must be a list of strings"):
        load_config(small_config(datasets=[{"path": str(path), "missing": "NA"}]))


def test_the_positive_class_of_every_dataset_is_named_and_a_tie_for_the_minority_is_said(tmp_path):
    path = tmp_path / "three.csv"
    rows = [f"{i % 7},{'abc'[i % 3]}" for i in range(30)]  # 10 rows of each class: a three-way tie
    path.write_text("x,class\n" + "\n".join(rows) + "\n")
    config = small_config(datasets=[{"path": str(path)}, {"name": "monk1"}],
                          methods=[{"name": "setcover-greedy", "params": {"candidates": SMALL_CANDIDATES}}])
    with pytest.warns(UserWarning, match=r"dataset 'three': classes \['a', 'b', 'c'\] tie for the fewest rows "
                                         r"\(10\); the positive class \(the F1 score's\) is 'c'"):
        results = run(config, out=tmp_path / "out", verbose=False)
    assert results.attrs["positive"] == {"three": "c", "monk1": "1"}
    report = (tmp_path / "out" / "report.md").read_text()
    assert "Positive class of each dataset (every F1 is of it, one class against the rest): three: 'c', monk1: '1'." \
        in report


@pytest.mark.parametrize(("params", "message"), [
    ({"categorical": ["petal_width"]}, r"method 'libre' on dataset 'monk1': categorical column 'petal_width' is not a "
                                       r"feature of X; features: \['a1'"),
    ({"positive": "versicolor"}, r"method 'libre' on dataset 'monk1': positive class 'versicolor' is not a label"),
])
def test_a_method_parameter_that_does_not_fit_the_data_stops_the_run_before_any_fit(tmp_path, params, message):
    config = small_config(datasets=[{"name": "monk1"}],
                          methods=[{"name": "setcover-greedy", "params": {"candidates": SMALL_CANDIDATES}},
                                   {"name": "libre", "params": params}])
    with pytest.raises(ConfigError, match=message):
        run(config, out=tmp_path, verbose=False)
    assert not (tmp_path / "results.jsonl").exists()  # no fit ran, the first method's neither


def test_a_meta_key_no_fit_recorded_is_warned_about():
    config = small_config(datasets=[{"name": "monk1"}],
                          methods=[{"name": "setcover-greedy", "params": {"candidates": SMALL_CANDIDATES},
                                    "meta": ["n_candidatez", "n_candidates"]}])
    with pytest.warns(UserWarning, match=r"method 'setcover-greedy': no fit recorded meta key\(s\) \['n_candidatez'\]"):
        results = run(config, verbose=False)
    assert results["meta.n_candidatez"].isna().all() and results["meta.n_candidates"].notna().all()


def test_a_configuration_with_a_byte_order_mark_reads_and_a_directory_is_named(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes("\ufeff".encode() + b'[[datasets]]\nname = "monk1"\n[[methods]]\nname = "setcover-greedy"\n')
    assert load_config(path).datasets[0].name == "monk1"
    with pytest.raises(ConfigError, match=r"is a directory: give the configuration file"):
        load_config(tmp_path)


def test_libre_with_ilp_selection_is_an_exact_method_paired_with_its_greedy_self():
    """The registry called every libre fit heuristic: an ILP selection stopped at a limit had no mark,
    and the certified-distance table never held LIBRE's greedy selection against its ILP's bound."""
    config = small_config(datasets=[{"name": "monk1"}], protocol={"kind": "kfold", "folds": 2, "seed": 0},
                          methods=[{"name": "libre", "label": "libre-greedy", "params": {"n_estimators": 2}},
                                   {"name": "libre", "label": "libre-ilp",
                                    "params": {"n_estimators": 2, "selection": "ilp"}}])
    loaded = load_config(config)
    assert [m.exact for m in loaded.methods] == [False, True]
    assert ("libre-ilp", "libre-greedy") in loaded.wilcoxon_pairs
    results = run(config, verbose=False)
    assert results.groupby("method")["exact"].all().to_dict() == {"libre-greedy": False, "libre-ilp": True}
    from optrules.experiments.report import markdown_report

    report = markdown_report(results)
    assert "Certified distance from optimal" in report and "libre-greedy" in report.split("Certified distance")[1]
