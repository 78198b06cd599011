"""The wall-clock budget of the exact part of a fit, and where its seconds went.

A user's ``time_limit`` bounds the whole exact part of a fit in wall time: for the set cover the
reduction, the greedy warm start, the model build, the cut rounds, and the final model's load and
solve; for the Cluster-SVM strategies the warm start's QPs, the big-M bound QPs, the model build,
load and solve, and the roundings. :class:`TimeBudget` starts when that part starts; each stage
either runs inside it (a solve gets ``deadline``, and the solver is given what is left after
loading) or is skipped once it is spent, and the seconds of every stage are recorded
(:meth:`TimeBudget.meta`). Work that cannot be interrupted (a model build, a cvxpy
canonicalisation) is checked between stages, so a fit overruns its limit by at most one such step.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Iterator

from optrules.solvers import SolveReport

__all__ = ["TimeBudget"]


class TimeBudget:
    """``time_limit`` seconds of wall time from now (None: unlimited), with seconds per stage."""

    def __init__(self, time_limit: float | None = None) -> None:
        self.time_limit = None if time_limit is None else float(time_limit)
        self.started = time.perf_counter()
        self.deadline = None if self.time_limit is None else self.started + self.time_limit
        self.seconds: dict[str, float] = {}

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def remaining(self) -> float | None:
        """Seconds left (negative once spent), None when unlimited."""
        return None if self.deadline is None else self.deadline - time.perf_counter()

    @property
    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def share(self, fraction: float) -> float | None:
        """A deadline ``fraction`` of the remaining time from now (None when unlimited)."""
        if self.deadline is None:
            return None
        now = time.perf_counter()
        return now + fraction * max(self.deadline - now, 0.0)

    def add(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + float(seconds)

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Count the block's wall time as stage ``name``."""
        began = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - began)

    def count_solve(self, report: SolveReport, load: str = "load", solve: str = "solve") -> None:
        """A solve's load and run, as stages ``load`` and ``solve`` (its build is the caller's stage)."""
        self.add(load, report.load_seconds)
        self.add(solve, report.solve_seconds)

    def meta(self) -> dict[str, Any]:
        """``time_limit``, ``exact_seconds`` (the whole exact part) and ``<stage>_seconds`` per stage."""
        return {"time_limit": self.time_limit, "exact_seconds": self.elapsed(),
                **{f"{stage}_seconds": seconds for stage, seconds in self.seconds.items()}}
