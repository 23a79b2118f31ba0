"""What is stored about a match: its status, its seats and the record itself (Redis-encoded).

These are the api's own words for a match; the engine knows none of them.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, cast

import msgpack

from ai.levels import DEFAULT_LEVEL

#: The stored form's version (the old hash-and-lists form is 1; `api.store.storage` still reads it).
RECORD_FORMAT = 2

_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")


def text(value: Any) -> str:
    """A Redis reply as text (the connection is binary: RQ needs it so)."""
    return value.decode() if isinstance(value, bytes) else str(value)


class MatchStatus(StrEnum):
    """Where a match is in its life."""

    WAITING = "waiting"      # a human seat is still open
    ACTIVE = "active"        # every seat filled, not finished
    FINISHED = "finished"    # the game is over (or every seat but one resigned)
    CANCELLED = "cancelled"  # its creator called it off while it waited


#: Statuses in which nothing changes any more.
ENDED = (MatchStatus.FINISHED, MatchStatus.CANCELLED)


#: Statuses of matches that GET /v1/matches lists (and the sweeper visits).
LISTED = (MatchStatus.WAITING, MatchStatus.ACTIVE)


class SeatType(StrEnum):
    """Who plays a seat."""

    HUMAN = "human"
    BOT = "bot"


class Visibility(StrEnum):
    """Whether the lobby lists a match."""

    PUBLIC = "public"    # listed while waiting or active
    PRIVATE = "private"  # never listed: joined by its id


class Takeover(StrEnum):
    """Why a bot plays a human seat now."""

    LEFT = "left"          # the player left (POST …/leave)
    RESIGNED = "resigned"  # the player resigned; the seat is ranked last
    TIMEOUTS = "timeouts"  # three turns in a row ran out of time


class BotStatus(StrEnum):
    """What the bot to act is doing (the worker reports it in the match's `bot` hash)."""

    QUEUED = "queued"
    THINKING = "thinking"
    FAILED = "failed"  # re-enqueued MAX_RECOVERIES times in a row; tried again BOT_RETRY_SECONDS later


@dataclass
class SeatRecord:
    """One seat: who plays it, and the SHA-256 of its token once a human took it."""

    type: SeatType
    level: str | None = None       # bots, and human seats a bot took over
    token_hash: str | None = None  # humans, once joined
    name: str | None = None        # humans once joined; bots are named after their level
    takeover: Takeover | None = None  # humans: why a bot plays the seat now
    reserved: bool = False         # a rematch seat kept for the previous match's player
    bank: float | None = None      # bank clocks: seconds left
    timeouts: int = 0              # turns in a row that ran out of time

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
    def played_by_bot(self) -> bool:
        """A bot seat, or a human seat a bot took over."""
        return self.is_bot or self.takeover is not None

    @property
    def bot_level(self) -> str:
        """The level the bot playing this seat plays at."""
        return self.level or DEFAULT_LEVEL

    @property
    def display_name(self) -> str | None:
        """The name views show: the player's, or the bot's level."""
        return f"{self.bot_level} bot" if self.is_bot else self.name

    @property
    def filled(self) -> bool:
        return self.is_bot or self.token_hash is not None

    @property
    def open(self) -> bool:
        """Free for anyone to join (a reserved rematch seat is not)."""
        return not self.filled and not self.reserved

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "level": self.level, "token_hash": self.token_hash}
        if self.name is not None:
            data["name"] = self.name
        if self.takeover is not None:
            data["takeover"] = self.takeover.value
        if self.reserved:
            data["reserved"] = True
        if self.bank is not None:
            data["bank"] = self.bank
        if self.timeouts:
            data["timeouts"] = self.timeouts
        return data

    def to_stored(self) -> dict[str, Any]:
        """The seat as stored: its JSON form with the token's hash as 32 raw bytes."""
        data = self.to_json()
        if self.level is None:
            del data["level"]
        if self.token_hash is None:
            del data["token_hash"]
        else:
            data["token_hash"] = packed_hex(self.token_hash)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatRecord:
        """A seat from `to_json` or `to_stored`."""
        takeover = data.get("takeover")
        return cls(SeatType(data["type"]), data.get("level"), _token_hash(data.get("token_hash")), data.get("name"),
                   Takeover(takeover) if takeover else None, bool(data.get("reserved")), data.get("bank"),
                   int(data.get("timeouts", 0)))


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
    visibility: Visibility = Visibility.PUBLIC
    creator: int | None = None            # the seat of whoever created it (cancels it while waiting)
    takeover_level: str = DEFAULT_LEVEL   # the bot that plays a seat left, resigned or out of time
    clock: dict[str, float] | None = None  # {"move_seconds"} or {"bank_seconds", "increment_seconds"}
    turn_started: float | None = None     # Redis time the clocked seat to act started thinking
    deadline: float | None = None         # Redis time its clock runs out (None: no clock running)
    resigned: list[int] = field(default_factory=list)  # seats in the order they resigned
    timeout_moves: list[int] = field(default_factory=list)  # history positions played on a timeout
    rematch: str | None = None            # the follow-up match, once someone asked for it
    previous: str | None = None           # the match this one is the rematch of
    #: The stored form it was loaded from (`to_stored`): the version the next one is a change of.
    stored: bytes | None = field(default=None, repr=False, compare=False)
    #: Loaded from the old format: its versions as log entries (the next write moves them over).
    legacy_log: list[bytes] | None = field(default=None, repr=False, compare=False)

    @property
    def open_seats(self) -> list[int]:
        """Seats anyone may still join."""
        return [index for index, seat in enumerate(self.seats) if seat.open]

    @property
    def unfilled_seats(self) -> list[int]:
        """Seats nobody holds yet (open or reserved): the match waits while there are some."""
        return [index for index, seat in enumerate(self.seats) if not seat.filled]

    def hand_to_bot(self, seat: int, why: Takeover) -> None:
        """The takeover bot plays a human seat for the rest of the match (at the match's level
        unless the seat had one)."""
        held = self.seats[seat]
        held.takeover = why
        held.level = held.level or self.takeover_level

    def lifecycle_json(self) -> dict[str, Any]:
        """The lifecycle fields (visibility, clock, resignations, rematch…) as one JSON object."""
        return {
            "visibility": self.visibility.value,
            "creator": self.creator,
            "takeover_level": self.takeover_level,
            "clock": self.clock,
            "turn_started": self.turn_started,
            "deadline": self.deadline,
            "resigned": self.resigned,
            "timeout_moves": self.timeout_moves,
            "rematch": self.rematch,
            "previous": self.previous,
        }

    def version_json(self) -> dict[str, Any]:
        """What a version of the match needs besides its history: no snapshot, seed nor tokens."""
        seats = []
        for seat in self.seats:
            public = seat.to_json()
            public["token_hash"] = "held" if seat.token_hash else None
            seats.append(public)
        return {"version": self.version, "status": self.status.value, "history_length": self.history_length,
                "seats": seats, "updated": self.updated, **self.lifecycle_json()}

    def at_version(self, data: Mapping[str, Any]) -> MatchRecord:
        """This match as it stood at an earlier version (`data` from `version_json`); no snapshot."""
        past = MatchRecord(
            id=self.id, game=self.game, version=int(data["version"]), status=MatchStatus(data["status"]),
            seats=[SeatRecord.from_json(seat) for seat in data["seats"]], options=self.options,
            seed=self.seed, seeded=self.seeded, snapshot={}, history_length=int(data["history_length"]),
            created=self.created, updated=float(data["updated"]),
        )
        past.apply_lifecycle(data)
        return past

    def apply_lifecycle(self, data: Mapping[str, Any]) -> None:
        """Set the lifecycle fields from `lifecycle_json` (absent ones keep their defaults)."""
        self.visibility = Visibility(data.get("visibility", Visibility.PUBLIC))
        self.creator = data.get("creator")
        self.takeover_level = data.get("takeover_level") or DEFAULT_LEVEL
        self.clock = data.get("clock")
        self.turn_started = data.get("turn_started")
        self.deadline = data.get("deadline")
        self.resigned = list(data.get("resigned") or [])
        self.timeout_moves = list(data.get("timeout_moves") or [])
        self.rematch = data.get("rematch")
        self.previous = data.get("previous")

    def to_stored(self) -> bytes:
        """The record as stored (msgpack): unset lifecycle fields left out, hex digests as bytes."""
        data: dict[str, Any] = {
            "format": RECORD_FORMAT, "game": self.game, "version": self.version, "status": self.status.value,
            "seats": [seat.to_stored() for seat in self.seats], "options": self.options,
            "seed": packed_hex(self.seed), "seeded": self.seeded, "snapshot": self.snapshot,
            "history_length": self.history_length, "created": self.created, "updated": self.updated,
        }
        data.update((name, value) for name, value in self.lifecycle_json().items() if value not in (None, []))
        return cast(bytes, msgpack.packb(data))

    @classmethod
    def from_stored(cls, match_id: str, raw: bytes) -> MatchRecord:
        """The record `to_stored` wrote (it remembers `raw`: the base of the next version's change)."""
        data = msgpack.unpackb(raw)
        record = cls(
            id=match_id, game=data["game"], version=data["version"], status=MatchStatus(data["status"]),
            seats=[SeatRecord.from_json(seat) for seat in data["seats"]], options=data["options"],
            seed=unpacked_hex(data["seed"]), seeded=data["seeded"], snapshot=data["snapshot"],
            history_length=data["history_length"], created=data["created"], updated=data["updated"],
            stored=raw,
        )
        record.apply_lifecycle(data)
        return record

    @classmethod
    def from_redis(cls, raw: Mapping[Any, Any]) -> MatchRecord:
        """The record as the old format (1) stored it: a hash of text fields."""
        data = {text(key): text(value) for key, value in raw.items()}
        record = cls(
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
        record.apply_lifecycle(json.loads(data.get("lifecycle", "{}")))
        return record


def packed_hex(value: str) -> bytes | str:
    """A SHA-256 hex digest (a token's hash, a generated seed) as its 32 bytes; other text as is."""
    return bytes.fromhex(value) if _HEX_DIGEST.fullmatch(value) else value


def unpacked_hex(value: bytes | str) -> str:
    """The text `packed_hex` packed."""
    return value.hex() if isinstance(value, bytes) else value


def _token_hash(value: bytes | str | None) -> str | None:
    """A seat's token hash, stored (bytes) or in JSON (text), or None."""
    return None if value is None else unpacked_hex(value)


def binary(value: bytes | str) -> bytes:
    """A Redis reply as bytes (the connection is binary; the types allow text)."""
    return value if isinstance(value, bytes) else value.encode()


# --- the log: one entry per version --------------------------------------------------------------
#
# Entry n-1 is version n: [updated, moves, change]. `moves` are the history entries the version
# appended (`api.store.history`: a move's index among the legal moves or chance outcomes); `change` the
# fields of `version_json` that differ from the version before (left out when none did). Folding
# the entries gives back every version's `version_json` and the whole history.


def log_entry(record: MatchRecord, moves: list[Any], before: Mapping[str, Any]) -> bytes:
    """The log entry of `record`'s current version, which appended `moves` to the history and
    follows the version whose `version_json` is `before` (empty: the first)."""
    now = record.version_json()
    change = {name: value for name, value in now.items()
              if name not in IMPLIED and (name not in before or before[name] != value)}
    return cast(bytes, msgpack.packb([record.updated, moves, change] if change else [record.updated, moves]))


#: Fields of `version_json` the log's entries imply: the version (the entry's position), the
#: history's length (the moves so far) and `updated` (each entry's first item).
IMPLIED = ("version", "history_length", "updated")


def fold_log(entries: Iterable[bytes]) -> tuple[list[dict[str, Any]], list[Any]]:
    """Every version's `version_json` and the whole history, from the log's entries."""
    versions: list[dict[str, Any]] = []
    history: list[Any] = []
    fields: dict[str, Any] = {}
    for number, raw in enumerate(entries, start=1):
        entry = msgpack.unpackb(raw)
        history.extend(entry[1])
        if len(entry) > 2:
            fields.update(entry[2])
        versions.append({**fields, "version": number, "history_length": len(history), "updated": entry[0]})
    return versions, history


def legacy_log(versions: list[dict[str, Any]], history: list[Any], record: MatchRecord) -> list[bytes]:
    """The log entries of `record` as the old format stored it: its list of `version_json` and its
    history (JSON moves, kept as such: `api.store.history` reads a one-item list as a move's JSON).

    Matches begun before that list existed lack its first versions (or all of them): each
    missing version repeats the first one known (the current record's when none is), the moves
    made before it all in the first; the old format could not show those versions either."""
    known = {int(data["version"]): data for data in versions}
    fallback = known[min(known)] if known else record.version_json()
    entries = []
    before: dict[str, Any] = {}
    for number in range(1, record.version + 1):
        past = known.get(number) or {**fallback, "history_length": fallback["history_length"] if number == 1
                                     else before.get("history_length", 0)}
        moves = [[move] for move in history[before.get("history_length", 0):past["history_length"]]]
        change = {name: value for name, value in past.items()
                  if name not in IMPLIED and (name not in before or before[name] != value)}
        entries.append(msgpack.packb([past["updated"], moves, change] if change else [past["updated"], moves]))
        before = past
    return entries
