"""A loaded match (record, game, decoded state) and who is asking: what every service step passes on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api.service import clocks
from api.store.records import MatchRecord, MatchStatus
from engine.core import AnyGame, State


@dataclass(frozen=True)
class Presence:
    """What a view shows besides the version itself, read in the same round trip as the record:
    when each seat was last seen, and what the worker last reported of the bot to act."""

    seen: dict[int, float]
    bot: dict[str, str]


@dataclass
class Loaded:
    """A match record with its game and decoded state (and, when read for a view, its presence)."""

    record: MatchRecord
    game: AnyGame
    state: State
    presence: Presence | None = field(default=None, kw_only=True)
    #: Read by this process a moment ago (`RecentReads`), not now: the match may have moved on.
    kept: bool = field(default=False, kw_only=True)

    @property
    def to_act(self) -> int | None:
        """The seat to act; None when the game is over."""
        player = self.game.current_player(self.state)
        return player if player >= 0 else None

    @property
    def bot_to_act(self) -> int | None:
        """The seat a bot plays (a bot's, or one taken over) whose turn it is in a running match, else
        None (the one place this is decided)."""
        seat = self.to_act
        if self.record.status != MatchStatus.ACTIVE or seat is None or not self.record.seats[seat].played_by_bot:
            return None
        return seat

    def timed_out(self, now: float) -> int | None:
        """The human seat to act whose clock ran out by `now` (Redis time), else None."""
        record, seat = self.record, self.to_act
        if record.deadline is None or now < record.deadline or not clocks.is_clocked(record, seat):
            return None
        return seat

    def level_of(self, seat: int) -> str:
        """The level of the bot that plays `seat` now (the takeover level on a human's timeout)."""
        held = self.record.seats[seat]
        return held.bot_level if held.played_by_bot else self.record.takeover_level

    def seen_by(self, seat: int | None) -> Caller:
        """This match as `seat` asks for it (None: a spectator)."""
        return Caller(self.record, self.game, self.state, seat, presence=self.presence)


@dataclass
class Caller(Loaded):
    """A loaded match and the seat of whoever asks (None: a spectator)."""

    seat: int | None


@dataclass(frozen=True)
class MoveResult:
    """What a move submission returns: the body (the caller's view, as JSON), and whether it
    replays the stored response of a retried Idempotency-Key."""

    body: dict[str, Any]
    version: int
    replayed: bool = False
