"""What is stored about a match: its status, its seats and the record itself (Redis-encoded).

These are the api's own words for a match; the engine knows none of them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ai.levels import DEFAULT_LEVEL


def text(value: Any) -> str:
    """A Redis reply as text (the connection is binary: RQ needs it so)."""
    return value.decode() if isinstance(value, bytes) else str(value)


class MatchStatus(StrEnum):
    """Where a match is in its life."""

    WAITING = "waiting"    # a human seat is still open
    ACTIVE = "active"      # every seat filled, not finished
    FINISHED = "finished"  # the game is over


#: Statuses of matches that GET /v1/matches lists (and the sweeper visits).
LISTED = (MatchStatus.WAITING, MatchStatus.ACTIVE)


class SeatType(StrEnum):
    """Who plays a seat."""

    HUMAN = "human"
    BOT = "bot"


class BotStatus(StrEnum):
    """What the bot to act is doing (the worker reports it in the match's `bot` hash)."""

    QUEUED = "queued"
    THINKING = "thinking"
    FAILED = "failed"  # re-enqueued MAX_RECOVERIES times in a row; tried again BOT_RETRY_SECONDS later


@dataclass
class SeatRecord:
    """One seat: who plays it, and the SHA-256 of its token once a human took it."""

    type: SeatType
    level: str | None = None       # bots only
    token_hash: str | None = None  # humans, once joined
    joined: int | None = None      # humans: the match version at which the seat was taken

    @classmethod
    def bot(cls, level: str | None = None) -> SeatRecord:
        """A bot seat of `level` (the default level when None)."""
        return cls(SeatType.BOT, level or DEFAULT_LEVEL)

    @classmethod
    def human(cls) -> SeatRecord:
        """A human seat, open until someone takes its token."""
        return cls(SeatType.HUMAN)

    @property
    def is_bot(self) -> bool:
        return self.type == SeatType.BOT

    @property
    def bot_level(self) -> str:
        """The level this bot plays at."""
        return self.level or DEFAULT_LEVEL

    @property
    def filled(self) -> bool:
        return self.is_bot or self.token_hash is not None

    def take(self, token_hash: str, version: int) -> None:
        """A person takes this seat at `version` of the match."""
        self.token_hash, self.joined = token_hash, version

    def filled_at(self, version: int) -> bool:
        """Whether the seat was filled at `version` (seats taken before joins were recorded: at 1)."""
        return self.is_bot or (self.token_hash is not None and (self.joined or 1) <= version)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type.value}  # unset fields are left out: Redis bytes
        for name in ("level", "token_hash", "joined"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatRecord:
        return cls(SeatType(data["type"]), data.get("level"), data.get("token_hash"), data.get("joined"))


@dataclass
class MatchRecord:
    """Everything stored about a match except its move history."""

    id: str
    game: str
    version: int
    status: MatchStatus
    seats: list[SeatRecord]
    options: dict[str, Any]
    seed: str
    seeded: bool
    snapshot: dict[str, Any]
    history_length: int
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)

    @property
    def open_seats(self) -> list[int]:
        """Seats nobody holds yet."""
        return [index for index, seat in enumerate(self.seats) if not seat.filled]

    def to_redis(self) -> dict[Any, str]:
        return {
            "id": self.id,
            "game": self.game,
            "version": str(self.version),
            "status": self.status.value,
            "seats": json.dumps([seat.to_json() for seat in self.seats], separators=(",", ":")),
            "options": json.dumps(self.options, separators=(",", ":")),
            "seed": self.seed,
            "seeded": "1" if self.seeded else "0",
            "snapshot": json.dumps(self.snapshot, separators=(",", ":")),
            "history_length": str(self.history_length),
            "created": repr(self.created),
            "updated": repr(self.updated),
        }

    @classmethod
    def from_redis(cls, raw: Mapping[Any, Any]) -> MatchRecord:
        data = {text(key): text(value) for key, value in raw.items()}
        return cls(
            id=data["id"],
            game=data["game"],
            version=int(data["version"]),
            status=MatchStatus(data["status"]),
            seats=[SeatRecord.from_json(seat) for seat in json.loads(data["seats"])],
            options=json.loads(data["options"]),
            seed=data["seed"],
            seeded=data["seeded"] == "1",
            snapshot=json.loads(data["snapshot"]),
            history_length=int(data["history_length"]),
            created=float(data["created"]),
            updated=float(data["updated"]),
        )
