"""Every header, whatever its bytes or length, gets an answer below 500 (problem+json when refused);
CORS answers only the configured origins, methods and headers."""

from __future__ import annotations

import json

import pytest
from api_support import auth, create, play, view
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_api_errors import PROBLEM, assert_problem

ODD_VALUES = ['"²"', "²", "5" * 5000, '"' + "5" * 5000 + '"', "W/\"-1\"", "", " ", "\t", '"3", "4"', '"3',
              "\u00ff\u00fe", "*", '""', "x" * 9000, "0x10", "1e3", "٣", "¹"]


@pytest.fixture
def duel(client):
    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
    return {"id": created["id"], "tokens": {0: created["token"], 1: joined["token"]}}


def _to_act(client, duel):
    current = view(client, duel["id"])
    seat = current["to_act"]
    token = duel["tokens"][seat]
    return token, view(client, duel["id"], token)


@pytest.mark.parametrize("value", ODD_VALUES)
def test_odd_if_match_is_400_never_500(client, duel, value) -> None:
    token, mine = _to_act(client, duel)
    response = play(client, duel["id"], token, mine["legal_moves"][0], headers={"If-Match": value})
    if value == "*":
        assert response.status_code == 200
    else:
        body = assert_problem(response, 400)
        assert "If-Match" in body["detail"] and len(body["detail"]) < 200


@pytest.mark.parametrize("value", ODD_VALUES)
def test_odd_if_none_match_never_500(client, duel, value) -> None:
    for path in (f"/v1/matches/{duel['id']}", f"/v1/matches/{duel['id']}/log"):
        response = client.get(path, headers={"If-None-Match": value})
        assert response.status_code in (200, 304), response.get_data(as_text=True)


@pytest.mark.parametrize("value", ODD_VALUES)
def test_odd_last_event_id_is_400_never_500(client, duel, value) -> None:
    response = client.get(f"/v1/matches/{duel['id']}/events", headers={"Last-Event-ID": value},
                          buffered=False)
    try:
        if value == "":
            assert response.status_code == 200
        else:
            body = assert_problem(response, 400)
            assert "Last-Event-ID" in body["detail"] and len(body["detail"]) < 200
    finally:
        response.close()


@pytest.mark.parametrize("value", ODD_VALUES + ["Bearer", "Bearer ²", "Bearer " + "x" * 9000, "bearer  "])
def test_odd_authorization_is_401_never_500(client, duel, value) -> None:
    response = client.get(f"/v1/matches/{duel['id']}", headers={"Authorization": value})
    assert_problem(response, 401)


def test_idempotency_key_past_its_maximum_is_refused_not_cut(client, duel) -> None:
    token, mine = _to_act(client, duel)
    move = mine["legal_moves"][0]
    for key in ("k" * 256, "k" * 5000, "clé", "", "a b"):
        body = assert_problem(play(client, duel["id"], token, move, headers={"Idempotency-Key": key}), 400)
        assert "Idempotency-Key" in body["detail"]
    assert view(client, duel["id"])["version"] == mine["version"]
    # Two keys alike in their first 200 characters are two keys.
    first, second = "k" * 200 + "-first", "k" * 200 + "-second"
    assert play(client, duel["id"], token, move, mine["version"], headers={"Idempotency-Key": first}).status_code == 200
    token, mine = _to_act(client, duel)
    replay = play(client, duel["id"], token, mine["legal_moves"][0], mine["version"],
                  headers={"Idempotency-Key": second})
    assert replay.status_code == 200 and "Idempotent-Replayed" not in replay.headers
    longest = "k" * 255
    token, mine = _to_act(client, duel)
    assert play(client, duel["id"], token, mine["legal_moves"][0], mine["version"],
                headers={"Idempotency-Key": longest}).status_code == 200


def test_412_is_not_answered_before_401(client, duel) -> None:
    token, mine = _to_act(client, duel)
    response = client.post(f"/v1/matches/{duel['id']}/moves", json={"move": mine["legal_moves"][0]},
                           headers={"If-Match": '"0"'})
    assert_problem(response, 401)


def test_deep_json_is_named_as_such(client) -> None:
    for depth in (40, 5000, 100_000):
        data = "[" * depth + "]" * depth
        body = assert_problem(client.post("/v1/matches", data='{"game": ' + data + "}",
                                          content_type="application/json"), 400 if depth < 20000 else 413)
        if depth < 20000:
            assert "deeper than 32 levels" in body["detail"]



def test_bodies_read_as_the_standard_library_reads_them(app) -> None:
    """Bodies are parsed by orjson, and what it refuses by json (api/http.py): the same data, the
    same errors, nesting counted only when the brackets could reach the limit."""
    from api.web.errors import BadRequestBody
    from api.web.http import load_body
    from api.web.schemas import MOVE_REQUEST

    nested = {"type": "x", "deep": [[[[1]]]]}
    for raw in ('{"move": {"type": "roll"}, "version": 3}', '{"move": {"n": NaN, "big": 123456789012345678901234567890}}',
                json.dumps({"move": nested}),
                '{"move": 1, "move": 2}'):
        with app.test_request_context("/", method="POST", data=raw, content_type="application/json"):
            data = load_body(MOVE_REQUEST)
        assert json.dumps(data) == json.dumps(MOVE_REQUEST.load(json.loads(raw)))
    for raw, detail in (('{"move": 1', "not valid JSON"), ("[1]", "JSON object"),
                        ('{"move": ' + "[" * 33 + "]" * 33 + "}", "deeper than 32")):
        with (app.test_request_context("/", method="POST", data=raw, content_type="application/json"),
              pytest.raises(BadRequestBody) as refused):
            load_body(MOVE_REQUEST)
        assert detail in str(refused.value)


HEADER_TEXT = st.text(st.characters(min_codepoint=1, max_codepoint=0xFF, exclude_characters="\r\n"),
                      max_size=300)


def test_no_header_makes_a_500(client, duel) -> None:
    mid, tokens = duel["id"], duel["tokens"]
    names = ["If-Match", "If-None-Match", "Last-Event-ID", "Idempotency-Key", "Authorization",
             "X-Request-ID", "X-Forwarded-For", "Origin", "Content-Type", "Accept"]

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(name=st.sampled_from(names), value=HEADER_TEXT, seat=st.sampled_from([0, 1]),
           route=st.sampled_from(["view", "log", "move", "events", "create"]))
    def send(name, value, seat, route) -> None:
        headers = {**auth(tokens[seat]), name: value}
        if route == "move":
            response = client.post(f"/v1/matches/{mid}/moves", data=json.dumps({"move": {"type": "x"}}),
                                   content_type="application/json", headers=headers)
        elif route == "create":
            response = client.post("/v1/matches", json={"game": "cube", "seats": [{"type": "human"}] * 2},
                                   headers=headers)
        else:
            suffix = {"view": "", "log": "/log", "events": "/events"}[route]
            response = client.get(f"/v1/matches/{mid}{suffix}", headers=headers, buffered=False)
        try:
            assert response.status_code < 500, response.get_data(as_text=True)
            if response.status_code >= 400:
                assert response.mimetype == PROBLEM
        finally:
            response.close()

    send()


def test_cors_answers_configured_origins_only(app_with) -> None:
    client = app_with(CORS_ORIGINS=("https://cards.example",)).test_client()
    preflight = {"Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "Authorization, Content-Type, Idempotency-Key"}
    good = client.options("/v1/matches", headers={"Origin": "https://cards.example", **preflight})
    assert good.headers["Access-Control-Allow-Origin"] == "https://cards.example"
    methods = {m.strip() for m in good.headers["Access-Control-Allow-Methods"].split(",")}
    assert methods == {"GET", "POST", "DELETE"}  # DELETE /v1/matches/{id} cancels; no PUT or PATCH
    evil = client.options("/v1/matches", headers={"Origin": "https://evil.example", **preflight})
    assert "Access-Control-Allow-Origin" not in evil.headers
    read = client.get("/v1/games", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in read.headers


def test_cors_wildcard_is_not_a_reflection(app_with) -> None:
    client = app_with(CORS_ORIGINS=("*",)).test_client()
    read = client.get("/v1/games", headers={"Origin": "https://anyone.example"})
    assert read.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in read.headers
    exposed = read.headers["Access-Control-Expose-Headers"]
    assert "RateLimit" in exposed and "X-Request-ID" in exposed and "ETag" in exposed


def test_cors_answers_are_remembered_per_origin_exactly(app_with) -> None:
    """The headers remembered per Origin (api/__init__.py) are flask-cors's own, for each origin:
    a second request from an origin gets what the first got, another origin its own answer."""
    import flask_cors

    client = app_with(CORS_ORIGINS=("https://cards.example", "https://dice.example")).test_client()

    def cors_headers(origin: str | None) -> list[tuple[str, str]]:
        headers = {"Origin": origin} if origin else {}
        response = client.get("/v1/games", headers=headers)
        return sorted((k, v) for k, v in response.headers if k.startswith("Access-Control") or k == "Vary")

    first = {origin: cors_headers(origin) for origin in ("https://cards.example", "https://dice.example",
                                                          "https://evil.example", None)}
    assert ("Access-Control-Allow-Origin", "https://cards.example") in first["https://cards.example"]
    assert ("Access-Control-Allow-Origin", "https://dice.example") in first["https://dice.example"]
    assert not any(k == "Access-Control-Allow-Origin" for k, _ in first["https://evil.example"])
    for origin, headers in first.items():
        assert cors_headers(origin) == headers
    # and they are what flask-cors itself answers
    bare = app_with(CORS_ORIGINS=()).test_client().application
    flask_cors.CORS(bare, origins=["https://cards.example", "https://dice.example"], vary_header=True,
                    expose_headers=["ETag", "Location", "Idempotent-Replayed", "Link", "Retry-After",
                                    "RateLimit", "RateLimit-Policy", "X-Request-ID"])
    plain = bare.test_client().get("/v1/games", headers={"Origin": "https://cards.example"})
    assert sorted((k, v) for k, v in plain.headers
                  if k.startswith("Access-Control") or k == "Vary") == first["https://cards.example"]
