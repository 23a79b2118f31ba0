"""The set rule (E4), Air Enchanters' declarations (E1) and the seven patterns (E5).

Characteristics are 0..2, so three values are "all the same or all different"
exactly when their sum is a multiple of 3; the third card of a gathering is
determined by the other two.
"""

from __future__ import annotations

import cython

from engine.enchanters.cards import (
    AIR_FIRST,
    AIR_MASK,
    ENCHANTER_MASK,
    NUM_ENCHANTERS,
    Card,
    CardSet,
    aspect_of,
    cards_of,
    enchanter,
)

Chars = tuple[int, int, int]           # (aspect, school, element)
Declaration = tuple[int, int, int]     # (air card, school, element)
Gathering = tuple[tuple[int, int, int], tuple[Declaration, ...], int]  # cards, declarations, pattern

# index: same_aspect * 4 + same_school * 2 + same_element; -1 is "all three the same"
_PATTERN_BY_SAME = (6, 5, 4, 2, 3, 1, 0, -1)


def chars_of(card: Card) -> Chars:
    """Aspect, school and element of a (non-Air) Enchanter."""
    return card // 9, card // 3 % 3, card % 3


def pattern_of(x: Chars, y: Chars, z: Chars) -> int:
    """The pattern (0..6 for A..G) of three Enchanters, or -1 when they do not gather (E4)."""
    for k in range(3):
        if (x[k] + y[k] + z[k]) % 3:
            return -1
    same = (x[0] == y[0]) * 4 + (x[1] == y[1]) * 2 + (x[2] == y[2])
    return _PATTERN_BY_SAME[same]


def effective_chars(card: Card, declarations: tuple[Declaration, ...]) -> Chars | None:
    """What a card counts as in a gathering: itself, or an Air Enchanter as declared (E1)."""
    if card < NUM_ENCHANTERS:
        return chars_of(card)
    for air, school, element in declarations:
        if air == card:
            return aspect_of(card), school, element
    return None


def _third(a: int, b: int) -> int:
    return (-(a + b)) % 3


def _build_tables() -> tuple[list[list[int]], list[list[int]]]:
    complete = [[-1] * NUM_ENCHANTERS for _ in range(NUM_ENCHANTERS)]
    pattern = [[-1] * NUM_ENCHANTERS for _ in range(NUM_ENCHANTERS)]
    for i in range(NUM_ENCHANTERS):
        ci = chars_of(i)
        for j in range(NUM_ENCHANTERS):
            if i == j:
                continue
            cj = chars_of(j)
            k = enchanter(*(_third(ci[t], cj[t]) for t in range(3)))
            complete[i][j] = k
            pattern[i][j] = pattern_of(ci, cj, chars_of(k))
    return complete, pattern


#: COMPLETE[i][j]: the Enchanter that gathers with i and j; PAIR_PATTERN[i][j]: that gathering's pattern.
COMPLETE, PAIR_PATTERN = _build_tables()


def _two_air_options(airs: tuple[int, int], school: int, element: int) -> list[tuple[tuple[Declaration, ...], int]]:
    """Canonical declarations for two Air Enchanters gathering with one Enchanter: one per pattern."""
    w1, w2 = airs
    options: list[tuple[tuple[Declaration, ...], int]] = []
    for same_school in (True, False):
        s1, s2 = (school, school) if same_school else ((school + 1) % 3, (school + 2) % 3)
        for same_element in (True, False):
            e1, e2 = (element, element) if same_element else ((element + 1) % 3, (element + 2) % 3)
            pattern = _PATTERN_BY_SAME[same_school * 2 + same_element]
            options.append((((w1, s1, e1), (w2, s2, e2)), pattern))
    return options


def _three_air_options() -> list[tuple[tuple[Declaration, ...], int]]:
    """Canonical declarations for the three Air Enchanters together: one per pattern."""
    options = []
    for same_school in (True, False):
        for same_element in (True, False):
            decl = tuple(
                (AIR_FIRST + a, 0 if same_school else a, 0 if same_element else a) for a in range(3)
            )
            options.append((decl, _PATTERN_BY_SAME[same_school * 2 + same_element]))
    return options


_THREE_AIRS = _three_air_options()
#: (first air, second air, school, element) -> the canonical two-Air options
_TWO_AIRS = {
    (w1, w2, school, element): _two_air_options((w1, w2), school, element)
    for w1 in range(AIR_FIRST, AIR_FIRST + 3)
    for w2 in range(w1 + 1, AIR_FIRST + 3)
    for school in range(3)
    for element in range(3)
}


@cython.locals(hand=cython.ulonglong, towers=cython.ulonglong, avail=cython.ulonglong, n=cython.int,
               x=cython.int, y=cython.int, i=cython.int, j=cython.int, k=cython.int, w=cython.int,
               aspect=cython.int, p=cython.int, q=cython.int, r=cython.int, w1=cython.int, w2=cython.int,
               wanted=cython.int, pattern=cython.int, regs=list, airs=list, out=list, row_c=list, row_p=list)
def gatherings(hand: CardSet, towers: CardSet) -> list[Gathering]:
    """Every gathering from these cards with at least one card from `hand` (E4–E6).

    Equivalent Air declarations are deduplicated: one canonical declaration per
    set of three cards and pattern. (Compiled, the masks and indices are C integers: the search
    lists a sample's moves on every visit of a node.)
    """
    avail = hand | towers
    regs = cards_of(avail & ENCHANTER_MASK)
    airs = cards_of(avail & AIR_MASK)
    out: list[Gathering] = []
    n = len(regs)
    for x in range(n):
        i = regs[x]
        row_c = COMPLETE[i]
        row_p = PAIR_PATTERN[i]
        for y in range(x + 1, n):
            j = regs[y]
            k = row_c[j]
            if k > j and (avail >> k) & 1 and ((hand >> i) | (hand >> j) | (hand >> k)) & 1:
                out.append(((i, j, k), (), row_p[j]))
            if airs:
                aspect = k // 9 + AIR_FIRST
                for w in airs:
                    if w == aspect and ((hand >> i) | (hand >> j) | (hand >> w)) & 1:
                        out.append(((i, j, w), ((w, k // 3 % 3, k % 3),), row_p[j]))
    if len(airs) >= 2:
        for p in range(len(airs)):
            for q in range(p + 1, len(airs)):
                w1, w2 = airs[p], airs[q]
                wanted = 3 - aspect_of(w1) - aspect_of(w2)
                for r in regs:
                    if r // 9 != wanted or not ((hand >> r) | (hand >> w1) | (hand >> w2)) & 1:
                        continue
                    for decl, pattern in _TWO_AIRS[w1, w2, r // 3 % 3, r % 3]:
                        out.append(((r, w1, w2), decl, pattern))
        if len(airs) == 3 and hand & AIR_MASK:
            for decl, pattern in _THREE_AIRS:
                out.append(((airs[0], airs[1], airs[2]), decl, pattern))
    return out
