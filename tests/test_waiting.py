"""Waiting clients under the real web process (gunicorn's gevent worker, one process): hundreds
of long-polls and streams held at once while /healthz and moves are served, waiters released
when their clients hang up, one pub/sub subscription per process whatever the number of waiters."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest
from conftest import UNTHROTTLED, free_port, serving
from redis import Redis

from api.store.storage import channel_for

WAITERS = 300


@pytest.fixture(scope="module")
def web(redis_url: str) -> Iterator[str]:
    """gunicorn with the project's gunicorn.conf.py (gevent), one worker, on a free port."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "WEB_CONCURRENCY": "1",
           "WEB_CONNECTIONS": "2000", **{name: str(value) for name, value in UNTHROTTLED.items()}}
    env.pop("QUEUE_REDIS_URL", None)
    env.pop("REDIS_CLUSTER", None)
    command = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--bind", f"127.0.0.1:{port}", "wsgi:app"]
    with serving(command, env, port, ready="/healthz") as url:
        yield url


def call(url: str, method: str = "GET", body: dict | None = None, token: str | None = None) -> dict:
    request = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body else None)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=20) as answer:
        return json.loads(answer.read())


def duel(web: str) -> dict:
    created = call(f"{web}/v1/matches", "POST", {"game": "witches", "seats": [{"type": "human"}] * 2})
    joined = call(f"{web}/v1/matches/{created['id']}/join", "POST")
    return {"id": created["id"], "tokens": {0: created["token"], 1: joined["token"]},
            "version": joined["version"]}


def open_waiters(web: str, match: dict, count: int) -> list[socket.socket]:
    """`count` raw connections, half long-polling the match, half following its event stream."""
    port = int(web.rsplit(":", 1)[1])
    sockets = []
    for index in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        path = (f"/v1/matches/{match['id']}?after_version={match['version']}&wait=30" if index % 2
                else f"/v1/matches/{match['id']}/events")
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        sockets.append(sock)
    return sockets


def subscriptions(redis: Redis, match_id: str) -> int:
    return dict(redis.pubsub_numsub(channel_for(match_id)))[channel_for(match_id).encode()]


def eventually(check, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_hundreds_of_waiters_share_one_subscription_and_health_still_answers(web: str, redis) -> None:
    match = duel(web)
    sockets = open_waiters(web, match, WAITERS)
    try:
        assert eventually(lambda: subscriptions(redis, match["id"]) == 1)
        assert call(f"{web}/healthz") == {"status": "ok"}
        seat = call(f"{web}/v1/matches/{match['id']}")["to_act"]
        mine = call(f"{web}/v1/matches/{match['id']}", token=match["tokens"][seat])
        played = call(f"{web}/v1/matches/{match['id']}/moves", "POST",
                      {"move": mine["legal_moves"][0], "version": mine["version"]}, match["tokens"][seat])
        assert played["version"] == match["version"] + 1
        for sock in sockets:  # every waiter hears of the move
            seen = b""
            while f'"version":{played["version"]}'.encode() not in seen.replace(b" ", b""):
                chunk = sock.recv(65536)
                assert chunk, f"a waiter's connection closed before the move reached it: {seen[:300]!r}"
                seen += chunk
    finally:
        for sock in sockets:
            sock.close()
    assert eventually(lambda: subscriptions(redis, match["id"]) == 0)


def test_waiters_whose_clients_hang_up_are_released_at_once(web: str, redis) -> None:
    match = duel(web)
    sockets = open_waiters(web, match, 200)
    assert eventually(lambda: subscriptions(redis, match["id"]) == 1)
    for sock in sockets:
        sock.close()
    # the long-polls asked to wait 30 s and the streams 5 minutes: hanging up ends them now
    assert eventually(lambda: subscriptions(redis, match["id"]) == 0, seconds=5)


def test_quiet_followers_read_nothing_from_redis(redis_url: str, redis) -> None:
    """Idle seats cost nothing but their pings: a quiet event stream or WebSocket channel does not
    read its match again at each keep-alive (only a notification, or a lost pub/sub connection,
    makes it read)."""
    from simple_websocket import Client

    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "WEB_CONCURRENCY": "1",
           "SSE_KEEPALIVE_SECONDS": "0.3", "SOCKET_PING_SECONDS": "0.3",
           **{name: str(value) for name, value in UNTHROTTLED.items()}}
    env.pop("QUEUE_REDIS_URL", None)
    env.pop("REDIS_CLUSTER", None)
    command = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--bind", f"127.0.0.1:{port}", "wsgi:app"]
    with serving(command, env, port, ready="/healthz") as web:
        match = duel(web)
        streams = [socket.create_connection(("127.0.0.1", port), timeout=20) for _ in range(30)]
        for sock in streams:
            sock.sendall(f"GET /v1/matches/{match['id']}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        sockets = [Client.connect(f"ws://127.0.0.1:{port}/v1/matches/{match['id']}/socket") for _ in range(30)]
        try:
            assert all(json.loads(ws.receive(10))["type"] == "match" for ws in sockets)
            assert eventually(lambda: subscriptions(redis, match["id"]) == 1)
            time.sleep(0.5)
            redis.config_resetstat()
            time.sleep(2.0)  # some six keep-alives and pings each
            stats = redis.info("commandstats")
            pings = sum(1 for ws in sockets if ws.connected)
        finally:
            for sock in streams:
                sock.close()
            for ws in sockets:
                ws.close()
    calls = {name.removeprefix("cmdstat_"): stat["calls"] for name, stat in stats.items()
             if name not in ("cmdstat_info", "cmdstat_config|resetstat", "cmdstat_config")}
    assert pings == 30
    assert sum(calls.values()) <= 5, f"60 quiet followers sent Redis {calls} in 2 s"


def test_the_socket_declines_compression(web: str) -> None:
    """permessage-deflate is declined: each connection's zlib state would cost ~170 KB of memory,
    and compressing a few-kilobyte view a third of the CPU of sending it."""
    match = duel(web)
    port = int(web.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall((f"GET /v1/matches/{match['id']}/socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            assert chunk, head
            head += chunk
    status, *headers = head.split(b"\r\n\r\n")[0].decode().split("\r\n")
    assert " 101 " in status
    assert not [line for line in headers if line.lower().startswith("sec-websocket-extensions")]
