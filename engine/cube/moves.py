"""Moves of The Magic Cube: small frozen value objects with a canonical JSON form.

- ``{"type": "first", "seat": 2}``        chance: the first player (C6)
- ``{"type": "roll"}``                    the player to act rolls the die (C7)
- ``{"type": "face", "face": "stars"}``   chance: the face rolled, 1/6 each (C2)
- ``{"type": "choose", "object": "ring"}`` on stars, the kind taken from the lid (C9)
- ``{"type": "turn", "via": "red"}``      on a half turn, the intermediate side (C10)
- ``{"type": "fall", "objects": {"book": 0, "ring": 1, "hat": 0, "wand": 0}}``
  chance: what falls out at one exposure (C11), a count per kind
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import shapes
from engine.core import Json
from engine.cube.cards import (
    FACE_INDEX,
    FACES,
    KIND_INDEX,
    KINDS,
    PER_KIND,
    SIDE_INDEX,
    SIDES,
    Counts,
)
from engine.errors import InvalidMove

MAX_SEATS = 5


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

    objects: Counts

    def to_json(self) -> dict[str, Json]:
        return {"type": "fall", "objects": dict(zip(KINDS, self.objects, strict=True))}


CubeMove = First | Roll | Rolled | Choose | Turn | Fall

ROLL_MOVE = Roll()
ROLLED_MOVES = tuple(Rolled(name) for name in FACES)
CHOOSE_MOVES = tuple(Choose(name) for name in KINDS)
TURN_MOVES = tuple(Turn(name) for name in SIDES)
NOTHING: Counts = (0, 0, 0, 0)

#: A kind of object and a side of the cube, by name (named components of the OpenAPI document).
OBJECT_SHAPE = shapes.named("CubeObject", shapes.names(KINDS, "a kind of object"))
SIDE_SHAPE = shapes.named("CubeSide", shapes.names(SIDES, "a side of the cube"))

#: The JSON shapes of the player moves (GameInfo.move_schema).
MOVE_SCHEMA = shapes.one_of(
    shapes.move("roll", "C7: roll the symbol die"),
    shapes.move("choose", "C9: on stars, the kind of object taken from the lid", object=OBJECT_SHAPE),
    shapes.move("turn", "C10: on a half turn, the side the cube turns through", via=SIDE_SHAPE),
)

_FIELDS: dict[str, set[str]] = {
    "roll": set(), "first": {"seat"}, "face": {"face"},
    "choose": {"object"}, "turn": {"via"}, "fall": {"objects"},
}


def move_from_json(data: Json) -> CubeMove:
    """Parse a move's canonical JSON (see the module docstring); InvalidMove when malformed."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise InvalidMove("a cube move is a JSON object with a string 'type'", data)
    kind = data["type"]
    fields = _FIELDS.get(kind)
    if fields is None:
        raise InvalidMove(f"unknown cube move type {kind!r}", data)
    if set(data) != fields | {"type"}:
        raise InvalidMove(f"a {kind!r} move has exactly the fields {sorted(fields)}", data)
    if kind == "roll":
        return ROLL_MOVE
    if kind == "first":
        seat = data["seat"]
        if not _is_int(seat) or not 0 <= seat < MAX_SEATS:
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
    book, ring, hat, wand = (objects[name] for name in KINDS)
    return Fall((book, ring, hat, wand))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _name(data: dict[str, Any], field: str, names: dict[str, int]) -> int:
    value = data[field]
    if not isinstance(value, str) or value not in names:
        raise InvalidMove(f"{field!r} must be one of: {', '.join(names)}", data)
    return names[value]
