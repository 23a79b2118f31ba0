"""`python -m api.worker`: the RQ workers that play bot turns (the Procfile's `worker` line).

It starts `BOT_WORKERS` workers (default: one per core) as an RQ worker pool,
which restarts a worker that dies. Each worker serves the queue of matches with
a human seat before the queue of bots-only matches (RQ takes the first queue
that has a job), so bots playing each other never make a person wait behind
them. The pool imports the bot-turn job, and with it the search and every game,
before it forks, so each turn starts warm instead of importing them.
"""

from __future__ import annotations

from redis import Redis
from rq.worker_pool import WorkerPool

import api.bot_turn  # noqa: F401 - imports the search before forking (see above)
from api.config import Config


def main() -> None:
    """Work the bot queues named by the environment until stopped (SIGTERM finishes the turns)."""
    config = Config.from_env()
    redis = Redis.from_url(config.queue_redis_url)
    pool = WorkerPool([config.BOT_QUEUE, config.BOTS_ONLY_QUEUE], connection=redis,
                      num_workers=config.bot_workers)
    pool.start(logging_level="INFO")


if __name__ == "__main__":
    main()
