"""Analysis for players: a search of the position to act, queued for the workers, read back later.

Whoever asks may see only what their seat may see: in a game with hidden information
only the seat to act may analyse, and its search samples worlds from that seat's
information alone (`Game.determinize`), like its bot would. In an open game anyone,
spectators included, may analyse the seat to act. Results live an hour.

Analyses have a queue of their own (`ANALYSIS_QUEUE`), served by workers of their own at a
lower CPU priority, or by the bot workers only when no bot turn waits: an analysis never
delays a bot's move. A client address and a match may each have only a few in flight.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from redis import Redis
from redis.cluster import RedisCluster
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from api.runtime.config import Config
from api.service.errors import AnalysisNotFound, NotAllowed, NothingToDo, TooManyAnalyses
from api.service.model import Caller
from api.store import storage
from api.store.records import MatchStatus, text

JOB_FUNCTION = "api.jobs.analysis.run_analysis"
#: Simulations of an analysis when the request names none, and the most it may ask for.
DEFAULT_SIMULATIONS = 3000
MAX_SIMULATIONS = 20000
#: The most moves a result lists, best first.
TOP_MOVES = 5
#: An analysis and its result are kept this long.
ANALYSIS_TTL_SECONDS = 3600
#: Its RQ job may run this long; an analysis in flight counts against its caps this long at most.
JOB_TIMEOUT_SECONDS = 120


class AnalysisStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    STALE = "stale"    # the match moved on before a worker took it: nothing was searched
    FAILED = "failed"


@dataclass(frozen=True)
class Analysis:
    """One analysis request and, once done, its result (what the schema dumps)."""

    id: str
    match: str
    version: int
    seat: int
    requested_by: int | None   # the seat that asked; None for a spectator of an open game
    status: AnalysisStatus
    simulations: int           # asked for
    result: dict[str, Any] | None

    @classmethod
    def from_hash(cls, analysis_id: str, data: dict[str, str]) -> Analysis:
        requested_by = data.get("requested_by", "")
        return cls(
            id=analysis_id,
            match=data["match"],
            version=int(data["version"]),
            seat=int(data["seat"]),
            requested_by=int(requested_by) if requested_by else None,
            status=AnalysisStatus(data["status"]),
            simulations=int(data["simulations"]),
            result=json.loads(data["result"]) if data.get("result") else None,
        )


def request(redis: Redis | RedisCluster, config: Config, caller: Caller, simulations: int,
            queue: Redis | None = None, address: str = "unknown") -> Analysis:
    """Queue an analysis of the position to act, if the caller may see what it needs and neither
    its `address` nor the match has its cap of analyses in flight (stored with the match on
    `redis`; queued on the analysis queue of `queue`, the bot queues' Redis, by default `redis`)."""
    record, game = caller.record, caller.game
    seat = caller.to_act
    if record.status != MatchStatus.ACTIVE or seat is None:
        raise NothingToDo(f"the match is {record.status.value}: no seat is to act",
                          match_status=record.status)
    if game.info.hidden_information and caller.seat != seat:
        who = "a spectator" if caller.seat is None else f"seat {caller.seat}"
        raise NotAllowed(
            f"{game.info.title} hides information: only the seat to act (seat {seat}) may analyse "
            f"its decision, not {who}"
        )
    analysis = Analysis(
        id=secrets.token_hex(8), match=record.id, version=record.version, seat=seat,
        requested_by=caller.seat, status=AnalysisStatus.QUEUED, simulations=simulations, result=None,
    )
    queues = queue if queue is not None else redis
    if not isinstance(queues, Redis):
        raise TypeError("RQ needs a single Redis for the bot queues: pass queue")
    store = storage.Store(redis, lambda status: ANALYSIS_TTL_SECONDS)
    slots = in_flight_keys(record.id, address)
    if not store.take_analysis_slot(slots, analysis.id, [config.ANALYSES_PER_MATCH, config.ANALYSES_PER_ADDRESS],
                                    until=time.time() + JOB_TIMEOUT_SECONDS):
        raise TooManyAnalyses(
            f"at most {config.ANALYSES_PER_MATCH} analyses per match and {config.ANALYSES_PER_ADDRESS} per "
            "client address may be queued or running at once: ask again when one is done"
        )
    key = storage.analysis_key(record.id, analysis.id)
    redis.hset(key, mapping={
        "match": record.id, "version": record.version, "seat": seat,
        "requested_by": "" if caller.seat is None else caller.seat, "address": address,
        "status": analysis.status.value, "simulations": simulations, "requested": repr(time.time()),
    })
    redis.expire(key, ANALYSIS_TTL_SECONDS)
    Queue(config.ANALYSIS_QUEUE, connection=queues).enqueue(
        JOB_FUNCTION, record.id, analysis.id,
        job_id=job_id_for(record.id, analysis.id),
        job_timeout=JOB_TIMEOUT_SECONDS, result_ttl=60, failure_ttl=ANALYSIS_TTL_SECONDS,
        description=f"analysis {analysis.id} of match {record.id} at version {record.version}",
    )
    return analysis


def fetch(redis: Redis | RedisCluster, caller: Caller, analysis_id: str, queue: Redis | None = None) -> Analysis:
    """An analysis of this match, for whoever may read it (the seat that asked, or anyone once over);
    its job is looked up on `queue`, the bot queues' Redis (default: `redis`)."""
    data = load(redis, caller.record.id, analysis_id)
    if data is None:
        raise AnalysisNotFound(f"no analysis {analysis_id!r} of this match (they are kept an hour)")
    analysis = Analysis.from_hash(analysis_id, data)
    if analysis.status in (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING) and _job_failed(queue if queue is not None else _single(redis), analysis):
        report(redis, analysis.match, analysis.id, AnalysisStatus.FAILED)
        analysis = replace(analysis, status=AnalysisStatus.FAILED)
    finished = caller.record.status == MatchStatus.FINISHED
    if analysis.requested_by is not None and caller.seat != analysis.requested_by and not finished:
        raise NotAllowed("this analysis belongs to another seat until the match is over")
    return analysis


def in_flight_keys(match_id: str, address: str) -> list[str]:
    """Where an analysis counts while queued or running: its match's set, its address's set."""
    return [storage.match_analyses_key(match_id), storage.address_analyses_key(address)]


def finished(redis: Redis | RedisCluster, match_id: str, analysis_id: str, address: str) -> None:
    """The analysis is over (done, stale or failed): it no longer counts against its caps."""
    storage.Store(redis, lambda status: ANALYSIS_TTL_SECONDS).free_analysis_slot(
        in_flight_keys(match_id, address), analysis_id)


def job_id_for(match_id: str, analysis_id: str) -> str:
    """The RQ job id of an analysis."""
    return f"analysis-{match_id}-{analysis_id}"


def _job_failed(redis: Redis, analysis: Analysis) -> bool:
    """Whether the worker's job for an unfinished analysis failed, or is gone (expired, lost)."""
    try:
        status = Job.fetch(job_id_for(analysis.match, analysis.id), connection=redis).get_status()
    except NoSuchJobError:
        return True
    return status in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED)


def load(redis: Redis | RedisCluster, match_id: str, analysis_id: str) -> dict[str, str] | None:
    """The stored fields of an analysis, decoded; None when unknown or expired."""
    raw = redis.hgetall(storage.analysis_key(match_id, analysis_id))
    return {text(k): text(v) for k, v in raw.items()} if raw else None


def report(redis: Redis | RedisCluster, match_id: str, analysis_id: str, status: AnalysisStatus,
           result: dict[str, Any] | None = None) -> None:
    """Record an analysis's new status (and its result), keeping its expiry."""
    key = storage.analysis_key(match_id, analysis_id)
    if result is None:
        redis.hset(key, "status", status.value)
    else:
        redis.hset(key, mapping={"status": status.value, "result": json.dumps(result, separators=(",", ":"))})


def _single(redis: Redis | RedisCluster) -> Redis:
    """The bot queues' Redis when the caller named none: the matches' own, a single Redis."""
    if not isinstance(redis, Redis):
        raise TypeError("RQ needs a single Redis for the bot queues: pass queue")
    return redis
