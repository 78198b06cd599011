"""Run an experiment configuration with the runner and write its tables as a results page.

The paper configurations in ``benchmarks/configs/`` (``libre.toml``, ``clsvm.toml``, ``prepend.toml``,
``exact_vs_heuristic.toml``) go through :func:`optrules.experiments.run` like any other; this script
adds the machine description and the command, and writes ``benchmarks/results/<config name>.md``.

    python benchmarks/run_config.py benchmarks/configs/libre.toml [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from optrules.experiments import load_config, markdown_report, run

sys.path.insert(0, str(Path(__file__).parent))
from machine import write_report  # noqa: E402  (benchmarks/machine.py)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--jobs", type=int)
    args = parser.parse_args()
    config = load_config(args.config)
    started = time.perf_counter()
    results = run(config, jobs=args.jobs)
    seconds = time.perf_counter() - started
    command = f"python benchmarks/run_config.py {args.config}" + (f" --jobs {args.jobs}" if args.jobs else "")
    folds = config.protocol.folds if config.protocol.kind == "kfold" else config.protocol.repeats
    inner = sum(len(m.tune.configurations()) * m.tune.inner_folds for m in config.methods if m.tune is not None)
    tuned = f" and {inner * folds * len(config.datasets)} inner fits of the tune steps" if inner else ""
    body = (f"{len(results)} fits{tuned} in {seconds:.0f} s wall. Configuration: `{args.config}`.\n\n"
            f"{markdown_report(results)}")
    write_report(Path(__file__).parent / "results" / f"{Path(args.config).stem}.md",
                 config.title or Path(args.config).stem, command, body)


if __name__ == "__main__":
    main()
