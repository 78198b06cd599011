"""Test-only estimators that fail as asked (abort the process, exit, hang, raise) or work normally.

Not a test module: ``tests/test_isolation.py`` registers ``FailingClassifier`` under the method name
"failing" for one test at a time (``monkeypatch`` on the registry). Its instances travel to joblib
workers and to isolated child processes by pickle, which import this module from the parent's
``sys.path``.
"""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np

from optrules.estimators import SetCoverClassifier, TrainingData
from optrules.estimators.params import OneOf, Text
from optrules.ruleset import Ruleset

#: What ``FailingClassifier.fit`` does.
FAILURES = ("none", "abort", "exit", "hang", "raise")


class FailingClassifier(SetCoverClassifier):
    """LIBRE's greedy set cover when ``failure == "none"``; otherwise the fit aborts the process
    (SIGABRT), exits with status 3, hangs (after writing its own and a child process's pids to
    ``pid_file``) or raises ValueError."""

    parameters = {**SetCoverClassifier.parameters, "failure": OneOf(FAILURES), "pid_file": Text(none=True)}

    def __init__(self, failure: str = "none", pid_file: str | None = None, positive: Any = None,
                 candidates: dict | None = None) -> None:
        super().__init__(candidates=candidates, selection="greedy", positive=positive)
        self.failure = failure
        self.pid_file = pid_file

    def _fit_ruleset(self, data: TrainingData, rng: np.random.Generator) -> Ruleset:
        if self.failure == "abort":
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file
            os.abort()
        if self.failure == "exit":
            os._exit(3)
        if self.failure == "hang":
            sleeper = subprocess.Popen(["sleep", "120"])
            Path(self.pid_file).write_text(f"{os.getpid()} {sleeper.pid}")
            time.sleep(120)
        if self.failure == "raise":
            raise ValueError("failing on purpose")
        return super()._fit_ruleset(data, rng)
