"""The shapes the server answers with (its OpenAPI document's schemas), as typed dictionaries.

A view's `state` and `legal_moves` are the game's own JSON (the document's `WitchesState`,
`CubeMove`, …): the client hands them over as they came, and a move is posted back verbatim.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

#: A move: one entry of a view's `legal_moves`, posted back as it is.
Move = dict[str, Any]
#: A game's view for a seat (the document's `<Game>State`), discriminated by its `game`.
State = dict[str, Any]
Status = Literal["waiting", "active", "finished", "cancelled"]


class SeatView(TypedDict):
    seat: int
    type: Literal["human", "bot"]
    level: str | None
    filled: bool
    name: str | None
    takeover: str | None
    reserved: bool
    timeouts: int
    last_seen: str | None


class Outcome(TypedDict):
    scores: list[float]
    winners: list[int]
    ranks: list[int]
    reason: str


class MatchView(TypedDict):
    """A match as one seat (or a spectator) sees it (`MatchView` in the document)."""

    id: str
    game: Literal["witches", "cube", "enchanters"]
    version: int
    status: Status
    to_act: int | None
    you: int | None
    seats: list[SeatView]
    state: State
    legal_moves: list[Move]
    outcome: Outcome | None
    bot: dict[str, Any] | None
    seeded: bool
    options: dict[str, Any]
    created: str
    updated: str
    visibility: Literal["public", "private"]
    takeover_level: str
    clock: dict[str, Any] | None
    fairness: dict[str, Any]
    resigned: list[int]
    rematch: str | None
    previous: str | None


class MatchSummary(TypedDict):
    """A match of the lobby (`GET /v1/matches`)."""

    id: str
    game: str
    status: Status
    version: int
    seats: list[SeatView]
    open_seats: list[int]
    seeded: bool
    created: str
    clock: dict[str, Any] | None
