"""``ColumnGenerationClassifier``: Boolean rule sets by column generation (Dash, Günlük & Wei, NeurIPS
2018), over every conjunction of a binarisation (``optrules.binarize``); the algorithm is
``optrules.exact.column_generation``."""

from __future__ import annotations

from typing import Any

import numpy as np

from optrules.binarize import binarize
from optrules.estimators.base import COMMON_PARAMETERS, RulesetClassifier, TrainingData, check_exact_options
from optrules.estimators.params import Either, Integer, Label, OneOf, Options, Real, Seed
from optrules.exact.column_generation import PRICINGS, SMOOTHING, RuleProblem, column_generation
from optrules.models.set_cover import MODELLERS
from optrules.ruleset import Rule, Ruleset
from optrules.solvers import SOLVERS, ProblemClass, check_solver_options

__all__ = ["ColumnGenerationClassifier"]


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
    smoothing : "auto", float in [0, 0.99] or None
        Dual stabilisation of the column generation: Wentges smoothing of the duals priced around
        the duals of the best Lagrangian bound so far, with a self-adjusting alpha ("auto", Pessoa et
        al. 2018) or a fixed one, after spreading the master's duals evenly over the rows its clauses
        cover alike. None (the default, as measured) or 0 prices the duals the master LP returns.

    ``ruleset_.meta`` holds the objective, ``best_bound`` (over all conjunctions, when proven),
    ``gap``, ``certified``, ``bound_covers``, the iterations, columns, pricing calls and the
    seconds of each stage, and the final integer master's solve report.
    """

    method = "brcg"
    parameters = {
        "n_thresholds": Integer(1), "max_literals": Integer(1), "complexity_penalty": Real(0.0),
        "max_complexity": Real(1.0, none=True), "positive": Label(), "solver": OneOf(tuple(SOLVERS)),
        "solver_options": Options(), "pricing": OneOf(tuple(PRICINGS)), "pricing_solver": OneOf(tuple(SOLVERS)),
        "pricing_options": Options(), "modeller": OneOf(tuple(MODELLERS)), "beam_width": Integer(1),
        "columns_per_iteration": Integer(1), "max_iterations": Integer(1, none=True),
        "pricing_rows": Integer(1, none=True), "pricing_literals": Integer(1, none=True), "random_state": Seed(),
        "smoothing": Either((OneOf(("auto", None)), Real(0.0, 0.99))), **COMMON_PARAMETERS,
    }

    def __init__(self, n_thresholds: int = 9, max_literals: int = 3, complexity_penalty: float = 1.0,
                 max_complexity: float | None = None, positive: Any = None, solver: str = "highs",
                 solver_options: dict | None = None, pricing: str = "search", pricing_solver: str = "highs",
                 pricing_options: dict | None = None, modeller: str = "pyomo", beam_width: int = 10,
                 columns_per_iteration: int = 10, max_iterations: int | None = None,
                 pricing_rows: int | None = None, pricing_literals: int | None = None,
                 random_state: Any = None, smoothing: float | str | None = SMOOTHING,
                 categorical: list | None = None, max_categories: int | None = 100,
                 min_frequency: int | float | None = None) -> None:
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
        self.smoothing = smoothing
        self.categorical = categorical
        self.max_categories = max_categories
        self.min_frequency = min_frequency

    def _check_params(self) -> None:
        check_exact_options(self.solver, self.solver_options, self.modeller, ProblemClass.LP)
        check_exact_options(self.solver, self.solver_options, self.modeller, ProblemClass.MILP)
        # one solver takes the master LP, whose duals price the columns, and the integer master (a MILP)
        if (self.modeller == "cvxpy" and self.solver == "scip") or (self.modeller == "pyomo" and self.solver != "highs"):
            raise ValueError(f"brcg needs the master LP's duals and solves its integer master with the same solver; "
                             f"solver={self.solver!r} with modeller={self.modeller!r} gives no duals (cvxpy's SCIP "
                             "interface returns none, and through Pyomo they are read from HiGHS only): use "
                             "solver='highs', with either modeller")
        pricing_options = self.pricing_options
        if pricing_options is None and self.pricing_solver == self.solver:
            pricing_options = {k: v for k, v in (self.solver_options or {}).items() if k != "time_limit"}
        check_solver_options(self.pricing_solver, pricing_options, ProblemClass.MILP, "pyomo")

    def _fit_ruleset(self, data: TrainingData, rng: np.random.Generator) -> Ruleset:
        target = data.target()
        X, schema = data.frame, data.schema
        literals = binarize(X, schema, self.n_thresholds, weights=data.weights)
        problem = RuleProblem.from_samples(literals.matrix, target.is_positive, weights=data.weights)
        seed = int(rng.integers(2**31 - 1))
        result = column_generation(
            problem, float(self.complexity_penalty), int(self.max_literals),
            None if self.max_complexity is None else float(self.max_complexity), self.solver, self.solver_options,
            self.pricing, self.pricing_solver, self.pricing_options, self.modeller, int(self.beam_width),
            int(self.columns_per_iteration), self.max_iterations, self.pricing_rows, self.pricing_literals, seed,
            self.smoothing)
        rules = [Rule(tuple(literals.conditions[j] for j in clause), target.positive) for clause in result.clauses]
        meta: dict[str, Any] = {"n_literals": len(literals), "distinct_rows": problem.truth.shape[0],
                                "instance": problem.digest(float(self.complexity_penalty), int(self.max_literals),
                                                           self.max_complexity), **result.meta()}
        if result.report is not None:
            meta["solve_reports"] = [result.report]
        return Ruleset("set", tuple(rules), target.negative, schema.features, target.classes,
                       positive=target.positive, meta=meta)
