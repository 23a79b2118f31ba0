"""The Witches' Wheel vocabulary: cards, colours, values, bit masks and the wheel's ranking.

A card is an int `colour * 9 + (value - 1)` in 0..53; a set of cards is an int
bit mask with bit `card` set. Everything here is a constant table or a pure
helper, so the rules and the playout can index instead of compute.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import cython

Card = int
CardSet = int  # bit mask over the 54 cards

COLOURS: tuple[str, ...] = ("red", "orange", "yellow", "green", "blue", "violet")  # W1
NUM_CARDS = 54
HAND_SIZE = 6  # W4
ALL_CARDS: CardSet = (1 << NUM_CARDS) - 1

WHEEL_SIDES: tuple[str, ...] = ("decreasing", "increasing")  # W2; the first is the default

#: per card: its bit, colour index, value (1..9) and name ("red-7")
BIT: tuple[int, ...] = tuple(1 << c for c in range(NUM_CARDS))
COLOUR: tuple[int, ...] = tuple(c // 9 for c in range(NUM_CARDS))
VALUE: tuple[int, ...] = tuple(c % 9 + 1 for c in range(NUM_CARDS))
NAMES: tuple[str, ...] = tuple(f"{COLOURS[c // 9]}-{c % 9 + 1}" for c in range(NUM_CARDS))
CARD_BY_NAME: dict[str, Card] = {name: c for c, name in enumerate(NAMES)}

TRUMP_BONUS = 16  # added to a trump's strength so that any trump beats any non-trump


def parse_card(name: str) -> Card:
    """The card named `name` ("red-7"); KeyError when there is no such card."""
    return CARD_BY_NAME[name]


def card_name(card: Card) -> str:
    """The readable name of a card index, e.g. "blue-3"."""
    return NAMES[card]


def mask_of(cards: Iterable[Card]) -> CardSet:
    """The bit mask holding exactly `cards`."""
    mask = 0
    for card in cards:
        mask |= BIT[card]
    return mask


# --- fast set helpers: one 9-bit chunk per colour ------------------------------

_CHUNK_CARDS: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(tuple(9 * colour + i for i in range(9) if chunk >> i & 1) for chunk in range(512))
    for colour in range(len(COLOURS))
)
#: Magic Points of the cards of any one colour's 9-bit chunk (a card's value is its index + 1)
CHUNK_SCORE: tuple[int, ...] = tuple(
    sum(i + 1 for i in range(9) if chunk >> i & 1) for chunk in range(512)
)


@cython.locals(mask=cython.ulonglong, colour=cython.int, chunk=cython.int, out=list)
def expand(mask: CardSet, chunks: tuple[tuple[tuple[Any, ...], ...], ...], out: list[Any]) -> list[Any]:
    """Append to `out` the entry of each card in `mask`, read from a [colour][9-bit chunk] table."""
    colour = 0
    while mask:
        chunk = mask & 511
        if chunk:
            out += chunks[colour][chunk]
        mask >>= 9
        colour += 1
    return out


def cards_of(mask: CardSet) -> list[Card]:
    """The cards of a mask as a new list, in index order."""
    return expand(mask, _CHUNK_CARDS, [])


#: Magic Points of any 18-bit chunk (two colours): 3 lookups score a whole set
SCORE18: tuple[int, ...] = tuple(low + high for high in CHUNK_SCORE for low in CHUNK_SCORE)


def score_of(mask: CardSet) -> int:
    """Magic Points of a set of captured witches: the sum of their values (W14)."""
    return SCORE18[mask & 0x3FFFF] + SCORE18[mask >> 18 & 0x3FFFF] + SCORE18[mask >> 36]


# --- the wheel (W3) -------------------------------------------------------------


def ranking(value: int, increasing: bool) -> list[int]:
    """Values from strongest to weakest when the wheel points at `value` (W3)."""
    step = 1 if increasing else -1
    return [(value - 1 + step * d) % 9 + 1 for d in range(9)]


def strength(card_value: int, wheel_value: int, increasing: bool) -> int:
    """0 (weakest) .. 8 (strongest): where `card_value` sits on the wheel (W3)."""
    distance = (card_value - wheel_value) % 9 if increasing else (wheel_value - card_value) % 9
    return 8 - distance


def _keys_for(trump: Card, increasing: bool) -> tuple[int, ...]:
    colour, value = COLOUR[trump], VALUE[trump]
    return tuple(
        strength(VALUE[c], value, increasing) + (TRUMP_BONUS if COLOUR[c] == colour else 0)
        for c in range(NUM_CARDS)
    )


#: KEYS[increasing][trump][card]: the card's trick-taking key under that trump card (W8).
#: A key >= TRUMP_BONUS is a trump; otherwise the card only counts if it is of the led colour.
KEYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_keys_for(trump, increasing) for trump in range(NUM_CARDS)) for increasing in (False, True)
)


def _led_keys_for(trump: Card, led: int, increasing: bool) -> tuple[int, ...]:
    keys = KEYS[increasing][trump]
    colour = COLOUR[trump]
    return tuple(
        key if COLOUR[c] == colour or COLOUR[c] == led else -1 for c, key in enumerate(keys)
    )


#: LED_KEYS[increasing][trump][led colour][card]: KEYS, with -1 for cards that cannot win (W8).
#: The one definition of a trick's winner: the card with the highest key (the rules and the playout).
LED_KEYS: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(_led_keys_for(trump, led, increasing) for led in range(len(COLOURS)))
        for trump in range(NUM_CARDS)
    )
    for increasing in (False, True)
)
