"""Vocabulary of The Enchanters' Gathering: cards, piles and objects (E1, E3).

Cards are small ints 0..39 and sets of cards are 40-bit masks:

- 0..26 the Enchanters, `aspect * 9 + school * 3 + element` (E1);
- 27..29 the Air Enchanters, one per aspect (27 + aspect);
- 30..35 the six Tricks (E13–E18);
- 36..39 the four Elementals.

Magic Objects are `pile * 8 + value` codes (pile 0..6 for A..G); the
New-gathering cards (1 point each, public) are only counted.
"""

from __future__ import annotations

from collections.abc import Iterable

Card = int
CardSet = int  # bit mask over the 40 cards

NUM_CARDS = 40
ALL_CARDS: CardSet = (1 << NUM_CARDS) - 1

ASPECTS = ("hat", "star", "wing")        # old wizard, young mage, happy witch
SCHOOLS = ("silver", "bronze", "gold")   # Silver Academy, Bronze Gymnasium, Gold Athenaeum
ELEMENTS = ("water", "fire", "earth")

NUM_ENCHANTERS = 27
AIR_FIRST = 27                 # Air Enchanters 27, 28, 29: aspect = card - 27
TRICK_FIRST = 30
PROXIMA, IDEM, EXODUS, CHAOS, VADEMECUM, PERICULUM = range(30, 36)
TRICK_NAMES = ("proxima", "idem", "exodus", "chaos", "vademecum", "periculum")
ELEMENTAL_FIRST = 36
ELEMENTAL_NAMES = ("water", "fire", "earth", "air")

ENCHANTER_MASK: CardSet = (1 << NUM_ENCHANTERS) - 1
AIR_MASK: CardSet = 0b111 << AIR_FIRST
GATHERABLE_MASK: CardSet = ENCHANTER_MASK | AIR_MASK   # what a gathering is made of (E4)
TRICK_MASK: CardSet = 0b111111 << TRICK_FIRST
ELEMENTAL_MASK: CardSet = 0b1111 << ELEMENTAL_FIRST
PERICULUM_BIT: CardSet = 1 << PERICULUM


def aspect_of(card: Card) -> int:
    """Aspect of an Enchanter or Air Enchanter."""
    return card // 9 if card < NUM_ENCHANTERS else card - AIR_FIRST


def enchanter(aspect: int, school: int, element: int) -> Card:
    """The Enchanter with these three characteristics."""
    return aspect * 9 + school * 3 + element


def _name(card: Card) -> str:
    if card < NUM_ENCHANTERS:
        return f"{ASPECTS[card // 9]}-{SCHOOLS[card // 3 % 3]}-{ELEMENTS[card % 3]}"
    if card < TRICK_FIRST:
        return f"air-{ASPECTS[card - AIR_FIRST]}"
    if card < ELEMENTAL_FIRST:
        return TRICK_NAMES[card - TRICK_FIRST]
    return f"elemental-{ELEMENTAL_NAMES[card - ELEMENTAL_FIRST]}"


NAMES: tuple[str, ...] = tuple(_name(c) for c in range(NUM_CARDS))
CARD_BY_NAME: dict[str, Card] = {name: c for c, name in enumerate(NAMES)}


def is_air(card: Card) -> bool:
    return AIR_FIRST <= card < TRICK_FIRST


def mask_of(cards: Iterable[Card]) -> CardSet:
    """The bit mask of some cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: CardSet) -> list[Card]:
    """The cards of a mask, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def names_of(mask: CardSet) -> list[str]:
    """Card names of a mask, in card order (the canonical order everywhere)."""
    return [NAMES[c] for c in cards_of(mask)]


# --- Magic Objects (E3) ------------------------------------------------------

PILE_LETTERS = "ABCDEFG"
NUM_PILES = 7
MAX_VALUE = 5
STONE = 0  # the Sorcerer's Stone is worth 0 points
_HIGH = (0, 3, 3, 4, 4, 5, 5)
_MID = (0, 2, 2, 3, 3, 3, 4)
_LOW = (0, 1, 1, 2, 2, 2, 3)
PILE_CONTENTS: tuple[tuple[int, ...], ...] = (_HIGH, _HIGH, _HIGH, _MID, _MID, _MID, _LOW)


def _counts(values: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(values.count(v) for v in range(MAX_VALUE + 1))


#: Per pile, how many objects of each value 0..5 it holds at the start.
INITIAL_PILES: tuple[tuple[int, ...], ...] = tuple(_counts(p) for p in PILE_CONTENTS)
NEW_GATHERING_CARDS = 8
MASTER_POINTS = 5
WIN_POINTS = 15
HAND_LIMIT = 5
