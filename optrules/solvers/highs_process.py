"""HiGHS in a child process that is stopped at the deadline.

HiGHS 1.16 checks its time limit between the phases of a MIP solve, not inside all of them: set-cover
ILPs of about 32,000 nonzeros went about 20 s without a clock check and ran 25 s under a 10 s limit
(``benchmarks/highs_limit_checks.py``; a stack sample found HiGHS in its root separation), and
setting up the first root LP of a 16M-nonzero one ran 40 s past a 60 s limit (docs/solvers.md,
"Time limits"). A MIP under a limit
(:func:`optrules.solvers.highs.runs_apart`) is therefore solved by ``python -m
optrules.solvers.highs_process FOLDER``: the parent writes the model's arrays
(:func:`optrules.solvers.highs_arrays.model_arrays`), the starting point and the options into a
temporary folder (``np.save``, no pickling), the child loads them into HiGHS and runs it with what
is left of the limit, then writes back what HiGHS found.

While it runs, the child writes every improving solution HiGHS reports, and its dual bound at
every limit check (HiGHS' ``kCallbackMipImprovingSolution`` and ``kCallbackMipInterrupt``
callbacks), into the folder (:class:`_Progress`). The parent waits until the deadline plus a grace
(:func:`grace_seconds`) and stops the child if it has not answered by then: the solve then ends
with the last incumbent and bound the child wrote (none when HiGHS had reported neither), at status
``time_limit``, and the report says the process was stopped.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from optrules.solvers.highs_arrays import ITERATION_COUNTS, load_arrays, run_loaded, set_up
from optrules.solvers.registry import SolverError

__all__ = ["Apart", "grace_seconds", "run_apart"]

#: The child is stopped this share of its limit, plus :data:`GRACE_SECONDS`, after the deadline: room
#: for HiGHS' own small overruns and for writing its answer.
GRACE_SHARE = 0.05
GRACE_SECONDS = 1.0
_ARRAYS = ("col_value", "row_dual")  # what the child writes back as arrays; the rest is JSON
#: The child rewrites its progress file at most this often (seconds) on limit checks; an improving
#: solution is written at once.
PROGRESS_INTERVAL = 0.2


def grace_seconds(limit: float) -> float:
    """How long after the deadline a child of time limit ``limit`` (seconds) is waited for."""
    return GRACE_SHARE * max(limit, 0.0) + GRACE_SECONDS


@dataclass(frozen=True)
class Apart:
    """What a solve in a child process gave: HiGHS' findings (for a child stopped at the deadline, what
    it had reported by then; None when that was nothing), the load seconds (arrays written, model loaded in the child), HiGHS' run seconds (the
    wait, for a stopped child), the limit HiGHS was given and a note for the report."""

    found: dict[str, Any] | None
    load_seconds: float
    run_seconds: float
    limit: float
    note: str = ""


def run_apart(arrays: dict[str, np.ndarray], native: dict[str, Any], start: np.ndarray | None, deadline: float,
              verbose: bool, command: list[str] | None = None) -> Apart:
    """Solve the model of ``arrays`` in a child process with the ``native`` options and the starting
    point ``start`` (NaN: unknown; None: none) until ``deadline`` (a ``time.perf_counter()`` value),
    stopping the child :func:`grace_seconds` after it. ``command`` replaces the child's command line
    (the folder is appended to it); tests use it to stand in for a HiGHS that does not stop."""
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="optrules-highs-") as name:
        folder = Path(name)
        for key, array in arrays.items():
            np.save(folder / f"{key}.npy", array)
        if start is not None:
            np.save(folder / "start.npy", start)
        limit = deadline - time.perf_counter()
        # the deadline crosses to the child in the system's clock: perf_counter's origin is the process's
        task = {"native": native, "deadline": time.time() + limit, "verbose": verbose}
        (folder / "task.json").write_text(json.dumps(task))
        written, written_clock = time.perf_counter(), time.time()
        if limit <= 0:
            return Apart(None, written - began, 0.0, limit, "the time limit was spent before HiGHS started")
        argv = (command or [sys.executable, "-m", "optrules.solvers.highs_process"]) + [str(folder)]
        with open(folder / "stderr.txt", "wb") as errors:
            child = subprocess.Popen(argv, stdout=None if verbose else subprocess.DEVNULL,
                                     stderr=None if verbose else errors)
            try:
                child.wait(timeout=max(deadline - time.perf_counter(), 0.0) + grace_seconds(limit))
            except subprocess.TimeoutExpired:
                pass
            finally:
                stopped = child.poll() is None
                if stopped:
                    child.kill()
                    child.wait()
        waited = time.perf_counter() - written
        if stopped:
            found, seconds = _last_progress(folder)
            return Apart(found, written - began, waited, limit,
                         f"HiGHS did not stop at its time limit of {limit:.1f} s (it does not look at its clock "
                         f"inside some phases of a MIP solve); its process was stopped "
                         f"{grace_seconds(limit):.1f} s after the deadline, {_what_was_kept(found, seconds)}")
        if child.returncode != 0 or not (folder / "found.json").exists():
            message = (folder / "stderr.txt").read_text(errors="replace").strip().splitlines()[-5:]
            raise SolverError(f"HiGHS' child process failed (exit status {child.returncode}): "
                              + (" | ".join(message) or "no message"))
        found = json.loads((folder / "found.json").read_text())
        for key in _ARRAYS:
            if (folder / f"{key}.out.npy").exists():
                found[key] = np.load(folder / f"{key}.out.npy")
    child_load = found.pop("started") - written_clock  # the child's start-up and load, until HiGHS ran
    return Apart(found, written - began + child_load, found.pop("run_seconds"), found.pop("limit"))


def _last_progress(folder: Path) -> tuple[dict[str, Any] | None, float]:
    """What a stopped child had written of its run (:class:`_Progress`), in the form of
    :func:`optrules.solvers.highs_arrays.run_loaded`'s findings at a time limit (iteration counts
    unknown, 0; None when it had written nothing), and how many seconds into the run it wrote it.
    The incumbent's objective is computed here from the model's costs, so that it belongs to the
    incumbent read even when the child was stopped between writing the two files."""
    progress_path, incumbent_path = folder / "progress.json", folder / "incumbent.out.npy"
    if not (progress_path.exists() or incumbent_path.exists()):
        return None, 0.0
    progress = json.loads(progress_path.read_text()) if progress_path.exists() else {}
    found: dict[str, Any] = {"status": "kTimeLimit", "primal_solution_status": 0, "objective": math.inf,
                             "mip_dual_bound": progress.get("mip_dual_bound", -math.inf),
                             "mip_node_count": progress.get("mip_node_count", 0),
                             "iteration_counts": dict.fromkeys(ITERATION_COUNTS, 0)}
    if incumbent_path.exists():
        incumbent = np.load(incumbent_path)
        objective = float(np.load(folder / "cost.npy") @ incumbent + np.load(folder / "offset.npy")[0])
        found.update(primal_solution_status=2, col_value=incumbent, objective=objective)
    return found, progress.get("seconds", 0.0)


def _what_was_kept(found: dict[str, Any] | None, seconds: float) -> str:
    """The end of a stopped child's note: what the solve keeps of it."""
    if found is None:
        return "with no solution or bound"
    if "col_value" in found:
        return f"with the incumbent and dual bound HiGHS had reported {seconds:.1f} s into its run"
    return f"with the dual bound HiGHS had reported {seconds:.1f} s into its run and no incumbent"


class _Progress:
    """The child's HiGHS callback: every improving solution (``kCallbackMipImprovingSolution``) is
    written to ``incumbent.out.npy`` at once, and the dual bound, the node count and the seconds into
    the run to ``progress.json``, also on HiGHS' limit checks (``kCallbackMipInterrupt``, at most
    every :data:`PROGRESS_INTERVAL` seconds). Each file is replaced whole, so the parent never reads
    half of one; a lock keeps two of HiGHS' threads from writing at once."""

    def __init__(self, folder: Path, highspy: Any) -> None:
        self.folder = folder
        self.improving = highspy.cb.HighsCallbackType.kCallbackMipImprovingSolution
        self.began = self.written = time.perf_counter()
        self.lock = threading.Lock()

    def __call__(self, kind: Any, message: str, out: Any, into: Any, user: Any) -> None:
        with self.lock:
            now = time.perf_counter()
            if kind == self.improving:
                _replace(self.folder / "incumbent.out.npy", lambda path: np.save(path, np.array(out.mip_solution)))
            elif now - self.written < PROGRESS_INTERVAL:
                return
            self.written = now
            progress = {"mip_dual_bound": float(out.mip_dual_bound), "mip_node_count": int(out.mip_node_count),
                        "seconds": now - self.began}
            _replace(self.folder / "progress.json", lambda path: path.write_text(json.dumps(progress)))


def _replace(path: Path, write: Any) -> None:
    """Write ``path`` through ``write(temporary path)`` and move it into place in one step."""
    partial = path.with_name("partial-" + path.name)
    write(partial)
    os.replace(partial, path)


def _solve_folder(folder: Path) -> None:
    """The child's work: load the model and options from ``folder``, run HiGHS with what is left of
    the limit while :class:`_Progress` writes its incumbents and bounds, and write what it found
    (``found.json`` last, so that the parent reads a whole answer)."""
    import highspy

    task = json.loads((folder / "task.json").read_text())
    arrays = {path.stem: np.load(path) for path in folder.glob("*.npy")
              if path.stem != "start" and not path.stem.endswith(".out")}
    start = np.load(folder / "start.npy") if (folder / "start.npy").exists() else None
    highs = load_arrays(arrays, highspy)
    error = set_up(highs, highspy, task["native"], start, task["verbose"])
    if not error and arrays["integer"].size:
        highs.setCallback(_Progress(folder, highspy), None)
        for kind in ("kCallbackMipImprovingSolution", "kCallbackMipInterrupt"):
            highs.startCallback(getattr(highspy.cb.HighsCallbackType, kind))
    loaded, started = time.perf_counter(), time.time()
    limit = max(task["deadline"] - started, 1e-3)  # what is left after the child's start-up and load
    found: dict[str, Any] = {"error": error} if error else run_loaded(highs, limit)
    for key in _ARRAYS:
        if key in found:
            np.save(folder / f"{key}.out.npy", found.pop(key))
    found.update(limit=limit, started=started, run_seconds=time.perf_counter() - loaded)
    _replace(folder / "found.json", lambda path: path.write_text(json.dumps(found)))


if __name__ == "__main__":
    _solve_folder(Path(sys.argv[1]))
