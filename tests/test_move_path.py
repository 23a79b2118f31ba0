"""A move is decided on the caller's read and saved by one compare-and-set script
(api/service/commands.py `play`, api/storage.py `compare_and_set`), on a real Redis."""

from __future__ import annotations

import hashlib
import json
import time
import zlib

import pytest
from api_support import auth, create, play, view

from api.service.commands import PRESENCE_SECONDS
from api.service.errors import NotYourTurn, VersionConflict
from api.service.recent import RecentReads
from api.store import storage
from api.store.storage import log_key


def duel(client) -> tuple[str, dict[int, str]]:
    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
    return created["id"], {0: created["token"], 1: joined["token"]}


def command_calls(redis) -> dict[str, int]:
    """Commands Redis ran since its stats were reset (not those it refused: NOSCRIPT before a load)."""
    stats = redis.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(value["calls"]) - int(value.get("failed_calls", 0))
            - int(value.get("rejected_calls", 0)) for name, value in stats.items()}


def counted_move(reader, client, redis) -> tuple[dict, dict, dict[str, int]]:
    """A seat reads its view through `reader` and moves through `client`: the move's answer, the
    view after it, and the Redis commands the move ran (one script, no transaction, checked)."""
    match_id, tokens = duel(reader)
    mover = view(reader, match_id)["to_act"]
    mine = view(reader, match_id, tokens[mover])
    redis.config_resetstat()
    response = play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"])
    assert response.status_code == 200
    calls = command_calls(redis)
    assert calls.get("evalsha", 0) + calls.get("eval", 0) == 1
    assert not {"watch", "multi", "exec", "time"} & set(calls)
    after = view(client, match_id, tokens[mover])
    assert after["version"] == mine["version"] + 1
    return response.get_json(), after, calls


def test_a_move_is_one_read_and_one_script(app_with, redis) -> None:
    """Its Redis commands (rate limits off: their counters are scripts too), in a process that
    has not read the match: the caller's read, one script, and no transaction; what the script
    runs is counted by Redis as well."""
    reader = app_with(RATE_LIMITS_ENABLED=False).test_client()
    client = app_with(RATE_LIMITS_ENABLED=False).test_client()  # another process: it read nothing
    answer, after, calls = counted_move(reader, client, redis)
    assert calls["get"] == 1 and calls["hgetall"] == 2  # the caller's read: the match, its presence, the bot's progress
    assert {key: value for key, value in answer.items() if key != "seats"} == {
        key: value for key, value in after.items() if key != "seats"}


def test_a_move_after_the_seats_read_is_one_script(app_with, redis) -> None:
    """The process read the match for the mover a moment ago: the move is decided on that read,
    and the script alone checks it is still current (no read of the match)."""
    client = app_with(RATE_LIMITS_ENABLED=False).test_client()
    answer, after, calls = counted_move(client, client, redis)
    assert "get" not in calls and "hgetall" not in calls
    assert answer == after  # presence included: the mover seen now, the other as read


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


def test_a_kept_read_never_refuses_a_move_a_fresh_one_allows(app_with, redis) -> None:
    """Another process moved after this one kept its read: the next seat's move, which the kept
    read would refuse (not its turn, an unknown version), is decided on a fresh read and played;
    what the fresh read refuses is refused, with nothing written."""
    here = app_with(RATE_LIMITS_ENABLED=False).test_client()
    there = app_with(RATE_LIMITS_ENABLED=False).test_client()
    match_id, tokens = duel(here)
    first = view(here, match_id)["to_act"]
    mine = view(here, match_id, tokens[first])  # kept here, at this version
    second = 1 - first
    view(here, match_id, tokens[second])
    assert play(there, match_id, tokens[first], mine["legal_moves"][0], mine["version"]).status_code == 200
    theirs = view(there, match_id, tokens[second])
    assert theirs["to_act"] == second
    played = redis.llen(log_key(match_id))
    refused = play(here, match_id, tokens[first], mine["legal_moves"][-1])  # decided on the fresh read
    assert refused.status_code == 403 and refused.get_json()["to_act"] == second
    stale = play(here, match_id, tokens[first], mine["legal_moves"][-1], mine["version"])
    assert stale.status_code == 409 and stale.get_json()["current_version"] == theirs["version"]
    assert redis.llen(log_key(match_id)) == played
    answered = play(here, match_id, tokens[second], theirs["legal_moves"][0], theirs["version"])
    assert answered.status_code == 200 and answered.get_json()["version"] == theirs["version"] + 1


def test_a_kept_read_lasts_a_second_and_only_for_a_seat(app_with, redis) -> None:
    """Only a seat's read is kept (a spectator cannot move), and only for PRESENCE_SECONDS: the
    presence a move's answer shows is never older than a fresh read's precision."""
    application = app_with(RATE_LIMITS_ENABLED=False)
    client, svc = application.test_client(), application.extensions["coven"]
    match_id, tokens = duel(client)
    view(client, match_id)
    assert svc.recent.get(match_id) is None
    view(client, match_id, tokens[0])
    assert svc.recent.get(match_id) is not None
    assert svc.recent.seconds == PRESENCE_SECONDS
    short = RecentReads(0.05)
    short.keep(match_id, *svc.recent.get(match_id))
    assert short.get(match_id) is not None
    time.sleep(0.1)
    assert short.get(match_id) is None


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


def test_a_retry_is_answered_with_the_view_of_the_version_its_move_made(client, redis) -> None:
    """The key keeps the version, not the answer: a retry after the match moved on gets the view of
    that version again; a record of the older kind, which kept the answer, replays it as kept."""
    match_id, tokens = duel(client)
    mover = view(client, match_id)["to_act"]
    mine = view(client, match_id, tokens[mover])
    key = {"Idempotency-Key": "move-then-more"}
    first = play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"], key).get_json()
    theirs = view(client, match_id, tokens[1 - mover])
    assert play(client, match_id, tokens[1 - mover], theirs["legal_moves"][0], theirs["version"]).status_code == 200
    again = play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"], key)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert {k: v for k, v in again.get_json().items() if k != "seats"} == {
        k: v for k, v in first.items() if k != "seats"}  # when each seat was last seen is not kept
    stored = storage.idempotency_key(match_id, mover, "move-then-more")
    record = redis.hget(stored.key, stored.field)
    fingerprint, version = record[:8].hex(), int(record[8:])
    assert version == first["version"] and len(record) < 12  # the answer is not kept
    kept = {**first, "kept": "as the first answer was stored"}  # a record of the older kind
    redis.hdel(stored.key, stored.field)
    digest = hashlib.sha256(json.dumps({"move": mine["legal_moves"][0], "version": mine["version"]},
                                       sort_keys=True).encode()).hexdigest()  # as the older records kept it
    assert digest.startswith(fingerprint)
    redis.set(stored.legacy, zlib.compress(json.dumps({"fingerprint": digest, "version": first["version"],
                                                       "body": kept}).encode()))
    assert play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"], key).get_json() == kept


def test_a_move_that_loses_its_race_leaves_no_view_of_its_version(app_with, redis) -> None:
    """Two processes decide a move of the same seat at the same version; the one whose save loses
    rendered its answer for a version that is never written: later views of that version, in
    that process, show the move that was saved (the tests' eight-thread race once read the
    loser's hand and turn from this process's rendered views)."""
    here = app_with(RATE_LIMITS_ENABLED=False)
    there = app_with(RATE_LIMITS_ENABLED=False).test_client()
    client, svc = here.test_client(), here.extensions["coven"]
    match_id, tokens = duel(client)
    mover = view(client, match_id)["to_act"]
    mine = view(client, match_id, tokens[mover])
    loser = svc.caller(match_id, tokens[mover])
    winning, losing = mine["legal_moves"][0], mine["legal_moves"][-1]
    assert winning != losing
    saved = play(there, match_id, tokens[mover], winning, mine["version"])
    assert saved.status_code == 200
    with pytest.raises(NotYourTurn):  # decided on the stale read, its save refused, decided again: not its turn
        svc.play(loser, losing)
    seen_here = view(client, match_id, tokens[mover])
    seen_there = view(there, match_id, tokens[mover])
    assert seen_here["version"] == mine["version"] + 1
    assert {k: v for k, v in seen_here.items() if k != "seats"} == {
        k: v for k, v in seen_there.items() if k != "seats"}
    assert seen_here["state"] == saved.get_json()["state"]


def test_a_follower_told_of_the_version_this_process_saved_reads_nothing(app_with, redis) -> None:
    """A pushed view after a move saved by the same process (both seats' channels served here) is
    taken from the mover's kept save; told of a version it did not keep, the follower reads Redis."""
    application = app_with(RATE_LIMITS_ENABLED=False)
    client, svc = application.test_client(), application.extensions["coven"]
    match_id, tokens = duel(client)
    mover = view(client, match_id)["to_act"]
    mine = view(client, match_id, tokens[mover])
    assert play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"]).status_code == 200
    redis.config_resetstat()
    kept = svc.look_at(match_id, mine["version"] + 1)
    assert kept.record.version == mine["version"] + 1 and "get" not in command_calls(redis)
    assert kept.record.stored == svc.look(match_id).record.stored  # what a read would have found
    redis.config_resetstat()
    assert svc.look_at(match_id, mine["version"] + 2).record.version == mine["version"] + 1
    assert command_calls(redis)["get"] == 1


def test_a_keyed_move_reads_no_record_of_its_key(app_with, redis) -> None:
    """A keyed move's first try saves with the key as the script's guard and reads nothing of it:
    a keyed move after the seat's read is still one script (its retry reads the record)."""
    client = app_with(RATE_LIMITS_ENABLED=False).test_client()
    match_id, tokens = duel(client)
    mover = view(client, match_id)["to_act"]
    mine = view(client, match_id, tokens[mover])
    key = {"Idempotency-Key": "one-script"}
    redis.config_resetstat()
    assert play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"], key).status_code == 200
    calls = command_calls(redis)
    assert calls.get("evalsha", 0) + calls.get("eval", 0) == 1
    assert not {"get", "hget", "hgetall"} & set(calls), calls
    redis.config_resetstat()
    again = play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"], key)
    assert again.headers["Idempotent-Replayed"] == "true" and command_calls(redis).get("hget") == 1
