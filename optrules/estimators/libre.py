"""``LibreClassifier`` and ``BottomUpClassifier``: the LIBRE ensemble and its base learner as estimators.

The fit, step by step, and the choices where the paper leaves room are in ``optrules.learners.libre``
(Mita et al., "LIBRE: Learning Interpretable Boolean Rule Ensembles", Sections 3.2-3.3). With
``sample_weight`` the rows count by their weight: in ChiMerge's class counts, in each learner's
counts of deduplicated positive rows and in the conflict majority, and in the set cover.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from optrules.cover import CoverInstance
from optrules.encode import FeatureBinning
from optrules.estimators.base import COMMON_PARAMETERS, RulesetClassifier, TrainingData, check_exact_options
from optrules.estimators.params import Either, Integer, Label, OneOf, Options, Real, Seed
from optrules.exact.set_cover import solve_set_cover
from optrules.learners.boundary import HEURISTICS, ZeroRows
from optrules.learners.libre import (distinct_rows, drop_redundant, group_samples, learn_subset, rank_boundary,
                                    resolve_conflicts)
from optrules.learners.selection import greedy_cover
from optrules.models.set_cover import AUTO_MODELLER, DEFAULT_MODELLER, MODELLERS
from optrules.ruleset import Ruleset
from optrules.solvers import SOLVERS, ProblemClass

__all__ = ["LibreClassifier", "BottomUpClassifier"]


class LibreClassifier(RulesetClassifier):
    """LIBRE: bottom-up weak learners on random feature subsets, their union, a weighted set cover.

    Parameters
    ----------
    n_estimators : int, default 20
        Number of weak learners ``E`` (feature subsets drawn; equal subsets are learned once).
    max_features : int or None, default 5
        Features per weak learner; ``None`` or at least the number of features: all of them.
    heuristic : "H1" or "H2", default "H1"
        The base learner's flip-off heuristic (H1: fewer rules, H2: shorter rules).
    alpha : float in [0, 1], default 0.5
        Weight of uncovered positives against covered negatives in the final set cover (and in the
        conflict majority). 0.5 weighs both errors alike; the paper's experiments use 0.7.
    chi2_threshold : float, default 4.6
        ChiMerge significance threshold of the discretisation (the paper tries 6, 4.6, 4).
    max_intervals : int or None, default 5
        At most this many ChiMerge bins per numeric feature; None: as many as the threshold leaves
        (on large continuous data ChiMerge then keeps hundreds of small bins, docs/methods/libre.md).
    top_k : int or None, default None
        Candidates kept by the exclusiveness / local-support filter before the set cover; None keeps
        every point passing the filter's ``lsup+ > lsup-`` test (the paper's experiments, Appendix C).
        A cut is a speed-up that keeps the most exclusive, i.e. most specific, points: on large data
        it can drop the general rules (docs/methods/libre.md).
    min_local_support : float in [0, 1], default 0
        Minimum share of the positives a candidate must cover.
    min_gain : float in [0, 1], default 0.01
        The set cover's stopping rule: a rule is added only while it lowers the objective by more
        than ``min_gain * alpha * (total positive weight)``, i.e. by more than covering that share of
        the positives would. It acts as that cost per rule, on top of ``rule_cost``, in the greedy
        and in the ILP; 0 selects until no rule has a positive weight.
    max_rules : int, optional
        At most this many rules (early stop of the set cover).
    selection : "greedy" or "ilp", default "greedy"
        The paper's greedy weighted set cover, or the exact ILP over the same candidates.
    solver, solver_options :
        For ``selection="ilp"``: a MILP solver of ``optrules.solvers`` and its options, checked before
        any work; ``time_limit`` bounds the exact selection in wall time (not the weak learners).
    modeller : "auto", "pyomo" or "cvxpy", default "auto"
        For ``selection="ilp"``: the modelling layer that builds the ILP; "auto" takes the faster
        one for the solver: cvxpy for HiGHS, Pyomo for the others.
    rule_cost : float, default 0
        Cost per rule in the set-cover objective (in samples); 0 is the paper's weighting.
    conflicts : "strict" or "majority", default "majority"
        What a weak learner does with a binned row seen in both classes. "strict" (the paper's
        Section 3.1): the row is a negative, its positives can never be covered, and no point covers
        a training negative. "majority": the row goes to the class with the larger alpha-weighted
        count (``resolve_conflicts``), so points may cover outvoted training negatives.
    positive : label, optional
        The positive class (default: the minority class); every other class is negative.
    n_jobs : int, optional
        Worker processes for the weak learners (joblib: None or 1 one, -1 every core, -2 all but
        one, ...); the result does not depend on it.
    random_state : int, Generator or None
        Seeds the feature subsets.
    categorical : list, optional
        Column indices (or names) of a numpy X to treat as categorical.

    After ``fit``: ``ruleset_``, ``classes_``, ``binning_`` (the fitted :class:`FeatureBinning`),
    ``subsets_`` (feature indices of each distinct learner) and ``boundaries_`` (each learner's
    points in the full lattice, bool rows).
    """

    method = "libre"
    parameters = {
        "n_estimators": Integer(1), "max_features": Integer(1, none=True), "heuristic": OneOf(HEURISTICS),
        "alpha": Real(0.0, 1.0), "chi2_threshold": Real(0.0), "max_intervals": Integer(1, none=True),
        "top_k": Integer(1, none=True), "min_local_support": Real(0.0, 1.0), "min_gain": Real(0.0, 1.0),
        "max_rules": Integer(1, none=True),
        "selection": OneOf(("greedy", "ilp")), "solver": OneOf(tuple(SOLVERS)), "solver_options": Options(),
        "modeller": OneOf((AUTO_MODELLER, *MODELLERS)), "rule_cost": Real(0.0), "conflicts": OneOf(("strict", "majority")),
        "positive": Label(), "n_jobs": Either((Integer(low=1, none=True), Integer(high=-1))), "random_state": Seed(), **COMMON_PARAMETERS,
    }

    def __init__(self, n_estimators: int = 20, max_features: int | None = 5, heuristic: str = "H1",
                 alpha: float = 0.5, chi2_threshold: float = 4.6, max_intervals: int | None = 5,
                 top_k: int | None = None, min_local_support: float = 0.0, min_gain: float = 0.01,
                 max_rules: int | None = None, selection: str = "greedy", solver: str = "highs",
                 solver_options: dict | None = None, modeller: str = DEFAULT_MODELLER, rule_cost: float = 0.0,
                 conflicts: str = "majority",
                 positive: Any = None, n_jobs: int | None = None, random_state: Any = None,
                 categorical: list | None = None, max_categories: int | None = 100,
                 min_frequency: int | float | None = None) -> None:
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.heuristic = heuristic
        self.alpha = alpha
        self.chi2_threshold = chi2_threshold
        self.max_intervals = max_intervals
        self.top_k = top_k
        self.min_local_support = min_local_support
        self.min_gain = min_gain
        self.max_rules = max_rules
        self.selection = selection
        self.solver = solver
        self.solver_options = solver_options
        self.modeller = modeller
        self.rule_cost = rule_cost
        self.conflicts = conflicts
        self.positive = positive
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.categorical = categorical
        self.max_categories = max_categories
        self.min_frequency = min_frequency

    def __sklearn_tags__(self):
        # Boundary points admit no conflict with a training negative, so a positive whose binned row
        # equals a negative's can never be covered: on data whose bins mix the classes (such as
        # scikit-learn's rounded blobs, 0.70 training accuracy) the training score stays below the
        # 0.83 the generic checks ask for. That is the method, not a bug; declare it.
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags

    # ------------------------------------------------------------------ parameters
    def _ensemble_size(self) -> tuple[int, int | None]:
        """(number of learners, features per learner or None for all)."""
        return self.n_estimators, self.max_features

    def _workers(self) -> int | None:
        return self.n_jobs

    def _check_params(self) -> None:
        # checked for the greedy selection too (which does not use them), so that a typo in a config
        # shared by exact and greedy runs is caught either way; whether the solver is installed only
        # when it will run, so that a greedy fit imports no solver stack
        check_exact_options(self.solver, self.solver_options, self.modeller, ProblemClass.MILP,
                            installed=self.selection == "ilp")

    # ------------------------------------------------------------------ fit
    def _draw_subsets(self, n_features: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
        """Distinct feature subsets (sorted index tuples) in the order first drawn."""
        n_estimators, max_features = self._ensemble_size()
        size = n_features if max_features is None else min(int(max_features), n_features)
        subsets: list[tuple[int, ...]] = []
        seen: set[tuple[int, ...]] = set()
        for _ in range(int(n_estimators)):
            if size == n_features:
                subset = tuple(range(n_features))  # no draw: every learner sees all features
            else:
                subset = tuple(int(k) for k in np.sort(rng.choice(n_features, size=size, replace=False)))
            if subset not in seen:
                seen.add(subset)
                subsets.append(subset)
        return subsets

    def _run_learners(self, jobs: list[tuple[ZeroRows, np.ndarray, ZeroRows]],
                      heuristic: str) -> list[np.ndarray]:
        workers = self._workers()
        if workers in (None, 1) or len(jobs) <= 1:
            return [learn_subset(p, c, n, heuristic) for p, c, n in jobs]
        from joblib import Parallel, delayed

        return list(Parallel(n_jobs=workers)(delayed(learn_subset)(p, c, n, heuristic) for p, c, n in jobs))

    def _fit_ruleset(self, data: TrainingData, rng: np.random.Generator) -> Ruleset:
        heuristic = self.heuristic
        target = data.target()
        is_positive, weights = target.is_positive, data.weights
        X, schema = data.frame, data.schema

        params: dict[str, Any] = {"threshold": float(self.chi2_threshold)}
        if self.max_intervals is not None:
            params["max_intervals"] = int(self.max_intervals)
        binning = FeatureBinning(method="chimerge", **params)
        binning.fit(X, is_positive, categorical=list(schema.categorical_features), weights=weights)
        codes = binning.bin_index(X)  # (samples, features): the inverse one-hot rows, by their zeros
        n_bits = binning.n_bits
        widths = np.array(binning.widths, dtype=np.int64)

        # 2. weak learners on distinct random feature subsets
        subsets = self._draw_subsets(len(binning.layout_), rng)
        columns = [np.concatenate([np.arange(binning.layout_[k].start, binning.layout_[k].stop)
                                   for k in subset]).astype(np.int64) for subset in subsets]
        pos_codes, neg_codes = codes[is_positive], codes[~is_positive]
        pos_weights, neg_weights = weights[is_positive], weights[~is_positive]
        jobs = []
        for subset in subsets:
            features = list(subset)
            starts = np.concatenate([[0], np.cumsum(widths[features])[:-1]]).astype(np.int64)
            local_bits = int(widths[features].sum())
            positives, counts = distinct_rows(pos_codes[:, features], pos_weights)
            negatives, negative_counts = distinct_rows(neg_codes[:, features], neg_weights)
            if self.conflicts == "majority":
                positives, counts, negatives = resolve_conflicts(positives, counts, negatives,
                                                                 negative_counts, float(self.alpha))
            jobs.append((ZeroRows.from_codes(positives, starts, local_bits), counts,
                         ZeroRows.from_codes(negatives, starts, local_bits)))
        found = self._run_learners(jobs, heuristic)
        boundaries = []
        for cols, points in zip(columns, found):
            full = np.zeros((points.shape[0], n_bits), dtype=bool)
            full[:, cols] = points
            boundaries.append(full)

        # 3. final boundary: union, filter and rank, weighted set cover
        union = np.concatenate(boundaries, axis=0) if boundaries else np.zeros((0, n_bits), bool)
        first: dict[bytes, int] = {}  # distinct points, in the order found, by their packed bits
        for k, packed in enumerate(np.packbits(union, axis=1)):
            first.setdefault(packed.tobytes(), k)
        union = union[np.fromiter(first.values(), dtype=np.intp, count=len(first))]
        # the samples grouped by binned row and class: a point covers all of a group or none of it
        groups = group_samples(codes, is_positive, weights)
        coverage = binning.coverage(union, groups.codes)  # (points, groups)
        ranked = rank_boundary(coverage, groups.is_positive, union.sum(axis=1), float(self.min_local_support),
                               self.top_k, groups.weights)
        candidates = union[ranked]
        cand_cover = coverage[ranked].T  # groups x candidates
        n_ones = candidates.sum(axis=1)  # greedy ties: "the highest number of zeros is preferred"
        # the stopping rule: min_gain's share of the best objective decrease, as a cost per rule
        cost = float(self.rule_cost) + float(self.min_gain) * float(self.alpha) * float(weights[is_positive].sum())
        instance = CoverInstance.from_samples(cand_cover, groups.is_positive, float(self.alpha),
                                              np.full(len(ranked), cost), weights=groups.weights)
        meta: dict[str, Any] = {"n_learners": len(subsets), "n_boundary_points": int(union.shape[0]),
                                "n_candidates": int(len(ranked)), "n_bits": int(n_bits)}
        meta["instance"] = instance.digest(self.max_rules)
        if self.selection == "ilp":
            result = solve_set_cover(instance, self.max_rules, self.solver, self.solver_options, size=n_ones,
                                     modeller=self.modeller)
            selected = drop_redundant(cand_cover, np.asarray(result.selected, dtype=int))
            meta.update(solve_reports=[result.report], **result.meta(instance.objective(selected)))
        else:
            selected = greedy_cover(instance, self.max_rules, size=n_ones)
            meta.update(objective=instance.objective(selected))

        rules = tuple(binning.to_rule(candidates[j], target.positive) for j in selected)
        self.binning_ = binning
        self.subsets_ = [tuple(schema.features[k] for k in subset) for subset in subsets]
        self.boundaries_ = boundaries
        return Ruleset("set", rules, target.negative, schema.features, target.classes,
                       positive=target.positive, meta=meta)


class BottomUpClassifier(LibreClassifier):
    """The base bottom-up method alone (Section 3.1): one learner on all features, same selection.

    Parameters are those of :class:`LibreClassifier` without ``n_estimators``, ``max_features``,
    ``n_jobs`` and ``random_state`` (one deterministic learner).
    """

    method = "bottom-up"
    parameters = {name: constraint for name, constraint in LibreClassifier.parameters.items()
                  if name not in ("n_estimators", "max_features", "n_jobs", "random_state")}

    def __init__(self, heuristic: str = "H1", alpha: float = 0.5, chi2_threshold: float = 4.6,
                 max_intervals: int | None = 5, top_k: int | None = None,
                 min_local_support: float = 0.0, min_gain: float = 0.01, max_rules: int | None = None,
                 selection: str = "greedy", solver: str = "highs", solver_options: dict | None = None,
                 modeller: str = DEFAULT_MODELLER, rule_cost: float = 0.0, conflicts: str = "majority",
                 positive: Any = None, categorical: list | None = None, max_categories: int | None = 100,
                 min_frequency: int | float | None = None) -> None:
        self.heuristic = heuristic
        self.alpha = alpha
        self.chi2_threshold = chi2_threshold
        self.max_intervals = max_intervals
        self.top_k = top_k
        self.min_local_support = min_local_support
        self.min_gain = min_gain
        self.max_rules = max_rules
        self.selection = selection
        self.solver = solver
        self.solver_options = solver_options
        self.modeller = modeller
        self.rule_cost = rule_cost
        self.conflicts = conflicts
        self.positive = positive
        self.categorical = categorical
        self.max_categories = max_categories
        self.min_frequency = min_frequency

    def _ensemble_size(self) -> tuple[int, int | None]:
        return 1, None

    def _workers(self) -> int | None:
        return 1
