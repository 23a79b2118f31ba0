"""Moves of The Enchanters' Gathering: small value objects with a canonical JSON form.

Player moves: `Take` a table card (E9), `Gather` (E4–E7), `PlayTrick` (E13–E17),
`Pass` (E10: do nothing), `Discard` (E11). Chance outcomes: `Draw` (a card
from the deck: refill E12, Vademecum E17), `DrawObject` (the top object of a
pile, E7) and `First` (the first player, E8).

Every move carries its `type` as its last tuple field, so moves of different
kinds never compare equal.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine import shapes
from engine.enchanters.cards import (
    CARD_BY_NAME,
    ELEMENTS,
    EXODUS,
    NAMES,
    PILE_LETTERS,
    SCHOOLS,
    TRICK_FIRST,
    TRICK_NAMES,
    is_air,
)
from engine.enchanters.sets import Declaration
from engine.errors import InvalidMove

MAX_SEATS = 6
NUM_SPOTS = 4
NUM_TOWERS = 3


class Take(NamedTuple):
    """Take the card lying on a table spot (0–2 face down, 3 face up) into the hand (E9)."""

    spot: int
    type: str = "take"

    def to_json(self) -> dict[str, Any]:
        return {"type": "take", "spot": self.spot}


class Gather(NamedTuple):
    """Organize a gathering of three cards (sorted ids) into a Tower, with Air declarations."""

    cards: tuple[int, int, int]
    tower: int
    air: tuple[Declaration, ...] = ()
    type: str = "gather"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "gather",
            "cards": [NAMES[c] for c in self.cards],
            "tower": self.tower,
            "air": {
                NAMES[card]: {"school": SCHOOLS[school], "element": ELEMENTS[element]}
                for card, school, element in self.air
            },
        }


class PlayTrick(NamedTuple):
    """Play a Trick from the hand (E10, E13–E17); `tower` is Exodus's target, else -1."""

    trick: int
    tower: int = -1
    type: str = "trick"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "trick", "trick": TRICK_NAMES[self.trick - TRICK_FIRST]}
        if self.trick == EXODUS:
            data["tower"] = self.tower
        return data


class Pass(NamedTuple):
    """Do nothing in step 2 (E10)."""

    type: str = "pass"

    def to_json(self) -> dict[str, Any]:
        return {"type": "pass"}


class Discard(NamedTuple):
    """Discard one card while holding more than five (E11)."""

    card: int
    type: str = "discard"

    def to_json(self) -> dict[str, Any]:
        return {"type": "discard", "card": NAMES[self.card]}


class Draw(NamedTuple):
    """Chance: the card drawn from the deck (a refill, E12, or a Vademecum draw, E17)."""

    card: int
    type: str = "draw"

    def to_json(self) -> dict[str, Any]:
        return {"type": "draw", "card": NAMES[self.card]}


class DrawObject(NamedTuple):
    """Chance: the value of the top object of a pile (E7)."""

    pile: int
    value: int
    type: str = "object"

    def to_json(self) -> dict[str, Any]:
        return {"type": "object", "pile": PILE_LETTERS[self.pile], "value": self.value}


class First(NamedTuple):
    """Chance: the first player (E8)."""

    seat: int
    type: str = "first"

    def to_json(self) -> dict[str, Any]:
        return {"type": "first", "seat": self.seat}


PASS = Pass()
TAKES = tuple(Take(i) for i in range(NUM_SPOTS))
DRAWS = tuple(Draw(c) for c in range(len(NAMES)))
DISCARDS = tuple(Discard(c) for c in range(len(NAMES)))
FIRSTS = tuple(First(s) for s in range(MAX_SEATS))

EnchantersMove = Take | Gather | PlayTrick | Pass | Discard | Draw | DrawObject | First


# --- parsing -------------------------------------------------------------------


def _int(data: dict[str, Any], key: str, low: int, high: int) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidMove(f"{key!r} must be an integer from {low} to {high}", data)
    return value


def _card(value: Any, data: Any) -> int:
    if not isinstance(value, str) or value not in CARD_BY_NAME:
        raise InvalidMove(f"unknown card {value!r}", data)
    return CARD_BY_NAME[value]


def _keys(data: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise InvalidMove(f"unexpected fields: {', '.join(map(str, extra))}", data)


def _declarations(raw: Any, data: Any) -> tuple[Declaration, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise InvalidMove("'air' must map Air Enchanters to {school, element}", data)
    out = []
    for name, decl in raw.items():
        card = _card(name, data)
        if not is_air(card):
            raise InvalidMove(f"{name!r} is not an Air Enchanter", data)
        if not isinstance(decl, dict) or set(decl) != {"school", "element"}:
            raise InvalidMove(f"declaration of {name!r} must be {{school, element}}", data)
        school, element = decl["school"], decl["element"]
        if school not in SCHOOLS or element not in ELEMENTS:
            raise InvalidMove(f"bad declaration for {name!r}: {decl!r}", data)
        out.append((card, SCHOOLS.index(school), ELEMENTS.index(element)))
    return tuple(sorted(out))


#: A card, by name (a named component of the OpenAPI document).
CARD_SHAPE = shapes.named("EnchantersCard", shapes.names(NAMES, "a card"))
_CARD = CARD_SHAPE
_TOWER = shapes.integer(0, NUM_TOWERS - 1, "a Tower")

#: The JSON shapes of the player moves (GameInfo.move_schema).
MOVE_SCHEMA = shapes.one_of(
    shapes.move("take", "take the card of a table spot", spot=shapes.integer(0, NUM_SPOTS - 1)),
    shapes.move(
        "gather", "organize a gathering of three cards into a Tower",
        cards={"type": "array", "items": _CARD, "minItems": 3, "maxItems": 3, "uniqueItems": True},
        tower=_TOWER,
        air={"type": "object", "description": "each Air Enchanter's declared school and element",
             "additionalProperties": shapes.named("EnchantersAirDeclaration", shapes.record(
                 {"school": shapes.names(SCHOOLS), "element": shapes.names(ELEMENTS)}))},
    ),
    shapes.move("trick", "play a Trick (Exodus names a Tower, see the next shape)",
                trick=shapes.names([name for name in TRICK_NAMES if name != "exodus"])),
    shapes.move("trick", "play Exodus on a Tower", title="exodus", trick={"type": "string", "const": "exodus"}, tower=_TOWER),
    shapes.move("pass", "do nothing this step"),
    shapes.move("discard", "discard a card while holding more than five", card=_CARD),
)


def move_from_json(data: Any) -> EnchantersMove:
    """Parse a move's canonical JSON form; InvalidMove when malformed."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise InvalidMove("a move is a JSON object with a 'type'", data)
    kind = data["type"]
    if kind == "take":
        _keys(data, {"type", "spot"})
        return TAKES[_int(data, "spot", 0, NUM_SPOTS - 1)]
    if kind == "gather":
        _keys(data, {"type", "cards", "tower", "air"})
        raw = data.get("cards")
        if not isinstance(raw, list) or len(raw) != 3:
            raise InvalidMove("'cards' must list three card names", data)
        cards = sorted(_card(name, data) for name in raw)
        if len(set(cards)) != 3:
            raise InvalidMove("the three cards must differ", data)
        tower = _int(data, "tower", 0, NUM_TOWERS - 1)
        return Gather((cards[0], cards[1], cards[2]), tower, _declarations(data.get("air"), data))
    if kind == "trick":
        name = data.get("trick")
        if name not in TRICK_NAMES:
            raise InvalidMove(f"unknown trick {name!r}", data)
        trick = TRICK_FIRST + TRICK_NAMES.index(name)
        if trick == EXODUS:
            _keys(data, {"type", "trick", "tower"})
            return PlayTrick(trick, _int(data, "tower", 0, NUM_TOWERS - 1))
        _keys(data, {"type", "trick"})
        return PlayTrick(trick)
    if kind == "pass":
        _keys(data, {"type"})
        return PASS
    if kind == "discard":
        _keys(data, {"type", "card"})
        return DISCARDS[_card(data.get("card"), data)]
    if kind == "draw":
        _keys(data, {"type", "card"})
        return DRAWS[_card(data.get("card"), data)]
    if kind == "object":
        _keys(data, {"type", "pile", "value"})
        pile = data.get("pile")
        if not isinstance(pile, str) or len(pile) != 1 or pile not in PILE_LETTERS:
            raise InvalidMove(f"unknown pile {pile!r}", data)
        return DrawObject(PILE_LETTERS.index(pile), _int(data, "value", 0, 5))
    if kind == "first":
        _keys(data, {"type", "seat"})
        return FIRSTS[_int(data, "seat", 0, MAX_SEATS - 1)]
    raise InvalidMove(f"unknown move type {kind!r}", data)


__all__ = [
    "Discard",
    "Draw",
    "DrawObject",
    "EnchantersMove",
    "First",
    "Gather",
    "Pass",
    "PlayTrick",
    "Take",
    "move_from_json",
]
