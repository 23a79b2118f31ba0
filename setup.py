"""Compiles the search and the games' hot modules with Cython when `pip install` builds Coven.

Pure-Python mode: the same .py files are compiled, unchanged, and still run as
they are where no extension was built. A build without a C compiler (or with
one that fails) only warns: the extensions are optional, so `pip install`
succeeds and Coven runs from source (`engine/compiled.py` says which modules
are compiled, and `COVEN_PURE_PYTHON=1` runs them all from source).
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path

from setuptools import Extension, setup

# the list lives with the import switch; that module needs only the standard library
HOT_MODULES: list[str] = runpy.run_path(
    str(Path(__file__).resolve().parent / "engine" / "compiled.py"))["HOT_MODULES"]

#: gcc/clang: no debug information and -O2, not Python's -g -O3: compiling takes half the time,
#: and the code is calls into the interpreter either way
FLAGS = ["-O2", "-g0"] if os.name == "posix" else []


def extensions() -> list[Extension]:
    """The hot modules as optional Cython extensions (none when Cython is missing)."""
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("warning: Cython is not installed: Coven runs from source, uncompiled")
        return []
    modules = cythonize(
        [Extension(name, [name.replace(".", "/") + ".py"], extra_compile_args=FLAGS)
         for name in HOT_MODULES],
        build_dir="build/cython",  # the generated C stays out of the source tree
        compiler_directives={"language_level": 3, "annotation_typing": False, "binding": True},
        nthreads=os.cpu_count() or 1,
        quiet=True,
    )
    for module in modules:
        module.optional = True  # a failed compile warns; the module then runs from source
    return modules


# gcc runs on every core (the .c files are independent)
setup(ext_modules=extensions(), options={"build_ext": {"parallel": os.cpu_count() or 1}})
