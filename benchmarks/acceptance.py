"""What every paper-reproduction report (``*_paper.py``) shows beside a method's row so that a model
that learned nothing cannot pass: the trivial models' scores on the same test folds, the rule that
the method's balanced accuracy is above chance by more than its standard error, and figures that are
means over several seeds of the method with their spread.

A model that predicts one class everywhere has balanced accuracy 0.5 on every fold of two-class data
(1 / k on k classes, for a method scored on the original labels), whatever its F1 or accuracy (its
F1 is that of ``all-positive`` or 0, its accuracy that of ``majority`` or less); a row passes only
if, besides the paper's own criteria, ``beyond_prior`` holds. The trivial scores come from
:mod:`optrules.experiments.baselines` (the majority class of the training fold; the positive class
everywhere), on the folds the experiment runner draws (``runner_splits``).

Seeds: a method whose fit draws random numbers is refitted with ``random_state`` = each seed on the
same outer folds (``seed_configs``); one that draws none is fitted once, since every seed would give
the same model. The standard error is that of the mean over the outer test folds: the folds are the
independent units (the seeds re-fit the same folds, so per fold the seeds' values are averaged first,
``fold_means``): ``SE = sample std of the per-fold values / sqrt(number of folds)``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from optrules.experiments import load_config
from optrules.experiments.baselines import baseline_scores
from optrules.experiments.run import _positive, dataset_splits
from optrules.registry import get_method

__all__ = ["RunnerSplits", "beyond_prior", "fold_means", "mean_spread", "runner_splits", "seed_configs",
           "seed_spread", "standard_error", "takes_seed", "trivial_scores", "verdict_of"]


def standard_error(values: Sequence[float]) -> float:
    """Sample standard deviation of ``values`` over sqrt(len): the standard error of their mean
    (0 for a single value)."""
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return 0.0
    return float(values.std(ddof=1) / np.sqrt(values.size))


def beyond_prior(fold_balanced_accuracy: Sequence[float], chance: float = 0.5) -> tuple[float, float, bool]:
    """Mean balanced accuracy over the folds, its standard error, and whether the mean exceeds
    ``chance`` (0.5 on two classes; 1 / k for a method scored on k classes) by more than that
    standard error: the model carries information beyond the class prior. A ``ValueError`` for no
    folds."""
    values = np.asarray(fold_balanced_accuracy, dtype=float)
    if values.size == 0:
        raise ValueError("beyond_prior: no folds")
    mean, se = float(values.mean()), standard_error(values)
    return mean, se, bool(mean - chance > se)


def constant_chance(labels: np.ndarray, folds: Sequence[tuple[np.ndarray, np.ndarray]]) -> float:
    """The balanced accuracy that the best constant prediction reaches on ``folds`` ((training rows,
    test rows) of ``labels``), averaged over them: 1 / (the classes present in each test fold), since
    scikit-learn averages recall over the classes of ``y_true`` only. On k classes this is 1 / k only
    when every test fold holds all of them (a 20-row test split of zoo holds 4-7 of its 7 classes, and a
    constant list scored 16% there, above 1 / 7)."""
    labels = np.asarray(labels)
    return float(np.mean([1.0 / len(pd.unique(labels[test])) for _, test in folds]))


def verdict_of(checks: Sequence[tuple[str, bool]]) -> str:
    """A row's acceptance from its named checks: "pass", or "FAIL (the names of those that failed)"."""
    failed = [name for name, ok in checks if not ok]
    return "pass" if not failed else "FAIL (" + ", ".join(failed) + ")"


@dataclass(frozen=True)
class RunnerSplits:
    """One dataset as the experiment runner splits it: its labels, its positive class and the
    (training rows, test rows) of every outer fit."""

    labels: np.ndarray
    positive: Any
    folds: list[tuple[np.ndarray, np.ndarray]]

    @property
    def n_classes(self) -> int:
        return len(pd.unique(self.labels))


def runner_splits(config: Any, name: str) -> RunnerSplits:
    """Dataset ``name`` of ``config`` (anything :func:`optrules.experiments.load_config` takes) with
    the positive class the runner resolves and the outer folds it fits and scores every method on
    (:func:`optrules.experiments.run.dataset_splits`)."""
    config = load_config(config)
    spec = next(dataset for dataset in config.datasets if dataset.name == name)
    _, y = spec.load()
    return RunnerSplits(y.to_numpy(), _positive(spec, y), dataset_splits(config, spec, y))


def trivial_scores(labels: np.ndarray, folds: Sequence[tuple[np.ndarray, np.ndarray]],
                   positive: object, one_vs_rest: bool = True) -> dict[str, float]:
    """Mean over ``folds`` ((training rows, test rows) of ``labels``) of the F1 of predicting every
    test row positive (``all-positive F1``) and of the accuracy of predicting the training fold's
    majority (``majority accuracy``): of positive vs rest, or with ``one_vs_rest`` False of the
    labels themselves, as a multi-class method is scored (``baselines.baseline_scores``)."""
    labels = np.asarray(labels)
    scores = [baseline_scores(labels[train], labels[test], positive, one_vs_rest) for train, test in folds]
    return {"all-positive F1": float(np.mean([s["all-positive"]["f1"] for s in scores])),
            "majority accuracy": float(np.mean([s["majority"]["accuracy"] for s in scores]))}


def fold_means(rows: pd.DataFrame, column: str) -> np.ndarray:
    """``column`` per outer fold (column ``fold``, in fold order), averaged over the seeds: the
    per-fold values a standard error is taken over."""
    return rows.groupby("fold")[column].mean().to_numpy(dtype=float)


def mean_spread(rows: pd.DataFrame, column: str) -> tuple[float, float, float]:
    """Mean of ``column`` over seeds and folds, the mean over seeds of its sample std over the
    folds, and the sample std over seeds of its per-seed means (0 for one seed). Rows of a missing
    seed (a run made before its script had seeds) are one seed."""
    by_seed = rows.groupby("seed", dropna=False)[column]
    means = by_seed.mean().to_numpy(dtype=float)
    fold_sd = float(by_seed.std(ddof=1).mean())
    return float(means.mean()), fold_sd, float(means.std(ddof=1)) if means.size > 1 else 0.0


def seed_spread(rows: pd.DataFrame, column: str, deterministic: bool, scale: float = 1.0, digits: int = 3) -> str:
    """The cell of the spread over the seeds of ``column`` (``mean_spread``'s last figure, times
    ``scale``): "0 (deterministic)" for a method the seed does not change, "- (1 seed)" when only
    one seed was run, else the sample std of the per-seed means."""
    if deterministic:
        return "0 (deterministic)"
    if rows["seed"].nunique(dropna=False) < 2:
        return "- (1 seed)"
    return f"{scale * mean_spread(rows, column)[2]:.{digits}f}"


def takes_seed(method: Mapping[str, Any]) -> bool:
    """Whether the estimator of a runner method entry (its registry ``name``) has a ``random_state``."""
    return "random_state" in get_method(method["name"]).estimator().get_params()


def seed_configs(config: Mapping[str, Any], seeds: Sequence[int],
                 seeded: Callable[[Mapping[str, Any]], bool]) -> list[tuple[int, dict[str, Any]]]:
    """The runner configurations (``config``, a dict, with its ``methods`` narrowed) that fit every
    method of ``config`` under ``seeds``, as (seed, configuration) pairs: under each seed the methods
    for which ``seeded(method entry)`` holds, with ``random_state`` = the seed; the other methods, which
    draw no random number, once, in the first seed's configuration, so that identical models are not
    fitted again. A seed with nothing to fit has no configuration. The splits are the protocol's,
    the same under every seed."""
    pairs = []
    for index, seed in enumerate(seeds):
        methods = [copy.deepcopy(dict(method)) for method in config["methods"] if index == 0 or seeded(method)]
        for method in methods:
            if seeded(method):
                method["params"] = {**method.get("params", {}), "random_state": seed}
        if methods:
            pairs.append((seed, {**copy.deepcopy(dict(config)), "methods": methods}))
    return pairs
