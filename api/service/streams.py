"""Waiting for a match to change: the long-poll, and the Server-Sent Events stream (its wire format).

Both listen on the match's channel through the process's one pub/sub
connection (`api.store.notifications`); every change and every bot progress report
is announced there (`api.store.storage`). A wait holds no thread under gunicorn's
gevent worker, wakes on a notification (or when the clock of the seat to act
runs out), never by polling, and ends as soon as its client hangs up.

The stream's events:

- `match` (`id:` the version): the caller's view. A stream that resumes
  (Last-Event-ID) first gets every version after that one, in order, as the
  caller's seat saw them; then each new version as it comes — none skipped;
- `bot`: the progress of the bot to act;
- `reconnect`: the server is going away; reconnect with Last-Event-ID.

It ends after the ended match's final view, or after SSE_MAX_SECONDS.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

from api.runtime import jsonio
from api.service.commands import MatchService
from api.service.model import Caller, Loaded
from api.service.presentation import bot_activity, replayed_views
from api.store import storage
from api.store.notifications import Waiter
from api.store.records import ENDED

#: A long-poll that hears nothing answers after 85-100% of its `wait`, drawn at random: thousands
#: of waits asked at once (a crowd of clients started together) then come back spread over
#: seconds instead of in one instant, and so do their next polls.
LONG_POLL_SPREAD = 0.15


def wait(service: MatchService, caller: Caller, after_version: int, timeout: float,
         client: Any = None) -> Caller:
    """The match, seen by the same caller, as soon as its version passes `after_version`, or
    after about `timeout` seconds (see LONG_POLL_SPREAD; at once when the client hangs up:
    nobody reads the answer then, or when the process shuts down: the client polls again)."""
    match_id = caller.record.id
    if caller.record.version > after_version or timeout <= 0:
        return caller
    service.ensure_progress(caller)
    deadline = time.monotonic() + timeout * (1.0 - LONG_POLL_SPREAD * random.random())
    with service.notifications.listen(storage.channel_for(match_id), client) as waiter:
        loaded = service.look(match_id)  # a change made before the subscription was confirmed
        while loaded.record.version <= after_version:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or waiter.hung_up() or service.notifications.draining:
                break
            notes = waiter.wait(until_clock_runs_out(service, loaded, remaining))
            if (not notes and not quiet(waiter, loaded)) or any(_passes(note, after_version) for note in notes):
                loaded = service.look(match_id)
    return loaded.seen_by(caller.seat)


def until_clock_runs_out(service: MatchService, loaded: Loaded, at_most: float) -> float:
    """How long a waiter may sleep: `at_most`, or until the clock of the seat to act runs out. A
    clock that ran out gets its move queued here, so a watched match never waits for the sweeper."""
    if loaded.record.deadline is None:
        return at_most
    left = loaded.record.deadline - time.time()
    if left <= 0:
        service.ensure_progress(loaded)
        return at_most
    return min(at_most, left + 0.05)


def quiet(waiter: Waiter, loaded: Loaded) -> bool:
    """Whether a wait heard nothing (no note, no wake: a lost pub/sub connection wakes every
    waiter) on a match without a running clock: it has not changed, so a waiting seat need not
    read it again (an idle seat then costs no Redis round trip per quiet spell)."""
    return waiter.timed_out and loaded.record.deadline is None


def sse(event: str | None, data: Any, event_id: int | None = None) -> str:
    """One Server-Sent Event carrying `data` as compact JSON."""
    head = (f"id: {event_id}\n" if event_id is not None else "") + (f"event: {event}\n" if event else "")
    return f"{head}data: {jsonio.dumps(data)}\n\n"


def is_over_for(caller: Caller, last_version: int | None) -> bool:
    """True when the match has ended and the client already holds its final view
    (the stream then answers 204, which tells a browser to stop reconnecting)."""
    return caller.record.status in ENDED and last_version is not None and last_version >= caller.record.version


def events(service: MatchService, caller: Caller, last_version: int | None,
           client: Any = None) -> Iterator[str]:
    """Server-sent events: the views missed since `last_version`, then each new version,
    bot progress and keep-alives; ends after the ended match's final view."""
    match_id, seat = caller.record.id, caller.seat
    config = service.config
    deadline = time.monotonic() + config.SSE_MAX_SECONDS
    yield "retry: 2000\n\n"
    with service.notifications.listen(storage.channel_for(match_id), client) as waiter:
        loaded = service.look(match_id)
        sent = last_version if last_version is not None else loaded.record.version - 1
        bot_moved = False
        while True:
            if loaded.record.version > sent:
                yield from _views_since(service, loaded, seat, sent)
                sent = loaded.record.version
                if loaded.record.status in ENDED:
                    return
                service.ensure_progress(loaded)
            elif bot_moved:
                activity = bot_activity(service.store, loaded)
                if activity is not None:
                    yield sse("bot", service.views.dump_bot(activity))
            remaining = deadline - time.monotonic()
            if remaining <= 0 or waiter.hung_up():
                return
            if service.notifications.draining:  # the process is shutting down: reconnect elsewhere
                yield sse("reconnect", {})
                return
            asked = time.monotonic()
            lull = min(remaining, config.SSE_KEEPALIVE_SECONDS)
            notes = waiter.wait(until_clock_runs_out(service, loaded, lull))
            if waiter.hung_up():
                return
            if not notes and time.monotonic() - asked >= config.SSE_KEEPALIVE_SECONDS * 0.9:
                yield ": keep-alive\n\n"
            bot_moved = any(note.get("kind") == "bot" for note in notes)
            if not quiet(waiter, loaded):
                loaded = service.look(match_id)


def _views_since(service: MatchService, loaded: Loaded, seat: int | None, sent: int) -> Iterator[str]:
    """`match` events for every version after `sent` up to the current one, in order."""
    caller = loaded.seen_by(seat)
    for view in replayed_views(service.store, caller, sent):
        yield sse("match", service.views.dump_view(view), view.version)
    yield sse("match", service.views.body(service.store, caller), loaded.record.version)


def _passes(note: dict[str, Any], after_version: int) -> bool:
    """Whether a notification announces a version past `after_version` (bot progress does not)."""
    return note.get("kind") == "match" and int(note.get("version", 0)) > after_version
