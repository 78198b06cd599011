"""scikit-learn compatible classifiers: one per method, all sharing :class:`RulesetClassifier`.

A subclass implements ``_fit_ruleset(X, schema, labels, rng) -> Ruleset``; the base class validates
the input (``optrules.data``), turns ``random_state`` into a generator once, times the fit, fills the
Ruleset's ``meta`` and exposes ``ruleset_``, ``classes_``, ``predict`` and ``score``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from optrules.binarize import binarize
from optrules.candidates import mine_candidates
from optrules.cover import CoverInstance
from optrules.data import Schema, binarize_target, validate_features, validate_target
from optrules.exact.column_generation import PRICINGS, RuleProblem, column_generation
from optrules.exact.set_cover import solve_set_cover
from optrules.learners.selection import greedy_cover
from optrules.models.set_cover import DEFAULT_MODELLER, MODELLERS
from optrules.ruleset import Rule, Ruleset
from optrules.solvers import ProblemClass, check_solver_options

__all__ = ["ColumnGenerationClassifier", "RulesetClassifier", "SetCoverClassifier", "check_exact_options", "package_version"]


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("optrules")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


def _check_array_kind(X: Any) -> None:
    if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
        raise TypeError("sparse input is not supported: pass a dense array or a DataFrame")
    if not isinstance(X, pd.DataFrame) and np.iscomplexobj(np.asarray(X)):
        raise ValueError("Complex data not supported")


class RulesetClassifier(ClassifierMixin, BaseEstimator):
    """Base of every optrules estimator (not used directly).

    ``categorical``: column indices (or names) of a numpy X to treat as categorical.
    """

    method: str = ""
    binary: bool = True

    def __init__(self, categorical: list | None = None) -> None:
        self.categorical = categorical

    # -- scikit-learn's tags: missing values are data; binary methods are positive-vs-rest.
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.classifier_tags.multi_class = not self.binary
        return tags

    def fit(self, X: Any, y: Any) -> RulesetClassifier:
        _check_array_kind(X)
        started = time.perf_counter()
        frame, schema = validate_features(X, categorical=self.categorical)
        labels = validate_target(y, len(frame))
        rng = np.random.default_rng(getattr(self, "random_state", None))
        ruleset = self._fit_ruleset(frame, schema, labels, rng)
        self.classes_ = np.array(ruleset.classes)
        self.n_features_in_ = len(schema.features)
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.array(schema.features, dtype=object)
        self.schema_ = schema
        self.ruleset_ = ruleset.with_meta(
            method=self.method,
            params=_plain_params(self.get_params()),
            fit_seconds=time.perf_counter() - started,
            random_state=_plain(getattr(self, "random_state", None)),
            version=package_version(),
            **ruleset.meta,
        )
        return self

    def _fit_ruleset(self, X: pd.DataFrame, schema: Schema, labels: np.ndarray,
                     rng: np.random.Generator) -> Ruleset:
        raise TypeError(f"{type(self).__name__} is abstract: use one of the method estimators")

    def _check_predict_input(self, X: Any) -> Any:
        check_is_fitted(self, "ruleset_")
        _check_array_kind(X)
        if not isinstance(X, pd.DataFrame):
            X = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
            if X.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got shape {X.shape}. Reshape your data "
                                 "with X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one sample.")
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                                 f"{self.n_features_in_} features as input.")
        return X

    def predict(self, X: Any) -> np.ndarray:
        X = self._check_predict_input(X)
        predictions = self.ruleset_.predict(X)
        return np.asarray(predictions.tolist(), dtype=self.classes_.dtype)


def _plain(value: Any) -> Any:
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return repr(value)


def _plain_params(params: dict[str, Any]) -> dict[str, Any]:
    plain: dict[str, Any] = {}
    for key, value in params.items():
        plain[key] = {k: _plain(v) for k, v in value.items()} if isinstance(value, dict) else _plain(value)
    return plain


def check_exact_options(solver: str, solver_options: dict | None, modeller: str, problem_class: ProblemClass) -> None:
    """Check an exact method's solver, modeller and solver options before any work (errors name them)."""
    if modeller not in MODELLERS:
        raise ValueError(f"modeller must be one of {list(MODELLERS)}, got {modeller!r}")
    check_solver_options(solver, solver_options, problem_class, modeller)


_CANDIDATE_DEFAULTS = {"max_len": 3, "min_support": 0.05, "max_candidates": 500,
                       "discretization": "chimerge", "discretization_params": None}


class SetCoverClassifier(RulesetClassifier):
    """A rule set chosen among mined candidate rules by weighted set cover, exactly or greedily.

    Minimises ``alpha * uncovered positives + (1 - alpha) * covered negatives + rule_cost * rules
    + atom_cost * atoms`` (``optrules.cover``) over candidates from ``optrules.candidates``.

    Parameters
    ----------
    candidates : dict, optional
        Candidate mining options: ``max_len`` (3), ``min_support`` (0.05 of the positives),
        ``max_candidates`` (500), ``discretization`` ("chimerge" or "equal_frequency") and
        ``discretization_params`` (e.g. ``{"threshold": 4.6}``).
    selection : "ilp" or "greedy"
        The exact ILP (``optrules.models.set_cover``) or the LIBRE greedy weighted set cover.
    alpha : float in [0, 1]
        Weight of uncovered positives against covered negatives.
    max_rules : int, optional
        At most this many rules.
    rule_cost, atom_cost : float
        Complexity penalties per rule and per atom, in the objective's units (samples).
    positive : label, optional
        The positive class (default: the minority class); every other class is negative.
    solver, solver_options :
        For ``selection="ilp"``: any MILP solver of ``optrules.solvers`` and its options, checked
        before any work. ``time_limit`` bounds the whole exact selection in wall time (reduction,
        warm start, cut rounds, load and solve); ``meta`` records the seconds of each stage.
    modeller : "pyomo" or "cvxpy"
        The modelling layer that builds the ILP (``optrules.models.set_cover``).

    ``ruleset_.meta`` holds the objective and, for the ILP, the solver's ``status``, the
    ``best_bound`` and ``gap`` of the returned selection and a ``fallback`` ("start" when the greedy
    start is returned because the solver found nothing better in time), with ``fallback_reason``.
    """

    method = "setcover"

    def __init__(self, candidates: dict | None = None, selection: str = "ilp", alpha: float = 0.5,
                 max_rules: int | None = None, rule_cost: float = 1.0, atom_cost: float = 0.0,
                 positive: Any = None, solver: str = "highs", solver_options: dict | None = None,
                 modeller: str = DEFAULT_MODELLER, categorical: list | None = None) -> None:
        self.candidates = candidates
        self.selection = selection
        self.alpha = alpha
        self.max_rules = max_rules
        self.rule_cost = rule_cost
        self.atom_cost = atom_cost
        self.positive = positive
        self.solver = solver
        self.solver_options = solver_options
        self.modeller = modeller
        self.categorical = categorical

    def _candidate_options(self) -> dict[str, Any]:
        unknown = sorted(set(self.candidates or {}) - set(_CANDIDATE_DEFAULTS))
        if unknown:
            raise ValueError(f"unknown candidate option(s) {unknown}; known: {sorted(_CANDIDATE_DEFAULTS)}")
        return {**_CANDIDATE_DEFAULTS, **(self.candidates or {})}

    def _fit_ruleset(self, X: pd.DataFrame, schema: Schema, labels: np.ndarray,
                     rng: np.random.Generator) -> Ruleset:
        if self.selection not in ("ilp", "greedy"):
            raise ValueError(f"selection must be 'ilp' or 'greedy', got {self.selection!r}")
        if self.max_rules is not None and int(self.max_rules) < 1:
            raise ValueError(f"max_rules must be a positive integer or None, got {self.max_rules}")
        if self.rule_cost < 0 or self.atom_cost < 0:
            raise ValueError("rule_cost and atom_cost must be non-negative")
        if self.selection == "ilp":
            check_exact_options(self.solver, self.solver_options, self.modeller, ProblemClass.MILP)
        target = binarize_target(labels, self.positive)
        candidates = mine_candidates(X, schema, target.is_positive, **self._candidate_options())
        atoms = candidates.n_atoms
        instance = CoverInstance.from_samples(candidates.coverage, target.is_positive, self.alpha,
                                              self.rule_cost + self.atom_cost * atoms)
        meta: dict[str, Any] = {"n_candidates": len(candidates), "n_mined": candidates.n_mined,
                                "instance": instance.digest(self.max_rules)}
        if self.selection == "ilp":
            result = solve_set_cover(instance, self.max_rules, self.solver, self.solver_options, size=atoms,
                                     modeller=self.modeller)
            selected = result.selected
            meta.update(solve_reports=[result.report], **result.meta())
        else:
            selected = greedy_cover(instance, self.max_rules, size=atoms)
            meta.update(objective=instance.objective(selected))
        covered = candidates.coverage[:, selected]
        rules = tuple(
            Rule(candidates.conjunctions[j], target.positive,
                 n_positive=int(covered[target.is_positive, k].sum()),
                 n_negative=int(covered[~target.is_positive, k].sum()))
            for k, j in enumerate(selected)
        )
        return Ruleset("set", rules, target.negative, schema.features, target.classes,
                       positive=target.positive, meta=meta)


class ColumnGenerationClassifier(RulesetClassifier):
    """A rule set optimal over every conjunction of at most ``max_literals`` literals, by column
    generation (Dash, Günlük & Wei, NeurIPS 2018; ``optrules.exact.column_generation``).

    Minimises ``positives no rule covers + sum over rules of (negatives it covers +
    complexity_penalty * (1 + literals))``, optionally with ``sum (1 + literals) <= max_complexity``,
    over all DNFs of the binarisation ``optrules.binarize`` (quantile thresholds of each numeric
    feature, ``==`` / ``!=`` per category, explicit missing values).

    Parameters
    ----------
    n_thresholds : int
        Thresholds per numeric feature, at sample quantiles (9: the paper's deciles).
    max_literals : int
        D, the most literals a rule may have.
    complexity_penalty : float
        Objective cost per unit of a rule's complexity 1 + literals, in samples.
    max_complexity : float, optional
        C, the complexity budget of the whole rule set.
    positive : label, optional
        The positive class (default: the minority class).
    solver, solver_options :
        The master problem's solver (LP with duals, then the integer master) and its options;
        ``time_limit`` bounds the whole fit's optimisation in wall time.
    pricing : "search", "ilp" or "beam"
        The exact pricing, tried when the beam search finds no improving rule: branch and bound over
        literal sets, or the pricing ILP solved by ``pricing_solver``; both prove the same minimum.
        "beam" stops there instead (heuristic column generation, no bound: method ``brcg-beam``).
    pricing_solver, pricing_options :
        The pricing ILP's solver and options (per pricing call).
    modeller : "pyomo" or "cvxpy"
        How the master is built (the LP duals come from HiGHS with Pyomo, from cvxpy otherwise).
    beam_width, columns_per_iteration :
        The heuristic pricing's beam and the most columns it adds per iteration.
    max_iterations : int, optional
        Column-generation iterations at most.
    pricing_rows, pricing_literals : int, optional
        Price on a random sample of this many distinct rows / literals per iteration (the paper's
        approximation for large data): faster, but the bound is no longer certified.

    ``ruleset_.meta`` holds the objective, ``best_bound`` (over all conjunctions, when proven),
    ``gap``, ``certified``, ``bound_covers``, the iterations, columns, pricing calls and the
    seconds of each stage, and the final integer master's solve report.
    """

    method = "brcg"

    def __init__(self, n_thresholds: int = 9, max_literals: int = 3, complexity_penalty: float = 1.0,
                 max_complexity: float | None = None, positive: Any = None, solver: str = "highs",
                 solver_options: dict | None = None, pricing: str = "search", pricing_solver: str = "highs",
                 pricing_options: dict | None = None, modeller: str = "pyomo", beam_width: int = 10,
                 columns_per_iteration: int = 10, max_iterations: int | None = None,
                 pricing_rows: int | None = None, pricing_literals: int | None = None,
                 random_state: Any = None, categorical: list | None = None) -> None:
        self.n_thresholds = n_thresholds
        self.max_literals = max_literals
        self.complexity_penalty = complexity_penalty
        self.max_complexity = max_complexity
        self.positive = positive
        self.solver = solver
        self.solver_options = solver_options
        self.pricing = pricing
        self.pricing_solver = pricing_solver
        self.pricing_options = pricing_options
        self.modeller = modeller
        self.beam_width = beam_width
        self.columns_per_iteration = columns_per_iteration
        self.max_iterations = max_iterations
        self.pricing_rows = pricing_rows
        self.pricing_literals = pricing_literals
        self.random_state = random_state
        self.categorical = categorical

    def _check_params(self) -> None:
        def positive_int(name: str, optional: bool = False) -> None:
            value = getattr(self, name)
            if optional and value is None:
                return
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1{' or None' if optional else ''}, got {value!r}")

        for name in ("n_thresholds", "max_literals", "beam_width", "columns_per_iteration"):
            positive_int(name)
        for name in ("max_iterations", "pricing_rows", "pricing_literals"):
            positive_int(name, optional=True)
        penalty = self.complexity_penalty
        if isinstance(penalty, bool) or not isinstance(penalty, (int, float, np.number)) or not penalty >= 0:
            raise ValueError(f"complexity_penalty must be a number >= 0, got {penalty!r}")
        budget = self.max_complexity
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float, np.number))
                                   or not budget >= 1):
            raise ValueError(f"max_complexity must be a number >= 1 or None, got {budget!r}")
        check_exact_options(self.solver, self.solver_options, self.modeller, ProblemClass.LP)
        check_exact_options(self.solver, self.solver_options, self.modeller, ProblemClass.MILP)
        if self.modeller == "cvxpy" and self.solver == "scip":
            raise ValueError("cvxpy's SCIP interface returns no LP duals for the master; use solver='highs' "
                             "(or clarabel with modeller='cvxpy')")
        if self.modeller == "pyomo" and self.solver != "highs":
            raise ValueError(f"the master LP's duals are read from HiGHS when modeller='pyomo'; solver={self.solver!r} "
                             "needs modeller='cvxpy' (whose LP duals come from the solver through cvxpy)")
        pricing_options = self.pricing_options
        if pricing_options is None and self.pricing_solver == self.solver:
            pricing_options = {k: v for k, v in (self.solver_options or {}).items() if k != "time_limit"}
        if self.pricing not in PRICINGS:
            raise ValueError(f"pricing must be one of {list(PRICINGS)}, got {self.pricing!r}")
        check_solver_options(self.pricing_solver, pricing_options, ProblemClass.MILP, "pyomo")

    def _fit_ruleset(self, X: pd.DataFrame, schema: Schema, labels: np.ndarray,
                     rng: np.random.Generator) -> Ruleset:
        self._check_params()
        target = binarize_target(labels, self.positive)
        literals = binarize(X, schema, self.n_thresholds)
        problem = RuleProblem.from_samples(literals.matrix, target.is_positive)
        seed = int(rng.integers(2**31 - 1))
        result = column_generation(
            problem, float(self.complexity_penalty), int(self.max_literals),
            None if self.max_complexity is None else float(self.max_complexity), self.solver, self.solver_options,
            self.pricing, self.pricing_solver, self.pricing_options, self.modeller, int(self.beam_width),
            int(self.columns_per_iteration), self.max_iterations, self.pricing_rows, self.pricing_literals, seed)
        rules = []
        for clause in result.clauses:
            covered = literals.matrix[:, list(clause)].all(axis=1) if clause else np.ones(len(X), dtype=bool)
            rules.append(Rule(tuple(literals.conditions[j] for j in clause), target.positive,
                              n_positive=int(covered[target.is_positive].sum()),
                              n_negative=int(covered[~target.is_positive].sum())))
        meta: dict[str, Any] = {"n_literals": len(literals), "distinct_rows": problem.truth.shape[0],
                                "instance": problem.digest(float(self.complexity_penalty), int(self.max_literals),
                                                           self.max_complexity), **result.meta()}
        if result.report is not None:
            meta["solve_reports"] = [result.report]
        return Ruleset("set", tuple(rules), target.negative, schema.features, target.classes,
                       positive=target.positive, meta=meta)
