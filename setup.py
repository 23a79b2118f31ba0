"""Compiles the search and the games' hot modules with Cython when `pip install` builds Coven.

Pure-Python mode: the same .py files are compiled, unchanged, and still run as
they are where no extension was built. A build without a C compiler (or with
one that fails) only warns: the extensions are optional, so `pip install`
succeeds and Coven runs from source (`engine/compiled.py` says which modules
are compiled, and `COVEN_PURE_PYTHON=1` runs them all from source).

The Makefile installs with `COVEN_SKIP_EXTENSIONS=1` and then compiles once, in place
(`setup.py build_ext --inplace`), saying which module it compiles: pip's build would
compile them in a temporary tree, silently, and `make compiled` again after it.
"""

from __future__ import annotations

import os
import runpy
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# the list lives with the import switch; that module needs only the standard library
HOT_MODULES: list[str] = runpy.run_path(
    str(Path(__file__).resolve().parent / "engine" / "compiled.py"))["HOT_MODULES"]

#: gcc/clang: no debug information and -O2, not Python's -g -O3: compiling takes half the time,
#: and the code is calls into the interpreter either way
FLAGS = ["-O2", "-g0"] if os.name == "posix" else []


def extensions() -> list[Extension]:
    """The hot modules as optional Cython extensions (none when Cython is missing or skipped)."""
    if os.environ.get("COVEN_SKIP_EXTENSIONS", "") not in ("", "0"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("warning: Cython is not installed: Coven runs from source, uncompiled")
        return []
    sources = [Path(name.replace(".", "/") + ".py") for name in HOT_MODULES]
    stale = [src for src in sources if not (Path("build/cython") / src.with_suffix(".c")).exists()
             or src.stat().st_mtime > (Path("build/cython") / src.with_suffix(".c")).stat().st_mtime]
    if stale:
        print(f"coven: translating {len(stale)} of the bots' hot modules to C with Cython", flush=True)
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


class BuildSayingWhat(build_ext):
    """setuptools' build_ext, printing each module it compiles (a minute or two in all), and
    putting the built modules beside their sources by a rename: `make run` compiles while the
    server already runs."""

    def build_extensions(self) -> None:
        """Say how many modules are out of date before compiling them."""
        self._done = 0
        self._stale = [ext for ext in self.extensions
                       if self.force or not Path(self.get_ext_fullpath(ext.name)).exists()
                       or any(Path(src).stat().st_mtime > Path(self.get_ext_fullpath(ext.name)).stat().st_mtime
                              for src in ext.sources)]
        if self._stale:
            print(f"coven: compiling {len(self._stale)} of the bots' hot modules with a C compiler "
                  f"(about 90 s of CPU for all {len(self.extensions)})", flush=True)
        super().build_extensions()

    def build_extension(self, ext: Extension) -> None:
        """Compile one module (into build/), then count it."""
        super().build_extension(ext)
        if ext in self._stale:
            self._done += 1
            print(f"coven:   [{self._done}/{len(self._stale)}] {ext.name}", flush=True)

    def copy_extensions_to_source(self) -> None:
        """With --inplace, put each built module beside its source by a rename, and only when it
        changed: a process importing it meanwhile finds the old file or the new, never half of one."""
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            inplace_file, regular_file = self._get_inplace_equivalent(build_py, ext)
            if not os.path.exists(regular_file):
                continue  # an optional module that did not compile: it runs from source
            built, there = Path(regular_file).stat(), Path(inplace_file)
            if there.exists() and (there.stat().st_mtime, there.stat().st_size) == (built.st_mtime, built.st_size):
                continue
            shutil.copy2(regular_file, f"{inplace_file}.partial")
            os.replace(f"{inplace_file}.partial", inplace_file)


# gcc runs on every core (the .c files are independent)
setup(ext_modules=extensions(), cmdclass={"build_ext": BuildSayingWhat},
      options={"build_ext": {"parallel": os.cpu_count() or 1}})
