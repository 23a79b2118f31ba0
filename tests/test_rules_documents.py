"""The rules documents the API serves are the team's specification, copied into the repository.

`tests/rules.sha256` records the specification as copied (`cd rules && sha256sum *.md >
../tests/rules.sha256`), so an edit that does not come from the specification fails here in every
clone; beside the team's `shared/` folder the copy is also compared with the specification itself,
file for file (rules/ holds the specification and nothing else).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from engine import all_games

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"
SHARED_RULES = ROOT.parent / "shared" / "rules"
DIGESTS = ROOT / "tests" / "rules.sha256"


def recorded_digests() -> dict[str, str]:
    """File name → SHA-256, as `sha256sum` wrote them into tests/rules.sha256."""
    lines = DIGESTS.read_text(encoding="utf-8").splitlines()
    return {name.lstrip("*"): digest for digest, name in (line.split(maxsplit=1) for line in lines if line)}


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.info.id)
def test_every_game_ships_its_rules_document(game) -> None:
    path = ROOT / game.info.rules_file
    assert path.is_file(), f"{game.info.id}: {path} is missing"
    assert game.info.title.split(" (")[0] in path.read_text(encoding="utf-8")


def test_rules_documents_are_the_recorded_copy_of_the_specification() -> None:
    digests = recorded_digests()
    assert sorted(digests) == sorted(path.name for path in RULES.glob("*.md")), "tests/rules.sha256 lists other files"
    for name, digest in digests.items():
        actual = hashlib.sha256((RULES / name).read_bytes()).hexdigest()
        assert actual == digest, f"rules/{name} is not the specification as copied: copy it again, then re-record"


@pytest.mark.skipif(not SHARED_RULES.is_dir(), reason="no shared/ specification beside this clone "
                    "(tests/rules.sha256 still pins the copy)")
@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.info.id)
def test_rules_document_matches_the_shared_specification(game) -> None:
    ours = (ROOT / game.info.rules_file).read_text(encoding="utf-8")
    spec = (SHARED_RULES / Path(game.info.rules_file).name).read_text(encoding="utf-8")
    assert ours == spec, f"rules/{game.info.id}.md differs from shared/rules: copy it again"


@pytest.mark.skipif(not SHARED_RULES.is_dir(), reason="no shared/ specification beside this clone")
def test_rules_folder_holds_the_specification_and_nothing_else() -> None:
    assert sorted(p.name for p in RULES.iterdir()) == sorted(p.name for p in SHARED_RULES.iterdir())
