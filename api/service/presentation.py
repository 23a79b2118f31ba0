"""What callers see: a match view, its log, the listing — built as objects the schemas dump.

Each seat sees its own view (the game's `view` and `log_entry` redact what it
may not see); a spectator is seat None. Seat rows are built here, once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from api.records import BotStatus, MatchRecord, MatchStatus, SeatType
from api.service.history import replay
from api.service.model import Caller, Loaded
from api.storage import Store
from engine import CHANCE
from engine.core import Outcome


@dataclass(frozen=True)
class SeatRow:
    """One seat as anyone may see it (never its token)."""

    seat: int
    type: SeatType
    level: str | None
    filled: bool


@dataclass(frozen=True)
class BotActivity:
    """The bot to act: queued, or thinking with its progress so far."""

    seat: int
    level: str
    status: BotStatus = BotStatus.QUEUED
    iterations: int = 0
    elapsed: float = 0.0
    best_move: Any = None
    best_visits: int = 0


@dataclass(frozen=True)
class MatchView:
    """A match as one seat (or a spectator) may see it."""

    id: str
    game: str
    version: int
    status: MatchStatus
    to_act: int | None
    you: int | None
    seats: list[SeatRow]
    state: dict[str, Any]
    legal_moves: list[Any]
    outcome: Outcome | None
    bot: BotActivity | None
    seeded: bool
    options: dict[str, Any]
    created: str
    updated: str


@dataclass(frozen=True)
class GrantedView(MatchView):
    """The view of a seat just taken, with its token (shown this once)."""

    token: str


@dataclass(frozen=True)
class LegalMoves:
    """The caller's legal moves (empty unless it is to act)."""

    version: int
    to_act: int | None
    you: int | None
    legal_moves: list[Any]


@dataclass(frozen=True)
class LogEntry:
    """One entry of the history, as the caller may see it."""

    index: int
    seat: int | None
    chance: bool
    move: Any


@dataclass(frozen=True)
class MatchLog:
    id: str
    version: int
    entries: list[LogEntry]


@dataclass(frozen=True)
class MatchSummary:
    """A match in the listing."""

    id: str
    game: str
    status: MatchStatus
    version: int
    seats: list[SeatRow]
    open_seats: list[int]
    created: str


@dataclass(frozen=True)
class MatchList:
    matches: list[MatchSummary]


def iso(timestamp: float) -> str:
    """An epoch time as ISO 8601 UTC, to the second."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def seat_rows(record: MatchRecord, version: int | None = None) -> list[SeatRow]:
    """Every seat of a match, in play order (as they were at `version`, when named)."""
    return [
        SeatRow(index, seat.type, seat.level, seat.filled if version is None else seat.filled_at(version))
        for index, seat in enumerate(record.seats)
    ]


def legal_moves_of(caller: Caller, status: MatchStatus | None = None) -> list[Any]:
    """The caller's legal moves as JSON: empty unless the match runs and the caller is to act."""
    record, game = caller.record, caller.game
    if (status or record.status) != MatchStatus.ACTIVE or caller.seat is None or caller.seat != caller.to_act:
        return []
    return [game.move_to_json(move) for move in game.legal_moves(caller.state)]


def match_view(store: Store, caller: Caller) -> MatchView:
    """The match as the caller's seat may see it."""
    record, game, state = caller.record, caller.game, caller.state
    to_act = caller.to_act
    return MatchView(
        id=record.id,
        game=record.game,
        version=record.version,
        status=record.status,
        to_act=to_act,
        you=caller.seat,
        seats=seat_rows(record),
        state=game.view(state, caller.seat),
        legal_moves=legal_moves_of(caller),
        outcome=game.outcome(state) if game.is_terminal(state) else None,
        bot=bot_activity(store, caller),
        seeded=record.seeded,
        options=record.options,
        created=iso(record.created),
        updated=iso(record.updated),
    )


def replayed_views(store: Store, caller: Caller, after_version: int) -> Iterator[MatchView]:
    """The caller's views at the versions after `after_version` and before the current one,
    in order, redacted as they were then (for an event stream that resumes).

    The match is replayed from its history with the engine, as the log is: every join adds
    a version (seats fill, the deal stands), then every move adds one with the chance that
    follows it. A past version has no bot activity (`bot` is null) and the current `updated`.
    Each view is built before the replay moves on, so dump it before asking for the next.
    """
    record, game, seat = caller.record, caller.game, caller.seat
    if after_version + 1 >= record.version:
        return
    started = _version_started(record)
    steps = replay(game, len(record.seats), record.options, store.history(record.id))
    pending = next(steps, None)  # the next stored step; the replay's one state is just before it
    state = pending.state if pending is not None else game.new_state(len(record.seats), record.options)

    def play(moves: int) -> None:
        """Consume `moves` player moves, then the chance outcomes that follow."""
        nonlocal pending
        for _ in range(moves):
            pending = next(steps, None)
        while pending is not None and pending.player == CHANCE:
            pending = next(steps, None)

    play(0)
    for version in range(1, record.version):
        if started is not None and version > started:
            play(1)  # the move that made this version, and its chance
        if version <= after_version:
            continue
        status = MatchStatus.ACTIVE if started is not None and version >= started else MatchStatus.WAITING
        then = Caller(record, game, state, seat)
        yield MatchView(
            id=record.id, game=record.game, version=version, status=status, to_act=then.to_act, you=seat,
            seats=seat_rows(record, version), state=game.view(state, seat),
            legal_moves=legal_moves_of(then, status), outcome=None, bot=None, seeded=record.seeded,
            options=record.options, created=iso(record.created), updated=iso(record.updated),
        )


def _version_started(record: MatchRecord) -> int | None:
    """The version at which the last seat was filled (the first move follows it); None while waiting."""
    if record.open_seats:
        return None
    joined = [seat.joined or 1 for seat in record.seats if not seat.is_bot]
    if any(seat.joined is None for seat in record.seats if not seat.is_bot):
        joined = list(range(1, len(joined) + 1))  # stored before joins were recorded: in seat order
    return max(joined, default=1)


def granted_view(store: Store, caller: Caller, token: str) -> GrantedView:
    """The view of a seat just handed out, plus its token."""
    return GrantedView(**vars(match_view(store, caller)), token=token)


def legal_moves(caller: Caller) -> LegalMoves:
    """The caller's legal moves with the version they belong to."""
    return LegalMoves(caller.record.version, caller.to_act, caller.seat, legal_moves_of(caller))


def match_log(store: Store, caller: Caller) -> MatchLog:
    """The move history as the caller may see it: redacted while the match runs, full after."""
    record, game, seat = caller.record, caller.game, caller.seat
    finished = record.status == MatchStatus.FINISHED
    entries = []
    for step in replay(game, len(record.seats), record.options, store.history(record.id)):
        player = step.player
        shown = game.move_to_json(step.move) if finished else game.log_entry(step.state, step.move, seat)
        entries.append(LogEntry(step.index, player if player >= 0 else None, player == CHANCE, shown))
    return MatchLog(record.id, record.version, entries)


def listing(store: Store, limit: int, game: str | None, status: MatchStatus | None) -> MatchList:
    """Joinable and live matches, newest first, optionally filtered."""
    rows = []
    for record in store.listed(limit):
        if (game and record.game != game) or (status and record.status != status):
            continue
        rows.append(MatchSummary(record.id, record.game, record.status, record.version,
                                 seat_rows(record), record.open_seats, iso(record.created)))
        if len(rows) >= limit:
            break
    return MatchList(rows)


def bot_activity(store: Store, loaded: Loaded) -> BotActivity | None:
    """What the bot to act is doing: queued, thinking with its progress so far, or failed
    (re-enqueued too often in a row: the sweeper tries again later)."""
    seat = loaded.bot_to_act
    if seat is None:
        return None
    record = loaded.record
    level = record.seats[seat].bot_level
    progress = store.bot_progress(record.id)
    if progress.get("version") != str(record.version):
        return BotActivity(seat, level)
    if progress.get("status") == BotStatus.FAILED:
        return BotActivity(seat, level, BotStatus.FAILED)
    if progress.get("status") != BotStatus.THINKING:
        return BotActivity(seat, level)
    best_move = None
    # The move a bot leans to would reveal its hidden hand: shown only in open games.
    if not loaded.game.info.hidden_information and progress.get("best_move"):
        best_move = json.loads(progress["best_move"])
    return BotActivity(
        seat,
        level,
        BotStatus.THINKING,
        iterations=int(progress.get("iterations", 0)),
        elapsed=round(float(progress.get("elapsed", 0.0)), 3),
        best_move=best_move,
        best_visits=int(progress.get("best_visits", 0)),
    )
