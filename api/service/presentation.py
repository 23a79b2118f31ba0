"""What callers see: a match view, its log, the listing — built as objects the schemas dump.

Each seat sees its own view (the game's `view` and `log_entry` redact what it
may not see); a spectator is seat None. Seat rows are built here, once.
"""

from __future__ import annotations

import functools
import json
import math
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from api.service import clocks
from api.service.model import Caller, Loaded
from api.store.history import Replay
from api.store.records import (
    ENDED,
    BotStatus,
    MatchRecord,
    MatchStatus,
    SeatType,
    Takeover,
    Visibility,
)
from api.store.storage import Store
from engine import CHANCE
from engine.core import Outcome
from engine.fairness import commitment
from engine.resignation import by_resignation, with_resignations


@dataclass(frozen=True)
class SeatRow:
    """One seat as anyone may see it (never its token)."""

    seat: int
    type: SeatType
    level: str | None
    filled: bool
    name: str | None = None
    takeover: Takeover | None = None
    reserved: bool = False
    timeouts: int = 0
    last_seen: str | None = None


@dataclass(frozen=True)
class ClockView:
    """The match's clock: its settings, the deadline of the move expected now, each seat's time."""

    move_seconds: float | None
    bank_seconds: float | None
    increment_seconds: float | None
    deadline: str | None
    remaining: list[float | None]


@dataclass(frozen=True)
class Fairness:
    """The SHA-256 commitment to the match's secret seed and deal setup (`engine.fairness`); the
    seed itself once the match is over."""

    commitment: str
    seed: str | None


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
    visibility: Visibility = Visibility.PUBLIC
    takeover_level: str = ""
    clock: ClockView | None = None
    fairness: Fairness | None = None
    resigned: list[int] | None = None
    rematch: str | None = None
    previous: str | None = None


@dataclass(frozen=True)
class VersionView(MatchView):
    """The match as the caller saw it at an earlier version; once it is finished, every seat's view."""

    seat_views: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class GrantedView(MatchView):
    """The view of a seat just taken, with its token (shown this once)."""

    token: str = ""


@dataclass(frozen=True)
class LegalMoves:
    """The caller's legal moves (empty unless it is to act)."""

    game: str
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
    name: str | None = None
    timeout: bool = False


@dataclass(frozen=True)
class MatchLog:
    id: str
    version: int
    entries: list[LogEntry]
    game: str = ""
    players: int = 0
    options: dict[str, Any] | None = None
    fairness: Fairness | None = None
    status: MatchStatus = MatchStatus.WAITING
    length: int = 0
    resigned: list[int] | None = None
    outcome: Outcome | None = None


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
    clock: dict[str, float] | None = None


@dataclass(frozen=True)
class MatchList:
    """A page of the lobby, and the cursor of the next one (None: the last page)."""

    matches: list[MatchSummary]
    next_cursor: str | None = None


def iso(timestamp: float) -> str:
    """An epoch time as ISO 8601 UTC, to the second."""
    return _iso_second(math.floor(timestamp))


@functools.lru_cache(maxsize=4096)
def _iso_second(second: int) -> str:
    """`iso` of a whole second (every view writes a few: the same ones, second after second)."""
    return datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_ms(timestamp: float) -> str:
    """An epoch time as ISO 8601 UTC, to the millisecond (clock deadlines)."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def seat_rows(record: MatchRecord, seen: dict[int, float] | None = None) -> list[SeatRow]:
    """Every seat of a match, in play order, with when each was last seen (when known)."""
    seen = seen or {}
    return [
        SeatRow(index, seat.type, seat.level, seat.filled, seat.display_name, seat.takeover, seat.reserved,
                seat.timeouts, iso(seen[index]) if index in seen else None)
        for index, seat in enumerate(record.seats)
    ]


def legal_moves_of(caller: Caller) -> list[Any]:
    """The caller's legal moves as JSON: empty unless the match runs and the caller plays its turn."""
    record, game = caller.record, caller.game
    if record.status != MatchStatus.ACTIVE or caller.seat is None or caller.seat != caller.to_act:
        return []
    if record.seats[caller.seat].played_by_bot:
        return []
    return [game.move_to_json(move) for move in game.legal_moves(caller.state)]


def match_outcome(loaded: Loaded) -> Outcome | None:
    """How a finished match ended: the game's outcome with resigned seats ranked last, or the
    win of the one seat left when every other resigned."""
    record, game, state = loaded.record, loaded.game, loaded.state
    if record.status != MatchStatus.FINISHED:
        return None
    if game.is_terminal(state):
        outcome = game.outcome(state)
        return None if outcome is None else with_resignations(outcome, record.resigned)
    return by_resignation(len(record.seats), record.resigned)


def clock_view(record: MatchRecord, to_act: int | None, now: float) -> ClockView | None:
    """The clock as it stands at `now`."""
    if record.clock is None:
        return None
    clock = record.clock
    return ClockView(clock.get("move_seconds"), clock.get("bank_seconds"), clock.get("increment_seconds"),
                     iso_ms(record.deadline) if record.deadline is not None else None,
                     clocks.remaining(record, to_act, now))


def fairness_of(record: MatchRecord) -> Fairness:
    """The commitment to the seed and setup, and the seed once nothing can change any more."""
    committed = _commitment(record.seed, record.game, tuple(sorted(record.options.items())), len(record.seats))
    return Fairness(committed, record.seed if record.status in ENDED else None)


@functools.lru_cache(maxsize=4096)
def _commitment(seed: str, game: str, options: tuple[tuple[str, Any], ...], players: int) -> str:
    """`engine.fairness.commitment`, kept for the matches a process shows again and again (every
    view shows it; an option's value is a JSON scalar)."""
    return commitment(seed, game, dict(options), players)


def match_view(store: Store, caller: Caller, now: float | None = None) -> MatchView:
    """The match as the caller's seat may see it (its presence read now unless read with it), its
    clock at `now` (default: now)."""
    seen = caller.presence.seen if caller.presence is not None else store.last_seen(caller.record.id)
    return MatchView(**view_fields(caller, seen, time.time() if now is None else now),
                     bot=bot_activity(store, caller))


def version_view(store: Store, caller: Caller, version: int) -> VersionView:
    """The match at `version` as the caller's seat saw it then (a spectator: the public view);
    once the match is finished, with every seat's view and the seed."""
    from api.service.errors import VersionNotFound

    record = caller.record
    versions, history = store.timeline(record, version) if 1 <= version <= record.version else ([], [])
    if len(versions) < version or not versions:
        raise VersionNotFound(f"match {record.id} has versions 1 to {record.version}, not {version}",
                              current_version=record.version)
    game = caller.game
    past = record.at_version(versions[-1])
    state = Replay(game, len(past.seats), past.options, history).advance_to(past.history_length)
    then = Caller(past, game, state, caller.seat)
    fields = view_fields(then, {}, past.updated)
    finished = caller.record.status == MatchStatus.FINISHED
    fields["fairness"] = fairness_of(caller.record)
    seat_views = [game.view(state, seat) for seat in range(len(past.seats))] if finished else None
    return VersionView(**fields, bot=None, seat_views=seat_views)


def replayed_views(store: Store, caller: Caller, after_version: int) -> Iterator[MatchView]:
    """The caller's views at the versions after `after_version` and before the current one, in
    order, as its seat saw them then (for an event stream that resumes): each version's record
    from the match's list of versions, its state by replaying the history up to it with the engine,
    as `version_view` does, but reading the history once. A past version shows no bot activity."""
    record, game, seat = caller.record, caller.game, caller.seat
    if after_version + 1 >= record.version:
        return
    versions, history = store.timeline(record, record.version - 1)
    replay = Replay(game, len(record.seats), record.options, history)
    for data in versions[max(1, after_version + 1) - 1:]:
        past = record.at_version(data)
        state = replay.advance_to(past.history_length)
        yield MatchView(**view_fields(Caller(past, game, state, seat), {}, past.updated), bot=None)


def view_fields(caller: Caller, seen: dict[int, float], now: float) -> dict[str, Any]:
    """Every field of a view but the bot's activity."""
    record, game, state = caller.record, caller.game, caller.state
    to_act = caller.to_act if record.status not in ENDED else None
    return {
        "id": record.id,
        "game": record.game,
        "version": record.version,
        "status": record.status,
        "to_act": to_act,
        "you": caller.seat,
        "seats": seat_rows(record, seen),
        "state": game.view(state, caller.seat),
        "legal_moves": legal_moves_of(caller),
        "outcome": match_outcome(caller),
        "seeded": record.seeded,
        "options": record.options,
        "created": iso(record.created),
        "updated": iso(record.updated),
        "visibility": record.visibility,
        "takeover_level": record.takeover_level,
        "clock": clock_view(record, to_act, now),
        "fairness": fairness_of(record),
        "resigned": list(record.resigned),
        "rematch": record.rematch,
        "previous": record.previous,
    }


def granted_view(store: Store, caller: Caller, token: str) -> GrantedView:
    """The view of a seat just handed out, plus its token."""
    return GrantedView(**vars(match_view(store, caller)), token=token)


def legal_moves(caller: Caller) -> LegalMoves:
    """The caller's legal moves with the version they belong to."""
    return LegalMoves(caller.record.game, caller.record.version, caller.to_act, caller.seat, legal_moves_of(caller))


def match_log(store: Store, caller: Caller) -> MatchLog:
    """The move history as the caller may see it: redacted while the match runs, full after."""
    record, game, seat = caller.record, caller.game, caller.seat
    finished = record.status in ENDED
    timeouts = set(record.timeout_moves)
    _, history = store.timeline(record)
    replay = Replay(game, len(record.seats), record.options, history)
    entries = []
    for index in range(len(history)):
        player, move = replay.peek()
        shown = game.move_to_json(move) if finished else game.log_entry(replay.state, move, seat)
        mover = player if player >= 0 else None
        name = record.seats[mover].display_name if mover is not None else None
        entries.append(LogEntry(index, mover, player == CHANCE, shown, name, index in timeouts))
        replay.make(move)
    return MatchLog(record.id, record.version, entries, record.game, len(record.seats), record.options,
                    fairness_of(record), record.status, len(history), list(record.resigned), match_outcome(caller))


def listing(store: Store, limit: int, game: str | None, status: MatchStatus | None,
            cursor: str | None = None) -> MatchList:
    """One page of the waiting and active matches, newest first, exactly filtered by game and
    status (each filter has its index), starting after `cursor` (InvalidCursor if it is not one)."""
    records, after = store.lobby_page(game, status, limit, decode_cursor(cursor) if cursor else None)
    rows = [MatchSummary(r.id, r.game, r.status, r.version, seat_rows(r), r.open_seats, r.seeded,
                         iso(r.created), r.clock) for r in records]
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
    progress = loaded.presence.bot if loaded.presence is not None else store.bot_progress(record.id)
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
