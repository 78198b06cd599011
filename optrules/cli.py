"""The ``optrules`` command line.

    optrules compare tic_tac_toe [--methods setcover libre ...] [--test-size 0.3] [--seed 0]
    optrules compare --csv my_data.csv --label class --positive yes [--categorical code ...] [--missing NA]
    optrules run CONFIG.toml [--jobs N] [--out DIR] [--resume] [--scheduler tcp://host:8786] [--quiet]
    optrules fit --dataset tic_tac_toe --method setcover [--solver scip] [--time-limit 30] [--param alpha=0.7 ...]
    optrules fit --csv my_data.csv --label class --method libre
    optrules datasets
    optrules methods
    optrules --version

A CSV file is read by :func:`optrules.datasets.load_csv` (a header row; empty fields are missing, and
the strings ``--missing`` lists; columns whose values all parse as numbers are numeric unless
``--categorical`` names them).

Building the parser and listing the datasets or methods import neither scikit-learn, the compiled
kernels nor a solver stack: each command imports what it runs when it runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from optrules.classes import minority_class
from optrules.datasets import info, list_datasets, load, load_csv
from optrules.exceptions import FitError
from optrules.registry import METHODS, default_methods, make_estimator
from optrules.version import package_version

if TYPE_CHECKING:
    import pandas as pd

#: What ``optrules --help`` says the package does (plain text: argparse prints it as it is).
DESCRIPTION = ("Interpretable classifiers by mathematical optimization: exact and heuristic rule "
               "learners on the same data, splits and metrics.")

__all__ = ["main"]


def _parse_param(text: str) -> tuple[str, Any]:
    """``key=value`` with value read as JSON when it parses (numbers, true, null, {...}), else a string."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param expects key=value, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip(), value


def _time_limit(text: str) -> float | None:
    """Seconds (a positive number), or "none" for no limit."""
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds or 'none', got {text!r}") from None
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"the time limit must be a positive number of seconds, got {text!r}")
    return value


def _check_data_arguments(args: argparse.Namespace) -> None:
    """``--label``, ``--categorical``, ``--numeric`` and ``--missing`` describe a CSV file: they need ``--csv``."""
    if args.csv is None and (args.label is not None or args.categorical or args.numeric or args.missing):
        raise ValueError("--label, --categorical, --numeric and --missing describe a CSV file: "
                         "give them with --csv PATH")


def _load_data(args: argparse.Namespace) -> tuple[str, pd.DataFrame, pd.Series]:
    """(name, X, y) of the bundled ``--dataset`` or of the ``--csv`` file."""
    if args.csv is None:
        X, y = load(args.dataset)
        return args.dataset, X, y
    X, y = load_csv(args.csv, label=args.label or "class", positive=args.positive,
                    categorical=args.categorical or None, numeric=args.numeric or None, missing=args.missing or None)
    return Path(args.csv).name, X, y


def _fit_command(args: argparse.Namespace) -> int:
    from sklearn.model_selection import train_test_split

    from optrules.experiments.report import exact_summary
    from optrules.experiments.run import test_scores

    _check_data_arguments(args)
    if not 0 < args.test_size < 1:  # scikit-learn's own message spoke of train_test_split and whole numbers
        raise ValueError(f"--test-size must be a fraction of the rows in (0, 1), got {args.test_size!r}")
    if not 0 <= args.seed < 2 ** 32:
        raise ValueError(f"--seed must be an integer in [0, 2**32), got {args.seed}")
    params = dict(args.param or [])
    if args.solver:
        params["solver"] = args.solver
    accepted = METHODS[args.method].estimator().get_params()
    for option, name in (("solver", "--solver"), ("time_limit", "--time-limit")):
        if getattr(args, option) is not None and "solver_options" not in accepted:
            raise ValueError(f"{name} applies to methods that solve models; {args.method!r} solves none")
    if args.time_limit is not None:
        params["solver_options"] = {**params.get("solver_options", {}), "time_limit": args.time_limit}
    if args.positive is not None and "positive" in accepted:
        from optrules.data import matching_label

        if "positive" in params and matching_label(params["positive"], [args.positive]) is None \
                and matching_label(args.positive, [params["positive"]]) is None:  # 1 and "1.0" name one label
            raise ValueError(f"--positive {args.positive!r} and --param positive={params['positive']!r} name "
                             "different classes: give one of them")
        params.setdefault("positive", args.positive)
    if "random_state" in accepted:  # a randomised method: --seed makes the whole command reproducible,
        from optrules.experiments.config import method_seed  # with the random_state compare gives it

        params.setdefault("random_state", method_seed(args.seed, 0))
    estimator = make_estimator(args.method, **params)  # every parameter checked before the data is read
    name, X, y = _load_data(args)
    chosen = args.positive
    if args.csv is not None and chosen is not None:  # load_csv names it as the file writes it ("1" -> "1.0")
        chosen = y.attrs["positive"]
        if params.get("positive") == args.positive:
            estimator.set_params(positive=chosen)
    positive = chosen if chosen is not None else y.attrs.get("positive")
    if positive is None:
        positive = minority_class(y.value_counts().to_dict())
    counts = y.value_counts()
    if counts.min() < 2:
        many = (f"; the label column has {len(counts)} classes for {len(y)} rows: is it the right column "
                "(--label)?") if len(counts) > max(20, len(y) // 10) else ""
        raise ValueError(f"class {counts.idxmin()!r} has a single row, so the hold-out split cannot be "
                         f"stratified: drop that row{many}")
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=args.test_size, stratify=y, random_state=args.seed)
    estimator.fit(X_train, y_train)
    ruleset = estimator.ruleset_
    positive = ruleset.positive if ruleset.positive is not None else positive
    learned = (f"positive class {positive!r}" if ruleset.positive is not None or y.nunique() <= 2
               else f"every class learned, F1 of {positive!r}")
    print(f"# {args.method} on {name}: {len(X_train)} training / {len(X_test)} test samples, {learned}\n")
    print(ruleset)
    print()
    # scored as compare and run score: a binary method on its task, the positive class against the rest
    one_vs_rest = ruleset.positive is not None
    train = test_scores(y_train.to_numpy(), estimator.predict(X_train), positive, one_vs_rest)
    test = test_scores(y_test.to_numpy(), estimator.predict(X_test), positive, one_vs_rest)
    if y.nunique() <= 2:
        task = ""
    elif one_vs_rest:
        task = f" ({positive!r} against the rest)"
    else:  # a multi-class list: its accuracies are over every class, as compare marks them "(all classes)"
        task = f" (all {y.nunique()} classes; F1 of {positive!r})"
    print(f"{'':10s}{'accuracy':>10s}{'bal. acc.':>11s}{'F1':>8s}{task}")
    for name, values in (("train", train), ("test", test)):
        print(f"{name:10s}{values['accuracy']:10.3f}{values['balanced_accuracy']:11.3f}{values['f1']:8.3f}")
    if ruleset.kind == "score":
        complexity = ruleset.meta.get("complexity")
        shown = "" if complexity is None or complexity != complexity else f", complexity {complexity:.1f}%"
        print(f"\nscorecard: {len(ruleset.rules)} category terms, {len(ruleset.linear)} linear terms{shown}, "
              f"fit {ruleset.meta['fit_seconds']:.2f} s")
    else:
        print(f"\nrules {ruleset.n_rules}, atoms {ruleset.n_atoms} ({ruleset.avg_atoms:.2f} per rule), "
              f"fit {ruleset.meta['fit_seconds']:.2f} s")
    summary = exact_summary(ruleset.meta)
    if summary:
        print(summary)
    for report in ruleset.meta.get("solve_reports", []):
        gap = "-" if report.gap is None else f"{100 * report.gap:.2f}%"
        print(f"solver {report.solver} {report.solver_version}: {report.problem_class.value} "
              f"status {report.status.value} ({report.termination}), objective {report.objective}, "
              f"bound {report.best_bound}, gap {gap}, build {report.build_seconds:.2f} s, "
              f"load {report.load_seconds:.2f} s, solve {report.solve_seconds:.2f} s"
              + (f" ({report.note})" if report.note else ""))
    return 0


def _compare_command(args: argparse.Namespace) -> int:
    from optrules.experiments import compare

    _check_data_arguments(args)
    if (args.dataset is None) == (args.csv is None):
        raise ValueError("compare needs a bundled dataset name or --csv PATH (one of them)")
    print(compare(args.dataset, args.methods, test_size=args.test_size, seed=args.seed,
                  time_limit=args.time_limit, jobs=args.jobs, csv=args.csv, label=args.label or "class",
                  positive=args.positive, categorical=args.categorical, solver=args.solver, numeric=args.numeric,
                  missing=args.missing))
    return 0


def _run_command(args: argparse.Namespace) -> int:
    from optrules.experiments import run, summary_table
    from optrules.experiments.report import markdown_table

    out = Path(args.out) if args.out else Path("results") / Path(args.config).stem
    results = run(args.config, jobs=args.jobs, scheduler=args.scheduler, out=out, resume=args.resume,
                  verbose=not args.quiet)
    positives = ", ".join(f"{name}: {positive!r}" for name, positive in results.attrs["positive"].items())
    print(f"{len(results)} fits; F1-score of the positive class ({positives}), mean (std) over the folds:\n")
    print(markdown_table(summary_table(results, "f1")))
    print(f"\nresults, configuration, report and plots written to {out}/")
    return 0


def _datasets_command(_: argparse.Namespace) -> int:
    rows = []
    for name in list_datasets():
        entry = info(name)
        positive = entry["positive_class"]
        if positive is None:
            tied = len(set(entry["classes"].values())) == 1 and len(entry["classes"]) > 1
            positive = f"{minority_class(entry['classes'])} ({'tie, last in order' if tied else 'minority'})"
        rows.append((name, entry["n_rows"], entry["n_features"], str(positive),
                     ", ".join(f"{label}: {count}" for label, count in entry["classes"].items())))
    name_width = max(len("dataset"), *(len(row[0]) for row in rows)) + 2
    positive_width = max(len("positive class"), *(len(row[3]) for row in rows)) + 2
    print(f"{'dataset':{name_width}s}{'rows':>7s}{'features':>10s}  {'positive class':{positive_width}s}classes")
    for name, n_rows, n_features, positive, classes in rows:
        print(f"{name:{name_width}s}{n_rows:>7d}{n_features:>10d}  {positive:{positive_width}s}{classes}")
    return 0


def _methods_command(_: argparse.Namespace) -> int:
    for name, method in sorted(METHODS.items()):
        print(f"{name:18s}{'exact' if method.exact else 'heuristic':10s}{method.description}")
    return 0


def _add_csv_arguments(command: argparse.ArgumentParser, csv_home: Any) -> None:
    """``--csv`` (added to ``csv_home``: the command, or a group that excludes ``--dataset``), ``--label``,
    ``--categorical``, ``--numeric``, ``--missing`` and ``--positive``."""
    csv_home.add_argument("--csv", metavar="PATH", help="a CSV file (plain or gzip) instead of a bundled dataset")
    command.add_argument("--label", metavar="COLUMN", help="the CSV's label column (default: class)")
    command.add_argument("--categorical", nargs="+", metavar="COLUMN",
                         help="CSV columns to read as categories even if their values look numeric")
    command.add_argument("--numeric", nargs="+", metavar="COLUMN",
                         help="CSV columns that are quantities: an error if a value is not a number, and no "
                              "warning about few distinct integers")
    command.add_argument("--missing", nargs="+", metavar="TEXT",
                         help="strings that mark a missing value, besides the empty field (e.g. NA '?')")
    command.add_argument("--positive", help="positive class (default: the dataset's, else the minority)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="optrules", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"optrules {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("fit", help="fit one method on a bundled dataset or a CSV file and print its rules")
    data = fit.add_mutually_exclusive_group(required=True)
    data.add_argument("--dataset", choices=list_datasets(), help="a bundled dataset (optrules datasets)")
    _add_csv_arguments(fit, data)
    fit.add_argument("--method", required=True, choices=sorted(METHODS))
    fit.add_argument("--solver", help="solver name (see docs/solvers.md)")
    fit.add_argument("--param", action="append", type=_parse_param, metavar="KEY=VALUE",
                     help="a method parameter; values are read as JSON when they parse")
    fit.add_argument("--time-limit", type=_time_limit,
                     help="wall-clock seconds for the exact part of the fit (warm start, model load, solve; "
                          "default: no limit, unlike compare's 10 s)")
    fit.add_argument("--test-size", type=float, default=0.3)
    fit.add_argument("--seed", type=int, default=0,
                     help="seed of the split and of a randomised method, whose random_state is derived "
                          "from it as optrules compare derives it (default 0)")
    fit.set_defaults(run=_fit_command)
    comparison = commands.add_parser(
        "compare", help="fit the default exact and heuristic methods on one dataset, print a table and rules",
        description=f"Default methods (the registered ones of optrules.registry.PREFERENCE): "
                    f"{', '.join(default_methods())}.")
    comparison.add_argument("dataset", nargs="?", choices=list_datasets(),
                            help="a bundled dataset (optrules datasets); or give --csv")
    _add_csv_arguments(comparison, comparison)
    comparison.add_argument("--methods", nargs="+", metavar="METHOD", help="methods to compare instead")
    comparison.add_argument("--test-size", type=float, default=0.3)
    comparison.add_argument("--seed", type=int, default=0)
    comparison.add_argument("--time-limit", type=_time_limit, default=10.0,
                            help="wall-clock seconds for each method's exact part (warm start, model load, "
                                 "solve; default 10; 'none' for no limit)")
    comparison.add_argument("--solver", help="the solver of every method that solves models (see docs/solvers.md; "
                                             "default: each method's own); one that cannot solve a method's "
                                             "models is an error before any fit")
    comparison.add_argument("--jobs", type=int, default=1, help="fit this many methods at once")
    comparison.set_defaults(run=_compare_command)
    experiment = commands.add_parser("run", help="run the experiment of a TOML configuration "
                                                 "(see docs/experiments.md)")
    experiment.add_argument("config", help="a TOML configuration, or the config.json of a previous run")
    experiment.add_argument("--jobs", type=int, help="parallel fits (overrides [parallel] jobs)")
    experiment.add_argument("--out", help="output directory (default: results/<config name>)")
    experiment.add_argument("--scheduler", metavar="ADDRESS",
                            help="run on this Dask scheduler, e.g. tcp://127.0.0.1:8786 (needs optrules[dask])")
    experiment.add_argument("--resume", action="store_true",
                            help="take the fits already in OUT/results.jsonl instead of running them again")
    experiment.add_argument("--quiet", action="store_true", help="no progress bar")
    experiment.set_defaults(run=_run_command)
    commands.add_parser("datasets", help="list the bundled datasets").set_defaults(run=_datasets_command)
    commands.add_parser("methods", help="list the registered methods").set_defaults(run=_methods_command)
    return parser


def _dataset_among_methods(args: argparse.Namespace) -> None:
    """``compare --methods a b DATASET``: the dataset name went into --methods (it takes several); say so."""
    methods = getattr(args, "methods", None) or []
    if args.command == "compare" and args.dataset is None and args.csv is None and methods:
        if methods[-1] in list_datasets():
            raise ValueError(f"{methods[-1]!r} is a dataset, read as one of --methods (which takes several): "
                             f"put the dataset before --methods (optrules compare {methods[-1]} --methods ...)")


def _format_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                    line: str | None = None) -> str:
    return f"optrules: {category.__name__}: {message}\n"


@contextlib.contextmanager
def _warnings_for_the_command_line() -> Iterator[None]:
    """Warnings printed as a command-line user reads them, their kind and message, not the package's
    source line (a caller that records warnings still gets them)."""
    formatted = warnings.formatwarning
    warnings.formatwarning = _format_warning
    try:
        yield
    finally:
        warnings.formatwarning = formatted


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with _warnings_for_the_command_line():
            _dataset_among_methods(args)
            status = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at exit
        return status
    except (ValueError, FileNotFoundError, IsADirectoryError, PermissionError, FitError) as error:  # bad input or a failed fit: say what is wrong, no traceback
        print(f"optrules: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the output piped into a reader that stopped (optrules datasets | head)
        try:  # as the Python documentation advises: the rest of the output goes nowhere, no traceback at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (AttributeError, OSError, ValueError):  # a stdout that is no file
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
