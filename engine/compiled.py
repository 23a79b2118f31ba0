"""The compiled hot path: which of our modules run as C extensions, and the switch to run them from source.

`setup.py` compiles the search and the games' hot modules with Cython in
pure-Python mode, so each extension sits next to the .py file it was built
from. An extension older than its source (the file was edited since the build)
is never imported: the source is, with a warning, until `make install` rebuilds
it. With `COVEN_PURE_PYTHON=1` in the environment every module runs from
source: the uncompiled path, for tests and for comparing speed.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ExtensionFileLoader, ModuleSpec, PathFinder
from pathlib import Path
from types import ModuleType

#: Set to a non-empty value other than "0" to import every module of ours from source.
PURE_PYTHON = "COVEN_PURE_PYTHON"
_OURS = ("engine.", "ai.")

#: What `setup.py` compiles: the modules every search iteration runs. The search loop, and per
#: game its playout (`fast`), sampler (`views`), rules, state, cards and the `Game` adapter.
HOT_MODULES = [
    "ai.search",
    "ai.halving",  # enchanters hard: its loop around the playouts
    *(f"engine.{game}.{module}"
      for game in ("witches", "enchanters", "cube")
      for module in ("fast", "views", "rules", "state", "cards", "game")),
    "engine.enchanters.sets",  # the set rule: every legal-move listing of a search
    "engine.witches.endgame",  # the exact endgame: the value of every new node after the last draw
]


def pure_python() -> bool:
    """Whether the environment asks for the uncompiled path."""
    return os.environ.get(PURE_PYTHON, "") not in ("", "0")


class SourceWhenStale:
    """An import finder that swaps an extension module of ours for its source when asked or stale."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        """The source's spec instead of the extension's; None leaves the import to the usual finders."""
        if path is None or not fullname.startswith(_OURS):
            return None
        spec = PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.origin is None or not isinstance(spec.loader, ExtensionFileLoader):
            return None
        extension = Path(spec.origin)
        source = extension.with_name(extension.name.split(".")[0] + ".py")
        if not source.exists():
            return None
        if not pure_python():
            if source.stat().st_mtime <= extension.stat().st_mtime:
                return None
            warnings.warn(f"{source} changed since it was compiled: running it from source "
                          "until `make install` rebuilds it", RuntimeWarning, stacklevel=2)
        return importlib.util.spec_from_file_location(fullname, source)


def install() -> None:
    """Put the finder first on the import path (once): before any compiled module is imported."""
    if not any(isinstance(finder, SourceWhenStale) for finder in sys.meta_path):
        sys.meta_path.insert(0, SourceWhenStale())


def compiled_modules() -> list[str]:
    """The modules of ours imported so far that run as C extensions."""
    return sorted(
        name for name, module in list(sys.modules.items())
        if name.startswith(_OURS) and isinstance(getattr(module, "__loader__", None),
                                                  ExtensionFileLoader)
    )


def main() -> None:
    """After `make install`: say whether the hot path is compiled, or warn that it runs from source."""
    for name in HOT_MODULES:
        importlib.import_module(name)
    built = compiled_modules()
    if len(built) == len(HOT_MODULES):
        print(f"compiled hot path: all {len(built)} modules are C extensions")
    else:
        missing = sorted(set(HOT_MODULES) - set(built))
        print(f"warning: {len(missing)} of {len(HOT_MODULES)} hot modules run from source, "
              f"uncompiled (no C compiler? `pip install -v -e .` shows why): {', '.join(missing)}",
              file=sys.stderr)
