"""Every error status comes back as problem+json; no request body, however malformed, causes a 500."""

from __future__ import annotations

import json

import pytest
from api_support import auth, create, play, view
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PROBLEM = "application/problem+json"


def assert_problem(response, status: int) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = response.get_json(force=True)
    assert body["status"] == status and body["title"] and body["type"] and body["detail"]
    return body


@pytest.fixture
def duel(client):
    """A human-vs-human witches match, both seats taken."""
    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
    return {"id": created["id"], "tokens": {0: created["token"], 1: joined["token"]}}


def test_400_invalid_json_and_bad_query(client) -> None:
    assert_problem(client.post("/v1/matches", data="{", content_type="application/json"), 400)
    assert_problem(client.post("/v1/matches", data="[1, 2]", content_type="application/json"), 400)
    assert_problem(client.post("/v1/matches", data=b"\xff\xfe", content_type="application/json"), 400)
    body = assert_problem(client.get("/v1/matches?status=bogus"), 400)
    assert "status" in body["errors"]


def test_401_wrong_or_missing_token(client, duel) -> None:
    mid = duel["id"]
    response = client.get(f"/v1/matches/{mid}", headers=auth("not-a-token"))
    assert_problem(response, 401)
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert_problem(client.get(f"/v1/matches/{mid}", headers={"Authorization": "Basic abc"}), 401)
    assert_problem(client.post(f"/v1/matches/{mid}/moves", json={"move": {}}), 401)
    other = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    assert_problem(client.get(f"/v1/matches/{mid}", headers=auth(other["token"])), 401)


def test_403_not_your_turn_and_not_active(client, duel) -> None:
    mid, tokens = duel["id"], duel["tokens"]
    current = view(client, mid)
    waiting_seat = 1 - current["to_act"]
    move = view(client, mid, tokens[current["to_act"]])["legal_moves"][0]
    body = assert_problem(play(client, mid, tokens[waiting_seat], move), 403)
    assert body["to_act"] == current["to_act"]
    lonely = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    assert_problem(play(client, lonely["id"], lonely["token"], move), 403)


def test_404_unknown_match_game_and_route(client) -> None:
    assert_problem(client.get("/v1/matches/nope"), 404)
    assert_problem(client.post("/v1/matches/nope/moves", json={"move": {}}, headers=auth("x")), 404)
    assert_problem(client.post("/v1/matches/nope/join"), 404)
    assert_problem(client.get("/v1/games/chess"), 404)
    assert_problem(client.get("/v2/nothing"), 404)


def test_405_method_not_allowed(client) -> None:
    response = client.delete("/v1/matches")
    assert_problem(response, 405)
    assert "POST" in response.headers["Allow"]


def test_409_stale_version_and_full_match(client, duel) -> None:
    mid, tokens = duel["id"], duel["tokens"]
    current = view(client, mid)
    seat = current["to_act"]
    move = view(client, mid, tokens[seat])["legal_moves"][0]
    body = assert_problem(play(client, mid, tokens[seat], move, version=current["version"] - 1), 409)
    assert body["current_version"] == current["version"]
    assert_problem(client.post(f"/v1/matches/{mid}/join"), 409)


def test_412_stale_if_match(client, duel) -> None:
    mid, tokens = duel["id"], duel["tokens"]
    current = view(client, mid)
    seat = current["to_act"]
    move = view(client, mid, tokens[seat])["legal_moves"][0]
    stale = {"If-Match": f'"{current["version"] - 1}"'}
    assert_problem(play(client, mid, tokens[seat], move, headers=stale), 412)
    fresh = {"If-Match": f'"{current["version"]}"'}
    response = play(client, mid, tokens[seat], move, headers=fresh)
    assert response.status_code == 200
    assert response.headers["ETag"] == f'"{current["version"] + 1}"'


def test_413_huge_body(client) -> None:
    huge = json.dumps({"game": "witches", "seats": [], "pad": "x" * 200_000})
    assert_problem(client.post("/v1/matches", data=huge, content_type="application/json"), 413)


def test_415_wrong_content_type(client) -> None:
    assert_problem(client.post("/v1/matches", data="game=witches", content_type="text/plain"), 415)


def test_422_fields_options_and_illegal_move(client, duel) -> None:
    body = assert_problem(client.post("/v1/matches", json={"seats": "two", "colour": 1}), 422)
    assert {"game", "seats", "colour"} <= set(body["errors"])
    body = assert_problem(client.post("/v1/matches", json={"game": "chess", "seats": [{"type": "human"}]}), 422)
    assert "game" in body["errors"]
    body = assert_problem(client.post("/v1/matches", json={"game": "witches", "seats": [{"type": "human"}]}), 422)
    assert "seats" in body["errors"]
    two = [{"type": "human"}, {"type": "bot", "level": "impossible"}]
    assert_problem(client.post("/v1/matches", json={"game": "witches", "seats": two}), 422)
    body = assert_problem(client.post("/v1/matches", json={
        "game": "witches", "seats": [{"type": "human"}, {"type": "human"}], "options": {"wheel": "sideways"}}), 422)
    assert "wheel" in body["errors"]["options"]
    mid, tokens = duel["id"], duel["tokens"]
    current = view(client, mid)
    seat = current["to_act"]
    mine = view(client, mid, tokens[seat])
    body = assert_problem(play(client, mid, tokens[seat], {"type": "dance"}), 422)
    assert "move" in body["errors"]
    trump = mine["state"]["trump"]  # on the table, never in a hand: well-formed but illegal
    body = assert_problem(play(client, mid, tokens[seat], {"type": "play", "card": trump}), 422)
    assert body["rule"] and body["legal_moves"] == mine["legal_moves"]
    assert view(client, mid)["version"] == current["version"]


def test_500_is_problem_json(app) -> None:
    @app.get("/boom")
    def boom():
        raise RuntimeError("kaboom")

    body = assert_problem(app.test_client().get("/boom"), 500)
    assert "kaboom" not in json.dumps(body)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
FIELDS = st.sampled_from(["game", "seats", "options", "seed", "seat", "move", "version", "type", "level", "card"])
BODIES = st.one_of(
    JSON,
    st.dictionaries(FIELDS, JSON, max_size=4),
    st.fixed_dictionaries({"move": st.dictionaries(FIELDS, JSON, max_size=3)},
                          optional={"version": JSON}),
    st.fixed_dictionaries({"game": st.sampled_from(["witches", "cube", "x"]),
                           "seats": st.lists(st.dictionaries(FIELDS, JSON, max_size=3), max_size=7)},
                          optional={"options": JSON, "seed": JSON}),
)


def test_no_body_makes_a_500(client, duel) -> None:
    mid, tokens = duel["id"], duel["tokens"]
    routes = ["/v1/matches", f"/v1/matches/{mid}/join", f"/v1/matches/{mid}/moves"]

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(route=st.sampled_from(routes), body=BODIES, seat=st.sampled_from([0, 1]),
           raw=st.booleans(), junk=st.binary(max_size=40),
           content_type=st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded"]))
    def post_anything(route, body, seat, raw, junk, content_type) -> None:
        data = junk if raw else json.dumps(body)
        response = client.post(route, data=data, content_type=content_type, headers=auth(tokens[seat]))
        assert response.status_code < 500, response.get_data(as_text=True)
        if response.status_code >= 400:
            assert response.mimetype == PROBLEM

    post_anything()


def test_503_when_redis_is_unreachable(redis_url) -> None:
    from conftest import free_port

    from api import create_app
    from api.runtime.config import Config

    app = create_app(Config(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0"))
    response = app.test_client().get("/v1/matches/abc")
    assert_problem(response, 503)
    assert response.headers["Retry-After"] == "5"
    assert app.test_client().get("/readyz").status_code == 503
