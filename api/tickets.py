"""Stream tickets: a browser's EventSource cannot send `Authorization`, so a seat trades its token
for a short-lived, single-use ticket that stands for that seat in one event-stream URL."""

from __future__ import annotations

import hashlib
import secrets

from redis import Redis

from api.service import ServiceError
from api.storage import PREFIX


class TicketRejected(ServiceError):
    """The ticket is unknown, spent, expired, or for another match."""

    status = 401
    title = "Invalid stream ticket"


def ticket_key(match_id: str, ticket: str) -> str:
    """Where a ticket's seat is kept: by its hash, in the match's hash-tag slot."""
    digest = hashlib.sha256(ticket.encode()).hexdigest()
    return f"{PREFIX}:{{m:{match_id}}}:ticket:{digest}"


class StreamTickets:
    """Issue and redeem the tickets of one Redis; game-agnostic (a ticket names a seat, nothing more)."""

    def __init__(self, redis: Redis, ttl_seconds: int):
        self.redis = redis
        self.ttl = ttl_seconds

    def issue(self, match_id: str, seat: int) -> str:
        """A new ticket for `seat` of `match_id`, valid for one stream opened within the TTL."""
        ticket = secrets.token_urlsafe(24)
        self.redis.set(ticket_key(match_id, ticket), seat, ex=self.ttl)
        return ticket

    def redeem(self, match_id: str, ticket: str) -> int:
        """The seat the ticket stands for; it is spent at once (GETDEL), so a leaked URL is useless."""
        seat = self.redis.getdel(ticket_key(match_id, ticket)) if ticket else None
        if seat is None:
            raise TicketRejected("this stream ticket is unknown, spent or expired: ask for a new one")
        return int(seat)
