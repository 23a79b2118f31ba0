"""`python -m api.runtime.probe web|worker|analyst|sweeper`: a container's health check (exit 0: healthy).

- web: /readyz answers 200 on this host (METRICS_PORT when set, else PORT): Redis writable
  and a bot worker alive.
- worker: a bot worker of this host sent its heartbeat within READY_WORKER_SECONDS.
- analyst: likewise, a worker of the analyses' queue (always healthy with ANALYSIS_WORKERS=0).
- sweeper: the sweeper finished a round against Redis recently (its heartbeat file).

The image has neither curl nor wget; this needs only what the processes themselves use, and
imports Redis's and RQ's clients only for the worker's probe (a probe runs every few seconds).
"""

from __future__ import annotations

import socket
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from api.runtime.config import Config

#: Touched by the sweeper after every round that reached Redis (api/jobs/sweep.py).
HEARTBEAT_FILE = Path(tempfile.gettempdir()) / "coven-sweeper.heartbeat"

#: The sweeper is unhealthy when its last good round is older than this many sweep intervals
#: (and at least SWEEPER_STALE_MIN_SECONDS).
SWEEPER_STALE_ROUNDS = 6
SWEEPER_STALE_MIN_SECONDS = 30.0


def web(config: Config) -> str | None:
    """None when this host's /readyz answers 200, else why not."""
    url = f"http://127.0.0.1:{config.METRICS_PORT or config.PORT}/readyz"
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return None if answer.status == 200 else f"{url}: {answer.status}"
    except (urllib.error.URLError, OSError) as error:
        return f"{url}: {error}"


def worker(config: Config, queue: str | None = None) -> str | None:
    """None when a worker of `queue` (the bots') on this host sent a heartbeat recently, else why not."""
    from redis import Redis
    from redis.exceptions import RedisError

    from api.runtime.metrics import live_workers

    host = socket.gethostname()
    try:
        alive = live_workers(Redis.from_url(config.queue_redis_url), queue or config.BOT_QUEUE,
                             config.READY_WORKER_SECONDS, host=host)
    except RedisError as error:
        return f"redis: {error}"
    return None if alive else f"no bot worker of {host} sent a heartbeat in {config.READY_WORKER_SECONDS:g} s"


def analyst(config: Config) -> str | None:
    """None when an analyses' worker on this host sent a heartbeat recently (or none is to run)."""
    return worker(config, config.ANALYSIS_QUEUE) if config.ANALYSIS_WORKERS > 0 else None


def sweeper(config: Config) -> str | None:
    """None when the sweeper's last round against Redis is recent, else why not."""
    stale = max(SWEEPER_STALE_ROUNDS * config.BOT_SWEEP_SECONDS, SWEEPER_STALE_MIN_SECONDS)
    try:
        age = time.time() - HEARTBEAT_FILE.stat().st_mtime
    except FileNotFoundError:
        return f"{HEARTBEAT_FILE} is missing: no round finished yet"
    return None if age <= stale else f"the last round finished {age:.0f} s ago (over {stale:g} s)"


PROBES = {"web": web, "worker": worker, "analyst": analyst, "sweeper": sweeper}


def main(argv: list[str]) -> int:
    """Run the probe named by `argv`; print why it failed."""
    if len(argv) != 1 or argv[0] not in PROBES:
        print(f"usage: python -m api.runtime.probe {{{'|'.join(PROBES)}}}", file=sys.stderr)
        return 2
    problem = PROBES[argv[0]](Config.from_env())
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
