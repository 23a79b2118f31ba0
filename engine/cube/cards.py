"""The Magic Cube vocabulary: object kinds, cube sides, die faces and their tables (C1–C5, C11, C14).

Vocabulary first, as in python-chess: object kinds and cube sides are small
ints, the die's faces share the side numbering (a face names its target side,
C8), and the cube's holes are bit masks over object kinds. The rules that are
plain arithmetic (the fall probability, the penalty split, the search's
rewards) live here once, for the checked rules and the fast playout alike.
"""

from __future__ import annotations

from collections.abc import Sequence

Kind = int   # an object kind: BOOK, RING, HAT, WAND
Side = int   # a cube side; sides 0-3 have the colour of kinds 0-3
Face = int   # a die face; faces share the side numbering (the face names its target side)
Counts = tuple[int, int, int, int]  # a count per object kind, in kind order

BOOK, RING, HAT, WAND = 0, 1, 2, 3
KINDS: tuple[str, ...] = ("book", "ring", "hat", "wand")
RED, YELLOW, BLUE, GREEN, ORANGE, VIOLET = 0, 1, 2, 3, 4, 5
SIDES: tuple[str, ...] = ("red", "yellow", "blue", "green", "orange", "violet")
STARS = 4                         # the die face that lets the player choose (C9)
FACES: tuple[str, ...] = ("book", "ring", "hat", "wand", "stars", "square")

PER_KIND = 5                      # C1: five objects of each kind
TOTAL = PER_KIND * len(KINDS)     # C1: twenty objects
OPPOSITE: tuple[Side, ...] = (GREEN, BLUE, YELLOW, RED, VIOLET, ORANGE)  # C4
#: C3: the kinds (bit mask) that fit the holes of each side.
HOLES: tuple[int, ...] = (1 << BOOK, 1 << RING, 1 << HAT, 1 << WAND, 0b1111, 0)
START_UP: Side = VIOLET           # C5

KIND_INDEX = {name: i for i, name in enumerate(KINDS)}
SIDE_INDEX = {name: i for i, name in enumerate(SIDES)}
FACE_INDEX = {name: i for i, name in enumerate(FACES)}

#: The search's rewards: this much for a (shared) win, plus MARGIN_WEIGHT × the objects kept away.
WIN_WEIGHT = 0.9
MARGIN_WEIGHT = 0.1


def is_adjacent(a: Side, b: Side) -> bool:
    """C4: two sides are adjacent when they are neither the same nor opposite."""
    return a != b and OPPOSITE[a] != b


def is_via(side: Side, start: Side, target: Side) -> bool:
    """C10: a legal intermediate side is adjacent to both the side up and the target."""
    return is_adjacent(side, start) and is_adjacent(side, target)


#: For each side up, the four sides a half turn may pass through (all but it and its opposite).
HALF_TURN_VIAS: tuple[tuple[Side, ...], ...] = tuple(
    tuple(side for side in range(6) if is_adjacent(side, up)) for up in range(6)
)


def fall_probability(n: int) -> float:
    """C11: the chance that one fitting object falls at an exposure with `n` objects inside."""
    return min(0.6, 0.05 * n)


def can_fall(cube: Sequence[int], mask: int) -> bool:
    """Whether any object in the cube fits the holes in `mask`."""
    return any(mask >> k & 1 and cube[k] for k in range(4))


def add_penalty(front: list[int], out: list[int], fell: Sequence[int]) -> None:
    """C14: what fell goes in front of the player, two objects at most (first in kind order), the rest out."""
    room = 2
    for k in range(4):
        c = fell[k]
        if c:
            take = c if c < room else room
            front[k] += take
            out[k] += c - take
            room -= take


def split_penalty(fell: Sequence[int]) -> tuple[Counts, Counts]:
    """C14 as counts: (kept in front of the player, out of the game)."""
    kept, gone = [0, 0, 0, 0], [0, 0, 0, 0]
    add_penalty(kept, gone, fell)
    return (kept[0], kept[1], kept[2], kept[3]), (gone[0], gone[1], gone[2], gone[3])


def rewards(counts: Sequence[int]) -> tuple[float, ...]:
    """The search's rewards from the objects in front of each seat (C16: the fewest wins).

    WIN_WEIGHT for a (shared) win, plus MARGIN_WEIGHT × the share of the 20 objects NOT in front of you.
    """
    best = min(counts)
    return tuple(
        (WIN_WEIGHT if c == best else 0.0) + MARGIN_WEIGHT * (1.0 - c / TOTAL) for c in counts
    )
