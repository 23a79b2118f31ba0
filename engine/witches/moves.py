"""Moves of the Witches' Wheel: small interned value objects with a canonical JSON form.

Player moves: `Play` (W7), `Trump` (W11: give up a captured card to become the
trump) and `Keep` (W11 declined). Chance outcomes: `Deal` (W4), `Reveal` (W5:
the trump card turned up), `First` (W6) and `Draw` (W12).

Every move carries its `type` as its last tuple field, so moves of different
kinds never compare equal. All instances are prebuilt; `Play.of("red-7")` (what
`repr` prints) returns the interned one.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine import shapes
from engine.errors import InvalidMove
from engine.witches.cards import CARD_BY_NAME, NAMES, NUM_CARDS, expand, parse_card

MAX_SEATS = 6


class Play(NamedTuple):
    """Play a card from hand (W7)."""

    card: int
    type: str = "play"

    @classmethod
    def of(cls, name: str) -> Play:
        return PLAYS[parse_card(name)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "play", "card": NAMES[self.card]}

    def __repr__(self) -> str:
        return f"Play.of({NAMES[self.card]!r})"


class Trump(NamedTuple):
    """Give up a card just captured; it becomes the trump card (W11)."""

    card: int
    type: str = "trump"

    @classmethod
    def of(cls, name: str) -> Trump:
        return TRUMPS[parse_card(name)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "trump", "card": NAMES[self.card]}

    def __repr__(self) -> str:
        return f"Trump.of({NAMES[self.card]!r})"


class Keep(NamedTuple):
    """Decline to change the trump after winning a trick (W11)."""

    type: str = "keep"

    def to_json(self) -> dict[str, Any]:
        return {"type": "keep"}

    def __repr__(self) -> str:
        return "Keep()"


class Deal(NamedTuple):
    """Chance: the next card dealt goes to the seat being dealt to (W4)."""

    card: int
    type: str = "deal"

    @classmethod
    def of(cls, name: str) -> Deal:
        return DEALS[parse_card(name)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "deal", "card": NAMES[self.card]}

    def __repr__(self) -> str:
        return f"Deal.of({NAMES[self.card]!r})"


class Reveal(NamedTuple):
    """Chance: the card turned up from the pile as the first trump card (W5)."""

    card: int
    type: str = "reveal"

    @classmethod
    def of(cls, name: str) -> Reveal:
        return REVEALS[parse_card(name)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "reveal", "card": NAMES[self.card]}

    def __repr__(self) -> str:
        return f"Reveal.of({NAMES[self.card]!r})"


class Draw(NamedTuple):
    """Chance: the card drawn by the seat whose turn it is to draw (W12)."""

    card: int
    type: str = "draw"

    @classmethod
    def of(cls, name: str) -> Draw:
        return DRAWS[parse_card(name)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "draw", "card": NAMES[self.card]}

    def __repr__(self) -> str:
        return f"Draw.of({NAMES[self.card]!r})"


class First(NamedTuple):
    """Chance: the seat that leads the first trick (W6)."""

    seat: int
    type: str = "first"

    def to_json(self) -> dict[str, Any]:
        return {"type": "first", "seat": self.seat}

    def __repr__(self) -> str:
        return f"First({self.seat})"


PLAYS: tuple[Play, ...] = tuple(Play(c) for c in range(NUM_CARDS))
TRUMPS: tuple[Trump, ...] = tuple(Trump(c) for c in range(NUM_CARDS))
DEALS: tuple[Deal, ...] = tuple(Deal(c) for c in range(NUM_CARDS))
REVEALS: tuple[Reveal, ...] = tuple(Reveal(c) for c in range(NUM_CARDS))
DRAWS: tuple[Draw, ...] = tuple(Draw(c) for c in range(NUM_CARDS))
FIRSTS: tuple[First, ...] = tuple(First(s) for s in range(MAX_SEATS))
KEEP = Keep()

WitchesMove = Play | Trump | Keep | Deal | Reveal | Draw | First


def _chunk_table(moves: tuple[Any, ...]) -> tuple[tuple[tuple[Any, ...], ...], ...]:
    """[colour][9-bit chunk] -> the moves of the cards in that chunk (for `moves_of`)."""
    return tuple(
        tuple(tuple(moves[9 * colour + i] for i in range(9) if chunk >> i & 1) for chunk in range(512))
        for colour in range(6)
    )


PLAY_CHUNKS = _chunk_table(PLAYS)
TRUMP_CHUNKS = _chunk_table(TRUMPS)


#: Append to `out` the move of each card in a mask, read from PLAY_CHUNKS or TRUMP_CHUNKS.
moves_of = expand

_BY_CARD: dict[str, tuple[WitchesMove, ...]] = {
    "play": PLAYS,
    "trump": TRUMPS,
    "deal": DEALS,
    "reveal": REVEALS,
    "draw": DRAWS,
}


#: A card, by name (a named component of the OpenAPI document).
CARD_SHAPE = shapes.named("WitchesCard", shapes.names(NAMES, "a card, colour-value"))
_CARD = CARD_SHAPE

#: The JSON shapes of the player moves (GameInfo.move_schema).
MOVE_SCHEMA = shapes.one_of(
    shapes.move("play", "W7: play a card from your hand", card=_CARD),
    shapes.move("trump", "W11: give up a card you just captured to make it the trump", card=_CARD),
    shapes.move("keep", "W11: keep the captured cards; the trump stays"),
)


def move_from_json(data: Any) -> WitchesMove:
    """Parse a move's canonical JSON; InvalidMove on anything malformed."""
    if not isinstance(data, dict):
        raise InvalidMove(f"a move is a JSON object with a 'type', not {data!r}", data)
    kind = data.get("type")
    if not isinstance(kind, str):
        raise InvalidMove("a move needs a string 'type'", data)
    table = _BY_CARD.get(kind)
    if table is not None:
        if set(data) != {"type", "card"}:
            raise InvalidMove(f"a {kind!r} move has exactly the fields 'type' and 'card'", data)
        name = data["card"]
        card = CARD_BY_NAME.get(name) if isinstance(name, str) else None
        if card is None:
            raise InvalidMove(f"no such card {name!r} (cards are named like 'red-7')", data)
        return table[card]
    if kind == "keep":
        if set(data) != {"type"}:
            raise InvalidMove("a 'keep' move has only the field 'type'", data)
        return KEEP
    if kind == "first":
        seat = data.get("seat")
        if set(data) != {"type", "seat"} or type(seat) is not int or not 0 <= seat < MAX_SEATS:
            raise InvalidMove("a 'first' move is {'type': 'first', 'seat': <0..5>}", data)
        return FIRSTS[seat]
    raise InvalidMove(f"unknown move type {kind!r}", data)
