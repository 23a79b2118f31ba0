"""The Magic Cube (`cube`): rules C1–C16 of `rules/cube.md` as an engine `Game`.

Vocabulary first, as in python-chess: object kinds and cube sides are small
ints, the die's faces share the side numbering (a face names its target side,
C8), and the cube's holes are bit masks over object kinds.

Move JSON forms (every move is a small frozen value object with `to_json`):

- ``{"type": "first", "seat": 2}``        chance: the first player (C6)
- ``{"type": "roll"}``                    the player to act rolls the die (C7)
- ``{"type": "face", "face": "stars"}``   chance: the face rolled, 1/6 each (C2)
- ``{"type": "choose", "object": "ring"}`` on stars, the kind taken from the lid (C9)
- ``{"type": "turn", "via": "red"}``      on a half turn, the intermediate side (C10)
- ``{"type": "fall", "objects": {"book": 0, "ring": 1, "hat": 0, "wand": 0}}``
  chance: what falls out at one exposure (C11), a count per kind

An exposure where nothing can fall (no object in the cube fits the down side)
has a single certain outcome and is resolved at once, without a chance node.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from itertools import product
from math import comb
from typing import Any

from engine import shapes
from engine.core import CHANCE, TERMINAL, Game, GameInfo, Json, Outcome, Seat, State, ranks_for
from engine.errors import IllegalMove, InvalidMove, InvalidSnapshot

# --- vocabulary --------------------------------------------------------------

Kind = int   # an object kind: BOOK, RING, HAT, WAND
Side = int   # a cube side; sides 0-3 have the colour of kinds 0-3
Face = int   # a die face; faces share the side numbering (the face names its target side)

BOOK, RING, HAT, WAND = 0, 1, 2, 3
KINDS: tuple[str, ...] = ("book", "ring", "hat", "wand")
RED, YELLOW, BLUE, GREEN, ORANGE, VIOLET = 0, 1, 2, 3, 4, 5
SIDES: tuple[str, ...] = ("red", "yellow", "blue", "green", "orange", "violet")
STARS, SQUARE = 4, 5
FACES: tuple[str, ...] = ("book", "ring", "hat", "wand", "stars", "square")

PER_KIND = 5                      # C1: five objects of each kind
TOTAL = PER_KIND * len(KINDS)     # C1: twenty objects
OPPOSITE: tuple[Side, ...] = (GREEN, BLUE, YELLOW, RED, VIOLET, ORANGE)  # C4
#: C3: the kinds (bit mask) that fit the holes of each side.
HOLES: tuple[int, ...] = (1 << BOOK, 1 << RING, 1 << HAT, 1 << WAND, 0b1111, 0)
START_UP: Side = VIOLET           # C5

# phases: who acts next
FIRST, ROLL, FACE, CHOOSE, VIA, MID, FINAL, OVER = range(8)
PHASES: tuple[str, ...] = ("first", "roll", "face", "choose", "via", "mid", "final", "over")
_CHANCE_PHASES = (FIRST, FACE, MID, FINAL)

KIND_INDEX = {name: i for i, name in enumerate(KINDS)}
SIDE_INDEX = {name: i for i, name in enumerate(SIDES)}
FACE_INDEX = {name: i for i, name in enumerate(FACES)}


def is_adjacent(a: Side, b: Side) -> bool:
    """C4: two sides are adjacent when they are neither the same nor opposite."""
    return a != b and OPPOSITE[a] != b


def fall_probability(n: int) -> float:
    """C11: the chance that one fitting object falls at an exposure with `n` objects inside."""
    return min(0.6, 0.05 * n)


# --- moves -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class First:
    """Chance: the seat that plays first (C6)."""

    seat: int

    def to_json(self) -> dict[str, Json]:
        return {"type": "first", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Roll:
    """The player to act rolls the die (C7)."""

    def to_json(self) -> dict[str, Json]:
        return {"type": "roll"}


@dataclass(frozen=True, slots=True)
class Rolled:
    """Chance: the face the die shows (C2); `face` is a name of FACES."""

    face: str

    def to_json(self) -> dict[str, Json]:
        return {"type": "face", "face": self.face}


@dataclass(frozen=True, slots=True)
class Choose:
    """On stars, the object kind the player takes from the lid (C9)."""

    object: str

    def to_json(self) -> dict[str, Json]:
        return {"type": "choose", "object": self.object}


@dataclass(frozen=True, slots=True)
class Turn:
    """On a half turn, the intermediate side the cube passes through (C10)."""

    via: str

    def to_json(self) -> dict[str, Json]:
        return {"type": "turn", "via": self.via}


@dataclass(frozen=True, slots=True)
class Fall:
    """Chance: how many objects of each kind (book, ring, hat, wand) fall at one exposure (C11)."""

    objects: tuple[int, int, int, int]

    def to_json(self) -> dict[str, Json]:
        return {"type": "fall", "objects": dict(zip(KINDS, self.objects, strict=True))}


CubeMove = First | Roll | Rolled | Choose | Turn | Fall

ROLL_MOVE = Roll()
ROLLED_MOVES = tuple(Rolled(name) for name in FACES)
CHOOSE_MOVES = tuple(Choose(name) for name in KINDS)
TURN_MOVES = tuple(Turn(name) for name in SIDES)
NOTHING: tuple[int, int, int, int] = (0, 0, 0, 0)


@cache
def fall_outcomes(cube: tuple[int, ...], mask: int) -> tuple[tuple[Fall, float], ...]:
    """C11: every possible fall with its probability: a product of binomials, one per fitting kind.

    `cube` holds the objects per kind inside the cube, `mask` the kinds fitting the down side.
    """
    p = fall_probability(sum(cube))
    ranges = [range(c + 1) if mask >> k & 1 else range(1) for k, c in enumerate(cube)]
    outcomes = []
    for counts in product(*ranges):
        prob = 1.0
        for k, fell in enumerate(counts):
            if mask >> k & 1:
                c = cube[k]
                prob *= comb(c, fell) * p**fell * (1 - p) ** (c - fell)
        outcomes.append((Fall(counts), prob))  # type: ignore[arg-type]
    total = sum(prob for _, prob in outcomes)
    return tuple((fall, prob / total) for fall, prob in outcomes)


def can_fall(cube: list[int], mask: int) -> bool:
    """Whether any object in the cube fits the holes in `mask`."""
    return any(mask >> k & 1 and cube[k] for k in range(4))


def split_penalty(fell: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """C14: (kept in front of the player, out of the game); two kept, first in kind order."""
    room = 2
    kept = []
    for count in fell:
        take = min(room, count)
        kept.append(take)
        room -= take
    return tuple(kept), tuple(f - k for f, k in zip(fell, kept, strict=True))


# --- state -------------------------------------------------------------------


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

    def target(self) -> Side:
        """C8: the side the face rolled this turn names."""
        return self.t_face

    def in_hand(self) -> Kind:
        """The object taken but neither thrown nor returned yet, or -1."""
        return self.t_obj if self.phase in (VIA, MID) else -1


# --- the game ----------------------------------------------------------------


#: The JSON shapes of the player moves (GameInfo.move_schema).
MOVE_SCHEMA = shapes.one_of(
    shapes.move("roll", "C7: roll the symbol die"),
    shapes.move("choose", "C9: on stars, the kind of object taken from the lid", object=shapes.names(KINDS)),
    shapes.move("turn", "C10: on a half turn, the side the cube turns through", via=shapes.names(SIDES)),
)


class CubeGame(Game):
    """The Magic Cube: roll, take an object, turn the cube, hope nothing falls out."""

    info = GameInfo(
        id="cube",
        title="The Magic Cube",
        min_players=2,
        max_players=5,
        options=(),
        rules_file="rules/cube.md",
        hidden_information=False,
        summary=(
            "Roll the symbol die, drop the magic object into the cube and turn it "
            "without letting anything fall out; the fewest objects in front of you wins."
        ),
        move_schema=MOVE_SCHEMA,
    )

    # life cycle ------------------------------------------------------------------

    def new_state(self, num_players: int, options: Mapping[str, Any] | None = None) -> CubeState:
        """C1, C5: full lid, empty cube with violet up; chance draws the first player (C6)."""
        self.validate_players(num_players)
        self.validate_options(options)
        return CubeState(num_players)

    def num_players(self, state: State) -> int:
        return state.n  # type: ignore[attr-defined]

    def current_player(self, state: State) -> int:
        phase = state.phase  # type: ignore[attr-defined]
        if phase == OVER:
            return TERMINAL
        if phase in _CHANCE_PHASES:
            return CHANCE
        return state.player  # type: ignore[attr-defined]

    def chance_outcomes(self, state: State) -> list[tuple[CubeMove, float]]:
        s: CubeState = state  # type: ignore[assignment]
        if s.phase == FIRST:
            return [(First(seat), 1.0 / s.n) for seat in range(s.n)]
        if s.phase == FACE:
            return [(move, 1.0 / 6) for move in ROLLED_MOVES]
        if s.phase in (MID, FINAL):
            return list(fall_outcomes(tuple(s.cube), HOLES[OPPOSITE[s.up]]))
        return []

    def legal_moves(self, state: State) -> list[CubeMove]:
        s: CubeState = state  # type: ignore[assignment]
        if s.phase == ROLL:
            return [ROLL_MOVE]
        if s.phase == CHOOSE:
            return [CHOOSE_MOVES[k] for k in range(4) if s.lid[k]]
        if s.phase == VIA:
            return [TURN_MOVES[side] for side in range(6) if _is_via(side, s.t_start, s.t_face)]
        return []

    def check_move(self, state: State, move: Any) -> None:
        """Raise IllegalMove naming the rule: C7 roll first, C9 object in the lid, C10 via side."""
        s: CubeState = state  # type: ignore[assignment]
        if s.phase == OVER:
            raise IllegalMove("game_over", "the game is over", move)
        if s.phase in _CHANCE_PHASES:
            if move not in [m for m, _ in self.chance_outcomes(s)]:
                raise IllegalMove("chance", f"{move!r} is not a possible chance outcome now", move)
            return
        if s.phase == ROLL:
            if not isinstance(move, Roll):
                raise IllegalMove("C7", "the player to act must roll the die first", move)
        elif s.phase == CHOOSE:
            if not isinstance(move, Choose):
                raise IllegalMove("C9", "stars: choose an object kind from the lid", move)
            if not s.lid[KIND_INDEX[move.object]]:
                raise IllegalMove("C9", f"no {move.object} left in the lid", move)
        elif s.phase == VIA:
            if not isinstance(move, Turn):
                raise IllegalMove("C10", "half turn: choose the intermediate side", move)
            if not _is_via(SIDE_INDEX[move.via], s.t_start, s.t_face):
                raise IllegalMove(
                    "C10",
                    f"{move.via} is not adjacent to both {SIDES[s.t_start]} "
                    f"and {SIDES[s.t_face]}",
                    move,
                )

    def step(self, state: State, move: Any) -> None:
        s: CubeState = state  # type: ignore[assignment]
        phase = s.phase
        if phase == ROLL:
            s.phase = FACE
            s.t_seat, s.t_face, s.t_obj, s.t_start = s.player, -1, -1, s.up
            s.t_via, s.t_mid, s.t_final = -1, None, None
        elif phase == FACE:
            face = FACE_INDEX[move.face]
            s.t_face = face
            if face < 4:
                if not s.lid[face]:          # C15: that object cannot be taken
                    s.phase = OVER
                    return
                s.lid[face] -= 1             # C9
                s.t_obj = face
                _turn_cube(s)
            elif face == STARS:
                if not any(s.lid):           # C15
                    s.phase = OVER
                    return
                s.phase = CHOOSE
            else:                            # square: no object, never ends the game
                _turn_cube(s)
        elif phase == CHOOSE:
            kind = KIND_INDEX[move.object]
            s.lid[kind] -= 1
            s.t_obj = kind
            _turn_cube(s)
        elif phase == VIA:
            via = SIDE_INDEX[move.via]
            s.t_via = via
            s.up = via
            if can_fall(s.cube, HOLES[OPPOSITE[via]]):
                s.phase = MID
            else:
                s.t_mid = NOTHING
                _throw(s)
        elif phase == MID:
            fell = move.objects
            s.t_mid = fell
            if any(fell):                    # C12: back to the lid, no throw, target up
                cube = s.cube
                for k in range(4):
                    cube[k] -= fell[k]
                if s.t_obj >= 0:
                    s.lid[s.t_obj] += 1
                s.up = s.t_face
                _end_turn(s, fell)
            else:
                _throw(s)
        elif phase == FINAL:
            fell = move.objects
            s.t_final = fell
            cube = s.cube
            for k in range(4):
                cube[k] -= fell[k]
            _end_turn(s, fell)
        elif phase == FIRST:
            s.player = move.seat
            s.phase = ROLL

    def outcome(self, state: State) -> Outcome | None:
        """C16: the fewest objects in front wins; tied players win together."""
        s: CubeState = state  # type: ignore[assignment]
        if s.phase != OVER:
            return None
        counts = [sum(row) for row in s.front]
        best = min(counts)
        return Outcome(
            scores=tuple(float(c) for c in counts),
            winners=tuple(seat for seat, c in enumerate(counts) if c == best),
            reason="object_unavailable",
            ranks=ranks_for([-c for c in counts]),
        )

    def returns(self, state: State) -> tuple[float, ...]:
        """0.9 for a (shared) win, plus 0.1 × the share of the 20 objects NOT in front of you."""
        s: CubeState = state  # type: ignore[assignment]
        counts = [sum(row) for row in s.front]
        best = min(counts)
        return tuple((0.9 if c == best else 0.0) + 0.1 * (1.0 - c / TOTAL) for c in counts)

    # fast paths ------------------------------------------------------------------

    def sample_chance(self, state: State, rng: random.Random) -> CubeMove:
        s: CubeState = state  # type: ignore[assignment]
        if s.phase == FACE:
            return ROLLED_MOVES[rng.randrange(6)]
        if s.phase == FIRST:
            return First(rng.randrange(s.n))
        return Fall(_sample_fall(s.cube, HOLES[OPPOSITE[s.up]], rng))

    def playout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random moves and sampled chance to the end, on local variables; then `returns`.

        Same distribution as the generic playout (each fitting object falls with
        p = min(0.6, 0.05n)); the turn record (`t_*`) is brought up to date only at the end.
        """
        s: CubeState = state  # type: ignore[assignment]
        if s.phase != ROLL:
            # finish the turn in progress through the ordinary path
            while s.phase not in (ROLL, OVER):
                if s.phase in _CHANCE_PHASES:
                    self.step(s, self.sample_chance(s, rng))
                else:
                    self.step(s, rng.choice(self.legal_moves(s)))
            if s.phase == OVER:
                return self.returns(s)
        lid, cube, front, out = s.lid, s.cube, s.front, s.out
        up, player, n, turns = s.up, s.player, s.n, s.turns
        rand, randrange = rng.random, rng.randrange
        while True:
            face = randrange(6)
            start = up
            obj = -1
            if face < 4:
                if not lid[face]:
                    break
                obj = face
            elif face == STARS:
                kinds = [k for k in range(4) if lid[k]]
                if not kinds:
                    break
                obj = kinds[randrange(len(kinds))]
            if obj >= 0:
                lid[obj] -= 1
            fell = None
            if OPPOSITE[start] == face:      # half turn: intermediate exposure (C10, C11)
                via = _HALF_TURN_VIAS[start][randrange(4)]
                fell = _random_fall(cube, HOLES[OPPOSITE[via]], rand)
                if fell is not None and obj >= 0:   # C12: the object goes back to the lid
                    lid[obj] += 1
            if fell is None:                 # C13: throw, final exposure
                if obj >= 0:
                    cube[obj] += 1
                fell = _random_fall(cube, HOLES[OPPOSITE[face]], rand)
            up = face
            if fell is not None:             # C14
                room = 2
                row = front[player]
                for k in range(4):
                    c = fell[k]
                    if c:
                        take = c if c < room else room
                        row[k] += take
                        out[k] += c - take
                        room -= take
            turns += 1
            player = (player + 1) % n
        s.up, s.player, s.turns, s.phase = up, player, turns, OVER
        s.t_seat, s.t_face, s.t_obj, s.t_start = player, face, -1, up
        s.t_via, s.t_mid, s.t_final = -1, None, None
        counts = [sum(row) for row in front]
        best = min(counts)
        return tuple((0.9 if c == best else 0.0) + 0.1 * (1.0 - c / TOTAL) for c in counts)

    # information -----------------------------------------------------------------

    def view(self, state: State, seat: Seat | None) -> dict[str, Json]:
        """Everything is public: lid, cube (content and side up), fronts, out, phase, the turn."""
        s: CubeState = state  # type: ignore[assignment]
        to_act = self.current_player(s)
        counts = [sum(row) for row in s.front]
        view: dict[str, Json] = {
            "game": self.info.id,
            "players": s.n,
            "seat": seat,
            "phase": PHASES[s.phase],
            "to_act": None if to_act == TERMINAL else ("chance" if to_act == CHANCE else to_act),
            "player": s.player if s.player >= 0 else None,
            "turns": s.turns,
            "lid": _kinds(s.lid),
            "cube": {
                "objects": _kinds(s.cube),
                "up": SIDES[s.up],
                "down": SIDES[OPPOSITE[s.up]],
            },
            "in_hand": KINDS[s.in_hand()] if s.in_hand() >= 0 else None,
            "front": [_kinds(row) for row in s.front],
            "front_totals": counts,
            "out_of_game": _kinds(s.out),
            "turn": _turn_record(s),
        }
        outcome = self.outcome(s)
        view["outcome"] = outcome.to_json() if outcome else None
        return view

    def determinize(self, state: State, seat: Seat, rng: random.Random) -> State:
        """No hidden information: the state itself (a clone)."""
        return state.clone()

    # serialisation -----------------------------------------------------------------

    def move_from_json(self, data: Json) -> CubeMove:
        """Parse a move's canonical JSON (see the module docstring); InvalidMove when malformed."""
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise InvalidMove("a cube move is a JSON object with a string 'type'", data)
        kind = data["type"]
        fields = {
            "roll": set(), "first": {"seat"}, "face": {"face"},
            "choose": {"object"}, "turn": {"via"}, "fall": {"objects"},
        }.get(kind)
        if fields is None:
            raise InvalidMove(f"unknown cube move type {kind!r}", data)
        if set(data) != fields | {"type"}:
            raise InvalidMove(f"a {kind!r} move has exactly the fields {sorted(fields)}", data)
        if kind == "roll":
            return ROLL_MOVE
        if kind == "first":
            seat = data["seat"]
            if not _is_int(seat) or not 0 <= seat < self.info.max_players:
                raise InvalidMove("'seat' must be a seat number", data)
            return First(seat)
        if kind == "face":
            return ROLLED_MOVES[_name(data, "face", FACE_INDEX)]
        if kind == "choose":
            return CHOOSE_MOVES[_name(data, "object", KIND_INDEX)]
        if kind == "turn":
            return TURN_MOVES[_name(data, "via", SIDE_INDEX)]
        objects = data["objects"]
        if (
            not isinstance(objects, dict)
            or set(objects) != set(KINDS)
            or not all(_is_int(v) and 0 <= v <= PER_KIND for v in objects.values())
        ):
            raise InvalidMove("'objects' maps each of book, ring, hat, wand to a count 0-5", data)
        return Fall(tuple(objects[name] for name in KINDS))  # type: ignore[arg-type]

    def encode(self, state: State) -> dict[str, Json]:
        """Compact snapshot: counts as lists in kind order, sides and faces as ints."""
        s: CubeState = state  # type: ignore[assignment]
        return {
            "v": self.snapshot_version,
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

    def decode(self, data: Mapping[str, Json]) -> CubeState:
        """Rebuild a state from `encode`; InvalidSnapshot on anything inconsistent."""
        try:
            return _decode(data, self.snapshot_version)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise InvalidSnapshot(f"not a cube snapshot: {exc}") from None


GAME = CubeGame()


# --- private helpers -----------------------------------------------------------


#: For each side up, the four sides a half turn may pass through (all but it and its opposite).
_HALF_TURN_VIAS: tuple[tuple[Side, ...], ...] = tuple(
    tuple(side for side in range(6) if is_adjacent(side, up)) for up in range(6)
)


def _is_via(side: Side, start: Side, target: Side) -> bool:
    """C10: a legal intermediate side is adjacent to both the side up and the target."""
    return is_adjacent(side, start) and is_adjacent(side, target)


def _turn_cube(s: CubeState) -> None:
    """C10: the object (if any) is in hand; turn the cube towards the target side."""
    if OPPOSITE[s.up] == s.t_face:
        s.phase = VIA
    else:
        _throw(s)


def _throw(s: CubeState) -> None:
    """C13: throw the object in, target up, then the final exposure (a chance node if needed)."""
    if s.t_obj >= 0:
        s.cube[s.t_obj] += 1
    s.up = s.t_face
    if can_fall(s.cube, HOLES[OPPOSITE[s.up]]):
        s.phase = FINAL
    else:
        s.t_final = NOTHING
        _end_turn(s, NOTHING)


def _end_turn(s: CubeState, fell: tuple[int, ...]) -> None:
    """C14 penalties, then the next player clockwise rolls (C6)."""
    if any(fell):
        kept, gone = split_penalty(fell)
        row = s.front[s.player]
        for k in range(4):
            row[k] += kept[k]
            s.out[k] += gone[k]
    s.turns += 1
    s.player = (s.player + 1) % s.n
    s.phase = ROLL


def _sample_fall(cube: list[int], mask: int, rng: random.Random) -> tuple[int, int, int, int]:
    """One fall drawn object by object (C11): each fitting object falls with p = min(0.6, 0.05n)."""
    p = fall_probability(sum(cube))
    rand = rng.random
    return tuple(  # type: ignore[return-value]
        sum(1 for _ in range(c) if rand() < p) if mask >> k & 1 else 0
        for k, c in enumerate(cube)
    )


def _random_fall(cube: list[int], mask: int, rand: Any) -> list[int] | None:
    """Playout helper: remove the fallen objects from `cube`; None when nothing fell."""
    p = min(0.6, 0.05 * (cube[0] + cube[1] + cube[2] + cube[3]))
    fell = None
    for k in range(4):
        if mask >> k & 1:
            c = cube[k]
            dropped = 0
            for _ in range(c):
                if rand() < p:
                    dropped += 1
            if dropped:
                if fell is None:
                    fell = [0, 0, 0, 0]
                fell[k] = dropped
                cube[k] = c - dropped
    return fell


def _kinds(counts: list[int] | tuple[int, ...]) -> dict[str, int]:
    return dict(zip(KINDS, counts, strict=True))


def _turn_record(s: CubeState) -> dict[str, Json] | None:
    """The turn in progress, or the last one: roll, object, path, exposures and penalties."""
    if s.t_seat < 0:
        return None
    complete = s.phase in (ROLL, OVER)
    face, start = s.t_face, s.t_start
    record: dict[str, Json] = {
        "seat": s.t_seat,
        "complete": complete,
        "face": FACES[face] if face >= 0 else None,
        "ended_game": s.phase == OVER,
        "object": KINDS[s.t_obj] if s.t_obj >= 0 else None,
        "start_up": SIDES[start],
        "target": SIDES[face] if face >= 0 else None,
    }
    if s.phase == OVER:   # C15: the ending roll has no effect
        record.update(path=[], exposures=[], thrown=False, returned_to_lid=False)
        return record
    path: list[str] = []   # the sides brought up, in order; empty when the target was up
    if s.t_via >= 0:
        path.append(SIDES[s.t_via])
    if s.phase in (ROLL, FINAL) and face != start:
        path.append(SIDES[face])
    exposures: list[Json] = []
    fallen = NOTHING
    if s.t_mid is not None:
        exposures.append(_exposure(s.t_via, s.t_mid, before_throw=True))
        fallen = s.t_mid
    if s.t_final is not None:
        exposures.append(_exposure(face, s.t_final, before_throw=False))
        fallen = s.t_final
    record["path"] = path
    record["exposures"] = exposures
    mid_fell = s.t_mid is not None and any(s.t_mid)
    record["thrown"] = s.t_obj >= 0 and (s.t_final is not None or s.phase == FINAL)
    record["returned_to_lid"] = s.t_obj >= 0 and mid_fell
    if complete:
        kept, gone = split_penalty(fallen)
        record["to_front"] = _kinds(kept)
        record["out_of_game"] = _kinds(gone)
    return record


def _exposure(up: Side, fell: tuple[int, ...], before_throw: bool) -> dict[str, Json]:
    """One exposure as a client animates it; the penalty split is for the whole turn."""
    return {
        "up": SIDES[up],
        "down": SIDES[OPPOSITE[up]],
        "before_throw": before_throw,
        "fell": _kinds(fell),
    }


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _name(data: dict[str, Any], field: str, names: dict[str, int]) -> int:
    value = data[field]
    if not isinstance(value, str) or value not in names:
        raise InvalidMove(f"{field!r} must be one of: {', '.join(names)}", data)
    return names[value]


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


def _decode(data: Mapping[str, Json], version: int) -> CubeState:
    _require(isinstance(data, Mapping), "a JSON object")
    _require(data["v"] == version, f"snapshot version {data.get('v')!r} is not {version}")
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
