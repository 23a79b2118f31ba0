"""The search's hot path: a tight random playout.

`playout` is distributionally the generic loop of `Game.playout` (uniform legal
moves, uniform chance, a trump decision uniform over keep + each captured card)
but works on plain lists held in local variables, and writes the final state
back at the end.
"""

from __future__ import annotations

import random

from engine.witches.cards import BIT, COLOUR, LED_KEYS, cards_of
from engine.witches.rules import returns
from engine.witches.state import DEAL, DECIDE, DRAW, FIRST, OVER, PLAY, REVEAL, WitchesState

#: SEATS_FROM[n][seat]: the n seats clockwise starting at `seat`
SEATS_FROM: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((seat + i) % n for i in range(n)) for seat in range(n)) for n in range(7)
)


#: FOLLOWERS[n][leader]: the other seats clockwise after `leader`
FOLLOWERS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(seats[1:] for seats in by_seat) for by_seat in SEATS_FROM
)


def playout(s: WitchesState, rng: random.Random) -> tuple[float, ...]:
    """Play uniformly random moves and chance to the end, in place; return `returns(s)`."""
    phase = s.phase
    if phase == OVER:
        return returns(s)
    bits = rng.getrandbits  # `bits(32) * k >> 32`: a uniform index below k, cheaper than int(random() * k)
    n = s.n
    order = SEATS_FROM[n]
    after = FOLLOWERS[n]
    pile = cards_of(s.pile)
    pop = pile.pop
    hands = [cards_of(h) for h in s.hands]
    captured = s.captured
    discard = s.discard
    trump = s.trump
    turn = s.turn
    leader = s.leader
    trick = list(s.trick)
    led_keys = LED_KEYS[s.increasing]
    history: list[tuple[int, tuple[int, ...], int]] = []

    # --- setup chance (W4-W6) and a state caught between tricks (W11, W12) ---
    if phase == DEAL:
        for _ in range(s.pending):
            hands[turn].append(pop(bits(32) * len(pile) >> 32))
            turn = turn + 1 if turn + 1 < n else 0
        phase = REVEAL
    if phase == REVEAL:
        trump = pop(bits(32) * len(pile) >> 32)
        phase = FIRST
    if phase == FIRST:
        turn = leader = bits(32) * n >> 32
        phase = PLAY
    if phase == DECIDE:
        choices = cards_of(s.won)
        r = bits(32) * (len(choices) + 1) >> 32
        if r:
            new = choices[r - 1]
            captured[turn] ^= BIT[new]
            discard |= BIT[trump]
            trump = new
        if len(pile) >= n:
            phase = DRAW
            s.pending = n
    if phase == DRAW:
        for _ in range(s.pending):
            hands[turn].append(pop(bits(32) * len(pile) >> 32))
            turn = turn + 1 if turn + 1 < n else 0

    # --- tricks (W7-W13) ---
    while True:
        if trick:  # only when starting mid-trick
            keys = led_keys[trump][COLOUR[trick[0]]]
            best = -1
            for i, card in enumerate(trick):
                if keys[card] > best:
                    best = keys[card]
                    winner = order[leader][i]
                    wcard = card
            followers = order[leader][len(trick):]
            size = len(hands[followers[0]])
            mask = 0
            for card in trick:
                mask |= BIT[card]
        else:
            hand = hands[leader]
            size = len(hand)
            card = hand.pop(bits(32) * size >> 32)
            trick = [card]
            keys = led_keys[trump][COLOUR[card]]
            best = keys[card]
            winner = leader
            wcard = card
            followers = after[leader]
            mask = BIT[card]
        for seat in followers:
            card = hands[seat].pop(bits(32) * size >> 32)
            trick.append(card)
            mask |= BIT[card]
            if keys[card] > best:
                best = keys[card]
                winner = seat
                wcard = card
        own = BIT[wcard]
        captured[winner] |= mask ^ own  # W10
        discard |= own
        history.append((leader, tuple(trick), winner))
        leader = winner  # W9
        if size == 1:  # W13: hands are empty, that was the last trick
            break
        # W11: keep (when the pick is the winner's own card) or give up a captured card
        card = trick[bits(32) * n >> 32]
        if card != wcard:
            captured[winner] ^= BIT[card]
            discard |= BIT[trump]
            trump = card
        trick = []
        if len(pile) >= n:  # W12
            for seat in order[winner]:
                hands[seat].append(pop(bits(32) * len(pile) >> 32))

    rest = 0
    for card in pile:
        rest |= BIT[card]
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
