"""benchmarks/libre_paper.py on datasets it was not written for: paper rows by name, CSV files with
and without a manifest, the per-size protocol, and a smoke run on a CSV outside the package."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import shlex
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "libre_paper.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("libre_paper", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    sys.modules["libre_paper"] = module  # its dataclass looks its module up while it is executed
    spec.loader.exec_module(module)  # puts benchmarks/ on sys.path for its machine.py
    yield module
    del sys.modules["libre_paper"]
    sys.path[:] = path


def write_csv(path: Path, n_rows: int, labels: tuple[str, str], seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, n_rows)
    frame = pd.DataFrame({"x": x, "colour": rng.choice(["red", "blue"], n_rows),
                          "class": np.where(x + rng.normal(0, 2, n_rows) > 6, labels[0], labels[1])})
    frame.to_csv(path, index=False)


def test_every_paper_dataset_has_its_row_and_common_file_names_find_it(bench):
    assert len(bench.PAPER) == 13
    assert bench.paper_row("heart_statlog") == "heart"
    assert bench.paper_row("Tic-Tac-Toe") == "tictactoe"
    assert bench.paper_row("ILPD") == "ilpd"
    assert bench.paper_row("indian_liver_patient") == "ilpd"
    assert bench.paper_row("blood-transfusion") == "transfusion"
    assert bench.paper_row("bupa") == "liver"
    # the Ljubljana breast cancer set and German credit are not datasets of the paper
    assert bench.paper_row("breast_cancer") is None
    assert bench.paper_row("german") is None
    for row in bench.PAPER.values():
        assert set(row) == {"records", "target", "dt", "rf", "libre", "libre 3"}
        assert row["libre 3"]["rules"][0] <= 3.0


def test_heart_is_read_with_the_papers_types_and_the_other_paper_datasets_as_bundled(bench):
    """The paper's rules treat heart's number of major vessels as a number (an interval, Figure 14):
    the benchmark reads the bundled file with that column numeric and every other column as bundled."""
    import optrules
    from optrules.experiments import load_config

    heart = bench.find_dataset("heart_statlog", None)
    assert heart.paper == "heart" and heart.entry["positive"] == "presence" and not heart.from_data_dir
    X, y = load_config({"datasets": [heart.entry], "methods": [{"name": "libre"}]}).datasets[0].load()
    bundled_X, bundled_y = optrules.load("heart_statlog")
    assert list(X.columns) == list(bundled_X.columns) and (y == bundled_y).all()
    assert bundled_X["number_of_major_vessels"].dtype == "category"
    assert X["number_of_major_vessels"].dtype == "float64"
    assert sorted(X["number_of_major_vessels"].unique()) == [0.0, 1.0, 2.0, 3.0]
    for column in X.columns.drop("number_of_major_vessels"):
        assert (X[column].dtype.name == "category") == (bundled_X[column].dtype.name == "category"), column
        assert (X[column].astype(str) == bundled_X[column].astype(str)).all(), column
    for name in ("tic_tac_toe", "wisconsin", "australian", "pima", "haberman", "adult"):
        assert bench.find_dataset(name, None).entry == {"name": name}


def test_a_heart_csv_is_read_with_the_papers_types_whatever_its_manifest_says(bench, tmp_path):
    import optrules

    X, y = optrules.load("heart_statlog")
    X.assign(**{"class": y}).to_csv(tmp_path / "heart_statlog.csv.gz", index=False)
    categorical = optrules.datasets.info("heart_statlog")["categorical"]
    (tmp_path / "manifest.json").write_text(json.dumps(
        [{"name": "heart_statlog", "file": "heart_statlog.csv.gz", "categorical": categorical}]))
    by_path = bench.find_dataset(str(tmp_path / "heart_statlog.csv.gz"), None)
    assert by_path.paper == "heart" and by_path.entry["positive"] == "presence"
    assert by_path.entry["categorical"] == [c for c in categorical if c != "number_of_major_vessels"]
    assert bench.find_dataset("heart_statlog", None).entry["categorical"] == by_path.entry["categorical"]
    # a 200-row "heart" is not the paper's Heart (Table 6: 270 rows): it keeps its manifest's types
    X.iloc[:200].assign(**{"class": y.iloc[:200]}).to_csv(tmp_path / "heart.csv.gz", index=False)
    (tmp_path / "manifest.json").write_text(json.dumps(
        [{"name": "heart", "file": "heart.csv.gz", "categorical": categorical}]))
    assert bench.find_dataset(str(tmp_path / "heart.csv.gz"), None).entry["categorical"] == categorical


def test_a_csv_takes_its_manifests_numeric_columns(bench, tmp_path):
    """An integer-coded column the manifest declares numeric is read as numbers without the load
    warning, and the runner's entry keeps the declaration (it was dropped before)."""
    import warnings

    rng = np.random.default_rng(0)
    grade = rng.integers(1, 4, 120)
    pd.DataFrame({"grade": grade, "x": rng.uniform(0, 1, 120), "class": np.where(grade == 3, "yes", "no")}).to_csv(
        tmp_path / "graded.csv", index=False)
    (tmp_path / "manifest.json").write_text(json.dumps([{"file": "graded.csv", "numeric": "grade"}]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dataset = bench.find_dataset("graded", tmp_path)
        X, _ = bench.load_config(bench.experiment(bench.parse_args([]), dataset, 0)).datasets[0].load()
    assert dataset.entry["numeric"] == ["grade"] and X["grade"].dtype.kind in "if"


def test_a_csv_takes_categorical_columns_and_positive_class_from_its_manifest(bench, tmp_path):
    write_csv(tmp_path / "transfusion.csv.gz", 748, ("yes", "no"))
    pd.read_csv(tmp_path / "transfusion.csv.gz").rename(columns={"class": "donated"}).to_csv(
        tmp_path / "transfusion.csv.gz", index=False)
    (tmp_path / "manifest.json").write_text(json.dumps(
        [{"name": "transfusion", "file": "transfusion.csv.gz", "label": "donated", "categorical": ["colour"],
          "positive_class": "no"}]))
    dataset = bench.find_dataset("transfusion", tmp_path)
    assert dataset.paper == "transfusion" and dataset.n_rows == 748 and not dataset.large
    assert dataset.entry["categorical"] == ["colour"] and dataset.entry["label"] == "donated"
    assert dataset.entry["positive"] == "no"  # the manifest's, not the paper's target "yes"
    X, y = bench.load_config(bench.experiment(bench.parse_args([]), dataset, 0)).datasets[0].load()
    assert list(X.columns) == ["x", "colour"] and set(y) == {"yes", "no"}


def test_without_a_manifest_the_paper_target_is_positive_only_when_it_is_a_label(bench, tmp_path):
    write_csv(tmp_path / "sonar.csv", 208, ("R", "M"))
    assert bench.find_dataset(str(tmp_path / "sonar.csv"), None).entry["positive"] == "R"
    write_csv(tmp_path / "heart.csv", 270, ("Presence", "Absence"))  # the paper writes "presence"
    assert bench.find_dataset(str(tmp_path / "heart.csv"), None).entry["positive"] == "Presence"
    write_csv(tmp_path / "bupa.csv", 345, ("1", "2"))  # the paper's target "drinks>2" is not a label
    liver = bench.find_dataset(str(tmp_path / "bupa.csv"), None)
    assert liver.paper == "liver" and "positive" not in liver.entry  # the runner's rule: the minority


def test_an_unknown_dataset_is_a_clear_error(bench, tmp_path):
    with pytest.raises(SystemExit, match=r"neither a bundled dataset.*nor a CSV file \(looked for .*nosuch, .csv.gz and .csv\)"):
        bench.find_dataset("nosuch", tmp_path)


def test_large_datasets_get_the_reduced_grid_and_flags_override_both_sizes(bench, tmp_path):
    args = bench.parse_args([])
    small = bench.Dataset("small", {"name": "pima"}, 768, "pima")
    large = bench.Dataset("large", {"name": "adult"}, 48_842, "adult")
    small_tune = bench.experiment(args, small, 0)["methods"][0]["tune"]
    large_tune = bench.experiment(args, large, 0)["methods"][0]["tune"]
    assert small_tune["grid"]["max_features"] == [2, 3, 5] and small_tune["grid"]["max_intervals"] == [3]
    assert small_tune["grid"]["n_estimators"] == [5, 20, 50] and small_tune["inner_folds"] == 5
    assert small_tune["select"] == 0.0  # small data: the best mean inner F1, ties to the fewest rules
    assert large_tune["grid"]["max_features"] == [5] and large_tune["grid"]["max_intervals"] == [None]
    assert large_tune["grid"]["n_estimators"] == [5, 20] and large_tune["inner_folds"] == 3
    assert large_tune["select"] == "one-se"
    args = bench.parse_args(["--max-features", "4", "--inner-folds", "4", "--large-train", "1000",
                             "--max-intervals", "none", "3", "--tolerance", "se"])
    for dataset in (small, large):
        config = bench.experiment(args, dataset, 0)
        assert config["methods"][0]["tune"]["grid"]["max_features"] == [4]
        assert config["methods"][0]["tune"]["grid"]["max_intervals"] == [None, 3]
        assert config["methods"][0]["tune"]["inner_folds"] == 4
        assert config["methods"][0]["tune"]["select"] == "one-se"
    assert bench.experiment(args, large, 0)["datasets"][0]["max_train"] == 1000
    assert "max_train" not in bench.experiment(args, small, 0)["datasets"][0]


def test_quick_run_on_a_csv_outside_the_package_reports_it_without_acceptance(bench, tmp_path):
    write_csv(tmp_path / "mydata.csv.gz", 150, ("pos", "neg"))
    out = tmp_path / "report.md"
    assert bench.main(["--quick", "--datasets", str(tmp_path / "mydata.csv.gz"), "--jobs", "1",
                       "--out", str(out)]) == 0
    report = out.read_text()
    rows = [line for line in report.splitlines() if line.startswith("| mydata |")]
    assert len(rows) == 2 and all("no paper value" in row for row in rows)
    f1 = float(rows[0].split("|")[4].split()[0])  # after dataset, method, seeds
    assert 0.5 < f1 <= 1.0  # x > 6 is learnable from the binned x
    assert "positive class 'pos'" in report  # the minority class (x > 6 is 40% of rows)


def test_without_paper_values_the_depth_5_tree_is_the_bar_and_a_constant_model_never_passes(bench):
    informative, constant = np.array([0.80, 0.85, 0.90, 0.82, 0.88]), np.full(5, 0.5)
    assert bench.verdict(0.90, 2.0, informative, None) == "no paper value"  # no --baselines
    assert bench.verdict(0.90, 2.0, informative, None, tree_f1=0.92) == "vs dt depth 5: pass"  # within 0.03
    assert "FAIL (F1)" in bench.verdict(0.88, 2.0, informative, None, tree_f1=0.92)
    # F1 above a weak tree, yet one class everywhere (balanced accuracy 0.5 on every fold): fails
    assert "FAIL (balanced accuracy)" in bench.verdict(0.60, 1.0, constant, None, tree_f1=0.50)
    paper = {"f1": (0.80, 0.05), "rules": (2.0, 1.0)}
    assert bench.verdict(0.90, 2.0, informative, paper, tree_f1=0.99) == "pass"  # paper values come first


def test_baselines_are_tuned_on_the_runners_training_rows_and_positive_class(bench, tmp_path, monkeypatch):
    from sklearn.model_selection import GridSearchCV

    from optrules.experiments.run import _positive, _tasks

    write_csv(tmp_path / "heart.csv", 270, ("presence", "absence"))
    (tmp_path / "manifest.json").write_text(json.dumps({"heart": {"positive_class": "absence"}}))
    dataset = bench.find_dataset(str(tmp_path / "heart.csv"), None)
    config = bench.experiment(bench.parse_args(["--quick"]), dataset, 0)
    config["datasets"][0]["max_train"] = 150  # subsampled as --large-train subsamples a large dataset's folds
    seen = []
    fit = GridSearchCV.fit

    def recording_fit(self, X, y, **kwargs):
        seen.append((X[:, 0].copy(), np.asarray(y).copy()))
        return fit(self, X, y, **kwargs)

    monkeypatch.setattr(GridSearchCV, "fit", recording_fit)
    monkeypatch.setattr(bench, "BASELINE_GRIDS", {"dt": {"max_depth": [2, None]},
                                                  "rf": {"max_depth": [2], "n_estimators": [10]}})
    f1 = bench.baselines(bench.prepare(config), large=False, n_jobs=1)
    resolved = bench.load_config(config)
    spec = resolved.datasets[0]
    X, y = spec.load()
    spec = dataclasses.replace(spec, positive=_positive(spec, y))
    tasks = [t for t in _tasks(resolved, spec, X, y) if t.method.label == "libre"]
    assert len(seen) == 2 * len(tasks) == 10  # dt and rf on each of the 5 outer folds
    for task, (x_dt, y_dt), (x_rf, y_rf) in zip(tasks, seen[0::2], seen[1::2]):
        assert len(task.X_train) == 150
        expected = (task.y_train == "absence").to_numpy().astype(int)  # the manifest's positive class
        for x, target in ((x_dt, y_dt), (x_rf, y_rf)):
            np.testing.assert_array_equal(x, task.X_train["x"].to_numpy())
            np.testing.assert_array_equal(target, expected)
    assert all(f.shape == (5,) and 0.0 <= f.mean() <= 1.0 for f in f1.values())


def test_quick_run_reports_baselines_as_references_beside_the_paper_columns(bench, tmp_path, monkeypatch):
    write_csv(tmp_path / "heart.csv", 270, ("presence", "absence"))
    monkeypatch.setattr(bench, "BASELINE_GRIDS", {"dt": {"max_depth": [2, None]},
                                                  "rf": {"max_depth": [2], "n_estimators": [10]}})
    out = tmp_path / "report.md"
    assert bench.main(["--quick", "--baselines", "--datasets", str(tmp_path / "heart.csv"), "--jobs", "1",
                       "--out", str(out)]) == 0
    rows = {line.split("|")[2].strip(): line.split("|") for line in out.read_text().splitlines()
            if line.startswith("| heart |")}
    assert set(rows) == {"libre", "libre 3", "dt (scikit-learn)", "dt depth 5 (scikit-learn)", "rf (scikit-learn)"}
    # columns: dataset, method, seeds, F1, paper F1, ...
    assert rows["dt (scikit-learn)"][5].strip() == "0.71 (0.01)"  # the paper's Heart dt column
    assert rows["rf (scikit-learn)"][5].strip() == "0.79 (0.07)"
    assert rows["dt depth 5 (scikit-learn)"][5].strip() == "-"  # the paper has no such column
    assert rows["rf (scikit-learn)"][-2].strip() == "reference"
    assert rows["libre"][5].strip() == "0.77 (0.06)"
    assert float(rows["dt (scikit-learn)"][4].split()[0]) > 0.5  # x > 6 is one split of a depth-2 tree


def test_a_file_named_like_a_paper_dataset_with_other_data_is_not_checked_against_it(bench, tmp_path):
    write_csv(tmp_path / "bank.csv", 4521, ("yes", "no"))  # UCI's 10% sample, not the paper's 45,211 rows
    bank = bench.find_dataset(str(tmp_path / "bank.csv"), None)
    assert bank.paper is None and "45,211" in bank.note and "positive" not in bank.entry
    write_csv(tmp_path / "wisconsin.csv", 683, ("malignant", "benign"))  # 699 less the rows with missing values
    assert bench.find_dataset(str(tmp_path / "wisconsin.csv"), None).paper == "wisconsin"
    assert bench.find_dataset("heart_statlog", None).paper == "heart"
    assert bench.find_dataset("breast_cancer", None).paper is None


def test_manifest_lookup_prefers_the_file_entry_and_accepts_a_dict_keyed_by_name(bench, tmp_path):
    write_csv(tmp_path / "heart.v2.csv", 100, ("yes", "no"))
    write_csv(tmp_path / "sonar.csv.gz", 100, ("R", "M"))
    (tmp_path / "manifest.json").write_text(json.dumps(
        [{"name": "heart", "file": "heart.csv", "positive_class": "no"},
         {"name": "other", "file": "heart.v2.csv", "positive_class": "yes"}]))
    assert bench.find_dataset("heart.v2.csv", tmp_path).entry["positive"] == "yes"
    (tmp_path / "manifest.json").write_text(json.dumps({"sonar": {"positive_class": "M", "label": None}}))
    sonar = bench.find_dataset("sonar.csv.gz", tmp_path)  # a file name with its extension in --data-dir
    assert sonar.from_data_dir and sonar.entry["positive"] == "M" and sonar.entry["label"] == "class"


def test_the_printed_command_reproduces_the_configuration(bench, tmp_path):
    write_csv(tmp_path / "my data.csv", 100, ("a", "b"))
    datasets = [bench.find_dataset("my data", tmp_path), bench.find_dataset("adult", None)]
    for argv in ([], ["--conflicts", "strict", "--inner-folds", "4"], ["--max-features", "3", "--max-intervals", "none"],
                 ["--large-train", "4000", "--large-estimators", "5", "--libre3", "tuned", "--top-k", "200",
                  "--tolerance", "0.01", "--inner-repeats", "2", "--seeds", "3", "--pooling", "pooled"],
                 ["--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "report.md")]):
        args = bench.parse_args(["--datasets", "my data", "adult", "--data-dir", str(tmp_path), *argv])
        words = shlex.split(bench.command_of(args, datasets, tmp_path))
        assert words[:2] == ["python", "benchmarks/libre_paper.py"]
        again = bench.parse_args(words[2:])
        assert again.datasets == ["my data", "adult"] and again.data_dir == tmp_path
        assert (again.runs, again.out) == (args.runs, args.out)
        for dataset in datasets:
            assert bench.experiment(again, dataset, 0) == bench.experiment(args, dataset, 0)
    pooled = bench.parse_args(["--pooling", "pooled"])
    assert [m["tune"]["pooling"] for m in bench.experiment(pooled, datasets[1], 0)["methods"]] == ["pooled", "pooled"]


def test_only_the_full_default_run_writes_the_main_results_file(bench, tmp_path):
    results = SCRIPT.parent / "results"
    pima = bench.find_dataset("pima", None)
    assert bench.default_out(bench.parse_args([]), [pima]) == results / "libre_paper.md"
    assert bench.default_out(bench.parse_args(["--quick"]), [pima]) == results / "libre_paper_quick.md"
    write_csv(tmp_path / "mine.csv", 50, ("a", "b"))
    mine = bench.find_dataset(str(tmp_path / "mine.csv"), None)
    args = bench.parse_args(["--datasets", "pima", str(tmp_path / "mine.csv")])
    assert bench.default_out(args, [pima, mine]) == results / "libre_paper_pima_mine.md"


def test_orange_tab_files_become_csv_frames_with_their_discrete_features_categorical():
    spec = importlib.util.spec_from_file_location("orange_datasets", SCRIPT.parent / "orange_datasets.py")
    orange = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(orange)
    text = "\n".join(["age\tsex\tthal\tid\tdisease",
                      "c\td\tnormal fixed\\ defect\tc\td",
                      "\t\t\ti\tclass",
                      "63\tmale\tfixed defect\t1\t0",
                      "?\tfemale\tnormal\t2\t1",
                      "41\t?\tnormal\t3\t1"])
    frame, categorical = orange.read_tab(text, "disease")
    assert list(frame.columns) == ["age", "sex", "thal", "class"]  # "id" is flagged ignore
    assert categorical == ["sex", "thal"]  # "d" and a list of values; "c" is continuous
    assert frame["class"].tolist() == ["0", "1", "1"]
    assert frame["age"].tolist() == ["63", "", "41"] and frame["sex"].tolist() == ["male", "female", ""]
