"""The compact storage of a match (api.store.records, api.store.storage, api.store.history): every version of a
match rebuilt from its record and log is exactly what each seat saw at that version, and
matches stored by the old format (hash + JSON history + list of versions) still read, and move
over to the new keys by their next change."""

from __future__ import annotations

import json
import random
import zlib

import pytest
from api_support import auth, create, play, view
from redis import Redis

from api.store.history import Replay, possible
from api.store.records import fold_log
from api.store.storage import Store, idempotency_key, keys_of, legacy_keys, log_key, match_key
from engine import all_games, get_game

#: What moves on between a view and the same version shown later: presence, bot activity, and
#: the seed (revealed once the match is over).
VOLATILE = ("bot", "fairness", "seat_views")


def comparable(body: dict) -> dict:
    """A view without what moves on by itself."""
    seats = [{key: value for key, value in seat.items() if key != "last_seen"} for seat in body["seats"]]
    return {**{key: value for key, value in body.items() if key not in VOLATILE}, "seats": seats}


def four_witches(client) -> tuple[str, dict[int, str]]:
    """A 4-player witches match of four people; its id and their tokens."""
    created = create(client, "witches", [{"type": "human"}] * 4)
    tokens = {0: created["token"]}
    for _ in range(3):
        joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
        tokens[joined["you"]] = joined["token"]
    return created["id"], tokens


def play_and_watch(client, mid: str, tokens: dict[int, str], moves: int, seen: dict, rng: random.Random) -> dict:
    """Play up to `moves` random moves, noting every seat's (and the spectator's) view at each version."""
    for played in range(moves + 1):
        public = view(client, mid)
        for seat in (None, *tokens):
            seen[(public["version"], seat)] = comparable(view(client, mid, tokens.get(seat)))
        if public["status"] == "finished" or played == moves:
            return public
        mine = view(client, mid, tokens[public["to_act"]])
        assert play(client, mid, tokens[public["to_act"]], rng.choice(mine["legal_moves"]),
                    mine["version"]).status_code == 200
    raise AssertionError("unreachable")


def assert_versions_as_seen(client, mid: str, tokens: dict[int, str], seen: dict) -> None:
    for (version, seat), live in seen.items():
        then = client.get(f"/v1/matches/{mid}/versions/{version}", headers=auth(tokens.get(seat)))
        assert then.status_code == 200, then.get_json()
        assert comparable(then.get_json()) == live, (version, seat)


def test_every_version_of_a_four_player_match_replays_to_what_each_seat_saw(client, redis: Redis) -> None:
    mid, tokens = four_witches(client)
    seen: dict = {}
    final = play_and_watch(client, mid, tokens, 10_000, seen, random.Random(5))
    assert final["status"] == "finished"
    assert_versions_as_seen(client, mid, tokens, seen)
    for version in range(1, final["version"] + 1):  # a finished match's version shows every seat's view
        body = client.get(f"/v1/matches/{mid}/versions/{version}").get_json()
        for seat in tokens:
            if (version, seat) in seen:
                assert body["seat_views"][seat] == seen[(version, seat)]["state"], (version, seat)
    # the log's moves, replayed, are the stored snapshot's state
    store = Store(redis, lambda status: 3600)
    record = store.load(mid)
    versions, history = store.timeline(record)
    game = get_game("witches")
    state = Replay(game, 4, record.options, history).advance_to(len(history))
    assert game.encode(state) == record.snapshot
    assert len(versions) == record.version and versions[-1]["history_length"] == record.history_length
    assert set(redis.keys(f"*{mid}*")) <= {key.encode() for key in keys_of(mid)}


# --- the old format ------------------------------------------------------------------------------


def write_old_format(redis: Redis, store: Store, mid: str, missing: int = 0) -> None:
    """Store a match as the old code did (api.store.records/api.store.storage before the compact form): a hash
    of text fields, a list of JSON moves, a list of each version's record as JSON (without its
    first `missing` versions: matches begun before that list existed)."""
    record = store.load(mid)
    versions, entries = store.timeline(record)
    game = get_game(record.game)
    replay, moves = Replay(game, len(record.seats), record.options, entries), []
    while replay.played < len(entries):
        move = replay.peek()[1]
        moves.append(game.move_to_json(move))
        replay.make(move)
    old = {
        "id": record.id, "game": record.game, "version": str(record.version), "status": record.status.value,
        "seats": json.dumps([seat.to_json() for seat in record.seats]), "options": json.dumps(record.options),
        "seed": record.seed, "seeded": "1" if record.seeded else "0",
        "snapshot": json.dumps(record.snapshot, separators=(",", ":")),
        "history_length": str(record.history_length), "created": repr(record.created),
        "updated": repr(record.updated), "lifecycle": json.dumps(record.lifecycle_json(), separators=(",", ":")),
    }
    hash_key, history_key, versions_key = legacy_keys(mid)
    redis.delete(match_key(mid), log_key(mid))
    redis.hset(hash_key, mapping=old)
    redis.rpush(history_key, *[json.dumps(move, separators=(",", ":")) for move in moves])
    redis.rpush(versions_key, *[json.dumps(data, separators=(",", ":")) for data in versions[missing:]])
    for key in legacy_keys(mid):
        redis.expire(key, 3600)


@pytest.mark.parametrize(("finish", "missing"), [(False, 0), (True, 0), (False, 6)])
def test_a_match_of_the_old_format_reads_the_same_and_moves_over_on_its_next_change(
        client, redis: Redis, finish: bool, missing: int) -> None:
    mid, tokens = four_witches(client)
    seen: dict = {}
    rng = random.Random(8)
    play_and_watch(client, mid, tokens, 10_000 if finish else 12, seen, rng)
    store = Store(redis, lambda status: 3600)
    log_before = {seat: client.get(f"/v1/matches/{mid}/log", headers=auth(tokens.get(seat))).get_json()
                  for seat in (None, *tokens)}
    write_old_format(redis, store, mid, missing)
    seen = {(version, seat): live for (version, seat), live in seen.items() if version > missing}
    assert not redis.exists(match_key(mid)) and redis.type(legacy_keys(mid)[0]) == b"hash"
    for (version, seat), live in seen.items():
        if version == max(v for v, _ in seen):
            assert comparable(view(client, mid, tokens.get(seat))) == live
    assert_versions_as_seen(client, mid, tokens, seen)
    for seat, log in log_before.items():
        assert client.get(f"/v1/matches/{mid}/log", headers=auth(tokens.get(seat))).get_json() == log
    if finish:
        assert not redis.exists(match_key(mid))  # nothing changes a finished match: it stays as it was
        return
    play_and_watch(client, mid, tokens, 3, seen, rng)  # the next change moves it over
    assert not any(redis.exists(key) for key in legacy_keys(mid))
    assert redis.exists(match_key(mid)) and redis.llen(log_key(mid)) == view(client, mid)["version"]
    assert_versions_as_seen(client, mid, tokens, seen)
    versions, _ = fold_log(redis.lrange(log_key(mid), 0, -1))
    assert [data["version"] for data in versions] == list(range(1, len(versions) + 1))


def test_idempotency_records_are_fields_of_one_hash_and_older_ones_still_read(redis: Redis) -> None:
    """A key's record is the fingerprint's first 8 bytes and the version, in the match's one hash
    of them (expiring with its last record); the older records, each a key of its own holding the whole answer (plain JSON,
    later zlib-compressed), still read, their answer as `body`."""
    store = Store(redis, lambda status: 3600)
    new = idempotency_key("m0", 0, "new")
    with redis.pipeline(transaction=True) as pipe:
        store.keep_response(pipe, new, "ab" * 32, 7, 60)
        pipe.execute()
    assert redis.hgetall(new.key) == {new.field: b"\xab" * 8 + b"7"} and 0 < redis.ttl(new.key) <= 60
    assert redis.object("encoding", new.key) in (b"listpack", b"ziplist")  # packed (Redis 7, 6): ~25 bytes a record
    assert store.idempotent_response(new) == {"fingerprint": "ab" * 8, "version": 7}
    older = {"fingerprint": "cd" * 32, "body": {"state": {"hand": ["red-1"] * 40}}, "version": 3}
    for name, stored in (("zlib", zlib.compress(json.dumps(older).encode())), ("plain", json.dumps(older))):
        redis.set(idempotency_key("m0", 1, name).legacy, stored)
        assert store.idempotent_response(idempotency_key("m0", 1, name)) == older
    assert store.idempotent_response(idempotency_key("m0", 1, "never")) is None


@pytest.mark.parametrize("game_id", [game.info.id for game in all_games()])
def test_the_moves_possible_depend_on_the_state_alone(game_id: str) -> None:
    """The history stores a move as its index among the moves possible where it was made: that list
    must be the same, in the same order, for a state stepped to and the same state decoded from its
    snapshot (the move path computes indices on the decoded state, a replay on the stepped one)."""
    game = get_game(game_id)
    rng = random.Random(11)
    for players in (game.info.min_players, game.info.max_players):
        state = game.new_state(players, game.validate_options({}))
        while not game.is_terminal(state):
            player = game.current_player(state)
            choices = possible(game, state, player)
            assert possible(game, game.decode(game.encode(state)), player) == choices
            assert possible(game, state.clone(), player) == choices
            game.step(state, rng.choice(choices))


def test_a_move_guarded_by_a_key_already_recorded_is_not_saved(client, redis: Redis) -> None:
    """The compare-and-set script writes nothing when the guard's record exists (another request
    with the same key saved first), though the match is at the version the writes were made for."""
    from api.store.storage import WriteRecorder

    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    mid = created["id"]
    client.post(f"/v1/matches/{mid}/join")
    store, at = Store(redis, lambda status: 3600), view(client, mid)["version"]
    taken, free = idempotency_key(mid, 0, "taken"), idempotency_key(mid, 0, "free")
    with redis.pipeline(transaction=True) as pipe:
        store.keep_response(pipe, taken, "ab" * 32, at, 60)
        pipe.execute()
    for guard, saved in ((taken, False), (free, True)):
        writes = WriteRecorder()
        writes.hset(f"coven:{{m:{mid}}}:probe", "written", "yes")
        assert store.compare_and_set(mid, at, writes, (guard,)) is saved
        assert redis.hget(f"coven:{{m:{mid}}}:probe", "written") == (b"yes" if saved else None)
