"""Resuming an experiment from its log of finished rows (out/results.jsonl)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import optrules
from optrules.cli import main
from optrules.experiments import TIMING_COLUMNS, ConfigError, run
from optrules.experiments.resume import LOG_NAME

CANDIDATES = {"max_len": 2, "max_candidates": 30}


def config(datasets=("monk1", "haberman"), **overrides) -> dict:
    experiment = {
        "title": "resume",
        "protocol": {"kind": "kfold", "folds": 2, "seed": 4},
        "datasets": [{"name": name} for name in datasets],
        "methods": [{"name": "setcover-greedy", "params": {"candidates": CANDIDATES}},
                    {"name": "libre", "params": {"n_estimators": 2, "max_features": 2}},
                    {"name": "setcover", "solver": "highs", "params": {"candidates": CANDIDATES}}],
        "meta": ["n_candidates"],
    }
    experiment.update(overrides)
    return experiment


def log_lines(directory) -> list[dict]:
    return [json.loads(line) for line in (directory / LOG_NAME).read_text().splitlines()]


def test_a_resumed_run_fits_only_the_missing_tasks_and_returns_the_whole_table(tmp_path):
    complete = run(config(), verbose=False)
    # an interrupted run: it finished monk1 only
    run(config(datasets=("monk1",)), out=tmp_path, verbose=False)
    finished = log_lines(tmp_path)
    assert [(line["dataset"], line["method"], line["fold"]) for line in finished] == [
        ("monk1", method, fold) for method in ("setcover-greedy", "libre", "setcover") for fold in (0, 1)]
    # mark the logged rows: a resumed run must take them as they are, not fit them again
    for line in finished:
        line["row"]["fit_seconds"] = -1.0
    (tmp_path / LOG_NAME).write_text("".join(json.dumps(line) + "\n" for line in finished))

    resumed = run(config(), out=tmp_path, resume=True, verbose=False)
    from_log = resumed["dataset"] == "monk1"
    assert (resumed.loc[from_log, "fit_seconds"] == -1.0).all()
    assert (resumed.loc[~from_log, "fit_seconds"] > 0).all()
    pd.testing.assert_frame_equal(resumed.drop(columns=list(TIMING_COLUMNS)),
                                  complete.drop(columns=list(TIMING_COLUMNS)))
    assert len(log_lines(tmp_path)) == len(complete)  # the log now holds every task once
    written = pd.read_csv(tmp_path / "results.csv")
    assert len(written) == len(complete) and list(written["dataset"].unique()) == ["monk1", "haberman"]
    # nothing left to fit: the same table again, straight from the log
    again = run(config(), out=tmp_path, resume=True, verbose=False)
    pd.testing.assert_frame_equal(again, resumed)


def test_a_changed_configuration_is_refused_and_a_cut_last_line_is_fitted_again(tmp_path):
    run(config(datasets=("monk1",)), out=tmp_path, verbose=False)
    changed = config(datasets=("monk1",))
    changed["methods"][1]["params"]["n_estimators"] = 3
    with pytest.raises(ConfigError, match=(
            r"cannot resume from .*results\.jsonl: libre on monk1, fold 0 was run with another configuration "
            r"\(method\.params\.n_estimators: 2 in the log, 3 now\); run into another output directory")):
        run(changed, out=tmp_path, resume=True, verbose=False)
    with pytest.raises(ConfigError, match=r"protocol\.seed: 4 in the log, 5 now"):
        run(config(datasets=("monk1",), protocol={"kind": "kfold", "folds": 2, "seed": 5}), out=tmp_path,
            resume=True, verbose=False)
    # isolation and the number of jobs do not change a row: resuming with them is fine
    same = config(datasets=("monk1",), parallel={"isolate": True})
    text = (tmp_path / LOG_NAME).read_text()
    (tmp_path / LOG_NAME).write_text(text[:-40])  # the run was killed while writing its last line
    with pytest.warns(UserWarning, match=r"line 6 is incomplete and is ignored"):
        resumed = run(same, out=tmp_path, resume=True, verbose=False)
    assert len(resumed) == 6 and resumed["f1"].notna().all()
    # the cut line is gone, not prefixed to the refitted row: a second resume reads every line
    assert len(log_lines(tmp_path)) == 6
    again = run(same, out=tmp_path, resume=True, verbose=False)
    pd.testing.assert_frame_equal(again.drop(columns=["fit_seconds"]), resumed.drop(columns=["fit_seconds"]))
    # without resume the log starts over
    run(config(datasets=("haberman",)), out=tmp_path, verbose=False)
    assert {line["dataset"] for line in log_lines(tmp_path)} == {"haberman"}


def test_a_csv_dataset_is_known_by_its_name_and_content_not_its_directory(tmp_path):
    X, y = optrules.load("monk1")
    frame = X.assign(target=y)
    for folder in ("here", "there"):
        (tmp_path / folder).mkdir()
        frame.to_csv(tmp_path / folder / "monks.csv", index=False)

    def experiment(folder: str) -> dict:
        return {**config(), "datasets": [{"path": str(tmp_path / folder / "monks.csv"), "label": "target"}],
                "methods": config()["methods"][:1]}

    first = run(experiment("here"), out=tmp_path / "out", verbose=False)
    moved = run(experiment("there"), out=tmp_path / "out", resume=True, verbose=False)  # from the log
    pd.testing.assert_frame_equal(moved, first)
    frame.iloc[::-1].to_csv(tmp_path / "there" / "monks.csv", index=False)  # edited: the rows reversed
    with pytest.raises(ConfigError, match=r"monks, fold 0 was run with another configuration \(dataset\.sha256: "):
        run(experiment("there"), out=tmp_path / "out", resume=True, verbose=False)


def test_resume_needs_an_output_directory_and_the_cli_flag_resumes(tmp_path, capsys):
    with pytest.raises(ConfigError, match=r"resume needs the output directory"):
        run(config(), resume=True, verbose=False)
    path = tmp_path / "exp.toml"
    path.write_text('[protocol]\nfolds = 2\n\n[[datasets]]\nname = "monk1"\n\n'
                    '[[methods]]\nname = "setcover-greedy"\nparams = { candidates = { max_len = 2 } }\n')
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    before = (out / LOG_NAME).read_text()
    assert main(["run", str(path), "--out", str(out), "--quiet", "--resume"]) == 0
    assert (out / LOG_NAME).read_text() == before  # nothing fitted again
    assert capsys.readouterr().out.count("2 fits;") == 2


def test_a_tuned_method_resumes_with_its_tune_columns_and_refits_isolated(tmp_path):
    tuned = {"name": "bottom-up", "params": {"max_rules": 4},
             "tune": {"grid": {"chi2_threshold": [4.6, 6.0]}, "inner_folds": 2, "select": "best"}}
    experiment = config(datasets=("haberman",), methods=[config()["methods"][0], tuned])
    complete = run(experiment, out=tmp_path, verbose=False)
    assert complete["tune.chi2_threshold"].notna().sum() == 2
    lines = (tmp_path / LOG_NAME).read_text().splitlines(keepends=True)
    last = json.loads(lines[-1])
    assert last["method"] == "bottom-up" and "tune.chi2_threshold" in last["row"]
    (tmp_path / LOG_NAME).write_text("".join(lines[:-1]))  # the last tuned fit is lost
    # resumed with isolation on: the lost task is tuned again and its chosen fit runs in a child process
    resumed = run({**experiment, "parallel": {"isolate": True}}, out=tmp_path, resume=True, verbose=False)
    pd.testing.assert_frame_equal(resumed.drop(columns=list(TIMING_COLUMNS)),
                                  complete.drop(columns=list(TIMING_COLUMNS)))


def test_a_run_that_stops_before_any_fit_leaves_the_earlier_log_and_a_new_run_its_own_plots_only(tmp_path):
    small = config(datasets=("monk1",), methods=[{"name": "setcover-greedy", "params": {"candidates": CANDIDATES}}])
    run(small, out=tmp_path, verbose=False)
    logged = (tmp_path / LOG_NAME).read_text()
    assert logged.count("\n") == 2
    # a mistake found when the data is loaded (a label that is no column): no fit ran, the log stays
    with pytest.raises(ConfigError, match="nosuchlabel"):
        run({**small, "datasets": [{"name": "monk1"}, {"path": str(tmp_path / "results.csv"), "label": "nosuchlabel"}]},
            out=tmp_path, verbose=False)
    assert (tmp_path / LOG_NAME).read_text() == logged
    # a plot an earlier run wrote for a dataset this run does not have is gone after it
    stale = tmp_path / "f1_vs_size_an_earlier_dataset.png"
    stale.write_bytes(b"not a plot of this run")
    run(small, out=tmp_path, verbose=False)
    assert not stale.exists() and (tmp_path / LOG_NAME).read_text().count("\n") == 2


def test_every_fit_s_rules_are_kept_beside_its_row_and_start_over_with_the_log(tmp_path):
    from optrules.experiments.resume import RULES_DIR, rules_path

    small = config(datasets=("monk1",), methods=[{"name": "setcover-greedy", "params": {"candidates": CANDIDATES}},
                                                 {"name": "setcover", "params": {"candidates": CANDIDATES}}])
    from sklearn.metrics import f1_score

    from optrules.experiments import load_config
    from optrules.experiments.run import dataset_splits

    results = run(small, out=tmp_path, verbose=False)
    X, y = optrules.load("monk1")
    splits = dataset_splits(load_config(small), load_config(small).datasets[0], y)
    for row in results.itertuples(index=False):
        ruleset = optrules.Ruleset.from_json(rules_path(tmp_path, (row.dataset, row.method, row.fold)).read_text())
        assert ruleset.n_rules == row.n_rules
        # the saved rules are those that were scored: their test F1 is the row's
        test = splits[row.fold][1]
        predicted = ruleset.predict(X.iloc[test])
        assert f1_score(y.iloc[test], predicted, pos_label=ruleset.positive) == pytest.approx(row.f1)
    # a new run (not resumed) into the directory starts the rules over with the log
    stale = tmp_path / RULES_DIR / "an_earlier_dataset" / "setcover" / "fold-0.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    run(small, out=tmp_path, verbose=False)
    assert not stale.exists() and rules_path(tmp_path, ("monk1", "setcover", 1)).is_file()


def test_a_resumed_run_says_when_the_directory_holds_fits_of_tasks_it_does_not_report(tmp_path):
    """A method renamed between a run and its resume left the old name's rules beside the table's,
    silently (review); they stay (a later resume with the old name takes them back, with their rules),
    and the run says so."""
    from optrules.experiments.resume import rules_path

    greedy = {"name": "setcover-greedy", "params": {"candidates": CANDIDATES}}
    first = config(datasets=("monk1",), methods=[{**greedy, "label": "greedy"}])
    renamed = config(datasets=("monk1",), methods=[{**greedy, "label": "greedy G"}])
    run(first, out=tmp_path, verbose=False)
    with pytest.warns(UserWarning, match=r"2 logged fit\(s\) of tasks not in this configuration \(methods "
                                         r"\['greedy'\] on datasets \['monk1'\]\) stay in results.jsonl and rules/"):
        run(renamed, out=tmp_path, resume=True, verbose=False)
    back = run(first, out=tmp_path, resume=True, verbose=False)  # from the log, with the rules it saved
    assert all(rules_path(tmp_path, (r.dataset, r.method, r.fold)).is_file() for r in back.itertuples())
    assert len(log_lines(tmp_path)) == 4
