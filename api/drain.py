"""Draining a web process on shutdown: its event streams and long-polls end at once.

A waiting request sleeps on a Redis pub/sub connection. Each one also subscribes to this
process's drain channel, so one PUBLISH on SIGTERM wakes them all; an event stream then
sends `event: reconnect` and ends, and the client reconnects to a process that stays.
"""

from __future__ import annotations

import contextlib
import secrets
import threading

from redis import Redis
from redis.client import PubSub
from redis.exceptions import RedisError

from api.records import text


class Drain:
    """This process's shutdown flag, and the channel that wakes its waiting requests."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.channel = f"coven:drain:{secrets.token_hex(8)}"
        self._redis: Redis | None = None

    def watch(self, pubsub: PubSub, redis: Redis) -> None:
        """Subscribe a waiting request's pub/sub to the drain channel."""
        self._redis = redis
        pubsub.subscribe(self.channel)

    def is_drain(self, message: dict | None) -> bool:
        """True when a pub/sub message is the drain's wake-up."""
        return message is not None and text(message.get("channel")) == self.channel

    def begin(self) -> None:
        """Mark the process as shutting down and wake every waiting request (safe in a signal handler)."""
        if self.started.is_set():
            return
        self.started.set()
        if self._redis is not None:
            threading.Thread(target=self._wake, args=(self._redis,), daemon=True, name="drain").start()

    def _wake(self, redis: Redis) -> None:
        with contextlib.suppress(RedisError):  # Redis is gone: the waits fail on their own
            redis.publish(self.channel, "drain")


#: The one drain of this process (gunicorn's SIGTERM hook begins it).
DRAIN = Drain()
