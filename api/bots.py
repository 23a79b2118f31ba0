"""Scheduling bot turns on RQ, from the web side: enqueue once per version, recover stuck turns.

The job is named by dotted path (`api.bot_turn.play_bot_turn`) so the web process
never imports the search. A turn's job id is `bot-<match>-<version>`: it is
queued at most once, and a job for an older version finds nothing to do.

Two queues, served by every worker in this order: `BOT_QUEUE` for matches with
a human seat (someone is waiting for the bot), then `BOTS_ONLY_QUEUE`; a crowd
of bots-only matches never delays a person's game by more than the turns
already being thought about. The queues live on `QUEUE_REDIS_URL` (one Redis:
RQ does not work on a Cluster); the bot's progress and the recovery locks live
with the match.
"""

from __future__ import annotations

import time

from redis import Redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from ai.levels import get_level
from api import storage
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

    def __init__(self, redis: Redis, store: storage.Store, config: Config):
        self.redis = redis  # the queues' Redis
        self.store = store
        self.config = config
        self.queue = Queue(config.BOT_QUEUE, connection=redis)
        self.bots_only_queue = Queue(config.BOTS_ONLY_QUEUE, connection=redis)

    def queue_for(self, humans: bool) -> Queue:
        """The queue of a turn: the first one when a human plays in the match."""
        return self.queue if humans else self.bots_only_queue

    def enqueue(self, match_id: str, version: int, level_name: str, humans: bool = True) -> Job | None:
        """Queue the bot turn at `version` unless a job for it already exists."""
        job_id = job_id_for(match_id, version)
        if Job.exists(job_id, connection=self.redis):
            return None
        return self._enqueue(match_id, version, level_name, humans)

    def ensure(self, match_id: str, version: int, level_name: str, humans: bool = True) -> bool:
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
        progress = self.store.bot_progress(match_id)
        recoveries = int(progress.get("recoveries", 0)) if progress.get("version") == str(version) else 0
        if recoveries >= MAX_RECOVERIES:
            return False
        if not self.store.claim_recovery(match_id, version, max(1, int(self.config.BOT_GRACE_SECONDS))):
            return False
        if job is not None:
            job.delete()
        self.store.mark_bot(match_id, {"version": version, "status": BotStatus.QUEUED.value,
                                       "recoveries": recoveries + 1})
        self._enqueue(match_id, version, level_name, humans)
        return True

    def _is_silent(self, match_id: str, version: int, level_name: str, job: Job | None) -> bool:
        """True when a started turn has not reported for longer than its budget plus grace."""
        progress = self.store.bot_progress(match_id)
        if progress.get("version") == str(version) and progress.get("heartbeat"):
            last = float(progress["heartbeat"])
        elif job is not None and job.started_at is not None:
            last = job.started_at.timestamp()
        else:
            return True
        allowed = get_level(level_name).seconds + self.config.BOT_GRACE_SECONDS
        return time.time() - last > allowed

    def _enqueue(self, match_id: str, version: int, level_name: str, humans: bool) -> Job:
        level = get_level(level_name)
        return self.queue_for(humans).enqueue(
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
