"""What callers see: a match view, its log, the listing — built as objects the schemas dump.

Each seat sees its own view (the game's `view` and `log_entry` redact what it
may not see); a spectator is seat None. Seat rows are built here, once.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from api.records import BotStatus, MatchRecord, MatchStatus, SeatType
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
    seeded: bool
    created: str


@dataclass(frozen=True)
class MatchList:
    """A page of the lobby, and the cursor of the next one (None: the last page)."""

    matches: list[MatchSummary]
    next_cursor: str | None = None


def iso(timestamp: float) -> str:
    """An epoch time as ISO 8601 UTC, to the second."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def seat_rows(record: MatchRecord) -> list[SeatRow]:
    """Every seat of a match, in play order."""
    return [SeatRow(index, seat.type, seat.level, seat.filled) for index, seat in enumerate(record.seats)]


def legal_moves_of(caller: Caller) -> list[Any]:
    """The caller's legal moves as JSON: empty unless the match runs and the caller is to act."""
    record, game = caller.record, caller.game
    if record.status != MatchStatus.ACTIVE or caller.seat is None or caller.seat != caller.to_act:
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


def granted_view(store: Store, caller: Caller, token: str) -> GrantedView:
    """The view of a seat just handed out, plus its token."""
    return GrantedView(**vars(match_view(store, caller)), token=token)


def legal_moves(caller: Caller) -> LegalMoves:
    """The caller's legal moves with the version they belong to."""
    return LegalMoves(caller.record.version, caller.to_act, caller.seat, legal_moves_of(caller))


def match_log(store: Store, caller: Caller) -> MatchLog:
    """The move history as the caller may see it: redacted while the match runs, full after."""
    record, game, seat = caller.record, caller.game, caller.seat
    state = game.new_state(len(record.seats), record.options)
    finished = record.status == MatchStatus.FINISHED
    entries = []
    for index, data in enumerate(store.history(record.id)):
        move = game.move_from_json(data)
        player = game.current_player(state)
        shown = game.move_to_json(move) if finished else game.log_entry(state, move, seat)
        entries.append(LogEntry(index, player if player >= 0 else None, player == CHANCE, shown))
        game.step(state, move)
    return MatchLog(record.id, record.version, entries)


def listing(store: Store, limit: int, game: str | None, status: MatchStatus | None,
            cursor: str | None = None) -> MatchList:
    """One page of the waiting and active matches, newest first, exactly filtered by game and
    status (each filter has its index), starting after `cursor` (InvalidCursor if it is not one)."""
    records, after = store.lobby_page(game, status, limit, decode_cursor(cursor) if cursor else None)
    rows = [MatchSummary(r.id, r.game, r.status, r.version, seat_rows(r), r.open_seats, r.seeded,
                         iso(r.created)) for r in records]
    return MatchList(rows, encode_cursor(after) if after is not None else None)


class InvalidCursor(ValueError):
    """A `cursor` that names no position of the lobby."""


def encode_cursor(position: tuple[float, str]) -> str:
    """The cursor of a lobby position: a match's creation time (exact) and id, `1733050400.5_4f1c…`."""
    created, match_id = position
    return f"{created!r}_{match_id}"


def decode_cursor(cursor: str) -> tuple[float, str]:
    """The lobby position of a cursor (the `next` link's)."""
    match = CURSOR.fullmatch(cursor)
    if match is None:
        raise InvalidCursor("not a cursor of this listing")
    return float(match[1]), match[2]


#: What a cursor looks like (the query schema documents it).
CURSOR = re.compile(r"([0-9]{1,12}(?:\.[0-9]{1,12})?)_([0-9a-f]{16})")


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
