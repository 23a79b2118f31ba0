"""Whole matches over HTTP for every registered game: human vs bot (real burst worker) and human vs human."""

from __future__ import annotations

import pytest
from api_support import create, play_out, view

from engine import all_games

GAME_IDS = [game.info.id for game in all_games()]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_human_vs_random_bot_to_the_end(client, run_bots, game_id: str) -> None:
    game = next(g for g in all_games() if g.info.id == game_id)
    seats = [{"type": "human"}] + [{"type": "bot", "level": "random"}] * (game.info.min_players - 1)
    created = create(client, game_id, seats)
    assert created["you"] == 0 and created["status"] == "active"
    final = play_out(client, created["id"], {0: created["token"]}, run_bots)
    assert final["outcome"] is not None
    assert len(final["outcome"]["scores"]) == game.info.min_players
    assert final["to_act"] is None and final["legal_moves"] == [] and final["bot"] is None


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_human_vs_human_with_two_tokens(client, game_id: str) -> None:
    created = create(client, game_id, [{"type": "human"}, {"type": "human"}])
    assert created["status"] == "waiting"
    joined = client.post(f"/v1/matches/{created['id']}/join")
    assert joined.status_code == 200, joined.get_json()
    second = joined.get_json()
    assert second["you"] == 1 and second["status"] == "active"
    assert second["token"] != created["token"]
    final = play_out(client, created["id"], {0: created["token"], 1: second["token"]}, seed=1)
    assert final["status"] == "finished" and final["outcome"]["winners"]


def test_easy_bot_plays_a_few_turns(client, run_bots) -> None:
    created = create(client, "witches", [{"type": "bot", "level": "easy"}, {"type": "human"}], seed="s")
    assert created["you"] == 1 and created["seeded"] is True
    assert created["to_act"] == 0 and created["bot"]["status"] == "queued"
    run_bots()
    after = view(client, created["id"], created["token"])
    assert after["version"] > created["version"]
    assert after["to_act"] == 1 and after["legal_moves"]
