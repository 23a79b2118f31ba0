"""The search's fast path: the default playout, a cheap greedy player sampled straight from bit masks.

Uniformly random playouts mostly measure luck in a race to 15 points, so the
playout plays like a plain sensible player (the rules' calibration note):

- take (E9): the face-up card when it is an Elemental, an Air Enchanter, Idem,
  or completes a gathering with the hand and Towers; else a face-down card;
- act (E10): Chaos when the hand it brings holds two Elementals more (or the
  master's three); Idem whenever a gathering has happened (an object for no
  card); else the gathering with the best expected object (pile mean, plus
  the New-gathering card when all three come from the hand, less a little for
  each hand card used), into the fullest Tower (its old cards go to the
  discard pile, out of the next player's reach); else Vademecum,
  else Proxima, else nothing (Exodus is never played);
- discard (E11): Chaos and Exodus first, then an Enchanter with the fewest
  partners in hand and Towers, then other Tricks, Air Enchanters, Elementals last.

It never enumerates the legal moves: each choice is found by mask look-ups
(every gathering of an Enchanter is one of 13 precomputed pairs), and only the
moves it makes are legal ones (tests replay them through the checked `apply`).
Chance is sampled with `rng.random()`, as `sample_chance` would with its odds.

`playout` runs the whole game on local variables (the state is read once and
written back once): the rules' transitions of `rules.py` for the moves this
policy makes, without the records only views and determinization read (the
history, who knows which card, `peaks`, `reshuffled`). Typed for Cython in
pure-Python mode (`cython.locals`: masks are 64-bit unsigned integers once
compiled), so the same file runs uncompiled; a test replays it against the
rules' own transitions.

The Trick rules were kept because they won head-to-head against the plain
greedy player in 2-player policy-only games (Chaos rule 55%, Idem first 52-54%,
1,000-2,000 games); eager Proxima made no difference.
"""

from __future__ import annotations

import random
from typing import Any

import cython

from engine.enchanters import cards as _cards
from engine.enchanters import state as _state
from engine.enchanters.moves import DISCARDS, PASS, TAKES, EnchantersMove, Gather, Pass, PlayTrick
from engine.enchanters.sets import _THREE_AIRS, _TWO_AIRS, COMPLETE, PAIR_PATTERN
from engine.enchanters.state import EnchantersState

# The rules' constants as C constants once compiled (an imported name is a Python object there)
ENCHANTER_MASK = cython.declare(cython.ulonglong, _cards.ENCHANTER_MASK)
AIR_MASK = cython.declare(cython.ulonglong, _cards.AIR_MASK)
GATHERABLE_MASK = cython.declare(cython.ulonglong, _cards.GATHERABLE_MASK)
ELEMENTAL_MASK = cython.declare(cython.ulonglong, _cards.ELEMENTAL_MASK)
AIR_FIRST = cython.declare(cython.int, _cards.AIR_FIRST)
ELEMENTAL_FIRST = cython.declare(cython.int, _cards.ELEMENTAL_FIRST)
NUM_ENCHANTERS = cython.declare(cython.int, _cards.NUM_ENCHANTERS)
NUM_PILES = cython.declare(cython.int, _cards.NUM_PILES)
PROXIMA = cython.declare(cython.int, _cards.PROXIMA)
IDEM = cython.declare(cython.int, _cards.IDEM)
EXODUS = cython.declare(cython.int, _cards.EXODUS)
CHAOS = cython.declare(cython.int, _cards.CHAOS)
VADEMECUM = cython.declare(cython.int, _cards.VADEMECUM)
PERICULUM = cython.declare(cython.int, _cards.PERICULUM)
STONE = cython.declare(cython.int, _cards.STONE)
HAND_LIMIT = cython.declare(cython.int, _cards.HAND_LIMIT)
MASTER_POINTS = cython.declare(cython.int, _cards.MASTER_POINTS)
WIN_POINTS = cython.declare(cython.int, _cards.WIN_POINTS)
FACE_UP_SPOT = cython.declare(cython.int, _state.FACE_UP_SPOT)
REFILL = cython.declare(cython.int, _state.REFILL)
FIRST = cython.declare(cython.int, _state.FIRST)
VADEMECUM_DRAW = cython.declare(cython.int, _state.VADEMECUM_DRAW)
OBJECT = cython.declare(cython.int, _state.OBJECT)
TAKE1 = cython.declare(cython.int, _state.TAKE1)
TAKE2 = cython.declare(cython.int, _state.TAKE2)
ACT = cython.declare(cython.int, _state.ACT)
DISCARD = cython.declare(cython.int, _state.DISCARD)
OVER = cython.declare(cython.int, _state.OVER)
FIFTEEN_POINTS = cython.declare(cython.int, _state.FIFTEEN_POINTS)
SPECIAL_VICTORY = cython.declare(cython.int, _state.SPECIAL_VICTORY)
PILES_EMPTY = cython.declare(cython.int, _state.PILES_EMPTY)
STALEMATE = cython.declare(cython.int, _state.STALEMATE)
PLAIN = cython.declare(cython.int, _state.PLAIN)
WITH_NEW_GATHERING = cython.declare(cython.int, _state.WITH_NEW_GATHERING)
PROXIMA_PAYOUT = cython.declare(cython.int, _state.PROXIMA_PAYOUT)

#: What each hand card used in a gathering costs, in points (cards are the means of the next one).
HAND_CARD_COST = cython.declare(cython.double, 0.25)  # at least 1/4: an Air gathering then scores at most its pile value (pruning)
#: Discard order: lower first (Elementals score, keep them).
_USELESS_TRICKS = cython.declare(cython.ulonglong, (1 << _cards.CHAOS) | (1 << _cards.EXODUS))
_GOOD_TRICKS = cython.declare(cython.ulonglong, (1 << _cards.PROXIMA) | (1 << _cards.IDEM) | (1 << _cards.VADEMECUM))
_IDEM_BIT = cython.declare(cython.ulonglong, 1 << _cards.IDEM)
_CHAOS_BIT = cython.declare(cython.ulonglong, 1 << _cards.CHAOS)
_VADEMECUM_BIT = cython.declare(cython.ulonglong, 1 << _cards.VADEMECUM)
_PROXIMA_BIT = cython.declare(cython.ulonglong, 1 << _cards.PROXIMA)
_PERICULUM_BIT = cython.declare(cython.ulonglong, 1 << _cards.PERICULUM)
_TRICK_MOVES = {trick: PlayTrick(trick) for trick in (IDEM, VADEMECUM, PROXIMA, CHAOS)}
_NO_MOVE = cython.declare(cython.int, -1)  # `_act_choice`: no Trick first, look for a gathering
_PAIRS = cython.declare(cython.int, 13)     # gatherings of an Enchanter with two others
_VALUES = cython.declare(cython.int, _cards.MAX_VALUE + 1)


def _pairs() -> tuple[list[int], list[int], list[int], list[int]]:
    """Per Enchanter i, its 13 gatherings with j < k, flat at i * 13: (masks of j and k, patterns, j, k)."""
    masks, patterns, js, ks = [], [], [], []
    for i in range(NUM_ENCHANTERS):
        for j in range(NUM_ENCHANTERS):
            k = COMPLETE[i][j]
            if j != i and j < k:
                masks.append((1 << j) | (1 << k))
                patterns.append(PAIR_PATTERN[i][j])
                js.append(j)
                ks.append(k)
    return masks, patterns, js, ks


_PAIR_MASK, _PAIR_PATTERN, _PAIR_J, _PAIR_K = _pairs()
#: ASPECT_MASK[a]: the nine Enchanters of aspect a.
ASPECT_MASK = [sum(1 << (a * 9 + r) for r in range(9)) for a in range(3)]


def _air_partners(later_only: bool) -> list[int]:
    """At i * 3 + a, the mask of the j whose gathering with Enchanter i needs an Enchanter of aspect
    a (an Air Enchanter of aspect a stands in for it); with `later_only`, only j > i (each pair once)."""
    out = []
    for i in range(NUM_ENCHANTERS):
        per_aspect = [0, 0, 0]
        for j in range(NUM_ENCHANTERS):
            if j != i and (j > i or not later_only):
                per_aspect[COMPLETE[i][j] // 9] |= 1 << j
        out.extend(per_aspect)
    return out


_AIR_PARTNERS = _air_partners(False)
_AIR_PARTNERS_LATER = _air_partners(True)


# --- bits: int methods from source, C arithmetic once compiled ----------------------------------

_ODD_BITS = cython.declare(cython.ulonglong, 0x5555555555555555)
_BIT_PAIRS = cython.declare(cython.ulonglong, 0x3333333333333333)
_NIBBLES = cython.declare(cython.ulonglong, 0x0F0F0F0F0F0F0F0F)
_BYTE_ONES = cython.declare(cython.ulonglong, 0x0101010101010101)
_ONE = cython.declare(cython.ulonglong, 1)  # shifted as a 64-bit mask


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(x=cython.ulonglong)
@cython.returns(cython.int)
def _count(x: int) -> cython.int:
    """How many bits are set (`int.bit_count`)."""
    if cython.compiled:
        x = x - ((x >> 1) & _ODD_BITS)
        x = (x & _BIT_PAIRS) + ((x >> 2) & _BIT_PAIRS)
        x = (x + (x >> 4)) & _NIBBLES
        return cython.cast(cython.int, (x * _BYTE_ONES) >> 56)
    return x.bit_count()


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(x=cython.ulonglong)
@cython.returns(cython.int)
def _lowest(x: int) -> cython.int:
    """The index of the lowest set bit of a non-zero mask."""
    if cython.compiled:
        return _count((x & (~x + 1)) - 1)
    return (x & -x).bit_length() - 1


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(x=cython.ulonglong)
@cython.returns(cython.int)
def _length(x: int) -> cython.int:
    """`int.bit_length`: one more than the index of the highest set bit (0 for 0)."""
    if cython.compiled:
        x |= x >> 1
        x |= x >> 2
        x |= x >> 4
        x |= x >> 8
        x |= x >> 16
        x |= x >> 32
        return _count(x)
    return x.bit_length()


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(r=cython.double, count=cython.int)
@cython.returns(cython.int)
def _below(r: float, count: int) -> cython.int:
    """int(r * count) for r in [0, 1): a uniform index below `count`."""
    if cython.compiled:
        return cython.cast(cython.int, r * count)
    return int(r * count)


# --- the policy, on masks ---------------------------------------------------------------------


@cython.locals(q=cython.int, k=cython.int, v=cython.int, total=cython.int, weighted=cython.int,
               found=cython.bint, counts=list, totals=list)
def _pattern_values(counts: list[int], totals: list[int]) -> list[float]:
    """Per pattern A..G, the mean value of the object it would pay now (E7's fallback included).

    `counts[pile * 6 + value]` objects of each value are left, `totals[pile]` in all."""
    means = []
    for q in range(NUM_PILES):
        total = totals[q]
        if total:
            weighted = 0
            for v in range(1, _VALUES):
                k = counts[q * _VALUES + v]
                weighted += v * k
            means.append(weighted / total)
        else:
            means.append(-1.0)
    if min(means) >= 0:
        return means
    out = []
    for q in range(NUM_PILES):
        found = False
        for k in range(NUM_PILES):
            if means[(q + k) % NUM_PILES] >= 0:
                out.append(means[(q + k) % NUM_PILES])
                found = True
                break
        if not found:
            out.append(0.0)
    return out


def pattern_values(s: EnchantersState) -> list[float]:
    """Per pattern A..G, the mean value of the object it would pay now (E7's fallback included)."""
    values: list[float] = _pattern_values([k for pile in s.piles for k in pile], [sum(pile) for pile in s.piles])
    return values


@cython.ccall
@cython.locals(card=cython.int, avail=cython.ulonglong, airs=cython.ulonglong, a=cython.int,
               w=cython.int, other=cython.int, x=cython.int, m=cython.ulonglong, bit=cython.ulonglong, masks=list)
@cython.returns(cython.bint)
def _completes(card: int, avail: int) -> cython.bint:
    """Whether `card` (coming into the hand) gathers with two cards of `avail` (hand and Towers)."""
    if card < NUM_ENCHANTERS:
        masks: list[int] = _PAIR_MASK
        for x in range(card * _PAIRS, card * _PAIRS + _PAIRS):
            m = masks[x]
            if avail & m == m:
                return True
        airs = avail & AIR_MASK
        if airs:
            a = card // 9
            bit = _ONE << card
            for w in range(3):
                if airs >> (AIR_FIRST + w) & 1:
                    # card, Air w and any Enchanter of the third aspect (or of card's aspect if w's is too)
                    other = (6 - a - w) % 3
                    m = ASPECT_MASK[other]
                    if avail & m & ~bit:
                        return True
                    if other != w and airs >> (AIR_FIRST + other) & 1:
                        return True  # two Airs of the other aspects gather with card
        return False
    return AIR_FIRST <= card < AIR_FIRST + 3 or card >= ELEMENTAL_FIRST or card == IDEM


@cython.cfunc
@cython.locals(hand=cython.ulonglong, t0=cython.ulonglong, t1=cython.ulonglong, t2=cython.ulonglong,
               bonus=cython.double, avail=cython.ulonglong, regs=cython.ulonglong, low=cython.ulonglong,
               m=cython.ulonglong, i=cython.int, x=cython.int, j=cython.int, k=cython.int,
               pattern=cython.int, score=cython.double, best_score=cython.double, used=cython.ulonglong,
               best_used=cython.ulonglong, best_pattern=cython.int, best_x=cython.int, tower=cython.int,
               most=cython.int, left=cython.int, t=cython.int, value=cython.double, values=list, masks=list, patterns=list)
def _best_gathering(hand: int, t0: int, t1: int, t2: int, bonus: float, values: list[float]) -> tuple[Any, ...]:
    """The gathering the policy likes best from `hand` (gatherable cards) and Towers t0-t2, as
    (score, used mask, pattern, tower, cards, declarations); score -1e9 and no cards when none."""
    avail = hand | t0 | t1 | t2
    best_score = -1e9
    best_used = 0
    best_pattern = -1
    best_x = -1
    regs = hand & ENCHANTER_MASK
    masks: list[int] = _PAIR_MASK
    patterns: list[int] = _PAIR_PATTERN
    while regs:
        low = regs & (~regs + 1)
        regs ^= low
        i = _lowest(low)
        for x in range(i * _PAIRS, i * _PAIRS + _PAIRS):
            m = masks[x]
            if avail & m == m:
                pattern = patterns[x]
                value = values[pattern]
                if hand & m == m:
                    score = value - 3 * HAND_CARD_COST + bonus
                else:
                    score = value - HAND_CARD_COST * (1 + _count(hand & m))
                if score > best_score:
                    best_score = score
                    best_x = x
                    best_used = m | low
                    best_pattern = pattern
    cards: Any = None
    decl: Any = ()
    if best_x >= 0:
        i = best_x // _PAIRS
        j = _PAIR_J[best_x]
        k = _PAIR_K[best_x]
        cards = (i, j, k) if i < j else (j, i, k) if i < k else (j, k, i)
    airs = avail & AIR_MASK
    if airs:
        found = _best_with_airs(hand, avail, airs, values, bonus, best_score)
        if found is not None:
            best_score, best_used, best_pattern, cards, decl = found
    if cards is None:
        return best_score, 0, -1, -1, None, ()
    # into the Tower whose old cards are most worth discarding: every card left in the Towers is
    # there for the next player's gatherings too (+2 points against random in policy-only games)
    tower = 0
    most = _count(t0 & ~best_used)
    left = _count(t1 & ~best_used)
    if left > most:
        most = left
        tower = 1
    if _count(t2 & ~best_used) > most:
        tower = 2
    return best_score, best_used, best_pattern, tower, cards, decl


@cython.cfunc
@cython.locals(hand=cython.ulonglong, avail=cython.ulonglong, airs=cython.ulonglong, bonus=cython.double,
               best_score=cython.double, regs_avail=cython.ulonglong, a=cython.int, w=cython.int,
               wbit=cython.ulonglong, w_in_hand=cython.bint, regs=cython.ulonglong, low=cython.ulonglong,
               i=cython.int, found=cython.ulonglong, jbit=cython.ulonglong, j=cython.int, pattern=cython.int,
               used=cython.ulonglong, mine=cython.int, score=cython.double, k=cython.int, a1=cython.int,
               a2=cython.int, w1=cython.int, w2=cython.int, pair=cython.ulonglong, r=cython.int,
               base=cython.double, value=cython.double, values=list, partners=list, row=list)
def _best_with_airs(hand: int, avail: int, airs: int, values: list[float], bonus: float, best_score: float) -> Any:
    """A gathering with Air Enchanters (E1: declared to fit) better than `best_score`, as (score,
    used, pattern, cards, declarations), or None. An Air Enchanter costs one hand card more: it is
    the most flexible card."""
    best: Any = None
    regs_avail = avail & ENCHANTER_MASK
    for a in range(3):
        w = AIR_FIRST + a
        wbit = _ONE << w
        if not airs & wbit:
            continue
        w_in_hand = (hand & wbit) != 0
        # one Air with two Enchanters i < j: from the hand, at least one of the three
        regs = regs_avail if w_in_hand else hand & ENCHANTER_MASK
        partners: list[int] = _AIR_PARTNERS_LATER if w_in_hand else _AIR_PARTNERS
        while regs:
            low = regs & (~regs + 1)
            regs ^= low
            i = _lowest(low)
            found = partners[i * 3 + a]
            found &= regs_avail
            row: list[int] = PAIR_PATTERN[i]
            while found:
                jbit = found & (~found + 1)
                found ^= jbit
                j = _lowest(jbit)
                pattern = row[j]
                value = values[pattern]
                if value <= best_score:
                    continue  # an Air gathering scores at most its pile's value
                used = low | jbit | wbit
                mine = _count(hand & used)
                score = value - HAND_CARD_COST * (1 + mine) + (bonus if mine == 3 else 0.0)
                if score > best_score:
                    best_score = score
                    k = COMPLETE[i][j]
                    best = (best_score, used, pattern, (i, j, w) if i < j else (j, i, w),
                            ((w, k // 3 % 3, k % 3),))
    if (airs & (airs - 1)) == 0:
        return best
    # two Airs with one Enchanter of the remaining aspect, declared for the best of the four patterns
    for a1 in range(3):
        w1 = AIR_FIRST + a1
        if not airs >> w1 & 1:
            continue
        for a2 in range(a1 + 1, 3):
            w2 = AIR_FIRST + a2
            if not airs >> w2 & 1:
                continue
            pair = (_ONE << w1) | (_ONE << w2)
            regs = ASPECT_MASK[3 - a1 - a2]
            regs &= avail if hand & pair else hand
            while regs:
                low = regs & (~regs + 1)
                regs ^= low
                r = _lowest(low)
                used = pair | low
                mine = _count(hand & used)
                base = HAND_CARD_COST * (1 + mine) - (bonus if mine == 3 else 0.0)
                for decl, pattern in _TWO_AIRS[w1, w2, r // 3 % 3, r % 3]:
                    value = values[pattern]
                    score = value - base
                    if score > best_score:
                        best_score = score
                        best = (best_score, used, pattern, (r, w1, w2), decl)
    if airs == AIR_MASK and hand & AIR_MASK:
        mine = _count(hand & AIR_MASK)
        base = HAND_CARD_COST * (1 + mine) - (bonus if mine == 3 else 0.0)
        for decl, pattern in _THREE_AIRS:
            value = values[pattern]
            score = value - base
            if score > best_score:
                best_score = score
                best = (best_score, AIR_MASK, pattern, (AIR_FIRST, AIR_FIRST + 1, AIR_FIRST + 2), decl)
    return best


def best_gathering(s: EnchantersState, values: list[float]) -> tuple[float, Any]:
    """The gathering the policy likes best now and its score, or (-1e9, None) when there is none.

    The gathering is (cards, declarations, tower, pattern), as `Gather` and `rules._gather` take it.
    """
    towers = s.towers
    score, _, pattern, tower, cards, decl = _best_gathering(
        s.hands[s.turn] & GATHERABLE_MASK, towers[0], towers[1], towers[2],
        1.0 if s.ng_left > 0 else 0.0, values)
    return score, None if cards is None else (cards, decl, tower, pattern)


@cython.cfunc
@cython.exceptval(check=False)
@cython.locals(hand=cython.ulonglong, right=cython.ulonglong, last_pile=cython.int, mine=cython.int,
               theirs=cython.int)
@cython.returns(cython.int)
def _act_choice(hand: int, right: int, last_pile: int) -> cython.int:
    """Step 2's Tricks first (E10): Chaos to grab Elementals from `right` (the hand Chaos brings),
    Idem when a gathering has happened (an object for no card: the gathering can wait a turn);
    else _NO_MOVE."""
    if hand & _CHAOS_BIT:
        mine = _count(hand & ELEMENTAL_MASK)
        theirs = _count(right & ELEMENTAL_MASK)
        if theirs - mine >= 2 or (theirs >= 3 > mine):
            return CHAOS
    if hand & _IDEM_BIT and last_pile >= 0:
        return IDEM
    return _NO_MOVE


@cython.cfunc
@cython.exceptval(check=False)
@cython.locals(hand=cython.ulonglong, cards_left=cython.bint)
@cython.returns(cython.int)
def _fallback(hand: int, cards_left: bool) -> cython.int:
    """Step 2 with no gathering: Vademecum while there are cards to draw, else Proxima, else _NO_MOVE."""
    if hand & _VADEMECUM_BIT and cards_left:
        return VADEMECUM
    if hand & _PROXIMA_BIT:
        return PROXIMA
    return _NO_MOVE


@cython.cfunc
@cython.locals(hand=cython.ulonglong, avail=cython.ulonglong, pick=cython.ulonglong, regs=cython.ulonglong,
               low=cython.ulonglong, fewest=cython.int, partners=cython.int, x=cython.int, i=cython.int,
               count=cython.int, r=cython.int, m=cython.ulonglong, masks=list)
@cython.returns(cython.int)
def _discard_choice(hand: int, avail: int, rand: Any) -> cython.int:
    """Step 3 (E11): the card the policy gives up first from `hand` (`avail`: gatherable cards in
    hand and Towers)."""
    pick = hand & _USELESS_TRICKS
    if not pick:
        regs = hand & ENCHANTER_MASK
        if regs:
            masks: list[int] = _PAIR_MASK
            fewest = 99
            pick = 0
            while regs:
                low = regs & (~regs + 1)
                regs ^= low
                partners = 0
                i = _lowest(low)
                for x in range(i * _PAIRS, i * _PAIRS + _PAIRS):
                    m = masks[x]
                    if avail & m:
                        partners += 1
                if partners < fewest:
                    fewest = partners
                    pick = low
                elif partners == fewest:
                    pick |= low
        else:
            pick = hand & _GOOD_TRICKS or hand & AIR_MASK or hand
    count = _count(pick)
    if count > 1:
        for _ in range(_below(rand(), count)):
            pick &= pick - 1
    return _lowest(pick)


@cython.cfunc
@cython.locals(up=cython.int, avail=cython.ulonglong, a=cython.bint, b=cython.bint, c=cython.bint,
               count=cython.int, r=cython.int, table=list)
@cython.returns(cython.int)
def _take_choice(table: list[int], avail: int, rand: Any) -> cython.int:
    """Step 1 (E9): the face-up card when it helps (`avail`: gatherable cards in hand and Towers),
    else a random face-down card."""
    up = table[FACE_UP_SPOT]
    if up >= 0 and _completes(up, avail):
        return FACE_UP_SPOT
    a = table[0] >= 0
    b = table[1] >= 0
    c = table[2] >= 0
    count = a + b + c
    if not count:
        return FACE_UP_SPOT
    r = _below(rand(), count) if count > 1 else 0
    if a:
        if not r:
            return 0
        r -= 1
    if b:
        if not r:
            return 1
        r -= 1
    return 2


def _avail(s: EnchantersState) -> int:
    """The gatherable cards of the player to act, in hand and in the Towers."""
    towers = s.towers
    avail: int = (s.hands[s.turn] & GATHERABLE_MASK) | towers[0] | towers[1] | towers[2]
    return avail


def act_move(s: EnchantersState, values: list[float]) -> Any:
    """Step 2 (E10): Chaos to grab Elementals, Idem when it pays, else the best gathering (as
    `best_gathering` gives it), else Vademecum or Proxima, else PASS."""
    hand = s.hands[s.turn]
    trick = _act_choice(hand, s.hands[s.turn - 1], s.last_pile)  # Chaos brings the right hand
    if trick != _NO_MOVE:
        return _TRICK_MOVES[trick]
    _, gather = best_gathering(s, values)
    if gather is not None:
        return gather
    trick = _fallback(hand, bool(s.deck | s.discard))
    return PASS if trick == _NO_MOVE else _TRICK_MOVES[trick]


def discard_card(s: EnchantersState, rng: random.Random) -> int:
    """Step 3 (E11): the card the policy gives up first."""
    card: int = _discard_choice(s.hands[s.turn], _avail(s), rng.random)
    return card


def take_spot(s: EnchantersState, rng: random.Random) -> int:
    """Step 1 (E9): the face-up card when it helps, else a random face-down card."""
    spot: int = _take_choice(s.table, _avail(s), rng.random)
    return spot


def policy_move(s: EnchantersState, rng: random.Random) -> EnchantersMove:
    """The policy's move for the player to act (a legal move; not for chance or the end)."""
    phase = s.phase
    if phase == ACT:
        move = act_move(s, pattern_values(s))
        if isinstance(move, (PlayTrick, Pass)):
            return move
        cards, decl, tower, _ = move
        return Gather(cards, tower, decl)
    if phase == DISCARD:
        return DISCARDS[discard_card(s, rng)]
    return TAKES[take_spot(s, rng)]


# --- the playout ------------------------------------------------------------------------------


@cython.cfunc
@cython.exceptval(check=False)
@cython.locals(n=cython.int, seat=cython.int, hand=cython.ulonglong, hands=list)
@cython.returns(cython.int)
def _master(hands: list[int], n: int) -> cython.int:
    """E20: whoever holds three or more Elementals (at most one can), else -1."""
    for seat in range(n):
        hand = hands[seat]
        if _count(hand & ELEMENTAL_MASK) >= 3:
            return seat
    return -1


@cython.cfunc
@cython.exceptval(check=False)
@cython.locals(seat=cython.int, master=cython.int, points=cython.int, hand=cython.ulonglong, hands=list, obj_points=list)
@cython.returns(cython.int)
def _points(hands: list[int], obj_points: list[int], master: int, seat: int) -> cython.int:
    """Spell Points (E19, E20), as `rules.points`."""
    points = obj_points[seat]
    hand = hands[seat]
    return points + _count(hand & ELEMENTAL_MASK) + (MASTER_POINTS if master == seat else 0)


@cython.cfunc
@cython.exceptval(check=False)
@cython.locals(n=cython.int, turn=cython.int, master=cython.int, start=cython.int, k=cython.int,
               seat=cython.int, count=cython.int, hands=list, obj_points=list, stones=list, held=list)
@cython.returns(cython.int)
def _winner(n: int, turn: int, hands: list[int], obj_points: list[int], stones: list[int], held: list[int],
            master: int) -> cython.int:
    """E21/E22 as `rules.check_end` checks them: the first winner from the player to act on, as
    seat * 8 + reason, else -1 (`held`: per seat, objects and New-gathering cards)."""
    start = turn if turn >= 0 else 0
    for k in range(n):
        seat = (start + k) % n
        count = stones[seat]
        if count >= 2:
            count = held[seat]
            if count + (master == seat) >= 3:
                return seat * 8 + SPECIAL_VICTORY
        if _points(hands, obj_points, master, seat) >= WIN_POINTS:
            return seat * 8 + FIFTEEN_POINTS
    return -1


def _on_points(n: int, hands: list[int], obj_points: list[int], master: int) -> tuple[int, ...]:
    """E23: the seats with the most Spell Points."""
    totals = [_points(hands, obj_points, master, seat) for seat in range(n)]
    best = max(totals)
    return tuple(seat for seat in range(n) if totals[seat] == best)


@cython.locals(
    n=cython.int, turn=cython.int, phase=cython.int, deck=cython.ulonglong, discard=cython.ulonglong,
    refill=cython.int, vade_left=cython.int, skip_act=cython.bint, busy=cython.bint, idle=cython.int,
    turns=cython.int, ng_left=cython.int, proxima=cython.int, master=cython.int, last_pile=cython.int,
    reshuffles=cython.int, reason=cython.int, t0=cython.ulonglong, t1=cython.ulonglong,
    t2=cython.ulonglong, hand=cython.ulonglong, card=cython.int, bit=cython.ulonglong, low=cython.ulonglong,
    high=cython.int, left=cython.ulonglong, r=cython.int, spot=cython.int, choice=cython.int,
    used=cython.ulonglong, pattern=cython.int, tower=cython.int, pile=cython.int, value=cython.int,
    seat=cython.int, k=cython.int, q=cython.int, won=cython.int, queued=cython.int, q_seat=cython.int,
    q_pile=cython.int, q_kind=cython.int, q2_seat=cython.int, q2_pile=cython.int, q2_kind=cython.int,
    i=cython.int, hands=list, table=list, counts=list, totals=list, objects=list, held=list, ng=list,
    obj_points=list, stones=list, values=list)
def playout(s: EnchantersState, rng: random.Random) -> None:
    """Play the policy and sampled chance to the end of the game, in place.

    The rules' transitions for this policy's moves (`rules.step` and `rules.advance`, case by
    case), on local copies of the state written back at the end."""
    rand = rng.random
    n = s.n
    turn = s.turn
    phase = s.phase
    hands: list[int] = s.hands[:]
    table: list[int] = s.table[:]
    t0, t1, t2 = s.towers
    deck = s.deck
    discard = s.discard
    counts: list[int] = [k for counts_of_pile in s.piles for k in counts_of_pile]
    totals: list[int] = [sum(counts_of_pile) for counts_of_pile in s.piles]
    objects: list[list[int]] = [list(codes) for codes in s.objects]
    held: list[int] = [len(codes) + cards for codes, cards in zip(s.objects, s.ng, strict=True)]
    ng: list[int] = s.ng[:]
    obj_points: list[int] = s.obj_points[:]
    stones: list[int] = s.stones[:]
    ng_left = s.ng_left
    proxima = s.proxima
    master = s.master
    last_pile = s.last_pile
    vade_left = s.vade_left
    refill = s.refill
    skip_act = s.skip_act
    reshuffles = s.reshuffles
    turns = s.turns
    idle = s.idle
    busy = s.busy
    winners: tuple[int, ...] = s.winners
    reason = s.reason
    queue = s.queue  # at most two payouts: the gathering's, then Proxima's
    queued = len(queue)
    q_seat = q_pile = q_kind = q2_seat = q2_pile = q2_kind = 0
    if queued:
        q_seat, q_pile, q_kind = queue[0]
        if queued > 1:
            q2_seat, q2_pile, q2_kind = queue[1]
    values: list[float] = _pattern_values(counts, totals)
    won = -1
    while phase != OVER:
        if phase == REFILL:
            if not refill:
                if turn < 0:
                    phase = FIRST
                    continue
                turns += 1
                idle = 0 if busy or deck else idle + 1
                busy = False
                if idle >= 2 * n:  # two rounds stuck: no step 2 and nothing left to draw
                    winners = _on_points(n, hands, obj_points, master)
                    reason = STALEMATE
                    phase = OVER
                    continue
                turn = (turn + 1) % n
                skip_act = False
                phase = TAKE1
                continue
            low = refill & -refill
            if deck:
                high = _length(deck)
                if _count(deck) * 3 >= high:  # dense: a random position is in the deck 1 time in 3
                    card = _below(rand(), high)
                    while not deck >> card & 1:
                        card = _below(rand(), high)
                else:
                    left = deck
                    for _ in range(_below(rand(), _count(deck))):
                        left &= left - 1
                    card = _lowest(left)
                bit = _ONE << card
                deck ^= bit
                spot = _lowest(low)
                if spot == FACE_UP_SPOT and card == PERICULUM:
                    discard |= bit  # E18: discarded at once, the spot is refilled
                else:
                    table[spot] = card
                    refill ^= low
            elif discard & ~_PERICULUM_BIT == 0:
                refill ^= low  # E12: deck and discard pile empty (a lone Periculum stays): stays empty
            else:
                deck = discard  # E12: the discard pile becomes the deck
                discard = 0
                reshuffles += 1
        elif phase in (TAKE1, TAKE2):
            if table[0] < 0 and table[1] < 0 and table[2] < 0 and table[3] < 0:
                phase = ACT
                continue
            hand = hands[turn]
            spot = _take_choice(table, (hand & GATHERABLE_MASK) | t0 | t1 | t2, rand)
            card = table[spot]
            table[spot] = -1
            phase = TAKE2 if phase == TAKE1 else ACT
            if card == PERICULUM:
                discard |= _PERICULUM_BIT  # E18: shown, discarded, step 2 is lost
                skip_act = True
                continue
            hands[turn] = hand | _ONE << card
            if card >= ELEMENTAL_FIRST:
                master = _master(hands, n)
                won = _winner(n, turn, hands, obj_points, stones, held, master)
        elif phase == ACT:
            if skip_act:
                phase = DISCARD
                continue
            hand = hands[turn]
            choice = _act_choice(hand, hands[(turn + n - 1) % n], last_pile)
            if choice == _NO_MOVE:
                found = _best_gathering(hand & GATHERABLE_MASK, t0, t1, t2, 1.0 if ng_left > 0 else 0.0,
                                        values)
                pattern = found[2]
                if pattern >= 0:  # E6/E7: the cards leave hand and Towers, fill a Tower, payouts queue
                    busy = True
                    used = found[1]
                    tower = found[3]
                    hands[turn] = hand & ~used
                    if hand & used != used:
                        t0 &= ~used
                        t1 &= ~used
                        t2 &= ~used
                    if tower == 0:
                        discard |= t0
                        t0 = used
                    elif tower == 1:
                        discard |= t1
                        t1 = used
                    else:
                        discard |= t2
                        t2 = used
                    pile = -1
                    for k in range(NUM_PILES):
                        if totals[(pattern + k) % NUM_PILES]:
                            pile = (pattern + k) % NUM_PILES
                            break
                    last_pile = pile
                    queued = 1
                    q_seat = turn
                    q_pile = pattern
                    q_kind = WITH_NEW_GATHERING if hand & used == used else PLAIN
                    if proxima >= 0 and proxima != turn:
                        queued = 2
                        q2_seat = proxima
                        q2_pile = pile
                        q2_kind = PROXIMA_PAYOUT
                    phase = OBJECT
                    continue
                choice = _fallback(hand, (deck | discard) != 0)
                if choice == _NO_MOVE:
                    phase = DISCARD  # pass
                    continue
            # E13-E17: the Trick leaves the hand, acts, goes to the discard pile (Proxima stays out)
            busy = True
            bit = _ONE << choice
            hands[turn] = hand ^ bit
            phase = DISCARD
            if choice == PROXIMA:
                proxima = turn
                continue
            discard |= bit
            if choice == IDEM:  # played only once a gathering has happened
                queued = 1
                q_seat = turn
                q_pile = last_pile
                q_kind = PLAIN
                phase = OBJECT
            elif choice == CHAOS:  # every hand passes left
                hands = [hands[(q + n - 1) % n] for q in range(n)]
                master = _master(hands, n)
                won = _winner(n, turn, hands, obj_points, stones, held, master)
                if won < 0 and not any(totals):
                    winners = _on_points(n, hands, obj_points, master)
                    reason = PILES_EMPTY
                    phase = OVER
            else:  # Vademecum
                vade_left = 3
                phase = VADEMECUM_DRAW
        elif phase == DISCARD:
            hand = hands[turn]
            if _count(hand) <= HAND_LIMIT:
                phase = REFILL
                refill = 0
                for i in range(4):
                    if table[i] < 0:
                        refill |= 1 << i
                continue
            card = _discard_choice(hand, (hand & GATHERABLE_MASK) | t0 | t1 | t2, rand)
            bit = _ONE << card
            hands[turn] = hand ^ bit
            discard |= bit
            if card >= ELEMENTAL_FIRST:
                master = _master(hands, n)
        elif phase == OBJECT:
            if not queued:
                phase = DISCARD
                continue
            pile = -1
            for k in range(NUM_PILES):
                if totals[(q_pile + k) % NUM_PILES]:
                    pile = (q_pile + k) % NUM_PILES
                    break
            seat = q_seat
            if pile >= 0:  # E7: the top object of the paying pile (nothing to pay once all are empty)
                r = _below(rand(), totals[pile])
                value = 0
                k = counts[pile * _VALUES]
                while r >= k:
                    r -= k
                    value += 1
                    k = counts[pile * _VALUES + value]
                counts[pile * _VALUES + value] -= 1
                totals[pile] -= 1
                objects[seat].append(pile * 8 + value)
                held[seat] += 1
                obj_points[seat] += value
                if value == STONE:
                    stones[seat] += 1
            if q_kind == WITH_NEW_GATHERING and ng_left > 0:
                ng_left -= 1
                ng[seat] += 1
                held[seat] += 1
                obj_points[seat] += 1
            elif q_kind == PROXIMA_PAYOUT:
                discard |= _PROXIMA_BIT
                proxima = -1
            queued -= 1
            q_seat, q_pile, q_kind = q2_seat, q2_pile, q2_kind
            if not queued:
                phase = DISCARD
            if pile >= 0:
                won = _winner(n, turn, hands, obj_points, stones, held, master)
                if won < 0 and not any(totals):
                    winners = _on_points(n, hands, obj_points, master)
                    reason = PILES_EMPTY
                    phase = OVER
                values = _pattern_values(counts, totals)
        elif phase == VADEMECUM_DRAW:
            if not vade_left:
                phase = DISCARD
            elif deck:
                left = deck
                for _ in range(_below(rand(), _count(deck))):
                    left &= left - 1
                card = _lowest(left)
                bit = _ONE << card
                deck ^= bit
                vade_left -= 1
                if card == PERICULUM:
                    discard |= bit
                    vade_left = 0  # E18: the remaining draws are cancelled
                if not vade_left:
                    phase = DISCARD
                if card != PERICULUM:
                    hands[turn] |= bit
                    if card >= ELEMENTAL_FIRST:
                        master = _master(hands, n)
                        won = _winner(n, turn, hands, obj_points, stones, held, master)
            elif (discard & ~_VADEMECUM_BIT) & ~_PERICULUM_BIT == 0:
                vade_left = 0  # E12: nothing to reshuffle (the lone Periculum stays), no more draws
            else:
                deck = discard & ~_VADEMECUM_BIT  # Vademecum is not reshuffled while it acts
                discard &= _VADEMECUM_BIT
                reshuffles += 1
        elif phase == FIRST:
            turn = _below(rand(), n)
            phase = TAKE1
        if won >= 0:
            winners = (won // 8,)
            reason = won % 8
            phase = OVER
    s.phase = phase
    s.turn = turn
    s.hands = hands
    s.table = table
    s.towers = [t0, t1, t2]
    s.deck = deck
    s.discard = discard
    s.piles = [tuple(counts[q * _VALUES:(q + 1) * _VALUES]) for q in range(NUM_PILES)]
    s.objects = [tuple(codes) for codes in objects]
    s.ng = ng
    s.obj_points = obj_points
    s.stones = stones
    s.ng_left = ng_left
    s.proxima = proxima
    s.master = master
    s.last_pile = last_pile
    s.queue = ((q_seat, q_pile, q_kind), (q2_seat, q2_pile, q2_kind))[:queued]
    s.vade_left = vade_left
    s.refill = refill
    s.skip_act = skip_act
    s.reshuffles = reshuffles
    s.turns = turns
    s.idle = idle
    s.busy = busy
    s.winners = winners
    s.reason = reason


__all__ = ["best_gathering", "pattern_values", "playout", "policy_move"]
