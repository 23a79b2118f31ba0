"""Stream tickets: a browser's EventSource cannot send `Authorization`, so a seat trades its token
for a short-lived, single-use ticket that stands for that seat in one event-stream URL.

A ticket is 192 random bits, stored only as its SHA-256 under the match's hash tag, with the
seat it names and an expiry; opening a stream spends it (GETDEL), so a URL that leaks into a
log or a history is already useless. Game-agnostic: a ticket names a seat, nothing more.
"""

from __future__ import annotations

import secrets

from api.service.commands import MatchService
from api.service.errors import TicketRejected, Unauthorized
from api.service.model import Caller
from api.store import storage


def issue_ticket(service: MatchService, caller: Caller) -> str:
    """A new ticket for the caller's seat, valid for one stream opened within the configured TTL."""
    if caller.seat is None:
        raise Unauthorized("a stream ticket is for a seat: send its token as 'Authorization: Bearer <token>'")
    ticket = secrets.token_urlsafe(24)
    key = storage.ticket_key(caller.record.id, ticket)
    service.redis.set(key, caller.seat, ex=service.config.STREAM_TICKET_SECONDS)
    return ticket


def caller_of_ticket(service: MatchService, match_id: str, ticket: str) -> Caller:
    """The match and the seat the ticket stands for; the ticket is spent at once."""
    loaded = service.load(match_id)
    seat = service.redis.getdel(storage.ticket_key(loaded.record.id, ticket)) if ticket else None
    if seat is None:
        raise TicketRejected("this stream ticket is unknown, spent or expired: ask for a new one")
    return Caller(loaded.record, loaded.game, loaded.state, int(seat))
