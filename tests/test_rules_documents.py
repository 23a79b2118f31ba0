"""The rules documents the API serves are the team's specification, copied into the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import all_games

ROOT = Path(__file__).resolve().parent.parent
SHARED_RULES = ROOT.parent / "shared" / "rules"


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.info.id)
def test_every_game_ships_its_rules_document(game) -> None:
    path = ROOT / game.info.rules_file
    assert path.is_file(), f"{game.info.id}: {path} is missing"
    assert game.info.title.split(" (")[0] in path.read_text(encoding="utf-8")


@pytest.mark.skipif(not SHARED_RULES.is_dir(), reason="no shared/ specification beside this clone")
@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.info.id)
def test_rules_document_matches_the_shared_specification(game) -> None:
    ours = (ROOT / game.info.rules_file).read_text(encoding="utf-8")
    spec = (SHARED_RULES / Path(game.info.rules_file).name).read_text(encoding="utf-8")
    assert ours == spec, f"rules/{game.info.id}.md differs from shared/rules: copy it again"
