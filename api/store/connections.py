"""The Redis connections of a process, built from the configuration in one place.

- matches: `REDIS_URL`, a single Redis or (with `REDIS_CLUSTER=1`) a Redis Cluster
  seeded from that node; a match's keys share a hash tag, so its compare-and-set
  transaction runs in one slot;
- notifications: one plain connection to the `REDIS_URL` node for pub/sub (a
  cluster forwards every PUBLISH to every node, so one node hears them all);
- bot queues: `QUEUE_REDIS_URL` (default `REDIS_URL`), a single Redis, as RQ needs.

Pooled connections parse replies with `ReadinessParser`: redis-py's parser, whose check
that a connection is clean, made each time a pool hands one out, asks the operating
system's poll instead of gevent's.
"""

from __future__ import annotations

import select
from typing import Any, TypeAlias

from gevent.monkey import get_original
from redis import BlockingConnectionPool, Redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.connection import DefaultParser
from redis.retry import Retry

from api.runtime.config import Config

#: Connections one process opens to one Redis at most (requests beyond wait for a free one).
MAX_CONNECTIONS = 256

#: A client for match storage: the store and the service accept either.
MatchRedis: TypeAlias = Redis | RedisCluster

#: The standard library's poll, even where gevent has patched `select` (gunicorn's workers).
_system_poll = get_original("select", "poll")


class ReadinessParser(DefaultParser):  # type: ignore[misc,valid-type]
    """redis-py's reply parser, with a cheaper answer to "is anything waiting on this connection?"

    A pool asks that of every connection it hands out (waiting data would be a reply nobody
    read, or a closed peer). redis-py answers with `select.poll`, which under gevent's
    patch registers watchers and goes through the event loop: about a hundred microseconds of a
    request's CPU for a check that never waits. With a timeout of 0 the system's poll does not
    block either, so it answers the usual case, nothing waiting, itself; anything else (a reply
    buffered, or the socket readable: data or a closed peer) is redis-py's to decide as usual."""

    def can_read(self, timeout: float = 0) -> bool:
        reader: Any = getattr(self, "_reader", None)
        sock = getattr(self, "_sock", None)
        if timeout == 0 and sock is not None and reader is not None and not reader.has_data():
            poller = _system_poll()
            poller.register(sock, select.POLLIN)
            if not poller.poll(0):
                return False
        return bool(super().can_read(timeout))


def match_redis(config: Config) -> MatchRedis:
    """The client of match storage: a Redis Cluster client when REDIS_CLUSTER is set."""
    if config.REDIS_CLUSTER:
        return RedisCluster.from_url(config.REDIS_URL, health_check_interval=30, parser_class=ReadinessParser)
    return Redis(connection_pool=blocking_pool(config.REDIS_URL))


def blocking_pool(url: str) -> BlockingConnectionPool:
    """A pool of at most MAX_CONNECTIONS connections where a request waits for a free one: under
    gevent hundreds of requests run at once, and redis-py's default pool raises past 100."""
    return BlockingConnectionPool.from_url(url, max_connections=MAX_CONNECTIONS, timeout=20,
                                           health_check_interval=30, parser_class=ReadinessParser)


def notification_redis(config: Config) -> Redis:
    """A plain connection to the REDIS_URL node, for this process's one pub/sub subscription.

    No retries and no health-check PINGs of redis-py's own: the reader (`api.store.notifications`)
    reconnects and resubscribes itself, and only waiters write on that connection."""
    tcp = not config.REDIS_URL.startswith("unix:")
    return Redis.from_url(config.REDIS_URL, retry=Retry(NoBackoff(), 0), **({"socket_keepalive": True} if tcp else {}))


def queue_redis(config: Config) -> Redis:
    """The Redis of the bot queues (RQ needs a single, binary connection)."""
    if config.REDIS_CLUSTER and not config.QUEUE_REDIS_URL:
        raise ValueError("REDIS_CLUSTER=1 needs QUEUE_REDIS_URL: RQ's bot queues need a single Redis, not a Cluster")
    return Redis(connection_pool=blocking_pool(config.queue_redis_url))
