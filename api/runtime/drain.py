"""Draining a web process on shutdown: its event streams and long-polls end at once.

Every waiting request listens through its process's one pub/sub subscription
(`api.store.notifications`), which this drain wakes: on SIGTERM (gunicorn.conf.py's
hook) every waiter wakes, a long-poll answers with the view it has, an event
stream sends `event: reconnect` and ends, and the client reconnects to a
process that stays.
"""

from __future__ import annotations

import threading
import weakref
from typing import Protocol


def gevent_active() -> bool:
    """Whether gevent has patched this process (gunicorn's gevent worker does, before the app loads)."""
    try:
        from gevent import monkey
    except ImportError:
        return False
    return bool(monkey.is_module_patched("socket"))


class Wakeable(Protocol):
    def wake_all(self) -> None: ...


class Drain:
    """This process's shutdown flag, and the notifications whose waiters it wakes."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self._watched: weakref.WeakSet[Wakeable] = weakref.WeakSet()

    def watch(self, notifications: Wakeable) -> None:
        """Wake the waiters of `notifications` when the drain begins."""
        self._watched.add(notifications)

    def begin(self) -> None:
        """Mark the process as shutting down and wake every waiting request (safe in a signal handler)."""
        if self.started.is_set():
            return
        self.started.set()
        if gevent_active():
            import gevent

            gevent.spawn(self._wake)  # under gevent the handler runs in the hub: no blocking there
        else:
            threading.Thread(target=self._wake, daemon=True, name="drain").start()

    def _wake(self) -> None:
        for notifications in list(self._watched):
            notifications.wake_all()


#: The one drain of this process (gunicorn's SIGTERM hook begins it).
DRAIN = Drain()
