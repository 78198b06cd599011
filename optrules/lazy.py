"""Public names of a package imported on first use (PEP 562 module ``__getattr__`` and ``__dir__``).

``import optrules`` then costs next to nothing: scikit-learn, pandas, the compiled kernels and
the solver stacks are imported when a name that needs them is first used, and only those that name
needs. ``from optrules import X``, ``optrules.X`` and ``optrules.submodule`` work as with eager
imports; each package keeps its ``__all__`` and a ``TYPE_CHECKING`` block of the same imports for
type checkers and editors.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any, Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, sources: Mapping[str, tuple[str, ...]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose public names are ``sources`` (module ->
    the names it defines, in that module's own spelling).

    A public name is imported from its module on first access and bound in the package, so later
    accesses are plain attribute reads; any other name that is a submodule is imported as one (as it
    would be had the package imported it eagerly); anything else is an ``AttributeError``."""
    home = {name: module for module, names in sources.items() for name in names}

    def __getattr__(name: str) -> Any:
        namespace = vars(sys.modules[package])
        if name in home:
            value = getattr(importlib.import_module(home[name]), name)
        elif not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}") is not None:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(home))

    return __getattr__, __dir__
