"""``CLSVMClassifier``: the Cluster SVM scorecard (Carrizosa, Nogales-Gomez and Romero Morales).

The estimator prepares the features (``optrules.exact.scorecard``: clustered categorical features,
two-category features as 0/1, standardised numeric features), chooses C when asked (``C="cv"``),
runs one strategy of ``optrules.exact.clsvm`` and returns the scorecard as a ``Ruleset(kind="score")``.
Binary: the positive class against the rest.

``solver_options["time_limit"]`` bounds the whole fit in wall time (``optrules.exact.budget``): the
inner cross-validation of ``C="cv"`` may use ``CV_SHARE`` of it (the folds finished by then choose
C), the strategy gets what is left.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.metaestimators import available_if

from optrules.data import Schema, matching_label
from optrules.estimators.base import COMMON_PARAMETERS, RulesetClassifier, TrainingData
from optrules.estimators.params import Either, Integer, Label, OneOf, Options, Real, Seed, Weights
from optrules.exceptions import InvalidParameterError
from optrules.exact.budget import TimeBudget
from optrules.exact.cl_ipopt import ipopt_available
from optrules.exact.clsvm import STRATEGIES, StrategyInputs, default_modeller, run_strategy
from optrules.exact.scorecard import ScorecardDesign
from optrules.models.cl import ClusterData
from optrules.models.cl_bigm import MODELLERS
from optrules.ruleset import Ruleset
from optrules.solvers import SOLVERS, ProblemClass, UnsupportedProblemError, check_solver_options

__all__ = ["CLSVMClassifier", "CV_FOLDS", "CV_SHARE", "C_GRID"]

#: the grid searched by ``C="cv"`` (the paper's grid is not given; this spans weak to strong fit)
C_GRID = (0.1, 1.0, 10.0, 100.0)
#: inner folds of ``C="cv"``
CV_FOLDS = 3
#: Under a time limit, ``C="cv"`` may use this share of it: the inner runs (12 SVM_C fits for clm)
#: would otherwise come on top of the limit, and on large categorical data leave no time for the
#: strategy's own model. The folds that finished within the share choose C.
CV_SHARE = 0.25


def _inputs(frame: pd.DataFrame, schema: Schema, is_positive: np.ndarray, clusters: int,
            weights: np.ndarray) -> StrategyInputs:
    """The scorecard design and the cluster models' data; ``weights`` multiply each row's hinge loss."""
    design = ScorecardDesign.fit(frame, schema, weights)
    y = np.where(is_positive, 1.0, -1.0)
    data = ClusterData(tuple(design.codes(frame)), design.n_categories, design.numeric_matrix(frame), y,
                       clusters, weights)
    return StrategyInputs(design, data)


def class_weights(class_weight: Any, labels: np.ndarray, is_positive: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Row weights times the class weights: None (1), "balanced" (n / (2 * weighted count) for the
    positive class and for the negative side, as scikit-learn's for two classes) or a dict label ->
    weight (each row weighs its own label's entry; a label not in the dict weighs 1; a key names a
    label as ``positive`` does, by equality or by its text (``1`` for ``'1'``); a key that names no
    training label is an error)."""
    if class_weight is None:
        return weights
    if class_weight == "balanced":
        total = weights.sum()
        side = np.where(is_positive, total / (2.0 * weights[is_positive].sum()),
                        total / (2.0 * weights[~is_positive].sum()))
        return weights * side
    known = sorted(set(labels.tolist()), key=repr)
    named = {key: matching_label(key, known) for key in class_weight}
    unknown = [key for key, label in named.items() if label is None]
    if unknown:
        raise InvalidParameterError(f"class_weight names {unknown}, which are not labels of y; the labels "
                                    f"are {known}")
    by_label = {named[key]: float(weight) for key, weight in class_weight.items()}
    return weights * np.array([by_label.get(v, 1.0) for v in labels.tolist()])


def _two_classes(estimator: CLSVMClassifier) -> bool:
    """Whether a scorecard has a scikit-learn decision function: unfitted, or fitted on two classes."""
    if hasattr(estimator, "classes_") and len(estimator.classes_) != 2:
        raise AttributeError(f"decision_function is not available: this scorecard was fitted on "
                             f"{len(estimator.classes_)} classes (its positive class against the rest); use "
                             f"predict_proba, which has a column per class")
    return True


class CLSVMClassifier(RulesetClassifier):
    """A linear SVM scorecard whose categories are clustered per feature (CLSVM).

    Parameters
    ----------
    strategy : "svm-o", "svm-c", "cl-rr", "clm-rr", "clm" or "cl"
        How the clustering is found (``optrules.exact.clsvm``; docs/methods/clsvm.md).
    C : float > 0 or "cv"
        The SVM's regularisation parameter (default 10: the benchmark datasets choose 10 or 100 by
        cross-validation, and the MIQP is much faster at 10); ``"cv"`` chooses it from ``C_GRID`` by
        stratified ``CV_FOLDS``-fold inner cross-validation accuracy of the strategy's classifier (for ``clm``
        and ``cl`` the inner runs use ``svm-c``, the MIQP's warm start, to keep them affordable, with
        default solvers; otherwise each inner run has the fit's solver options). Under a
        ``time_limit`` the cross-validation may use ``CV_SHARE`` of it, each inner run bounded by
        what is left of that share; only the folds finished within it choose C (none finished: the
        middle of the grid, 10, said in ``meta["cv_reason"]``).
    clusters : int >= 1
        L, the number of clusters of every categorical feature with three or more categories.
    draws : int >= 1
        Randomized roundings tried by ``cl-rr`` and ``clm-rr`` (the best by the SVM objective wins).
    positive : label, optional
        The positive class (default: the minority class); every other class is negative.
    solver, solver_options :
        Solver and options of the strategy's main model: the SVM QP (svm-o, svm-c), the QCQP
        (cl-rr: ``"ipopt"`` via cyipopt or ``"scip"``), the CL-bigM relaxation (clm-rr), the MIQP
        (clm: ``"scip"`` or ``"gurobi"``), the MINLP (cl: ``"scip"``). None: the default. Checked
        before any work. ``time_limit`` bounds the whole fit in wall time: the inner cross-validation
        of ``C="cv"``, then the strategy (the warm start's and the bound QPs, the model's build, load
        and solve, the roundings) in what is left.
    modeller : "pyomo", "cvxpy" or None
        The layer that builds the strategy's CL-bigM model (clm, clm-rr) or CL model (cl, cl-rr:
        Pyomo only). None: Pyomo for clm (SCIP gets the warm start), cvxpy for clm-rr (Clarabel).
    random_state : int, optional
        Seeds the randomized rounding and the inner folds.
    """

    method = "clsvm"
    parameters = {
        "strategy": OneOf(tuple(STRATEGIES)), "C": Either((Real(0.0, open_low=True), OneOf(("cv",)))),
        "clusters": Integer(1), "draws": Integer(1), "class_weight": Weights(), "positive": Label(),
        "solver": OneOf((None, *SOLVERS)), "solver_options": Options(), "modeller": OneOf((None, *MODELLERS)),
        "random_state": Seed(), **COMMON_PARAMETERS,
    }

    def __init__(self, strategy: str = "svm-c", C: float | str = 10.0, clusters: int = 2, draws: int = 10,
                 class_weight: dict | str | None = None, positive: Any = None, solver: str | None = None,
                 solver_options: dict | None = None, modeller: str | None = None, random_state: int | None = None,
                 categorical: list | None = None, max_categories: int | None = 100,
                 min_frequency: int | float | None = None) -> None:
        self.strategy = strategy
        self.C = C
        self.clusters = clusters
        self.draws = draws
        self.class_weight = class_weight
        self.positive = positive
        self.solver = solver
        self.solver_options = solver_options
        self.modeller = modeller
        self.random_state = random_state
        self.categorical = categorical
        self.max_categories = max_categories
        self.min_frequency = min_frequency

    def _check_params(self) -> None:
        self._check_solver()

    def _check_solver(self) -> None:
        """The strategy's main model, its solver and the solver options, checked before any work."""
        strategy, modeller = self.strategy, self.modeller
        builds = default_modeller(strategy)
        if modeller is not None:
            if modeller not in MODELLERS:
                raise ValueError(f"modeller must be one of {list(MODELLERS)} or None, got {modeller!r}")
            if builds is None:
                raise ValueError(f"strategy {strategy!r} builds no CL model, so modeller does not apply "
                                 "(its SVM QPs are cvxpy models)")
            if strategy in ("cl", "cl-rr") and modeller != "pyomo":
                raise ValueError(f"strategy {strategy!r} builds CL, whose bilinear constraint cvxpy cannot "
                                 "express: use modeller='pyomo'")
        interface = modeller or builds or "cvxpy"
        problem = {"svm-o": ProblemClass.QP, "svm-c": ProblemClass.QP, "cl-rr": ProblemClass.NLP,
                   "clm-rr": ProblemClass.QP, "clm": ProblemClass.MIQP, "cl": ProblemClass.MINLP}[strategy]
        solver = self.solver or {"clm": "scip", "cl": "scip", "cl-rr": "scip"}.get(strategy, "clarabel")
        if strategy == "cl-rr" and (self.solver == "ipopt" or (self.solver is None and ipopt_available())):
            if not ipopt_available():  # cl-rr calls cyipopt directly, not through a registry backend
                raise ValueError("solver 'ipopt' needs cyipopt: pip install cyipopt-wheels (or use solver='scip')")
            check_solver_options("ipopt", self.solver_options)  # Ipopt's own options tried on a scratch problem
            return
        if strategy == "clm-rr" and self.solver is None and interface == "pyomo":
            solver = "highs"
        if strategy == "cl-rr" and solver not in ("scip", "ipopt"):
            # Ipopt is called directly (cyipopt), not through the registry, whose list would omit it
            ipopt = "ipopt (installed)" if ipopt_available() else "ipopt (pip install cyipopt-wheels)"
            raise UnsupportedProblemError(f"cl-rr solves the QCQP relaxation of CL with {ipopt} or scip; "
                                          f"solver={solver!r} cannot")
        check_solver_options(solver, self.solver_options, problem, interface)

    def _choose_C(self, frame: pd.DataFrame, schema: Schema, is_positive: np.ndarray, weights: np.ndarray,
                  rng: np.random.Generator, deadline: float | None) -> tuple[float, dict[float, float], dict[str, Any]]:
        """C of ``C_GRID`` with the best mean inner accuracy (ties: the smaller C), the means, and what
        the cross-validation did (``cv_folds`` finished, ``cv_reason`` when it stopped early). The
        inner runs stop at ``deadline`` (``time.perf_counter()`` seconds; None: no limit); a fold that
        ends after it is not counted."""
        strategy = "svm-c" if self.strategy in ("clm", "cl") else self.strategy
        same = strategy == self.strategy
        folds = min(CV_FOLDS, int(is_positive.sum()), int((~is_positive).sum()))
        if folds < 2:
            return C_GRID[len(C_GRID) // 2], {}, {"cv_folds": 0, "cv_reason": "a class has fewer than 2 rows"}
        splitter = StratifiedKFold(folds, shuffle=True, random_state=int(rng.integers(2**31 - 1)))
        accuracy: dict[float, list[float]] = {C: [] for C in C_GRID}
        finished, reason = 0, None
        for train, test in splitter.split(frame, is_positive):
            if deadline is not None and time.perf_counter() >= deadline:
                break
            inner = _inputs(frame.iloc[train].reset_index(drop=True), schema, is_positive[train], self.clusters,
                            weights[train])
            held_out = frame.iloc[test].reset_index(drop=True)
            fold: dict[float, float] = {}
            for C in C_GRID:
                options = dict(self.solver_options or {}) if same else {}
                if deadline is not None:
                    left = max(deadline - time.perf_counter(), 1e-3)
                    options["time_limit"] = min(options.get("time_limit", left), left)
                result = run_strategy(strategy, inner, C, draws=self.draws, solver=self.solver if same else None,
                                      options=options, rng=rng, modeller=self.modeller if same else None)
                scorecard = inner.design.to_ruleset(result.card, schema, True, False, (False, True))
                predicted = scorecard.decision_function(held_out) > 0
                fold[C] = float(np.average(predicted == is_positive[test], weights=weights[test]))
            if deadline is not None and time.perf_counter() > deadline:
                break  # its last runs may have been cut short: not counted
            for C, score in fold.items():
                accuracy[C].append(score)
            finished += 1
        if finished < folds:
            reason = (f"the cross-validation's share of the time limit ({CV_SHARE:.0%}) was spent after "
                      f"{finished} of {folds} folds")
        if not finished:
            return C_GRID[len(C_GRID) // 2], {}, {"cv_folds": 0, "cv_reason": reason + "; C = "
                                                  f"{C_GRID[len(C_GRID) // 2]:g}, the middle of the grid"}
        means = {C: float(np.mean(v)) for C, v in accuracy.items()}
        return max(C_GRID, key=lambda C: (means[C], -C)), means, {"cv_folds": finished, "cv_reason": reason}

    def _fit_ruleset(self, data: TrainingData, rng: np.random.Generator) -> Ruleset:
        target = data.target()
        X, schema = data.frame, data.schema
        kept = data.weights > 0  # a row of weight 0 is a row removed: it adds no category to the design
        X, labels, is_positive = X[kept].reset_index(drop=True), data.labels[kept], target.is_positive[kept]
        weights = class_weights(self.class_weight, labels, is_positive, data.weights[kept])
        meta: dict[str, Any] = {"strategy": self.strategy}
        options = dict(self.solver_options or {})
        budget = TimeBudget(options.get("time_limit"))  # the whole fit's
        C = self.C
        if C == "cv":
            with budget.stage("cv"):
                C, scores, done = self._choose_C(X, schema, is_positive, weights, rng, budget.share(CV_SHARE))
            meta.update(cv_accuracy={str(c): s for c, s in scores.items()}, **done)
        if budget.time_limit is not None:  # the strategy gets what is left (at least a moment: it then
            options["time_limit"] = max(budget.remaining(), 1e-3)  # returns its fallback, and says so)
        inputs = _inputs(X, schema, is_positive, self.clusters, weights)
        result = run_strategy(self.strategy, inputs, float(C), draws=int(self.draws), solver=self.solver,
                              options=options or None, rng=rng, modeller=self.modeller)
        meta.update(C=float(C), objective=result.objective, solve_reports=result.reports, **result.meta)
        meta.update(time_limit=budget.time_limit, cv_seconds=budget.seconds.get("cv", 0.0))
        if self.strategy != "svm-o" or not inputs.has_clusters:  # svm-o's objective is (1), not CL's (7)
            meta["instance"] = inputs.data.digest(float(C))
        ruleset = inputs.design.to_ruleset(result.card, schema, target.positive, target.negative,
                                           target.classes, meta)
        return ruleset.with_meta(complexity=ruleset.scorecard_complexity(inputs.design.clustered))

    def _degenerate_causes(self, data: TrainingData) -> list[str]:
        causes = super()._degenerate_causes(data)
        if not data.schema.categorical_features:
            causes.append("no categorical feature to cluster: the scorecard is a linear SVM on the numeric "
                          "features alone")
        share = float(data.weights[data.target().is_positive].sum() / data.weights.sum())
        if self.class_weight is None and not data.weighted and not 0.4 <= share <= 0.6:
            causes.append(f"the SVM's hinge loss is unweighted and the positive class has {100 * share:.0f}% of the "
                          f"rows: class_weight='balanced' weighs the classes equally")
        return causes

    @available_if(_two_classes)
    def decision_function(self, X: Any) -> np.ndarray:
        """The scorecard's score of every row, oriented as scikit-learn's binary classifiers: > 0 means
        ``classes_[1]`` (the score negated when the positive class is ``classes_[0]``). A scorecard
        fitted on more classes has none: scikit-learn reads a score per class there (n x K, as
        ``CalibratedClassifierCV`` does), and one score of the positive class against the rest paired
        with ``classes_[0]`` made nonsense; its ``predict_proba`` has a column per class."""
        X = self._check_predict_input(X)
        score = self.ruleset_.decision_function(X)
        return -score if self.ruleset_.classes.index(self.ruleset_.positive) == 0 else score
