"""Run one function call in a fresh child process that may crash or time out without harming the caller.

A solver can abort its process (SCIP's Ipopt-based heuristics raised SIGABRT on 5,000-row MIQPs) or
hang in native code, where no Python exception or signal handler reaches it. :func:`call_in_child`
runs ``function(argument)`` in a new Python interpreter and reports how the call ended
(:class:`Ending`): it returned a value, raised an exception (the same exception object, pickled back),
crashed (killed by a signal, a nonzero exit, or no result), or ran past its timeout (then the child
and every process it started are killed). The timeout counts from the moment the call starts in the
child, so the child's start-up (a new interpreter importing optrules: about 2 s, much more on a loaded
machine) does not eat into it; the start-up has a limit of its own, :data:`STARTUP_SECONDS`.

Why a new interpreter started by :mod:`subprocess` rather than :mod:`multiprocessing`:

- ``fork`` would copy a process whose solver or BLAS threads may hold locks (not fork-safe); the child
  here is ``fork`` + ``exec`` of a fresh interpreter, safe from any threaded parent.
- the call must work inside joblib's loky workers and inside Dask workers, and Dask's worker processes
  are daemonic, which forbids ``multiprocessing`` children; a plain subprocess has no such rule.
- the child leads a process group of its own, so when the call ends, however it ends, the group is
  killed with whatever the call started; and it watches its parent: if the parent dies (a cancelled
  worker), the child kills its group too.

The call travels in a temporary file: the parent's ``sys.path`` first (so the child imports what the
parent can, e.g. a test-only estimator), then ``(function, argument)``; the function is pickled by
reference, so it must be a module-level function. The child's output (stdout and stderr, with
:mod:`faulthandler`'s traceback on a fatal signal) goes to a log whose last lines describe a crash.
POSIX only.
"""

from __future__ import annotations

import enum
import faulthandler
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

__all__ = ["ChildResult", "Ending", "call_in_child"]

#: Characters of the child's output kept in the message of a crash.
OUTPUT_TAIL = 1500
#: Seconds between the child's checks that its parent is still alive.
PARENT_POLL_SECONDS = 0.5
#: Seconds a child with a timeout may take to start the call (its interpreter start-up and imports).
STARTUP_SECONDS = 300.0
#: Seconds between the parent's checks on a child with a timeout.
WAIT_POLL_SECONDS = 0.1

_CHILD_COMMAND = "from optrules.experiments.isolation import _child_main; _child_main()"


class Ending(enum.Enum):
    """How a call in a child process ended."""

    RETURNED = "returned"  #: the function returned; ``ChildResult.value`` holds its value
    RAISED = "raised"  #: the function raised; ``ChildResult.value`` holds the exception
    CRASHED = "crashed"  #: the child died (a signal, a nonzero exit status) or left no result
    TIMEOUT = "timeout"  #: the call ran past the timeout (or never started) and the child was killed


@dataclass(frozen=True)
class ChildResult:
    """The ending of a call, its value (returned value or exception), a description for crashes and
    timeouts, and the wall-clock seconds from starting the child to its end."""

    ending: Ending
    value: Any
    message: str
    seconds: float


def call_in_child(function: Callable[[Any], Any], argument: Any, timeout: float | None = None) -> ChildResult:
    """Call ``function(argument)`` in a fresh Python process; ``timeout`` (seconds) counts from the
    start of the call in the child (see the module docstring); None: no limit."""
    with tempfile.TemporaryDirectory(prefix="optrules-child-") as directory:
        folder = Path(directory)
        call_path, result_path, log_path = folder / "call.pkl", folder / "result.pkl", folder / "output.log"
        started_path = _started_marker(result_path)
        with call_path.open("wb") as handle:
            pickle.dump(list(sys.path), handle)
            pickle.dump((function, argument), handle, protocol=pickle.HIGHEST_PROTOCOL)
        began = time.perf_counter()
        with log_path.open("wb") as log:
            child = subprocess.Popen(
                [sys.executable, "-c", _CHILD_COMMAND, str(call_path), str(result_path), str(os.getpid())],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                status, overdue = _wait(child, started_path, timeout)
            finally:
                # timed out, interrupted, crashed or returned: whatever the call started dies with it
                _kill_group(child)
            if overdue:
                return ChildResult(Ending.TIMEOUT, None, overdue, time.perf_counter() - began)
        seconds = time.perf_counter() - began
        if result_path.is_file():  # written last, whole or not at all: the call is complete
            try:
                ending, value = pickle.loads(result_path.read_bytes())
            except Exception as error:  # e.g. an exception class that cannot be rebuilt here
                return ChildResult(Ending.RAISED, RuntimeError(f"the call's result could not be unpickled: "
                                                               f"{type(error).__name__}: {error}"), "", seconds)
            return ChildResult(Ending(ending), value, "", seconds)
        return ChildResult(Ending.CRASHED, None, _crash_message(status, log_path), seconds)


def _started_marker(result_path: Path) -> Path:
    """The file the child creates when it starts the call (next to its result)."""
    return result_path.parent / "started"


def _wait(child: subprocess.Popen, started_path: Path, timeout: float | None) -> tuple[int | None, str]:
    """Wait for the child; returns its exit status, or None and why it is overdue: the call ran
    ``timeout`` seconds, or did not start within :data:`STARTUP_SECONDS`."""
    if timeout is None:
        return child.wait(), ""
    deadline, started = time.monotonic() + STARTUP_SECONDS, False
    while True:
        try:
            return child.wait(WAIT_POLL_SECONDS), ""
        except subprocess.TimeoutExpired:
            pass
        if not started and started_path.exists():
            started, deadline = True, time.monotonic() + timeout
        if time.monotonic() >= deadline:
            if started:
                return None, f"no result {timeout:g} s after the call started: killed"
            return None, f"the child did not start the call within {STARTUP_SECONDS:g} s: killed"


def _kill_group(child: subprocess.Popen) -> None:
    """SIGKILL the child's process group (the child and whatever it started) and reap the child."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:  # already gone
        pass
    child.wait()


def _crash_message(status: int, log_path: Path) -> str:
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        cause = f"killed by {name}"
    elif status > 0:
        cause = f"exit status {status}"
    else:
        cause = "exited without a result"
    lines = log_path.read_bytes().decode("utf-8", errors="replace").splitlines()
    # faulthandler ends its report with the list of loaded extension modules: noise here
    output = "\n".join(line for line in lines if not line.startswith("Extension modules:")).strip()
    if len(output) > OUTPUT_TAIL:
        output = "..." + output[-OUTPUT_TAIL:]
    return f"{cause}; output: {output}" if output else cause


# --------------------------------------------------------------------------------------------
# The child's side
# --------------------------------------------------------------------------------------------


def _child_main() -> None:
    """Entry point of the child: ``python -c ... CALL_PATH RESULT_PATH PARENT_PID``."""
    call_path, result_path, parent = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    faulthandler.enable()  # a fatal signal prints the Python traceback into the log
    threading.Thread(target=_follow_parent, args=(parent,), daemon=True).start()
    with open(call_path, "rb") as handle:
        sys.path[:] = pickle.load(handle)
        function, argument = pickle.load(handle)
    _started_marker(result_path).touch()  # the parent's timeout counts from here
    try:
        outcome = (Ending.RETURNED.value, function(argument))
    except Exception as error:  # the caller decides what an exception means
        outcome = (Ending.RAISED.value, error)
    try:
        payload = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # an unpicklable value or exception: say so instead
        payload = pickle.dumps((Ending.RAISED.value, RuntimeError(
            f"the child's {outcome[0]} value could not be sent back: {type(error).__name__}: {error}; "
            f"it was {outcome[1]!r}")))
    partial = result_path.with_suffix(".partial")
    partial.write_bytes(payload)
    partial.replace(result_path)  # the parent sees a complete result or none
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # done: do not wait for threads a solver may have left running


def _follow_parent(parent: int) -> None:
    """Kill this child's process group once its parent has died (the child is then re-parented)."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os.killpg(os.getpgid(0), signal.SIGKILL)
