"""Shared helpers of the benchmark scripts: the machine's description and markdown tables."""

from __future__ import annotations

import os
import platform
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path


def describe_machine() -> str:
    """One markdown line: CPU, cores, memory, Python and the solver/library versions."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            cpu = next(line.split(":", 1)[1].strip() for line in handle if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GiB"
    except (ValueError, OSError):
        pass
    packages = ", ".join(f"{p} {version(p)}" for p in ("optrules", "numpy", "scipy", "pyomo", "cvxpy", "highspy",
                                                       "pyscipopt", "clarabel"))
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    try:
        load = "; load average at the start {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    except OSError:
        load = ""
    return (f"Machine: {cpu}, {os.cpu_count()} cores{memory}; Python {platform.python_version()}; "
            f"{packages}; run {when}{load}.")


def markdown_table(rows: list[dict]) -> str:
    """A markdown table of dict rows (same keys); floats with 4 significant digits (one decimal from
    100 on), NaN as '-'."""
    if not rows:
        return ""
    keys = list(rows[0])

    def cell(value) -> str:
        if isinstance(value, float):
            if value != value:  # NaN: not measured
                return "-"
            return f"{value:.4g}" if abs(value) < 100 else f"{value:.1f}"
        return str(value)

    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(cell(r[k]) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def write_report(out: str | Path, title: str, command: str, body: str) -> Path:
    """Write a results page: its title, the command that reproduces it, the machine, then ``body``."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {title}\n\nCommand: `{command}`\n\n{describe_machine()}\n\n{body}")
    print(f"written {path}", flush=True)
    return path
