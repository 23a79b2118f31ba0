"""Scheduling bot turns on RQ, from the web side: enqueue once per version, recover stuck turns.

The job is named by dotted path (`api.bot_turn.play_bot_turn`) so the web process
never imports the search. A turn's job id is `bot-<match>-<version>`: it is
queued at most once, and a job for an older version finds nothing to do.
"""

from __future__ import annotations

import time

from redis import Redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from ai.levels import get_level
from api import metrics, storage
from api.config import Config
from api.records import BotStatus

JOB_FUNCTION = "api.bot_turn.play_bot_turn"
#: A turn is re-enqueued at most this many times by recovery (a bug must not loop forever).
MAX_RECOVERIES = 5


def job_id_for(match_id: str, version: int) -> str:
    """The RQ job id of the bot turn at `version` of a match."""
    return f"bot-{match_id}-{version}"


class BotScheduler:
    """Enqueues bot turns and re-enqueues those whose worker died."""

    def __init__(self, redis: Redis, config: Config):
        self.redis = redis
        self.config = config
        self.queue = Queue(config.BOT_QUEUE, connection=redis)

    def enqueue(self, match_id: str, version: int, level_name: str) -> Job | None:
        """Queue the bot turn at `version` unless a job for it already exists."""
        job_id = job_id_for(match_id, version)
        if Job.exists(job_id, connection=self.redis):
            return None
        return self._enqueue(match_id, version, level_name)

    def ensure(self, match_id: str, version: int, level_name: str) -> bool:
        """Re-enqueue the turn at `version` if its job is missing, failed or silent too long.

        Called when a view or a wait finds a bot to act. Returns True when it re-enqueued.
        """
        job_id = job_id_for(match_id, version)
        try:
            job = Job.fetch(job_id, connection=self.redis)
            status = job.get_status(refresh=False)
        except NoSuchJobError:
            job, status = None, None
        if status in (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED):
            return False
        if status == JobStatus.STARTED and not self._is_silent(match_id, version, level_name, job):
            return False
        progress = storage.Store(self.redis, lambda _: 0).bot_progress(match_id)
        recoveries = int(progress.get("recoveries", 0)) if progress.get("version") == str(version) else 0
        if recoveries >= MAX_RECOVERIES:
            return False
        lock = storage.recovery_key(match_id, version)
        if not self.redis.set(lock, "1", nx=True, ex=max(1, int(self.config.BOT_GRACE_SECONDS))):
            return False
        if job is not None:
            job.delete()
        self.redis.hset(
            storage.bot_key(match_id),
            mapping={"version": version, "status": BotStatus.QUEUED.value, "recoveries": recoveries + 1},
        )
        self._enqueue(match_id, version, level_name)
        metrics.count_recovered_turn(self.redis)
        return True

    def _is_silent(self, match_id: str, version: int, level_name: str, job: Job | None) -> bool:
        """True when a started turn has not reported for longer than its budget plus grace."""
        progress = storage.Store(self.redis, lambda _: 0).bot_progress(match_id)
        if progress.get("version") == str(version) and progress.get("heartbeat"):
            last = float(progress["heartbeat"])
        elif job is not None and job.started_at is not None:
            last = job.started_at.timestamp()
        else:
            return True
        allowed = get_level(level_name).seconds + self.config.BOT_GRACE_SECONDS
        return time.time() - last > allowed

    def _enqueue(self, match_id: str, version: int, level_name: str) -> Job:
        level = get_level(level_name)
        return self.queue.enqueue(
            JOB_FUNCTION,
            match_id,
            version,
            job_id=job_id_for(match_id, version),
            retry=Retry(max=2),
            job_timeout=int(level.seconds * 4) + 60,
            result_ttl=600,
            failure_ttl=3600,
            description=f"bot turn {version} of match {match_id} ({level.name})",
        )
