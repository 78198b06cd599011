"""Builds the package's compiled kernels: Cython extension modules, compiled ahead of time by
``pip install`` (``pyproject.toml`` names the build requirements). The metadata is in
``pyproject.toml``; this file only declares the extensions (see ``docs/architecture.md``)."""

from Cython.Build import cythonize
from setuptools import Extension, setup

#: One extension per kernel module, beside the Python modules that import it.
KERNELS = ["optrules.bitset_kernels", "optrules.chimerge_kernel", "optrules.learners.boundary_kernel",
           "optrules.learners.libre_kernel", "optrules.search_kernel"]

#: -ffp-contract=off: no fused multiply-add, so the floating-point results are those of the
#: operations as written (the chi-square statistic is compared with NumPy's, bit for bit).
COMPILE_ARGS = ["-O3", "-ffp-contract=off"]

extensions = [Extension(name, [name.replace(".", "/") + ".pyx"], extra_compile_args=COMPILE_ARGS)
              for name in KERNELS]

setup(ext_modules=cythonize(extensions, language_level=3,
                            compiler_directives={"boundscheck": False, "wraparound": False,
                                                 "initializedcheck": False, "cdivision": True}))
