"""``SetCoverClassifier``: a rule set chosen among mined candidate rules by weighted set cover
(``optrules.cover``), exactly (the ILP of ``models/set_cover.py``) or greedily (LIBRE's greedy)."""

from __future__ import annotations

from typing import Any

import numpy as np

from optrules.candidates import RANKINGS, mine_candidates
from optrules.cover import CoverInstance
from optrules.estimators.base import COMMON_PARAMETERS, RulesetClassifier, TrainingData, check_exact_options
from optrules.estimators.params import Integer, Label, OneOf, Options, Real
from optrules.exact.set_cover import solve_set_cover
from optrules.learners.selection import greedy_cover
from optrules.models.set_cover import AUTO_MODELLER, DEFAULT_MODELLER, MODELLERS
from optrules.ruleset import Rule, Ruleset
from optrules.solvers import SOLVERS, ProblemClass

__all__ = ["SetCoverClassifier", "CANDIDATE_OPTIONS"]

#: The candidate-mining options of ``candidates`` (``optrules.candidates.mine_candidates``) and their defaults.
CANDIDATE_OPTIONS = Options(
    keys={"max_len": Integer(1), "min_support": Real(0.0, 1.0), "max_candidates": Integer(1),
          "discretization": OneOf(("chimerge", "equal_frequency")), "discretization_params": Options(),
          "ranking": OneOf(RANKINGS)},
    defaults={"max_len": 3, "min_support": 0.05, "max_candidates": 500, "discretization": "chimerge",
              "discretization_params": None, "ranking": "gain"})


class SetCoverClassifier(RulesetClassifier):
    """A rule set chosen among mined candidate rules by weighted set cover, exactly or greedily.

    Minimises ``alpha * uncovered positives + (1 - alpha) * covered negatives + rule_cost * rules
    + atom_cost * atoms`` (``optrules.cover``; with ``sample_weight`` the rows count by their weight)
    over candidates from ``optrules.candidates``.

    Parameters
    ----------
    candidates : dict, optional
        Candidate mining options: ``max_len`` (3), ``min_support`` (0.05 of the positives),
        ``max_candidates`` (500), ``discretization`` ("chimerge" or "equal_frequency"),
        ``discretization_params`` (e.g. ``{"threshold": 4.6}``) and ``ranking`` ("gain": first the
        conjunctions whose weight ``alpha * positives - (1 - alpha) * negatives``, with this
        estimator's ``alpha``, exceeds that of every conjunction one atom shorter, by that weight,
        then the rest by exclusiveness; or "exclusiveness" alone, which on noisy data fills the budget
        with narrow rules); each settable as ``candidates__max_len``.
    selection : "ilp" or "greedy"
        The exact ILP (``optrules.models.set_cover``) or the LIBRE greedy weighted set cover.
    alpha : float in [0, 1]
        Weight of uncovered positives against covered negatives.
    max_rules : int, optional
        At most this many rules.
    rule_cost, atom_cost : float
        Complexity penalties per rule and per atom, in the objective's units (samples).
    positive : label, optional
        The positive class (default: the one the loader attached to ``y``, else the minority class);
        every other class is negative.
    solver, solver_options :
        For ``selection="ilp"``: any MILP solver of ``optrules.solvers`` and its options, checked
        before any work. ``time_limit`` bounds the whole exact selection in wall time (reduction,
        warm start, cut rounds, load and solve); ``meta`` records the seconds of each stage.
    modeller : "auto", "pyomo" or "cvxpy", default "auto"
        The modelling layer that builds the ILP (``optrules.models.set_cover``); "auto" takes the
        faster one for the solver: cvxpy for HiGHS, Pyomo for the others.
    categorical, max_categories, min_frequency :
        Categorical columns of a numpy X, and the grouping of rare categories (``RulesetClassifier``).

    ``ruleset_.meta`` holds the objective and, for the ILP, the solver's ``status``, the
    ``best_bound`` and ``gap`` of the returned selection and a ``fallback`` ("start" when the greedy
    start is returned because the solver found nothing better in time), with ``fallback_reason``.
    """

    method = "setcover"
    parameters = {
        "candidates": CANDIDATE_OPTIONS, "selection": OneOf(("ilp", "greedy")), "alpha": Real(0.0, 1.0),
        "max_rules": Integer(1, none=True), "rule_cost": Real(0.0), "atom_cost": Real(0.0), "positive": Label(),
        "solver": OneOf(tuple(SOLVERS)), "solver_options": Options(),
        "modeller": OneOf((AUTO_MODELLER, *MODELLERS)), **COMMON_PARAMETERS,
    }

    def __init__(self, candidates: dict | None = None, selection: str = "ilp", alpha: float = 0.5,
                 max_rules: int | None = None, rule_cost: float = 1.0, atom_cost: float = 0.0,
                 positive: Any = None, solver: str = "highs", solver_options: dict | None = None,
                 modeller: str = DEFAULT_MODELLER, categorical: list | None = None,
                 max_categories: int | None = 100, min_frequency: int | float | None = None) -> None:
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
        self.max_categories = max_categories
        self.min_frequency = min_frequency

    def _check_params(self) -> None:
        # checked for the greedy selection too (which does not use them), so that a typo in a config
        # shared by exact and greedy runs is caught either way; whether the solver is installed only
        # when it will run, so that a greedy fit imports no solver stack
        check_exact_options(self.solver, self.solver_options, self.modeller, ProblemClass.MILP,
                            installed=self.selection == "ilp")

    def _fit_ruleset(self, data: TrainingData, rng: np.random.Generator) -> Ruleset:
        target = data.target()
        options = {**CANDIDATE_OPTIONS.defaults, **(self.candidates or {})}
        candidates = mine_candidates(data.frame, data.schema, target.is_positive, weights=data.weights,
                                     alpha=self.alpha, **options)
        atoms = candidates.n_atoms
        instance = CoverInstance.from_samples(candidates.coverage, target.is_positive, self.alpha,
                                              self.rule_cost + self.atom_cost * atoms, weights=data.weights)
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
        rules = tuple(Rule(candidates.conjunctions[j], target.positive) for j in selected)
        return Ruleset("set", rules, target.negative, data.schema.features, target.classes,
                       positive=target.positive, meta=meta)
