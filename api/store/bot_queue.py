"""Scheduling bot turns on RQ, from the web side: enqueue once per version, recover stuck turns.

The job is named by dotted path (`api.jobs.bot_turn.play_bot_turn`) so the web process
never imports the search. A turn's job id is `bot-<match>-<version>`: it is
queued at most once, and a job for an older version finds nothing to do.

Every pending bot turn also has an entry in a sorted set of due turns
(`storage.DUE_KEY`, member `<match>:<version>`, score: when to look at it
next), written before the move that makes it the bot's turn is saved. The
sweeper reads only the entries that are due, so its work grows with pending
bot turns, not with matches. A turn is recovered (re-enqueued) at most
`MAX_RECOVERIES` times; then it shows as `failed` and gets a fresh budget
`BOT_RETRY_SECONDS` later: never abandoned.

Two queues, served by every worker in this order: `BOT_QUEUE` for matches with
a human seat (someone is waiting for the bot), then `BOTS_ONLY_QUEUE`; a crowd
of bots-only matches never delays a person's game by more than the turns
already being thought about. The queues live on `QUEUE_REDIS_URL` (one Redis:
RQ does not work on a Cluster); the due set, the bot's progress and the
recovery locks live with the matches.
"""

from __future__ import annotations

import time

from redis import Redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from ai.levels import get_level
from api.runtime import metrics
from api.runtime.config import Config
from api.store import storage
from api.store.records import BotStatus

JOB_FUNCTION = "api.jobs.bot_turn.play_bot_turn"
#: A turn is re-enqueued at most this many times in a row by recovery (a bug must not loop
#: forever); then it is `failed` until BOT_RETRY_SECONDS later, with a fresh budget.
MAX_RECOVERIES = 5


def job_id_for(match_id: str, version: int) -> str:
    """The RQ job id of the bot turn at `version` of a match."""
    return f"bot-{match_id}-{version}"


class BotScheduler:
    """Enqueues bot turns, keeps the set of due turns, and re-enqueues those whose worker died."""

    def __init__(self, redis: Redis, store: storage.Store, config: Config):
        self.redis = redis  # the queues' Redis
        self.store = store  # the matches' (one Redis or a Cluster)
        self.config = config
        self.queue = Queue(config.BOT_QUEUE, connection=redis)
        self.bots_only_queue = Queue(config.BOTS_ONLY_QUEUE, connection=redis)

    def queue_for(self, humans: bool) -> Queue:
        """The queue of a turn: the first one when a person plays in the match."""
        return self.queue if humans else self.bots_only_queue

    # the due set ------------------------------------------------------------------------------

    def _patience(self, level_name: str) -> float:
        """How long a turn may go without news before it is presumed lost: its budget plus grace."""
        return get_level(level_name).seconds + self.config.BOT_GRACE_SECONDS

    def expect(self, match_id: str, version: int, level_name: str) -> None:
        """Note that the bot turn at `version` is coming (before the move that makes it is saved)."""
        self.store.mark_due(match_id, version, time.time() + self._patience(level_name))

    def done(self, match_id: str, version: int) -> None:
        """The bot turn at `version` is over: forget its due entry."""
        self.store.unmark_due(match_id, version)

    def due(self, by: float, limit: int = 500) -> list[tuple[str, int]]:
        """(match, version) of the bot turns to be looked at by `by` (epoch seconds)."""
        return self.store.due_turns(by, limit)

    # enqueueing -------------------------------------------------------------------------------

    def enqueue(self, match_id: str, version: int, level_name: str, humans: bool = True) -> Job | None:
        """Queue the bot turn at `version`, with a fresh recovery budget, unless its job exists."""
        job_id = job_id_for(match_id, version)
        if Job.exists(job_id, connection=self.redis):
            return None
        self.store.start_bot_turn(match_id, version)
        return self._enqueue(match_id, version, level_name, humans)

    def ensure(self, match_id: str, version: int, level_name: str, humans: bool = True) -> bool:
        """Re-enqueue the turn at `version` if its job is missing, failed or silent too long.

        Called when a view, a wait or the sweeper finds a bot to act; moves the turn's due
        entry to when it should next be looked at. Returns True when it re-enqueued.
        """
        now = time.time()
        job_id = job_id_for(match_id, version)
        try:
            job = Job.fetch(job_id, connection=self.redis)
            status = job.get_status(refresh=False)
        except NoSuchJobError:
            job, status = None, None
        progress = self.store.bot_progress(match_id)
        this_turn = progress.get("version") == str(version)
        if status in (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED):
            self.store.mark_due(match_id, version, now + self._patience(level_name))
            return False
        if status == JobStatus.STARTED:
            last = self._last_news(progress if this_turn else {}, job)
            if last is not None and now - last <= self._patience(level_name):
                self.store.mark_due(match_id, version, last + self._patience(level_name))
                return False
        recoveries = int(progress.get("recoveries", 0)) if this_turn else 0
        if this_turn and progress.get("status") == BotStatus.FAILED:
            retry_at = float(progress.get("retry_at", 0))
            if now < retry_at:
                self.store.mark_due(match_id, version, retry_at)
                return False
            recoveries = 0  # its time has come: a fresh budget
        elif recoveries >= MAX_RECOVERIES:
            retry_at = now + self.config.BOT_RETRY_SECONDS
            self.store.report_bot(match_id, {"version": version, "status": BotStatus.FAILED.value,
                                             "retry_at": repr(retry_at)}, self.config.IDLE_TTL_SECONDS)
            self.store.mark_due(match_id, version, retry_at)
            metrics.count_failed_turn(self.store.redis)
            return False
        if not self.store.claim_recovery(match_id, version, max(1, int(self.config.BOT_GRACE_SECONDS))):
            self.store.mark_due(match_id, version, now + self._patience(level_name))
            return False  # being re-enqueued by someone else right now
        if job is not None:
            job.delete()
        self.store.mark_due(match_id, version, now + self._patience(level_name))
        self.store.mark_bot(match_id, {"version": version, "status": BotStatus.QUEUED.value,
                                       "recoveries": recoveries + 1})
        self._enqueue(match_id, version, level_name, humans)
        metrics.count_recovered_turn(self.store.redis)
        return True

    @staticmethod
    def _last_news(progress: dict[str, str], job: Job | None) -> float | None:
        """When a started turn last reported (its heartbeat, else when its job started)."""
        if progress.get("heartbeat"):
            return float(progress["heartbeat"])
        if job is not None and job.started_at is not None:
            return job.started_at.timestamp()
        return None

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
