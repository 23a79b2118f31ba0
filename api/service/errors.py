"""The service's errors: each names the HTTP status and title the edge answers with (problem+json)."""

from __future__ import annotations

from typing import Any


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


class NotAllowed(ServiceError):
    """The caller may not do this here (e.g. analyse a position whose hidden cards it cannot see)."""

    status = 403
    title = "Not allowed"


class NothingToDo(ServiceError):
    """The request is well-formed but the match is not in a state where it means anything."""

    status = 409
    title = "Nothing to do"


class TooManyAnalyses(ServiceError):
    """The client address or the match already has its cap of analyses queued or running."""

    status = 429


class AnalysisNotFound(ServiceError):
    status = 404
    title = "Analysis not found"


class Unauthorized(ServiceError):
    """A bearer token was sent but matches no seat of this match."""

    status = 401
    title = "Invalid seat token"


class TicketRejected(ServiceError):
    """A stream ticket that is unknown, spent, expired, or of another match."""

    status = 401
    title = "Invalid stream ticket"


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


class IdempotencyMismatch(ServiceError):
    """An Idempotency-Key was reused with a different request."""

    status = 422
    title = "Idempotency key reused"


class MatchStateConflict(ServiceError):
    """The match or the seat is not in a state that allows this (extra: match_status).

    Resigning a finished match, leaving twice, a rematch before the end, cancelling a running match."""

    status = 409
    title = "Not possible now"


class NotCreator(ServiceError):
    """Only the seat that created the match may do this (cancel it)."""

    status = 403
    title = "Not the creator"


class TimeRanOut(ServiceError):
    """The seat's clock ran out before its move arrived: the takeover bot moves for it."""

    status = 409
    title = "Time ran out"


class VersionNotFound(ServiceError):
    """The match has no such version (yet)."""

    status = 404
    title = "Version not found"
