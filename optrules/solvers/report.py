"""What a solve reports: the problem classes, the kinds of solution, and :class:`SolveReport`.

A report keeps *what solution exists* (:class:`Status`) apart from *why the solver stopped*
(``termination``, a word of :data:`TERMINATIONS`). Backends describe their run as an
:class:`Outcome` in that vocabulary; ``optrules.solvers.solve`` judges it into a report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, Mapping

__all__ = ["ProblemClass", "Status", "SolveReport", "Outcome", "relative_gap", "finite", "GAP_EPS", "time_left"]


class ProblemClass(str, Enum):
    """Mathematical class of a formulation, declared by the formulation module."""

    LP = "LP"
    QP = "QP"  #: convex quadratic objective, linear constraints
    MILP = "MILP"
    MIQP = "MIQP"  #: convex quadratic objective with integer variables
    MINLP = "MINLP"  #: nonconvex mixed-integer nonlinear, e.g. bilinear terms
    NLP = "NLP"  #: nonconvex continuous, e.g. a QCQP

    @property
    def is_discrete(self) -> bool:
        """True for classes with integer variables."""
        return self in (ProblemClass.MILP, ProblemClass.MIQP, ProblemClass.MINLP)

    @property
    def is_nonconvex(self) -> bool:
        """True for classes whose global optimum needs a global (spatial branch-and-bound) solver."""
        return self in (ProblemClass.MINLP, ProblemClass.NLP)


class Status(str, Enum):
    """What solution exists after a solve (why the solver stopped is ``SolveReport.termination``)."""

    OPTIMAL = "optimal"  #: proven optimal within the default relative gap of 1e-4 (a looser mip_gap: FEASIBLE)
    FEASIBLE = "feasible"  #: an incumbent, not proven optimal (stopped at a limit, or only locally optimal)
    NO_SOLUTION = "no_solution"  #: stopped at a limit without any feasible solution
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    ERROR = "error"  #: the solver failed, or could not tell infeasible from unbounded


#: A relative gap at or below this (solver-tolerance level) is reported as exactly 0.0.
GAP_EPS = 1e-6


def finite(x: Any) -> float | None:
    """``x`` as a float when it is a finite number, else None (solvers use +-inf and NaN for 'none')."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def time_left(limit: float | None, deadline: float | None, now: float) -> float | None:
    """The limit a solver gets at ``now``: the earlier of its own ``limit`` (seconds) and what is
    left to ``deadline`` (a ``time.perf_counter()`` instant); None when neither is set."""
    if deadline is None:
        return limit
    return deadline - now if limit is None else min(limit, deadline - now)


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """``|objective - bound| / max(|objective|, 1e-10)``; None when either is unknown."""
    if objective is None or bound is None:
        return None
    return abs(objective - bound) / max(abs(objective), 1e-10)


@dataclass(frozen=True)
class SolveReport:
    """The outcome of one ``optrules.solvers.solve`` call.

    ``objective`` and ``best_bound`` are in the model's own sense (min or max). ``gap`` is
    :func:`relative_gap` of the two, ``0.0`` when proven optimal and ``None`` when either value is
    unknown; ``note`` then says why there is no bound (or anything else the figures need to be read
    right). ``build_seconds`` is the caller's model build, ``load_seconds`` the translation of the
    model into the solver, ``solve_seconds`` the solver's run. ``options`` holds the options as
    given, checked (unified ones normalised, ``verbose`` filled in, pass-through keys kept);
    ``time_limit`` is the limit the solver itself was given, which is what was left of the caller's
    deadline or ``time_limit`` once the model was loaded (None: no limit).
    """

    solver: str
    solver_version: str
    problem_class: ProblemClass
    status: Status
    termination: str
    objective: float | None
    best_bound: float | None
    gap: float | None
    solve_seconds: float
    build_seconds: float
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    load_seconds: float = 0.0
    time_limit: float | None = None
    note: str = ""

    @property
    def has_solution(self) -> bool:
        """True when a feasible solution was found and loaded into the model."""
        return self.status in (Status.OPTIMAL, Status.FEASIBLE)

    @property
    def seconds(self) -> float:
        """Build, load and solve seconds together."""
        return self.build_seconds + self.load_seconds + self.solve_seconds

    @classmethod
    def not_run(cls, solver: str, problem_class: ProblemClass, note: str, options: Mapping[str, Any] | None = None,
                build_seconds: float = 0.0) -> SolveReport:
        """The report of a solve that never started because the time limit was spent before it."""
        return cls(solver, "", problem_class, Status.NO_SOLUTION, "time_limit", None, None, None, 0.0,
                   float(build_seconds), dict(options or {}), 0.0, 0.0, note)

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serialisable dictionary; :meth:`from_dict` inverts it exactly."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["problem_class"] = self.problem_class.value
        data["status"] = self.status.value
        data["options"] = dict(self.options)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SolveReport:
        """Rebuild a report from :meth:`to_dict` output (also after a JSON round trip).

        Reports written before ``load_seconds``, ``time_limit`` and ``note`` existed read with their
        defaults.
        """
        names = {f.name for f in fields(cls)}
        optional = {"load_seconds", "time_limit", "note"}
        missing, unknown = names - optional - set(data), set(data) - names
        if missing or unknown:
            raise ValueError(
                f"SolveReport.from_dict: missing keys {sorted(missing)}, unknown keys {sorted(unknown)}"
            )

        def number(key: str) -> float | None:
            return None if data[key] is None else float(data[key])

        return cls(
            solver=str(data["solver"]),
            solver_version=str(data["solver_version"]),
            problem_class=ProblemClass(data["problem_class"]),
            status=Status(data["status"]),
            termination=str(data["termination"]),
            objective=number("objective"),
            best_bound=number("best_bound"),
            gap=number("gap"),
            solve_seconds=float(data["solve_seconds"]),
            build_seconds=float(data["build_seconds"]),
            options=dict(data["options"]),
            load_seconds=float(data.get("load_seconds", 0.0)),
            time_limit=None if data.get("time_limit") is None else float(data["time_limit"]),
            note=str(data.get("note", "")),
        )


@dataclass
class Outcome:
    """One backend run in the common vocabulary, before :func:`optrules.solvers.solve` judges it.

    ``termination`` is a normalised word (``optimal``, ``time_limit``, ``node_limit``, ...,
    ``error: ...``); ``has_solution`` says a feasible point exists and was loaded into the model;
    ``objective`` and ``bound`` are in the model's sense. ``load_seconds`` and ``solve_seconds``
    split the run where the backend can tell them apart (else all of it is ``solve_seconds``).
    """

    termination: str
    has_solution: bool
    objective: float | None = None
    bound: float | None = None
    version: str = "unknown"
    note: str = ""
    load_seconds: float = 0.0
    solve_seconds: float | None = None
    time_limit: float | None = None  #: the limit the solver itself was given, when one was

    @classmethod
    def not_run(cls, solver: str, version: str, load_seconds: float) -> Outcome:
        """The outcome of a solver the time limit left no time for after loading."""
        return cls("time_limit", False, version=version, load_seconds=load_seconds, solve_seconds=0.0,
                   time_limit=0.0, note=f"the time limit was reached while loading the model; {solver} did not run")
