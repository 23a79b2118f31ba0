"""A client generated from openapi.yaml by openapi-python-client plays a whole match, using only its code.

What a frontend or bot author does with the contract: generate a typed client, then create a match
against a bot, long-poll for the seat's turn, post back a legal move, read the log. The generation
must also be clean: a warning means part of the document did not become code.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def coven_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The `coven_client` package generated from the committed openapi.yaml, importable."""
    out = tmp_path_factory.mktemp("generated")
    bin_dir = Path(sys.executable).parent
    generated = subprocess.run(
        [str(bin_dir / "openapi-python-client"), "generate", "--path", str(ROOT / "openapi.yaml"),
         "--meta", "none", "--output-path", str(out / "coven_client")],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert "Warning" not in generated.stdout, generated.stdout  # every schema became code
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("coven_client")
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == "coven_client" or n.startswith("coven_client.")]:
            del sys.modules[name]


def test_a_generated_client_plays_witches_against_a_bot_to_the_end(coven_client: ModuleType,
                                                                   live_api: str) -> None:
    assert coven_client.__name__ == "coven_client"  # generated above; imported by name below
    from coven_client import AuthenticatedClient, Client
    from coven_client.api.games import list_games
    from coven_client.api.matches import create_match, get_match, get_match_log, play_move
    from coven_client.models import CreateMatch, MatchView, MoveRequest, SeatGrant, SeatSpec
    from coven_client.models.create_match_game import CreateMatchGame
    from coven_client.models.seat_spec_level import SeatSpecLevel
    from coven_client.models.seat_spec_type import SeatSpecType

    anonymous = Client(base_url=live_api, raise_on_unexpected_status=True)
    catalog = list_games.sync(client=anonymous)
    assert "witches" in [game.id for game in catalog.games]

    created = create_match.sync(client=anonymous, body=CreateMatch(
        game=CreateMatchGame.WITCHES,
        seats=[SeatSpec(type_=SeatSpecType.HUMAN), SeatSpec(type_=SeatSpecType.BOT, level=SeatSpecLevel.EASY)],
    ))
    assert isinstance(created, SeatGrant) and isinstance(created.token, str)
    me = AuthenticatedClient(base_url=live_api, token=created.token, raise_on_unexpected_status=True)

    version, played = 0, 0
    for _ in range(200):
        view = get_match.sync(created.id, client=me, after_version=version, wait=10)
        assert isinstance(view, MatchView)
        version = view.version
        if view.status.value == "finished":
            break
        if view.to_act == view.you and view.legal_moves:
            answer = play_move.sync(created.id, client=me,
                                    body=MoveRequest(move=view.legal_moves[0], version=version))
            assert isinstance(answer, MatchView), answer
            played += 1
    else:
        raise AssertionError("the match did not finish")
    assert played >= 5
    assert view.outcome is not None and view.outcome.winners
    log = get_match_log.sync(created.id, client=me)
    assert len(log.entries) > played
