"""The match service: the one code path that creates and changes matches.

HTTP views and the bot worker both call this module; nothing else writes a
match. Each change is load → validate → engine.apply → save with
compare-and-set on the version → notify waiters → enqueue a bot turn.

CONTRACT (written before the implementation so the HTTP layer and the worker
can be built in parallel): the names, arguments, return shapes and exceptions
below are fixed; the bodies are filled in by the storage/service work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# --- errors the service raises (the HTTP layer maps each to one problem+json status)


class ServiceError(Exception):
    """Base of the service's errors. `status` is the HTTP status the edge should use."""

    status = 400
    title = "Bad request"

    def __init__(self, detail: str, **extra: Any):
        super().__init__(detail)
        self.detail = detail
        self.extra = extra  # extra problem members, e.g. rule=..., legal_moves=[...]


class MatchNotFound(ServiceError):
    status = 404
    title = "Match not found"


class NotYourTurn(ServiceError):
    """The caller holds no seat, or it is not that seat's turn (or the match is not active)."""

    status = 403
    title = "Not your turn"


class Unauthorized(ServiceError):
    """A bearer token was sent but matches no seat of this match."""

    status = 401
    title = "Invalid seat token"


class VersionConflict(ServiceError):
    """The move names a version that is no longer current (extra: current_version)."""

    status = 409
    title = "Version conflict"


class PreconditionFailed(VersionConflict):
    """Same as VersionConflict, when the version came from If-Match."""

    status = 412
    title = "Precondition failed"


class MatchFull(ServiceError):
    status = 409
    title = "No seat available"


class IllegalMoveError(ServiceError):
    """The engine refused the move (extra: rule, legal_moves)."""

    status = 422
    title = "Illegal move"


class InvalidRequest(ServiceError):
    """Semantically invalid input the schema could not catch (extra: errors={field: [msg]})."""

    status = 422
    title = "Invalid request"


@dataclass(frozen=True)
class SeatGrant:
    """A seat handed to a caller: the token is shown once and stored only hashed."""

    seat: int
    token: str
