"""A deploy does not stall: on SIGTERM, gunicorn's event streams end with `event: reconnect`
and its long-polls answer at once, so the web process stops without waiting for them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import free_port

ROOT = Path(__file__).resolve().parent.parent


def test_sigterm_ends_event_streams_and_long_polls(redis_url: str, redis, tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "WEB_CONCURRENCY": "1",
           "WEB_GRACEFUL_SECONDS": "60", "SSE_MAX_SECONDS": "120", "LONG_POLL_MAX_SECONDS": "60",
           "XDG_RUNTIME_DIR": str(tmp_path)}
    gunicorn = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "--config", "gunicorn.conf.py", "wsgi:app"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    api = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{api}/healthz", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or gunicorn.poll() is not None:
                    pytest.fail("gunicorn did not come up")
                time.sleep(0.1)
        body = json.dumps({"game": "witches", "seats": [{"type": "human"}, {"type": "human"}]}).encode()
        create = urllib.request.Request(f"{api}/v1/matches", data=body,
                                        headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(create, timeout=5) as answer:
            match = json.loads(answer.read())
        stream = urllib.request.urlopen(f"{api}/v1/matches/{match['id']}/events", timeout=30)
        assert stream.readline().startswith(b"retry:")
        while b"event: match" not in stream.readline():
            pass
        polled: dict = {}

        def long_poll() -> None:
            url = f"{api}/v1/matches/{match['id']}?after_version={match['version']}&wait=60"
            with urllib.request.urlopen(url, timeout=30) as answer:
                polled.update(status=answer.status, body=json.loads(answer.read()))

        poller = threading.Thread(target=long_poll)
        poller.start()
        time.sleep(0.5)  # the long-poll is waiting on its match
        gunicorn.send_signal(signal.SIGTERM)
        rest = stream.read().decode()  # until the server closes the stream
        assert "event: reconnect" in rest
        poller.join(timeout=30)
        assert polled.get("status") == 200 and polled["body"]["version"] == match["version"]
        assert gunicorn.wait(timeout=20) == 0  # well before the 60 s graceful timeout
    finally:
        if gunicorn.poll() is None:
            gunicorn.kill()
            gunicorn.wait()
    assert not list(tmp_path.iterdir()), "no control socket in $XDG_RUNTIME_DIR"
