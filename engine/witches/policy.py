"""A simple hand-written Witches' Wheel player: a baseline on the ladder (`WitchesGame.named_policies`).

When leading (W7) it plays its lowest-valued witch, trumps last, so a lost trick
gives little away. When following, it wins the trick with its weakest winning
card if the witches on the table are worth it (or if it can win without a
trump); otherwise it throws its lowest-valued witch. After a won trick (W11) it
gives up a cheap captured card to make trump the colour it holds most of, when
that colour is clearly better than the present trump.

It beat `easy` 0.660 of 100 games while the search's playouts were uniform; since they keep
the trump, easy beats it 0.700 (ladder). As the search's first expansion
(`Game.heuristic_move`) it did not pay: medium with it against medium without
won 0.507 (0.439-0.576) of 200 games, easy 0.500 of 200; so the search does not use it.
"""

from __future__ import annotations

import random

from engine.witches.cards import COLOUR, KEYS, LED_KEYS, TRUMP_BONUS, VALUE, cards_of
from engine.witches.moves import KEEP, PLAYS, TRUMPS, WitchesMove
from engine.witches.state import DECIDE, PLAY, WitchesState

#: Follow with a trump only when the witches already on the table are worth at least this much.
TRUMP_STAKE = 4
#: Give up a captured witch for the trump only when worth at most this much...
GIVE_UP_VALUE = 3
#: ...and when the hand holds at least this many more cards of its colour than of the trump's.
COLOUR_GAIN = 2


def policy_move(s: WitchesState, rng: random.Random | None = None) -> WitchesMove:
    """The simple player's move for the seat to act (a play or a trump decision)."""
    if s.phase == DECIDE:
        return _trump_decision(s)
    if s.phase != PLAY:
        raise ValueError(f"no player move in {s!r}")
    hand = cards_of(s.hands[s.turn])
    keys = KEYS[s.increasing][s.trump]
    trick = s.trick
    if not trick:
        return PLAYS[min(hand, key=lambda c: (keys[c] >= TRUMP_BONUS, VALUE[c], keys[c]))]
    led = LED_KEYS[s.increasing][s.trump][COLOUR[trick[0]]]
    best = max(led[c] for c in trick)
    winning = [c for c in hand if led[c] > best]
    if winning:
        card = min(winning, key=lambda c: led[c])
        if led[card] < TRUMP_BONUS or sum(VALUE[c] for c in trick) >= TRUMP_STAKE:
            return PLAYS[card]
    return PLAYS[min(hand, key=lambda c: (keys[c] >= TRUMP_BONUS, VALUE[c], keys[c]))]


def _trump_decision(s: WitchesState) -> WitchesMove:
    """W11: keep, or give up a cheap captured witch whose colour the hand holds clearly more of."""
    card = trump_choice(s.hands[s.turn], s.trump, s.won)
    return KEEP if card < 0 else TRUMPS[card]


def trump_choice(hand: int, trump: int, won: int) -> int:
    """The simple player's trump decision (W11) with `hand` (a card mask) after winning the cards of
    `won` (a mask) under the trump card `trump`: the card to give up, or -1 to keep."""
    colours = [COLOUR[c] for c in cards_of(hand)]
    now = colours.count(COLOUR[trump])
    best = None
    for card in cards_of(won):
        if VALUE[card] > GIVE_UP_VALUE:
            continue
        gain = colours.count(COLOUR[card]) - now
        if gain >= COLOUR_GAIN and (best is None or (gain, -VALUE[card]) > best[0]):
            best = ((gain, -VALUE[card]), card)
    return -1 if best is None else best[1]

