"""Waiting for a match to change: the long-poll, and the Server-Sent Events stream (its wire format).

Both listen on the match's pub/sub channel; every change and every bot
progress report is announced there (`api.storage`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from api import schemas, storage
from api.drain import DRAIN
from api.records import MatchStatus
from api.service.commands import MatchService
from api.service.model import Caller
from api.service.presentation import bot_activity, match_view


def wait(service: MatchService, caller: Caller, after_version: int, timeout: float) -> Caller:
    """The match, seen by the same caller, as soon as its version passes `after_version`, or
    after `timeout` seconds."""
    match_id = caller.record.id
    if caller.record.version > after_version or timeout <= 0:
        return caller
    service.ensure_progress(caller)
    deadline = time.monotonic() + timeout
    pubsub = service.redis.pubsub(ignore_subscribe_messages=True)
    try:
        pubsub.subscribe(storage.channel_for(match_id))
        DRAIN.watch(pubsub, service.redis)
        while True:
            loaded = service.load(match_id)
            remaining = deadline - time.monotonic()
            if loaded.record.version > after_version or remaining <= 0 or DRAIN.started.is_set():
                return loaded.seen_by(caller.seat)  # (shutting down: answer now; the client polls again)
            pubsub.get_message(timeout=remaining)
    finally:
        pubsub.close()


def sse(event: str | None, data: Any, event_id: int | None = None) -> str:
    """One Server-Sent Event carrying `data` as compact JSON."""
    head = (f"id: {event_id}\n" if event_id is not None else "") + (f"event: {event}\n" if event else "")
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n"


def events(service: MatchService, caller: Caller, last_version: int | None) -> Iterator[str]:
    """Server-sent events: `match` with the caller's view at each new version, `bot` with a
    thinking bot's progress, comment keep-alives; ends when the match does."""
    match_id, seat = caller.record.id, caller.seat
    config = service.config
    pubsub = service.redis.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(storage.channel_for(match_id))
    DRAIN.watch(pubsub, service.redis)
    sent = last_version if last_version is not None else -1
    deadline = time.monotonic() + config.SSE_MAX_SECONDS
    try:
        yield "retry: 2000\n\n"
        send_view = True
        while True:
            loaded = service.load(match_id)
            if send_view and loaded.record.version > sent:
                sent = loaded.record.version
                view = match_view(service.store, loaded.seen_by(seat))
                yield sse("match", schemas.MATCH_VIEW.dump(view), sent)
                if loaded.record.status == MatchStatus.FINISHED:
                    return
                service.ensure_progress(loaded)
            if DRAIN.started.is_set():  # the process is shutting down: reconnect elsewhere
                yield sse("reconnect", {})
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            asked = time.monotonic()
            message = pubsub.get_message(timeout=min(remaining, config.SSE_KEEPALIVE_SECONDS))
            if message is None:
                # None also follows an ignored subscribe confirmation: only a real lull is idle.
                if time.monotonic() - asked >= config.SSE_KEEPALIVE_SECONDS * 0.9:
                    yield ": keep-alive\n\n"
                send_view = True
                continue
            if DRAIN.is_drain(message):
                send_view = False
                continue
            note = json.loads(message["data"])
            if note.get("kind") == "bot":
                activity = bot_activity(service.store, loaded)
                if activity is not None:
                    yield sse("bot", schemas.BOT_ACTIVITY.dump(activity))
                send_view = False
            else:
                send_view = True
    finally:
        pubsub.close()
