"""Match views as JSON-ready bodies, with the part a version fixes rendered once per process.

A view (`presentation.match_view`, dumped by `schemas.MATCH_VIEW`) is mostly fixed
by the match's version and the caller's seat: the game's view of the state, the
legal moves, the outcome, the seats, the settings. A version never changes once
written, so that part is dumped once and kept, in a bounded LRU keyed by (match
id, version, seat), once the version is saved (a move's answer, rendered before
its save, is kept only when the save wins: `MatchService.play`). What changes
within a version — when each seat was last seen, the clock's time left, the
bot's progress — is put into a copy on every request. The body equals
the contract's `MATCH_VIEW.dump(match_view(…))` (tests/test_rendering.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache

from api.service.model import Caller
from api.service.presentation import MatchView, bot_activity, clock_view, iso, view_fields
from api.store.storage import Store

#: Rendered (match, version, seat) views one process keeps: a few KB each.
CACHE_ENTRIES = 4096

Key = tuple[str, int, int | None]
Dump = Callable[[Any], dict[str, Any]]


@dataclass(frozen=True)
class Dumpers:
    """How the parts of a view become JSON-ready bodies: the web contract's schemas, compiled
    (`api.web.dumping.view_dumpers`), handed in so that the service knows no HTTP schema."""

    view: Dump
    bot: Dump
    clock: Dump


class RenderedViews:
    """The version-fixed part of views, by (match id, version, seat); the rest added per request."""

    def __init__(self, dumpers: Dumpers, entries: int = CACHE_ENTRIES):
        self._fixed: LRUCache[Key, dict[str, Any]] = LRUCache(maxsize=entries)
        self._lock = threading.Lock()  # cachetools' caches are not thread-safe (the dev server's threads)
        self.dump_view = dumpers.view
        self.dump_bot = dumpers.bot
        self._dump_clock = dumpers.clock

    def body(self, store: Store, caller: Caller, now: float | None = None,
             fixed: dict[str, Any] | None = None) -> dict[str, Any]:
        """The caller's view as `schemas.MATCH_VIEW` dumps it (its presence read now unless read
        with it); `now` is the time the clock's time left is counted at (default: now); `fixed`:
        its version-fixed part when already rendered (`render_fixed`)."""
        now = time.time() if now is None else now
        record = caller.record
        if fixed is None:
            fixed = self._fixed_part(caller)
        body = dict(fixed)  # a copy: the cached dict and what it holds are never changed
        seen = caller.presence.seen if caller.presence is not None else store.last_seen(record.id)
        if seen:
            body["seats"] = [{**row, "last_seen": iso(seen[row["seat"]])} if row["seat"] in seen else row
                             for row in fixed["seats"]]
        if record.clock is not None:
            clock = clock_view(record, fixed["to_act"], now)
            body["clock"] = self._dump_clock(clock)
        activity = bot_activity(store, caller)
        if activity is not None:
            body["bot"] = self.dump_bot(activity)
        return body

    def _fixed_part(self, caller: Caller) -> dict[str, Any]:
        """The dumped view of the caller's seat at this version, with nobody seen, no clock and no bot."""
        key = (caller.record.id, caller.record.version, caller.seat)
        with self._lock:
            fixed = self._fixed.get(key)
        if fixed is None:
            fixed = self.render_fixed(caller)
            self.keep(caller, fixed)
        return fixed

    def render_fixed(self, caller: Caller) -> dict[str, Any]:
        """The version-fixed part of the caller's view, rendered and not kept: a move's answer is
        rendered before its save, which may lose a race to another move at the same version."""
        fields = view_fields(caller, {}, 0.0)
        fields["clock"] = None
        return self.dump_view(MatchView(**fields, bot=None))

    def keep(self, caller: Caller, fixed: dict[str, Any]) -> None:
        """Keep the version-fixed part of a view of a saved version (`render_fixed`)."""
        with self._lock:
            self._fixed[(caller.record.id, caller.record.version, caller.seat)] = fixed

    def __len__(self) -> int:
        with self._lock:
            return len(self._fixed)
