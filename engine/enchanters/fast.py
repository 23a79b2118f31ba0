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

The Trick rules were kept because they won head-to-head against the plain
greedy player in 2-player policy-only games (Chaos rule 55%, Idem first 52-54%,
1,000-2,000 games); eager Proxima made no difference.
"""

from __future__ import annotations

import random
from typing import Any

from engine.enchanters.cards import (
    AIR_FIRST,
    AIR_MASK,
    CHAOS,
    ELEMENTAL_FIRST,
    ELEMENTAL_MASK,
    ENCHANTER_MASK,
    EXODUS,
    GATHERABLE_MASK,
    IDEM,
    NUM_ENCHANTERS,
    NUM_PILES,
    PROXIMA,
    VADEMECUM,
)
from engine.enchanters.moves import (
    DISCARDS,
    NUM_TOWERS,
    PASS,
    TAKES,
    EnchantersMove,
    Gather,
    Pass,
    PlayTrick,
)
from engine.enchanters.rules import (
    _PROXIMA_BIT,
    _VADEMECUM_BIT,
    _discard,
    _draw,
    _gather,
    _object,
    _take,
    _trick,
    advance,
)
from engine.enchanters.sets import _THREE_AIRS, _TWO_AIRS, COMPLETE, PAIR_PATTERN
from engine.enchanters.state import (
    ACT,
    DISCARD,
    FACE_UP_SPOT,
    FIRST,
    OBJECT,
    OVER,
    REFILL,
    TAKE1,
    TAKE2,
    VADEMECUM_DRAW,
    EnchantersState,
)

#: What each hand card used in a gathering costs, in points (cards are the means of the next one).
HAND_CARD_COST = 0.25  # at least 1/4: an Air gathering then scores at most its pile value (pruning)
#: Discard order: lower first (Elementals score, keep them).
_USELESS_TRICKS = (1 << CHAOS) | (1 << EXODUS)
_GOOD_TRICKS = (1 << PROXIMA) | (1 << IDEM) | (1 << VADEMECUM)
_IDEM_BIT = 1 << IDEM
_IDEM_TRICK = PlayTrick(IDEM)
_VADEMECUM_TRICK = PlayTrick(VADEMECUM)
_PROXIMA_TRICK = PlayTrick(PROXIMA)
_CHAOS_BIT = 1 << CHAOS
_CHAOS_TRICK = PlayTrick(CHAOS)
_EMPTY_TABLE = [-1, -1, -1, -1]


def _pairs() -> list[tuple[tuple[int, int, int, int], ...]]:
    """Per Enchanter i: its 13 gatherings with two other Enchanters, as (mask of j and k, pattern, j, k), j < k."""
    out = []
    for i in range(NUM_ENCHANTERS):
        row = []
        for j in range(NUM_ENCHANTERS):
            k = COMPLETE[i][j]
            if j != i and j < k:
                row.append(((1 << j) | (1 << k), PAIR_PATTERN[i][j], j, k))
        out.append(tuple(row))
    return out


#: GATHER_PAIRS[i]: ((mask of the two others, pattern, j, k), ...) for the 13 gatherings of i.
GATHER_PAIRS = _pairs()
#: ASPECT_MASK[a]: the nine Enchanters of aspect a.
ASPECT_MASK = tuple(sum(1 << (a * 9 + r) for r in range(9)) for a in range(3))


def _air_partners(later_only: bool) -> list[tuple[int, int, int]]:
    """Per Enchanter i and aspect a, the mask of the j whose gathering with i needs an Enchanter of
    aspect a (an Air Enchanter of aspect a stands in for it)."""
    out = []
    for i in range(NUM_ENCHANTERS):
        per_aspect = [0, 0, 0]
        for j in range(NUM_ENCHANTERS):
            if j != i and (j > i or not later_only):
                per_aspect[COMPLETE[i][j] // 9] |= 1 << j
        out.append((per_aspect[0], per_aspect[1], per_aspect[2]))
    return out


#: AIR_PARTNERS[i][a]: every such j; AIR_PARTNERS_LATER[i][a]: only j > i (each pair once).
AIR_PARTNERS = _air_partners(False)
AIR_PARTNERS_LATER = _air_partners(True)
_PILE_MEAN: dict[tuple[int, ...], float] = {}


def _mean(counts: tuple[int, ...]) -> float:
    mean = _PILE_MEAN.get(counts)
    if mean is None:
        total = sum(counts)
        mean = _PILE_MEAN[counts] = sum(v * k for v, k in enumerate(counts)) / total if total else -1.0
    return mean


def pattern_values(s: EnchantersState) -> list[float]:
    """Per pattern A..G, the mean value of the object it would pay now (E7's fallback included)."""
    means = [_mean(p) for p in s.piles]
    if min(means) >= 0:
        return means
    out = []
    for q in range(NUM_PILES):
        for k in range(NUM_PILES):
            m = means[(q + k) % NUM_PILES]
            if m >= 0:
                out.append(m)
                break
        else:
            out.append(0.0)
    return out


def _completes(card: int, avail: int) -> bool:
    """Whether `card` (coming into the hand) gathers with two cards of `avail` (hand and Towers)."""
    if card < NUM_ENCHANTERS:
        for m, _, _, _ in GATHER_PAIRS[card]:
            if avail & m == m:
                return True
        airs = avail & AIR_MASK
        if airs:
            a = card // 9
            bit = 1 << card
            for w in range(3):
                if airs >> (AIR_FIRST + w) & 1:
                    # card, Air w and any Enchanter of the third aspect (or of card's aspect if w's is too)
                    if avail & ASPECT_MASK[-(a + w) % 3] & ~bit:
                        return True
                    other = -(a + w) % 3  # two Airs of the other aspects gather with card
                    if other != w and airs >> (AIR_FIRST + other) & 1:
                        return True
        return False
    return AIR_FIRST <= card < AIR_FIRST + 3 or card >= ELEMENTAL_FIRST or card == IDEM


def best_gathering(s: EnchantersState, values: list[float]) -> tuple[float, Any]:
    """The gathering the policy likes best now and its score, or (-1e9, None) when there is none.

    The gathering is (cards, declarations, tower, pattern), ready for `rules._gather`.
    """
    seat = s.turn
    hand = s.hands[seat] & GATHERABLE_MASK
    towers = s.towers
    in_towers = towers[0] | towers[1] | towers[2]
    avail = hand | in_towers
    bonus = 1.0 if s.ng_left > 0 else 0.0
    best_score = -1e9
    best = None
    regs = hand & ENCHANTER_MASK
    while regs:
        low = regs & -regs
        regs ^= low
        i = low.bit_length() - 1
        for m, pattern, j, k in GATHER_PAIRS[i]:
            if avail & m == m:
                if hand & m == m:
                    score = values[pattern] - 3 * HAND_CARD_COST + bonus
                else:
                    score = values[pattern] - HAND_CARD_COST * (1 + (hand & m).bit_count())
                if score > best_score:
                    best_score = score
                    best = ((i, j, k) if i < j else (j, i, k) if i < k else (j, k, i), (), m | low, pattern)
    airs = avail & AIR_MASK
    if airs:
        best_score, best = _best_with_airs(hand, avail, airs, values, bonus, best_score, best)
    if best is None:
        return best_score, None
    cards, decl, used, pattern = best
    # into the Tower whose old cards are most worth discarding: every card left in the Towers is
    # there for the next player's gatherings too (+2 points against random in policy-only games)
    tower = 0
    most = -1
    for t in range(NUM_TOWERS):
        left = (towers[t] & ~used).bit_count()
        if left > most:
            most = left
            tower = t
    return best_score, (cards, decl, tower, pattern)


def _best_with_airs(
    hand: int, avail: int, airs: int, values: list[float], bonus: float, best_score: float, best: Any
) -> tuple[float, Any]:
    """Improve on the best gathering with those using Air Enchanters (E1: declared to fit).

    Using an Air Enchanter costs one hand card more: it is the most flexible card.
    """
    regs_avail = avail & ENCHANTER_MASK
    cost = HAND_CARD_COST
    for a in range(3):
        w = AIR_FIRST + a
        wbit = 1 << w
        if not airs & wbit:
            continue
        w_in_hand = hand & wbit
        # one Air with two Enchanters i < j: from the hand, at least one of the three
        regs = regs_avail if w_in_hand else hand & ENCHANTER_MASK
        partners = AIR_PARTNERS_LATER if w_in_hand else AIR_PARTNERS
        while regs:
            low = regs & -regs
            regs ^= low
            i = low.bit_length() - 1
            found = regs_avail & partners[i][a]
            row = PAIR_PATTERN[i]
            while found:
                jbit = found & -found
                found ^= jbit
                j = jbit.bit_length() - 1
                pattern = row[j]
                if values[pattern] <= best_score:
                    continue  # an Air gathering scores at most its pile's value
                used = low | jbit | wbit
                mine = (hand & used).bit_count()
                score = values[pattern] - cost * (1 + mine) + (bonus if mine == 3 else 0.0)
                if score > best_score:
                    best_score = score
                    k = COMPLETE[i][j]
                    best = ((i, j, w) if i < j else (j, i, w), ((w, k // 3 % 3, k % 3),), used, pattern)
    if (airs & (airs - 1)) == 0:
        return best_score, best
    # two Airs with one Enchanter of the remaining aspect, declared for the best of the four patterns
    for a1 in range(3):
        w1 = AIR_FIRST + a1
        if not airs >> w1 & 1:
            continue
        for a2 in range(a1 + 1, 3):
            w2 = AIR_FIRST + a2
            if not airs >> w2 & 1:
                continue
            pair = (1 << w1) | (1 << w2)
            regs = avail & ASPECT_MASK[3 - a1 - a2] if hand & pair else hand & ASPECT_MASK[3 - a1 - a2]
            while regs:
                low = regs & -regs
                regs ^= low
                r = low.bit_length() - 1
                used = pair | low
                mine = (hand & used).bit_count()
                base = cost * (1 + mine) - (bonus if mine == 3 else 0.0)
                for decl, pattern in _TWO_AIRS[w1, w2, r // 3 % 3, r % 3]:
                    score = values[pattern] - base
                    if score > best_score:
                        best_score = score
                        best = ((r, w1, w2), decl, used, pattern)
    if airs == AIR_MASK and hand & AIR_MASK:
        mine = (hand & AIR_MASK).bit_count()
        base = cost * (1 + mine) - (bonus if mine == 3 else 0.0)
        for decl, pattern in _THREE_AIRS:
            score = values[pattern] - base
            if score > best_score:
                best_score = score
                best = ((AIR_FIRST, AIR_FIRST + 1, AIR_FIRST + 2), decl, AIR_MASK, pattern)
    return best_score, best


def act_move(s: EnchantersState, values: list[float]) -> Any:
    """Step 2 (E10): Chaos to grab Elementals, Idem when it pays, else the best gathering (as
    `best_gathering` gives it), else Vademecum or Proxima, else PASS."""
    seat = s.turn
    hand = s.hands[seat]
    if hand & _CHAOS_BIT:
        mine = (hand & ELEMENTAL_MASK).bit_count()
        theirs = (s.hands[seat - 1] & ELEMENTAL_MASK).bit_count()  # Chaos brings the right hand
        if theirs - mine >= 2 or (theirs >= 3 > mine):
            return _CHAOS_TRICK
    if hand & _IDEM_BIT and s.last_pile >= 0:
        return _IDEM_TRICK  # an object for no card: the gathering can wait a turn
    _, gather = best_gathering(s, values)
    if gather is not None:
        return gather
    if hand & _VADEMECUM_BIT and s.deck | s.discard:
        return _VADEMECUM_TRICK
    if hand & _PROXIMA_BIT:
        return _PROXIMA_TRICK
    return PASS


def discard_card(s: EnchantersState, rng: random.Random) -> int:
    """Step 3 (E11): the card the policy gives up first."""
    hand = s.hands[s.turn]
    pick = hand & _USELESS_TRICKS
    if not pick:
        regs = hand & ENCHANTER_MASK
        if regs:
            towers = s.towers
            avail = (hand & GATHERABLE_MASK) | towers[0] | towers[1] | towers[2]
            fewest = 99
            pick = 0
            while regs:
                low = regs & -regs
                regs ^= low
                partners = 0
                for m, _, _, _ in GATHER_PAIRS[low.bit_length() - 1]:
                    if avail & m:
                        partners += 1
                if partners < fewest:
                    fewest = partners
                    pick = low
                elif partners == fewest:
                    pick |= low
        else:
            pick = hand & _GOOD_TRICKS or hand & AIR_MASK or hand
    count = pick.bit_count()
    if count > 1:
        for _ in range(int(rng.random() * count)):
            pick &= pick - 1
    return (pick & -pick).bit_length() - 1


def take_spot(s: EnchantersState, rng: random.Random) -> int:
    """Step 1 (E9): the face-up card when it helps, else a random face-down card."""
    table = s.table
    up = table[FACE_UP_SPOT]
    if up >= 0:
        towers = s.towers
        if _completes(up, (s.hands[s.turn] & GATHERABLE_MASK) | towers[0] | towers[1] | towers[2]):
            return FACE_UP_SPOT
    a, b, c = table[0] >= 0, table[1] >= 0, table[2] >= 0
    count = a + b + c
    if not count:
        return FACE_UP_SPOT
    r = int(rng.random() * count) if count > 1 else 0
    for spot, full in ((0, a), (1, b), (2, c)):
        if full:
            if not r:
                return spot
            r -= 1
    return FACE_UP_SPOT  # unreachable


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


def playout(s: EnchantersState, rng: random.Random) -> None:
    """Play the policy and sampled chance to the end of the game, in place.

    `rules.advance` is called only when a step may have left automatic work (see its cases).
    """
    rand = rng.random
    values = pattern_values(s)
    while True:
        phase = s.phase
        if phase == OVER:
            return
        if phase == REFILL:
            deck = s.deck
            high = deck.bit_length()
            if deck.bit_count() * 3 >= high:  # dense: a random position is in the deck 1 time in 3
                card = int(rand() * high)
                while not deck >> card & 1:
                    card = int(rand() * high)
            else:
                for _ in range(int(rand() * deck.bit_count())):
                    deck &= deck - 1
                card = (deck & -deck).bit_length() - 1
            _draw(s, card)
            if s.refill and s.deck:
                continue  # the next spot is refilled from the deck
        elif phase in (TAKE1, TAKE2):
            _take(s, take_spot(s, rng))
            if not s.skip_act and s.phase != OVER and (s.phase == ACT or s.table != _EMPTY_TABLE):
                continue  # the next decision is this player's again
        elif phase == ACT:
            move = act_move(s, values)
            kind = move[-1]
            if kind == "trick":
                _trick(s, move[0], move[1])
            elif kind == "pass":
                s.phase = DISCARD
            else:
                _gather(s, move[0], move[2], move[1], move[3])
        elif phase == DISCARD:
            _discard(s, discard_card(s, rng))
        elif phase == OBJECT:
            queue_pile = s.queue[0][1]
            piles = s.piles
            for k in range(NUM_PILES):
                counts = piles[(queue_pile + k) % NUM_PILES]
                total = sum(counts)
                if total:
                    break
            r = int(rand() * total)
            value = 0
            while r >= counts[value]:
                r -= counts[value]
                value += 1
            _object(s, value)
            values = pattern_values(s)
        elif phase == VADEMECUM_DRAW:
            deck = s.deck
            r = int(rand() * deck.bit_count())
            for _ in range(r):
                deck &= deck - 1
            _draw(s, (deck & -deck).bit_length() - 1)
        elif phase == FIRST:
            s.turn = int(rand() * s.n)
            s.phase = TAKE1
        if s.phase != OVER:
            advance(s)


__all__ = ["best_gathering", "pattern_values", "playout", "policy_move"]
