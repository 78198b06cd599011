"""Tests for optrules.datasets: bundled data sets and the CSV loader."""

from __future__ import annotations

import gzip
import json
import math
import warnings
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from optrules import datasets

EXPECTED_NAMES = [
    "adult",
    "australian",
    "breast_cancer",
    "car_evaluation",
    "german",
    "haberman",
    "heart_statlog",
    "house_votes_84",
    "monk1",
    "monk2",
    "monk3",
    "mushroom",
    "pima",
    "tic_tac_toe",
    "wisconsin",
]


def _raw_manifest() -> list[dict]:
    """The manifest read straight from the package data, bypassing the API."""
    path = resources.files("optrules.datasets").joinpath("data").joinpath("manifest.json")
    return json.loads(path.read_text(encoding="utf-8"))


MANIFEST = {entry["name"]: entry for entry in _raw_manifest()}


def _is_string_categorical(series: pd.Series) -> bool:
    return isinstance(series.dtype, pd.CategoricalDtype) and all(
        isinstance(v, str) for v in series.cat.categories
    )


# --------------------------------------------------------------------------
# Bundled data sets
# --------------------------------------------------------------------------


def test_list_datasets_is_sorted_manifest_names() -> None:
    names = datasets.list_datasets()
    assert names == EXPECTED_NAMES
    assert names == sorted(MANIFEST)


def test_all_data_files_are_bundled() -> None:
    data = resources.files("optrules.datasets").joinpath("data")
    for entry in MANIFEST.values():
        assert data.joinpath(entry["file"]).is_file(), entry["file"]
    assert data.joinpath("README.md").is_file()


@pytest.mark.parametrize("name", EXPECTED_NAMES)
def test_load_matches_manifest(name: str) -> None:
    entry = MANIFEST[name]
    X, y = datasets.load(name)

    assert isinstance(X, pd.DataFrame)
    assert isinstance(y, pd.Series)
    assert X.shape == (entry["n_rows"], entry["n_features"])
    assert len(y) == entry["n_rows"]
    assert y.name == "class"
    assert "class" not in X.columns
    assert set(X.columns) == set(entry["categorical"]) | set(entry["numeric"])

    # Class values are strings and the counts agree with the manifest.
    assert all(isinstance(v, str) for v in y)
    assert y.value_counts().to_dict() == entry["classes"]
    assert y.attrs["positive"] == entry["positive_class"]
    if entry["positive_class"] is not None:
        assert entry["positive_class"] in set(y)

    # Missing cells are NaN in X; labels are never missing.
    assert int(X.isna().sum().sum()) == entry["missing_cells"]
    assert not y.isna().any()

    for col in entry["categorical"]:
        assert _is_string_categorical(X[col]), (name, col, X[col].dtype)
    for col in entry["numeric"]:
        assert X[col].dtype == np.float64, (name, col, X[col].dtype)


def test_categorical_codes_stay_strings() -> None:
    X, _ = datasets.load("australian")
    assert set(X["A4"].cat.categories) == {"1", "2", "3"}
    X, _ = datasets.load("monk1")
    assert set(X["a5"].cat.categories) == {"1", "2", "3", "4"}
    X, _ = datasets.load("german")
    assert set(X["checking_status"].cat.categories) == {"A11", "A12", "A13", "A14"}
    X, _ = datasets.load("breast_cancer")
    assert set(X["deg-malig"].cat.categories) == {"1", "2", "3"}
    assert "40-49" in set(X["age"].cat.categories)
    X, y = datasets.load("heart_statlog")
    assert set(X["thal"].cat.categories) == {"3", "6", "7"}
    assert X["age"].dtype == np.float64


def test_house_votes_missing_values_are_nan() -> None:
    X, y = datasets.load("house_votes_84")
    assert set(y) == {"democrat", "republican"}
    for col in X.columns:
        assert set(X[col].cat.categories) == {"n", "y"}
        # "?" was turned into missing, not kept as a category.
        assert "?" not in set(X[col].cat.categories)
    assert X["export-administration-act-south-africa"].isna().sum() == 104
    assert X["immigration"].isna().sum() == 7
    missing = X.isna()
    assert int(missing.sum().sum()) == 392
    # Missing entries of a categorical column are real NaN (code -1).
    col = X["mx-missile"]
    assert (col.cat.codes[col.isna()] == -1).all()
    assert all(isinstance(v, float) and math.isnan(v) for v in col[col.isna()])


def test_numeric_missing_values_are_nan() -> None:
    X, _ = datasets.load("wisconsin")
    assert X["Bare_Nuclei"].dtype == np.float64
    assert int(X["Bare_Nuclei"].isna().sum()) == 16
    assert X.drop(columns="Bare_Nuclei").notna().all().all()


def test_name_is_normalised() -> None:
    X1, _ = datasets.load("house_votes_84")
    X2, _ = datasets.load("  House-Votes-84 ")
    pd.testing.assert_frame_equal(X1, X2)


def test_unknown_name_lists_known_names() -> None:
    with pytest.raises(ValueError, match=r"unknown dataset 'no_such_data'") as err:
        datasets.load("no_such_data")
    message = str(err.value)
    for name in EXPECTED_NAMES:
        assert name in message


def test_unknown_name_suggests_close_match() -> None:
    with pytest.raises(ValueError, match=r"Did you mean 'mushroom'\?"):
        datasets.load("mushrooms")
    with pytest.raises(ValueError, match=r"unknown dataset"):
        datasets.info("nope")


def test_non_string_name_is_type_error() -> None:
    with pytest.raises(TypeError, match="must be a str"):
        datasets.load(3)  # type: ignore[arg-type]


def test_load_returns_independent_copies() -> None:
    X1, y1 = datasets.load("tic_tac_toe")
    original_first = X1.iloc[0].tolist()
    original_label = y1.iloc[0]

    X1.iloc[0, 0] = "x" if X1.iloc[0, 0] != "x" else "o"
    X1["extra"] = 1.0
    y1.iloc[0] = "negative" if original_label == "positive" else "positive"
    y1.attrs["positive"] = "changed"

    X2, y2 = datasets.load("tic_tac_toe")
    assert "extra" not in X2.columns
    assert X2.iloc[0].tolist() == original_first
    assert y2.iloc[0] == original_label
    assert y2.attrs["positive"] == "positive"
    assert X2 is not X1 and y2 is not y1


def test_info_entry() -> None:
    entry = datasets.info("adult")
    assert entry["name"] == "adult"
    assert entry["n_rows"] == 48842
    assert entry["n_features"] == 14
    assert entry["positive_class"] == ">50K"
    assert entry["classes"] == {"<=50K": 37155, ">50K": 11687}
    assert "Kohavi" in entry["citation"]
    # Mutating the returned dict does not leak back.
    entry["classes"]["<=50K"] = 0
    assert datasets.info("adult")["classes"]["<=50K"] == 37155


@pytest.mark.parametrize("name", EXPECTED_NAMES)
def test_info_has_citation(name: str) -> None:
    entry = datasets.info(name)
    assert entry["n_rows"] == MANIFEST[name]["n_rows"]
    assert isinstance(entry["citation"], str)
    assert "UCI" in entry["citation"]


# --------------------------------------------------------------------------
# load_csv
# --------------------------------------------------------------------------

CSV_TEXT = (
    "flag,colour,size,code,class\n"
    "True,red,1.5,1,yes\n"
    "False,blue,,2,no\n"
    ",red,3,3,yes\n"
    "True,,4.25,1,no\n"
    "False,green,-2,2,yes\n"
)


@pytest.fixture(params=["plain", "gzip", "gzip_no_suffix"])
def csv_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "plain":
        path = tmp_path / "toy.csv"
        path.write_text(CSV_TEXT, encoding="utf-8")
    else:
        name = "toy.csv.gz" if request.param == "gzip" else "toy.data"
        path = tmp_path / name
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(CSV_TEXT)
    return path


def test_load_csv_types_and_missing(csv_path: Path) -> None:
    X, y = datasets.load_csv(csv_path)

    assert list(X.columns) == ["flag", "colour", "size", "code"]
    assert y.name == "class"
    assert y.tolist() == ["yes", "no", "yes", "no", "yes"]
    assert y.attrs["positive"] is None

    # bool column -> category of the strings in the file, missing -> NaN
    assert _is_string_categorical(X["flag"])
    assert set(X["flag"].cat.categories) == {"True", "False"}
    assert X["flag"].isna().tolist() == [False, False, True, False, False]

    # string column -> category, missing -> NaN
    assert _is_string_categorical(X["colour"])
    assert set(X["colour"].cat.categories) == {"red", "blue", "green"}
    assert X["colour"].isna().tolist() == [False, False, False, True, False]

    # numeric columns -> float64, missing -> NaN
    assert X["size"].dtype == np.float64
    np.testing.assert_array_equal(
        X["size"].to_numpy(), np.array([1.5, np.nan, 3.0, 4.25, -2.0])
    )
    assert X["code"].dtype == np.float64
    assert X["code"].tolist() == [1.0, 2.0, 3.0, 1.0, 2.0]


def test_load_csv_plain_and_gzip_agree(tmp_path: Path) -> None:
    plain = tmp_path / "a.csv"
    plain.write_text(CSV_TEXT, encoding="utf-8")
    packed = tmp_path / "a.csv.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as fh:
        fh.write(CSV_TEXT)
    X1, y1 = datasets.load_csv(str(plain))
    X2, y2 = datasets.load_csv(packed)
    pd.testing.assert_frame_equal(X1, X2)
    pd.testing.assert_series_equal(y1, y2)


def test_load_csv_forced_categorical(csv_path: Path) -> None:
    X, _ = datasets.load_csv(csv_path, categorical=["code", "size"])
    assert _is_string_categorical(X["code"])
    assert set(X["code"].cat.categories) == {"1", "2", "3"}
    assert _is_string_categorical(X["size"])
    assert set(X["size"].cat.categories) == {"1.5", "3", "4.25", "-2"}
    assert X["size"].isna().sum() == 1


def test_load_csv_other_label_and_positive(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_text("x,target\n1,0\n2,1\n3,1\n", encoding="utf-8")
    X, y = datasets.load_csv(path, label="target", positive="1")
    assert list(X.columns) == ["x"]
    assert y.name == "target"
    # positive is validated and recorded, y itself is unchanged
    assert y.tolist() == ["0", "1", "1"]
    assert y.attrs["positive"] == "1"
    # a non-string positive is compared through str()
    _, y = datasets.load_csv(path, label="target", positive=1)
    assert y.attrs["positive"] == "1"


def test_load_csv_only_empty_fields_are_missing(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text("v,class\nNA,a\n?,b\n,a\n", encoding="utf-8")
    X, _ = datasets.load_csv(path)
    assert _is_string_categorical(X["v"])
    assert set(X["v"].cat.categories) == {"NA", "?"}
    assert X["v"].isna().sum() == 1


def test_load_csv_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "does_not_exist.csv"
    with pytest.raises(FileNotFoundError, match="does_not_exist.csv"):
        datasets.load_csv(missing)


def test_load_csv_missing_label(csv_path: Path) -> None:
    with pytest.raises(
        ValueError, match=r"label column 'target' not found.*columns present: .*'colour'"
    ):
        datasets.load_csv(csv_path, label="target")


def test_load_csv_bad_positive(csv_path: Path) -> None:
    with pytest.raises(
        ValueError, match=r"positive class 'maybe'.*classes present: \['no', 'yes'\]"
    ):
        datasets.load_csv(csv_path, positive="maybe")


def test_load_csv_unknown_categorical_column(csv_path: Path) -> None:
    with pytest.raises(ValueError, match=r"categorical columns not found.*'weight'"):
        datasets.load_csv(csv_path, categorical=["weight"])
    with pytest.raises(ValueError, match=r"label column 'class' cannot"):
        datasets.load_csv(csv_path, categorical=["class"])


def test_load_csv_missing_labels_rejected(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("x,class\n1,a\n2,\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"1 missing value"):
        datasets.load_csv(path)


def test_load_csv_reads_bundled_file_like_load() -> None:
    entry = MANIFEST["german"]
    ref = resources.files("optrules.datasets").joinpath("data").joinpath(entry["file"])
    with resources.as_file(ref) as path, warnings.catch_warnings():
        warnings.simplefilter("error")  # the manifest types every column: nothing to warn about
        X, y = datasets.load_csv(
            path, positive="bad", categorical=entry["categorical"], numeric=entry["numeric"]
        )
    X_ref, y_ref = datasets.load("german")
    pd.testing.assert_frame_equal(X, X_ref)
    assert y.tolist() == y_ref.tolist()
    assert y.attrs["positive"] == "bad"


def test_load_csv_warns_about_integer_codes_read_as_numbers(tmp_path: Path) -> None:
    path = tmp_path / "codes.csv"
    path.write_text(
        "bit,grade,amount,ratio,few,class\n"
        "0,1,120,0.5,7,a\n"
        "1,2,80,1.5,8,b\n"
        "1,3,95,2.5,9,a\n"
        "0,1,130,0.5,7,b\n"
        ",2,101,1.0,8,a\n"
        "1,3,99,3.0,9,b\n",
        encoding="utf-8",
    )
    # bit (0/1) and grade (3 codes) repeat their few integer values; amount has 6 distinct values in
    # 6 rows, ratio is not integer, few (7-9) repeats too
    with pytest.warns(UserWarning, match=r"column\(s\) \['bit', 'grade', 'few'\] hold integers") as caught:
        X, _ = datasets.load_csv(path)
    message = str(caught[0].message)
    assert "categorical=" in message and "numeric=" in message
    assert all(X[c].dtype == np.float64 for c in ("bit", "grade", "amount", "ratio", "few"))
    # categorical= and numeric= type them and silence the warning, column by column
    with pytest.warns(UserWarning, match=r"column\(s\) \['few'\] hold"):
        X, _ = datasets.load_csv(path, categorical=["bit", "grade"])
    assert _is_string_categorical(X["grade"]) and set(X["grade"].cat.categories) == {"1", "2", "3"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X, _ = datasets.load_csv(path, categorical=["bit", "grade"], numeric=["few"])
    assert X["few"].dtype == np.float64 and X["few"].tolist() == [7.0, 8.0, 9.0, 7.0, 8.0, 9.0]


def test_load_csv_reads_missing_markers_and_warns_when_one_made_a_number_column_categorical(tmp_path: Path) -> None:
    """``NA`` (as R writes a missing value) in a column of numbers made every number a category of its
    own without a word: now a warning names the column and the marker, and ``missing=`` reads it as
    missing, in every column, label included."""
    path = tmp_path / "r.csv"
    rows = [f"{10 + i},{'NA' if i % 5 == 0 else 0.5 * i},{'yes' if i % 2 else 'no'},{'a' if i < 12 else 'b'}"
            for i in range(24)]
    path.write_text("count,level,answer,class\n" + "\n".join(rows) + "\n", encoding="utf-8")
    with pytest.warns(UserWarning, match=r"column\(s\) \['level'\] are read as categories.*but \['NA'\] are numbers"
                      r".*missing="):
        X, _ = datasets.load_csv(path)
    assert X["level"].dtype == "category" and X["answer"].dtype == "category"  # yes/no: text, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X, _ = datasets.load_csv(path, missing=["NA"])
        kept, _ = datasets.load_csv(path, categorical=["level"])  # a column meant as categories: said so
    assert X["level"].dtype == np.float64 and X["level"].isna().tolist() == [i % 5 == 0 for i in range(24)]
    assert kept["level"].dtype == "category" and "NA" in set(kept["level"].cat.categories)
    label_path = tmp_path / "l.csv"
    label_path.write_text("x,class\n1,a\n2,?\n3,b\n", encoding="utf-8")
    with pytest.raises(ValueError, match="label column 'class' .* 1 missing value"):
        datasets.load_csv(label_path, missing=["?"])
    with pytest.raises(ValueError, match="missing must be a list of strings"):
        datasets.load_csv(path, missing=[None])
    X, _ = datasets.load_csv(path, missing="NA")  # one marker, not its letters N and A
    assert X["level"].dtype == np.float64 and (X["answer"] == "yes").sum() == 12
    # a few words among a few codes (car_evaluation's doors: 2, 3, 4, 5more) are categories: no warning
    codes = tmp_path / "doors.csv"
    codes.write_text("doors,class\n" + "".join(f"{d},{c}\n" for d, c in zip(["2", "3", "4", "5more"] * 5, "ab" * 10)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert datasets.load_csv(codes)[0]["doors"].dtype == "category"


def test_load_csv_numeric_columns_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("n,t,class\n1,x,a\n2,?,b\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"numeric column 't' .* not numbers: \['\?', 'x'\]"):
        datasets.load_csv(path, numeric=["t"])
    with pytest.raises(ValueError, match=r"both as categorical and as numeric: \['n'\]"):
        datasets.load_csv(path, categorical=["n"], numeric=["n"])
    with pytest.raises(ValueError, match=r"numeric columns not found .*\['m'\]"):
        datasets.load_csv(path, numeric=["m"])
    with pytest.raises(ValueError, match="label column 'class' cannot also be listed in numeric"):
        datasets.load_csv(path, numeric=["class"])


def test_a_configurations_numeric_and_categorical_reach_load_csv(tmp_path: Path) -> None:
    from optrules.experiments import load_config

    path = tmp_path / "codes.csv"
    path.write_text("bit,n,class\n0,1,a\n1,2,b\n1,1,a\n0,2,b\n", encoding="utf-8")
    config = load_config({"datasets": [{"path": str(path), "categorical": ["bit"], "numeric": ["n"]}],
                          "methods": [{"name": "setcover-greedy"}]})
    assert load_config(config.to_dict()) == config
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X, _ = config.datasets[0].load()
    assert _is_string_categorical(X["bit"]) and X["n"].dtype == np.float64


def test_load_csv_warns_about_an_unnamed_column_that_counts_the_rows(tmp_path: Path) -> None:
    """A frame written with pandas' index (to_csv without index=False) leaks the row order as a feature."""
    frame = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5], "class": ["a", "b", "a", "b"]})
    frame.to_csv(tmp_path / "indexed.csv")
    with pytest.warns(UserWarning, match=r"column\(s\) \['Unnamed: 0'\] have no name in the header and hold a "
                                         r"distinct whole number per row"):
        X, _ = datasets.load_csv(tmp_path / "indexed.csv")
    assert list(X.columns) == ["Unnamed: 0", "x"]  # said, not dropped: it may mean something
    frame.iloc[[0, 2, 3]].to_csv(tmp_path / "filtered.csv")  # an index with gaps, after a filter: still one
    with pytest.warns(UserWarning, match=r"\['Unnamed: 0'\] have no name"):
        datasets.load_csv(tmp_path / "filtered.csv")
    frame.to_csv(tmp_path / "plain.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        datasets.load_csv(tmp_path / "plain.csv")


def test_load_csv_names_the_file_it_cannot_read_and_a_separator_it_does_not_use(tmp_path: Path) -> None:
    (tmp_path / "semi.csv").write_text("a;b;class\n1;2;x\n3;4;y\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"columns present: \['a;b;class'\] \(one column whose name holds ';': "
                                         r"the file is not comma-separated\)"):
        datasets.load_csv(tmp_path / "semi.csv")
    (tmp_path / "latin.csv").write_bytes(b"a,class\n\xe9t\xe9,x\n")
    with pytest.raises(ValueError, match=r"latin\.csv' cannot be read as a CSV file .*utf-8"):
        datasets.load_csv(tmp_path / "latin.csv")
    (tmp_path / "ragged.csv").write_text("a,class\n1,x\n2,y,3\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"ragged\.csv' cannot be read as a CSV file .*Expected 2 fields"):
        datasets.load_csv(tmp_path / "ragged.csv")


@pytest.mark.parametrize("header", ["noise,class,class", "a,a,class"])
def test_load_csv_refuses_a_header_that_repeats_a_name(tmp_path: Path, header: str) -> None:
    """pandas renames the second copy ('class.1'): a repeated label column became a feature that
    gave the label away, with no word."""
    path = tmp_path / "repeated.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(header + "\n" + "".join(f"{i},{'yes' if i % 2 else 'no'},{'yes' if i % 2 else 'no'}\n"
                                         for i in range(6)))
    repeated = "class" if header.count("class") == 2 else "a"
    with pytest.raises(ValueError, match=rf"repeats column name\(s\) \['{repeated}'\]"):
        datasets.load_csv(path, label="class")


def test_load_csv_refuses_a_file_without_rows_and_keeps_unnamed_columns_apart(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("a,b,class\n", encoding="utf-8")
    with pytest.raises(ValueError, match="has a header but no data rows"):
        datasets.load_csv(empty, label="class")
    unnamed = tmp_path / "unnamed.csv"  # two empty names are two columns, 'Unnamed: 1' and 'Unnamed: 2'
    unnamed.write_text("a,,,class\n1,x,y,yes\n2,x,z,no\n", encoding="utf-8")
    X, _ = datasets.load_csv(unnamed, label="class")
    assert list(X.columns) == ["a", "Unnamed: 1", "Unnamed: 2"]
