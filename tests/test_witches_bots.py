"""The Witches' Wheel for the bots: the simple player (W7, W11) and samples weighted by the plays seen.

Hand-built states and fixed seeds, as in test_witches_rules.py.
"""

from __future__ import annotations

import random

from engine.witches import GAME, Draw, Keep, Play, Trump
from engine.witches.cards import BIT, COLOUR, VALUE, cards_of, parse_card
from engine.witches.policy import policy_move
from engine.witches.state import DECIDE, DRAW, PLAY
from engine.witches.views import determinize, play_weights, trump_history
from tests.test_witches_rules import build, cards, random_game

# --- the simple player ----------------------------------------------------------------


def test_w7_the_simple_player_leads_its_lowest_witch_trumps_last() -> None:
    s = build(["green-1 red-2 blue-7 violet-9 orange-3 yellow-4", "red-1"], "green-5")
    assert policy_move(s) == Play.of("red-2")


def test_w8_the_simple_player_wins_with_its_weakest_winning_card() -> None:
    # decreasing, wheel 5 (5 > 4 > 3 > … > 9): red-4 and red-3 beat red-9, red-3 is the weaker
    s = build(["violet-1", "red-4 red-3 green-2 blue-1"], "green-5", turn=1, leader=0, trick="red-9")
    assert policy_move(s) == Play.of("red-3")


def test_w8_the_simple_player_trumps_only_for_a_rich_trick() -> None:
    poor = build(["violet-1", "green-2 blue-6 violet-3"], "green-5", turn=1, leader=0, trick="red-1")
    assert policy_move(poor) == Play.of("violet-3")  # one point on the table: throw the cheapest witch
    rich = build(["violet-1", "green-2 blue-6 violet-3"], "green-5", turn=1, leader=0, trick="red-8")
    assert policy_move(rich) == Play.of("green-2")


def test_w11_the_simple_player_gives_up_a_cheap_witch_of_its_main_colour() -> None:
    s = build(["blue-4 blue-6 blue-8 red-9", "red-1 red-2 red-3 red-4"], "green-5", phase=DECIDE,
              captured=["blue-2 orange-9", ""])
    s.won = BIT[parse_card("blue-2")] | BIT[parse_card("orange-9")]
    assert policy_move(s) == Trump.of("blue-2")
    s.hands[0] = sum(BIT[c] for c in cards("green-4 blue-6 blue-8 red-9"))
    s.pile ^= BIT[parse_card("blue-4")] | BIT[parse_card("green-4")]
    assert policy_move(s) == Keep()  # blue is not clearly better than green any more


def test_the_simple_player_plays_legal_moves_and_joins_the_ladder() -> None:
    rng = random.Random(5)
    for seed in range(4):
        for state, move in random_game(2 + seed, seed):
            if move is None or GAME.current_player(state) < 0:
                continue
            suggested = policy_move(state)
            assert suggested in GAME.legal_moves(state)
            assert GAME.named_policies()["simple"](state, rng) == suggested


# --- samples weighted by the plays seen ---------------------------------------------------


def trick_lost_cheaply() -> tuple:
    """2 players, trump green-5 (decreasing), one draw round played.

    Seat 0 led red-9 (9 points) and seat 1 let it go with orange-1: with a
    green (a trump) or red-1 … red-5 it would have taken 9 points, so those
    are less likely in its hand. Seat 0 is to lead again.
    """
    s = build(["red-6 blue-2 blue-3 violet-4 yellow-5 orange-6", "blue-4"], "green-5",
              captured=["orange-1", ""], discard="red-9")
    seen = s.hands[0] | s.captured[0] | s.discard | BIT[s.trump]
    unseen = cards_of(((1 << 54) - 1) ^ seen)
    s.hands[1] = sum(BIT[c] for c in unseen[:6])
    s.pile ^= s.hands[1]
    s.tricks = ((0, (parse_card("red-9"), parse_card("orange-1")), 0),)
    winning = {c for c in unseen if COLOUR[c] == COLOUR[s.trump]
               or (COLOUR[c] == COLOUR[parse_card("red-9")] and VALUE[c] <= 5)}
    return s, winning


def test_weights_make_the_cards_a_seat_would_have_played_less_likely() -> None:
    s, winning = trick_lost_cheaply()
    weights = play_weights(s, 0)
    assert weights is not None
    assert all(weights[1][c] < 0.5 for c in winning)
    assert weights[1][parse_card("violet-9")] > 1.0  # a witch it would rather not have given away
    assert play_weights(s, 1) is None  # seat 0 only led: a lead is not used


def test_samples_reflect_the_weights_and_keep_what_is_known() -> None:
    s, winning = trick_lost_cheaply()
    rng = random.Random(3)
    counts = {True: 0, False: 0}
    for weighted in (True, False):
        for _ in range(2000):
            d = determinize(s, 0, rng, weighted=weighted)
            assert d.hands[0] == s.hands[0] and d.hands[1].bit_count() == 6
            assert d.hands[1] | d.pile == s.hands[1] | s.pile and not d.hands[1] & d.pile
            counts[weighted] += sum(1 for c in cards_of(d.hands[1]) if c in winning)
    assert counts[True] < 0.6 * counts[False]


def test_without_plays_to_weigh_the_sample_is_the_uniform_one() -> None:
    s = build(["red-6 blue-2", "blue-4 red-1"], "green-5")
    for seed in range(5):
        a = determinize(s, 0, random.Random(seed))
        b = determinize(s, 0, random.Random(seed), weighted=False)
        assert a.hands == b.hands and a.pile == b.pile


def test_w11_trump_history_follows_the_given_up_witches() -> None:
    s = build(["red-9 red-8", "blue-2 blue-3"], "green-5")
    s = GAME.apply(s, Play.of("red-9"))
    s = GAME.apply(s, Play.of("blue-2"))
    s = GAME.apply(s, Trump.of("blue-2"))
    assert s.phase == DRAW
    s = GAME.apply(s, Draw.of("yellow-1"))
    s = GAME.apply(s, Draw.of("yellow-2"))
    assert s.phase == PLAY and trump_history(s) == [parse_card("green-5"), parse_card("blue-2")]
    s = GAME.apply(s, Play.of("red-8"))
    s = GAME.apply(s, Play.of("blue-3"))  # a trump now: seat 1 takes red-8 and keeps the trump
    s = GAME.apply(s, Keep())
    assert trump_history(s) == [parse_card("green-5"), parse_card("blue-2"), parse_card("blue-2")]
