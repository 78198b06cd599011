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

from optrules.candidates import mine_candidates
from optrules.cover import CoverInstance
from optrules.data import Schema, binarize_target, validate_features, validate_target
from optrules.exact.set_cover import solve_set_cover
from optrules.learners.selection import greedy_cover
from optrules.models.set_cover import DEFAULT_MODELLER, MODELLERS
from optrules.ruleset import Rule, Ruleset
from optrules.solvers import ProblemClass, check_solver_options

__all__ = ["RulesetClassifier", "SetCoverClassifier", "check_exact_options", "package_version"]


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
