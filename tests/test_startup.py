"""Start-up: what ``import optrules`` and the CLI's listings import, the lazy public names, and the
compiled kernels a fresh process loads (extension modules built at install, no compiler at run time).
Each check runs a fresh interpreter (the test process has imported everything already) and reads its
``sys.modules``: none depends on speed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import optrules
import optrules.estimators
import optrules.solvers

ROOT = Path(optrules.__file__).resolve().parent.parent
SOLVER_STACKS = ("pyomo", "cvxpy", "highspy", "pyscipopt", "clarabel", "cyipopt")
#: Also left out of ``import optrules`` and the CLI listings.
HEAVY = (*SOLVER_STACKS, "sklearn", "numba", "pandas", "scipy")

#: Prints the top-level packages of ``watched`` in sys.modules after running ``code``.
PROBE = """
import json, sys
{code}
print(json.dumps(sorted({{name.partition(".")[0] for name in sys.modules}} & set({watched!r}))))
"""


def fresh(code: str, watched: tuple[str, ...] = HEAVY) -> list[str]:
    """The packages of ``watched`` that ``code`` leaves imported in a new interpreter."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", PROBE.format(code=code, watched=watched)], env=env, cwd=ROOT,
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def test_import_optrules_imports_no_heavy_package() -> None:
    assert fresh("import optrules") == []


@pytest.mark.parametrize("command", ["--help", "datasets", "methods"])
def test_cli_listings_import_no_solver_stack_nor_scikit_learn_nor_numba(command: str) -> None:
    code = ("from optrules.cli import main\n"
            "try:\n"
            f"    main([{command!r}])\n"
            "except SystemExit:\n"
            "    pass")
    assert fresh(code) == []


def test_cli_listings_still_list_everything(capsys) -> None:
    from optrules.cli import main
    from optrules.datasets import list_datasets

    assert main(["methods"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == sorted(optrules.METHODS)
    assert main(["datasets"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split()[:3] == ["dataset", "rows", "features"]
    assert [line.split()[0] for line in rows] == list_datasets()


LAZY_PACKAGES = [optrules, optrules.estimators, optrules.solvers]


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda p: p.__name__)
def test_every_public_name_resolves_to_its_home(package) -> None:
    assert all(getattr(package, name) is not None for name in package.__all__)
    assert set(package.__all__) <= set(dir(package))
    namespace: dict = {}
    exec(f"from {package.__name__} import *", namespace)
    assert set(package.__all__) <= set(namespace)


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda p: p.__name__)
def test_no_submodule_bears_a_public_name(package) -> None:
    """Importing a submodule binds it in its package: one named like a lazily exported name would
    replace that name for good (``optrules.solvers.solve`` was once the module of that name after
    ``import optrules.solvers.highs_lp``)."""
    import pkgutil

    submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
    assert submodules.isdisjoint(package.__all__)
    assert fresh("import optrules.solvers.highs_lp\nfrom optrules.solvers import solve\n"
                 "assert callable(solve) and solve.__module__ == 'optrules.solvers.solving'") is not None


def test_registry_names_resolve_to_their_estimators() -> None:
    for name, method in optrules.METHODS.items():
        assert issubclass(method.estimator, optrules.RulesetClassifier), name
    assert optrules.METHODS["libre"].estimator is optrules.LibreClassifier
    assert optrules.METHODS["setcover"].estimator is optrules.SetCoverClassifier


def test_submodules_and_version_as_attributes_unknown_names_refused() -> None:
    assert fresh("import optrules\nassert optrules.ruleset.Ruleset is optrules.Ruleset") == ["pandas"]
    assert isinstance(optrules.__version__, str) and optrules.__version__
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        optrules.no_such_name  # noqa: B018


def test_an_estimator_imports_only_what_its_family_needs() -> None:
    assert fresh("from optrules import LibreClassifier", SOLVER_STACKS) == []
    assert fresh("from optrules import CLSVMClassifier", SOLVER_STACKS) == []
    assert fresh("from optrules import SetCoverClassifier", SOLVER_STACKS) == []


def test_fit_after_a_lazy_import_and_greedy_fits_import_no_solver() -> None:
    code = ("import numpy as np\n"
            "import optrules\n"
            "rng = np.random.default_rng(0)\n"
            "X = rng.uniform(0, 1, size=(200, 3))\n"
            "y = (X[:, 0] > 0.5).astype(int)\n"
            "ruleset = optrules.fit(X, y, method='libre', n_estimators=2, random_state=0)\n"
            "assert ruleset.n_rules >= 1 and (ruleset.predict(X) == y).mean() > 0.9\n"
            "optrules.fit(X, y, method='setcover-greedy')")
    assert fresh(code, SOLVER_STACKS) == []
    exact = fresh(code + "\noptrules.fit(X, y, method='setcover')", SOLVER_STACKS)
    assert "highspy" in exact  # the ILP imports its solver when it runs


#: The compiled kernel modules: every one is an extension module built ahead of time.
KERNELS = ("optrules.bitset_kernels", "optrules.chimerge_kernel", "optrules.learners.boundary_kernel",
           "optrules.learners.libre_kernel", "optrules.search_kernel")

#: Small fits in a fresh process that run every kernel (ChiMerge, candidate mining and its hashes,
#: FindBoundary, the sorted search, the weighted filter); prints the kernels' files and whether a JIT
#: compiler was imported.
KERNEL_PROBE = """
import importlib.machinery, json, sys
import numpy as np
import optrules
rng = np.random.default_rng(0)
X = rng.uniform(0, 100, size=(300, 4))
y = (X[:, 0] + X[:, 1] > 100).astype(int)
optrules.fit(X, y, method="libre", n_estimators=2, random_state=0)
optrules.fit(X, y, method="setcover-greedy")
optrules.fit(X, y, method="bottom-up")
optrules.LibreClassifier(n_estimators=2, random_state=0).fit(X, y, sample_weight=rng.integers(1, 3, 300))
files = {name: sys.modules[name].__file__ for name in %r}
print(json.dumps({"files": files, "suffixes": importlib.machinery.EXTENSION_SUFFIXES,
                  "jit": sorted({"numba", "llvmlite"} & {name.partition(".")[0] for name in sys.modules})}))
""" % (KERNELS,)


def test_a_fresh_fit_runs_the_kernels_compiled_at_install_and_imports_no_jit_compiler() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", KERNEL_PROBE], env=env, cwd=ROOT, capture_output=True,
                            text=True, check=True)
    found = json.loads(result.stdout.splitlines()[-1])
    assert found["jit"] == []
    assert set(found["files"]) == set(KERNELS)  # the fits loaded every kernel module
    for name, path in found["files"].items():
        assert path.endswith(tuple(found["suffixes"])), (name, path)
