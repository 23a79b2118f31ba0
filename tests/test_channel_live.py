"""The WebSocket channel end to end: real gunicorn (gevent workers, gunicorn.conf.py), Redis and
an RQ bot worker; every seat a WebSocket client playing legal moves. A full match of every game,
a reconnect in the middle of a match that resumes by version, and a web process killed under a
connected seat, whose client goes on through another web process on the same Redis."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest
from simple_websocket import Client, ConnectionClosed

from engine import all_games
from tests.conftest import ROOT, UNTHROTTLED, answers, free_port, serving

GAMES = [game.info.id for game in all_games()]
ENDED = {"finished", "cancelled", "abandoned"}


def stack_env(redis_url: str, port: int) -> dict[str, str]:
    return {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "WEB_CONCURRENCY": "1", "BOT_WORKERS": "1",
            **{name: str(value) for name, value in UNTHROTTLED.items()}}


def gunicorn(env: dict[str, str]) -> list[str]:
    return [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "wsgi:app"]


@pytest.fixture(scope="module")
def web(redis_url: str) -> Iterator[str]:
    """One gunicorn web process and one bot worker on the session's Redis."""
    port = free_port()
    env = stack_env(redis_url, port)
    worker = subprocess.Popen([sys.executable, "-m", "api.jobs.worker"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_worker(redis_url)  # a bot turn queued before it starts would wait for it
        with serving(gunicorn(env), env, port) as url:
            yield url
    finally:
        worker.terminate()
        worker.wait(timeout=30)


def call(method: str, url: str, body: dict | None = None, token: str | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers, method=method),
                                timeout=30) as answer:
        return json.load(answer)


def new_match(base: str, game: str, bot: bool = True) -> tuple[str, list[str]]:
    """A started match of two human seats (and a random bot after them); its id and the tokens."""
    seats = [{"type": "human"}, {"type": "human"}] + ([{"type": "bot", "level": "random"}] if bot else [])
    created = call("POST", f"{base}/v1/matches", {"game": game, "seats": seats})
    joined = call("POST", f"{base}/v1/matches/{created['id']}/join", {"name": "Viviane"})
    return created["id"], [created["token"], joined["token"]]


class SeatClient:
    """One seat over a WebSocket: plays a random legal move whenever its view says it is to act,
    and records every version it received, in order."""

    def __init__(self, match_id: str, token: str, seat: int, rng: random.Random):
        self.match_id, self.token, self.seat, self.rng = match_id, token, seat, rng
        self.versions: list[int] = []
        self.acks: list[int] = []
        self.to_act: int | None = None  # as the last view said
        self.ended = False
        self.pending: str | None = None  # a move sent and not yet answered
        self.ws: Client | None = None

    def connect(self, base: str) -> None:
        query = f"?last_version={self.versions[-1]}" if self.versions else ""
        url = base.replace("http://", "ws://") + f"/v1/matches/{self.match_id}/socket{query}"
        self.ws = Client.connect(url, headers={"Authorization": f"Bearer {self.token}"})
        if self.pending is not None:  # its answer may have been lost: the same ref makes a retry safe
            self.ws.send(self.pending)

    def hang_up(self) -> None:
        assert self.ws is not None
        self.ws.close()
        self.ws = None

    def pump(self, timeout: float = 0.02) -> bool:
        """Handle the messages that came; False once the connection is gone."""
        assert self.ws is not None
        while True:
            try:
                data = self.ws.receive(timeout=timeout)
            except ConnectionClosed:
                self.ws = None
                return False
            if data is None:
                return True
            timeout = 0
            self._handle(json.loads(data))

    def _handle(self, message: dict) -> None:
        kind = message["type"]
        assert kind in ("match", "ack", "bot"), message
        if kind == "ack":
            self.acks.append(message["version"])
            self.pending = None
        if kind != "match":
            return
        version, view = message["version"], message["view"]
        assert view["version"] == version and view["you"] == self.seat
        if self.versions:
            assert version == self.versions[-1] + 1, f"seat {self.seat}: {version} after {self.versions[-1]}"
        self.versions.append(version)
        self.to_act = view["to_act"]
        if view["status"] in ENDED:
            self.ended = True
        elif view["to_act"] == self.seat and view["legal_moves"]:
            move = self.rng.choice(view["legal_moves"])
            assert self.ws is not None
            self.pending = json.dumps({"type": "move", "move": move, "version": version,
                                       "ref": f"{self.match_id}-{self.seat}-{version}"})
            self.ws.send(self.pending)


def play_until(clients: list[SeatClient], done, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, [client.versions[-3:] for client in clients]
        for client in clients:
            if client.ws is not None:
                client.pump()


@pytest.mark.parametrize("game_id", GAMES)
def test_a_whole_match_over_websockets(web: str, game_id: str) -> None:
    match_id, tokens = new_match(web, game_id)
    clients = [SeatClient(match_id, token, seat, random.Random(seat)) for seat, token in enumerate(tokens)]
    for client in clients:
        client.connect(web)
    play_until(clients, lambda: all(client.ended for client in clients))
    final = call("GET", f"{web}/v1/matches/{match_id}")
    assert final["status"] == "finished"
    for client in clients:
        assert client.versions[-1] == final["version"]
        assert client.acks, "no move was acknowledged"
        assert client.ws is None or client.pump(1.0) is False  # the server closed after the final view
    assert sum(entry["seat"] == 2 for entry in call("GET", f"{web}/v1/matches/{match_id}/log")["entries"])


def test_a_reconnect_resumes_by_version_with_nothing_missed(web: str) -> None:
    match_id, tokens = new_match(web, "witches", bot=False)
    clients = [SeatClient(match_id, token, seat, random.Random(7 + seat)) for seat, token in enumerate(tokens)]
    for client in clients:
        client.connect(web)
    away, other = clients
    play_until(clients, lambda: len(away.acks) >= 2 and away.to_act == other.seat and not away.pending)
    away.hang_up()
    left_at = away.versions[-1]
    play_until([other], lambda: other.versions[-1] >= left_at + 1 and other.acks and other.acks[-1] > left_at)
    missed = other.versions[-1] - left_at
    assert missed >= 1
    away.connect(web)
    play_until(clients, lambda: all(client.ended for client in clients))
    assert away.versions == list(range(away.versions[0], away.versions[-1] + 1))  # none skipped, none twice
    assert call("GET", f"{web}/v1/matches/{match_id}")["version"] == away.versions[-1]


def test_the_web_process_under_a_seat_is_killed_and_the_seat_goes_on_through_another(
        web: str, redis_url: str) -> None:
    port = free_port()
    env = stack_env(redis_url, port)
    doomed = subprocess.Popen(gunicorn(env), cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        doomed_url = f"http://127.0.0.1:{port}"
        assert answers(f"{doomed_url}/readyz", alive=lambda: doomed.poll() is None), \
            "the second web process did not come up"
        match_id, tokens = new_match(web, "enchanters", bot=False)
        clients = [SeatClient(match_id, token, seat, random.Random(11 + seat)) for seat, token in enumerate(tokens)]
        clients[0].connect(doomed_url)
        clients[1].connect(web)
        play_until(clients, lambda: len(clients[0].acks) >= 2)
        os.killpg(doomed.pid, signal.SIGKILL)  # master and worker at once: nothing shuts down cleanly
        doomed.wait(timeout=10)
        play_until(clients, lambda: clients[0].ws is None, seconds=30)
        clients[0].connect(web)  # the load balancer's other web process
        play_until(clients, lambda: all(client.ended for client in clients))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait(timeout=10)
    for client in clients:
        assert client.versions == list(range(client.versions[0], client.versions[-1] + 1))
    assert call("GET", f"{web}/v1/matches/{match_id}")["status"] == "finished"


def test_refusals_come_back_as_problems_and_a_plain_get_is_told_to_upgrade(web: str) -> None:
    match_id, tokens = new_match(web, "witches", bot=False)
    with pytest.raises(urllib.error.HTTPError) as plain:
        urllib.request.urlopen(f"{web}/v1/matches/{match_id}/socket", timeout=10)
    assert plain.value.code == 426 and plain.value.headers["Upgrade"] == "websocket"
    view = call("GET", f"{web}/v1/matches/{match_id}", token=tokens[0])
    idle = 1 - view["to_act"]
    ws = Client.connect(web.replace("http://", "ws://") + f"/v1/matches/{match_id}/socket",
                        headers={"Authorization": f"Bearer {tokens[idle]}"})
    try:
        assert json.loads(ws.receive(10))["version"] == view["version"]
        ws.send(json.dumps({"type": "move", "move": view["legal_moves"][0] if view["legal_moves"] else {},
                            "ref": "r1"}))
        refused = json.loads(ws.receive(10))
        assert refused["type"] == "error" and refused["ref"] == "r1"
        assert refused["problem"]["status"] in (403, 422)
        ws.send("not json")
        assert json.loads(ws.receive(10))["problem"]["status"] == 400
    finally:
        ws.close()


def test_a_socket_move_retried_by_post_under_its_ref_is_played_once(web: str, redis_url: str) -> None:
    """A client whose socket dies before a move's answer can post the move with
    `Idempotency-Key: ws:<ref>`: the server answers with the move it played, not a conflict. The
    key keeps the version the move made, not its view (rendered again for the retry)."""
    from redis import Redis

    from api.store.storage import idempotency_key

    match_id, tokens = new_match(web, "witches", bot=False)
    view = call("GET", f"{web}/v1/matches/{match_id}", token=tokens[0])
    mover = view["to_act"]
    mine = call("GET", f"{web}/v1/matches/{match_id}", token=tokens[mover])
    move = mine["legal_moves"][0]
    ws = Client.connect(web.replace("http://", "ws://") + f"/v1/matches/{match_id}/socket",
                        headers={"Authorization": f"Bearer {tokens[mover]}"})
    try:
        assert json.loads(ws.receive(10))["version"] == mine["version"]
        ws.send(json.dumps({"type": "move", "move": move, "version": mine["version"], "ref": "lost-answer"}))
        frames = {frame["type"]: frame for frame in (json.loads(ws.receive(10)) for _ in range(2))}  # either order
        assert frames["ack"] == {"type": "ack", "ref": "lost-answer", "version": mine["version"] + 1}
        answered = frames["match"]["view"]
    finally:
        ws.close()  # as if the answer had been lost with the connection
    body = json.dumps({"move": move, "version": mine["version"]}).encode()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {tokens[mover]}"}

    def replayed() -> dict:
        request = urllib.request.Request(f"{web}/v1/matches/{match_id}/moves", data=body, method="POST",
                                         headers={**headers, "Idempotency-Key": "ws:lost-answer"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.headers["Idempotent-Replayed"] == "true"
            return json.load(answer)

    def game_of(view: dict) -> dict:  # a view but for when each seat was last seen
        return {key: value for key, value in view.items() if key != "seats"}

    record = idempotency_key(match_id, mover, "ws:lost-answer")
    kept = Redis.from_url(redis_url).hget(record.key, record.field)
    assert kept is not None and int(kept[8:]) == mine["version"] + 1  # a fingerprint and the version: no view
    assert game_of(replayed()) == game_of(answered)
    other = call("GET", f"{web}/v1/matches/{match_id}", token=tokens[1 - mover])
    call("POST", f"{web}/v1/matches/{match_id}/moves", {"move": other["legal_moves"][0]}, token=tokens[1 - mover])
    assert game_of(replayed()) == game_of(answered)  # the match moved on: the view of that version still
    log = call("GET", f"{web}/v1/matches/{match_id}/log", token=tokens[mover])
    assert [entry["seat"] for entry in log["entries"] if not entry["chance"]] == [mover, 1 - mover]
    unplayed = urllib.request.Request(f"{web}/v1/matches/{match_id}/moves", method="POST", headers={
        **headers, "Idempotency-Key": "ws:never-sent"}, data=json.dumps({
            "move": other["legal_moves"][0], "version": mine["version"] + 1}).encode())
    with pytest.raises(urllib.error.HTTPError) as stale:  # a key never used plays anew: here too late
        urllib.request.urlopen(unplayed, timeout=30)
    assert stale.value.code == 409


def _wait_for_worker(redis_url: str) -> None:
    from redis import Redis
    from rq import Worker

    connection = Redis.from_url(redis_url)
    deadline = time.monotonic() + 60
    while not Worker.all(connection=connection):
        assert time.monotonic() < deadline, "the bot worker did not start"
        time.sleep(0.2)
    connection.close()


def test_the_asyncapi_document_is_served_and_is_the_committed_one(client) -> None:
    import yaml

    from api.web.asyncapi import document

    committed = yaml.safe_load((ROOT / "asyncapi.yaml").read_text())
    assert committed == document(), "asyncapi.yaml is stale: python -m api.web.asyncapi > asyncapi.yaml"
    served = client.get("/asyncapi.json").get_json()
    assert served["asyncapi"] == "3.0.0" and set(served["components"]["messages"]) >= {"move", "match", "ack"}
    assert yaml.safe_load(client.get("/asyncapi.yaml").data) == committed
    spec = client.get("/openapi.json").get_json()
    assert "/v1/matches/{match_id}/socket" in spec["paths"]
    for name in ("MatchView", "Problem", "BotActivity"):  # what the AsyncAPI messages refer to
        assert name in spec["components"]["schemas"]
