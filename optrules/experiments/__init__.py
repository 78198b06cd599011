"""Experiments from a configuration: cross-validated comparisons of exact and heuristic methods.

    from optrules.experiments import run, summary_table

    results = run("benchmarks/configs/example.toml", jobs=2, out="results/example")
    print(summary_table(results, "f1"))

``config`` validates a TOML file or dict, ``run`` fits every dataset x method x fold (joblib, or a
Dask cluster through joblib's Dask backend) into a tidy table (a failed fit raises ``optrules.exceptions.FitError``), ``isolation`` runs a fit in a child
process that may crash or time out, ``resume`` logs finished rows for resuming a run, ``output``
writes the table with the resolved configuration, ``report`` makes the paper-style tables, ``baselines``
scores the trivial models on the same splits, ``statistics`` the significance tests over datasets,
``plots`` the figures and ``compare`` is
``optrules compare``: the default methods on one dataset's hold-out split. See docs/experiments.md.
"""

from optrules.experiments.compare import compare, default_methods
from optrules.experiments.config import ConfigError, ExperimentConfig, load_config
from optrules.exceptions import FitError
from optrules.experiments.report import markdown_report, summary_table
from optrules.experiments.run import COLUMNS, TIMING_COLUMNS, run

__all__ = ["COLUMNS", "TIMING_COLUMNS", "ConfigError", "ExperimentConfig", "FitError", "compare",
           "default_methods", "load_config", "markdown_report", "run", "summary_table"]
