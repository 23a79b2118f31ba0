"""Redis storage of matches: every key built here, every write a compare-and-set on the version.

One match lives under one hash tag (`coven:{m:<id>}:…`), so all its keys share
a cluster slot and one MULTI/EXEC can change them together:

- `…:record`   string: the match as it stands (msgpack, `MatchRecord.to_stored`): game, options,
                seats (token hashes as bytes), seed, status, version, lifecycle, and the engine's
                snapshot of the current state, so that a view of the current version replays nothing
- `…:log`      list: one entry per version (`api.store.records.log_entry`): when it was made, the
                moves it appended (chance outcomes included, each as its index among the legal
                moves or chance outcomes, `api.store.history`) and the fields of the record that changed
                (no snapshot, seed nor tokens). An older version's view replays the history up
                to it with the engine, which is deterministic. Its length is the version
- `…:bot`      hash: the bot turn at hand (version, status, iterations, heartbeat,
                recoveries so far, retry_at once failed)
- `…:idem:<seat>:<digest>` string: a stored response for an Idempotency-Key
- `…:seen`     hash: seat → when that seat last acted or polled (presence)
- `…:events`   pub/sub channel: one message per change, for long-polls and SSE

Matches stored by the old format (a `…:match` hash with the snapshot in JSON, a `…:history`
list of JSON moves and a `…:versions` list of whole records) are read as they are, and moved
to the new keys by their next change.

Plus the lobby's sorted sets of the public matches that can be listed (waiting or active;
private ones are never in them), scored by creation time: `coven:index` (all of them),
`coven:lobby:<game|*>:<status|*>` (exact filters by game, by status, by both);
`coven:bots:due`, the pending turns (`<match>:<version>`) by when the sweeper should look
at them next: a bot's turn, or a human's on a clock, at its deadline; and per client
address a sorted set of the waiting matches it opened (`coven:open-by:<address>`). Keys
that span matches are written after a match's transaction, never inside it (cluster slot
rules).
The storage takes a binary client, of one Redis or of a Redis Cluster (every
transaction touches one match's keys, so one slot), and decodes itself.
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple, TypeAlias, TypeVar, cast

from redis import Redis
from redis.client import Pipeline
from redis.cluster import ClusterPipeline, RedisCluster
from redis.commands.core import DataAccessCommands, PubSubCommands
from redis.exceptions import WatchError

from api.store.records import (
    LISTED,
    BotStatus,
    MatchRecord,
    MatchStatus,
    Visibility,
    binary,
    fold_log,
    legacy_log,
    log_entry,
    text,
)
from engine import all_games

T = TypeVar("T")

PREFIX = "coven"
INDEX_KEY = f"{PREFIX}:index"
DUE_KEY = f"{PREFIX}:bots:due"


# --- keys: built here and nowhere else ----------------------------------------


def _tag(match_id: str) -> str:
    return f"{PREFIX}:{{m:{match_id}}}"


def match_key(match_id: str) -> str:
    """The string holding a match's record (`MatchRecord.to_stored`)."""
    return f"{_tag(match_id)}:record"


def log_key(match_id: str) -> str:
    """The append-only list of a match's versions (`api.store.records.log_entry`)."""
    return f"{_tag(match_id)}:log"


def legacy_keys(match_id: str) -> list[str]:
    """The keys of a match the old format stored: its hash, its history, its list of versions."""
    return [f"{_tag(match_id)}:{name}" for name in ("match", "history", "versions")]


def bot_key(match_id: str) -> str:
    """The hash where the worker reports a thinking bot's progress."""
    return f"{_tag(match_id)}:bot"


def seen_key(match_id: str) -> str:
    """The hash of when each seat last acted or polled."""
    return f"{_tag(match_id)}:seen"


def claim_key(match_id: str) -> str:
    """The lease of the worker playing the match's bot turn: `<version>:<holder>`, expiring."""
    return f"{_tag(match_id)}:claim"


def recovery_key(match_id: str, version: int) -> str:
    """A short-lived lock so that one stuck bot turn is re-enqueued once."""
    return f"{_tag(match_id)}:recover:{version}"


#: Bytes of a key's digest and of a request's fingerprint an Idempotency-Key's record keeps (64
#: bits each: two keys of one seat in one match, or two requests under one key, never meet).
RECORD_DIGEST_BYTES = 8


class IdempotencyKey(NamedTuple):
    """Where an Idempotency-Key's record is kept: a field of the match's one hash of them (a key
    of its own cost ~230 bytes a move for a day, more than the match itself), scoped to a seat;
    `legacy`: the key of its own a record had before."""

    key: str
    field: bytes  # the seat's digit, then the first RECORD_DIGEST_BYTES of the key's SHA-256
    legacy: str


def idempotency_key(match_id: str, seat: int, key: str) -> IdempotencyKey:
    """Where the record of an Idempotency-Key (or a socket move's `ws:<ref>`) is kept."""
    digest = hashlib.sha256(key.encode())
    return IdempotencyKey(f"{_tag(match_id)}:idem", str(seat).encode() + digest.digest()[:RECORD_DIGEST_BYTES],
                          f"{_tag(match_id)}:idem:{seat}:{digest.hexdigest()[:32]}")


def ticket_key(match_id: str, ticket: str) -> str:
    """Where a stream ticket's seat is kept: by the ticket's hash, in the match's slot."""
    digest = hashlib.sha256(ticket.encode()).hexdigest()
    return f"{_tag(match_id)}:ticket:{digest}"


def analysis_key(match_id: str, analysis_id: str) -> str:
    """The hash holding one analysis request of a match and, once done, its result."""
    return f"{_tag(match_id)}:analysis:{analysis_id}"


def match_analyses_key(match_id: str) -> str:
    """The analyses of a match queued or running, scored by when they are presumed over."""
    return f"{_tag(match_id)}:analyses"


def address_analyses_key(address: str) -> str:
    """The analyses a client address has queued or running, scored by when they are presumed over."""
    return f"{PREFIX}:analyses:by:{address}"


def channel_for(match_id: str) -> str:
    """The pub/sub channel announcing a match's changes."""
    return f"{_tag(match_id)}:events"


def open_matches_key(owner: str) -> str:
    """The sorted set of the matches one client address opened (to cap those left waiting)."""
    return f"{PREFIX}:open-by:{owner}"


def lobby_key(game: str | None, status: str | None) -> str:
    """The sorted set of listed matches of one game and/or status (both None: all of them)."""
    if game is None and status is None:
        return INDEX_KEY
    return f"{PREFIX}:lobby:{game or '*'}:{status or '*'}"


#: The lobby's index of each listed status (for counting matches by status).
STATUS_INDEXES = {status.value: lobby_key(None, status) for status in LISTED}


def keys_of(match_id: str) -> list[str]:
    """Every long-lived key of a match (they share one expiry)."""
    return [match_key(match_id), log_key(match_id), bot_key(match_id), seen_key(match_id)]


# --- compare-and-set in one round trip ------------------------------------------------

#: The writes of a change run only if the match is still at the version they were computed from
#: and no guard field exists (an Idempotency-Key's record): KEYS[1] the match's record, KEYS[2] its
#: log (whose length is the version), KEYS[3] its hash in the old format (which has a version
#: field), KEYS[4..g+3] the guards' hashes, the rest the keys written (declared for Redis Cluster;
#: one slot). ARGV: the version, g, the number of commands, the g guards' fields, then each command
#: as its argument count and its arguments.
COMPARE_AND_SET = """
local version
if redis.call('EXISTS', KEYS[1]) == 1 then
  version = tostring(redis.call('LLEN', KEYS[2]))
else
  version = redis.call('HGET', KEYS[3], 'version')
end
if version ~= ARGV[1] then return 0 end
local guards = tonumber(ARGV[2])
for i = 1, guards do
  if redis.call('HEXISTS', KEYS[i + 3], ARGV[i + 3]) == 1 then return 0 end
end
local at = 4 + guards
for _ = 1, tonumber(ARGV[3]) do
  local count = tonumber(ARGV[at])
  redis.call(unpack(ARGV, at + 1, at + count))
  at = at + count + 1
end
return 1
"""


class WriteRecorder(DataAccessCommands, PubSubCommands):
    """Stands for a pipeline: keeps the write commands queued on it (with redis-py's own encoding
    of their arguments), for `Store.compare_and_set` to send in one script, or `Store.send` in
    one pipeline."""

    _is_async_client: Literal[False] = False
    _event_dispatcher: Any = None

    def __init__(self) -> None:
        self.commands: list[tuple[Any, ...]] = []

    def multi(self) -> None:
        """Nothing to start: the script is the transaction."""

    def execute_command(self, *args: Any, **options: Any) -> WriteRecorder:
        self.commands.append(args)
        return self


#: Where a change queues its writes: a pipeline after MULTI, or a recorder for a script.
Writes: TypeAlias = Pipeline | ClusterPipeline | WriteRecorder


# --- the store ------------------------------------------------------------------


class Store:
    """Reads and compare-and-set writes of matches on one Redis connection."""

    def __init__(self, redis: Redis | RedisCluster, ttl_for_status: Callable[[MatchStatus], int]):
        self._claim_script = redis.register_script(_CLAIM)
        self._renew_script = redis.register_script(_RENEW)
        self.redis = redis
        self.ttl_for_status = ttl_for_status
        self._compare_and_set = redis.register_script(COMPARE_AND_SET)

    def load(self, match_id: str, pipe: Redis | RedisCluster | Pipeline | ClusterPipeline | None = None) -> MatchRecord | None:
        """The stored match, or None when it does not exist (or expired)."""
        raw = (pipe or self.redis).get(match_key(match_id))
        if raw is not None:
            return MatchRecord.from_stored(match_id, binary(raw))
        return self._load_legacy(match_id, pipe or self.redis)

    def _load_legacy(self, match_id: str, client: Any) -> MatchRecord | None:
        """A match the old format stored (None: none), with its versions as log entries."""
        hash_key, history, versions = legacy_keys(match_id)
        raw = client.hgetall(hash_key)
        if not raw:
            return None
        record = MatchRecord.from_redis(raw)
        record.legacy_log = legacy_log([json.loads(item) for item in client.lrange(versions, 0, -1)],
                                       [json.loads(item) for item in client.lrange(history, 0, -1)], record)
        return record

    def timeline(self, record: MatchRecord, last: int | None = None) -> tuple[list[dict[str, Any]], list[Any]]:
        """The `version_json` of versions 1 to `last` (None: all) of a match, and its history up
        to `last` (entries of `api.store.history`), from its log."""
        if last is not None and last < 1:
            return [], []
        stop = -1 if last is None else last - 1
        if record.legacy_log is not None:
            entries = record.legacy_log[:None if last is None else last]
        else:
            entries = [binary(raw) for raw in self.redis.lrange(log_key(record.id), 0, stop)]
        return fold_log(entries)

    def load_for_view(self, match_id: str) -> tuple[MatchRecord | None, dict[int, float], dict[str, str]]:
        """The match, when each seat was last seen and the bot's progress: one round trip (the
        three keys share the match's slot; a match of the old format takes more)."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(match_key(match_id))
            pipe.hgetall(seen_key(match_id))
            pipe.hgetall(bot_key(match_id))
            raw, seen, bot = pipe.execute()
        record = MatchRecord.from_stored(match_id, binary(raw)) if raw is not None else \
            self._load_legacy(match_id, self.redis)
        if record is None:
            return None, {}, {}
        return record, _seen_times(seen), {text(k): text(v) for k, v in bot.items()}

    def write(self, pipe: Writes, record: MatchRecord, appended: list[Any],
              before: dict[str, Any] | None = None) -> None:
        """Queue (inside MULTI) the writes that store `record` and log its new version, which
        appended `appended` (entries of `api.store.history`) to the history. `before` is the stored
        version's `version_json` when the caller took it before changing the record (else it is
        read back from the stored bytes)."""
        mid = record.id
        if record.legacy_log is not None:  # moved to the new keys, with every version it had
            versions, _ = fold_log(record.legacy_log)
            before = versions[-1] if versions else {}
            pipe.delete(*legacy_keys(mid))
            if record.legacy_log:
                pipe.rpush(log_key(mid), *record.legacy_log)
        elif record.stored is None:  # its first version
            before = {}
        elif before is None:
            before = MatchRecord.from_stored(mid, record.stored).version_json()
        ttl = self.ttl_for_status(record.status)
        stored = record.to_stored()
        pipe.set(match_key(mid), stored, ex=ttl)
        pipe.rpush(log_key(mid), log_entry(record, appended, before))
        for key in keys_of(mid)[1:]:
            pipe.expire(key, ttl)
        record.stored, record.legacy_log = stored, None

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
                    pipe.watch(match_key(match_id), legacy_keys(match_id)[0], *watch)
                    result = change(pipe)
                    if len(pipe):  # writes queued after MULTI (a cluster pipeline has no explicit_transaction)
                        pipe.execute()
                    else:
                        pipe.unwatch()
                    return result
                except WatchError:
                    continue

    def compare_and_set(self, match_id: str, version: int, writes: WriteRecorder,
                        absent: Sequence[IdempotencyKey] = (), then: WriteRecorder | None = None) -> bool:
        """Run the `writes` recorded for a match atomically, only if it is still at `version` and
        no record of `absent` exists: one round trip (a Lua script; every key in the match's slot).
        False when it moved on (or a guard record appeared): nothing was written then.

        `then` holds writes that span slots (the lobby, the due set, metrics, the notification),
        run once the change is saved: in the same script on a single Redis, in one pipeline
        right after it on a Cluster (whose scripts stay in one slot)."""
        cluster = isinstance(self.redis, RedisCluster)
        commands = writes.commands + (then.commands if then is not None and not cluster else [])
        keys = [match_key(match_id), log_key(match_id), legacy_keys(match_id)[0], *(guard.key for guard in absent)]
        argv: list[Any] = [version, len(absent), len(commands), *(guard.field for guard in absent)]
        for command in commands:
            if command[0] != "PUBLISH" and command[1] not in keys:
                keys.append(command[1])
            argv.extend((len(command), *command))
        saved = bool(self._compare_and_set(keys=keys, args=argv))
        if saved and then is not None and cluster:
            self.send(then)
        return saved

    def send(self, writes: WriteRecorder) -> None:
        """Send recorded writes in one pipeline (not a transaction; a Cluster's PUBLISH on its own,
        which its pipelines refuse)."""
        cluster = isinstance(self.redis, RedisCluster)
        published = [command for command in writes.commands if cluster and command[0] == "PUBLISH"]
        with self.redis.pipeline(transaction=False) as pipe:
            for command in writes.commands:
                if not (cluster and command[0] == "PUBLISH"):
                    pipe.execute_command(*command)
            pipe.execute()
        for command in published:
            self.redis.execute_command(*command)  # type: ignore[no-untyped-call]

    def after_write(self, record: MatchRecord, writes: WriteRecorder | None = None) -> None:
        """Keep the lobby's indices in step and wake every waiter of the match (with `writes` of
        the caller's in the same round trip).

        The indices span matches, so they are written here, after the match's transaction.
        """
        writes = writes if writes is not None else WriteRecorder()
        self.queue_after_write(writes, record)
        self.send(writes)

    def queue_after_write(self, writes: WriteRecorder, record: MatchRecord, relist: bool = True) -> None:
        """Queue what follows a saved change of `record`: its lobby indices (unless `relist` is False:
        its status and visibility are as they were), its notification."""
        if relist:
            self._queue_index(writes, record)
        writes.publish(channel_for(record.id), json.dumps({"kind": "match", "version": record.version}))

    def index(self, record: MatchRecord) -> None:
        """List a public `record` in the lobby indices of its game and status; unlist it from the others."""
        with self.redis.pipeline(transaction=False) as pipe:
            self._queue_index(pipe, record)
            pipe.execute()

    def _queue_index(self, pipe: Writes, record: MatchRecord) -> None:
        listed = record.status in LISTED and record.visibility == Visibility.PUBLIC
        for game in (None, record.game):
            for status in (None, *LISTED):
                key = lobby_key(game, status)
                if listed and status in (None, record.status):
                    pipe.zadd(key, {record.id: record.created})
                else:
                    pipe.zrem(key, record.id)

    def lobby_page(
        self, game: str | None, status: str | None, limit: int, after: tuple[float, str] | None = None,
    ) -> tuple[list[MatchRecord], tuple[float, str] | None]:
        """Up to `limit` listed matches of `game` and `status`, newest first, starting after the
        cursor `after` (creation time, id); and the cursor of the next page (None: no more).

        Index entries of matches that expired or moved on are dropped as they are met.
        """
        key = lobby_key(game, status)
        found: list[MatchRecord] = []
        cursor = after
        while len(found) <= limit:
            batch = self._entries_after(key, cursor, 2 * (limit + 1 - len(found)))
            if not batch:
                break
            for mid, record in zip(batch, self._load_many(batch), strict=True):
                if record is None:
                    self._unlist(mid)
                elif record.status not in LISTED or record.visibility != Visibility.PUBLIC or (
                        game and record.game != game) or (status and record.status != status):
                    self.index(record)  # an entry a crash left behind: set it right
                else:
                    found.append(record)
            last = self.redis.zscore(key, batch[-1])
            cursor = (last, batch[-1]) if last is not None else None
            if cursor is None:
                break
        page = found[:limit]
        more = len(found) > limit
        return page, ((page[-1].created, page[-1].id) if more and page else None)

    def _entries_after(self, key: str, cursor: tuple[float, str] | None, count: int) -> list[str]:
        """Up to `count` ids of `key`, newest first, after the entry `cursor` (score, id)."""
        if cursor is None:
            return [text(raw) for raw in self.redis.zrevrangebyscore(key, "+inf", "-inf", 0, count)]
        score, after_id = cursor
        # Equal scores come in reverse order of id: the ones below the cursor's id are still to come.
        same = [text(raw) for raw in self.redis.zrevrangebyscore(key, score, score)]
        ids = [mid for mid in same if mid < after_id]
        older = self.redis.zrevrangebyscore(key, f"({score!r}", "-inf", 0, count)
        return (ids + [text(raw) for raw in older])[:count]

    def _load_many(self, ids: list[str]) -> list[MatchRecord | None]:
        with self.redis.pipeline(transaction=False) as pipe:
            for mid in ids:
                pipe.get(match_key(mid))
            raws = pipe.execute()
        return [MatchRecord.from_stored(mid, binary(raw)) if raw is not None else self.load(mid)
                for mid, raw in zip(ids, raws, strict=True)]

    def _unlist(self, match_id: str) -> None:
        """Forget an expired match in every lobby index it may be in (its game is gone with it)."""
        keys = [lobby_key(game, status) for game in (None, *(g.info.id for g in all_games()))
                for status in (None, *LISTED)]
        with self.redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.zrem(key, match_id)
            pipe.execute()

    def now(self, pipe: Redis | Pipeline | None = None) -> float:
        """Redis's clock, in epoch seconds: every process measures turns by the same clock (on a
        Cluster, its default node's: a cluster pipeline cannot send TIME)."""
        if isinstance(self.redis, RedisCluster):
            seconds, micros = self.redis.time()
        else:
            seconds, micros = (pipe or self.redis).time()
        return seconds + micros / 1e6

    # presence ---------------------------------------------------------------------------

    def saw(self, match_id: str, seat: int, when: float, ttl: int, pipe: Writes | None = None) -> None:
        """Note that `seat` acted or polled at `when` (the key lives at most `ttl` more seconds);
        queued on `pipe` when given."""
        if pipe is not None:
            pipe.hset(seen_key(match_id), str(seat), repr(when))
            pipe.expire(seen_key(match_id), ttl)
            return
        with self.redis.pipeline(transaction=False) as own:
            self.saw(match_id, seat, when, ttl, own)
            own.execute()

    def delete(self, match_id: str) -> None:
        """Forget a match entirely (a follow-up created by a rematch that lost its race)."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.delete(*keys_of(match_id), *legacy_keys(match_id))
            pipe.execute()
        self._unlist(match_id)

    def last_seen(self, match_id: str) -> dict[int, float]:
        """When each seat last acted or polled (seats never seen are absent)."""
        return _seen_times(self.redis.hgetall(seen_key(match_id)))

    def publish(self, match_id: str, message: dict[str, Any]) -> None:
        """Announce a change on the match's channel."""
        self.redis.publish(channel_for(match_id), json.dumps(message))

    # open matches per client address ------------------------------------------------

    def waiting_matches_of(self, owner: str) -> list[str]:
        """The ids of the matches `owner` opened that still wait for players; forgets the rest."""
        key = open_matches_key(owner)
        ids = [text(raw) for raw in self.redis.zrange(key, 0, -1)]
        if not ids:
            return []
        waiting = [mid for mid, record in zip(ids, self._load_many(ids), strict=True)
                   if record is not None and record.status == MatchStatus.WAITING]
        if len(waiting) < len(ids):
            self.redis.zrem(key, *(set(ids) - set(waiting)))
        return waiting

    def first_expiry(self, match_ids: list[str]) -> int | None:
        """Whole seconds until the first of these matches expires (None: none has an expiry)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.ttl(match_key(match_id))
            left = [ttl for ttl in pipe.execute() if ttl is not None and ttl >= 0]
        return max(1, min(left)) if left else None

    def remember_open_match(self, owner: str, match_id: str, ttl: int) -> None:
        """Note that `owner` opened a waiting match (the set lives as long as its newest match)."""
        key = open_matches_key(owner)
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(key, {match_id: time.time()})
            pipe.expire(key, ttl)
            pipe.execute()

    # analyses in flight ------------------------------------------------------------

    def take_analysis_slot(self, keys: list[str], analysis_id: str, caps: list[int], until: float) -> bool:
        """Count an analysis against each of `keys` (a set per address, per match…), unless one is
        at its cap of analyses still in flight (False then). Entries past `until` time out."""
        now = time.time()
        for key, cap in zip(keys, caps, strict=True):
            with self.redis.pipeline(transaction=False) as pipe:
                pipe.zremrangebyscore(key, "-inf", now)
                pipe.zcard(key)
                if pipe.execute()[1] >= cap:
                    return False
        for key in keys:
            with self.redis.pipeline(transaction=False) as pipe:
                pipe.zadd(key, {analysis_id: until})
                pipe.expire(key, max(1, int(until - now) + 1))
                pipe.execute()
        return True

    def free_analysis_slot(self, keys: list[str], analysis_id: str) -> None:
        """The analysis is over: it no longer counts against `keys`."""
        for key in keys:
            self.redis.zrem(key, analysis_id)

    # idempotency records -----------------------------------------------------------

    def idempotent_response(self, idem: IdempotencyKey) -> dict[str, Any] | None:
        """What is kept for an Idempotency-Key (None: nothing): the request's fingerprint and the
        version its move made; a record of the older kinds (a key of its own, with the whole answer
        as JSON, later zlib-compressed) has the answer as `body` too. One round trip."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(idem.key, idem.field)
            pipe.get(idem.legacy)
            record, legacy = pipe.execute()
        if record:
            record = binary(record)
            return {"fingerprint": record[:RECORD_DIGEST_BYTES].hex(), "version": int(record[RECORD_DIGEST_BYTES:])}
        if not legacy:
            return None
        raw = binary(legacy)
        return cast(dict[str, Any], json.loads(raw if raw[:1] == b"{" else zlib.decompress(raw)))

    def keep_response(self, pipe: Writes, idem: IdempotencyKey, fingerprint: str, version: int, ttl: int) -> None:
        """Queue (inside MULTI) the record of an Idempotency-Key: the first RECORD_DIGEST_BYTES of the
        request's fingerprint (hex), then the version its move made in digits — ~25 bytes a record in
        the match's packed hash; the hash lives `ttl` seconds from its last record."""
        pipe.hset(idem.key, idem.field, bytes.fromhex(fingerprint[:2 * RECORD_DIGEST_BYTES]) + str(version).encode())
        pipe.expire(idem.key, ttl)

    # bot progress ---------------------------------------------------------------------

    def bot_progress(self, match_id: str) -> dict[str, str]:
        """What the worker last reported for the bot to act (empty when nothing)."""
        raw = self.redis.hgetall(bot_key(match_id))
        return {text(key): text(value) for key, value in raw.items()}

    def claim_turn(self, match_id: str, version: int, holder: str, lease: float) -> bool:
        """Take (or renew) the lease on the bot turn at `version` for `holder`; False while another
        holder's lease on that version runs. A lease on an older version is simply replaced."""
        return bool(self._claim_script(keys=[claim_key(match_id)],
                                       args=[f"{version}:{holder}", f"{version}:", int(lease * 1000)]))

    def renew_claim(self, match_id: str, version: int, holder: str, lease: float) -> bool:
        """Extend `holder`'s lease on the turn at `version`; False when it no longer holds it."""
        return bool(self._renew_script(keys=[claim_key(match_id)], args=[f"{version}:{holder}", int(lease * 1000)]))

    def turn_claim(self, match_id: str) -> tuple[int, str, float] | None:
        """(version, holder, when the lease runs out) of the live lease on the match's bot turn."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(claim_key(match_id))
            pipe.pttl(claim_key(match_id))
            value, left = pipe.execute()
        if value is None or left is None or left < 0:
            return None
        version, _, holder = text(value).partition(":")
        return int(version), holder, time.time() + left / 1000

    def claim_recovery(self, match_id: str, version: int, seconds: int) -> bool:
        """Take the short lock under which one process re-enqueues a stuck turn (False: taken)."""
        return bool(self.redis.set(recovery_key(match_id, version), "1", nx=True, ex=seconds))

    def mark_bot(self, match_id: str, fields: dict[str, Any]) -> None:
        """Overwrite some fields of the bot's progress (recovery marks a turn queued again); the
        progress lives as long as an active match."""
        key = bot_key(match_id)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={name: str(value) for name, value in fields.items()})
            pipe.expire(key, self.ttl_for_status(MatchStatus.ACTIVE))
            pipe.execute()

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
        """Have the sweeper look at the turn at `version` at `when` (epoch seconds): a bot's turn,
        or a human's on a clock at its deadline."""
        self.redis.zadd(DUE_KEY, {f"{match_id}:{version}": when})

    def next_due(self) -> float | None:
        """When the earliest due turn is to be looked at (None: no turn pending)."""
        first = self.redis.zrange(DUE_KEY, 0, 0, withscores=True)
        return float(first[0][1]) if first else None

    def unmark_due(self, match_id: str, version: int, pipe: Writes | None = None) -> None:
        """The bot turn at `version` needs no more looking after (queued on `pipe` when given)."""
        (pipe if pipe is not None else self.redis).zrem(DUE_KEY, f"{match_id}:{version}")

    def due_turns(self, now: float, limit: int) -> list[tuple[str, int]]:
        """(match, version) of at most `limit` bot turns due by `now`, the most overdue first."""
        turns = []
        for member in self.redis.zrangebyscore(DUE_KEY, "-inf", now, start=0, num=limit):
            match_id, _, version = text(member).rpartition(":")
            turns.append((match_id, int(version)))
        return turns


#: Take a turn's lease unless another holder's lease on the same version runs (KEYS[1]: the claim;
#: ARGV: the value `<version>:<holder>`, the version's prefix `<version>:`, the lease in ms).
_CLAIM = """
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] and string.sub(held, 1, string.len(ARGV[2])) == ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
"""
#: Extend a lease its holder still has (ARGV: the value, the lease in ms).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""


def _seen_times(raw: dict[Any, Any]) -> dict[int, float]:
    """The `seen` hash decoded: seat → when."""
    return {int(text(seat)): float(text(when)) for seat, when in raw.items()}
