"""Tests for optrules.data: feature, target and sample-weight validation, the schema, the positive class,
rare-category grouping and the matching of categories at predict time."""

from __future__ import annotations

import copy
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn.exceptions import DataConversionWarning

from optrules.data import (OTHER, CategoryGroups, Schema, align_categories, binarize_target, class_order,
                           group_categories, validate_features, validate_target)
from optrules.exceptions import CategoryWarning
from optrules.ruleset import CategoricalCondition, Interval, NumericCondition, Rule, Ruleset

NAN = float("nan")
COLUMN_VECTOR = (r"^A column-vector y was passed when a 1d array was expected\. Please change the shape of y to "
                 r"\(n_samples, \), for example using ravel\(\)\.$")


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


def test_validate_target_refuses_an_empty_y_and_classes_that_differ_only_in_type():
    with pytest.raises(ValueError, match=r"y has 0 sample\(s\)"):
        validate_target([], 0)
    with pytest.raises(ValueError, match=r"differ only in type \(1 and '1'\)"):  # printed "class = 1" both
        validate_target([1, 1, "1", "1"], 4)


def test_an_object_column_of_numbers_alone_is_read_as_categories_with_a_warning():
    numbers = pd.Series(np.linspace(0, 1, 12), dtype=object)
    with pytest.warns(UserWarning, match=r"feature 'a' has dtype object and holds only numbers \(12 distinct\)"):
        _, schema = validate_features(pd.DataFrame({"a": numbers}))
    assert schema.categorical_features == ("a",)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # declared, a few codes, or numbers among text: as categories, quietly
        validate_features(pd.DataFrame({"a": numbers}), categorical=["a"])
        validate_features(pd.DataFrame({"a": pd.Series([1, 2, 3] * 4, dtype=object)}))
        validate_features(pd.DataFrame({"a": pd.Series([*range(11), "x"], dtype=object)}))


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
    with pytest.warns(DataConversionWarning, match=COLUMN_VECTOR):
        assert validate_target(np.array([[0], [1], [0]]), 3).tolist() == [0, 1, 0]
    with pytest.warns(DataConversionWarning, match=COLUMN_VECTOR):
        assert validate_target([["a"], ["b"]], 2).tolist() == ["a", "b"]
    with pytest.warns(DataConversionWarning, match=COLUMN_VECTOR):
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
    with pytest.raises(ValueError, match=r"positive class '2' is not a label of y; the classes are \[0, 1\]"):
        binarize_target(_labels(0, 1), positive="2")
    # a label written as the value given is that label: '1' names 1, 1 names '1' (the label itself)
    assert binarize_target(_labels(0, 1), positive="1").positive == 1
    assert binarize_target(_labels("0", "1"), positive=1).positive == "1"


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


def test_column_vector_y_warns_as_scikit_learn():
    with pytest.warns(DataConversionWarning, match=COLUMN_VECTOR) as record:
        labels = validate_target(np.array([["a"], ["b"], ["a"]], dtype=object), 3)
    assert len(record) == 1
    assert labels.shape == (3,) and labels.tolist() == ["a", "b", "a"]


def test_one_dimensional_y_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        validate_target(np.array([0, 1, 0]), 3)
        validate_target(pd.Series(["a", "b"]), 2)


# ---------------------------------------------------------------------------------------------
# group_categories and CategoryGroups
# ---------------------------------------------------------------------------------------------

def _city_frame() -> tuple[pd.DataFrame, Schema]:
    """city counts: a 5, b 4, c 3, d 1, e 1, f 1, one missing; n is numeric."""
    cities = list("aaaaabbbbcccdef") + [None]
    return validate_features(pd.DataFrame({"city": cities, "n": np.arange(16.0)}))


def _ones(frame: pd.DataFrame) -> np.ndarray:
    return np.ones(len(frame))


def test_other_token():
    assert str(OTHER) == repr(OTHER) == "<other>"
    assert {OTHER: 1}[OTHER] == 1 and OTHER == OTHER and OTHER != "<other>"
    assert pickle.loads(pickle.dumps(OTHER)) is OTHER
    assert copy.deepcopy(OTHER) is OTHER and copy.copy(OTHER) is OTHER
    assert type(OTHER)() is OTHER
    assert class_order(["b", OTHER, "a"]) == ("a", "b", OTHER)  # sorts last
    assert class_order([2, OTHER, 1]) == (1, 2, OTHER)
    mixed = class_order([1, "a", OTHER])  # unsortable mix: class_order's fallback, no crash
    assert set(mixed) == {1, "a", OTHER} and class_order(list(reversed(mixed))) == mixed
    assert not pd.isna(OTHER)


def test_max_categories_keeps_the_most_frequent():
    frame, schema = _city_frame()
    with pytest.warns(CategoryWarning) as record:
        grouped, groups = group_categories(frame, schema, _ones(frame), 3, None)
    assert len(record) == 1
    assert str(record[0].message) == ("feature 'city': 4 of 6 categories grouped as '<other>' "
                                      "(max_categories=3; raise it or set None to keep all)")
    assert grouped["city"].tolist() == list("aaaaabbbb") + [OTHER] * 6 + [None]
    assert grouped["n"].equals(frame["n"])
    assert frame["city"].tolist() == list("aaaaabbbbcccdef") + [None]  # the input is not modified
    assert isinstance(groups, CategoryGroups) and bool(groups)
    assert groups.summary() == {"city": 4}
    assert groups.kept == {"city": ("a", "b")}


def test_grouping_counts_are_formatted_with_thousands():
    values = [f"v{k:05d}" for k in range(10_000)]
    frame, schema = validate_features(pd.DataFrame({"city": values}))
    with pytest.warns(CategoryWarning, match=r"^feature 'city': 9,901 of 10,000 categories grouped as '<other>' "
                                             r"\(max_categories=100; raise it or set None to keep all\)$"):
        grouped, groups = group_categories(frame, schema, _ones(frame), 100, None)
    assert groups.summary() == {"city": 9901}
    assert groups.kept["city"] == tuple(values[:99])  # all tied: the first ones in class_order
    assert grouped["city"].nunique() == 100


def test_ties_are_broken_by_class_order():
    frame, schema = validate_features(pd.DataFrame({"x": ["c", "b", "a", "d", "c", "b", "a", "d", "z"]}))
    with pytest.warns(CategoryWarning):
        _, groups = group_categories(frame, schema, _ones(frame), 3, None)
    assert groups.kept == {"x": ("a", "b")}  # a, b, c, d tie at 2; z has 1
    mixed, schema = validate_features(pd.DataFrame({"x": pd.Series([2, "b", 1, "a", 3], dtype=object)}))
    with pytest.warns(CategoryWarning):
        _, groups = group_categories(mixed, schema, _ones(mixed), 3, None)
    assert groups.kept == {"x": (1, 2)}  # class_order of a mix: by type name (int before str), then text


def test_weights_decide_the_frequencies():
    frame, schema = _city_frame()
    weights = _ones(frame)
    weights[frame["city"].to_numpy() == "f"] = 20.0
    with pytest.warns(CategoryWarning):
        _, groups = group_categories(frame, schema, weights, 3, None)
    assert groups.kept == {"city": ("a", "f")}
    weights = _ones(frame)
    weights[frame["city"].to_numpy() == "a"] = 0.25  # a weighs 1.25 in all: rare as the singletons
    with pytest.warns(CategoryWarning, match="4 of 6 categories"):
        _, groups = group_categories(frame, schema, weights, None, 2)
    assert groups.kept == {"city": ("b", "c")}


def test_min_frequency_count_and_share():
    frame, schema = _city_frame()
    with pytest.warns(CategoryWarning, match=r"^feature 'city': 3 of 6 categories grouped as '<other>' "
                                             r"\(min_frequency=2; lower it or set None to keep all\)$"):
        grouped, groups = group_categories(frame, schema, _ones(frame), None, 2)
    assert groups.kept == {"city": ("a", "b", "c")}
    assert grouped["city"].tolist()[12:] == [OTHER, OTHER, OTHER, None]
    # share of the 15 non-missing rows (the missing row does not count): 4 / 15 < 0.3 <= 5 / 15
    with pytest.warns(CategoryWarning, match=r"5 of 6 categories .*\(min_frequency=0\.3; lower it"):
        _, groups = group_categories(frame, schema, _ones(frame), None, 0.3)
    assert groups.kept == {"city": ("a",)}
    with pytest.warns(CategoryWarning):
        grouped, groups = group_categories(frame, schema, _ones(frame), None, 1.0)  # every category is rare
    assert groups.kept == {"city": ()} and groups.summary() == {"city": 6}
    assert grouped["city"].tolist() == [OTHER] * 15 + [None]


def test_both_parameters_are_named_when_both_group():
    frame, schema = _city_frame()
    with pytest.warns(CategoryWarning, match=r"5 of 6 categories grouped as '<other>' \(max_categories=2, "
                                             r"min_frequency=0\.25; raise max_categories, lower min_frequency "
                                             r"or set them to None to keep all\)"):
        _, groups = group_categories(frame, schema, _ones(frame), 2, 0.25)
    assert groups.kept == {"city": ("a",)}


def test_one_category_alone_is_not_grouped():
    frame, schema = _city_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for max_categories, min_frequency in [(6, None), (7, None), (None, None), (100, 1), (6, 1)]:
            grouped, groups = group_categories(frame, schema, _ones(frame), max_categories, min_frequency)
            assert grouped is frame  # not copied
            assert not groups and groups.summary() == {}
    frame, schema = validate_features(pd.DataFrame({"x": list("aaab")}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grouped, groups = group_categories(frame, schema, _ones(frame), None, 2)  # only b is rare
    assert grouped is frame and not groups


def test_several_features_are_named_in_one_warning():
    frame, schema = validate_features(pd.DataFrame({
        "a": list("xxxyzw"), "b": [1, 1, 2, 3, 4, 5], "c": list("pppppq"), "n": np.arange(6.0),
    }), categorical=["b"])
    with pytest.warns(CategoryWarning) as record:
        grouped, groups = group_categories(frame, schema, _ones(frame), 2, None)
    assert len(record) == 1
    message = str(record[0].message)
    assert "feature 'a': 3 of 4 categories" in message and "feature 'b': 4 of 5 categories" in message
    assert "'c'" not in message  # c has two categories: only q would be grouped
    assert groups.summary() == {"a": 3, "b": 4}
    assert grouped["b"].tolist() == [1, 1] + [OTHER] * 4
    assert grouped["c"].tolist() == list("pppppq") and grouped["n"].tolist() == list(np.arange(6.0))


def test_category_groups_empty_by_default():
    groups = CategoryGroups()
    assert not groups and groups.summary() == {}


# ---------------------------------------------------------------------------------------------
# CategoryGroups.expand: the rules over <other> rewritten into real values
# ---------------------------------------------------------------------------------------------

def _regroup(frame: pd.DataFrame, groups: CategoryGroups) -> pd.DataFrame:
    """What grouping means for new data: a non-missing value outside the kept categories is <other>."""
    out = frame.copy()
    for feature, kept in groups.kept.items():
        out[feature] = pd.Series([None if pd.isna(v) else v if v in kept else OTHER for v in frame[feature]],
                                 index=frame.index, dtype=object)
    return out


def _grouped_city():
    frame, schema = _city_frame()
    with pytest.warns(CategoryWarning):
        grouped, groups = group_categories(frame, schema, _ones(frame), 3, None)
    # new data: every kept and grouped value, a value never seen in training, and missing values
    new = pd.DataFrame({"city": ["a", "b", "c", "d", "f", "never-seen", None, NAN],
                        "n": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]})
    return frame, grouped, groups, new


def _assert_same_predictions(ruleset: Ruleset, frame, grouped, groups, new) -> Ruleset:
    expanded = groups.expand(ruleset)
    assert all(OTHER not in c.categories for r in expanded.rules for c in r.conditions
               if isinstance(c, CategoricalCondition))
    assert expanded.predict(frame).tolist() == ruleset.predict(grouped).tolist()
    assert expanded.predict(grouped).tolist() == ruleset.predict(grouped).tolist()
    assert expanded.predict(new).tolist() == ruleset.predict(_regroup(new, groups)).tolist()
    assert Ruleset.from_json(expanded.to_json()) == expanded  # only real values: serialisable
    return expanded


CATEGORY_SETS = [(OTHER,), ("a", OTHER), ("b", OTHER), ("a", "b", OTHER), ("a", "zzz", OTHER), ("c", "d", OTHER),
                 ("a",), ("a", "b"), ("a", "c"), ("c",), ("never-seen",)]


@pytest.mark.parametrize("categories", CATEGORY_SETS)
@pytest.mark.parametrize("negated", [False, True])
@pytest.mark.parametrize("missing", [False, True])
def test_expand_preserves_predictions_of_every_condition(categories, negated, missing):
    frame, grouped, groups, new = _grouped_city()
    condition = CategoricalCondition("city", categories, negated=negated, missing=missing)
    ruleset = Ruleset("set", (Rule((condition,), 1, n_positive=3, n_negative=1),), 0, ("city", "n"), (0, 1), 1)
    _assert_same_predictions(ruleset, frame, grouped, groups, new)


def test_expand_rewrites_the_conditions():
    _, _, groups, _ = _grouped_city()

    def expand(condition):
        ruleset = Ruleset("set", (Rule((condition,), 1, n_positive=3, n_negative=1),), 0, ("city",), (0, 1), 1)
        return groups.expand(ruleset).rules

    rules = expand(CategoricalCondition("city", ("a", OTHER), missing=True))
    assert rules[0].conditions == (CategoricalCondition("city", ("b",), negated=True, missing=True),)
    assert (rules[0].prediction, rules[0].n_positive, rules[0].n_negative) == (1, 3, 1)
    rules = expand(CategoricalCondition("city", ("a", OTHER), negated=True))
    assert rules[0].conditions == (CategoricalCondition("city", ("b",)),)
    assert str(rules[0]) == "IF city in {b} THEN 1"
    # every non-missing value: "not missing", or no condition at all when missing satisfies it too
    rules = expand(CategoricalCondition("city", ("a", "b", OTHER)))
    assert rules[0].conditions == (CategoricalCondition("city", (None,), negated=True),)
    assert str(rules[0]) == "IF city not in {None} THEN 1"
    assert expand(CategoricalCondition("city", ("a", "b", OTHER), missing=True))[0].conditions == ()
    # no non-missing value: "is missing", or a rule that never fires, removed
    rules = expand(CategoricalCondition("city", ("a", "b", OTHER), negated=True, missing=True))
    assert rules[0].conditions == (CategoricalCondition("city", (), missing=True),)
    assert expand(CategoricalCondition("city", ("a", "b", OTHER), negated=True)) == ()
    # conditions without <other> are kept as they are, but for values that name no grouped value
    plain = CategoricalCondition("city", ("a",), negated=True)
    assert expand(plain)[0].conditions == (plain,)
    rules = expand(CategoricalCondition("city", ("a", "c", "zzz")))
    assert rules[0].conditions == (CategoricalCondition("city", ("a",)),)
    assert expand(CategoricalCondition("city", ("c",))) == ()
    # other features are left alone
    numeric = NumericCondition("n", [Interval(1.0, 2.0)])
    ruleset = Ruleset("list", (Rule((numeric,), "p"),), "q", ("city", "n"), ("p", "q"))
    assert groups.expand(ruleset).rules == ruleset.rules


def _mixed_rules(prediction_of) -> tuple[Rule, ...]:
    n_low = NumericCondition("n", [Interval(-math.inf, 8.0)])
    return (
        Rule((CategoricalCondition("city", ("b", OTHER)), n_low), prediction_of(0), weight=1.5, n_positive=2),
        Rule((CategoricalCondition("city", ("a", "b", OTHER), negated=True),), prediction_of(1), weight=-3.0),
        Rule((CategoricalCondition("city", (OTHER,), negated=True, missing=True),), prediction_of(2), weight=-1.0),
        Rule((CategoricalCondition("city", ("a", "b", OTHER)), NumericCondition("n", [Interval(4.0, math.inf)])),
             prediction_of(3), weight=0.75),
        Rule((CategoricalCondition("city", ("a",)),), prediction_of(4), weight=0.25),
    )


@pytest.mark.parametrize("kind", ["set", "list", "score"])
def test_expand_preserves_predictions_of_every_kind(kind):
    frame, grouped, groups, new = _grouped_city()
    if kind == "list":
        rules = _mixed_rules(lambda k: "pqrst"[k])
        ruleset = Ruleset("list", rules, "z", ("city", "n"), tuple("pqrstz"))
    else:
        ruleset = Ruleset(kind, _mixed_rules(lambda k: "yes"), "no", ("city", "n"), ("no", "yes"), "yes",
                          intercept=-1.0 if kind == "score" else 0.0)
    expanded = _assert_same_predictions(ruleset, frame, grouped, groups, new)
    assert len(expanded.rules) == 4  # the rule no value satisfies is removed
    assert [(r.prediction, r.weight, r.n_positive) for r in expanded.rules] == [
        (r.prediction, r.weight, r.n_positive) for k, r in enumerate(ruleset.rules) if k != 1]
    assert expanded.meta == ruleset.meta and expanded.kind == kind and expanded.default == ruleset.default


@pytest.mark.parametrize("kind", ["set", "list"])
def test_expand_keeps_the_probabilities_of_the_rules_it_keeps(kind):
    frame, grouped, groups, new = _grouped_city()
    if kind == "list":
        ruleset = Ruleset("list", _mixed_rules(lambda k: "pqrst"[k]), "z", ("city", "n"), tuple("pqrstz"))
        y = np.array(list("pqrstz" * 3)[:len(frame)])
    else:
        ruleset = Ruleset("set", _mixed_rules(lambda k: "yes"), "no", ("city", "n"), ("no", "yes"), "yes")
        y = np.where(np.arange(len(frame)) % 3 == 0, "yes", "no")
    fitted = ruleset.fit_probabilities(grouped, y)
    expanded = _assert_same_predictions(fitted, frame, grouped, groups, new)
    assert len(expanded.class_counts) == len(expanded.rules) + 1 == len(fitted.class_counts) - 1
    assert expanded.predict_proba(frame) == pytest.approx(fitted.predict_proba(grouped))
    assert expanded.predict_proba(new) == pytest.approx(fitted.predict_proba(_regroup(new, groups)))
    assert expanded == expanded.fit_probabilities(frame, y)  # the counts of the same training rows


def test_expand_without_grouping_returns_the_ruleset():
    ruleset = Ruleset("set", (Rule((CategoricalCondition("city", ("a",)),), 1),), 0, ("city",), (0, 1), 1)
    assert CategoryGroups().expand(ruleset) is ruleset


# ---------------------------------------------------------------------------------------------
# align_categories: predict-time values under another type
# ---------------------------------------------------------------------------------------------

SCHEMA = Schema(("code", "n"), (True, False))


def test_align_leaves_matching_types_alone():
    X = pd.DataFrame({"code": pd.Series([1, 2, None, 3], dtype=object), "n": [0.5, 1.5, 2.5, 3.5]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert align_categories(X, SCHEMA, {"code": (1, 2, 3)}) is X
        # equal values are training categories already: numpy scalars, 1.0 for 1, True for 1
        X = pd.DataFrame({"code": pd.Series([np.int64(1), 2.0, True, NAN], dtype=object), "n": [0.0] * 4})
        assert align_categories(X, SCHEMA, {"code": (1, 2, 3)}) is X
        X = pd.DataFrame({"code": pd.Categorical(["a", "b", None]), "n": [0.0] * 3})
        assert align_categories(X, SCHEMA, {"code": ("a", "b")}) is X


def test_align_matches_str_to_int_and_back():
    X = pd.DataFrame({"code": pd.Series(["1", "2", None, "3", "2"], dtype=object), "n": [0.5, 1.5, 2.5, 3.5, 4.5]})
    X.index = [5, 6, 7, 8, 9]
    aligned = align_categories(X, SCHEMA, {"code": (1, 2, 3)})
    assert aligned is not X
    assert [(type(v), v) for v in aligned["code"]] == [(int, 1), (int, 2), (type(None), None), (int, 3), (int, 2)]
    assert aligned["code"].dtype == object
    assert aligned["n"].tolist() == X["n"].tolist() and aligned["n"].dtype == X["n"].dtype
    assert X["code"].tolist() == ["1", "2", None, "3", "2"]  # the input is not modified
    assert list(aligned.index) == list(X.index)

    X = pd.DataFrame({"code": np.array([1, 2, 2], dtype=np.int64), "n": [0.0] * 3})
    aligned = align_categories(X, SCHEMA, {"code": ("1", "2")})
    assert [(type(v), v) for v in aligned["code"]] == [(str, "1"), (str, "2"), (str, "2")]
    X = pd.DataFrame({"code": pd.Series(["1", None, "2"], dtype="string"), "n": [0.0] * 3})
    aligned = align_categories(X, SCHEMA, {"code": (1, 2)})
    assert aligned["code"].dtype == object and aligned["code"].tolist() == [1, None, 2]


def test_align_matches_the_other_spelling_of_integral_numbers():
    X = pd.DataFrame({"code": [1.0, 2.0, NAN], "n": [0.0] * 3})
    aligned = align_categories(X, SCHEMA, {"code": ("1", "2")})
    assert aligned["code"].tolist() == ["1", "2", None]
    X = pd.DataFrame({"code": pd.Series([1, "2.0"], dtype=object), "n": [0.0] * 2})
    aligned = align_categories(X, SCHEMA, {"code": ("1.0", 2)})
    assert aligned["code"].tolist() == ["1.0", 2]
    # the exact text wins over the other spelling
    X = pd.DataFrame({"code": [1.0], "n": [0.0]})
    assert align_categories(X, SCHEMA, {"code": ("1", "1.0")})["code"].tolist() == ["1.0"]


def test_align_converts_category_and_bool_columns_to_object():
    X = pd.DataFrame({"code": pd.Categorical(["1", "2", None, "1"]), "n": [0.0] * 4})
    aligned = align_categories(X, SCHEMA, {"code": (1, 2)})
    assert aligned["code"].dtype == object and aligned["code"].tolist() == [1, 2, None, 1]
    assert isinstance(X["code"].dtype, pd.CategoricalDtype)
    X = pd.DataFrame({"code": [True, False, True], "n": [0.0] * 3})
    aligned = align_categories(X, SCHEMA, {"code": ("False", "True")})
    assert aligned["code"].dtype == object and aligned["code"].tolist() == ["True", "False", "True"]
    X = pd.DataFrame({"code": pd.array([True, None, False], dtype="boolean"), "n": [0.0] * 3})
    aligned = align_categories(X, SCHEMA, {"code": ("False", "True")})
    assert aligned["code"].tolist() == ["True", None, "False"]


def test_align_never_matches_other():
    X = pd.DataFrame({"code": ["<other>", "a", "a", "a", "a"], "n": [0.0] * 5})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert align_categories(X, SCHEMA, {"code": ("a", OTHER)}) is X


class _Code:
    """A value whose text is '1' but that equals no training category."""

    def __str__(self) -> str:
        return "1"


def test_align_ambiguous_text_is_an_error():
    X = pd.DataFrame({"code": pd.Series([_Code(), 1], dtype=object), "n": [0.0, 0.0]})
    with pytest.raises(ValueError, match=r"feature 'code': the value <.*_Code object.*> was never seen in training "
                                         r"and is written as several training categories \[1, '1'\]"):
        align_categories(X, SCHEMA, {"code": (1, "1")})


def test_align_warns_when_many_values_are_unseen():
    X = pd.DataFrame({"code": ["teal", "red", "teal", None, "blue", "red", "mauve", None], "n": [0.0] * 8})
    with pytest.warns(CategoryWarning) as record:
        aligned = align_categories(X, SCHEMA, {"code": ("blue", "red")})
    assert aligned is X
    assert len(record) == 1
    assert str(record[0].message) == ("feature 'code': 50% of the values at predict were never seen in training, "
                                      "e.g. ['teal', 'mauve']; such values satisfy no `in` condition")
    X = pd.DataFrame({"code": list("abcdefgh"), "n": [0.0] * 8})
    with pytest.warns(CategoryWarning, match=r"100% of the values .* e\.g\. \['a', 'b', 'c', \.\.\.\]"):
        align_categories(X, SCHEMA, {"code": ("z",)})


def test_align_counts_unseen_after_matching_and_ignores_missing():
    # 1 of 4 non-missing values unseen (25%): warns; the matched '2' does not count
    X = pd.DataFrame({"code": ["1", "2", "9", 1, None, NAN], "n": [0.0] * 6})
    with pytest.warns(CategoryWarning, match=r"feature 'code': 25% of the values"):
        aligned = align_categories(X, SCHEMA, {"code": (1, 2)})
    assert aligned["code"].tolist() == [1, 2, "9", 1, None, None]
    # 1 of 5: no warning
    X = pd.DataFrame({"code": ["1", "2", "9", 1, 2, None], "n": [0.0] * 6})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        align_categories(X, SCHEMA, {"code": (1, 2)})
    # a column of missing values only
    X = pd.DataFrame({"code": [None, NAN], "n": [0.0, 0.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert align_categories(X, SCHEMA, {"code": (1, 2)}) is X


def test_align_finds_columns_by_name_and_skips_absent_ones():
    X = pd.DataFrame({"n": [0.0, 1.0], "code": ["1", "2"], "extra": ["1", "2"]})
    aligned = align_categories(X, SCHEMA, {"code": (1, 2)})
    assert list(aligned.columns) == ["n", "code", "extra"]
    assert aligned["code"].tolist() == [1, 2] and aligned["extra"].tolist() == ["1", "2"]
    X = pd.DataFrame({"n": [0.0, 1.0]})
    assert align_categories(X, SCHEMA, {"code": (1, 2)}) is X
    X = pd.DataFrame({0: ["1", "2"], 1: [0.0, 1.0]})  # non-string column names are read as str
    aligned = align_categories(X, Schema(("0", "1"), (True, False)), {"0": (1, 2)})
    assert aligned[0].tolist() == [1, 2]


def test_aligned_frame_predicts_as_training():
    frame, schema = validate_features(pd.DataFrame({"code": [1, 2, 3, 1], "n": [0.0, 1.0, 2.0, 3.0]}),
                                      categorical=["code"])
    ruleset = Ruleset("set", (Rule((CategoricalCondition("code", (1, 3)),), "y"),), "n", ("code", "n"),
                      ("n", "y"), "y")
    X = pd.DataFrame({"code": ["1", "2", "3", None], "n": [0.0] * 4})
    # the Ruleset itself matches "1" to 1 as the estimators do (it predicted "n" everywhere before)
    assert ruleset.predict(X).tolist() == ["y", "n", "y", "n"]
    assert ruleset.predict(align_categories(X, schema, {"code": (1, 2, 3)})).tolist() == ["y", "n", "y", "n"]
