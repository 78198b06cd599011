"""Crash isolation in the experiment runner: a fit that aborts, exits, hangs or raises becomes a row of
its own and the other rows are those of a run without it; isolated fits give the same rows as fits in
the worker's process, serially and in joblib workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from optrules.experiments import TIMING_COLUMNS, ConfigError, FitError, load_config, run
from optrules.experiments.isolation import Ending, call_in_child
from optrules.experiments.run import COLUMNS, execute, results_frame
from optrules.solvers import SolveReport

METRICS = ["f1", "accuracy", "balanced_accuracy", "n_rules", "n_atoms", "avg_atoms", "complexity"]
GREEDY = {"name": "setcover-greedy", "params": {"candidates": {"max_len": 2, "max_candidates": 40}}}


def one_split(**overrides) -> dict:
    config = {"protocol": {"kind": "splits", "repeats": 1, "train_size": 0.7, "seed": 2},
              "datasets": [{"name": "monk1"}], "methods": [GREEDY]}
    config.update(overrides)
    return config


def without_timing(results: pd.DataFrame) -> pd.DataFrame:
    return results.drop(columns=list(TIMING_COLUMNS))


def untimed(reports: list[SolveReport]) -> list[SolveReport]:
    return [replace(r, solve_seconds=0.0, build_seconds=0.0, load_seconds=0.0, time_limit=None) for r in reports]


def plain(frame: pd.DataFrame) -> pd.DataFrame:
    """The cells as Python objects, every missing value None, whatever the column's dtype."""
    return frame.astype(object).where(frame.notna(), None)


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_crashes_and_timeouts_become_rows_and_the_other_rows_are_unaffected(failing_method, tmp_path):
    pid_file = tmp_path / "pids"
    methods = [
        {**GREEDY, "isolate": False},
        {"name": "failing", "label": "abort", "params": {"failure": "abort"}},
        {"name": "failing", "label": "exit", "params": {"failure": "exit"}},
        {"name": "failing", "label": "hang", "params": {"failure": "hang", "pid_file": str(pid_file)},
         "timeout": 3},
        {"name": "failing", "label": "raise", "params": {"failure": "raise"}, "on_error": "record"},
    ]
    # isolation from [parallel], in two loky workers: each isolated fit is a child of a worker
    config = one_split(methods=methods, meta=["n_candidates"],
                       parallel={"backend": "loky", "jobs": 2, "isolate": True, "timeout": 60})
    table = run(config, verbose=False)
    assert list(table.columns) == [*COLUMNS, "meta.n_candidates"]
    results = table.set_index("method")

    failed = results.loc[["abort", "exit", "hang", "raise"]]
    assert list(failed["status"]) == ["crashed", "crashed", "timeout", "error"]
    assert failed[METRICS].isna().all().all()
    assert failed[["solver", "objective", "gap", "meta.n_candidates"]].isna().all().all()
    assert (failed["n_train"] == results.loc["setcover-greedy", "n_train"]).all()
    assert failed["error"].str.startswith(tuple(f"{m} on monk1, fold 0: " for m in failed.index)).all()
    assert "killed by SIGABRT" in results.loc["abort", "error"]
    assert "Fatal Python error: Aborted" in results.loc["abort", "error"]  # faulthandler's traceback
    assert "exit status 3" in results.loc["exit", "error"]
    assert results.loc["hang", "error"].endswith("no result 3 s after the call started: killed")
    assert results.loc["hang", "fit_seconds"] >= 3  # the child's life: its start-up, then 3 s of fit
    assert results.loc["raise", "error"] == "raise on monk1, fold 0: ValueError: failing on purpose"
    # the hung child and the process it started were killed
    child, grandchild = map(int, pid_file.read_text().split())
    assert not alive(child) and not alive(grandchild)
    # the successful row is the one of a run without the failing methods, isolated or not
    alone = run(one_split(meta=["n_candidates"]), verbose=False).set_index("method")
    # (as plain values: the failed rows' NaN make integer columns float and None in text columns NaN)
    pd.testing.assert_frame_equal(plain(without_timing(results.loc[["setcover-greedy"]])),
                                  plain(without_timing(alone)))
    assert pd.isna(results.loc["setcover-greedy", "error"])


def test_an_exception_raises_the_same_fit_error_isolated_or_not(failing_method):
    raising = {"name": "failing", "params": {"failure": "raise"}}
    message = r"^failing on monk1, fold 0: ValueError: failing on purpose$"
    with pytest.raises(FitError, match=message):
        run(one_split(methods=[raising]), verbose=False)
    with pytest.raises(FitError, match=message):
        run(one_split(methods=[{**raising, "isolate": True}]), verbose=False)
    recorded = run(one_split(methods=[{**raising, "on_error": "record"}]), verbose=False)
    assert list(recorded["status"]) == ["error"] and recorded["f1"].isna().all()
    assert list(recorded["error"]) == ["failing on monk1, fold 0: ValueError: failing on purpose"]


def test_isolated_fits_give_the_rows_of_in_process_fits_serially_and_in_workers():
    config = one_split(
        methods=[{"name": "setcover", "solver": "highs", "params": {"candidates": {"max_len": 2, "max_candidates": 15}}},
                 {"name": "libre", "params": {"n_estimators": 3, "max_features": 2}}],
        meta=["n_candidates", "objective"])
    resolved, in_process = execute(load_config(config), verbose=False)
    isolated_config = load_config({**config, "parallel": {"isolate": True, "timeout": 120}})
    assert all(m.execution.isolate and m.execution.timeout == 120 for m in isolated_config.methods)
    _, isolated = execute(isolated_config, verbose=False)
    for here, there in zip(in_process, isolated, strict=True):
        assert {k: v for k, v in here.row.items() if k not in TIMING_COLUMNS} == \
            {k: v for k, v in there.row.items() if k not in TIMING_COLUMNS}
        assert str(here.ruleset) == str(there.ruleset)
        assert untimed(here.ruleset.meta.get("solve_reports", [])) == \
            untimed(there.ruleset.meta.get("solve_reports", []))
    serial = results_frame(isolated)
    workers = run({**config, "parallel": {"isolate": True, "timeout": 120, "jobs": 2}}, verbose=False)
    pd.testing.assert_frame_equal(without_timing(serial), without_timing(workers))
    assert serial.loc[serial["method"] == "setcover", "status"].eq("optimal").all()


def _sleep_and_record(path: str) -> None:
    Path(path).write_text(str(os.getpid()))
    time.sleep(120)


def test_a_child_dies_with_its_parent(tmp_path):
    """A worker killed mid-fit (a cancelled joblib or Dask task) leaves no orphaned solver behind."""
    pid_file = tmp_path / "pid"
    program = (f"import sys; sys.path[:] = {sys.path!r}\n"
               "from optrules.experiments.isolation import call_in_child\n"
               "from test_isolation import _sleep_and_record\n"
               f"call_in_child(_sleep_and_record, {str(pid_file)!r})\n")
    parent = subprocess.Popen([sys.executable, "-c", program])
    try:
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the child never started"
            time.sleep(0.1)
        child = int(pid_file.read_text())
        assert alive(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 5
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(child)
    finally:
        if parent.poll() is None:
            parent.kill()


def _start_sleeper(path: str, then: str) -> None:
    """Start a process that outlives this call (as a solver executable might), then end as ``then`` says."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    Path(path).write_text(str(sleeper.pid))
    if then == "abort":
        os.abort()


class _TwoArgumentError(Exception):
    def __init__(self, a, b):
        super().__init__(a)  # pickles with one argument: cannot be rebuilt from its pickle


def _raise_two_argument_error(_: object) -> None:
    raise _TwoArgumentError("first", "second")


@pytest.mark.parametrize("then, ending", [("return", Ending.RETURNED), ("abort", Ending.CRASHED)])
def test_what_a_call_started_dies_when_the_call_ends(tmp_path, then, ending):
    from functools import partial

    pid_file = tmp_path / "pid"
    result = call_in_child(partial(_start_sleeper, then=then), str(pid_file))
    assert result.ending is ending
    sleeper = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while alive(sleeper) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(sleeper)


def test_an_exception_that_cannot_be_unpickled_is_reported_as_raised():
    result = call_in_child(_raise_two_argument_error, None)
    assert result.ending is Ending.RAISED and isinstance(result.value, RuntimeError)
    assert "could not be unpickled" in str(result.value)


@pytest.mark.parametrize("change, message", [
    ({"isolate": "yes"}, r"methods\[0\] \('setcover-greedy'\): isolate must be true or false, got 'yes'"),
    ({"timeout": 10}, r"methods\[0\] \('setcover-greedy'\): timeout needs isolate = true"),
    ({"isolate": True, "timeout": 0}, r"timeout must be a number of seconds > 0, got 0"),
    ({"isolate": True, "timeout": True}, r"timeout must be a number of seconds > 0, got True"),
    ({"on_error": "ignore"}, r"on_error must be one of \['raise', 'record'\], got 'ignore'"),
])
def test_execution_errors_name_the_problem(change, message):
    with pytest.raises(ConfigError, match=message):
        load_config(one_split(methods=[{**GREEDY, **change}]))
    with pytest.raises(ConfigError, match=r"^parallel: on_error must be one of"):
        load_config(one_split(parallel={"on_error": "skip"}))


def test_method_execution_keys_override_parallel_and_round_trip():
    config = load_config(one_split(
        parallel={"isolate": True, "timeout": 30, "on_error": "record"},
        methods=[GREEDY, {**GREEDY, "label": "here", "isolate": False},
                 {**GREEDY, "label": "longer", "timeout": 90.5, "on_error": "raise"}]))
    settings = [(m.execution.isolate, m.execution.timeout, m.execution.on_error) for m in config.methods]
    assert settings == [(True, 30.0, "record"), (False, None, "record"), (True, 90.5, "raise")]
    assert load_config(config.to_dict()) == config  # config.json keeps them
    assert "isolate" not in config.to_dict()["parallel"]
