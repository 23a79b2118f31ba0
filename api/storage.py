"""Redis storage of matches: every key built here, every write a compare-and-set on the version.

One match lives under one hash tag (`coven:{m:<id>}:…`), so all its keys share
a cluster slot and one MULTI/EXEC can change them together:

- `…:match`    hash: game, snapshot (engine `encode`), version, status, seats,
                options, seed, seeded, history length, created/updated
- `…:history`  list: every applied move's JSON, chance outcomes included (append-only)
- `…:bot`      hash: the bot turn at hand (version, status, iterations, heartbeat,
                recoveries so far, retry_at once failed)
- `…:idem:<seat>:<digest>` string: a stored response for an Idempotency-Key
- `…:events`   pub/sub channel: one message per change, for long-polls and SSE

Plus two global sorted sets: `coven:index`, the matches that can be listed, and
`coven:bots:due`, the pending bot turns (`<match>:<version>`) by when the sweeper
should look at them next; keys that span matches are written outside a match's
transaction (cluster slot rules).
The storage takes a binary client, of one Redis or of a Redis Cluster (every
transaction touches one match's keys, so one slot), and decodes itself.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any, TypeVar

from redis import Redis
from redis.client import Pipeline
from redis.cluster import ClusterPipeline, RedisCluster
from redis.exceptions import WatchError

from api.records import LISTED, BotStatus, MatchRecord, MatchStatus, text

T = TypeVar("T")

PREFIX = "coven"
INDEX_KEY = f"{PREFIX}:index"
DUE_KEY = f"{PREFIX}:bots:due"


# --- keys: built here and nowhere else ----------------------------------------


def _tag(match_id: str) -> str:
    return f"{PREFIX}:{{m:{match_id}}}"


def match_key(match_id: str) -> str:
    """The hash holding a match's snapshot and metadata."""
    return f"{_tag(match_id)}:match"


def history_key(match_id: str) -> str:
    """The append-only list of a match's moves (JSON)."""
    return f"{_tag(match_id)}:history"


def bot_key(match_id: str) -> str:
    """The hash where the worker reports a thinking bot's progress."""
    return f"{_tag(match_id)}:bot"


def recovery_key(match_id: str, version: int) -> str:
    """A short-lived lock so that one stuck bot turn is re-enqueued once."""
    return f"{_tag(match_id)}:recover:{version}"


def idempotency_key(match_id: str, seat: int, key: str) -> str:
    """Where the response to an Idempotency-Key is kept, scoped to one match and seat."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return f"{_tag(match_id)}:idem:{seat}:{digest}"


def ticket_key(match_id: str, ticket: str) -> str:
    """Where a stream ticket's seat is kept: by the ticket's hash, in the match's slot."""
    digest = hashlib.sha256(ticket.encode()).hexdigest()
    return f"{_tag(match_id)}:ticket:{digest}"


def analysis_key(match_id: str, analysis_id: str) -> str:
    """The hash holding one analysis request of a match and, once done, its result."""
    return f"{_tag(match_id)}:analysis:{analysis_id}"


def channel_for(match_id: str) -> str:
    """The pub/sub channel announcing a match's changes."""
    return f"{_tag(match_id)}:events"


def keys_of(match_id: str) -> list[str]:
    """Every long-lived key of a match (they share one expiry)."""
    return [match_key(match_id), history_key(match_id), bot_key(match_id)]


# --- the store ------------------------------------------------------------------


class Store:
    """Reads and compare-and-set writes of matches on one Redis connection."""

    def __init__(self, redis: Redis | RedisCluster, ttl_for_status: Callable[[MatchStatus], int]):
        self.redis = redis
        self.ttl_for_status = ttl_for_status

    def load(self, match_id: str, pipe: Redis | RedisCluster | Pipeline | ClusterPipeline | None = None) -> MatchRecord | None:
        """The stored match, or None when it does not exist (or expired)."""
        raw = (pipe or self.redis).hgetall(match_key(match_id))
        return MatchRecord.from_redis(raw) if raw else None

    def history(self, match_id: str) -> list[Any]:
        """Every move of the match, as JSON, in order."""
        return [json.loads(item) for item in self.redis.lrange(history_key(match_id), 0, -1)]

    def write(self, pipe: Pipeline, record: MatchRecord, appended: list[Any]) -> None:
        """Queue (inside MULTI) the writes that store `record` and append moves to its history."""
        mid = record.id
        pipe.hset(match_key(mid), mapping=record.to_redis())
        if appended:
            pipe.rpush(history_key(mid), *[json.dumps(m, separators=(",", ":")) for m in appended])
        ttl = self.ttl_for_status(record.status)
        for key in keys_of(mid):
            pipe.expire(key, ttl)

    def create(self, record: MatchRecord, history: list[Any]) -> None:
        """Store a new match (its id is fresh, so no compare-and-set is needed)."""
        with self.redis.pipeline(transaction=True) as pipe:
            self.write(pipe, record, history)
            pipe.execute()
        self.after_write(record)

    def transact(self, match_id: str, change: Callable[[Pipeline], T], *watch: str) -> T:
        """Run `change(pipe)` under WATCH of the match (and `watch`), retrying on WatchError.

        `change` reads with the pipe in immediate mode, calls `pipe.multi()`,
        queues its writes and returns; EXEC then succeeds only if nothing it
        watched changed meanwhile, else the whole change runs again.
        """
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(match_key(match_id), *watch)
                    result = change(pipe)
                    if len(pipe):  # writes queued after MULTI (a cluster pipeline has no explicit_transaction)
                        pipe.execute()
                    else:
                        pipe.unwatch()
                    return result
                except WatchError:
                    continue

    def after_write(self, record: MatchRecord) -> None:
        """Keep the listing index in step and wake every waiter of the match."""
        if record.status in LISTED:
            self.redis.zadd(INDEX_KEY, {record.id: record.created})
        else:
            self.redis.zrem(INDEX_KEY, record.id)
        self.publish(record.id, {"kind": "match", "version": record.version})

    def publish(self, match_id: str, message: dict[str, Any]) -> None:
        """Announce a change on the match's channel."""
        self.redis.publish(channel_for(match_id), json.dumps(message))

    def listed(self, limit: int) -> list[MatchRecord]:
        """Waiting and active matches, newest first; forgets index entries that expired."""
        return self._records([text(raw) for raw in self.redis.zrevrange(INDEX_KEY, 0, limit * 4)])

    def _records(self, ids: list[str]) -> list[MatchRecord]:
        """The records of `ids` that still exist; index entries of expired ones are forgotten."""
        if not ids:
            return []
        with self.redis.pipeline(transaction=False) as pipe:
            for mid in ids:
                pipe.hgetall(match_key(mid))
            raws = pipe.execute()
        records, gone = [], []
        for mid, raw in zip(ids, raws, strict=True):
            if raw:
                records.append(MatchRecord.from_redis(raw))
            else:
                gone.append(mid)
        if gone:
            self.redis.zrem(INDEX_KEY, *gone)
        return records

    # idempotency records -----------------------------------------------------------

    def idempotent_response(self, pipe: Redis | RedisCluster | Pipeline | ClusterPipeline, key: str) -> dict[str, Any] | None:
        raw = pipe.get(key)
        return json.loads(raw) if raw else None

    # bot progress ---------------------------------------------------------------------

    def bot_progress(self, match_id: str) -> dict[str, str]:
        """What the worker last reported for the bot to act (empty when nothing)."""
        raw = self.redis.hgetall(bot_key(match_id))
        return {text(key): text(value) for key, value in raw.items()}

    def claim_recovery(self, match_id: str, version: int, seconds: int) -> bool:
        """Take the short lock under which one process re-enqueues a stuck turn (False: taken)."""
        return bool(self.redis.set(recovery_key(match_id, version), "1", nx=True, ex=seconds))

    def mark_bot(self, match_id: str, fields: dict[str, Any]) -> None:
        """Overwrite some fields of the bot's progress (recovery marks a turn queued again)."""
        self.redis.hset(bot_key(match_id), mapping={name: str(value) for name, value in fields.items()})

    def start_bot_turn(self, match_id: str, version: int) -> None:
        """Forget what the bot did on earlier turns: the turn at `version` starts queued, unrecovered."""
        key = bot_key(match_id)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            pipe.hset(key, mapping={"version": str(version), "status": BotStatus.QUEUED.value,
                                    "recoveries": "0"})
            pipe.expire(key, self.ttl_for_status(MatchStatus.ACTIVE))
            pipe.execute()

    def report_bot(self, match_id: str, fields: dict[str, Any], ttl: int) -> None:
        """Record a bot's progress (the worker's heartbeat) and announce it."""
        key = bot_key(match_id)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={name: str(value) for name, value in fields.items()})
            pipe.expire(key, ttl)
            pipe.execute()
        self.publish(match_id, {"kind": "bot", "version": int(fields.get("version", 0))})

    # due bot turns --------------------------------------------------------------------

    def mark_due(self, match_id: str, version: int, when: float) -> None:
        """Have the sweeper look at the bot turn at `version` at `when` (epoch seconds)."""
        self.redis.zadd(DUE_KEY, {f"{match_id}:{version}": when})

    def unmark_due(self, match_id: str, version: int) -> None:
        """The bot turn at `version` needs no more looking after."""
        self.redis.zrem(DUE_KEY, f"{match_id}:{version}")

    def due_turns(self, now: float, limit: int) -> list[tuple[str, int]]:
        """(match, version) of at most `limit` bot turns due by `now`, the most overdue first."""
        turns = []
        for member in self.redis.zrangebyscore(DUE_KEY, "-inf", now, start=0, num=limit):
            match_id, _, version = text(member).rpartition(":")
            turns.append((match_id, int(version)))
        return turns
