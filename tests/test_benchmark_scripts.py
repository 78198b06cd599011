"""The paper scripts (benchmarks/*_paper.py) on a CSV of their own: the shared dataset helper
(benchmarks/paper_data.py), --positive and --jobs, one results file per dataset, and a rerun that
reads it instead of fitting again. Tiny data and the cheapest settings: smoke runs, no timings."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"


def load_script(name: str):
    """A module of benchmarks/ loaded from its file (the scripts put benchmarks/ on sys.path for their
    helpers); sys.path and sys.modules are restored by the fixture."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def scripts():
    path, modules = list(sys.path), set(sys.modules)
    sys.path.insert(0, str(BENCHMARKS))
    yield load_script
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        if name in ("paper_data", "machine", "acceptance", "libre_selection", "set_cover") or name.endswith("_paper"):
            del sys.modules[name]


def write_nominal(directory: Path, name: str = "toy", n_rows: int = 60, manifest: dict | None = None) -> Path:
    """A nominal dataset whose class is (a = x or b = p): "yes", else "no" (about a third)."""
    rng = np.random.default_rng(0)
    a, b = rng.choice(["x", "y", "z"], n_rows), rng.choice(["p", "q"], n_rows)
    path = directory / f"{name}.csv"
    pd.DataFrame({"a": a, "b": b, "class": np.where((a == "x") | (b == "p"), "yes", "no")}).to_csv(path, index=False)
    (directory / "manifest.json").write_text(json.dumps([{"file": path.name, **(manifest or {})}]))
    return path


def write_mixed(directory: Path, name: str = "mixed", n_rows: int = 80) -> Path:
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, n_rows)
    path = directory / f"{name}.csv"
    pd.DataFrame({"x": x, "colour": rng.choice(["red", "blue"], n_rows),
                  "class": np.where(x > 6, "pos", "neg")}).to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------------------------
# benchmarks/paper_data.py
# --------------------------------------------------------------------------------------------


def test_positive_is_one_value_for_every_dataset_or_pairs_by_name(scripts):
    data = scripts("paper_data")
    assert data.parse_positive(None) == {}
    every = data.parse_positive(["yes"])
    assert data.positive_of(every, "toy") == "yes" and data.positive_of(every, "other") == "yes"
    pairs = data.parse_positive(["toy=yes", "other=a=b"])  # a value may contain "="
    assert data.positive_of(pairs, "toy") == "yes" and data.positive_of(pairs, "other") == "a=b"
    assert data.positive_of(pairs, "third") is None
    for wrong in (["yes", "toy=no"], ["yes", "no"]):
        with pytest.raises(SystemExit, match="one VALUE"):
            data.parse_positive(wrong)
    with pytest.raises(SystemExit, match="typo is not a dataset of this run"):
        data.check_positive(data.parse_positive(["typo=yes"]), ["toy"])
    data.check_positive(every, ["toy"])


def test_a_csv_is_found_by_path_or_name_with_its_manifest_entry(scripts, tmp_path):
    data = scripts("paper_data")
    write_nominal(tmp_path, manifest={"positive_class": "no", "categorical": ["a"], "train_size": 40})
    for spec, directory in ((str(tmp_path / "toy.csv"), None), ("toy", tmp_path), ("toy.csv", tmp_path)):
        entry, manifest, from_dir = data.csv_dataset(spec, directory)
        assert entry == {"name": "toy", "path": str((tmp_path / "toy.csv").resolve()), "label": "class",
                         "categorical": ["a"], "positive": "no"}
        assert manifest["train_size"] == 40 and from_dir == (directory is not None)
    (tmp_path / "manifest.json").write_text(json.dumps({"toy": {"label": "class", "positive_class": "yes"}}))
    assert data.csv_dataset("toy", tmp_path)[0]["positive"] == "yes"  # a dict keyed by name
    with pytest.raises(SystemExit, match=r"neither a bundled dataset.*looked for .*nosuch"):
        data.csv_dataset("nosuch", tmp_path)


def test_a_bundled_name_is_the_bundled_dataset_unless_data_dir_holds_another_file_so_named(scripts, tmp_path):
    import shutil
    from importlib import resources

    import optrules

    data = scripts("paper_data")
    assert data.is_bundled("haberman", None) and data.is_bundled("haberman", tmp_path)
    assert not data.is_bundled("toy", tmp_path)
    file_name = optrules.datasets.info("haberman")["file"]
    bundled = Path(str(resources.files("optrules.datasets").joinpath("data", file_name)))
    shutil.copyfile(bundled, tmp_path / bundled.name)  # a copy, as ../shared/data holds: the bundled dataset
    assert data.is_bundled("haberman", tmp_path)
    write_nominal(tmp_path, name="haberman")  # another dataset under the same name: never chosen silently
    with pytest.raises(SystemExit, match=r"'haberman' is both a bundled dataset and the file .*haberman\.csv"):
        data.is_bundled("haberman", tmp_path)


def test_results_are_read_back_only_with_the_same_settings_and_without_rerun(scripts, tmp_path):
    data = scripts("paper_data")
    settings = {"splits": (0, 1), "positive": "yes"}
    results = {"rows": [{"n": np.int64(3), "f1": np.float64(0.5), "missing": float("nan")}]}
    data.save(tmp_path, "toy", settings, results)
    back = data.done(tmp_path, "toy", settings, rerun=False)
    assert back["rows"][0]["n"] == 3 and isinstance(back["rows"][0]["n"], int)
    assert back["rows"][0]["f1"] == 0.5 and np.isnan(back["rows"][0]["missing"])
    assert data.done(tmp_path, "toy", settings, rerun=True) is None
    assert data.done(tmp_path, "toy", {**settings, "positive": "no"}, rerun=False) is None
    assert data.done(tmp_path, "other", settings, rerun=False) is None
    assert not list(tmp_path.glob("*.partial"))


# --------------------------------------------------------------------------------------------
# each script: a smoke run, then a rerun that reads the dataset back
# --------------------------------------------------------------------------------------------


def refuse_fits(module, monkeypatch) -> None:
    def no_fit(*args, **kwargs):
        raise AssertionError("a rerun fitted a dataset it had already written")

    monkeypatch.setattr(module, "run", no_fit)


def test_libre_paper_on_a_csv_writes_it_at_once_and_a_rerun_reads_it(scripts, tmp_path, monkeypatch, capsys):
    bench = scripts("libre_paper")
    path = write_mixed(tmp_path)
    out = tmp_path / "libre.md"
    argv = ["--quick", "--datasets", str(path), "--jobs", "1", "--positive", "neg", "--out", str(out)]
    assert bench.main(argv) == 0
    written = tmp_path / "libre_runs" / "mixed.json"
    assert written.is_file()
    report = out.read_text()
    assert "positive class 'neg'" in report and "--positive neg" in report and "--jobs 1" in report
    rows = [line for line in report.splitlines() if line.startswith("| mixed |")]
    capsys.readouterr()
    refuse_fits(bench, monkeypatch)
    assert bench.main(argv) == 0
    assert "mixed: done earlier" in capsys.readouterr().out
    assert [line for line in out.read_text().splitlines() if line.startswith("| mixed |")] == rows
    with pytest.raises(AssertionError, match="already written"):  # --rerun fits again
        bench.main([*argv, "--rerun"])
    with pytest.raises(SystemExit):
        bench.parse_args(["--n-jobs", "1"])  # one spelling: --jobs


def test_libre_paper_resumes_a_dataset_from_its_logged_fits(scripts, tmp_path, monkeypatch):
    """A run stopped inside a dataset (no <dataset>.json yet) keeps the fits it finished: every seed's
    fits are logged, and the next run takes them from the log instead of fitting again."""
    bench = scripts("libre_paper")
    path = write_mixed(tmp_path)
    out = tmp_path / "libre.md"
    argv = ["--quick", "--datasets", str(path), "--jobs", "1", "--positive", "neg", "--seeds", "0", "1",
            "--out", str(out)]
    assert bench.main(argv) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| mixed |")]
    fits = tmp_path / "libre_runs" / "mixed.fits"
    logged = {seed: (fits / f"seed-{seed}" / "results.jsonl").read_text().splitlines() for seed in (0, 1)}
    assert all(len(lines) == 10 for lines in logged.values())  # libre and libre 3 on 5 outer folds
    (tmp_path / "libre_runs" / "mixed.json").unlink()  # as if stopped before the dataset was written

    def no_fit(*args, **kwargs):
        raise AssertionError("a resumed run fitted again")

    monkeypatch.setattr(bench.LibreClassifier, "fit", no_fit)
    assert bench.main(argv) == 0
    report = out.read_text()
    assert [line for line in report.splitlines() if line.startswith("| mixed |")] == rows
    assert "the 20 of 20 fits read back from an earlier, stopped run not counted" in report  # its seconds say so


def test_prepend_paper_on_a_csv_takes_the_manifests_types_and_resumes(scripts, tmp_path, monkeypatch, capsys):
    bench = scripts("prepend_paper")
    write_nominal(tmp_path, manifest={"categorical": ["a", "b"]})
    out = tmp_path / "prepend.md"
    argv = ["--datasets", "toy", "--data-dir", str(tmp_path), "--repetitions", "2", "--max-nodes", "1000",
            "--variants", "append", "--jobs", "1", "--positive", "toy=no", "--out", str(out)]
    args = argparse_of(bench, argv)
    entry = bench.experiment(args)["datasets"][0]
    assert entry["categorical"] == ["a", "b"] and entry["positive"] == "no" and entry["label"] == "class"
    assert bench.experiment(argparse_of(bench, ["--datasets", "toy", "monk1", "mushroom", "--data-dir", str(tmp_path)]))["datasets"][1:] == [
        {"name": "monk1"}, {"name": "mushroom"}]  # the configuration's entries
    assert bench.dataset_entry("adult", [], None) == {"name": "adult"}  # any bundled dataset
    assert bench.main(argv) == 0
    stored = json.loads((tmp_path / "prepend_runs" / "toy.json").read_text())
    records = stored["results"]["records"]
    assert {r["variant"] for r in records} == {"prepend-ip2", "append"} and len(records) == 4
    assert all(0.0 <= r["accuracy"] <= 100.0 for r in records)
    report = out.read_text()
    assert "| toy | prepend-ip2 |" in report and "no dataset of this run has paper values" in report
    capsys.readouterr()
    refuse_fits(bench, monkeypatch)
    assert bench.main(argv) == 0
    assert "toy: done earlier" in capsys.readouterr().out
    assert out.read_text().split("Total run time")[1] == report.split("Total run time")[1]


def argparse_of(bench, argv: list[str]):
    """The namespace prepend_paper.main builds from ``argv`` (its parser, run up to the fits)."""
    seen = {}

    def capture(args):
        seen["args"] = args
        raise SystemExit(0)

    original = bench.experiment
    bench.experiment = capture
    try:
        with pytest.raises(SystemExit):
            bench.main(argv)
    finally:
        bench.experiment = original
    return seen["args"]


def test_clsvm_paper_needs_a_training_size_from_the_manifest(scripts, tmp_path):
    bench = scripts("clsvm_paper")
    write_nominal(tmp_path)
    with pytest.raises(SystemExit, match=r"'toy' has no training size.*\"train_size\".*manifest.json"):
        bench.main(["--datasets", "toy", "--data-dir", str(tmp_path), "--runs", str(tmp_path / "runs")])
    with pytest.raises(SystemExit, match=r"'monk1' is bundled but not a dataset of Table 1.*\"train_size\""):
        bench.main(["--datasets", "monk1", "--runs", str(tmp_path / "runs")])
    assert bench.dataset_entry("german", tmp_path, None) == {"name": "german", "positive": "good",
                                                             "train_size": 700}


def test_clsvm_paper_on_a_csv_resumes_from_the_runners_log(scripts, tmp_path, capsys):
    bench = scripts("clsvm_paper")
    write_nominal(tmp_path, manifest={"train_size": 40, "categorical": ["a", "b"]})
    runs, out = tmp_path / "runs", tmp_path / "clsvm.md"
    argv = ["--datasets", "toy", "--data-dir", str(tmp_path), "--splits", "2", "--strategies", "svm-o",
            "--seeds", "0", "1", "--jobs", "1", "--positive", "no", "--runs", str(runs), "--out", str(out)]
    bench.main(argv)
    logs = [runs / "toy" / f"seed-{seed}" / "results.jsonl" for seed in (0, 1)]
    assert all(log.is_file() and len(log.read_text().splitlines()) == 2 for log in logs)
    config = json.loads((runs / "toy" / "seed-1" / "config.json").read_text())
    assert config["datasets"][0]["positive"] == "no" and config["datasets"][0]["train_size"] == 40
    assert config["methods"][0]["params"]["random_state"] == 1  # C="cv" draws the inner folds from it
    results = pd.read_csv(runs / "toy" / "seed-1" / "results.csv")
    assert len(results) == 2 and (results["n_train"] == 40).all() and (results["n_test"] == 20).all()
    assert "| toy | svm-o | 2 | 2 |" in out.read_text()  # 2 seeds, 2 splits
    before = [log.read_text() for log in logs]
    capsys.readouterr()
    bench.main(argv)
    assert "resumed from" in capsys.readouterr().out
    assert [log.read_text() for log in logs] == before  # no fit appended: every row came from the logs


def test_brcg_paper_on_a_csv_prints_each_fold_and_resumes(scripts, tmp_path, monkeypatch, capsys):
    bench = scripts("brcg_paper")
    write_nominal(tmp_path)
    out = tmp_path / "brcg.md"
    argv = ["--datasets", "toy", "--data-dir", str(tmp_path), "--methods", "brcg-beam", "--time-limit", "5",
            "--positive", "no", "--out", str(out)]
    bench.main(argv)
    printed = capsys.readouterr().out
    assert all(f"toy brcg-beam fold {k}/5" in printed for k in range(1, 6))
    stored = json.loads((tmp_path / "brcg_runs" / "toy.json").read_text())
    assert stored["settings"]["positive"] == "no" and stored["results"][0]["dataset"] == "toy"
    report = out.read_text()
    refuse_fits(bench, monkeypatch)
    bench.main(argv)
    assert "toy: done earlier" in capsys.readouterr().out
    assert out.read_text().split("Machine:")[0] == report.split("Machine:")[0]


# --------------------------------------------------------------------------------------------
# the same figures by CSV as by name
# --------------------------------------------------------------------------------------------


def write_bundled(directory: Path, bundled: str, name: str, **manifest) -> Path:
    """Bundled dataset ``bundled`` as ``directory/name.csv`` with its manifest entry (its column types)."""
    import optrules

    X, y = optrules.load(bundled)
    entry = optrules.datasets.info(bundled)
    path = directory / f"{name}.csv"
    X.assign(**{"class": y}).to_csv(path, index=False)
    (directory / "manifest.json").write_text(json.dumps([{
        "file": path.name, "label": "class", "categorical": entry["categorical"], "numeric": entry["numeric"],
        "positive_class": entry["positive_class"], **manifest}]))
    return path


def test_prepend_paper_gives_the_same_figures_on_a_csv_as_by_name(scripts, tmp_path):
    """monk1 by its bundled name, then as a CSV (under another name, else the bundled one is taken)."""
    bench = scripts("prepend_paper")
    (tmp_path / "csv").mkdir()
    write_bundled(tmp_path / "csv", "monk1", "monks")
    common = ["--repetitions", "3", "--max-nodes", "2000", "--variants", "append", "--jobs", "1"]
    bench.main(["--datasets", "monk1", *common, "--out", str(tmp_path / "name" / "prepend.md")])
    bench.main(["--datasets", "monks", "--data-dir", str(tmp_path / "csv"), *common,
                "--out", str(tmp_path / "csv" / "prepend.md")])
    by_name = json.loads((tmp_path / "name" / "prepend_runs" / "monk1.json").read_text())["results"]["records"]
    by_csv = json.loads((tmp_path / "csv" / "prepend_runs" / "monks.json").read_text())["results"]["records"]

    def figures(records):
        return [{k: v for k, v in r.items() if k not in ("seconds", "dataset")} for r in records]

    assert len(by_csv) == 6 and {r["variant"] for r in by_csv} == {"prepend-ip2", "append"}
    assert figures(by_csv) == figures(by_name)


def test_clsvm_paper_gives_the_same_figures_on_a_csv_as_by_name(scripts, tmp_path):
    bench = scripts("clsvm_paper")
    (tmp_path / "csv").mkdir()
    write_bundled(tmp_path / "csv", "australian", "australian_csv", train_size=500)
    common = ["--splits", "2", "--strategies", "svm-o", "svm-c", "--seeds", "0", "--jobs", "1"]
    bench.main(["--datasets", "australian", *common, "--runs", str(tmp_path / "a"), "--out", str(tmp_path / "a.md")])
    bench.main(["--datasets", "australian_csv", "--data-dir", str(tmp_path / "csv"), *common,
                "--runs", str(tmp_path / "b"), "--out", str(tmp_path / "b.md")])
    by_name = pd.read_csv(tmp_path / "a" / "australian" / "seed-0" / "results.csv")
    by_csv = pd.read_csv(tmp_path / "b" / "australian_csv" / "seed-0" / "results.csv")
    figures = ["method", "fold", "n_train", "n_test", "f1", "accuracy", "balanced_accuracy", "complexity",
               "objective", "meta.C"]
    assert len(by_csv) == 4 and by_csv["n_train"].eq(500).all()
    pd.testing.assert_frame_equal(by_csv[figures], by_name[figures])


# --------------------------------------------------------------------------------------------
# benchmarks/acceptance.py: a model that learned nothing cannot pass
# --------------------------------------------------------------------------------------------


def test_a_constant_model_fails_the_balanced_accuracy_rule_whatever_its_f1(scripts):
    acceptance = scripts("acceptance")
    labels = np.array(["pos"] * 90 + ["neg"] * 10)  # 90% positive: "everything positive" has F1 0.947
    folds = [(np.setdiff1d(np.arange(100), test), test) for test in (np.arange(k, 100, 5) for k in range(5))]  # 18 + 2 each
    trivial = acceptance.trivial_scores(labels, folds, "pos")
    assert trivial["all-positive F1"] == pytest.approx(2 * 0.9 / 1.9)
    assert trivial["majority accuracy"] == pytest.approx(0.9)
    assert acceptance.beyond_prior([0.5] * 5) == (0.5, 0.0, False)  # one class everywhere, every fold
    mean, se, ok = acceptance.beyond_prior([0.9, 0.8, 0.85, 0.95, 0.9])
    assert mean == pytest.approx(0.88) and se == pytest.approx(np.std([0.9, 0.8, 0.85, 0.95, 0.9], ddof=1) / 5 ** 0.5)
    assert ok
    assert not acceptance.beyond_prior([0.7, 0.3, 0.6, 0.4, 0.55])[2]  # above 0.5 on the mean, within one SE
    with pytest.raises(ValueError, match="no folds"):
        acceptance.beyond_prior([])


def test_libre_paper_fails_a_row_whose_model_is_near_constant_even_above_the_paper_f1(scripts):
    bench = scripts("libre_paper")
    paper = bench.PAPER["haberman"]["libre"]  # F1 0.41, 1.6 rules
    good_f1, few_rules = paper["f1"][0] + 0.1, 1.0
    assert bench.verdict(good_f1, few_rules, np.array([0.5, 0.52, 0.49, 0.5, 0.51]), paper) == "FAIL (balanced accuracy)"
    assert bench.verdict(good_f1, few_rules, np.array([0.62, 0.66, 0.60, 0.64, 0.65]), paper) == "pass"
    assert bench.verdict(paper["f1"][0] - 0.05, 9.0, np.full(5, 0.5), paper) == "FAIL (F1, #rules, balanced accuracy)"
    assert bench.verdict(0.2, 9.0, np.full(5, 0.5), None) == "no paper value"


def test_means_over_seeds_and_folds_with_both_spreads(scripts):
    acceptance = scripts("acceptance")
    rows = pd.DataFrame({"seed": [0, 0, 1, 1], "fold": [0, 1, 0, 1], "f1": [0.6, 0.8, 0.7, 0.9]})
    mean, fold_sd, seed_sd = acceptance.mean_spread(rows, "f1")
    assert mean == pytest.approx(0.75)
    assert fold_sd == pytest.approx(np.std([0.6, 0.8], ddof=1))  # the same within both seeds
    assert seed_sd == pytest.approx(np.std([0.7, 0.8], ddof=1))
    assert acceptance.fold_means(rows, "f1") == pytest.approx([0.65, 0.85])  # per fold, over the seeds
    assert acceptance.seed_spread(rows, "f1", deterministic=False) == f"{np.std([0.7, 0.8], ddof=1):.3f}"
    assert acceptance.seed_spread(rows, "f1", deterministic=True) == "0 (deterministic)"
    one_run = rows.assign(seed=pd.array([pd.NA] * 4, dtype="Int64"))  # a run made before the seeds
    assert acceptance.mean_spread(one_run, "f1") == pytest.approx((0.75, np.std([0.6, 0.8, 0.7, 0.9], ddof=1), 0.0))
    assert acceptance.seed_spread(one_run, "f1", deterministic=False) == "- (1 seed)"


def test_chance_is_one_over_the_classes_for_a_method_scored_on_them(scripts):
    acceptance = scripts("acceptance")
    three_classes = [40.0, 38.0, 42.0, 39.0, 41.0]  # balanced accuracy %, a model above 1/3, below 1/2
    assert acceptance.beyond_prior(three_classes, 100.0 / 3)[2]
    assert not acceptance.beyond_prior(three_classes, 50.0)[2]
    assert not acceptance.beyond_prior([100.0 / 3] * 5, 100.0 / 3)[2]  # one class everywhere
    assert acceptance.verdict_of([("accuracy", True), ("balanced accuracy", True)]) == "pass"
    assert acceptance.verdict_of([("accuracy", False), ("x", True), ("balanced accuracy", False)]) == \
        "FAIL (accuracy, balanced accuracy)"


# --------------------------------------------------------------------------------------------
# seeds: a method the seed does not change is fitted once
# --------------------------------------------------------------------------------------------


def test_seed_configs_refit_only_the_methods_that_take_a_seed(scripts):
    acceptance = scripts("acceptance")
    config = {"protocol": {"kind": "splits", "repeats": 2, "seed": 0}, "datasets": [{"name": "monk1"}],
              "methods": [{"name": "prepend-ip2", "params": {"max_nodes": 10}}, {"name": "cl-rr", "params": {"C": 10}}]}
    assert not acceptance.takes_seed(config["methods"][0]) and acceptance.takes_seed(config["methods"][1])
    pairs = acceptance.seed_configs(config, [3, 4], acceptance.takes_seed)
    assert [seed for seed, _ in pairs] == [3, 4]
    assert pairs[0][1]["methods"] == [{"name": "prepend-ip2", "params": {"max_nodes": 10}},
                                      {"name": "cl-rr", "params": {"C": 10, "random_state": 3}}]
    assert pairs[1][1]["methods"] == [{"name": "cl-rr", "params": {"C": 10, "random_state": 4}}]
    assert all(one["protocol"] == config["protocol"] and one["datasets"] == config["datasets"] for _, one in pairs)
    assert config["methods"][1]["params"] == {"C": 10}  # the caller's configuration is left as it was
    only_lists = {**config, "methods": config["methods"][:1]}
    assert [seed for seed, _ in acceptance.seed_configs(only_lists, [0, 1, 2], acceptance.takes_seed)] == [0]


def test_clsvm_seeded_strategies_are_those_whose_fits_the_seed_changes(scripts, tmp_path):
    """At a fixed C, svm-o, svm-c and clm give the same predictions whatever their random_state (so
    ``seeded`` says no); the roundings and any strategy with C chosen by inner CV are seeded."""
    from optrules.estimators import CLSVMClassifier

    bench = scripts("clsvm_paper")
    data = pd.read_csv(write_nominal(tmp_path, n_rows=80))
    X, y = data[["a", "b"]], data["class"]
    for strategy in ("svm-o", "svm-c", "clm"):
        assert not bench.seeded({"name": strategy, "params": {"C": 10.0}})
        fits = [CLSVMClassifier(strategy=strategy, C=10.0, random_state=seed).fit(X, y) for seed in (0, 1)]
        assert (fits[0].decision_function(X) == fits[1].decision_function(X)).all()
    for strategy in bench.STRATEGIES:
        assert bench.seeded({"name": strategy, "params": {"C": "cv"}})
        assert bench.seeded({"name": strategy, "params": {"C": 10.0}}) == (strategy in ("cl-rr", "clm-rr"))


def test_prepend_paper_fits_each_list_once_whatever_the_seeds(scripts, tmp_path):
    bench = scripts("prepend_paper")
    write_nominal(tmp_path, manifest={"categorical": ["a", "b"]})
    out = tmp_path / "prepend.md"
    bench.main(["--datasets", "toy", "--data-dir", str(tmp_path), "--repetitions", "3", "--max-nodes", "1000",
                "--variants", "append", "--seeds", "0", "1", "2", "--jobs", "1", "--out", str(out)])
    stored = json.loads((tmp_path / "prepend_runs" / "toy.json").read_text())
    records = stored["results"]["records"]
    assert len(stored["settings"]["configs"]) == 1 and len(records) == 6  # 2 variants x 3 splits, once
    assert {r["seed"] for r in records} == {0}
    report = out.read_text()
    header = next(line for line in report.splitlines() if line.startswith("| dataset |"))
    for column in ("accuracy %", "acc [seeds]", "majority acc %", "balanced acc % (SE)", "F1", "all-positive F1",
                   "acceptance"):
        assert f"| {column} |" in header
    assert "| toy | append | 1 (deterministic) |" in report and "0 (deterministic)" in report
    assert "so each was fitted once" in report


# --------------------------------------------------------------------------------------------
# the trivial models beside every row, and a constant model that cannot pass
# --------------------------------------------------------------------------------------------


def direct_trivial(labels: np.ndarray, folds, positive) -> tuple[float, float]:
    """Majority accuracy and all-positive F1, averaged over ``folds``, computed here by hand."""
    from sklearn.metrics import f1_score

    majority, all_positive = [], []
    for train, test in folds:
        values, counts = np.unique(labels[train], return_counts=True)
        most = values[counts == counts.max()]
        predicted = positive if positive in most else most[0]
        majority.append(np.mean(labels[test] == predicted))
        all_positive.append(f1_score(labels[test] == positive, np.ones(len(test), dtype=bool)))
    return float(np.mean(majority)), float(np.mean(all_positive))


def test_prepend_paper_trivial_models_are_those_of_the_paper_s_splits(scripts, tmp_path):
    from sklearn.model_selection import ShuffleSplit

    bench = scripts("prepend_paper")
    path = write_nominal(tmp_path, manifest={"categorical": ["a", "b"], "positive_class": "yes"})
    args = argparse_of(bench, ["--datasets", "toy", "--data-dir", str(tmp_path), "--repetitions", "4"])
    trivial = bench.trivial_of(bench.experiment(args), "toy")
    labels = pd.read_csv(path)["class"].to_numpy()
    folds = list(ShuffleSplit(4, train_size=0.8, random_state=0).split(labels))  # the paper's: unstratified
    majority, all_positive = direct_trivial(labels, folds, "yes")
    chance = np.mean([1 / len(np.unique(labels[test])) for _, test in folds])
    assert trivial == pytest.approx({"majority accuracy": majority, "all-positive F1": all_positive, "classes": 2,
                                     "chance": chance})


def test_prepend_paper_fails_a_constant_list_whatever_its_accuracy(scripts):
    bench = scripts("prepend_paper")
    constant = np.full(5, 50.0)  # one class predicted everywhere: balanced accuracy 50 on every split
    def verdict(name, variant, accuracy, balanced, chance):
        return bench.verdict_of(bench.row_checks(name, variant, accuracy, balanced, chance))

    assert verdict("mushroom", "prepend-ip2", 99.0, constant, 50.0) == "FAIL (balanced accuracy)"
    assert verdict("mushroom", "append", 99.0, constant, 50.0) == "FAIL (balanced accuracy)"
    assert verdict("mushroom", "prepend-ip2", 99.0, np.full(5, 98.0), 50.0) == "pass"
    assert verdict("mushroom", "prepend-ip2", 90.0, np.full(5, 98.0), 50.0) == "FAIL (accuracy)"
    assert verdict("toy", "append", 60.0, np.full(5, 100.0 / 3), 100.0 / 3) == "FAIL (balanced accuracy)"


def test_a_constant_list_fails_on_multi_class_splits_that_miss_some_classes(scripts):
    """On zoo's 20-row test splits (4-7 of its 7 classes each) a constant list scored 16.2-16.5% balanced
    accuracy, above 100 / 7 = 14.3%, and passed; chance is now what a constant prediction scores there."""
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import ShuffleSplit

    acceptance, bench = scripts("acceptance"), scripts("prepend_paper")
    labels = np.repeat(np.array(list("abcdefg")), [41, 20, 13, 10, 8, 5, 4])  # zoo's class sizes
    folds = list(ShuffleSplit(20, train_size=0.8, random_state=0).split(labels))
    constant = []
    for train, test in folds:
        values, counts = np.unique(labels[train], return_counts=True)
        constant.append(100 * balanced_accuracy_score(labels[test], np.full(len(test), values[counts.argmax()])))
    chance = 100 * acceptance.constant_chance(labels, folds)
    assert chance > 100 / 7 and np.mean(constant) > 100 / 7  # the premise: 1 / 7 lets a constant list pass
    assert bench.verdict_of(bench.row_checks("zoo", "append", 60.0, np.array(constant), chance)) == \
        "FAIL (balanced accuracy)"


def fake_results(dataset: str, method: str, accuracy: list[float], balanced: list[float], complexity: float,
                 seed: int = 0) -> pd.DataFrame:
    """Result-table rows of ``method`` on ``dataset``, one per split."""
    n = len(accuracy)
    return pd.DataFrame({"dataset": dataset, "method": method, "fold": range(n), "seed": seed, "status": "optimal",
                         "n_train": 700, "n_test": 300, "accuracy": accuracy, "balanced_accuracy": balanced,
                         "f1": 0.8, "complexity": complexity, "meta.C": 10.0, "fit_seconds": 1.0,
                         "build_seconds": 0.1, "solve_seconds": 0.5, "objective": 1.0, "meta.start_objective": 1.0})


def test_clsvm_paper_fails_a_constant_scorecard_whatever_its_accuracy(scripts):
    bench = scripts("clsvm_paper")
    paper = bench.PAPER["svm-o"]["german"][0] / 100  # 74.60: within 2 points of it passes issue 4's check
    results = pd.concat([fake_results("german", "svm-o", [paper] * 4, [0.5] * 4, 98.0),  # near-constant
                         fake_results("german", "svm-c", [0.74, 0.75, 0.73, 0.74], [0.66, 0.64, 0.65, 0.67], 44.0),
                         fake_results("german", "clm", [0.70] * 4, [0.5, 0.51, 0.49, 0.5], 99.0)], ignore_index=True)
    results["seed"] = results["seed"].astype("Int64")
    stored = {"german": bench.Stored(300.0, frozenset(), (0,), {"majority accuracy": 0.7, "all-positive F1": 0.82}, "")}
    rows = {r["strategy"]: r for r in bench.summary_rows(results, stored)}
    assert rows["svm-o"]["acceptance"] == "FAIL (balanced accuracy)"
    assert rows["svm-c"]["acceptance"] == "pass"
    assert rows["clm"]["acceptance"] == "FAIL (complexity, balanced accuracy)"
    assert rows["svm-o"]["majority acc"] == pytest.approx(70.0) and rows["svm-o"]["all-positive F1"] == 0.82
    assert rows["svm-c"]["balanced acc (SE)"] == f"65.50 ({100 * np.std([0.66, 0.64, 0.65, 0.67], ddof=1) / 2:.2f})"


def test_clsvm_paper_report_recomputes_the_trivial_models_on_the_stored_splits(scripts, tmp_path):
    """The report's trivial scores are those of the runner's seeded splits, computed here directly; a
    run whose stored split sizes differ gets none; a run made before the seeds is named as one seed."""
    from sklearn.model_selection import StratifiedShuffleSplit

    from optrules.experiments import run

    bench = scripts("clsvm_paper")
    path = write_nominal(tmp_path, manifest={"train_size": 40, "categorical": ["a", "b"], "positive_class": "yes"})
    runs, out = tmp_path / "runs", tmp_path / "clsvm.md"
    bench.main(["--datasets", "toy", "--data-dir", str(tmp_path), "--splits", "3", "--strategies", "svm-o",
                "--seeds", "0", "1", "--jobs", "1", "--runs", str(runs), "--out", str(out)])
    results, stored = bench.load_results(runs)
    assert stored["toy"].seeds == (0, 1) and list(results["seed"].unique()) == [0, 1]
    labels = pd.read_csv(path)["class"].to_numpy()
    folds = list(StratifiedShuffleSplit(3, train_size=40, random_state=0).split(labels, labels))
    majority, all_positive = direct_trivial(labels, folds, "yes")
    assert stored["toy"].trivial == pytest.approx({"majority accuracy": majority, "all-positive F1": all_positive})
    report = out.read_text()
    header = next(line for line in report.splitlines() if line.startswith("| dataset | strategy |"))
    for column in ("seeds", "acc mean", "acc [seeds]", "majority acc", "balanced acc (SE)", "F1", "all-positive F1",
                   "acceptance"):
        assert f"| {column} |" in header
    assert f"| {100 * majority:.4g} |" in report and "Means over the seeds" in report

    table = runs / "toy" / "seed-0" / "results.csv"
    pd.read_csv(table).assign(n_test=19).to_csv(table, index=False)
    assert bench.load_results(runs)[1]["toy"].trivial is None
    bench.main(["--report-only", "--runs", str(runs), "--out", str(out)])
    assert "not available for toy (the recomputed splits do not have the stored training and test sizes)" in out.read_text()

    before = tmp_path / "before"  # the layout of the runs made before the script had seeds
    config = bench.experiment(bench.dataset_entry("toy", before, tmp_path), 3, ["svm-o"], 60.0, 1)
    run(config, out=before / "toy", verbose=False)
    results, stored = bench.load_results(before)
    assert stored["toy"].seeds is None and results["seed"].isna().all()
    assert stored["toy"].trivial == pytest.approx({"majority accuracy": majority, "all-positive F1": all_positive})
    bench.main(["--report-only", "--runs", str(before), "--out", str(out)])
    report = out.read_text()
    assert "**One seed only: every row of toy.**" in report and "| toy | svm-o | 1 (runner's per-split seeds) |" in report


# benchmarks/libre_selection.py: selection rules read from kept fits are the runner's own choices


def test_libre_selection_reads_the_runner_s_choices_from_its_fits(scripts):
    """Applying the runner's tune rules to the kept counts of every configuration gives the outer test
    F1 the runner gets by fitting the chosen configuration (libre and libre 3, the quick grid)."""
    from optrules.experiments import load_config, run

    study = scripts("libre_selection")
    bench = sys.modules["libre_paper"]
    args = bench.parse_args(["--quick", "--seeds", "0", "--jobs", "1"])
    config = bench.experiment(args, bench.find_dataset("haberman", None), 0)
    prepared = bench.prepare(config)
    configurations = prepared.method.tune.configurations()
    inner, outer, rules = study.fit_all(prepared, configurations, 0, 1)
    results = run(config)
    for method in load_config(config).methods:
        spec = method.tune
        keys = {"select": spec.select, "prefer": spec.prefer, "min_prefix": spec.min_prefix,
                "max_prefix": spec.max_prefix}
        f1, n_rules = study.evaluate(spec.grid, configurations, inner, outer, rules, {}, keys)
        chosen = results[results["method"] == method.label]
        assert f1 == pytest.approx(chosen["f1"].mean())
        assert n_rules == pytest.approx(chosen["n_rules"].astype(float).mean())


def test_highs_limit_checks_counts_highs_checks_and_solves_through_the_package(scripts, tmp_path):
    """One small instance under a short limit: the table has the model's size, HiGHS' limit checks
    (a stretch between them can be no longer than the run), and the package's own solve of the same
    model, never reported optimal unless it is (what holds at any machine speed)."""
    bench = scripts("highs_limit_checks")
    out = tmp_path / "checks.md"
    assert bench.main(["--time-limit", "0.5", "--instances", "german (500)", "--out", str(out)]) == 0
    row = next(line for line in out.read_text().splitlines() if line.startswith("| german (500) |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    header = next(line for line in out.read_text().splitlines() if line.startswith("| instance |"))
    named = dict(zip([cell.strip() for cell in header.strip("|").split("|")], cells))
    assert int(named["nonzeros"]) > 0 and int(named["checks"]) >= 0
    assert 0 <= float(named["longest s without a check"]) <= float(named["in process: wall s"])
    assert named["status"] in ("optimal", "feasible", "no_solution")
    if named["status"] == "optimal":
        assert float(named["gap %"]) <= 0.01 + 1e-9


def test_set_cover_build_hands_highs_the_direct_model_through_both_layers(scripts):
    """Part 1 of benchmarks/set_cover.py: what each layer loads into HiGHS is the direct build's model
    (costs, bounds, integrality, matrix entry by entry) on a random instance, and the check tells
    two different models apart; on the 2 x 3 instance each ratio is its build and load over the
    direct build (one round: the ratio of that round's figures)."""
    bench = scripts("set_cover")
    instance = bench.random_instance(60, 12, 0.3, seed=0).reduce().instance
    direct = bench.direct_highs(instance)[1]
    positive, negative = int((instance.pos_weight > 0).sum()), int((instance.neg_weight > 0).sum())
    for layer in ("pyomo", "cvxpy"):
        rows, cols, _ = bench.check_same_model(direct, bench.layer_load(instance, layer)[2], layer)
        assert cols == instance.n_candidates + positive + negative  # x, u, v
        assert rows == positive + int(instance.coverage[instance.neg_weight > 0].sum())  # (SC1), (SC2)
    other = bench.random_instance(60, 12, 0.3, seed=1).reduce().instance
    with pytest.raises(AssertionError):
        bench.check_same_model(direct, bench.direct_highs(other)[1], "another instance")
    row = bench.measure_build("fixed cost", bench.smallest_instance(), repeats=1)
    assert row["rows x cols (nnz)"] == "2 x 3 (4)"
    for layer in ("pyomo", "cvxpy"):
        built, loaded = row[f"{layer} build s"], row[f"{layer} load s"]
        assert row[f"{layer} / direct"] == pytest.approx((built + loaded) / row["direct s"])
        assert row[f"{layer} / direct (HighsLp)"] == pytest.approx((built + loaded) / row["direct (HighsLp) s"])


def test_probabilities_runs_on_a_csv_and_writes_its_table(scripts, tmp_path, monkeypatch):
    """benchmarks/probabilities.py crashed at once after its dataset helper came to return the name
    too (four values); a smoke run on a tiny CSV with one cheap method."""
    write_mixed(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps([{"file": "mixed.csv", "positive_class": "pos"}]))
    out = tmp_path / "probabilities.md"
    monkeypatch.setattr(sys, "argv", ["probabilities.py", "--datasets", "mixed", "--data-dir", str(tmp_path),
                                      "--methods", "setcover-greedy", "--out", str(out)])
    scripts("probabilities").main()
    table = out.read_text()
    assert "| mixed | trivial (prior) |" in table and "| mixed | setcover-greedy |" in table


def test_clsvm_paper_binarises_a_multi_class_csv_as_it_does_the_bundled_data(scripts, tmp_path):
    """car_evaluation by name is split on unacc against the rest; as a CSV it was split on its four
    classes, so the same data gave other figures (svm-o 94.32 against 92.99 in review)."""
    bench = scripts("clsvm_paper")
    (tmp_path / "csv").mkdir()
    write_bundled(tmp_path / "csv", "car_evaluation", "car_csv", train_size=1200, positive_class="unacc")
    common = ["--splits", "1", "--strategies", "svm-o", "--seeds", "0", "--jobs", "1"]
    bench.main(["--datasets", "car_evaluation", *common, "--runs", str(tmp_path / "a"), "--out", str(tmp_path / "a.md")])
    bench.main(["--datasets", "car_csv", "--data-dir", str(tmp_path / "csv"), *common,
                "--runs", str(tmp_path / "b"), "--out", str(tmp_path / "b.md")])
    by_name = pd.read_csv(tmp_path / "a" / "car_evaluation" / "seed-0" / "results.csv")
    by_csv = pd.read_csv(tmp_path / "b" / "car_csv" / "seed-0" / "results.csv")
    figures = ["method", "fold", "n_train", "n_test", "f1", "accuracy", "balanced_accuracy", "complexity", "objective"]
    pd.testing.assert_frame_equal(by_csv[figures], by_name[figures])


@pytest.mark.parametrize(("manifest", "message"), [
    ('[{"file": "toy.csv"', "not valid JSON"),
    ('["toy.csv"]', "expected a list of entries"),
    ('{"toy": "x"}', "expected a list of entries"),
])
def test_a_malformed_manifest_is_a_one_line_exit_naming_it(scripts, tmp_path, manifest, message):
    """A truncated or misshapen manifest.json gave a JSONDecodeError, AttributeError or TypeError."""
    paper_data = scripts("paper_data")
    path = write_nominal(tmp_path)
    (tmp_path / "manifest.json").write_text(manifest)
    with pytest.raises(SystemExit, match=rf"manifest.json: {message}"):
        paper_data.manifest_entry(path)


def test_a_single_categorical_column_name_is_one_column(scripts, tmp_path):
    """"categorical": "a" was read letter by letter."""
    paper_data = scripts("paper_data")
    path = write_nominal(tmp_path, manifest={"categorical": "a", "numeric": "b"})
    assert paper_data.manifest_entry(path)["categorical"] == ["a"]
    assert paper_data.manifest_entry(path)["numeric"] == ["b"]


def test_brcg_paper_names_a_manifest_positive_class_that_is_no_label(scripts, tmp_path):
    """It failed inside the first fit, with a traceback naming neither dataset nor manifest."""
    bench = scripts("brcg_paper")
    write_nominal(tmp_path, manifest={"positive_class": "maybe"})
    with pytest.raises(SystemExit, match=r"dataset 'toy': positive class 'maybe' .* is not a label"):
        bench.load("toy", tmp_path)


def test_paper_scripts_check_every_dataset_before_any_fit(scripts, tmp_path):
    """A positive class that is no label stopped a run only when its dataset's turn came, after the
    earlier datasets' fits; a CSV merely named like a paper dataset was compared with the paper."""
    paper_data = scripts("paper_data")
    path = write_nominal(tmp_path)
    entry = {"name": "toy", "path": str(path), "label": "class"}
    paper_data.check_entry({**entry, "positive": "yes"}, ())
    with pytest.raises(SystemExit, match=r"positive class 'maybe' is not a label; labels: \['no', 'yes'\]"):
        paper_data.check_entry({**entry, "positive": "maybe"}, ())
    with pytest.raises(SystemExit, match="label column 'outcome' not found"):
        paper_data.check_entry({**entry, "label": "outcome"}, ())
    named = write_nominal(tmp_path, name="australian")  # 60 rows, against the paper's 690
    with pytest.raises(SystemExit, match="named like the paper's 'australian' but has 60 rows against its 690"):
        paper_data.check_entry({"name": "australian", "path": str(named), "label": "class"}, ["australian"])
    paper_data.check_entry({"name": "australian", "path": str(named), "label": "class"}, [])  # not a paper name


def test_clsvm_paper_applies_positive_before_making_a_multi_class_csv_binary(scripts, tmp_path):
    """--positive was applied after the manifest's class had made the data binary: the run stopped on
    ['invertebrate', 'rest'], or, without a manifest class, split on every class."""
    import optrules

    bench = scripts("clsvm_paper")
    (tmp_path / "csv").mkdir()
    write_bundled(tmp_path / "csv", "car_evaluation", "car_csv", train_size=1200, positive_class="unacc")
    entry = bench.dataset_entry("car_csv", tmp_path / "runs", tmp_path / "csv", {None: "acc"})
    labels = pd.read_csv(entry["path"])["class"]
    assert entry["positive"] == "acc" and set(labels) == {"acc", "rest"}
    assert (labels == "acc").sum() == (optrules.load("car_evaluation")[1].astype(str) == "acc").sum()


def test_clsvm_paper_reports_the_seeds_it_was_given(scripts, tmp_path):
    """A run with --seeds 0 into runs that held seed 1 from an earlier run reported both seeds' means."""
    bench = scripts("clsvm_paper")
    (tmp_path / "csv").mkdir()
    write_bundled(tmp_path / "csv", "australian", "credit", train_size=200)
    bench.main(["--datasets", "credit", "--data-dir", str(tmp_path / "csv"), "--splits", "1", "--strategies", "svm-c",
                "--seeds", "0", "1", "--jobs", "1", "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "a.md")])
    assert set(bench.load_results(tmp_path / "runs")[0]["seed"]) == {0, 1}
    table, stored = bench.load_results(tmp_path / "runs", [0])
    assert set(table["seed"]) == {0} and stored["credit"].seeds == (0,)
