"""Tests for optrules.data: feature and target validation, the schema, the positive class."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from optrules.data import Schema, binarize_target, class_order, validate_features, validate_target

NAN = float("nan")


# ---------------------------------------------------------------------------------------------
# validate_features: DataFrames
# ---------------------------------------------------------------------------------------------

def _mixed_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "int8": np.array([1, 2, 3], dtype="int8"),
        "int64": np.array([4, 5, 6], dtype="int64"),
        "uint": np.array([7, 8, 9], dtype="uint32"),
        "float32": np.array([1.5, NAN, 2.5], dtype="float32"),
        "nullable_int": pd.array([1, None, 3], dtype="Int64"),
        "bool": [True, False, True],
        "nullable_bool": pd.array([True, None, False], dtype="boolean"),
        "object": pd.Series(["a", None, "b"], dtype=object),
        "string": pd.Series(["a", None, "b"], dtype="string"),
        "default_str": ["a", None, "b"],
        "category": pd.Categorical(["x", None, "y"]),
        "int_category": pd.Categorical([1, None, 2]),
    })


CATEGORICAL_COLUMNS = {"bool", "nullable_bool", "object", "string", "default_str", "category", "int_category"}


def test_dataframe_dtypes_decide_categorical_or_numeric():
    df = _mixed_frame()
    X, schema = validate_features(df)
    assert isinstance(schema, Schema)
    assert schema.features == tuple(df.columns)
    assert dict(zip(schema.features, schema.categorical)) == {c: c in CATEGORICAL_COLUMNS for c in df.columns}
    assert set(schema.categorical_features) == CATEGORICAL_COLUMNS
    assert schema.numeric_features == ("int8", "int64", "uint", "float32", "nullable_int")
    assert schema.is_categorical("category") and not schema.is_categorical("int64")
    assert list(X.columns) == list(df.columns)


def test_numeric_columns_become_float_with_nan():
    X, schema = validate_features(_mixed_frame())
    for name in schema.numeric_features:
        assert X[name].dtype == np.float64, name
    assert X["int64"].tolist() == [4.0, 5.0, 6.0]
    assert X["float32"].iloc[0] == 1.5 and math.isnan(X["float32"].iloc[1])
    assert X["nullable_int"].iloc[2] == 3.0 and math.isnan(X["nullable_int"].iloc[1])


def test_categorical_columns_become_object_with_none_for_missing():
    X, schema = validate_features(_mixed_frame())
    for name in schema.categorical_features:
        assert X[name].dtype == object, name
        assert X[name].iloc[1] is None or name == "bool", name
    assert X["object"].tolist() == ["a", None, "b"]
    assert X["string"].tolist() == ["a", None, "b"]
    assert X["default_str"].tolist() == ["a", None, "b"]
    assert X["category"].tolist() == ["x", None, "y"]
    assert X["bool"].tolist() == [True, False, True]
    assert [type(v) for v in X["bool"]] == [bool, bool, bool]
    assert X["nullable_bool"].tolist() == [True, None, False]
    # an int-valued category keeps its int values (not 1.0)
    assert X["int_category"].tolist() == [1, None, 2]
    assert type(X["int_category"].iloc[0]) is not float


def test_dataframe_categorical_by_name_or_index():
    df = pd.DataFrame({"a": [1, 2, 1], "b": [0.5, 1.5, 2.5]})
    _, schema = validate_features(df, categorical=["a"])
    assert schema.categorical == (True, False)
    X, schema = validate_features(df, categorical=[0])
    assert schema.categorical == (True, False)
    assert X["a"].tolist() == [1, 2, 1]
    with pytest.raises(ValueError, match="categorical column 'zz' is not a feature of X"):
        validate_features(df, categorical=["zz"])


def test_dataframe_index_is_reset_and_names_are_strings():
    df = pd.DataFrame({0: [1.0, 2.0], "b": ["u", "v"]}, index=[10, 20])
    X, schema = validate_features(df)
    assert schema.features == ("0", "b")
    assert list(X.index) == [0, 1]
    assert X["0"].tolist() == [1.0, 2.0]


def test_input_is_not_modified():
    df = _mixed_frame()
    before = df.copy()
    validate_features(df)
    pd.testing.assert_frame_equal(df, before)


# ---------------------------------------------------------------------------------------------
# validate_features: arrays
# ---------------------------------------------------------------------------------------------

def test_numpy_array_is_numeric_unless_declared_categorical():
    array = np.array([[1, 0.5, "a"], [2, None, "b"], [1, 2.0, None]], dtype=object)
    X, schema = validate_features(array, categorical=[0, 2])
    assert schema.features == ("x0", "x1", "x2")
    assert schema.categorical == (True, False, True)
    assert X["x0"].tolist() == [1, 2, 1]
    assert X["x1"].dtype == np.float64
    assert X["x1"].iloc[0] == 0.5 and math.isnan(X["x1"].iloc[1])
    assert X["x2"].dtype == object and X["x2"].tolist() == ["a", "b", None]


def test_float_array_and_feature_names():
    array = np.array([[1.0, NAN], [2.0, 3.0]])
    X, schema = validate_features(array, feature_names=["p", "q"])
    assert schema == Schema(("p", "q"), (False, False))
    assert X["p"].tolist() == [1.0, 2.0]
    X, schema = validate_features(array, feature_names=["p", "q"], categorical=["q"])
    assert schema.categorical == (False, True)
    assert X["q"].iloc[0] is None and X["q"].iloc[1] == 3.0


def test_non_string_feature_names_become_strings():
    # DataFrame columns are named by str(column); array feature names must match that convention
    _, schema = validate_features(np.array([[1.0, 2.0]]), feature_names=[5, 6], categorical=["6"])
    assert schema.features == ("5", "6")
    assert schema.categorical == (False, True)


def test_list_of_lists_is_accepted():
    X, schema = validate_features([[1, "a"], [2, "b"]], categorical=[1])
    assert schema.categorical == (False, True)
    assert X["x0"].tolist() == [1.0, 2.0]
    assert X["x1"].tolist() == ["a", "b"]


# ---------------------------------------------------------------------------------------------
# validate_features: errors
# ---------------------------------------------------------------------------------------------

def test_empty_x_is_rejected():
    with pytest.raises(ValueError, match="no samples"):
        validate_features(pd.DataFrame({"a": pd.Series([], dtype=float)}))
    with pytest.raises(ValueError, match="no samples"):
        validate_features(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="no features"):
        validate_features(pd.DataFrame(index=range(3)))
    with pytest.raises(ValueError, match="no features"):
        validate_features(np.zeros((3, 0)))


def test_duplicated_column_names_are_rejected():
    df = pd.DataFrame([[1, 2, 3]], columns=["a", "b", "a"])
    with pytest.raises(ValueError, match=r"duplicated column names: \['a'\]"):
        validate_features(df)
    # 1 and "1" are the same feature name once converted to text
    with pytest.raises(ValueError, match=r"duplicated column names: \['1'\]"):
        validate_features(pd.DataFrame([[1, 2]], columns=[1, "1"]))
    with pytest.raises(ValueError, match="duplicated column names"):
        validate_features(np.zeros((2, 2)), feature_names=["z", "z"])


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_infinite_values_are_rejected_naming_the_column(value):
    df = pd.DataFrame({"fine": [1.0, 2.0], "bad": [1.0, value]})
    with pytest.raises(ValueError, match="feature 'bad' contains infinite values"):
        validate_features(df)
    with pytest.raises(ValueError, match="feature 'x1' contains infinite values"):
        validate_features(np.array([[1.0, 2.0], [3.0, value]]))


def test_non_numeric_values_in_numeric_array_column_suggest_categorical():
    array = np.array([[1, "a"], [2, "b"]], dtype=object)
    with pytest.raises(ValueError, match=r"feature 'x1' has non-numeric values; declare it categorical \(categorical="):
        validate_features(array)
    # declaring it fixes it
    assert validate_features(array, categorical=[1])[1].categorical == (False, True)


@pytest.mark.parametrize("index", [2, 5, -1])
def test_categorical_index_out_of_range(index):
    with pytest.raises(ValueError, match=rf"categorical column index {index} is out of range for 2 features"):
        validate_features(np.zeros((2, 2)), categorical=[index])


def test_wrong_number_of_feature_names():
    with pytest.raises(ValueError, match="3 feature names given for 2 columns"):
        validate_features(np.zeros((2, 2)), feature_names=["a", "b", "c"])


@pytest.mark.parametrize("shape", [(2, 2, 2), (4,)])
def test_x_must_be_two_dimensional(shape):
    with pytest.raises(ValueError, match=rf"X must be 2-dimensional .*got shape \({shape[0]},"):
        validate_features(np.zeros(shape))


# ---------------------------------------------------------------------------------------------
# validate_target
# ---------------------------------------------------------------------------------------------

def test_validate_target_returns_plain_object_labels():
    labels = validate_target(np.array([0, 1, 1]), 3)
    assert labels.dtype == object and labels.shape == (3,)
    assert labels.tolist() == [0, 1, 1]
    assert [type(v) for v in labels] == [int, int, int]  # numpy scalars become Python values
    assert validate_target(pd.Series(["a", "b"], index=[7, 3]), 2).tolist() == ["a", "b"]


def test_validate_target_rejects_nan_label():
    with pytest.raises(ValueError, match=r"y contains 1 missing \(NaN/None\) labels"):
        validate_target(np.array([0.0, NAN, 1.0]), 3)


def test_validate_target_rejects_none_label():
    with pytest.raises(ValueError, match=r"y contains 2 missing \(NaN/None\) labels"):
        validate_target(["a", None, "b", None], 4)


def test_validate_target_rejects_length_mismatch():
    with pytest.raises(ValueError, match="X has 4 samples but y has 3 labels"):
        validate_target([0, 1, 0], 4)


def test_validate_target_rejects_single_class():
    with pytest.raises(ValueError, match=r"single class \('a'\)"):
        validate_target(["a", "a", "a"], 3)


def test_validate_target_accepts_mixed_hashable_labels():
    y = [1, "a", 2.5, ("t", 1), np.int64(7), "a"]
    labels = validate_target(y, 6)
    assert labels.shape == (6,)
    assert [(type(v), v) for v in labels] == [(int, 1), (str, "a"), (float, 2.5), (tuple, ("t", 1)), (int, 7),
                                              (str, "a")]
    order = class_order(labels)
    assert order == (2.5, 1, 7, "a", ("t", 1))  # unsortable mix: by type name, then text
    assert class_order(list(reversed(labels.tolist()))) == order  # deterministic whatever the input order


def test_validate_target_accepts_tuple_labels():
    labels = validate_target([("a", 1), ("b", 2), ("a", 1)], 3)
    assert labels.shape == (3,)
    assert labels.tolist() == [("a", 1), ("b", 2), ("a", 1)]
    assert validate_target(pd.Series([("a", 1), ("b", 2)]), 2).tolist() == [("a", 1), ("b", 2)]


def test_validate_target_accepts_2d_single_column():
    assert validate_target(np.array([[0], [1], [0]]), 3).tolist() == [0, 1, 0]
    assert validate_target([["a"], ["b"]], 2).tolist() == ["a", "b"]
    assert validate_target(pd.DataFrame({"y": ["u", "v"]}), 2).tolist() == ["u", "v"]
    with pytest.raises(ValueError, match="y must be 1-dimensional"):
        validate_target(np.zeros((3, 2)), 3)
    with pytest.raises(ValueError, match="y must be one column of labels, got 2 columns"):
        validate_target(pd.DataFrame({"a": [0, 1], "b": [1, 0]}), 2)


def test_class_order_is_sorted():
    assert class_order(["b", "a", "c", "a"]) == ("a", "b", "c")
    assert class_order(np.array([3, 1, 2])) == (1, 2, 3)
    assert [type(c) for c in class_order(np.array([3, 1]))] == [int, int]
    assert class_order([2, "a", 1]) == (1, 2, "a")  # mixed: by type name, then text


# ---------------------------------------------------------------------------------------------
# binarize_target
# ---------------------------------------------------------------------------------------------

def _labels(*values):
    return validate_target(list(values), len(values))


def test_default_positive_is_minority_class():
    target = binarize_target(_labels("no", "yes", "no", "no"))
    assert target.positive == "yes" and target.negative == "no"
    assert target.is_positive.tolist() == [False, True, False, False]
    assert target.is_positive.dtype == bool
    assert target.classes == ("no", "yes")
    # the minority may sort first
    target = binarize_target(_labels("b", "b", "a"))
    assert (target.positive, target.negative) == ("a", "b")


def test_default_positive_tie_goes_to_last_sorted_class():
    target = binarize_target(_labels(1, 0, 0, 1))
    assert (target.positive, target.negative) == (1, 0)
    target = binarize_target(_labels("yes", "no"))
    assert (target.positive, target.negative) == ("yes", "no")
    # three-way tie on the minority count
    target = binarize_target(_labels("a", "b", "c"))
    assert (target.positive, target.negative) == ("c", "a")


def test_explicit_positive():
    target = binarize_target(_labels("no", "yes", "no"), positive="no")
    assert (target.positive, target.negative) == ("no", "yes")
    assert target.is_positive.tolist() == [True, False, True]
    assert binarize_target(_labels(0, 1, 1), positive=np.int64(1)).positive == 1


def test_explicit_positive_is_the_label_itself():
    target = binarize_target(_labels(0, 1, 1), positive=1.0)
    assert target.positive == 1 and type(target.positive) is int
    target = binarize_target(_labels(0, 1, 1), positive=True)
    assert type(target.positive) is int


def test_unknown_positive_names_the_classes():
    with pytest.raises(ValueError, match=r"positive class 'maybe' is not a label of y; the classes are \['no', 'yes'\]"):
        binarize_target(_labels("no", "yes"), positive="maybe")
    with pytest.raises(ValueError, match=r"positive class '1' is not a label of y; the classes are \[0, 1\]"):
        binarize_target(_labels(0, 1), positive="1")


def test_multiclass_negative_is_most_frequent_other_class():
    labels = _labels("a", "b", "b", "c", "c", "c", "a")
    target = binarize_target(labels, positive="c")
    assert (target.positive, target.negative) == ("c", "a")  # a and b tie at 2: first in sorted order
    assert target.is_positive.tolist() == [False, False, False, True, True, True, False]
    target = binarize_target(_labels("a", "b", "b", "b", "c", "c"))
    assert (target.positive, target.negative) == ("a", "b")
    target = binarize_target(_labels("a", "b", "b", "b", "c", "c"), positive="c")
    assert target.negative == "b"
    assert target.classes == ("a", "b", "c")


def test_binarize_tuple_labels():
    labels = _labels(("n", 0), ("p", 1), ("n", 0))
    target = binarize_target(labels)
    assert (target.positive, target.negative) == (("p", 1), ("n", 0))
    assert target.is_positive.tolist() == [False, True, False]
