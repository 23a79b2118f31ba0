"""Chaos with the real processes: the Procfile's worker and sweeper, killed and frozen as an unlucky
operator's would be. A bot turn due in a match is played whatever happened to the process that took
it, and a turn that is only slow is never queued twice. Nobody views the matches: only the sweeper
recovers turns here."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from api_support import create
from redis import Redis

from api.runtime.devserver import procfile_programs
from api.store.records import MatchRecord
from api.store.storage import match_key

TEN_KILLS = 10


def stored(redis: Redis, match_id: str) -> tuple[str, int]:
    """The stored status and version of a match."""
    record = MatchRecord.from_stored(match_id, redis.get(match_key(match_id)))
    return record.status.value, record.version


def counted(redis: Redis, name: str) -> int:
    """A deployment-wide counter of /metrics, as kept in Redis (`coven_bot_turns_recovered` …)."""
    value = redis.hget("coven:metrics", name)
    return int(float(value)) if value is not None else 0


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (a pool's workers, their work horses)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found.extend(children)
        frontier = children
    return found


class Processes:
    """The Procfile's worker and sweeper, started like `make run` starts them."""

    def __init__(self, redis_url: str, **settings: str):
        env = {**os.environ, "REDIS_URL": redis_url, "BOT_SWEEP_SECONDS": "0.2", "BOT_GRACE_SECONDS": "1",
               "BOT_LEASE_SECONDS": "3", "BOT_WORKERS": "1", **settings}
        self.programs = {p.name: p for p in procfile_programs(env)}
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str) -> subprocess.Popen[bytes]:
        program = self.programs[name]
        self.running[name] = subprocess.Popen(program.argv, env=program.env, cwd=program.cwd,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                              start_new_session=True)
        return self.running[name]

    def signal(self, name: str, signum: int) -> None:
        """Send `signum` to a program and every process under it, at once."""
        process = self.running[name]
        for pid in [process.pid, *descendants(process.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    def kill(self, name: str) -> None:
        """SIGKILL a program and everything under it (a frozen one too), and reap it."""
        self.signal(name, signal.SIGKILL)
        self.running[name].wait()

    def stop(self) -> None:
        for name, process in self.running.items():
            if process.poll() is None:
                self.kill(name)


@pytest.fixture
def processes(redis_url: str, redis) -> Iterator[Processes]:
    running = Processes(redis_url)
    try:
        yield running
    finally:
        running.stop()


def wait_for_move(redis: Redis, match_id: str, version: int, limit: float) -> float:
    """Seconds until the match passes `version` (fails after `limit`)."""
    began = time.monotonic()
    while stored(redis, match_id)[1] <= version:
        assert time.monotonic() - began < limit, f"the turn at version {version} was never played"
        time.sleep(0.02)
    return time.monotonic() - began


@pytest.mark.timeout(300)
def test_a_turn_taken_by_a_frozen_then_killed_worker_is_played(client, redis, redis_url) -> None:
    """The outside report's scenario: `kill -STOP` the workers, a bot-first match is created (a
    frozen worker still takes its job off the queue), 1.5 s later `kill -9` the pool."""
    pool = Processes(redis_url, BOT_WORKERS="2")  # a pool: its process and two workers
    try:
        pool.start("sweeper")
        pool.start("worker")
        time.sleep(8)  # the pool's workers are up and blocked on the queues
        pool.signal("worker", signal.SIGSTOP)
        created = create(client, "witches", [{"type": "bot", "level": "random"}, {"type": "human"}], seed="w1")
        assert created["to_act"] == 0
        time.sleep(1.5)
        pool.kill("worker")
        killed = time.monotonic()
        pool.start("worker")  # what `make run`'s supervisor does
        wait_for_move(redis, created["id"], created["version"], limit=120)
        print(f"\nthe frozen-then-killed turn was played {time.monotonic() - killed:.1f} s after the kill")
        assert counted(redis, "recovered") == 1
    finally:
        pool.stop()


@pytest.mark.timeout(600)
def test_ten_kills_at_random_moments_of_one_match_all_recover(client, redis, processes) -> None:
    # hard: a witches turn long enough (about 0.2 s) that ten kills land before the match ends
    created = create(client, "witches", [{"type": "bot", "level": "hard"}] * 2, seed="chaos")
    match_id = created["id"]
    processes.start("sweeper")
    worker = processes.start("worker")
    chance = random.Random(29)
    began = time.monotonic()
    recoveries = []
    for _ in range(TEN_KILLS):
        # a turn is a fraction of a second: a random moment in it lands before the job is taken,
        # between taking and claiming it, mid-search or just after the move
        time.sleep(chance.uniform(0.0, 0.4))
        status, version = stored(redis, match_id)
        assert status == "active", "the match ended before ten kills"
        assert processes.running["sweeper"].poll() is None
        processes.kill("worker")
        worker = processes.start("worker")  # what `make run`'s supervisor does
        recoveries.append(wait_for_move(redis, match_id, version, limit=120))
    while stored(redis, match_id)[0] != "finished":
        assert time.monotonic() - began < 500, "the match did not finish"
        assert worker.poll() is None
        time.sleep(0.05)
    print(f"\nmatch over in {time.monotonic() - began:.1f} s through {TEN_KILLS} kills, each turn played "
          f"{', '.join(f'{s:.1f}' for s in recoveries)} s after; "
          f"{counted(redis, 'recovered')} turns recovered, {counted(redis, 'duplicate_searches')} duplicate searches")


@pytest.mark.timeout(300)
def test_a_saturated_machine_recovers_nothing_and_searches_nothing_twice(client, redis, redis_url) -> None:
    """Bots-only matches on both cores and a busy loop beside them, no kill: every turn is only
    slow, so nothing is queued again and no turn is searched twice."""
    busy = subprocess.Popen(["python3", "-c", "while True: pass"])
    running = Processes(redis_url, BOT_WORKERS="2", BOT_LEASE_SECONDS="15")
    try:
        matches = [create(client, "enchanters", [{"type": "bot", "level": "easy"}] * 3) for _ in range(12)]
        running.start("sweeper")
        running.start("worker")
        deadline = time.monotonic() + 60
        moves = 0
        while time.monotonic() < deadline:
            moves = sum(stored(redis, m["id"])[1] - m["version"] for m in matches)
            if moves >= 150:
                break
            time.sleep(0.5)
        print(f"\n{moves} bot moves on a saturated machine; recovered {counted(redis, 'recovered')}, "
              f"duplicate searches {counted(redis, 'duplicate_searches')}")
        assert moves >= 30, "the workers hardly played"
        assert counted(redis, "recovered") == 0
        assert counted(redis, "duplicate_searches") == 0
    finally:
        busy.kill()
        running.stop()


@pytest.mark.timeout(120)
def test_a_killed_worker_stops_counting_for_readyz_and_leaves_rqs_registry(app_with, redis, redis_url, config) -> None:
    from rq import Queue, Worker

    client = app_with(READY_WORKER_SECONDS=3.0).test_client()
    running = Processes(redis_url, WORKER_TTL_SECONDS="16")  # an idle worker beats every second
    try:
        running.start("worker")
        deadline = time.monotonic() + 60
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the worker never counted as alive"
            time.sleep(0.2)
        running.kill("worker")
        killed = time.monotonic()
        while client.get("/readyz").status_code != 503:
            assert time.monotonic() - killed < 10, "/readyz still counts a killed worker"
            time.sleep(0.2)
        print(f"\n/readyz stopped counting the killed worker after {time.monotonic() - killed:.1f} s")
        service = client.application.extensions["coven"]
        queue = Queue(config.BOT_QUEUE, connection=redis)
        while Worker.all(queue=queue):
            assert time.monotonic() - killed < 40, "the dead worker stays in RQ's registry"
            service.bots.forget_dead_workers()  # what the sweeper does every few seconds
            time.sleep(0.5)
    finally:
        running.stop()
