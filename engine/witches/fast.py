"""The search's hot paths: determinization and a tight random playout.

`playout` is distributionally the generic loop of `Game.playout` (uniform legal
moves, uniform chance, a trump decision uniform over keep + each captured card)
but works on plain lists held in local variables, and writes the final state
back at the end.
"""

from __future__ import annotations

import random as _random

from engine.witches.cards import BIT, COLOUR, KEYS, TRUMP_BONUS, cards_of
from engine.witches.rules import returns
from engine.witches.state import DEAL, DECIDE, DRAW, FIRST, OVER, PLAY, REVEAL, WitchesState


def determinize(state: WitchesState, seat: int, rng: _random.Random) -> WitchesState:
    """A copy where the cards `seat` has not seen (other hands ∪ pile) are dealt anew, uniformly."""
    s = state.clone()
    hands = s.hands
    unseen = s.pile
    for other, hand in enumerate(hands):
        if other != seat:
            unseen |= hand
    cards = cards_of(unseen)
    left = len(cards)
    rnd = rng.random
    for other, hand in enumerate(hands):
        if other == seat or not hand:
            continue
        mask = 0
        for _ in range(hand.bit_count()):
            i = int(rnd() * left)
            left -= 1
            mask |= BIT[cards[i]]
            cards[i] = cards[left]
        hands[other] = mask
        unseen ^= mask
    s.pile = unseen
    return s


def playout(s: WitchesState, rng: _random.Random) -> tuple[float, ...]:
    """Play uniformly random moves and chance to the end, in place; return `returns(s)`."""
    phase = s.phase
    if phase == OVER:
        return returns(s)
    rnd = rng.random
    n = s.n
    pile = cards_of(s.pile)
    left = len(pile)
    hands = [cards_of(h) for h in s.hands]
    captured = s.captured
    discard = s.discard
    trump = s.trump
    turn = s.turn
    leader = s.leader
    trick = list(s.trick)
    key_tables = KEYS[s.increasing]
    history: list[tuple[int, tuple[int, ...], int]] = []

    # --- setup chance (W4–W6) and a state caught between tricks (W11, W12) ---
    if phase == DEAL:
        for _ in range(s.pending):
            i = int(rnd() * left)
            left -= 1
            hands[turn].append(pile[i])
            pile[i] = pile[left]
            turn = turn + 1 if turn + 1 < n else 0
        phase = REVEAL
    if phase == REVEAL:
        i = int(rnd() * left)
        left -= 1
        trump = pile[i]
        pile[i] = pile[left]
        phase = FIRST
    if phase == FIRST:
        turn = leader = int(rnd() * n)
        phase = PLAY
    if phase == DECIDE:
        choices = cards_of(s.won)
        r = int(rnd() * (len(choices) + 1))
        if r:
            new = choices[r - 1]
            captured[turn] ^= BIT[new]
            discard |= BIT[trump]
            trump = new
        if left >= n:
            phase = DRAW
            s.pending = n
        else:
            phase = PLAY
    if phase == DRAW:
        for _ in range(s.pending):
            i = int(rnd() * left)
            left -= 1
            hands[turn].append(pile[i])
            pile[i] = pile[left]
            turn = turn + 1 if turn + 1 < n else 0
        turn = leader

    # --- tricks (W7–W13) ---
    while True:
        t = turn
        for _ in range(n - len(trick)):
            hand = hands[t]
            i = int(rnd() * len(hand))
            card = hand[i]
            hand[i] = hand[-1]
            hand.pop()
            trick.append(card)
            t = t + 1 if t + 1 < n else 0
        keys = key_tables[trump]
        led = COLOUR[trick[0]]
        best = -1
        index = 0
        mask = 0
        for i in range(n):
            card = trick[i]
            mask |= BIT[card]
            key = keys[card]
            if key > best and (key >= TRUMP_BONUS or COLOUR[card] == led):
                best = key
                index = i
        winner = leader + index
        if winner >= n:
            winner -= n
        own = BIT[trick[index]]
        captured[winner] |= mask ^ own
        discard |= own
        history.append((leader, tuple(trick), winner))
        leader = turn = winner
        if not hands[winner]:
            break
        # W11: keep, or give up one of the n-1 cards just captured
        r = int(rnd() * n)
        if r:
            new = trick[r - 1 if r - 1 < index else r]
            captured[winner] ^= BIT[new]
            discard |= BIT[trump]
            trump = new
        trick = []
        # W12
        if left >= n:
            t = winner
            for _ in range(n):
                i = int(rnd() * left)
                left -= 1
                hands[t].append(pile[i])
                pile[i] = pile[left]
                t = t + 1 if t + 1 < n else 0

    rest = 0
    for i in range(left):
        rest |= BIT[pile[i]]
    s.pile = rest
    s.hands = [0] * n
    s.discard = discard
    s.trump = trump
    s.turn = s.leader = leader
    s.trick = ()
    s.won = 0
    s.pending = 0
    s.phase = OVER
    s.tricks = s.tricks + tuple(history)
    return returns(s)
