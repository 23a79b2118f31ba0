"""Nothing of a hand exists before the match starts: the deal happens when the last seat is filled.

Over HTTP, for every game: a seat joined, read and left learns nothing of the hand its next
holder is dealt; whatever a seat or a spectator can read while a match waits is the same under
any seed (all but the commitment); the commitment is fixed before anything is dealt; and the
deal replays from the revealed seed and the log.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from api_support import auth, create, match_events, view
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.service import commands
from api.store.storage import Store
from engine import CHANCE, all_games, get_game, resolve_chance
from engine.fairness import commitment
from engine.verify import verify

GAMES = [game.info.id for game in all_games()]
HIDDEN = [game.info.id for game in all_games() if game.info.hidden_information]


def join(client, match_id: str, **body: Any) -> dict[str, Any]:
    response = client.post(f"/v1/matches/{match_id}/join", json=body)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def reads(client, match_id: str, token: str | None) -> dict[str, Any]:
    """Everything a seat (None: a spectator) can read of a match: its view, its legal moves, the
    log, every version, and the event stream from the start."""
    current = client.get(f"/v1/matches/{match_id}", headers=auth(token))
    assert current.status_code == 200
    version = current.get_json()["version"]
    return {
        "view": current.get_json(),
        "etag": current.headers.get("ETag"),
        "moves": client.get(f"/v1/matches/{match_id}/moves", headers=auth(token)).get_json(),
        "log": client.get(f"/v1/matches/{match_id}/log", headers=auth(token)).get_json(),
        "versions": [client.get(f"/v1/matches/{match_id}/versions/{number}", headers=auth(token)).get_json()
                     for number in range(1, version + 1)],
        "events": match_events(client, match_id, {**auth(token), "Last-Event-ID": "0"}, version),
    }


def hidden_before_deal(game_id: str, players: int, options: dict[str, Any], seat: int | None) -> dict:
    """What `seat` sees of the game before the deal: the same for every seed."""
    game = get_game(game_id)
    return game.view(game.new_state(players, options), seat)


@pytest.mark.parametrize("game_id", HIDDEN)
def test_a_seat_joined_read_and_left_learns_nothing_of_the_hand_dealt_to_it(client, redis, game_id) -> None:
    created = create(client, game_id, [{"type": "human"}] * 3)
    match_id, options = created["id"], created["options"]
    spy = join(client, match_id, seat=1)
    seen = reads(client, match_id, spy["token"])
    before = hidden_before_deal(game_id, 3, options, 1)
    assert spy["state"] == before and seen["view"]["state"] == before
    assert seen["moves"]["legal_moves"] == [] and seen["log"]["entries"] == [] and seen["log"]["length"] == 0
    assert all(past["state"] == before for past in seen["versions"])
    assert all(event["state"] == before for event in seen["events"])
    # nothing is dealt in storage either: the waiting match's state is the game's initial one
    record = Store(redis, lambda status: 60).load(match_id)
    assert record is not None and record.history_length == 0
    game = get_game(game_id)
    assert record.snapshot == game.encode(game.new_state(3, options))
    assert client.post(f"/v1/matches/{match_id}/leave", headers=auth(spy["token"])).status_code == 200
    victim = join(client, match_id, seat=1)
    assert victim["status"] == "waiting" and victim["state"] == before
    last = join(client, match_id, seat=2)
    assert last["status"] == "active" and last["fairness"] == created["fairness"]
    dealt = view(client, match_id, victim["token"])["state"]
    assert dealt != before  # the victim's hand exists now, and only now
    log = client.get(f"/v1/matches/{match_id}/log").get_json()
    assert log["entries"] and all(entry["chance"] for entry in log["entries"])


def normalized(data: Any, names: dict[str, str]) -> Any:
    """`data` with what differs between two matches whatever their seeds (ids, tokens, times) and
    the commitment replaced by placeholders."""
    if isinstance(data, dict):
        return {key: "<varies>" if key in ("created", "updated", "last_seen", "commitment", "token")
                else normalized(value, names) for key, value in data.items()}
    if isinstance(data, list):
        return [normalized(value, names) for value in data]
    if isinstance(data, str):
        for name, placeholder in names.items():
            data = data.replace(name, placeholder)
    return data


ACTIONS = st.lists(st.tuples(st.sampled_from(["join", "leave", "read"]), st.integers(0, 5)), max_size=6)


def waiting_match_script(client, game_id: str, players: int, options: dict[str, Any], seed: str,
                         script: list[tuple[str, int]]) -> tuple[list[Any], str]:
    """Run `script` on a new waiting match whose secret seed is `seed`, never filling its last seat:
    everything read (normalized), and the commitment every read showed."""
    with mock.patch.object(commands, "new_seed", lambda: seed):
        created = create(client, game_id, [{"type": "human"}] * players, options=options)
    match_id = created["id"]
    held = {0: created["token"]}
    names = {match_id: "<match>"}
    shown = [normalized(created, names)]
    commitments = {created["fairness"]["commitment"]}
    for action, number in [*script, ("read", 0)]:
        if action == "join" and len(held) < players - 1:
            body = {"seat": number} if number < players else {}  # a seat, perhaps a taken one; or the first open
            response = client.post(f"/v1/matches/{match_id}/join", json=body)
            if response.status_code == 200:
                held[response.get_json()["you"]] = response.get_json()["token"]
            shown.append((response.status_code, normalized(response.get_json(), names)))
        elif action == "leave" and len(held) > 1:
            seat = sorted(held)[1 + number % (len(held) - 1)]
            left = client.post(f"/v1/matches/{match_id}/leave", headers=auth(held.pop(seat)))
            shown.append((left.status_code, normalized(left.get_json(), names)))
        elif action == "read":
            for token in [None, *held.values()]:
                seen = reads(client, match_id, token)
                commitments |= {seen["view"]["fairness"]["commitment"], seen["log"]["fairness"]["commitment"]}
                shown.append(normalized(seen, names))
    status = view(client, match_id)["status"]
    assert status == "waiting", "the script must leave the match waiting"
    assert len(commitments) == 1
    return shown, commitments.pop()


@pytest.mark.parametrize("game_id", GAMES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), script=ACTIONS, seeds=st.lists(st.binary(min_size=8, max_size=8), min_size=2,
                                                      max_size=2, unique=True))
def test_what_anyone_reads_of_a_waiting_match_is_the_same_under_any_seed(client, game_id, data, script,
                                                                         seeds) -> None:
    game = get_game(game_id)
    players = data.draw(st.integers(max(3, game.info.min_players), min(4, game.info.max_players)))
    options = {spec.name: data.draw(st.sampled_from(spec.choices)) for spec in game.info.options if spec.choices}
    first, committed_first = waiting_match_script(client, game_id, players, options, seeds[0].hex(), script)
    second, committed_second = waiting_match_script(client, game_id, players, options, seeds[1].hex(), script)
    assert first == second
    assert committed_first != committed_second  # the commitment is there, and binds the seed


@pytest.mark.parametrize("game_id", GAMES)
def test_the_deal_after_the_last_join_replays_from_the_seed_and_the_log(client, game_id) -> None:
    seed = "5e" * 32
    with mock.patch.object(commands, "new_seed", lambda: seed):
        created = create(client, game_id, [{"type": "human"}] * 3)
    match_id, options = created["id"], created["options"]
    assert created["fairness"]["commitment"] == commitment(seed, game_id, options, 3)  # fixed before the deal
    tokens = {0: created["token"], 1: join(client, match_id)["token"], 2: join(client, match_id)["token"]}
    game = get_game(game_id)
    state, dealt = resolve_chance(game, game.new_state(3, options), seed, 0)
    started = {seat: view(client, match_id, token) for seat, token in tokens.items()}
    assert all(seen["state"] == game.view(state, seat) for seat, seen in started.items())
    for seat in (1, 2):  # end it without playing: the deal is the whole log
        assert client.post(f"/v1/matches/{match_id}/resign", headers=auth(tokens[seat])).status_code == 200
    document = client.get(f"/v1/matches/{match_id}/log").get_json()
    assert document["status"] == "finished" and document["fairness"]["seed"] == seed
    assert document["fairness"]["commitment"] == created["fairness"]["commitment"]
    assert [entry["move"] for entry in document["entries"]] == [game.move_to_json(move) for move in dealt]
    assert all(entry["chance"] for entry in document["entries"]) and game.current_player(state) != CHANCE
    assert verify(document) is None


@pytest.mark.parametrize("game_id", HIDDEN)
def test_a_rematch_deals_when_its_last_seat_is_claimed(client, game_id) -> None:
    created = create(client, game_id, [{"type": "human"}, {"type": "human"}])
    match_id = created["id"]
    tokens = {0: created["token"], 1: join(client, match_id)["token"]}
    assert client.post(f"/v1/matches/{match_id}/resign", headers=auth(tokens[1])).status_code == 200
    first = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[0])).get_json()
    before = hidden_before_deal(game_id, 2, created["options"], first["you"])
    assert first["status"] == "waiting" and first["state"] == before
    assert client.get(f"/v1/matches/{first['id']}/log").get_json()["entries"] == []
    second = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[1])).get_json()
    assert second["id"] == first["id"] and second["status"] == "active"
    assert view(client, first["id"], first["token"])["state"] != before
    assert second["fairness"]["commitment"] == first["fairness"]["commitment"]


def test_a_match_full_at_creation_is_dealt_at_once(client) -> None:
    created = create(client, "witches", [{"type": "human"}, {"type": "bot", "level": "random"}])
    assert created["status"] == "active"
    assert created["state"] != hidden_before_deal("witches", 2, created["options"], 0)
    assert client.get(f"/v1/matches/{created['id']}/log").get_json()["entries"]
