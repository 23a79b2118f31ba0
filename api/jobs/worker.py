"""`python -m api.jobs.worker`: the RQ workers that play bot turns (the Procfile's `worker` line).

It starts `BOT_WORKERS` workers (default: one per core) as an RQ worker pool,
which restarts a worker that dies. Each worker serves the queue of matches with
a human seat before the queue of bots-only matches (RQ takes the first queue
that has a job), so bots playing each other never make a person wait behind
them; and a bots-only turn thinks at a lower CPU priority (`nice`), so a turn
someone waits for gets the cores first while both run. The pool imports the bot-turn job, and with it the search and every game,
before it forks, so each turn starts warm instead of importing them.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import Any

from redis import Redis
from rq import Queue, Worker
from rq.job import Job
from rq.worker_pool import WorkerPool

import api.jobs.analysis  # noqa: F401 - likewise for analyses
import api.jobs.bot_turn  # noqa: F401 - imports the search before forking (see above)
from api.runtime.config import Config

#: How much lower the CPU priority of a bots-only turn is (a `nice` increment).
BOTS_ONLY_NICENESS = 10

#: Linux's prctl option that signals a process when its parent dies.
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Ask Linux for SIGTERM when the process that started us dies, even by SIGKILL: a pool's
    workers must not outlive a killed pool (the supervisor starts a new one), serving queues forever."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # it died before the request took effect
        os.kill(os.getpid(), signal.SIGTERM)


class BotWorker(Worker):
    """RQ's forking worker; the work horse of a bots-only turn lowers its own CPU priority."""

    def __init__(self, *args: Any, **kwargs: Any):
        # A short time to live makes an idle worker's heartbeat frequent enough for /readyz.
        kwargs.setdefault("worker_ttl", Config.from_env().WORKER_TTL_SECONDS)
        super().__init__(*args, **kwargs)
        die_with_parent()

    def work(self, *args: Any, **kwargs: Any) -> bool:
        """Work without RQ's scheduler process: bot turns are never scheduled for later (the pool
        asks for one per worker, and it dies with a traceback whenever Redis restarts)."""
        kwargs["with_scheduler"] = False
        return super().work(*args, **kwargs)

    def main_work_horse(self, job: Job, queue: Queue) -> None:
        if queue.name == Config.from_env().BOTS_ONLY_QUEUE:
            os.nice(BOTS_ONLY_NICENESS)
        super().main_work_horse(job, queue)


def main() -> None:
    """Work the bot queues named by the environment until stopped (SIGTERM finishes the turns)."""
    config = Config.from_env()
    redis = Redis.from_url(config.queue_redis_url)
    if config.bot_workers == 1:  # one worker needs no pool (nor the pool's extra process)
        queues = [Queue(name, connection=redis) for name in (config.BOT_QUEUE, config.BOTS_ONLY_QUEUE)]
        BotWorker(queues, connection=redis).work(logging_level="INFO")
        return
    pool = WorkerPool([config.BOT_QUEUE, config.BOTS_ONLY_QUEUE], connection=redis,
                      num_workers=config.bot_workers, worker_class=BotWorker)
    pool.start(logging_level="INFO")


if __name__ == "__main__":
    main()
