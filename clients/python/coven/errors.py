"""RFC 9457 problem+json answers as exceptions, one class per status a client handles differently."""

from __future__ import annotations

from typing import Any

import httpx


class CovenError(Exception):
    """Anything the client could not do."""


class Problem(CovenError):
    """The server refused a request: its problem+json details (`status`, `title`, `detail`, …)."""

    def __init__(self, status: int, document: dict[str, Any]) -> None:
        self.status = status
        self.document = document
        self.title: str = document.get("title", "")
        self.detail: str = document.get("detail", "")
        super().__init__(f"{status} {self.title}: {self.detail}")


class Unauthorized(Problem):
    """401: no seat token, or one that holds no seat of this match."""


class Forbidden(Problem):
    """403: not your turn, not yours to do, or the match is not active."""


class NotFound(Problem):
    """404: no such match or game (or it expired)."""


class Conflict(Problem):
    """409/412: the match moved on (`current_version`), the seat is taken, or the state forbids it."""

    @property
    def current_version(self) -> int | None:
        return self.document.get("current_version")


class IllegalMove(Problem):
    """422: invalid fields, or a move the rules forbid (`rule`, `legal_moves`)."""

    @property
    def rule(self) -> str | None:
        return self.document.get("rule")

    @property
    def legal_moves(self) -> list[Any]:
        return list(self.document.get("legal_moves", []))


class RateLimited(Problem):
    """429 after the client's retries: the limit reached (`policy`)."""


_BY_STATUS: dict[int, type[Problem]] = {401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict,
                                        412: Conflict, 422: IllegalMove, 429: RateLimited}


def problem_of(response: httpx.Response) -> Problem:
    """The exception for an error answer (a body that is not problem+json becomes its `detail`)."""
    try:
        document = response.json()
    except ValueError:
        document = {"title": response.reason_phrase, "detail": response.text[:500]}
    if not isinstance(document, dict):
        document = {"detail": str(document)}
    return problem_from(response.status_code, document)


def problem_from(status: int, document: dict[str, Any]) -> Problem:
    """The exception for a problem+json document (as a socket's `error` message carries it)."""
    return _BY_STATUS.get(status, Problem)(status, document)
