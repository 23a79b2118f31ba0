"""A learned evaluation of a two-player trick start of The Witches' Wheel: seat 0's expected reward.

The search's playout may stop a few tricks in and return this instead of playing on
(`WitchesGame.search_playout("eval")`). It reads a full state (a sampled deal: both hands and the
pile) at the start of a trick, a seat to lead and the draws done, and returns the search's rewards
(`rules.returns`: 0.9·win + 0.1·share of the points) as a logistic model over hand-made features.

Every feature is seat 0's minus seat 1's (or a sign for who leads), and the model has no constant:
swapping the seats negates the sum, so the two rewards add up to 1 as a decided game's do. The
weights (`evaluation_weights.WEIGHTS`) were fitted to positions of games between decent bots,
labelled with each game's final reward (`ai.witches_eval`), not with playouts.
"""

from __future__ import annotations

import math

from engine.witches.cards import COLOUR, KEYS, TRUMP_BONUS, VALUE, cards_of, score_of
from engine.witches.evaluation_weights import WEIGHTS
from engine.witches.state import WitchesState

#: the features' names, in `features`' order (the weights file lists one weight each)
FEATURES: tuple[str, ...] = (
    "margin",            # captured points, seat 0 minus seat 1, / 10
    "margin_late",       # the same, over the points still out (hands and pile) / 10 + 1
    "margin_spread",     # the same, over the square root of that
    "margin_last",       # margin, times lateness squared (0 at the deal, 1 at the last trick)
    "leads",             # +1 when seat 0 leads, -1 otherwise
    "leads_late",        # the same, times how far the hand is (0 at the deal, 1 at the last trick)
    "trumps",            # trumps in hand
    "trump_strength",    # summed strength of the trumps in hand, by the wheel (1..9 each) / 9
    "top_trumps",        # trumps among the three strongest
    "high_plain",        # non-trumps among the two strongest of their colour
    "trump_value",       # summed values of the trumps in hand / 10
    "plain_value",       # summed values of the other cards in hand / 10
    "longest_colour",    # cards of the hand's longest non-trump colour
    "captured_cards",    # captured cards / 10 (W14's tie-break)
    "trumps_late",       # trumps in hand, times lateness
    "trump_strength_late",
    "top_trumps_late",
    "high_plain_late",
    "trump_value_late",
    "plain_value_late",
)
#: Cards in play at the deal of a two-player game: the hands and the pile (54 less the trump card)
_IN_PLAY = 53


def _hand(hand: int, keys: tuple[int, ...]) -> tuple[int, int, int, int, int, int, int]:
    """A hand's trumps, their strength, top trumps, high plain cards, longest plain colour, and the
    values of its trumps and of its other cards."""
    trumps = strength = top = high = trump_value = plain_value = 0
    lengths = [0] * 6
    for card in cards_of(hand):
        key = keys[card]
        if key >= TRUMP_BONUS:
            trumps += 1
            strength += key - TRUMP_BONUS + 1
            top += key >= TRUMP_BONUS + 6
            trump_value += VALUE[card]
        else:
            high += key >= 7
            lengths[COLOUR[card]] += 1
            plain_value += VALUE[card]
    return trumps, strength, top, high, max(lengths), trump_value, plain_value


def features(s: WitchesState) -> list[float]:
    """Seat 0's features of the two-player trick start `s` (`FEATURES`), read from `s` alone."""
    keys = KEYS[s.increasing][s.trump]
    a = _hand(s.hands[0], keys)
    b = _hand(s.hands[1], keys)
    rest = s.hands[0] | s.hands[1] | s.pile
    late = 1.0 - rest.bit_count() / _IN_PLAY
    margin = (score_of(s.captured[0]) - score_of(s.captured[1])) / 10
    out = score_of(rest) / 10
    leads = 1.0 if s.leader == 0 else -1.0
    trumps, strength, top, high = a[0] - b[0], (a[1] - b[1]) / 9, a[2] - b[2], a[3] - b[3]
    trump_value, plain_value = (a[5] - b[5]) / 10, (a[6] - b[6]) / 10
    return [
        margin, margin / (out + 1), margin / math.sqrt(out + 1), margin * late * late, leads,
        leads * late, trumps, strength, top, high, trump_value, plain_value, a[4] - b[4],
        (s.captured[0].bit_count() - s.captured[1].bit_count()) / 10,
        trumps * late, strength * late, top * late, high * late, trump_value * late, plain_value * late,
    ]


def evaluate(s: WitchesState, weights: tuple[float, ...] = WEIGHTS) -> tuple[float, float]:
    """Both seats' expected rewards (in [0, 1], adding up to 1) at the two-player trick start `s`."""
    total = sum(w * x for w, x in zip(weights, features(s), strict=True))
    if total < -40.0:  # exp overflows far beyond any weight the fit gives; the value is 0 there
        return 0.0, 1.0
    p = 1.0 / (1.0 + math.exp(-total))
    return p, 1.0 - p
