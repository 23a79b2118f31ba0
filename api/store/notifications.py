"""One Redis pub/sub connection per process, fanned out to every request waiting in it.

A long-poll or an event stream `listen`s to its match's channel: the first
listener of a channel subscribes the process's one connection to it, the last
one to leave unsubscribes. One reader (a thread; a greenlet under gunicorn's
gevent worker, which patches `threading`) reads that connection and hands each
message to the channel's waiters, waking them through an Event. Waits wake on
those notifications, never by polling; a wait that hears nothing ends at its
timeout, and its caller then reads the match again anyway.

A listener is ready once Redis has confirmed every SUBSCRIBE sent for its
channel: a change published after that reaches it, so reading the match after
`listen` returns can miss nothing. Under gevent, a waiter also watches its
client's socket and is released as soon as the client hangs up.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

from redis import Redis
from redis.client import PubSub
from redis.exceptions import RedisError

from api.runtime.drain import DRAIN, gevent_active
from api.store.records import text

log = logging.getLogger(__name__)

#: How long `listen` waits for Redis to confirm a subscription before going on regardless.
SUBSCRIBE_TIMEOUT = 5.0
#: Pause before the reader reconnects after losing Redis.
RECONNECT_SECONDS = 1.0


class Waiter:
    """One waiting request: the notes delivered to it, and the Event that wakes it."""

    def __init__(self, client: Any = None):
        self._event = threading.Event()
        self._notes: deque[dict[str, Any]] = deque(maxlen=256)
        self.ready = threading.Event()  # its channel's subscription is confirmed
        self._gone = False              # its client hung up
        self._woken = False             # woken with no note since its last wait: the next one returns
        self.timed_out = False          # the last wait ended at its timeout: nothing was heard
        self._client = client
        self._watcher: Any = None

    def hung_up(self) -> bool:
        """Whether its client hung up (noticed under gevent only)."""
        return self._gone

    def deliver(self, note: dict[str, Any]) -> None:
        """Hand a notification to this waiter and wake it (called by the reader)."""
        self._notes.append(note)
        self._event.set()

    def wake(self) -> None:
        """Wake the waiter with no note (drain, lost connection, its channel's own reader): it reads
        the match again. A wake while it is not waiting makes its next wait return at once."""
        self._woken = True
        self._event.set()

    def wait(self, timeout: float) -> list[dict[str, Any]]:
        """The notes delivered since the last call, waiting up to `timeout` seconds for one
        (`timed_out` then says whether the wait heard nothing at all: no note, no wake)."""
        self.timed_out = False
        notes = self._take()
        if notes or self._gone or self._woken:
            self._woken = False
            return notes
        self._event.clear()
        notes = self._take()  # a note (or a wake) delivered before the clear is not lost
        if notes or self._woken:
            self._woken = False
            return notes
        heard = self._event.wait(max(0.0, timeout))
        woken, self._woken = self._woken, False
        if self._watcher is not None and self._event.is_set():
            self._check_hangup()
        notes = self._take()
        self.timed_out = not (heard or woken or notes)
        return notes

    def _take(self) -> list[dict[str, Any]]:
        notes = []
        while self._notes:
            notes.append(self._notes.popleft())
        return notes

    # the client's socket (gevent only) -------------------------------------------------

    def watch_client(self) -> None:
        """Under gevent, wake when the client's socket turns readable (it hung up, or pipelines)."""
        if self._client is None or not gevent_active():
            return
        from gevent import get_hub

        with contextlib.suppress(OSError, ValueError):
            self._watcher = get_hub().loop.io(self._client.fileno(), 1)
            self._watcher.start(self._event.set)

    def _check_hangup(self) -> None:
        """The socket is readable: an empty peek means the client hung up."""
        try:
            self._client.setblocking(False)
            try:
                data = self._client.recv(1, socket.MSG_PEEK)
            finally:
                self._client.setblocking(True)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._gone = True
        self.stop_watching()  # gone, or a next request is waiting: either way, stop watching

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher.close()
            self._watcher = None


class Notifications:
    """This process's one pub/sub connection and the waiters listening through it."""

    def __init__(self, redis: Redis):
        self.redis = redis
        self._lock = threading.RLock()
        self._waiters: dict[str, set[Waiter]] = {}
        self._pending: dict[str, int] = {}  # SUBSCRIBEs sent per channel, not yet confirmed
        self._pubsub: PubSub | None = None
        self._reader: threading.Thread | None = None
        self._pid = 0
        DRAIN.watch(self)

    @contextlib.contextmanager
    def listen(self, channel: str, client: Any = None) -> Iterator[Waiter]:
        """A waiter of `channel`, ready once the subscription is confirmed; removed on exit."""
        waiter = Waiter(client)
        self._add(channel, waiter)
        try:
            waiter.ready.wait(SUBSCRIBE_TIMEOUT)
            waiter.watch_client()
            yield waiter
        finally:
            waiter.stop_watching()
            self._remove(channel, waiter)

    @property
    def draining(self) -> bool:
        """True once the process shuts down (`api.runtime.drain`): waits answer now and streams end."""
        return DRAIN.started.is_set()

    def wake_all(self) -> None:
        """Wake every waiter of this process."""
        with self._lock:
            waiters = [waiter for group in self._waiters.values() for waiter in group]
        for waiter in waiters:
            waiter.wake()

    @property
    def waiting(self) -> int:
        """How many requests wait in this process."""
        with self._lock:
            return sum(len(group) for group in self._waiters.values())

    # subscriptions ---------------------------------------------------------------------

    def _add(self, channel: str, waiter: Waiter) -> None:
        with self._lock:
            self._ensure_reader()
            group = self._waiters.setdefault(channel, set())
            group.add(waiter)
            if len(group) == 1:
                self._subscribe(channel)
            elif not self._pending.get(channel):
                waiter.ready.set()

    def _remove(self, channel: str, waiter: Waiter) -> None:
        with self._lock:
            group = self._waiters.get(channel)
            if group is None:
                return
            group.discard(waiter)
            if not group:
                del self._waiters[channel]
                self._send("unsubscribe", channel)

    def _subscribe(self, channel: str) -> None:
        self._pending[channel] = self._pending.get(channel, 0) + 1
        self._send("subscribe", channel)

    def _send(self, command: str, channel: str) -> None:
        """SUBSCRIBE or UNSUBSCRIBE on the shared connection; a lost one is redone on reconnect."""
        pubsub = self._pubsub
        if pubsub is None:
            return
        try:
            getattr(pubsub, command)(channel)
        except (RedisError, OSError) as error:
            log.warning("notifications: %s %s failed: %s", command, channel, error)

    # the reader ------------------------------------------------------------------------

    def _ensure_reader(self) -> None:
        """Start the reader in this process (again after a fork)."""
        if self._reader is not None and self._pid == os.getpid() and self._reader.is_alive():
            return
        self._pid = os.getpid()
        self._pubsub = self.redis.pubsub()  # type: ignore[no-untyped-call,unused-ignore]  # typed from redis 8.2
        self._pending.clear()
        self._reader = threading.Thread(target=self._read_forever, args=(self._pubsub,),
                                         name="coven-notifications", daemon=True)
        self._reader.start()

    def _read_forever(self, pubsub: PubSub) -> None:
        while True:
            try:
                self._read(pubsub)
            except (RedisError, OSError) as error:
                log.warning("notifications: lost Redis (%s); reconnecting", error)
            pubsub = self._reconnect(pubsub)

    def _read(self, pubsub: PubSub) -> None:
        while True:
            if not pubsub.subscribed:
                pubsub.subscribed_event.wait()  # no channel yet: until the next SUBSCRIBE is sent
            message = pubsub.get_message(timeout=None)  # type: ignore[arg-type]  # None: block until one comes
            if message is not None:
                self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind, channel = message.get("type"), text(message.get("channel"))
        with self._lock:
            if kind == "subscribe":
                left = self._pending.get(channel, 0) - 1
                if left > 0:
                    self._pending[channel] = left
                    return
                self._pending.pop(channel, None)
                for waiter in self._waiters.get(channel, ()):
                    waiter.ready.set()
                return
            if kind != "message":
                return
            waiters = list(self._waiters.get(channel, ()))
        try:
            note = json.loads(message["data"])
        except (TypeError, ValueError):
            note = {}
        for waiter in waiters:
            waiter.deliver(note)

    def _reconnect(self, old: PubSub) -> PubSub:
        """A fresh connection subscribed to every channel with waiters; every waiter woken."""
        with contextlib.suppress(RedisError, OSError):
            old.close()
        time.sleep(RECONNECT_SECONDS)
        with self._lock:
            pubsub: PubSub = self.redis.pubsub()  # type: ignore[no-untyped-call,unused-ignore]  # typed from redis 8.2
            self._pubsub = pubsub
            self._pending.clear()
            for channel in self._waiters:
                self._subscribe(channel)
            waiters = [waiter for group in self._waiters.values() for waiter in group]
        for waiter in waiters:
            waiter.ready.set()
            waiter.wake()
        return pubsub
