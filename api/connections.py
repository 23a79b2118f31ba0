"""The Redis connections of a process, built from the configuration in one place.

- matches: `REDIS_URL`, a single Redis or (with `REDIS_CLUSTER=1`) a Redis Cluster
  seeded from that node; a match's keys share a hash tag, so its compare-and-set
  transaction runs in one slot;
- notifications: one plain connection to the `REDIS_URL` node for pub/sub (a
  cluster forwards every PUBLISH to every node, so one node hears them all);
- bot queues: `QUEUE_REDIS_URL` (default `REDIS_URL`), a single Redis, as RQ needs.
"""

from __future__ import annotations

from typing import TypeAlias

from redis import BlockingConnectionPool, Redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from api.config import Config

#: Connections one process opens to one Redis at most (requests beyond wait for a free one).
MAX_CONNECTIONS = 256

#: A client for match storage: the store and the service accept either.
MatchRedis: TypeAlias = Redis | RedisCluster


def match_redis(config: Config) -> MatchRedis:
    """The client of match storage: a Redis Cluster client when REDIS_CLUSTER is set."""
    if config.REDIS_CLUSTER:
        return RedisCluster.from_url(config.REDIS_URL, health_check_interval=30)
    return Redis(connection_pool=blocking_pool(config.REDIS_URL))


def blocking_pool(url: str) -> BlockingConnectionPool:
    """A pool of at most MAX_CONNECTIONS connections where a request waits for a free one: under
    gevent hundreds of requests run at once, and redis-py's default pool raises past 100."""
    return BlockingConnectionPool.from_url(url, max_connections=MAX_CONNECTIONS, timeout=20,
                                           health_check_interval=30)


def notification_redis(config: Config) -> Redis:
    """A plain connection to the REDIS_URL node, for this process's one pub/sub subscription.

    No retries and no health-check PINGs of redis-py's own: the reader (`api.notifications`)
    reconnects and resubscribes itself, and only waiters write on that connection."""
    return Redis.from_url(config.REDIS_URL, socket_keepalive=True, retry=Retry(NoBackoff(), 0))


def queue_redis(config: Config) -> Redis:
    """The Redis of the bot queues (RQ needs a single, binary connection)."""
    if config.REDIS_CLUSTER and not config.QUEUE_REDIS_URL:
        raise ValueError("REDIS_CLUSTER=1 needs QUEUE_REDIS_URL: RQ's bot queues need a single Redis, not a Cluster")
    return Redis(connection_pool=blocking_pool(config.queue_redis_url))
