"""Layers import one way: `engine` ← `ai` ← `api`, and inside `api/` its rooms import one way too:
web → service → store, jobs → service, everything → runtime. A module that imports upward fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from api.jobs.bot_turn import play_bot_turn
from api.store.bot_queue import JOB_FUNCTION

ROOT = Path(__file__).resolve().parent.parent
#: What each top-level package may import of ours (itself included).
ALLOWED = {"engine": {"engine"}, "ai": {"engine", "ai"}, "api": {"engine", "ai", "api"}}
#: What each room of `api/` may import of `api` (itself included). The package's own `__init__`
#: (`create_app`, the composition root) wires the rooms together and may import them all.
ROOMS = {
    "runtime": {"runtime"},
    "store": {"store", "runtime"},
    "service": {"service", "store", "runtime"},
    "jobs": {"jobs", "service", "store", "runtime"},
    "web": {"web", "service", "store", "runtime"},
}


def imported_modules(path: Path) -> set[str]:
    """The absolute module names a module imports (relative imports stay in the package)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def imported_packages(path: Path) -> set[str]:
    """The top-level packages a module imports."""
    return {name.split(".")[0] for name in imported_modules(path)}


def room_of(module: str) -> str | None:
    """The room of `api` a module name lies in (`api.store.storage` → `store`); None for `api` itself."""
    parts = module.split(".")
    return parts[1] if parts[0] == "api" and len(parts) > 1 else None


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layers_import_one_way(layer: str) -> None:
    ours = set(ALLOWED)
    upward = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / layer).rglob("*.py"))
        for name in imported_packages(path) & ours - ALLOWED[layer]
    }
    assert not upward, f"{layer} may import only {sorted(ALLOWED[layer])}: {sorted(upward)}"


def test_api_is_only_rooms() -> None:
    """Every module of `api/` but the composition root lies in a room the rules below know."""
    loose = sorted(p.name for p in (ROOT / "api").glob("*.py") if p.name != "__init__.py")
    rooms = sorted(p.name for p in (ROOT / "api").iterdir() if (p / "__init__.py").exists())
    assert not loose, f"modules outside a room: {loose}"
    assert rooms == sorted(ROOMS)


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_rooms_import_one_way(room: str) -> None:
    backward = set()
    for path in sorted((ROOT / "api" / room).rglob("*.py")):
        for name in imported_modules(path):
            if name.split(".")[0] != "api":
                continue
            target = room_of(name)
            if target is None or target not in ROOMS[room]:
                backward.add(f"{path.relative_to(ROOT)} imports {name}")
    assert not backward, f"api/{room} may import only {sorted(ROOMS[room])}: {sorted(backward)}"


def test_the_layer_check_sees_an_upward_import(tmp_path: Path) -> None:
    module = tmp_path / "bad.py"
    module.write_text("from api.service import MatchService\nimport ai.search\nfrom api import create_app\n")
    assert imported_packages(module) == {"api", "ai"}
    assert {room_of(name) for name in imported_modules(module)} == {"service", None}


def test_the_queued_job_names_the_bot_turn() -> None:
    assert f"{play_bot_turn.__module__}.{play_bot_turn.__qualname__}" == JOB_FUNCTION


def ai_imports(path: Path) -> set[str]:
    """The `ai` modules a module imports, at the top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names if alias.name.startswith("ai."))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("ai."):
                names.add(node.module)
            elif node.module == "ai":
                names.update(f"ai.{alias.name}" for alias in node.names)
    return names


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of the import graph (the modules in order, the first repeated), or []."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state and (found := visit(target)):
                return found
        state[module] = 2
        path.pop()
        return []

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return []


def test_no_two_ai_modules_import_each_other() -> None:
    graph = {f"ai.{path.stem}": ai_imports(path) for path in sorted((ROOT / "ai").glob("*.py"))}
    assert import_cycle(graph) == [], "the ai modules import each other in a cycle"


def test_the_cycle_check_sees_a_cycle_even_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "search.py"
    module.write_text("def f():\n    from ai.halving import halving_search\n")
    assert ai_imports(module) == {"ai.halving"}
    graph = {"ai.search": ai_imports(module), "ai.halving": {"ai.search"}, "ai.play": {"ai.search"}}
    assert import_cycle(graph) == ["ai.halving", "ai.search", "ai.halving"]
