"""Match behaviour over HTTP: races, idempotent retries, hidden information, the log, waiting, listing."""

from __future__ import annotations

import json
import threading
import time

import pytest
from api_support import auth, create, play, view

from api.store.history import Replay
from api.store.records import MatchRecord
from api.store.storage import Store, log_key, match_key
from engine import CHANCE, all_games, get_game

GAME_IDS = [game.info.id for game in all_games()]


@pytest.fixture
def duel(client):
    """A two-human witches match: the seat to act leads the first trick from a full hand."""
    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
    return {"id": created["id"], "tokens": {0: created["token"], 1: joined["token"]}}


def to_act(client, duel) -> tuple[int, dict]:
    seat = view(client, duel["id"])["to_act"]
    return seat, view(client, duel["id"], duel["tokens"][seat])


def test_race_on_one_version_applies_exactly_once(app, duel) -> None:
    client = app.test_client()
    seat, mine = to_act(client, duel)
    moves = mine["legal_moves"]
    threads, statuses, played = [], [], []
    barrier = threading.Barrier(8)

    def racer(index: int) -> None:
        local = app.test_client()
        barrier.wait()
        response = play(local, duel["id"], duel["tokens"][seat], moves[index % len(moves)], mine["version"])
        statuses.append(response.status_code)
        if response.status_code == 200:
            played.append((moves[index % len(moves)], response.get_json()))

    for index in range(8):
        threads.append(threading.Thread(target=racer, args=(index,)))
        threads[-1].start()
    for thread in threads:
        thread.join()
    assert sorted(statuses).count(200) == 1
    assert all(status in (200, 409, 412) for status in statuses), statuses
    assert view(client, duel["id"])["version"] == mine["version"] + 1
    # the winner's answer and every later read show the move that was saved, not a loser's
    (move, answer), = played
    after = view(client, duel["id"], duel["tokens"][seat])
    assert (after["state"], after["legal_moves"]) == (answer["state"], answer["legal_moves"])
    log = client.get(f"/v1/matches/{duel['id']}/log", headers=auth(duel["tokens"][seat])).get_json()
    assert [entry["move"] for entry in log["entries"] if not entry["chance"]][-1] == move


def test_idempotent_retry_returns_the_first_response(client, redis, duel) -> None:
    seat, mine = to_act(client, duel)
    assert len(mine["legal_moves"]) > 1, "the test needs a choice of moves"
    move = mine["legal_moves"][0]
    key = {"Idempotency-Key": "retry-me"}
    first = play(client, duel["id"], duel["tokens"][seat], move, mine["version"], headers=key)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    history = redis.llen(log_key(duel["id"]))
    again = play(client, duel["id"], duel["tokens"][seat], move, mine["version"], headers=key)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert redis.llen(log_key(duel["id"])) == history
    assert view(client, duel["id"])["version"] == mine["version"] + 1
    other = play(client, duel["id"], duel["tokens"][seat], mine["legal_moves"][-1], mine["version"], headers=key)
    assert other.status_code == 422 and other.get_json()["title"] == "Idempotency key reused"
    without_key = play(client, duel["id"], duel["tokens"][seat], move, mine["version"])
    assert without_key.status_code == 409
    assert without_key.get_json()["current_version"] == mine["version"] + 1
    unversioned = play(client, duel["id"], duel["tokens"][seat], move)  # the other seat is to act now
    assert unversioned.status_code == 403 and unversioned.get_json()["to_act"] == 1 - seat


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_views_are_the_engine_views_and_leak_nothing(client, redis, game_id: str) -> None:
    game = get_game(game_id)
    n = game.info.min_players
    created = create(client, game_id, [{"type": "human"}] * n)
    tokens = {0: created["token"]}
    for seat in range(1, n):
        tokens[seat] = client.post(f"/v1/matches/{created['id']}/join").get_json()["token"]
    for _ in range(6):
        current = view(client, created["id"])
        if current["status"] == "finished":
            break
        stored = MatchRecord.from_stored(created["id"], redis.get(match_key(created["id"])))
        state = game.decode(stored.snapshot)
        for seat in (None, *tokens):
            response = client.get(f"/v1/matches/{created['id']}", headers=auth(tokens.get(seat)))
            text = response.get_data(as_text=True)
            body = response.get_json()
            assert body["you"] == seat
            assert body["state"] == json.loads(json.dumps(game.view(state, seat)))
            assert stored.seed not in text
            assert "token" not in body and "token_hash" not in text
            for other in tokens:
                hidden = game.view(state, other).get("hand")
                if other != seat and isinstance(hidden, list):
                    mine = game.view(state, seat).get("hand") or [] if seat is not None else []
                    secret = [card for card in hidden if card not in mine]
                    assert not any(json.dumps(card) in json.dumps(body["state"]) for card in secret)
        seat = current["to_act"]
        move = view(client, created["id"], tokens[seat])["legal_moves"][0]
        assert play(client, created["id"], tokens[seat], move, current["version"]).status_code == 200


def test_log_is_redacted_while_running_and_full_after(client, redis, duel) -> None:
    game = get_game("witches")
    mid, tokens = duel["id"], duel["tokens"]
    for _ in range(3):
        seat, mine = to_act(client, duel)
        assert play(client, mid, tokens[seat], mine["legal_moves"][0], mine["version"]).status_code == 200
    store = Store(redis, lambda status: 3600)
    record = store.load(mid)
    _, entries = store.timeline(record)
    replay = Replay(game, 2, record.options, entries)
    history = []
    while replay.played < len(entries):
        history.append(game.move_to_json(replay.peek()[1]))
        replay.make(replay.peek()[1])
    for seat in (None, 0, 1):
        log = client.get(f"/v1/matches/{mid}/log", headers=auth(tokens.get(seat))).get_json()
        assert len(log["entries"]) == len(history)
        state = game.new_state(2, game.validate_options({}))
        for entry, data in zip(log["entries"], history, strict=True):
            move = game.move_from_json(data)
            assert entry["chance"] == (game.current_player(state) == CHANCE)
            assert entry["move"] == json.loads(json.dumps(game.log_entry(state, move, seat)))
            game.step(state, move)
        other_hand = game.view(state, 1 - seat if seat is not None else 0)["hand"]
        if seat is not None:
            own = game.view(state, seat)["hand"]
            assert not set(other_hand) & set(json.dumps(log).split('"')) - set(own)
        else:
            assert not set(other_hand) & set(json.dumps(log).split('"'))


def test_if_none_match_answers_304_until_the_version_moves(client, duel) -> None:
    mid, tokens = duel["id"], duel["tokens"]
    seat, mine = to_act(client, duel)
    tag = f'"{mine["version"]}"'
    for path in (f"/v1/matches/{mid}", f"/v1/matches/{mid}/log"):
        first = client.get(path, headers=auth(tokens[seat]))
        assert first.status_code == 200 and first.headers["ETag"] == tag
        assert "Authorization" in first.headers["Vary"]
        for sent in (tag, f"W/{tag}", f'"0", {tag}', "*"):
            again = client.get(path, headers={**auth(tokens[seat]), "If-None-Match": sent})
            assert again.status_code == 304, sent
            assert again.headers["ETag"] == tag and again.data == b""
        assert client.get(path, headers={"If-None-Match": '"0"'}).status_code == 200
    assert play(client, mid, tokens[seat], mine["legal_moves"][0], mine["version"]).status_code == 200
    moved = client.get(f"/v1/matches/{mid}", headers={**auth(tokens[seat]), "If-None-Match": tag})
    assert moved.status_code == 200 and moved.get_json()["version"] == mine["version"] + 1


def test_if_none_match_never_hides_a_bot_at_work(client) -> None:
    created = create(client, "witches", [{"type": "human"}, {"type": "bot", "level": "easy"}], seed="3")
    mid, token = created["id"], created["token"]
    for _ in range(20):
        current = view(client, mid, token)
        if current["to_act"] == 1:
            break
        assert play(client, mid, token, current["legal_moves"][0], current["version"]).status_code == 200
    assert current["bot"] is not None
    again = client.get(f"/v1/matches/{mid}", headers={**auth(token), "If-None-Match": f'"{current["version"]}"'})
    assert again.status_code == 200 and again.get_json()["bot"]["seat"] == 1  # its progress may move


def test_long_poll_wakes_on_a_move(app, client, duel) -> None:
    seat, mine = to_act(client, duel)
    result = {}

    def waiter() -> None:
        local = app.test_client()
        result["view"] = view(local, duel["id"], after_version=mine["version"], wait=5)

    thread = threading.Thread(target=waiter)
    thread.start()
    assert play(client, duel["id"], duel["tokens"][seat], mine["legal_moves"][0], mine["version"]).status_code == 200
    thread.join(timeout=10)
    assert result["view"]["version"] == mine["version"] + 1
    # a version already passed returns at once
    assert view(client, duel["id"], after_version=0, wait=5)["version"] == mine["version"] + 1


def test_a_quiet_long_poll_ends_in_the_last_part_of_its_wait(client, duel) -> None:
    """No change: the answer comes after 85-100% of `wait` (at random, so crowds of polls spread)."""
    _, mine = to_act(client, duel)
    started = time.monotonic()
    answered = view(client, duel["id"], after_version=mine["version"], wait=2)
    waited = time.monotonic() - started
    assert answered["version"] == mine["version"]
    assert 2 * 0.85 - 0.05 <= waited < 2 + 3.0  # a loaded machine may answer late, never early


def test_event_stream_delivers_the_next_version(app, client, duel) -> None:
    seat, mine = to_act(client, duel)
    response = client.get(f"/v1/matches/{duel['id']}/events", headers=auth(duel["tokens"][1 - seat]),
                          buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    events = []

    def next_match_event() -> dict:
        while True:
            chunk = next(chunks)
            chunk = chunk.decode() if isinstance(chunk, bytes) else chunk
            if "event: match" in chunk:
                lines = dict(line.split(": ", 1) for line in chunk.strip().splitlines())
                events.append(lines)
                return json.loads(lines["data"])

    first = next_match_event()
    assert first["version"] == mine["version"] and first["you"] == 1 - seat
    threading.Timer(0.2, lambda: play(app.test_client(), duel["id"], duel["tokens"][seat],
                                      mine["legal_moves"][0], mine["version"])).start()
    second = next_match_event()
    assert second["version"] == mine["version"] + 1
    assert events[-1]["id"] == str(mine["version"] + 1)
    response.close()


def test_listing_and_filters(client, duel) -> None:
    waiting = create(client, "cube", [{"type": "human"}, {"type": "human"}])
    listed = client.get("/v1/matches").get_json()["matches"]
    assert {row["id"] for row in listed} >= {waiting["id"], duel["id"]}
    only = client.get("/v1/matches?status=waiting&game=cube").get_json()["matches"]
    assert [row["id"] for row in only] == [waiting["id"]] and only[0]["open_seats"] == [1]


def test_join_a_named_seat_and_location(client) -> None:
    response = client.post("/v1/matches", json={"game": "witches", "seats": [{"type": "human"}] * 3})
    assert response.headers["Location"] == f"/v1/matches/{response.get_json()['id']}"
    assert response.headers["ETag"] == f'"{response.get_json()["version"]}"'
    mid = response.get_json()["id"]
    joined = client.post(f"/v1/matches/{mid}/join", json={"seat": 2}).get_json()
    assert joined["you"] == 2 and joined["status"] == "waiting"
    assert client.post(f"/v1/matches/{mid}/join", json={"seat": 2}).status_code == 409
    assert client.post(f"/v1/matches/{mid}/join", json={"seat": 9}).status_code == 422
    assert client.post(f"/v1/matches/{mid}/join").get_json()["status"] == "active"


def test_seeded_matches_replay(client) -> None:
    a = create(client, "witches", [{"type": "human"}, {"type": "bot"}], seed="same")
    b = create(client, "witches", [{"type": "human"}, {"type": "bot"}], seed="same")
    assert a["seeded"] and a["state"] == b["state"]
    c = create(client, "witches", [{"type": "human"}, {"type": "bot"}])
    assert c["seeded"] is False


def test_finished_matches_expire(client, redis, app) -> None:
    service = app.extensions["coven"]
    created = create(client, "cube", [{"type": "human"}, {"type": "bot", "level": "random"}])
    assert 0 < redis.ttl(match_key(created["id"])) <= service.config.IDLE_TTL_SECONDS
    waiting = create(client, "cube", [{"type": "human"}, {"type": "human"}])
    assert 0 < redis.ttl(match_key(waiting["id"])) <= service.config.WAITING_TTL_SECONDS


def test_health_and_catalog(client) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json()["redis"] == "ok"
    games = client.get("/v1/games").get_json()["games"]
    assert {g["id"] for g in games} == set(GAME_IDS)
    assert {level["name"] for level in games[0]["bot_levels"]} >= {"random", "easy", "medium", "hard"}
    hard = {g["id"]: next(lv for lv in g["bot_levels"] if lv["name"] == "hard") for g in games}
    assert hard["witches"]["iterations"] == 15000 and hard["enchanters"]["iterations"] == 9000  # its own
    assert "halving" in hard["enchanters"]["description"]
    witches = client.get("/v1/games/witches").get_json()
    assert witches["options"][0]["default"] and witches["rules"].lstrip().startswith("#")


def test_cors_headers(client) -> None:
    response = client.get("/v1/games", headers={"Origin": "https://example.org"})
    assert response.headers["Access-Control-Allow-Origin"] in ("*", "https://example.org")
