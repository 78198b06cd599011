"""HiGHS in a child process that is stopped at the deadline.

HiGHS 1.16 checks its time limit between the phases of a MIP solve, not inside all of them: on a
set-cover ILP of 6M rows and 16M nonzeros, setting up the first root LP (``HFactor::setupGeneral``)
ran 40 s past a 60 s limit with no clock check (docs/solvers.md, "Time limits"). Such a model
(:func:`optrules.solvers.highs.runs_apart`) is solved by ``python -m optrules.solvers.highs_process
FOLDER``: the parent writes the model's arrays (:func:`optrules.solvers.highs_arrays.model_arrays`), the
starting point and the options into a temporary folder (``np.save``, no pickling), the child loads
them into HiGHS and runs it with what is left of the limit, then writes back what HiGHS found. The
parent waits until the deadline plus a grace (:func:`grace_seconds`) and stops the child if it has
not answered by then: that solve has no solution and no bound, the report says so, and a caller with
a warm start keeps it (as a fallback it reports).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from optrules.solvers.registry import SolverError

__all__ = ["Apart", "grace_seconds", "run_apart"]

#: The child is stopped this share of its limit, plus :data:`GRACE_SECONDS`, after the deadline: room
#: for HiGHS' own small overruns and for writing its answer.
GRACE_SHARE = 0.05
GRACE_SECONDS = 1.0
_ARRAYS = ("col_value", "row_dual")  # what the child writes back as arrays; the rest is JSON


def grace_seconds(limit: float) -> float:
    """How long after the deadline a child of time limit ``limit`` (seconds) is waited for."""
    return GRACE_SHARE * max(limit, 0.0) + GRACE_SECONDS


@dataclass(frozen=True)
class Apart:
    """What a solve in a child process gave: HiGHS' findings (None when the child was stopped at the
    deadline), the load seconds (arrays written, model loaded in the child), HiGHS' run seconds (the
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
        (folder / "task.json").write_text(json.dumps({"native": native, "limit": limit, "verbose": verbose}))
        written = time.perf_counter()
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
                if child.poll() is None:
                    child.kill()
                    child.wait()
        waited = time.perf_counter() - written
        if child.returncode != 0 or not (folder / "found.json").exists():
            if child.returncode == -9:  # the kill above
                return Apart(None, written - began, waited, limit,
                             f"HiGHS did not stop at its time limit of {limit:.1f} s (it does not look at its clock "
                             f"while it sets up a model this large); its process was stopped "
                             f"{grace_seconds(limit):.1f} s after the deadline, with no solution or bound")
            message = (folder / "stderr.txt").read_text(errors="replace").strip().splitlines()[-5:]
            raise SolverError(f"HiGHS' child process failed (exit status {child.returncode}): "
                              + (" | ".join(message) or "no message"))
        found = json.loads((folder / "found.json").read_text())
        for key in _ARRAYS:
            if (folder / f"{key}.out.npy").exists():
                found[key] = np.load(folder / f"{key}.out.npy")
    run_seconds = found.pop("run_seconds")
    found.pop("load_seconds")  # the child's own; the parent's wait counts its start-up too
    return Apart(found, waited - run_seconds + written - began, run_seconds, limit)


def _solve_folder(folder: Path) -> None:
    """The child's work: load the model and options from ``folder``, run HiGHS with what is left of
    the limit, and write what it found (``found.json`` last, so that the parent reads a whole answer)."""
    began = time.perf_counter()
    import highspy

    from optrules.solvers.highs_arrays import load_arrays, run_loaded, set_up

    task = json.loads((folder / "task.json").read_text())
    arrays = {path.stem: np.load(path) for path in folder.glob("*.npy")
              if path.stem != "start" and not path.stem.endswith(".out")}
    start = np.load(folder / "start.npy") if (folder / "start.npy").exists() else None
    highs = load_arrays(arrays, highspy)
    error = set_up(highs, highspy, task["native"], start, task["verbose"])
    loaded = time.perf_counter()
    found: dict[str, Any] = {"error": error} if error else run_loaded(highs, max(task["limit"] - (loaded - began), 1e-3))
    for key in _ARRAYS:
        if key in found:
            np.save(folder / f"{key}.out.npy", found.pop(key))
    found.update(load_seconds=loaded - began, run_seconds=time.perf_counter() - loaded)
    (folder / "found.tmp").write_text(json.dumps(found))
    os.replace(folder / "found.tmp", folder / "found.json")


if __name__ == "__main__":
    _solve_folder(Path(sys.argv[1]))
