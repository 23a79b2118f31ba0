"""The rendered-view cache (api/service/rendering.py): its bodies equal the schema's dump of a
fresh view, for every seat and version; it never serves another seat's or an older version's view."""

from __future__ import annotations

import random
import time

from api_support import auth, create, play, view

from api.service.presentation import match_view
from api.service.rendering import RenderedViews
from api.web import schemas
from api.web.dumping import view_dumpers


def assert_renders_as_dumped(svc, match_id: str) -> None:
    """Every seat's (and a spectator's) rendered body equals the dump of a freshly built view,
    rendered once (a miss) and again (a hit)."""
    loaded = svc.look(match_id)
    now = time.time()
    for seat in [None, *range(len(loaded.record.seats))]:
        caller = loaded.seen_by(seat)
        expected = schemas.MATCH_VIEW.dump(match_view(svc.store, caller, now))
        assert svc.views.body(svc.store, caller, now) == expected
        assert svc.views.body(svc.store, caller, now) == expected


def steady(body: dict) -> dict:
    """A view without what changes within a version as time passes (time left, presence)."""
    return {**body, "clock": None, "seats": [{**row, "last_seen": None} for row in body["seats"]]}


def play_some(client, svc, created: dict, tokens: dict[int, str], moves: int, seed: int) -> dict:
    """Play up to `moves` random moves of the human seats, checking every version's rendering."""
    rng = random.Random(seed)
    match_id = created["id"]
    current = view(client, match_id)
    for _ in range(moves):
        assert_renders_as_dumped(svc, match_id)
        if current["status"] != "active" or current["to_act"] not in tokens:
            break
        mine = view(client, match_id, tokens[current["to_act"]])
        response = play(client, match_id, tokens[current["to_act"]], rng.choice(mine["legal_moves"]),
                        mine["version"])
        assert response.status_code == 200, response.get_json()
        assert steady(response.get_json()) == steady(view(client, match_id, tokens[current["to_act"]]))
        current = view(client, match_id)
    assert_renders_as_dumped(svc, match_id)
    return current


def two_humans(client, game: str, **extra) -> tuple[dict, dict[int, str]]:
    created = create(client, game, [{"type": "human"}, {"type": "human"}], **extra)
    joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
    return created, {0: created["token"], 1: joined["token"]}


def test_rendered_views_equal_the_schema_dump_at_every_version(app, client) -> None:
    svc = app.extensions["coven"]
    created, tokens = two_humans(client, "witches")
    assert play_some(client, svc, created, tokens, 400, seed=1)["status"] == "finished"
    created, tokens = two_humans(client, "cube", clock={"bank_seconds": 600, "increment_seconds": 5})
    play_some(client, svc, created, tokens, 12, seed=2)
    created, tokens = two_humans(client, "enchanters", clock={"move_seconds": 30})
    play_some(client, svc, created, tokens, 12, seed=3)


def test_rendered_views_show_a_bot_at_work_and_a_waiting_match(app, client) -> None:
    svc = app.extensions["coven"]
    bots = create(client, "witches", [{"type": "bot", "level": "easy"}, {"type": "human"}])
    assert_renders_as_dumped(svc, bots["id"])
    waiting = create(client, "cube", [{"type": "human"}, {"type": "human"}])
    assert_renders_as_dumped(svc, waiting["id"])


def test_each_seat_gets_its_own_view_of_a_version(app, client) -> None:
    """A cache keyed without the seat would hand seat 1 the hand seat 0 saw first."""
    svc = app.extensions["coven"]
    created, tokens = two_humans(client, "witches")
    match_id = created["id"]
    spectator = view(client, match_id)
    first, second = view(client, match_id, tokens[0]), view(client, match_id, tokens[1])
    assert first["version"] == second["version"] == spectator["version"]
    assert first["state"] != second["state"] != spectator["state"]
    loaded = svc.look(match_id)
    for seat, body in ((None, spectator), (0, first), (1, second)):
        assert body["you"] == seat
        assert body["state"] == loaded.game.view(loaded.state, seat)
    assert (first["legal_moves"] == []) != (second["legal_moves"] == [])  # only the seat to act has moves


def test_a_new_version_is_rendered_anew(app, client) -> None:
    """A cache keyed without the version would keep showing the view before the move."""
    svc = app.extensions["coven"]
    created, tokens = two_humans(client, "witches")
    match_id = created["id"]
    before = view(client, match_id, tokens[0])
    mover = before["to_act"]
    mine = view(client, match_id, tokens[mover])
    assert play(client, match_id, tokens[mover], mine["legal_moves"][0], mine["version"]).status_code == 200
    for seat in (0, 1):
        after = view(client, match_id, tokens[seat])
        assert after["version"] == before["version"] + 1
        loaded = svc.look(match_id)
        assert after["state"] == loaded.game.view(loaded.state, seat)
        assert after["to_act"] == loaded.to_act


def test_the_cache_is_bounded(app, client) -> None:
    svc = app.extensions["coven"]
    views = RenderedViews(view_dumpers(), entries=2)
    created, tokens = two_humans(client, "cube")
    loaded = svc.look(created["id"])
    for seat in (None, 0, 1):
        views.body(svc.store, loaded.seen_by(seat))
    assert len(views) == 2


def test_presence_is_written_at_most_once_a_second_per_seat(app, client, redis, monkeypatch) -> None:
    """Presence is shown to the second: polls within a second write it once."""
    from api.service import commands
    from api.store.storage import seen_key

    created, tokens = two_humans(client, "cube")
    match_id = created["id"]
    view(client, match_id, tokens[0])
    first = redis.hget(seen_key(match_id), "0")
    for _ in range(5):
        view(client, match_id, tokens[0])
    assert redis.hget(seen_key(match_id), "0") == first
    monkeypatch.setattr(commands, "PRESENCE_SECONDS", 0.0)
    shown = view(client, match_id, tokens[0])
    assert redis.hget(seen_key(match_id), "0") != first
    assert shown["seats"][0]["last_seen"] is not None
    assert client.get(f"/v1/matches/{match_id}", headers=auth(tokens[1])).status_code == 200
    assert redis.hget(seen_key(match_id), "1") is not None
