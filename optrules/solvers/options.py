"""Solver options: the unified ones checked and translated once per backend, the native ones checked
against the solver's own list of names and types before any work.

Unified options (``docs/solvers.md``): ``time_limit`` (seconds, a finite number > 0), ``mip_gap``
(relative, in [0, 1)), ``threads`` (an integer >= 1), ``seed`` (an integer in [0, 2^31 - 1]) and
``verbose`` (a bool). Every other key is a *native* option, passed to the solver unchanged. HiGHS,
SCIP and Clarabel can enumerate their option names and types, so :func:`check_solver_options`
refuses a name they do not know (listing close matches) and a value of the wrong type or out of
range; for the other solvers native options are passed on as given.
"""

from __future__ import annotations

import difflib
import functools
import math
from typing import Any, Mapping

from optrules.solvers.registry import OptionTable, SolverError, as_class, backend_for, spec_for
from optrules.solvers.report import ProblemClass

__all__ = ["UNIFIED", "WHOLE_SECONDS", "check_unified", "check_solver_options", "native_options", "native_time_limit",
           "with_safe_options"]

UNIFIED = ("time_limit", "mip_gap", "threads", "seed", "verbose")
_SEED_MAX = 2**31 - 1  # HiGHS' random_seed and SCIP's randomseedshift are C ints


def _real(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _integer(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_unified(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options with the unified ones validated and normalised (``verbose`` defaulted to False)."""
    if options is not None and not isinstance(options, Mapping):
        raise SolverError(f"solver options must be a mapping of names to values, got {options!r}")
    opts = dict(options or {})
    bad_keys = [k for k in opts if not isinstance(k, str)]
    if bad_keys:
        raise SolverError(f"solver option names must be strings, got {bad_keys!r}")
    if "time_limit" in opts:
        if not (_real(opts["time_limit"]) and opts["time_limit"] > 0):
            raise SolverError(f"time_limit must be a positive number of seconds (finite), got {opts['time_limit']!r}")
        opts["time_limit"] = float(opts["time_limit"])
    if "mip_gap" in opts:
        if not (_real(opts["mip_gap"]) and 0 <= opts["mip_gap"] < 1):
            raise SolverError(f"mip_gap must be a relative gap in [0, 1), got {opts['mip_gap']!r}")
        opts["mip_gap"] = float(opts["mip_gap"])
    if "threads" in opts and not (_integer(opts["threads"]) and opts["threads"] >= 1):
        raise SolverError(f"threads must be an integer >= 1, got {opts['threads']!r}")
    if "seed" in opts and not (_integer(opts["seed"]) and 0 <= opts["seed"] <= _SEED_MAX):
        raise SolverError(f"seed must be an integer in [0, {_SEED_MAX}], got {opts['seed']!r}")
    opts.setdefault("verbose", False)
    if not isinstance(opts["verbose"], bool):
        raise SolverError(f"verbose must be True or False, got {opts['verbose']!r}")
    return opts


def with_safe_options(native: dict[str, Any], safe: Mapping[str, Any], applies: bool, what: str,
                      solver: str, why: str) -> tuple[dict[str, Any], str]:
    """``native`` with those of the ``safe`` options the caller did not set, when ``applies``, and the
    report's note naming them: ``what`` the model is, ``why`` the solver needs them."""
    added = {name: value for name, value in safe.items() if name not in native} if applies else {}
    if not added:
        return native, ""
    note = (f"{what}: {solver} ran with " + ", ".join(f"{name}={value!r}" for name, value in added.items())
            + f" ({why})")
    return {**native, **added}, note


WHOLE_SECONDS = frozenset({"tmlim"})  #: native time limits in whole seconds (GLPK's)


def native_time_limit(name: str, seconds: float) -> float:
    """``seconds`` as the native time-limit option ``name`` takes them: GLPK's ``tmlim`` in whole
    seconds (``glpsol`` refuses "14.98"), rounded down to at least 1; any other as they are. (Pyomo's
    own interfaces get the time left when the call starts: ``optrules.solvers.solving``.)"""
    return max(1, int(seconds)) if name in WHOLE_SECONDS else seconds


def native_options(opts: Mapping[str, Any], table: OptionTable) -> dict[str, Any]:
    """Translate unified options through ``table``; other keys pass through unchanged."""
    native: dict[str, Any] = {}
    for key, value in opts.items():
        if key == "verbose":
            continue
        if key not in UNIFIED:
            native[key] = value
        elif key in table:  # absent, e.g. mip_gap for a continuous solver: nothing to set
            native[table[key]] = value
    return native


def check_solver_options(solver: str, options: Mapping[str, Any] | None,
                         problem_class: ProblemClass | str | None = None,
                         interface: str | None = None, installed: bool = True) -> dict[str, Any]:
    """Validate ``solver`` and its ``options`` before any work: the solver name; with
    ``problem_class`` and ``interface``, that it is installed and capable; the unified options
    (:func:`check_unified`); and, where the solver can list them, the native options' names, types
    and ranges. ``installed=False`` leaves out the check that the solver is installed (for a
    configuration whose solver may never run: its package is then not imported unless native
    options need checking).

    Returns the checked options (as :func:`check_unified`). Raises ``UnknownSolverError``,
    ``UnsupportedProblemError`` or ``SolverNotInstalledError`` for the solver, and ``SolverError``
    naming the first bad option, with close matches for a misspelt name.
    """
    spec = spec_for(solver)
    if problem_class is not None and interface is not None:
        backend_for(solver, as_class(problem_class), interface, installed)
    opts = check_unified(options)
    native = {k: v for k, v in opts.items() if k not in UNIFIED}
    checker = _NATIVE_CHECKERS.get(spec.name)
    if native and checker is not None:
        try:
            checker(native)
        except ImportError:  # not installed: solving raises SolverNotInstalledError with the install hint
            pass
    elif native:  # a solver that cannot list its options: at least a misspelt unified one is caught
        for name in native:
            close = difflib.get_close_matches(name, UNIFIED, n=1, cutoff=0.8)
            if close:
                raise SolverError(f"{spec.name} option {name!r} is not a unified option; did you mean {close[0]!r}? "
                                  f"({spec.name}'s own options are passed on unchecked; unified options: "
                                  f"{', '.join(UNIFIED)})")
    return opts


def _unknown(solver: str, name: str, known: list[str]) -> SolverError:
    close = difflib.get_close_matches(name, list(dict.fromkeys([*UNIFIED, *known])), n=5, cutoff=0.6)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return SolverError(f"{solver} has no option {name!r}{hint} (unified options: {', '.join(UNIFIED)})")


def _wrong_type(solver: str, name: str, value: Any, kind: str) -> SolverError:
    return SolverError(f"{solver} option {name!r} takes {kind}, got {value!r}")


def _check_like(solver: str, name: str, value: Any, default: Any) -> None:
    """``value`` must be of the kind of the option's default: bool, integer, number or string."""
    if isinstance(default, bool):
        ok, kind = isinstance(value, bool), "True or False"
    elif isinstance(default, int):
        ok, kind = _integer(value), "an integer"
    elif isinstance(default, float):
        ok, kind = _real(value), "a number"
    elif isinstance(default, str):
        ok, kind = isinstance(value, str), "a string"
    else:  # a setting of another kind (a list, an enum): passed on as given
        ok, kind = True, ""
    if not ok:
        raise _wrong_type(solver, name, value, kind)


@functools.lru_cache(maxsize=1)
def _highs_options() -> dict[str, str]:
    """HiGHS option name -> 'bool' | 'int' | 'double' | 'string' (from a scratch instance)."""
    import highspy

    from optrules.solvers.output import silenced

    with silenced():
        highs = highspy.Highs()
        names = [a for a in dir(highs.getOptions()) if not a.startswith("_")]
        kinds = {}
        for name in names:
            status, kind = highs.getOptionType(name)
            if status == highspy.HighsStatus.kOk:
                kinds[name] = kind.name[1:].lower()  # kBool -> bool
    return kinds


def _check_highs(native: Mapping[str, Any]) -> None:
    import highspy

    from optrules.solvers.output import silenced

    kinds = _highs_options()
    for name, value in native.items():
        kind = kinds.get(name)
        if kind is None:
            raise _unknown("HiGHS", name, list(kinds))
        ok = {"bool": isinstance(value, bool), "int": _integer(value), "double": _real(value),
              "string": isinstance(value, str)}[kind]
        if not ok:
            raise _wrong_type("HiGHS", name, value, {"bool": "True or False", "int": "an integer",
                                                     "double": "a number", "string": "a string"}[kind])
        with silenced():
            scratch = highspy.Highs()
            scratch.setOptionValue("output_flag", False)
            rejected = scratch.setOptionValue(name, value) == highspy.HighsStatus.kError
        if rejected:
            raise SolverError(f"HiGHS option {name!r} does not accept {value!r} (out of range or not one of "
                              "its values; see the HiGHS options documentation)")


@functools.lru_cache(maxsize=1)
def _scip_params() -> dict[str, Any]:
    """SCIP parameter name -> its default value (whose type is the parameter's)."""
    import pyscipopt

    return pyscipopt.Model().getParams()


def _check_scip(native: Mapping[str, Any]) -> None:
    import pyscipopt

    from optrules.solvers.output import silenced

    defaults = _scip_params()
    for name, value in native.items():
        if name not in defaults:
            raise _unknown("SCIP", name, list(defaults))
        _check_like("SCIP", name, value, defaults[name])
        try:
            with silenced():
                pyscipopt.Model().setParam(name, value)
        except (ValueError, TypeError) as error:
            raise SolverError(f"SCIP parameter {name!r} does not accept {value!r}: {error}") from None


def _check_clarabel(native: Mapping[str, Any]) -> None:
    import clarabel

    settings = clarabel.DefaultSettings()
    known = [a for a in dir(settings) if not a.startswith("_") and not callable(getattr(settings, a))]
    for name, value in native.items():
        if name not in known:
            raise _unknown("Clarabel", name, known)
        _check_like("Clarabel", name, value, getattr(settings, name))


def _check_ipopt(native: Mapping[str, Any]) -> None:
    """Each option set on a one-variable scratch problem, as a solve would set it: Ipopt refuses an
    unknown name, a wrong type or a value out of range alike (cyipopt raises one TypeError for all)."""
    import cyipopt

    from optrules.solvers.output import silenced

    class Scratch:  # min x^2 over one variable, no constraints: only its options are used
        def objective(self, x: Any) -> float:
            return float(x[0] ** 2)

        def gradient(self, x: Any) -> Any:
            return 2 * x

    with silenced():
        problem = cyipopt.Problem(n=1, m=0, problem_obj=Scratch(), lb=[-1.0], ub=[1.0])
        for name, value in native.items():
            try:
                problem.add_option(name, value)
            except TypeError:
                raise SolverError(f"Ipopt refuses option {name!r} = {value!r}: not one of its options, or a value "
                                  "of the wrong type or out of range (see the Ipopt options documentation; "
                                  f"unified options: {', '.join(UNIFIED)})") from None


#: OSQP settings that are on/off switches (integers in OSQP's settings, given as True / False), with
#: the old names of two that OSQP 1.x's ``setup`` still takes.
_OSQP_FLAGS = frozenset({"polishing", "warm_starting", "verbose", "scaled_termination", "adaptive_rho", "rho_is_vec",
                         "check_dualgap", "polish", "warm_start"})
#: Settings OSQP 1.x's ``setup`` takes as words, with their words.
_OSQP_WORDS = {"solver_type": ("direct", "indirect"), "cg_preconditioner": (None, "diagonal")}


def _check_osqp(native: Mapping[str, Any]) -> None:
    """Names against OSQP's settings (osqp >= 1 lists them; an older osqp is not checked) and the four
    other names its ``setup`` takes; a number setting must get a number, a count an integer, a switch
    True / False (or an integer), a setting given as a word one of its words."""
    try:
        from osqp.ext_builtin import OSQPSettings
    except ImportError:
        return
    settings = OSQPSettings()
    known = sorted({a for a in dir(settings) if not a.startswith("_")} | _OSQP_FLAGS | set(_OSQP_WORDS))
    for name, value in native.items():
        if name not in known:
            raise _unknown("OSQP", name, known)
        if name in _OSQP_WORDS:
            if value not in _OSQP_WORDS[name]:
                raise SolverError(f"OSQP option {name!r} takes one of {list(_OSQP_WORDS[name])}, got {value!r}")
        elif name in _OSQP_FLAGS:
            if not (isinstance(value, bool) or _integer(value)):
                raise _wrong_type("OSQP", name, value, "True or False")
        elif isinstance(getattr(settings, name), float) and not _real(value):
            raise _wrong_type("OSQP", name, value, "a number")
        elif isinstance(getattr(settings, name), int) and not _integer(value):
            raise _wrong_type("OSQP", name, value, "an integer")


_NATIVE_CHECKERS = {"highs": _check_highs, "scip": _check_scip, "clarabel": _check_clarabel, "ipopt": _check_ipopt,
                    "osqp": _check_osqp}
