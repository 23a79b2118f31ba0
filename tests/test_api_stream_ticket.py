"""Stream tickets: a seat trades its token for a short-lived, single-use ticket that opens that
seat's event stream from a browser's EventSource, which cannot send Authorization."""

from __future__ import annotations

import json

import pytest
from api_support import auth, create

from api.store.storage import ticket_key


@pytest.fixture
def duel(client):
    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
    return {"id": created["id"], "tokens": {0: created["token"], 1: joined["token"]}}


def ticket_for(client, match_id: str, token: str | None):
    return client.post(f"/v1/matches/{match_id}/stream-ticket", headers=auth(token))


def first_view(client, match_id: str, query: str):
    """The first `event: match` of a stream (then the stream is closed), or the error answer."""
    response = client.get(f"/v1/matches/{match_id}/events?{query}", buffered=False)
    if response.status_code != 200:
        return response.status_code, response.get_json()
    try:
        for chunk in response.response:
            chunk = chunk.decode() if isinstance(chunk, bytes) else chunk
            if "event: match" in chunk:
                lines = dict(line.split(": ", 1) for line in chunk.strip().splitlines())
                return 200, json.loads(lines["data"])
    finally:
        response.close()
    raise AssertionError("the stream sent no view")


def test_a_ticket_opens_its_seats_own_stream_once(client, duel) -> None:
    answer = ticket_for(client, duel["id"], duel["tokens"][1])
    assert answer.status_code == 201 and answer.headers["Cache-Control"] == "no-store"
    body = answer.get_json()
    assert body["seat"] == 1 and body["expires_in"] == 60 and len(body["ticket"]) >= 32
    assert duel["tokens"][1] not in body["ticket"]

    status, view = first_view(client, duel["id"], f"ticket={body['ticket']}")
    assert status == 200 and view["you"] == 1 and "hand" in view["state"]
    status, problem = first_view(client, duel["id"], f"ticket={body['ticket']}")  # spent
    assert status == 401 and problem["title"] == "Invalid stream ticket"


def test_a_ticket_needs_a_seat_token(client, duel) -> None:
    assert ticket_for(client, duel["id"], None).status_code == 401
    assert ticket_for(client, duel["id"], "not-a-token").status_code == 401
    assert ticket_for(client, "nosuchmatch", duel["tokens"][0]).status_code == 404


def test_a_ticket_is_scoped_to_its_match_and_expires(client, duel, redis) -> None:
    other = create(client, "cube", [{"type": "human"}, {"type": "human"}])
    ticket = ticket_for(client, duel["id"], duel["tokens"][0]).get_json()["ticket"]
    assert first_view(client, other["id"], f"ticket={ticket}")[0] == 401
    ttl = redis.ttl(ticket_key(duel["id"], ticket))
    assert 0 < ttl <= 60
    assert redis.get(ticket_key(duel["id"], ticket)) == b"0"  # stored by hash, under the match's slot
    assert ticket not in {key.decode() for key in redis.keys("*")}
    redis.delete(ticket_key(duel["id"], ticket))  # as if it had expired
    assert first_view(client, duel["id"], f"ticket={ticket}")[0] == 401
    assert first_view(client, duel["id"], "ticket=")[0] == 401


def test_without_a_ticket_the_stream_is_the_spectators(client, duel) -> None:
    status, view = first_view(client, duel["id"], "")
    assert status == 200 and view["you"] is None and view["legal_moves"] == []
