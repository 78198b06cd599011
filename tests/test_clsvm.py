"""CLSVMClassifier: feature roles (Table 1), scorecard Rulesets that reproduce the SVM, strategy guarantees."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

import optrules
from optrules import CategoricalCondition, CLSVMClassifier, Ruleset
from optrules.data import validate_features
from optrules.exceptions import DegenerateFitWarning
from optrules.exact.cl_ipopt import ipopt_available
from optrules.exact.clsvm import big_m
from optrules.exact.scorecard import ScorecardDesign
from optrules.models import svm
from optrules.registry import METHODS, make_estimator
from optrules.solvers import ProblemClass, Status, UnsupportedProblemError, solve

STRATEGIES = ["svm-o", "svm-c", "cl-rr", "clm-rr", "clm", "cl"]
#: a deterministic work limit for the exact strategies' SCIP solves (wall-clock limits make tests depend on speed)
NODES = {"solver_options": {"limits/nodes": 10}}


def quick(strategy: str) -> dict:
    return NODES if strategy in ("clm", "cl") else {}


@pytest.fixture(scope="module")
def german_sample():
    X, y = optrules.load("german")
    rows = np.random.default_rng(0).choice(len(X), 120, replace=False)
    return X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


def mixed_frame(n: int = 60, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Clustered features with a missing value, a two-category feature, numerics with a gap."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey", None], n)
    size = rng.choice(["S", "M", "L"], n)
    flag = rng.choice(["yes", "no"], n)
    age = rng.normal(40, 10, n)
    age[rng.random(n) < 0.1] = np.nan
    signal = (np.isin(colour, ["red", "grey"]) * 2.0 - (size == "L") + (flag == "yes") * 0.5
              + (np.nan_to_num(age, nan=40) - 40) / 10 + rng.normal(0, 0.8, n))
    X = pd.DataFrame({"colour": colour, "size": size, "flag": flag, "age": age,
                      "constant": ["k"] * n})
    return X, pd.Series(np.where(signal > 0.5, "hit", "miss"))


@pytest.mark.parametrize("name", [n for n, m in METHODS.items() if m.kind == "score"])
def test_every_scorecard_method_learns_australian(name):
    """The scorecard counterpart of test_estimators' tic-tac-toe test (paper, Tables 2-5: 84-85%)."""
    X, y = optrules.load("australian")
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=500, stratify=y, random_state=0)
    budget = {k: v for k, v in METHODS[name].test_params.items() if k == "solver_options"}
    model = make_estimator(name, C=10.0, positive="+", random_state=0, **budget).fit(X_train, y_train)
    predictions = model.predict(X_test)
    assert set(predictions) <= set(y.unique())
    assert (predictions == y_test.to_numpy()).mean() >= 0.8
    ruleset = model.ruleset_
    assert ruleset.kind == "score" and ruleset.positive == "+"
    restored = Ruleset.from_json(ruleset.to_json())
    assert (restored.predict(X_test) == predictions).all()
    assert ruleset.meta["method"] == "clsvm" and ruleset.meta["strategy"] == name
    assert ruleset.meta["fit_seconds"] > 0 and ruleset.meta["params"]["positive"] == "+"


def test_feature_roles_reproduce_the_papers_counts():
    for name, clustered, dummies, n_numeric in (("german", 11, 50, 9), ("australian", 4, 28, 10)):
        X, _ = optrules.load(name)
        design = ScorecardDesign.fit(*validate_features(X))
        assert (len(design.clustered), sum(design.n_categories), design.n_numeric) == (clustered, dummies, n_numeric)


def hinge_objective(ruleset: Ruleset, X, is_positive: np.ndarray, C: float, weights: np.ndarray | None = None) -> float:
    """(7) evaluated from the Ruleset alone: every weight and coefficient squared, plus the hinge loss
    (C / W) sum_i w_i xi_i (w_i = 1 without ``weights``)."""
    y = np.where(is_positive, 1.0, -1.0)
    w = np.ones(len(y)) if weights is None else weights
    hinge = np.maximum(0.0, 1.0 - y * ruleset.decision_function(X))
    squares = sum(r.weight ** 2 for r in ruleset.rules) + sum(t.coefficient ** 2 for t in ruleset.linear)
    return squares / 2 + C / w.sum() * (w * hinge).sum()


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_scorecard_is_the_strategys_svm(strategy, weighted):
    """The Ruleset's decision function on the training data is the SVM's: its objective (7), computed
    from the Ruleset's weights and scores alone, equals the solver's optimum of the clustered SVM,
    with sample weights (including 0) as without."""
    X, y = mixed_frame()
    weights = np.random.default_rng(7).choice([0.0, 0.5, 1.0, 3.0], len(y)) if weighted else None
    model = CLSVMClassifier(strategy=strategy, C=5.0, positive="hit", random_state=0, draws=3,
                            **quick(strategy)).fit(X, y, sample_weight=weights)
    ruleset = model.ruleset_
    assert ruleset.kind == "score" and ruleset.positive == "hit" and ruleset.default == "miss"
    assert hinge_objective(ruleset, X, (y == "hit").to_numpy(), 5.0, weights) == \
        pytest.approx(ruleset.meta["objective"], rel=1e-5)
    assert model.score(X, y) >= 0.7  # noisy labels: the constant classifier scores about 0.55
    features = {r.conditions[0].feature for r in ruleset.rules} | {t.feature for t in ruleset.linear}
    assert features == {"colour", "size", "flag", "age"}  # the one-category feature is dropped
    if strategy != "svm-o":
        for feature in ("colour", "size"):
            assert sum(r.conditions[0].feature == feature for r in ruleset.rules) <= 2
    restored = Ruleset.from_json(ruleset.to_json())
    assert np.allclose(restored.decision_function(X), ruleset.decision_function(X))


def duplicated_frame(X: pd.DataFrame, y: pd.Series, weights: np.ndarray) -> tuple[pd.DataFrame, pd.Series]:
    """Every row repeated as many times as its integer weight."""
    rows = np.repeat(np.arange(len(X)), weights.astype(np.int64))
    return X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


@pytest.mark.parametrize("strategy", ["svm-o", "svm-c"])
def test_integer_sample_weights_act_as_copies_of_the_rows(strategy):
    """An integer weight is that many copies: the same objective (weighted standardisation, SVM (1)
    or SVM_O + MSSC + clustered SVM), the same scorecard and predictions as on duplicated rows."""
    X, y = mixed_frame(n=60, seed=3)
    weights = np.random.default_rng(3).integers(1, 4, len(y)).astype(float)
    X_copies, y_copies = duplicated_frame(X, y, weights)
    weighted = CLSVMClassifier(strategy=strategy, C=5.0, positive="hit").fit(X, y, sample_weight=weights)
    copied = CLSVMClassifier(strategy=strategy, C=5.0, positive="hit").fit(X_copies, y_copies)
    assert weighted.ruleset_.meta["objective"] == pytest.approx(copied.ruleset_.meta["objective"], rel=1e-6)
    assert (weighted.predict(X) == copied.predict(X)).all()
    assert np.allclose(weighted.decision_function(X), copied.decision_function(X), atol=1e-5)
    conditions = [[str(r.conditions[0]) for r in m.ruleset_.rules] for m in (weighted, copied)]
    assert conditions[0] == conditions[1]
    for mine, theirs in zip(weighted.ruleset_.linear, copied.ruleset_.linear):  # the weighted standardisation
        assert (mine.center, mine.scale) == pytest.approx((theirs.center, theirs.scale), rel=1e-12)


@pytest.mark.parametrize("strategy", ["svm-c", "clm"])
def test_sample_weights_of_ones_are_the_unweighted_fit(strategy):
    X, y = mixed_frame(n=60, seed=4)
    plain, ones = (CLSVMClassifier(strategy=strategy, C=5.0, positive="hit", **quick(strategy))
                   .fit(X, y, sample_weight=weights).ruleset_ for weights in (None, np.ones(len(y))))
    assert plain == ones
    assert (plain.meta["objective"], plain.meta["instance"]) == (ones.meta["objective"], ones.meta["instance"])


def test_weighted_standardisation():
    """Weighted mean and standard deviation of the observed values, those of duplicated rows; weights
    of ones give numpy's mean and std exactly; the categories come from every row, weight 0 included."""
    X, y = mixed_frame(n=50, seed=5)
    frame, schema = validate_features(X)
    weights = np.random.default_rng(5).integers(0, 4, len(frame)).astype(float)
    copies, _ = duplicated_frame(frame, y, weights)
    weighted, copied = ScorecardDesign.fit(frame, schema, weights), ScorecardDesign.fit(copies, schema)
    assert np.allclose(weighted.center, copied.center, rtol=1e-12) and np.allclose(weighted.scale, copied.scale,
                                                                                   rtol=1e-12)
    assert weighted.categories == ScorecardDesign.fit(frame, schema).categories
    age = frame["age"].to_numpy(float)
    observed = age[~np.isnan(age)]
    for design in (ScorecardDesign.fit(frame, schema), ScorecardDesign.fit(frame, schema, np.ones(len(frame)))):
        assert (design.center[0], design.scale[0]) == (observed.mean(), observed.std())


@pytest.mark.parametrize("unit", [1e-13, 1e-200, 1e155, 1e300])
def test_a_numeric_feature_counts_in_any_unit(unit):
    """Standardisation does not depend on a feature's unit: in tiny units (a standard deviation of
    1e-13, once taken for a constant and left unscaled, so its coefficient vanished) or huge ones
    (squares that overflow), the scorecard is the unit-1 one: the same standardised coefficient and
    predictions, and it reads back from JSON."""
    rng = np.random.default_rng(4)
    a, g = rng.normal(size=300), rng.choice(["u", "v", "w"], 300)
    y = np.where(a + (g == "u") > 0.5, "p", "n")
    reference = CLSVMClassifier(strategy="svm-o", positive="p").fit(pd.DataFrame({"x": a, "g": g}), y)
    X = pd.DataFrame({"x": a * unit, "g": g})
    model = CLSVMClassifier(strategy="svm-o", positive="p").fit(X, y)
    (term,), (expected,) = model.ruleset_.linear, reference.ruleset_.linear
    assert term.coefficient == pytest.approx(expected.coefficient, rel=1e-6)
    assert (term.center, term.scale) == pytest.approx((expected.center * unit, expected.scale * unit), rel=1e-12)
    assert (model.predict(X) == reference.predict(X.assign(x=a))).all()
    assert (Ruleset.from_json(model.ruleset_.to_json()).predict(X) == model.predict(X)).all()


def test_a_constant_numeric_feature_is_left_unscaled():
    frame, schema = validate_features(pd.DataFrame({"c": [3e-13] * 5 + [np.nan], "d": [1e9, 1e9, 1e9, 1e9, 1e9, 2.0]}))
    design = ScorecardDesign.fit(frame, schema)
    assert design.scale[0] == 1.0 and design.center[0] == 3e-13
    assert design.scale[1] != 1.0  # one value far from the rest: not constant


def test_svm_o_scorecard_equals_an_independent_one_hot_svm():
    X, y = mixed_frame(seed=1)
    model = CLSVMClassifier(strategy="svm-o", C=3.0, positive="hit").fit(X, y)
    # one-hot by hand: a missing colour is its own category; flag as 0/1; age standardised, NaN -> 0
    colour = pd.get_dummies(X["colour"].fillna("<missing>")).to_numpy(float)
    size = pd.get_dummies(X["size"]).to_numpy(float)
    age = X["age"].to_numpy()
    age = np.nan_to_num((age - np.nanmean(age)) / np.nanstd(age), nan=0.0)
    numeric = np.column_stack([(X["flag"] == "yes").to_numpy(float), age])
    label = np.where(y == "hit", 1.0, -1.0)
    reference = svm.build(np.hstack([colour, size]), numeric, label, 3.0)
    assert solve(reference.problem, ProblemClass.QP, "clarabel").status is Status.OPTIMAL
    solution = svm.extract(reference)
    expected = np.hstack([colour, size]) @ solution.omega + numeric @ solution.omega_numeric + solution.b
    assert np.allclose(model.ruleset_.decision_function(X), expected, atol=1e-5)
    missing_rule = [r for r in model.ruleset_.rules if r.conditions[0].missing]
    assert len(missing_rule) == 1 and str(missing_rule[0].conditions[0]) == "colour is missing"


def test_complexity_follows_the_paper(german_sample):
    X, y = german_sample
    svm_o = CLSVMClassifier(strategy="svm-o", C=10.0, positive="good").fit(X, y).ruleset_
    svm_c = CLSVMClassifier(strategy="svm-c", C=10.0, positive="good").fit(X, y).ruleset_
    clustered = svm_o.meta["clustered_features"]
    categories = sum(len(r.conditions[0].categories) + r.conditions[0].missing for r in svm_o.rules
                     if r.conditions[0].feature in clustered)
    nonzero = sum(abs(r.weight) > 1e-6 for r in svm_o.rules if r.conditions[0].feature in clustered)
    assert svm_o.meta["complexity"] == pytest.approx(100 * nonzero / categories)
    # SVM_C: at most two relevant dummies (clusters) per clustered feature
    assert svm_c.meta["complexity"] <= 100 * 2 * len(clustered) / categories + 1e-9
    assert svm_c.meta["complexity"] < svm_o.meta["complexity"]


def test_clm_is_never_worse_than_svm_c_and_reports_honestly(german_sample):
    """The MIQP stopped after one node (a work limit, the same at any speed): never worse than its
    SVM_C start, the bound the best of LB and SCIP's, the gap that of the returned scorecard, the
    fallback said when the start is what comes back, every stage's seconds recorded."""
    X, y = german_sample
    svm_c = CLSVMClassifier(strategy="svm-c", C=10.0, positive="good").fit(X, y).ruleset_
    clm = CLSVMClassifier(strategy="clm", C=10.0, positive="good",
                          solver_options={"limits/nodes": 1}).fit(X, y).ruleset_
    meta = clm.meta
    report = meta["solve_reports"][-1]
    assert report.solver == "scip" and report.problem_class is ProblemClass.MIQP
    assert report.options["heuristics/mpec/freq"] == report.options["heuristics/subnlp/freq"] == -1  # SCIP_DEFAULTS
    assert report.options["limits/nodes"] == 1 and report.termination in ("node_limit", "optimal")
    assert report.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert (meta["status"], meta["termination"], meta["model_objective"]) == \
        (report.status.value, report.termination, report.objective)
    assert meta["start_objective"] == pytest.approx(svm_c.meta["objective"], rel=1e-6)
    assert meta["objective"] <= svm_c.meta["objective"] + 1e-7
    # the best bound: SCIP's dual bound or LB (optrules.models.cl_lower_bound), whichever is higher
    assert meta["best_bound"] == pytest.approx(max(meta["lower_bound"], report.best_bound))
    assert meta["best_bound"] <= meta["objective"] + 1e-7
    assert meta["gap"] == pytest.approx((meta["objective"] - meta["best_bound"]) / meta["objective"], abs=1e-9)
    if meta["objective"] >= meta["start_objective"] - 1e-9:
        assert meta["fallback"] == "start" and "SVM_C start" in meta["fallback_reason"]
    else:
        assert meta["fallback"] is None and meta["fallback_reason"] == ""
    # per-feature big-M from the lower bound (LB): tighter than sqrt(2 UB), LB below the optimum
    assert len(meta["big_m"]) == len(meta["clustered_features"])
    assert max(meta["big_m"]) <= math.sqrt(2 * meta["upper_bound"]) * (1 + 1e-5)
    assert meta["big_m_max"] == max(meta["big_m"])
    # where the seconds went: the start's QPs, the bound QPs, the model's build, load and solve
    stages = ("start_seconds", "bound_seconds", "build_seconds", "load_seconds", "solve_seconds")
    assert all(meta[key] >= 0 for key in stages) and meta["time_limit"] is None
    assert meta["exact_seconds"] >= sum(meta[key] for key in stages) - 1e-6
    assert meta["solve_seconds"] == pytest.approx(report.solve_seconds)
    assert meta["load_seconds"] == pytest.approx(report.load_seconds)


def test_only_strategies_whose_objective_is_cl_s_record_the_instance(german_sample):
    """The report holds a heuristic's CL objective (7) against clm's bound; svm-o's objective is (1)."""
    X, y = german_sample
    fits = {s: CLSVMClassifier(strategy=s, C=10.0, positive="good", random_state=0, draws=2).fit(X, y).ruleset_
            for s in ("svm-o", "svm-c", "clm-rr")}
    assert "instance" not in fits["svm-o"].meta
    assert fits["svm-c"].meta["instance"] == fits["clm-rr"].meta["instance"]


def test_a_time_limit_bounds_the_whole_strategy_and_its_result_is_honest_at_any_speed(german_sample):
    """However far 0.2 s gets (the start's QPs, the bounds, the MIQP): a usable scorecard, never
    claimed optimal unless proven, and a fallback named when the exact model did not produce it."""
    X, y = german_sample
    model = CLSVMClassifier(strategy="clm", C=10.0, positive="good", solver_options={"time_limit": 0.2}).fit(X, y)
    meta = model.ruleset_.meta
    assert meta["time_limit"] == 0.2 and meta["exact_seconds"] > 0
    assert set(model.predict(X)) <= set(y)
    if meta["fallback"] is None:
        assert meta["status"] in ("optimal", "feasible")
        if meta["status"] == "feasible":
            assert meta["gap"] is None or meta["gap"] > 0
    else:
        assert meta["fallback"] in ("start", "constant") and meta["fallback_reason"]
        assert meta["status"] != "optimal"  # a proven optimum is the solver's own, never a fallback


def test_clm_with_highs_is_a_clear_error_naming_scip(german_sample):
    X, y = german_sample
    with pytest.raises(UnsupportedProblemError, match="highs cannot solve MIQP.*scip"):
        CLSVMClassifier(strategy="clm", solver="highs").fit(X, y)


def test_cl_rr_with_a_solver_it_cannot_use_names_ipopt_and_scip(german_sample):
    """cl-rr calls Ipopt directly; the registry's list of capable solvers named only scip."""
    X, y = german_sample
    with pytest.raises(UnsupportedProblemError, match=r"cl-rr solves the QCQP relaxation of CL with ipopt .* or scip; "
                                                      r"solver='clarabel' cannot"):
        CLSVMClassifier(strategy="cl-rr", solver="clarabel").fit(X, y)


@pytest.mark.parametrize("solver", ["scip", pytest.param("ipopt", marks=pytest.mark.skipif(
    not ipopt_available(), reason="cyipopt is not installed"))])
def test_cl_rr_reports_which_solver_solved_the_relaxation(solver):
    X, y = mixed_frame(n=40)
    options = {"limits/nodes": 50} if solver == "scip" else None  # SCIP's global solve: a work limit
    ruleset = CLSVMClassifier(strategy="cl-rr", C=5.0, draws=4, solver=solver, random_state=1,
                              solver_options=options).fit(X, y).ruleset_
    assert ruleset.meta["relaxation_solver"] == solver
    relaxation = ruleset.meta["solve_reports"][2]
    assert relaxation.problem_class is ProblemClass.NLP and relaxation.has_solution
    assert 1 <= ruleset.meta["roundings_tried"] <= 4


@pytest.mark.skipif(not ipopt_available(), reason="cyipopt is not installed")
def test_cl_rr_rounds_the_last_iterate_when_ipopt_stops_at_its_limit(german_sample):
    """Ipopt stopped by a limit (here its iteration limit, status -1: the same at any speed) is not
    an error: the strategy rounds the last iterate, and the report says so with a status no better
    than FEASIBLE."""
    X, y = german_sample
    ruleset = CLSVMClassifier(strategy="cl-rr", C=10.0, draws=3, solver="ipopt", random_state=0,
                              solver_options={"max_iter": 2}).fit(X, y).ruleset_
    relaxation = ruleset.meta["solve_reports"][2]
    assert relaxation.solver == "ipopt" and relaxation.termination == "iteration_limit"
    assert relaxation.status in (Status.FEASIBLE, Status.NO_SOLUTION)
    assert (relaxation.objective is None) == (relaxation.status is Status.NO_SOLUTION)
    assert ruleset.n_rules > 0 and 1 <= ruleset.meta["roundings_tried"] <= 3


def test_a_rounding_strategy_reports_the_status_of_its_scorecard_not_of_its_relaxation(german_sample):
    """clm-rr's relaxation is solved to optimality; the rounded scorecard it returns is a feasible point
    of CL with a gap to the relaxation's bound: "feasible", never "optimal" while that gap is open."""
    from optrules.experiments.report import exact_summary

    X, y = german_sample
    meta = CLSVMClassifier(strategy="clm-rr", C=10.0, random_state=0, draws=3).fit(X, y).ruleset_.meta
    assert meta["relaxation_status"] == "optimal" and meta["gap"] > 0
    assert meta["status"] == "feasible" and meta["termination"] == ("rounding" if meta["fallback"] is None else "start")
    assert meta["objective"] >= meta["best_bound"]
    assert "status feasible (rounding)" in exact_summary(meta) and "relaxation optimal" in exact_summary(meta)


def test_without_a_feature_to_cluster_every_strategy_is_the_svm_and_proves_it():
    """CL without a clustered feature is the convex SVM QP: its optimum is its bound (gap 0, proven),
    where clm and cl reported "optimal" with no bound (review)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80), "flag": rng.choice(["x", "y"], 80)})
    y = np.where(X["a"] + 0.5 * (X["flag"] == "x") > 0.2, "yes", "no")
    for strategy in ("clm", "cl", "svm-o"):
        meta = CLSVMClassifier(strategy=strategy, C=1.0).fit(X, y).ruleset_.meta
        assert meta["status"] == "optimal" and meta["gap"] == 0.0 and meta["best_bound"] == meta["objective"]


def test_svm_c_reports_its_scorecard_as_a_feasible_point_of_cl(german_sample):
    """SVM_C's QP is solved to optimality, but its scorecard is only a feasible point of CL: clm on the
    same data may prove a lower objective, so svm-c's status is "feasible" (it said "optimal")."""
    from optrules.experiments.report import exact_summary

    X, y = german_sample
    meta = CLSVMClassifier(strategy="svm-c", C=10.0).fit(X, y).ruleset_.meta
    assert (meta["status"], meta["termination"], meta["svm_status"]) == ("feasible", "svm_c", "optimal")
    assert "svm optimal" in exact_summary(meta)


def test_randomized_rounding_is_reproducible_with_random_state(german_sample):
    X, y = german_sample
    first = CLSVMClassifier(strategy="clm-rr", C=10.0, random_state=3, draws=5).fit(X, y).ruleset_
    second = CLSVMClassifier(strategy="clm-rr", C=10.0, random_state=3, draws=5).fit(X, y).ruleset_
    assert first == second


def test_c_cv_picks_from_the_grid_by_inner_accuracy():
    X, y = mixed_frame(n=80, seed=2)
    model = CLSVMClassifier(strategy="svm-c", C="cv", random_state=0).fit(X, y)
    accuracy = model.ruleset_.meta["cv_accuracy"]
    assert set(accuracy) == {str(c) for c in optrules.estimators.clsvm.C_GRID}
    best = max(accuracy.values())
    assert accuracy[str(model.ruleset_.meta["C"])] == best


def test_c_cv_without_a_time_limit_runs_every_fold():
    X, y = mixed_frame(n=80, seed=2)
    meta = CLSVMClassifier(strategy="svm-c", C="cv", random_state=0).fit(X, y).ruleset_.meta
    assert meta["cv_folds"] == optrules.estimators.clsvm.CV_FOLDS and meta["cv_reason"] is None
    assert meta["cv_seconds"] > 0 and meta["time_limit"] is None


def test_a_cross_validation_out_of_its_share_chooses_the_middle_of_the_grid_and_says_so(monkeypatch):
    """CV_SHARE = 0: the cross-validation's deadline is now, so no fold runs (the same at any speed);
    the fit says so, takes C = 10 and still runs its strategy, whose limit is the fit's."""
    monkeypatch.setattr(optrules.estimators.clsvm, "CV_SHARE", 0.0)
    X, y = mixed_frame(n=80, seed=2)
    meta = CLSVMClassifier(strategy="clm", C="cv", random_state=0,
                           solver_options={"time_limit": 1000.0, "limits/nodes": 10}).fit(X, y).ruleset_.meta
    assert meta["cv_folds"] == 0 and meta["cv_accuracy"] == {} and meta["C"] == 10.0
    assert "spent after 0 of 3 folds" in meta["cv_reason"] and "middle of the grid" in meta["cv_reason"]
    assert meta["time_limit"] == 1000.0  # the user's limit, for the whole fit
    assert meta["status"] in ("optimal", "feasible") and meta["model_objective"] is not None


def test_the_inner_runs_share_the_fits_time_limit(monkeypatch):
    """Under a time limit every inner run of C="cv" is bounded by what is left of CV_SHARE of it (the
    SVM_C runs of clm included, which have no limit otherwise), and the strategy gets the rest."""
    calls = []
    real = optrules.estimators.clsvm.run_strategy

    def recording(strategy, inputs, C, **kwargs):
        calls.append((strategy, (kwargs.get("options") or {}).get("time_limit")))
        return real(strategy, inputs, C, **kwargs)

    monkeypatch.setattr(optrules.estimators.clsvm, "run_strategy", recording)
    X, y = mixed_frame(n=80, seed=2)
    CLSVMClassifier(strategy="clm", C="cv", random_state=0,
                    solver_options={"time_limit": 1000.0, "limits/nodes": 10}).fit(X, y)
    inner, final = calls[:-1], calls[-1]
    assert len(inner) == 3 * 4 and all(s == "svm-c" for s, _ in inner)
    share = 1000.0 * optrules.estimators.clsvm.CV_SHARE
    assert all(0 < limit <= share for _, limit in inner)
    assert final[0] == "clm" and 1000.0 - share < final[1] <= 1000.0


def test_the_bound_qps_leave_the_miqp_its_share_and_unrun_bounds_keep_the_global_big_m(german_sample, monkeypatch):
    """BOUND_SHARE = 0: no bound QP runs (the same at any speed); every feature keeps sqrt(2 UB), which
    is valid, so the MIQP still runs and reaches the same proven optimum as with the tight bounds."""
    X, y = german_sample
    X = X[["checking_status", "credit_history", "purpose", "savings_status"]]  # a small MIQP, solved to optimality
    tight = CLSVMClassifier(strategy="clm", C=10.0, positive="good", class_weight="balanced",
                            solver_options={"time_limit": 1000.0}).fit(X, y).ruleset_.meta
    monkeypatch.setattr(optrules.exact.clsvm, "BOUND_SHARE", 0.0)
    loose = CLSVMClassifier(strategy="clm", C=10.0, positive="good", class_weight="balanced",
                            solver_options={"time_limit": 1000.0}).fit(X, y).ruleset_.meta
    J = len(loose["big_m"])
    assert (tight["bound_qps"], tight["bound_qps_planned"]) == (J + 1, J + 1) and tight["bound_qps_solved"] == J + 1
    assert (loose["bound_qps"], loose["bound_qps_solved"]) == (0, 0) and loose["lower_bound"] is None
    assert loose["big_m"] == [pytest.approx(math.sqrt(2 * loose["upper_bound"]), rel=1e-5)] * J
    assert max(tight["big_m"]) <= min(loose["big_m"]) + 1e-9
    assert tight["status"] == loose["status"] == "optimal"
    assert loose["objective"] == pytest.approx(tight["objective"], rel=1e-5)


def test_numeric_only_data_is_a_plain_svm():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    results = {s: CLSVMClassifier(strategy=s, C=10.0).fit(X, y).ruleset_ for s in STRATEGIES}
    for strategy, ruleset in results.items():
        assert not ruleset.rules and ruleset == results["svm-o"], strategy


@pytest.mark.parametrize("params, message", [
    ({"strategy": "clmm"}, "'strategy' parameter of CLSVMClassifier must be one of 'svm-o'"),
    ({"C": 0}, r"'C' parameter of CLSVMClassifier must be a finite number > 0.0 or one of 'cv'"),
    ({"C": "auto"}, r"'C' parameter of CLSVMClassifier must be a finite number > 0.0 or one of 'cv'"),
    ({"clusters": 0}, "'clusters' parameter of CLSVMClassifier must be an integer >= 1"),
    ({"draws": 0}, "'draws' parameter of CLSVMClassifier must be an integer >= 1"),
    ({"positive": "maybe"}, "positive class 'maybe' is not a label"),
    ({"solver": "cplexx"}, "'solver' parameter of CLSVMClassifier must be one of None, 'highs'"),
    ({"class_weight": "even"}, "'class_weight' parameter of CLSVMClassifier must be None, 'balanced' or a dict"),
])
def test_parameter_errors_are_specific(params, message):
    X, y = mixed_frame(n=30)
    with pytest.raises(ValueError, match=message):
        CLSVMClassifier(**params).fit(X, y)


def test_registry_entries():
    for name in STRATEGIES:
        method = METHODS[name]
        assert method.kind == "score" and method.fixed == {"strategy": name}
        assert method.exact == (name in ("clm", "cl"))
        assert make_estimator(name).strategy == name


def test_missing_only_condition():
    condition = CategoricalCondition("colour", [], missing=True)
    assert str(condition) == "colour is missing"
    assert condition.evaluate(np.array(["red", None, np.nan], dtype=object)).tolist() == [False, True, True]
    assert CategoricalCondition.from_dict(condition.to_dict()) == condition
    with pytest.raises(ValueError, match="needs at least one category"):
        CategoricalCondition("colour", [])
    with pytest.raises(ValueError, match="needs at least one category"):
        CategoricalCondition("colour", [], negated=True, missing=True)


def test_scorecard_complexity_of_a_hand_made_ruleset():
    rules = (optrules.Rule((CategoricalCondition("a", ["x", "y"]),), 1, weight=0.5),
             optrules.Rule((CategoricalCondition("a", ["z"], missing=True),), 1, weight=0.0),
             optrules.Rule((CategoricalCondition("b", ["u"]),), 1, weight=-1.0))
    ruleset = Ruleset("score", rules, 0, ("a", "b"), (0, 1), positive=1)
    assert ruleset.scorecard_complexity(["a"]) == pytest.approx(100 * 1 / 4)
    assert ruleset.scorecard_complexity() == pytest.approx(100 * 2 / 5)
    assert math.isnan(ruleset.scorecard_complexity(["c"]))
    with pytest.raises(AttributeError, match="defined for 'score' rulesets"):
        Ruleset("set", (), 0, ("a",), (0, 1), positive=1).scorecard_complexity()


def test_clm_warm_start_reaches_scip(german_sample):
    """Stopped at its first solution, SCIP holds SVM_C's point (up to its feasibility tolerance): the
    start reached the solver, it is not only the strategy's fallback."""
    X, y = german_sample
    ruleset = CLSVMClassifier(strategy="clm", C=10.0, solver_options={"limits/solutions": 1}).fit(X, y).ruleset_
    report = ruleset.meta["solve_reports"][-1]
    assert report.has_solution
    assert report.objective <= ruleset.meta["start_objective"] * (1 + 1e-6)
    assert ruleset.meta["objective"] <= ruleset.meta["start_objective"]


@pytest.mark.parametrize("strategy", ["svm-o", "clm"])
def test_a_feature_of_one_value_and_missing_ones_scores_is_missing(strategy):
    """{u, missing} is a two-category feature whose indicator is "is missing": the scorecard printed
    it as `b in {None}`, a rule that fires on no row, so a model that separated the training data
    (objective 2.0) predicted one class (accuracy 0.5)."""
    X = pd.DataFrame({"b": pd.Series(["u", None] * 10, dtype=object), "x": np.arange(20.0)})
    y = np.where(X["b"].isna(), "yes", "no")
    model = CLSVMClassifier(strategy=strategy, C=100, categorical=["b"], positive="yes").fit(X, y)
    (rule,) = [r for r in model.ruleset_.rules if r.conditions[0].feature == "b"]
    assert str(rule.conditions[0]) == "b is missing"
    assert (model.predict(X) == y).all()
    assert (Ruleset.from_json(model.ruleset_.to_json()).predict(X) == y).all()


@pytest.mark.parametrize("strategy", ["clm", "clm-rr"])
def test_one_class_of_zero_weight_is_refused_before_any_solve(strategy, monkeypatch):
    """With every row of one class at weight 0 the start's objective came back as -8e-11, and the
    big-M bound took its square root (ValueError: math domain error). A weight of 0 removes its row,
    so such weights leave one class: refused up front, as one class is, and no solver runs; the big-M
    bound of a slightly negative objective stays defined."""
    X, y = mixed_frame(n=60, seed=6)
    weights = np.where(y == "hit", 0.0, 1.0)
    monkeypatch.setattr("optrules.estimators.clsvm.run_strategy", lambda *a, **k: pytest.fail("a solve ran"))
    with pytest.raises(ValueError, match="sample_weight leaves a single class"):
        CLSVMClassifier(strategy=strategy, C=5.0, positive="hit", **quick(strategy)).fit(X, y, sample_weight=weights)
    assert big_m(-8e-11) == pytest.approx(1e-9)


def test_class_weight_keys_name_labels_as_positive_does():
    """class_weight {1: 3} for labels '0' / '1' was an error ('not labels of y'); a key names a label by
    its text as positive does, and weighs exactly as the label itself."""
    X, y = mixed_frame(n=60, seed=8)
    codes = pd.Series(np.where(y == "hit", "1", "0"))
    by_text = CLSVMClassifier(strategy="svm-o", C=5.0, positive="1", class_weight={1: 3.0}).fit(X, codes)
    by_label = CLSVMClassifier(strategy="svm-o", C=5.0, positive="1", class_weight={"1": 3.0}).fit(X, codes)
    assert by_text.ruleset_.meta["objective"] == pytest.approx(by_label.ruleset_.meta["objective"])
    with pytest.raises(ValueError, match=r"class_weight names \[2\], which are not labels of y"):
        CLSVMClassifier(strategy="svm-o", positive="1", class_weight={2: 3.0}).fit(X, codes)


@pytest.mark.parametrize("C", [2e-4, 2e-5])
def test_convex_bounds_stay_below_every_feasible_scorecard_when_c_is_tiny(C):
    """(LB) and the CL-bigM relaxation are solved to about 1e-8, no small part of (7) when C makes it
    tiny: unlowered, LB exceeded svm-c's feasible objective on these rows (9.86697e-5 against
    9.86663e-5 at C = 2e-4), and clm-rr reported a gap of 3e-5 to a bound above it (review). Every
    bound is now at most every feasible objective, and "optimal" means proven within 1e-4."""
    X, y = optrules.load("german")
    X, y = X.iloc[:150], y.iloc[:150]
    rounded = optrules.fit(X, y, method="clm-rr", C=C).meta
    feasible = [rounded["objective"], optrules.fit(X, y, method="svm-c", C=C).meta["objective"]]
    assert 0.0 <= rounded["lower_bound"] <= rounded["best_bound"] <= min(feasible)
    assert rounded["gap"] == pytest.approx((rounded["objective"] - rounded["best_bound"]) / rounded["objective"])
    assert (rounded["status"] == "optimal") == (rounded["gap"] <= 1e-4)


def test_a_c_that_makes_the_objective_tiny_is_warned_about():
    """At C = 1e-8 (7) is at most 4.9e-9, within the QP solvers' absolute tolerances, and svm-o called
    a scorecard 7e-4 above the constant classifier optimal (review): the fit says the scale is unreliable."""
    X, y = optrules.load("german")
    X, y = X.iloc[:150], y.iloc[:150]
    with pytest.warns(UserWarning, match=r"C=1e-08 makes the objective \(7\) at most 4\.93e-09"):
        optrules.fit(X, y, method="svm-o", C=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", DegenerateFitWarning)
        optrules.fit(X, y, method="svm-o", C=1e-3)
