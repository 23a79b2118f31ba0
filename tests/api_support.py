"""Helpers for the HTTP tests: create, join, view and play matches through a Flask test client."""

from __future__ import annotations

import json
import random
from typing import Any

from flask.testing import FlaskClient

MAX_TURNS = 3000


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def create(client: FlaskClient, game: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    response = client.post("/v1/matches", json={"game": game, "seats": seats, **extra})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def view(client: FlaskClient, match_id: str, token: str | None = None, **query: Any) -> dict[str, Any]:
    response = client.get(f"/v1/matches/{match_id}", headers=auth(token), query_string=query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def play(client: FlaskClient, match_id: str, token: str, move: Any, version: int | None = None,
         headers: dict[str, str] | None = None):
    body: dict[str, Any] = {"move": move}
    if version is not None:
        body["version"] = version
    return client.post(f"/v1/matches/{match_id}/moves", json=body,
                       headers={**auth(token), **(headers or {})})


def play_out(client: FlaskClient, match_id: str, tokens: dict[int, str], run_bots=None,
             seed: int = 0) -> dict[str, Any]:
    """Play random legal moves for the human seats (and run bot turns) until the match ends."""
    rng = random.Random(seed)
    for _ in range(MAX_TURNS):
        if run_bots is not None:
            run_bots()
        current = view(client, match_id)
        if current["status"] == "finished":
            return current
        seat = current["to_act"]
        assert seat in tokens, f"seat {seat} is to act but is not ours (bot stuck?): {current['bot']}"
        mine = view(client, match_id, tokens[seat])
        assert mine["legal_moves"], "the seat to act has no legal moves"
        move = rng.choice(mine["legal_moves"])
        response = play(client, match_id, tokens[seat], move, mine["version"])
        assert response.status_code == 200, response.get_json()
    raise AssertionError("the match did not end")


def race(app, match_id: str, token: str, moves: list[Any], version: int, racers: int = 8) -> list[int]:
    """`racers` threads post a move (each its own) at the same `version` at once; their statuses."""
    import threading

    barrier = threading.Barrier(racers)
    statuses: list[int] = []

    def racer(index: int) -> None:
        local = app.test_client()
        barrier.wait()
        statuses.append(play(local, match_id, token, moves[index % len(moves)], version).status_code)

    threads = [threading.Thread(target=racer, args=(index,)) for index in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def match_events(client, match_id: str, headers: dict[str, str], until: int, **query) -> list[dict]:
    """The `match` events of a stream (with their ids) up to version `until`."""
    response = client.get(f"/v1/matches/{match_id}/events", headers=headers, query_string=query,
                          buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    events = []
    try:
        for chunk in response.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            for block in text.split("\n\n"):
                lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
                if lines.get("event") == "match":
                    data = json.loads(lines["data"])
                    assert lines["id"] == str(data["version"])
                    events.append(data)
            if events and events[-1]["version"] >= until:
                break
    finally:
        response.close()
    return events
