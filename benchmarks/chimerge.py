"""ChiMerge alone on the LIBRE scalability data: every numeric feature of a frame, as LIBRE bins them.

Data: ``n`` rows, ``d`` features uniform on [0, 100], random labels with half of them positive (the
data of ``benchmarks/libre_scalability.py``, same generator). Timed: ``FeatureBinning(method=
"chimerge", ...).fit(X, y)``, which discretises the features in parallel threads (one feature per
task, as many threads as cores), with the settings

* ``t6``        threshold 6, no maximum: the LIBRE scalability benchmark's (paper Appendix D);
* ``t6-max5``   threshold 6, at most 5 bins: what ``optrules.fit(method="bottom-up", chi2_threshold=6)``
                runs in that benchmark (BottomUpClassifier keeps its ``max_intervals=5``);
* ``t4.6``      threshold 4.6, no maximum: ``chimerge``'s default;
* ``t4.6-max5`` threshold 4.6, at most 5 bins: BottomUpClassifier's and LibreClassifier's defaults.

Each run is a fresh process (the checkout first on ``PYTHONPATH``, the same interpreter) that makes
the data, warms up on 10,000 rows (module loading and first calls), then times one fit: wall
seconds and CPU seconds of the process (all threads; ``time.process_time``), the figure to trust on
a loaded machine. ``cores used`` is CPU / wall. With ``--reference DIR`` (another checkout, e.g. an
export of ``main``) every configuration is also run on it, the two alternating run by run so that the
machine's drift hits both alike, and the runs check that both give the same bins (a digest of every
feature's cuts). Medians of ``--repeats`` runs (the configurations of 1M x 50 ``--wide-repeats``).
Prints the table and writes ``benchmarks/results/chimerge.md``.

    python benchmarks/chimerge.py [--reference DIR [--reference-name NAME]] [--repeats 3] [--wide-repeats 3]

(``git archive main | tar -x -C DIR`` makes a reference checkout; link ``DIR/optrules/models`` to
``../models`` as a source checkout needs.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

HERE = Path(__file__).resolve().parent
#: The issue's target: ChiMerge of 1M rows x 50 features in at most this many wall seconds.
TARGET_WIDE_SECONDS = 10.0
SETTINGS = {"t6": (6.0, None), "t6-max5": (6.0, 5), "t4.6": (4.6, None), "t4.6-max5": (4.6, 5)}
SIZES = ((100_000, 10), (1_000_000, 10), (1_000_000, 50))
RUN_TIMEOUT = 1800


def child(n: int, d: int, threshold: float, max_intervals: int | None) -> dict:
    """One timed fit (run in a fresh process)."""
    import hashlib
    import time

    sys.path.insert(0, str(HERE))
    from libre_scalability import make_data

    from optrules.encode import FeatureBinning

    params = {"threshold": threshold} if max_intervals is None else {"threshold": threshold,
                                                                      "max_intervals": max_intervals}
    X, y = make_data(10_000, d, 0.5, seed=1)
    FeatureBinning(method="chimerge", **params).fit(X, y)  # warm-up
    X, y = make_data(n, d, 0.5, seed=1000 * d + 7)
    started, cpu_started = time.perf_counter(), time.process_time()
    binning = FeatureBinning(method="chimerge", **params).fit(X, y)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    digest = hashlib.sha256(json.dumps([list(layout.cuts) for layout in binning.layout_]).encode()).hexdigest()
    return {"wall s": wall, "CPU s": cpu, "bins": int(binning.n_bits), "digest": digest[:16]}


def run(checkout: Path, n: int, d: int, setting: str) -> dict:
    threshold, max_intervals = SETTINGS[setting]
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, __file__, "--child", str(n), str(d), str(threshold), str(max_intervals)],
                          capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", default=None, help="another checkout to time in the same run")
    parser.add_argument("--reference-name", default="reference")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--wide-repeats", type=int, default=None, help="repeats of 1M x 50 (default: --repeats)")
    parser.add_argument("--reference-settings", default="t6",
                        help="comma-separated settings also run on the reference (its 1M x 50 is slow)")
    parser.add_argument("--settings", default=",".join(SETTINGS), help="comma-separated settings to run")
    parser.add_argument("--sizes", default=",".join(f"{n}:{d}" for n, d in SIZES), help="comma-separated rows:features")
    parser.add_argument("--jobs", type=int, default=1, help="processes of one configuration run at once")
    parser.add_argument("--out", default=str(HERE / "results" / "chimerge.md"))
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        n, d, threshold, max_intervals = args.child
        limit = None if max_intervals == "None" else int(max_intervals)
        print(json.dumps(child(int(n), int(d), float(threshold), limit)))
        return

    this = HERE.parent
    checkouts = [("this", this)]
    if args.reference:
        checkouts.append((args.reference_name, Path(args.reference).resolve()))
    on_reference = set(args.reference_settings.split(",")) if args.reference else set()
    sizes = [tuple(int(v) for v in item.split(":")) for item in args.sizes.split(",")]
    rows = []
    for n, d in sizes:
        repeats = args.wide_repeats if d > 10 and args.wide_repeats is not None else args.repeats
        for setting in args.settings.split(","):
            names = [(name, path) for name, path in checkouts if name == "this" or setting in on_reference]
            jobs = [(name, path) for _ in range(repeats) for name, path in names]  # alternating
            with ThreadPoolExecutor(max(1, args.jobs)) as pool:
                results = list(pool.map(lambda job: run(job[1], n, d, setting), jobs))
            runs: dict[str, list[dict]] = {name: [] for name, _ in names}
            for (name, _), result in zip(jobs, results):
                runs[name].append(result)
            digests = {result["digest"] for results in runs.values() for result in results}
            assert len(digests) == 1, f"different bins for {n} x {d}, {setting}: {runs}"
            medians = {name: {key: statistics.median(r[key] for r in results) for key in ("wall s", "CPU s")}
                       for name, results in runs.items()}
            row = {"rows": f"{n:,}", "features": d, "setting": setting, "bins": runs["this"][0]["bins"],
                   "wall s": medians["this"]["wall s"], "CPU s": medians["this"]["CPU s"],
                   "CPU s / feature": medians["this"]["CPU s"] / d,
                   "cores used": medians["this"]["CPU s"] / medians["this"]["wall s"]}
            if len(medians) > 1:
                ref = medians[args.reference_name]
                row.update({f"{args.reference_name} wall s": ref["wall s"],
                            f"{args.reference_name} CPU s": ref["CPU s"],
                            "CPU speed-up": ref["CPU s"] / medians["this"]["CPU s"],
                            "wall speed-up": ref["wall s"] / medians["this"]["wall s"]})
            elif args.reference:
                row.update({f"{args.reference_name} wall s": float("nan"), f"{args.reference_name} CPU s": float("nan"),
                            "CPU speed-up": float("nan"), "wall speed-up": float("nan")})
            rows.append(row)
            print(row, flush=True)

    table = markdown_table(rows)
    print(table)
    findings = []
    for row in rows:
        if row["features"] == 50:
            ok = row["wall s"] <= TARGET_WIDE_SECONDS
            findings.append(f"* {row['rows']} x 50, {row['setting']}: {row['wall s']:.1f} s wall (target <= "
                            f"{TARGET_WIDE_SECONDS:g} s: {'met' if ok else 'NOT met'}), {row['CPU s']:.1f} CPU-s "
                            f"({row['CPU s / feature']:.2f} per feature), {row['cores used']:.2f} cores used.")
    command = "python benchmarks/chimerge.py"
    if args.reference:
        command += f" --reference DIR --reference-name {args.reference_name}"
    command += (f" --reference-settings {args.reference_settings}" if args.reference else "")
    command += f" --repeats {args.repeats}" + (f" --wide-repeats {args.wide_repeats}" if args.wide_repeats else "")
    command += f" --jobs {args.jobs} --sizes {args.sizes} --settings {args.settings}"
    write_report(
        args.out, "ChiMerge alone: every feature of the LIBRE scalability data", command,
        "Features uniform on [0, 100], random labels, half positive; `FeatureBinning(method=\"chimerge\", "
        "threshold=..., max_intervals=...).fit(X, y)` (the features in parallel threads). Each run is a fresh "
        "process that makes the data and warms up on 10,000 rows before the clock starts "
        f"({args.jobs} process(es) of a configuration at once); 'wall s' and 'CPU s' "
        "(all threads of the process) are medians of the runs, 'cores used' = CPU / wall, 'bins' = bins of all "
        "features. "
        + (f"'{args.reference_name}' is the reference checkout timed in the same run, alternating with this one "
           f"run by run, on the settings {sorted(on_reference)} (the rest: '-'); both gave the same bins "
           "(checked by a digest of every feature's cuts). " if args.reference else "")
        + "The machine is shared: wall seconds include waiting for cores that other work holds (see the load "
        f"average above); CPU seconds are the steadier figure.\n\n{table}\n\n## Findings\n\n"
        + "\n".join(findings) + "\n")


if __name__ == "__main__":
    main()
