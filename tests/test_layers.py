"""Layers import one way: `engine` ← `ai` ← `api`. A module that imports upward fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from api.bot_turn import play_bot_turn
from api.bots import JOB_FUNCTION

ROOT = Path(__file__).resolve().parent.parent
#: What each layer may import of ours (itself included).
ALLOWED = {"engine": {"engine"}, "ai": {"engine", "ai"}, "api": {"engine", "ai", "api"}}


def imported_packages(path: Path) -> set[str]:
    """The top-level packages a module imports (relative imports stay in the package)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layers_import_one_way(layer: str) -> None:
    ours = set(ALLOWED)
    upward = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / layer).rglob("*.py"))
        for name in imported_packages(path) & ours - ALLOWED[layer]
    }
    assert not upward, f"{layer} may import only {sorted(ALLOWED[layer])}: {sorted(upward)}"


def test_the_layer_check_sees_an_upward_import(tmp_path: Path) -> None:
    module = tmp_path / "bad.py"
    module.write_text("from api.service import MatchService\nimport ai.search\n")
    assert imported_packages(module) == {"api", "ai"}


def test_the_queued_job_names_the_bot_turn() -> None:
    assert f"{play_bot_turn.__module__}.{play_bot_turn.__qualname__}" == JOB_FUNCTION
