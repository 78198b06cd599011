"""The installed package's version, read from its metadata (no import of the package's modules)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__", "package_version"]


def package_version() -> str:
    """The version pip installed, or ``"unknown"`` when running from a source tree that is not installed."""
    try:
        return version("optrules")
    except PackageNotFoundError:
        return "unknown"


#: The package's ``optrules.__version__``.
__version__: str = package_version()
