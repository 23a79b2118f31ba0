"""Prometheus metrics, served at `/metrics` by `api.web.metrics`.

Two kinds, by where they happen:

- per request (count and latency by route, 429s): prometheus-client objects in the web process.
  With `PROMETHEUS_MULTIPROC_DIR` set (the dev server and gunicorn.conf set it), each gunicorn
  worker writes its own files there and `/metrics` adds them all up for the host.
- per match and bot turn (moves applied, bot turns and their latency, search iterations,
  recovered turns, matches by status, the bot queue's depth): these happen in RQ work horses
  (a fresh process per turn), the sweeper and every web host, so they are counted in Redis,
  in one hash, and `/metrics` reads them at scrape time. They are totals for the whole
  deployment: every web host reports the same values (aggregate them with `max`, not `sum`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Protocol

from prometheus_client import (
    Counter,
    Histogram,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from redis import Redis
from redis.cluster import RedisCluster
from redis.exceptions import RedisError

METRICS_KEY = "coven:metrics"
BOT_TURN_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)

REQUESTS = Counter("coven_http_requests", "HTTP requests answered", ["method", "route", "status"])
LATENCY = Histogram("coven_http_request_duration_seconds", "Time to answer an HTTP request",
                    ["method", "route"],
                    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0))
RATE_LIMITED = Counter("coven_rate_limited", "Requests refused with 429, by policy", ["policy"])


class Counts(Protocol):
    """Where a move's counts are queued: a pipeline, or the writes recorded for its save."""

    def hincrby(self, name: str, key: str, amount: int = 1) -> Any: ...


# --- recording shared metrics (any process with a Redis connection) ---------------------


def queue_move(pipe: Counts, game: str, by: str, finished: bool) -> None:
    """Count, on `pipe` (with the writes that follow the move), a move applied (`by`: human or
    bot) and, when it ended the match, a match finished."""
    pipe.hincrby(METRICS_KEY, f"moves|{game}|{by}", 1)
    if finished:
        pipe.hincrby(METRICS_KEY, f"finished|{game}", 1)


def count_recovered_turn(redis: Redis | RedisCluster) -> None:
    """A bot turn whose claim was lost (nobody held its lease, its job in no queue) was queued again."""
    _incr(redis, {"recovered": 1})


def count_duplicate_search(redis: Redis | RedisCluster) -> None:
    """A worker searched a bot turn another worker held the lease on (its move was one too many)."""
    _incr(redis, {"duplicate_searches": 1})


def count_failed_turn(redis: Redis | RedisCluster) -> None:
    """A bot turn spent its retry budget (it is tried again BOT_RETRY_SECONDS later)."""
    _incr(redis, {"failed": 1})


def record_bot_turn(redis: Redis | RedisCluster, game: str, level: str, seconds: float, iterations: int,
                    searching: float) -> None:
    """A bot turn was played: its latency, and the iterations its search ran in `searching` s."""
    counts: dict[str, float] = {f"turn_bucket|{le}": 1 for le in BOT_TURN_BUCKETS if seconds <= le}
    counts.update({"turn_count": 1, f"iterations|{game}|{level}": iterations})
    floats = {"turn_sum": seconds, f"search_seconds|{game}|{level}": searching}
    try:
        with redis.pipeline(transaction=False) as pipe:
            for name, amount in counts.items():
                pipe.hincrby(METRICS_KEY, name, int(amount))
            for name, amount in floats.items():
                pipe.hincrbyfloat(METRICS_KEY, name, amount)
            pipe.execute()
    except RedisError:
        pass  # a metric is never worth failing a turn


def _incr(redis: Redis | RedisCluster, counts: dict[str, int]) -> None:
    try:
        with redis.pipeline(transaction=False) as pipe:
            for name, amount in counts.items():
                pipe.hincrby(METRICS_KEY, name, amount)
            pipe.execute()
    except RedisError:
        pass


def live_workers(queues: Redis, queue_name: str, within_seconds: float, host: str | None = None) -> int:
    """How many RQ workers of `queue_name` (on `host`, if named) sent a heartbeat within `within_seconds`."""
    from rq import Queue, Worker

    now = datetime.now(UTC)
    return sum(
        1 for worker in Worker.all(queue=Queue(queue_name, connection=queues))
        if worker.last_heartbeat is not None and (host is None or worker.hostname == host)
        and (now - worker.last_heartbeat).total_seconds() <= within_seconds
    )


class SharedCollector(Collector):
    """The deployment-wide metrics kept in Redis, read at scrape time."""

    def __init__(self, redis: Redis | RedisCluster, queue_name: str, status_counts: dict[str, str],
                 queues: Redis | None = None, due_key: str | None = None, worker_seconds: float = 90.0):
        self.redis = redis
        self.queues = queues if queues is not None else redis  # the bot queues' Redis
        self.queue_name = queue_name
        self.status_counts = status_counts  # status → the sorted set indexing matches in it
        self.due_key = due_key  # the sorted set of due turns (by when they are due), if any
        self.worker_seconds = worker_seconds  # a worker is alive when its heartbeat is this recent

    def collect(self) -> Iterator[Metric]:
        from rq import Queue

        now = time.time()
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(METRICS_KEY)
            for key in self.status_counts.values():
                pipe.zcard(key)
            if self.due_key:
                pipe.zcount(self.due_key, "-inf", now)
                pipe.zrange(self.due_key, 0, 0, withscores=True)
            raw, *cards = pipe.execute()
        overdue, first_due = (cards.pop(-2), cards.pop()) if self.due_key else (0, [])
        values = {k.decode(): float(v) for k, v in raw.items()}
        moves = CounterMetricFamily("coven_moves_applied", "Moves applied", labels=["game", "by"])
        finished = CounterMetricFamily("coven_matches_finished", "Matches ended", labels=["game"])
        iterations = CounterMetricFamily(
            "coven_search_iterations", "Search iterations run by bots (rate over "
            "coven_search_seconds: iterations per second)", labels=["game", "level"])
        seconds = CounterMetricFamily("coven_search_seconds", "Seconds bots spent searching",
                                      labels=["game", "level"])
        for name, value in values.items():
            kind, _, rest = name.partition("|")
            labels = rest.split("|") if rest else []
            family = {"moves": moves, "finished": finished, "iterations": iterations,
                      "search_seconds": seconds}.get(kind)
            if family is not None:
                family.add_metric(labels, value)
        yield from (moves, finished, iterations, seconds)
        yield CounterMetricFamily("coven_bot_turns_recovered", "Bot turns whose claim was lost, queued again",
                                  value=values.get("recovered", 0.0))
        yield CounterMetricFamily("coven_bot_duplicate_searches",
                                  "Bot-turn searches run while another worker held the turn's lease",
                                  value=values.get("duplicate_searches", 0.0))
        yield CounterMetricFamily("coven_bot_turns_failed", "Bot turns that spent their retry budget",
                                  value=values.get("failed", 0.0))
        buckets = [(str(le), values.get(f"turn_bucket|{le}", 0.0)) for le in BOT_TURN_BUCKETS]
        buckets.append(("+Inf", values.get("turn_count", 0.0)))
        yield HistogramMetricFamily("coven_bot_turn_seconds", "Time a bot took to play a turn",
                                    buckets=buckets, sum_value=values.get("turn_sum", 0.0))
        matches = GaugeMetricFamily("coven_matches", "Matches by status (listed ones)", labels=["status"])
        for status, count in zip(self.status_counts, cards, strict=True):
            matches.add_metric([status], count)
        yield matches
        yield GaugeMetricFamily("coven_bot_queue_depth", "Bot turns waiting for a worker",
                                value=Queue(self.queue_name, connection=self.queues).count)  # type: ignore[arg-type]
        yield GaugeMetricFamily("coven_bot_workers", "Bot workers whose heartbeat is recent (READY_WORKER_SECONDS)",
                                value=live_workers(self.queues, self.queue_name, self.worker_seconds))  # type: ignore[arg-type]
        yield GaugeMetricFamily("coven_turns_overdue", "Bot turns past their budget and grace, and clocked "
                                "turns past their deadline, that the sweeper has not looked after yet",
                                value=overdue)
        lateness = max(0.0, now - float(first_due[0][1])) if first_due else 0.0
        yield GaugeMetricFamily("coven_turns_overdue_seconds", "How long the most overdue turn has waited "
                                "past its budget and grace (or deadline)", value=lateness)
        yield from self._memory()

    def _memory(self) -> Iterator[Metric]:
        """Memory used by each Redis node, and its maxmemory (0: no limit)."""
        used = GaugeMetricFamily("coven_redis_memory_used_bytes", "Memory used by Redis (INFO used_memory)",
                                 labels=["redis", "node"])
        limit = GaugeMetricFamily("coven_redis_memory_max_bytes", "Redis's maxmemory (0: no limit)",
                                  labels=["redis", "node"])
        clients: list[tuple[str, Redis | RedisCluster]] = [("matches", self.redis)]
        if self.queues is not self.redis:
            clients.append(("queue", self.queues))
        for role, client in clients:
            for node, info in _info_by_node(client).items():
                used.add_metric([role, node], float(info.get("used_memory", 0)))
                limit.add_metric([role, node], float(info.get("maxmemory", 0)))
        yield used
        yield limit


def _info_by_node(client: Redis | RedisCluster) -> dict[str, dict[str, Any]]:
    """INFO memory of each node: a Cluster answers per node, one Redis for itself."""
    info = client.info("memory")
    if info and all(isinstance(value, dict) for value in info.values()):
        return info
    kwargs = client.connection_pool.connection_kwargs  # type: ignore[union-attr]
    return {f"{kwargs.get('host', '')}:{kwargs.get('port', '')}": info}
