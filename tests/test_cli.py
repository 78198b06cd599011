"""The command line: `optrules fit` prints readable rules, metrics and the solve report."""

from __future__ import annotations

import re
import sys

import pytest

import optrules
from optrules.cli import main


def test_fit_tic_tac_toe_with_the_ilp(capsys):
    assert main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover"]) == 0
    out = capsys.readouterr().out
    assert "IF (" in out and "THEN class = positive" in out and "ELSE class = negative" in out
    assert "top-left-square in {x}" in out
    test_f1 = float(re.search(r"^test\s+[\d.]+\s+[\d.]+\s+([\d.]+)", out, re.M).group(1))
    assert test_f1 >= 0.95
    assert re.search(r"solver highs .*status optimal", out)


def test_params_and_solver_are_passed(capsys):
    code = main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover", "--solver", "scip",
                 "--param", "max_rules=2", "--param", 'candidates={"max_len": 3}'])
    assert code == 0
    out = capsys.readouterr().out
    assert re.search(r"^rules 2,", out, re.M)
    assert "solver scip" in out


def test_bad_parameter_is_a_clear_error(capsys):
    assert main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover", "--param", "alpah=1"]) == 2
    assert "unknown parameter(s) ['alpah']" in capsys.readouterr().err


def test_unknown_dataset_is_rejected(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--dataset", "nope", "--method", "setcover"])
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_fit_takes_a_time_limit_and_prints_the_exact_part(capsys):
    assert main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover", "--time-limit", "30"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^exact part: status \w+ \(\w+\), objective ", out, re.M)  # whatever 30 s reach here
    assert re.search(r"^seconds: [\d.]+ in the exact part \(time limit 30\); build [\d.]+", out, re.M)
    with pytest.raises(SystemExit) as stop:  # argparse's own exit for a bad argument
        main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover", "--time-limit", "-1"])
    assert stop.value.code == 2
    assert "the time limit must be a positive number of seconds, got '-1'" in capsys.readouterr().err


# --------------------------------------------------------------------------- any CSV, version, listings
def _bundled_csv(tmp_path, name: str):
    """The bundled file of ``name`` as a plain CSV in ``tmp_path`` (what a user would export)."""
    import gzip
    from importlib import resources

    from optrules.datasets import info

    entry = info(name)
    packed = resources.files("optrules.datasets").joinpath("data", entry["file"]).read_bytes()
    path = tmp_path / f"{name}.csv"
    path.write_bytes(gzip.decompress(packed))
    return path, entry


def _without_run_details(out: str) -> list[str]:
    """The printed model and metrics, without the header line (it names the data) and the fit time."""
    lines = out.splitlines()[1:]
    return [re.sub(r", fit [\d.]+ s$", "", line) for line in lines]


@pytest.mark.parametrize(("name", "method"), [("tic_tac_toe", "setcover-greedy"), ("heart_statlog", "libre")])
def test_fit_on_the_csv_of_a_bundled_dataset_learns_the_same_rules(tmp_path, capsys, name, method):
    path, entry = _bundled_csv(tmp_path, name)
    assert main(["fit", "--dataset", name, "--method", method]) == 0
    bundled = capsys.readouterr().out
    # heart_statlog codes some categories as numbers: the manifest's categorical columns are named
    command = ["fit", "--csv", str(path), "--positive", entry["positive_class"], "--method", method]
    if entry["categorical"]:
        command += ["--categorical", *entry["categorical"]]
    assert main(command) == 0
    from_csv = capsys.readouterr().out
    assert f"on {path.name}:" in from_csv.splitlines()[0]
    assert _without_run_details(from_csv) == _without_run_details(bundled)
    assert "IF " in from_csv


def test_compare_on_the_csv_of_the_readme_dataset_prints_the_same_models(tmp_path, capsys):
    path, _ = _bundled_csv(tmp_path, "tic_tac_toe")
    methods = ["--methods", "setcover-greedy", "libre", "prepend-ip2"]
    assert main(["compare", "tic_tac_toe", *methods]) == 0
    bundled = capsys.readouterr().out
    assert main(["compare", "--csv", str(path), "--positive", "positive", *methods]) == 0
    from_csv = capsys.readouterr().out
    models = lambda out: out[out.index("\n## "):]  # every method's rules, after the table
    assert models(from_csv) == models(bundled) and "IF " in models(bundled)


def test_compare_on_a_csv_file(tmp_path, capsys):
    path, _ = _bundled_csv(tmp_path, "monk1")
    assert main(["compare", "--csv", str(path), "--positive", "1", "--methods", "setcover-greedy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# monk1: ") and "positive class '1'" in out
    assert re.search(r"^setcover-greedy\s+heuristic\s+[\d.]+", out, re.M)


def test_warnings_read_as_a_command_line_user_s_without_the_package_s_source_lines(tmp_path, capsys):
    """A warning printed the package's file, line and source (config.py:118: UserWarning, then the
    line `return load_csv(...)`); it now names its kind and says its message (review)."""
    import subprocess

    path = tmp_path / "codes.csv"
    path.write_text("code,class\n" + "".join(f"{i % 3},{'xy'[i % 2]}\n" for i in range(60)))
    command = ["compare", "--csv", str(path), "--positive", "x", "--methods", "setcover-greedy"]
    done = subprocess.run([sys.executable, "-m", "optrules.cli", *command], capture_output=True, text=True,
                          cwd=tmp_path, check=True)
    assert "optrules: UserWarning: " in done.stderr and "integers with at most 10 distinct values" in done.stderr
    assert ".py:" not in done.stderr and "load_csv(" not in done.stderr
    with pytest.warns(UserWarning, match="integers with at most 10 distinct values"):  # a caller still records it
        assert main(command) == 0


def test_a_csv_whose_missing_values_are_written_na_learns_the_same_rules_with_missing_na(tmp_path, capsys):
    """The bundled haberman with some numbers blanked, once as empty fields and once written "NA" (as R
    does): with --missing NA the second file gives the first one's rules; without it a warning names
    the column that "NA" made categorical."""
    import pandas as pd

    path, entry = _bundled_csv(tmp_path, "haberman")
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    age = frame.columns[0]
    assert age.startswith("Age")
    frame.loc[::7, age] = ""
    frame.to_csv(tmp_path / "blank.csv", index=False)
    frame.replace({age: {"": "NA"}}).to_csv(tmp_path / "na.csv", index=False)
    command = ["fit", "--positive", entry["positive_class"], "--method", "setcover-greedy"]
    assert main([*command, "--csv", str(tmp_path / "blank.csv")]) == 0
    blank = capsys.readouterr().out
    assert main([*command, "--csv", str(tmp_path / "na.csv"), "--missing", "NA", "--numeric", age]) == 0
    assert _without_run_details(capsys.readouterr().out) == _without_run_details(blank)
    with pytest.warns(UserWarning, match=rf"\['{age}'\] are read as categories.*but \['NA'\] are numbers"):
        assert main(["compare", "--csv", str(tmp_path / "na.csv"), "--positive", entry["positive_class"],
                     "--methods", "setcover-greedy"]) == 0
    capsys.readouterr()


def test_a_label_column_of_many_values_is_questioned(tmp_path, capsys):
    path, _ = _bundled_csv(tmp_path, "haberman")
    import pandas as pd

    frame = pd.read_csv(path)
    assert main(["fit", "--csv", str(path), "--label", frame.columns[0], "--method", "setcover-greedy"]) == 2
    assert re.search(r"has a single row.*the label column has \d+ classes for 306 rows: is it the right column "
                     r"\(--label\)\?", capsys.readouterr().err)


def test_csv_options_are_checked(tmp_path, capsys):
    assert main(["fit", "--csv", str(tmp_path / "absent.csv"), "--method", "libre"]) == 2
    assert "CSV file not found" in capsys.readouterr().err
    assert main(["fit", "--dataset", "monk1", "--label", "y", "--method", "libre"]) == 2
    assert "--label, --categorical, --numeric and --missing describe a CSV file" in capsys.readouterr().err
    assert main(["compare", "monk1", "--missing", "NA"]) == 2
    assert "describe a CSV file: give them with --csv PATH" in capsys.readouterr().err
    assert main(["compare"]) == 2
    assert "a bundled dataset name or --csv PATH" in capsys.readouterr().err
    path, _ = _bundled_csv(tmp_path, "monk1")
    assert main(["fit", "--csv", str(path), "--label", "target", "--method", "libre"]) == 2
    assert "target" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fit", "--dataset", "monk1", "--csv", str(path), "--method", "libre"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_version_help_and_dataset_listing(capsys):
    from optrules import __version__

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"optrules {__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = capsys.readouterr().out
    assert "``" not in help_text and "Interpretable classifiers" in help_text
    assert main(["datasets"]) == 0
    listing = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:]}
    assert re.search(r"^tic_tac_toe\s+958\s+9\s+positive\s+positive: 626, negative: 332$", listing["tic_tac_toe"])
    # no conventional positive class: the one the estimators pick (fewest samples, ties to the last sorted)
    assert re.search(r"\s+1 \(tie, last in order\)\s+", listing["monk1"])  # 278 each: no minority, '1' sorts last
    assert re.search(r"\s+vgood \(minority\)\s+", listing["car_evaluation"])


def test_fit_of_a_randomised_method_is_reproducible_with_its_seed(capsys):
    runs = []
    for _ in range(2):
        assert main(["fit", "--dataset", "heart_statlog", "--method", "libre", "--seed", "3"]) == 0
        runs.append(_without_run_details(capsys.readouterr().out))
    assert runs[0] == runs[1]
    assert main(["fit", "--dataset", "heart_statlog", "--method", "libre", "--param", "random_state=4"]) == 0
    assert "IF " in capsys.readouterr().out  # an explicit random_state is taken as given


def test_fit_scores_a_binary_method_on_its_task_as_compare_does(capsys):
    """On car_evaluation (4 classes) a rule set predicts 'vgood' or one stand-in class: fit printed its
    accuracy against all four labels (every row of the other two classes an error), compare and run
    score it positive against the rest. The printed test accuracy is that one-vs-rest figure."""
    from sklearn.model_selection import train_test_split

    import optrules

    assert main(["fit", "--dataset", "car_evaluation", "--method", "setcover-greedy", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "('vgood' against the rest)" in out
    printed = [float(v) for v in next(line for line in out.splitlines() if line.startswith("test")).split()[1:]]
    X, y = optrules.load("car_evaluation")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    predicted = optrules.fit(X_train, y_train, method="setcover-greedy").predict(X_test) == "vgood"
    truth = (y_test == "vgood").to_numpy()
    assert printed[0] == pytest.approx((predicted == truth).mean(), abs=5e-4)
    assert printed[0] > 0.9  # against all four labels it printed 0.699


def test_fit_reproduces_the_rules_compare_prints_for_a_randomised_method(capsys):
    """compare gave randomised methods a random_state derived from its seed and fit the seed itself,
    so fit's libre rules differed from compare's on the same split; both derive it the same way now,
    and compare's header says which it was."""
    from optrules.experiments.config import method_seed

    assert main(["compare", "heart_statlog", "--methods", "libre", "--seed", "0"]) == 0
    compared = capsys.readouterr().out
    assert f"random_state {method_seed(0, 0)}" in compared
    assert main(["fit", "--dataset", "heart_statlog", "--method", "libre", "--seed", "0"]) == 0
    fitted = capsys.readouterr().out
    rules = fitted.split("\n\n")[1]  # the Ruleset as printed, between the header and the scores
    assert rules.startswith("IF") and rules in compared
    # with random_state = the seed itself (fit before) the rules on heart_statlog differ
    assert main(["fit", "--dataset", "heart_statlog", "--method", "libre", "--seed", "0", "--param", "random_state=0"]) == 0
    assert capsys.readouterr().out.split("\n\n")[1] not in compared


def test_fit_s_errors_fit_the_command(tmp_path, capsys):
    """--time-limit on a heuristic said "unknown parameter(s) ['solver_options']", which the user never
    wrote; a class of one row gave scikit-learn's message about groups."""
    assert main(["fit", "--dataset", "tic_tac_toe", "--method", "prepend", "--time-limit", "5"]) == 2
    assert "--time-limit applies to methods that solve models; 'prepend' solves none" in capsys.readouterr().err
    path = tmp_path / "one.csv"
    path.write_text("a,class\n1,x\n2,x\n3,y\n4,x\n5,z\n6,z\n")
    assert main(["fit", "--csv", str(path), "--method", "setcover-greedy", "--positive", "x"]) == 2
    assert "class 'y' has a single row, so the hold-out split cannot be stratified" in capsys.readouterr().err


def test_a_dataset_after_methods_is_named_and_a_closed_pipe_ends_quietly(capsys, monkeypatch):
    assert main(["compare", "--methods", "setcover-greedy", "libre", "monk1"]) == 2
    assert "'monk1' is a dataset, read as one of --methods" in capsys.readouterr().err
    assert main(["compare", "monk1", "--test-size", "0"]) == 2  # was "train_size ... got 1.0"
    assert "test_size (--test-size) must be a fraction of the rows in (0, 1), got 0.0" in capsys.readouterr().err
    assert main(["fit", "--dataset", "monk1", "--method", "libre", "--positive", "1", "--param", "positive=0"]) == 2
    assert "--positive '1' and --param positive=0 name different classes" in capsys.readouterr().err
    assert main(["fit", "--dataset", "monk1", "--method", "libre", "--positive", "1", "--param", "positive=1.0"]) == 0
    capsys.readouterr()  # 1.0 and "1" name one label: no conflict

    class ClosedPipe:  # what `optrules datasets | head -1` gives once head has exited
        def __init__(self, buffered: bool) -> None:
            self.buffered = buffered  # a buffered stdout fails only when flushed (at exit, before the fix)

        def write(self, _):
            if not self.buffered:
                raise BrokenPipeError

        def flush(self):
            raise BrokenPipeError

    for buffered in (False, True):
        monkeypatch.setattr(sys, "stdout", ClosedPipe(buffered))
        assert main(["datasets"]) == 1  # as Python exits on a broken pipe, without a traceback


def test_a_positive_class_given_as_1_names_the_label_1_0_of_a_csv(tmp_path, capsys):
    """pandas writes a 0/1 label as 0.0 / 1.0: `--positive 1` was refused by fit while `--param
    positive=1` and the Python API took it."""
    X, y = optrules.load("tic_tac_toe")
    path = tmp_path / "coded.csv"
    X.assign(**{"class": (y == "positive").astype(float)}).to_csv(path, index=False)
    assert set(optrules.datasets.load_csv(path, positive=1)[1].attrs.items()) >= {("positive", "1.0")}
    assert main(["fit", "--csv", str(path), "--positive", "1", "--method", "setcover-greedy"]) == 0
    assert "positive class '1.0'" in capsys.readouterr().out
    with pytest.raises(ValueError, match="positive class 2 is not a value"):
        optrules.datasets.load_csv(path, positive=2)


@pytest.mark.parametrize(("flag", "message"), [
    (["--test-size", "3"], r"--test-size must be a fraction of the rows in \(0, 1\), got 3.0"),
    (["--seed", "-1"], r"--seed must be an integer in \[0, 2\*\*32\), got -1"),
])
def test_fit_names_a_bad_split_flag(capsys, flag, message):
    """scikit-learn's train_test_split messages named neither flag (and allowed whole numbers)."""
    assert main(["fit", "--dataset", "monk1", "--method", "setcover-greedy", *flag]) == 2
    assert re.search(message, capsys.readouterr().err)


def test_fit_says_a_multi_class_list_is_scored_on_every_class(capsys):
    assert main(["fit", "--dataset", "car_evaluation", "--method", "prepend"]) == 0
    out = capsys.readouterr().out
    assert "every class learned, F1 of 'vgood'" in out and "(all 4 classes; F1 of 'vgood')" in out
    assert main(["fit", "--dataset", "car_evaluation", "--method", "setcover-greedy"]) == 0
    assert "('vgood' against the rest)" in capsys.readouterr().out
