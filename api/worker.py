"""`python -m api.worker`: the RQ worker that plays bot turns (the Procfile's `worker` line).

It imports the bot-turn job, and with it the search and every game, before it
forks a work horse per job, so each turn starts warm instead of importing them.
"""

from __future__ import annotations

from redis import Redis
from rq import Queue, Worker

import api.analysis_job  # noqa: F401 - likewise for analyses
import api.bot_turn  # noqa: F401 - imports the search before forking (see above)
from api.config import Config


def main() -> None:
    """Work the bot queue named by the environment until stopped (SIGTERM finishes the turn)."""
    config = Config.from_env()
    redis = Redis.from_url(config.REDIS_URL)
    # A short time to live makes an idle worker's heartbeat frequent enough for /readyz.
    worker = Worker([Queue(config.BOT_QUEUE, connection=redis)], connection=redis,
                    worker_ttl=config.WORKER_TTL_SECONDS)
    worker.work(logging_level="INFO")


if __name__ == "__main__":
    main()
