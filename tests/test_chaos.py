"""Chaos: the bot worker (a real process, and the work horse it forked) is killed with SIGKILL in
the middle of a bot's turn, six times in one match; the sweeper recovers every turn and the match
finishes. The worker and sweeper are the Procfile's own command lines; the test restarts the worker
at once, as `make run`'s supervisor would, and nobody views the match (only the sweeper recovers)."""

from __future__ import annotations

import contextlib
import os
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
from api.store.storage import bot_key, match_key

KILLS = 6


def stored(redis: Redis, match_id: str) -> tuple[str, str]:
    """The stored status and version of a match, as text."""
    record = MatchRecord.from_stored(match_id, redis.get(match_key(match_id)))
    return record.status.value, str(record.version)


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (the RQ worker's work horse)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


class Processes:
    """The Procfile's worker and sweeper, started like `make run` starts them."""

    def __init__(self, redis_url: str):
        # One worker process (BOT_WORKERS=1 runs it without a pool): it and its work horse are killed.
        env = {**os.environ, "REDIS_URL": redis_url, "BOT_SWEEP_SECONDS": "0.2", "BOT_GRACE_SECONDS": "0.5",
               "BOT_WORKERS": "1"}
        self.programs = {p.name: p for p in procfile_programs(env)}
        self.running: dict[str, subprocess.Popen] = {}

    def start(self, name: str) -> subprocess.Popen:
        program = self.programs[name]
        self.running[name] = subprocess.Popen(program.argv, env=program.env, cwd=program.cwd,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                              start_new_session=True)
        return self.running[name]

    def stop(self) -> None:
        for process in self.running.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture
def processes(redis_url: str, redis) -> Iterator[Processes]:
    running = Processes(redis_url)
    try:
        yield running
    finally:
        running.stop()


@pytest.mark.timeout(600)
def test_a_match_finishes_though_its_worker_is_killed_mid_turn_six_times(client, redis, processes) -> None:
    # medium bots think up to half a second a turn: a wide window to land a kill in mid-turn
    created = create(client, "cube", [{"type": "bot", "level": "medium"}] * 2, seed="chaos")
    match_id = created["id"]
    processes.start("sweeper")
    worker = processes.start("worker")
    recoveries: list[float] = []
    missed = 0
    began = time.monotonic()
    deadline = began + 300  # a restarted worker imports everything: seconds each on a loaded machine
    while len(recoveries) < KILLS:
        assert time.monotonic() < deadline, f"only {len(recoveries)} kills landed mid-turn"
        status, version = stored(redis, match_id)
        assert status == "active", "the match ended before six kills"
        assert worker.poll() is None and processes.running["sweeper"].poll() is None
        progress = redis.hmget(bot_key(match_id), "status", "version")
        if progress != [b"thinking", version.encode()]:
            time.sleep(0.005)
            continue
        horses = children(worker.pid)
        for pid in [worker.pid, *horses]:  # the worker and its work horse die together
            with contextlib.suppress(ProcessLookupError):  # (a horse that just finished)
                os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        worker.wait()
        if int(stored(redis, match_id)[1]) > int(version) or not horses:
            worker = processes.start("worker")  # too late: the move was already in
            missed += 1
            continue
        worker = processes.start("worker")  # what `make run`'s supervisor does
        while stored(redis, match_id)[1] == version:
            assert time.monotonic() - killed < 60, "a killed turn was never recovered"
            time.sleep(0.01)
        recoveries.append(time.monotonic() - killed)
    while stored(redis, match_id)[0] != "finished":
        assert time.monotonic() < deadline, "the match did not finish"
        time.sleep(0.05)
    print(f"\nmatch over in {time.monotonic() - began:.1f} s ({missed} kills after the move was in); "
          f"killed turns recovered in {', '.join(f'{s:.1f}' for s in recoveries)} s")
