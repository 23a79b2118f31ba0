"""`python -m api.jobs.worker [analyses]`: the RQ workers that play bot turns (the Procfile's
`worker` line), or with `analyses` those that run players' analyses (its `analyst` line).

It starts `BOT_WORKERS` workers (default: one per core) as an RQ worker pool,
which restarts a worker that dies. Each worker serves the queue of matches with
a human seat before the queue of bots-only matches (RQ takes the first queue
that has a job), so bots playing each other never make a person wait behind
them; and a bots-only turn thinks at a lower CPU priority (`nice`), so a turn
someone waits for gets the cores first while both run. The pool imports the bot-turn job, and with it the search and every game,
before it forks, so each turn starts warm instead of importing them.

Analyses have a queue of their own. `ANALYSIS_WORKERS` workers serve it alone, at a
lower CPU priority than any bot turn; with `ANALYSIS_WORKERS=0` the bot workers serve
it last, so an analysis is taken only when no bot turn waits.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import time
from typing import Any

from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue, Worker
from rq.job import Job
from rq.worker_pool import WorkerPool

import api.jobs.analysis  # noqa: F401 - likewise for analyses
import api.jobs.bot_turn  # noqa: F401 - imports the search before forking (see above)
from api.runtime.config import Config
from api.runtime.logs import REDIS_OUTAGE, configure_logging

#: How much lower the CPU priority of a bots-only turn is (a `nice` increment).
BOTS_ONLY_NICENESS = 10
#: How much lower the CPU priority of the analysis workers is: below every bot turn's.
ANALYSIS_NICENESS = 15

#: How often a worker busy with a job refreshes its heartbeat.
WORKER_MONITOR_SECONDS = 5
#: How long a worker waiting for Redis sleeps between tries.
REDIS_RETRY_SECONDS = 1.0

#: How long the thread that listens for RQ's commands waits for one before looking whether it
#: should stop. RQ waits 60 s; since redis-py 8.2, stopping that thread waits for it, so a warm
#: shutdown could hang for a minute (longer than a supervisor's grace) in RQ's teardown.
COMMAND_POLL_SECONDS = 1.0

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
        die_with_parent()  # first: a pool killed while this worker waits for Redis must take it along
        config = Config.from_env()
        configure_logging(config.LOG_LEVEL, quiet_redis=True)  # a pool's workers: a process each
        connection = kwargs.get("connection")
        if connection is not None:
            until_redis_answers(connection)  # a worker started while Redis is away waits, quietly
        # A short time to live makes an idle worker's heartbeat frequent enough for /readyz, and
        # a worker busy with a turn sends one every WORKER_MONITOR_SECONDS.
        kwargs.setdefault("worker_ttl", config.WORKER_TTL_SECONDS)
        kwargs.setdefault("job_monitoring_interval", WORKER_MONITOR_SECONDS)
        super().__init__(*args, **kwargs)

    def work(self, *args: Any, **kwargs: Any) -> bool:
        """Work without RQ's scheduler process: bot turns are never scheduled for later (the pool
        asks for one per worker, and it dies with a traceback whenever Redis restarts)."""
        kwargs["with_scheduler"] = False
        return super().work(*args, **kwargs)

    def subscribe(self) -> None:
        """RQ's command channel, listened to with a short poll, so stopping the listener (which
        teardown does, and which redis-py 8.2 makes wait for it) takes a second at most."""
        self.log.info("Worker %s: subscribing to channel %s", self.name, self.pubsub_channel_name)
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment] # RQ infers None
            sleep_time=COMMAND_POLL_SECONDS, daemon=True, exception_handler=self._pubsub_exception_handler)

    def main_work_horse(self, job: Job, queue: Queue) -> None:
        if queue.name == Config.from_env().BOTS_ONLY_QUEUE:
            os.nice(BOTS_ONLY_NICENESS)
        super().main_work_horse(job, queue)


def until_redis_answers(redis: Redis) -> None:
    """Return once Redis answers; while it does not, one warning for the whole wait."""
    while True:
        try:
            redis.ping()
        except (RedisConnectionError, RedisTimeoutError) as error:
            REDIS_OUTAGE.lost(error)
            time.sleep(REDIS_RETRY_SECONDS)
        else:
            REDIS_OUTAGE.back()
            return


def queues_for(config: Config, analyses: bool) -> list[str]:
    """The queues a worker serves, first first: the bot turns (and analyses last when no worker
    of their own takes them), or the analyses alone."""
    if analyses:
        return [config.ANALYSIS_QUEUE]
    bots = [config.BOT_QUEUE, config.BOTS_ONLY_QUEUE]
    return bots if config.ANALYSIS_WORKERS > 0 else [*bots, config.ANALYSIS_QUEUE]


def main(argv: list[str] | None = None) -> None:
    """Work the queues named by the environment until stopped (SIGTERM finishes the jobs)."""
    args = sys.argv[1:] if argv is None else argv
    analyses = args[:1] == ["analyses"]
    config = Config.from_env()
    configure_logging(config.LOG_LEVEL, quiet_redis=True)
    if analyses:
        if config.ANALYSIS_WORKERS <= 0:
            logging.getLogger("coven.worker").info("ANALYSIS_WORKERS=0: the bot workers take the analyses")
            signal.pause()  # a process type with nothing to do stays up, quietly (a supervisor restarts one that exits)
            return
        os.nice(ANALYSIS_NICENESS)
    workers = config.ANALYSIS_WORKERS if analyses else config.bot_workers
    names = queues_for(config, analyses)
    redis = Redis.from_url(config.queue_redis_url)
    until_redis_answers(redis)
    if workers == 1:  # one worker needs no pool (nor the pool's extra process)
        BotWorker([Queue(name, connection=redis) for name in names], connection=redis).work(logging_level="INFO")
        return
    pool = WorkerPool(names, connection=redis, num_workers=workers, worker_class=BotWorker)
    pool.start(logging_level="INFO")


if __name__ == "__main__":
    main()
