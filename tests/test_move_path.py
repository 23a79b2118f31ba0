"""A move is decided on the caller's read and saved by one compare-and-set script
(api/service/commands.py `play`, api/storage.py `compare_and_set`), on a real Redis."""

from __future__ import annotations

import pytest
from api_support import auth, create, play, view

from api.service.errors import NotYourTurn, VersionConflict
from api.storage import log_key


def duel(client) -> tuple[str, dict[int, str]]:
    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
    return created["id"], {0: created["token"], 1: joined["token"]}


def command_calls(redis) -> dict[str, int]:
    """Commands Redis ran since its stats were reset (not those it refused: NOSCRIPT before a load)."""
    stats = redis.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(value["calls"]) - int(value.get("failed_calls", 0))
            - int(value.get("rejected_calls", 0)) for name, value in stats.items()}


def test_a_move_is_one_read_and_one_script(app_with, redis) -> None:
    """Its Redis commands (rate limits off: their counters are scripts too): the caller's read,
    one script, and no transaction; what the script runs is counted by Redis as well."""
    client = app_with(RATE_LIMITS_ENABLED=False).test_client()
    match_id, tokens = duel(client)
    mover = view(client, match_id)["to_act"]
    mine = view(client, match_id, tokens[mover])
    redis.config_resetstat()
    response = play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"])
    assert response.status_code == 200
    calls = command_calls(redis)
    assert calls.get("evalsha", 0) + calls.get("eval", 0) == 1
    assert not {"watch", "multi", "exec", "time"} & set(calls)
    assert calls["get"] == 1 and calls["hgetall"] == 2  # the caller's read: the match, its presence, the bot's progress
    after = view(client, match_id, tokens[mover])
    assert after["version"] == mine["version"] + 1
    assert {key: value for key, value in response.get_json().items() if key != "seats"} == {
        key: value for key, value in after.items() if key != "seats"}


def test_a_move_decided_on_a_read_that_went_stale_is_decided_again(app, client, redis) -> None:
    """The match moves on between the caller's read and the save: nothing of the stale decision
    is written; the move is decided again on the new version (and refused there)."""
    svc = app.extensions["coven"]
    match_id, tokens = duel(client)
    mover = view(client, match_id)["to_act"]
    mine = view(client, match_id, tokens[mover])
    stale, also_stale = svc.caller(match_id, tokens[mover]), svc.caller(match_id, tokens[mover])
    assert play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"]).status_code == 200
    played = redis.llen(log_key(match_id))
    with pytest.raises(VersionConflict):
        svc.play(stale, mine["legal_moves"][-1], mine["version"])
    with pytest.raises(NotYourTurn):  # without a version: decided anew, where the other seat is to act
        svc.play(also_stale, mine["legal_moves"][-1])
    assert redis.llen(log_key(match_id)) == played
    assert view(client, match_id)["version"] == mine["version"] + 1


def test_an_idempotent_retry_is_replayed_not_played_again(client, redis) -> None:
    match_id, tokens = duel(client)
    mover = view(client, match_id)["to_act"]
    mine = view(client, match_id, tokens[mover])
    headers = {"Idempotency-Key": "move-1"}
    first = play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"], headers)
    again = play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"], headers)
    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert view(client, match_id, tokens[mover])["version"] == mine["version"] + 1
    assert client.get(f"/v1/matches/{match_id}/log", headers=auth(tokens[mover])).get_json()["version"] == (
        mine["version"] + 1)
