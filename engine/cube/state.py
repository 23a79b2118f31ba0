"""The Magic Cube state: counts per object kind in the lid, the cube and in front of each seat,
and its compact JSON snapshot (`encode`/`decode`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Json, Seat, State
from engine.cube.cards import OPPOSITE, PER_KIND, SIDES, STARS, START_UP, TOTAL, Face, Kind, Side
from engine.errors import InvalidSnapshot

SNAPSHOT_VERSION = 1

# phases: who acts next
FIRST, ROLL, FACE, CHOOSE, VIA, MID, FINAL, OVER = range(8)
PHASES: tuple[str, ...] = ("first", "roll", "face", "choose", "via", "mid", "final", "over")
CHANCE_PHASES = (FIRST, FACE, MID, FINAL)


class CubeState(State):
    """A whole Magic Cube match: counts per kind in the lid, the cube, in front of each seat.

    The `t_*` fields describe the turn in progress, or the last one once it is over:
    who, the face rolled, the object taken, the side up when it began, the
    intermediate side, what fell before and after the throw, whether it ended the game.
    """

    __slots__ = (
        "n", "lid", "cube", "front", "out", "up", "player", "phase", "turns",
        "t_seat", "t_face", "t_obj", "t_start", "t_via", "t_mid", "t_final",
    )

    def __init__(self, n: int) -> None:
        self.n = n
        self.lid = [PER_KIND] * 4
        self.cube = [0] * 4
        self.front = [[0] * 4 for _ in range(n)]
        self.out = [0] * 4
        self.up: Side = START_UP
        self.player: Seat = -1
        self.phase = FIRST
        self.turns = 0                   # completed turns (the ending roll not counted)
        self.t_seat: Seat = -1
        self.t_face: Face = -1
        self.t_obj: Kind = -1
        self.t_start: Side = -1
        self.t_via: Side = -1
        self.t_mid: tuple[int, ...] | None = None
        self.t_final: tuple[int, ...] | None = None

    def clone(self) -> CubeState:
        other = CubeState.__new__(CubeState)
        other.n = self.n
        other.lid = self.lid[:]
        other.cube = self.cube[:]
        other.front = [row[:] for row in self.front]
        other.out = self.out[:]
        other.up = self.up
        other.player = self.player
        other.phase = self.phase
        other.turns = self.turns
        other.t_seat = self.t_seat
        other.t_face = self.t_face
        other.t_obj = self.t_obj
        other.t_start = self.t_start
        other.t_via = self.t_via
        other.t_mid = self.t_mid
        other.t_final = self.t_final
        return other

    def __repr__(self) -> str:
        return (
            f"<CubeState {PHASES[self.phase]} seat={self.player} up={SIDES[self.up]} "
            f"lid={self.lid} cube={self.cube} front={self.front} out={self.out}>"
        )

    def in_hand(self) -> Kind:
        """The object taken but neither thrown nor returned yet, or -1."""
        return self.t_obj if self.phase in (VIA, MID) else -1


# --- snapshots -----------------------------------------------------------------


def encode(s: CubeState) -> dict[str, Json]:
    """Compact snapshot: counts as lists in kind order, sides and faces as ints."""
    return {
        "v": SNAPSHOT_VERSION,
        "n": s.n,
        "lid": list(s.lid),
        "cube": list(s.cube),
        "front": [list(row) for row in s.front],
        "out": list(s.out),
        "up": s.up,
        "player": s.player,
        "phase": s.phase,
        "turns": s.turns,
        "t": [
            s.t_seat, s.t_face, s.t_obj, s.t_start, s.t_via,
            None if s.t_mid is None else list(s.t_mid),
            None if s.t_final is None else list(s.t_final),
        ],
    }


def decode(data: Mapping[str, Json]) -> CubeState:
    """Rebuild a state from `encode`; InvalidSnapshot on anything inconsistent."""
    try:
        return _decode(data)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise InvalidSnapshot(f"not a cube snapshot: {exc}") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _require(condition: bool, message: str) -> None:
    """Snapshot validation that survives `python -O` (unlike assert)."""
    if not condition:
        raise ValueError(message)


def _counts(value: Any, length: int = 4) -> list[int]:
    _require(isinstance(value, list) and len(value) == length, "a list of counts")
    _require(all(_is_int(c) and 0 <= c <= TOTAL for c in value), "counts are small ints")
    return list(value)


def _fall_field(value: Any) -> tuple[int, ...] | None:
    return None if value is None else tuple(_counts(value))


def _decode(data: Mapping[str, Json]) -> CubeState:
    _require(isinstance(data, Mapping), "a JSON object")
    _require(data["v"] == SNAPSHOT_VERSION, f"snapshot version {data.get('v')!r} is not {SNAPSHOT_VERSION}")
    n = data["n"]
    _require(_is_int(n) and 2 <= n <= 5, "2 to 5 players")
    s = CubeState(n)
    s.lid = _counts(data["lid"])
    s.cube = _counts(data["cube"])
    front = data["front"]
    _require(isinstance(front, list) and len(front) == n, "one front per seat")
    s.front = [_counts(row) for row in front]
    s.out = _counts(data["out"])
    up, player, phase, turns = data["up"], data["player"], data["phase"], data["turns"]
    _require(_is_int(up) and 0 <= up < 6, "up is a side")
    _require(_is_int(phase) and 0 <= phase < len(PHASES), "a phase")
    _require(_is_int(player) and (-1 <= player < n) and (player >= 0) == (phase != FIRST), "player")
    _require(_is_int(turns) and turns >= 0, "turns")
    s.up, s.player, s.phase, s.turns = up, player, phase, turns
    t = data["t"]
    _require(isinstance(t, list) and len(t) == 7, "turn record")
    _require(all(_is_int(x) for x in t[:5]), "turn record ints")
    s.t_seat, s.t_face, s.t_obj, s.t_start, s.t_via = t[:5]
    _require(-1 <= s.t_seat < n and -1 <= s.t_face < 6 and -1 <= s.t_obj < 4, "turn record")
    _require(-1 <= s.t_start < 6 and -1 <= s.t_via < 6, "turn record sides")
    s.t_mid, s.t_final = _fall_field(t[5]), _fall_field(t[6])
    if phase in (CHOOSE, VIA, MID, FINAL):
        _require(s.t_seat == player and s.t_face >= 0 and s.t_start >= 0, "turn in progress")
        _require(phase != CHOOSE or s.t_face == STARS, "a choice follows stars")
        _require(phase not in (VIA, MID) or OPPOSITE[s.t_start] == s.t_face, "a half turn")
        _require(phase != MID or s.t_via >= 0, "an intermediate side")
    hand = s.in_hand()
    for k in range(4):
        total = s.lid[k] + s.cube[k] + s.out[k] + sum(row[k] for row in s.front)
        _require(total + (hand == k) == PER_KIND, f"there are {PER_KIND} of each kind")
    return s
