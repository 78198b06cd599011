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
        if name in ("paper_data", "machine") or name.endswith("_paper"):
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
            "--jobs", "1", "--positive", "no", "--runs", str(runs), "--out", str(out)]
    bench.main(argv)
    log = runs / "toy" / "results.jsonl"
    assert log.is_file() and len(log.read_text().splitlines()) == 2
    config = json.loads((runs / "toy" / "config.json").read_text())
    assert config["datasets"][0]["positive"] == "no" and config["datasets"][0]["train_size"] == 40
    results = pd.read_csv(runs / "toy" / "results.csv")
    assert len(results) == 2 and (results["n_train"] == 40).all() and (results["n_test"] == 20).all()
    assert "| toy | svm-o | 2 |" in out.read_text()
    before = log.read_text()
    capsys.readouterr()
    bench.main(argv)
    assert "resumed from" in capsys.readouterr().out
    assert log.read_text() == before  # no fit appended: every row came from the log


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
    common = ["--splits", "2", "--strategies", "svm-o", "svm-c", "--jobs", "1"]
    bench.main(["--datasets", "australian", *common, "--runs", str(tmp_path / "a"), "--out", str(tmp_path / "a.md")])
    bench.main(["--datasets", "australian_csv", "--data-dir", str(tmp_path / "csv"), *common,
                "--runs", str(tmp_path / "b"), "--out", str(tmp_path / "b.md")])
    by_name = pd.read_csv(tmp_path / "a" / "australian" / "results.csv")
    by_csv = pd.read_csv(tmp_path / "b" / "australian_csv" / "results.csv")
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


def test_libre_paper_means_over_seeds_and_folds_with_both_spreads(scripts):
    bench = scripts("libre_paper")
    rows = pd.DataFrame({"seed": [0, 0, 1, 1], "fold": [0, 1, 0, 1], "f1": [0.6, 0.8, 0.7, 0.9]})
    mean, fold_sd, seed_sd = bench.mean_spread(rows, "f1")
    assert mean == pytest.approx(0.75)
    assert fold_sd == pytest.approx(np.std([0.6, 0.8], ddof=1))  # the same within both seeds
    assert seed_sd == pytest.approx(np.std([0.7, 0.8], ddof=1))
