"""Scheduling bot turns on RQ, from the web side: enqueue once per version, recover stuck turns.

The job is named by dotted path (`api.jobs.bot_turn.play_bot_turn`) so the web process
never imports the search. A turn's job id is `bot-<match>-<version>`: it is
queued at most once, and a job for an older version finds nothing to do.

The match, not RQ, says whether a turn is being played: the worker that plays
it claims it with a lease it renews while it searches (`storage.claim_turn`).
A turn is recovered only when nobody holds its lease and its job waits in no
queue, for longer than `BOT_GRACE_SECONDS` (the time a worker takes from
taking a job to claiming it): a worker that died before it claimed, or whose
lease ran out. A slow turn keeps its lease and is never queued twice; a turn
played twice all the same is harmless (compare-and-set keeps the first move).

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

import contextlib
import time
from datetime import UTC, datetime, timedelta

from redis import Redis
from rq import Queue, Retry, Worker
from rq.exceptions import NoSuchJobError
from rq.intermediate_queue import IntermediateQueue
from rq.job import Job
from rq.worker_registration import clean_worker_registry

from ai.levels import get_level
from api.runtime import metrics
from api.runtime.config import Config
from api.store import storage
from api.store.records import BotStatus

JOB_FUNCTION = "api.jobs.bot_turn.play_bot_turn"
#: A turn is re-enqueued at most this many times in a row by recovery (a bug must not loop
#: forever); then it is `failed` until BOT_RETRY_SECONDS later, with a fresh budget.
MAX_RECOVERIES = 5


def job_id_for(match_id: str, version: int, attempt: int = 0) -> str:
    """The RQ job id of the bot turn at `version` of a match (a recovery's: its `attempt`, so
    that what RQ does later with the lost job's id never touches the new one)."""
    return f"bot-{match_id}-{version}" if attempt == 0 else f"bot-{match_id}-{version}-r{attempt}"


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

    def ensure(self, match_id: str, version: int, level_name: str, humans: bool = True,
               timeout: bool = False) -> bool:
        """Re-enqueue the turn at `version` if it is lost: nobody holds its lease and its job waits
        in no queue, and it has been so for `BOT_GRACE_SECONDS`.

        Called when a view, a wait or the sweeper finds a bot to act (`timeout`: for a seat whose
        clock ran out: queued at once); moves the turn's due entry to when it should next be
        looked at. Returns True when it (re-)enqueued.
        """
        now = time.time()
        grace = self.config.BOT_GRACE_SECONDS
        claim = self.store.turn_claim(match_id)
        if claim is not None and claim[0] == version:  # a worker plays it: look again when its lease ends
            self.store.mark_due(match_id, version, claim[2] + grace)
            return False
        progress = self.store.bot_progress(match_id)
        this_turn = progress.get("version") == str(version)
        if timeout and not this_turn:  # a seat whose clock ran out: its turn is queued here, at once
            return self.enqueue(match_id, version, level_name, humans) is not None
        if not this_turn:  # not queued yet: the process that saved the move is about to, or died first
            progress = {"version": str(version), "status": BotStatus.QUEUED.value, "recoveries": "0"}
            self.store.mark_bot(match_id, progress)
        attempt = int(progress.get("recoveries", 0))
        if self._waiting(job_id_for(match_id, version, attempt)):
            self.store.mark_due(match_id, version, now + self._patience(level_name))
            return False
        recoveries = attempt
        if progress.get("status") == BotStatus.FAILED:
            retry_at = float(progress.get("retry_at", 0))
            if now < retry_at:
                self.store.mark_due(match_id, version, retry_at)
                return False
            recoveries = 0  # its time has come: a fresh budget
        else:
            unclaimed_since = float(progress.get("unclaimed_since", 0))
            if not unclaimed_since or now - unclaimed_since < grace:
                if not unclaimed_since:  # perhaps a worker has just taken it: give it the grace to claim
                    self.store.mark_bot(match_id, {"version": version, "unclaimed_since": repr(now)})
                self.store.mark_due(match_id, version, (unclaimed_since or now) + grace)
                return False
            if recoveries >= MAX_RECOVERIES:
                retry_at = now + self.config.BOT_RETRY_SECONDS
                self.store.report_bot(match_id, {"version": version, "status": BotStatus.FAILED.value,
                                                 "retry_at": repr(retry_at)}, self.config.IDLE_TTL_SECONDS)
                self.store.mark_due(match_id, version, retry_at)
                metrics.count_failed_turn(self.store.redis)
                return False
        if not self.store.claim_recovery(match_id, version, max(1, int(grace))):
            self.store.mark_due(match_id, version, now + grace)
            return False  # being re-enqueued by someone else right now
        self._forget_job(job_id_for(match_id, version, attempt))
        self.store.mark_due(match_id, version, now + self._patience(level_name))
        self.store.mark_bot(match_id, {"version": version, "status": BotStatus.QUEUED.value,
                                       "recoveries": recoveries + 1, "unclaimed_since": "0"})
        self._enqueue(match_id, version, level_name, humans, attempt=recoveries + 1)
        metrics.count_recovered_turn(self.store.redis)
        return True

    def forget_dead_workers(self) -> int:
        """Take the workers that died out of RQ's registry: those whose registration ran out, and
        those silent for twice READY_WORKER_SECONDS (a live one beats every few seconds, busy or
        not; RQ itself would list a killed one for its time to live plus a minute). How many."""
        silent_since = datetime.now(UTC) - timedelta(seconds=2 * self.config.READY_WORKER_SECONDS)
        dead = 0
        for name in (self.config.BOT_QUEUE, self.config.BOTS_ONLY_QUEUE, self.config.ANALYSIS_QUEUE):
            queue = Queue(name, connection=self.redis)
            clean_worker_registry(queue)
            for worker in Worker.all(queue=queue):
                if worker.last_heartbeat is not None and worker.last_heartbeat < silent_since:
                    worker.register_death()  # type: ignore[no-untyped-call]
                    dead += 1
        return dead

    def claim(self, match_id: str, version: int, holder: str) -> bool:
        """Take the lease on the turn at `version` (False: another worker holds it)."""
        return self.store.claim_turn(match_id, version, holder, self.config.BOT_LEASE_SECONDS)

    def renew(self, match_id: str, version: int, holder: str) -> bool:
        """Extend `holder`'s lease while it searches (False: the turn was presumed lost and given away)."""
        return self.store.renew_claim(match_id, version, holder, self.config.BOT_LEASE_SECONDS)

    def _waiting(self, job_id: str) -> bool:
        """Whether the job waits in one of the bot queues (not merely says so: RQ's status of a
        job a worker took and died with still reads `queued`)."""
        return any(self.redis.lpos(queue.key, job_id) is not None
                   for queue in (self.queue, self.bots_only_queue))

    def _forget_job(self, job_id: str) -> None:
        """Delete a lost job's record (it would never expire) and take it out of the list of jobs
        taken by workers, where a worker that died left it."""
        for queue in (self.queue, self.bots_only_queue):
            self.redis.lrem(IntermediateQueue.get_intermediate_queue_key(queue.key), 0, job_id)
        with contextlib.suppress(NoSuchJobError):
            Job.fetch(job_id, connection=self.redis).delete()

    def _enqueue(self, match_id: str, version: int, level_name: str, humans: bool, attempt: int = 0) -> Job:
        level = get_level(level_name)
        return self.queue_for(humans).enqueue(
            JOB_FUNCTION,
            match_id,
            version,
            job_id=job_id_for(match_id, version, attempt),
            retry=Retry(max=2),
            job_timeout=int(level.seconds * 4) + 60,
            result_ttl=600,
            failure_ttl=3600,
            description=f"bot turn {version} of match {match_id} ({level.name})",
        )
