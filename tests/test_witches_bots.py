"""The Witches' Wheel for the bots: the simple hand-written player (W7, W8, W11), a ladder baseline.

Hand-built states and fixed seeds, as in test_witches_rules.py.
"""

from __future__ import annotations

import random

from ai.levels import get_level
from engine.witches import GAME, Keep, Play, Trump
from engine.witches.cards import BIT, parse_card
from engine.witches.policy import policy_move
from engine.witches.state import DECIDE, WitchesState
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


# --- the clairvoyant measurement (tests/witches_opponents.py) ----------------------------


def test_the_clairvoyant_search_samples_the_true_deal_where_hard_redeals_it() -> None:
    from tests.witches_opponents import SeeingWitches, clairvoyant_hard

    s = build(["green-1 red-2 blue-7", "red-1 violet-8 orange-6"], "green-5")
    rng = random.Random(7)
    redealt = [GAME.determinize(s, 0, rng).hands[1] for _ in range(20)]
    assert any(hand != s.hands[1] for hand in redealt)  # hard's samples redeal the hidden hand
    seen = SeeingWitches().determinizer(s, 0)
    assert all(seen(rng).hands == s.hands for _ in range(20))
    # and so does the sampler hard's level names (its inferred deals are drawn by the game, not `determinize`)
    sampling = get_level("hard", "witches").sampling
    assert sampling
    seen = SeeingWitches().search_determinizer(s, 0, sampling)
    assert all(seen(rng).hands == s.hands for _ in range(20))
    assert clairvoyant_hard(GAME, s, 0, random.Random(1)) in GAME.legal_moves(s)


def test_a_partly_seeing_search_samples_the_true_deal_at_its_share() -> None:
    from tests.witches_opponents import PartlySeeing, _PartlySeeingWitches

    s = build(["green-1 red-2 blue-7", "red-1 violet-8 orange-6"], "green-5")
    sampling = get_level("hard", "witches").sampling
    rng = random.Random(4)
    for share, low, high in ((0.0, 0, 0), (0.5, 60, 140), (1.0, 200, 200)):
        draw = _PartlySeeingWitches(share).search_determinizer(s, 0, sampling)
        true = sum(draw(rng).hands == s.hands for _ in range(200))
        assert low <= true <= high
    assert PartlySeeing(0.5)(GAME, s, 0, random.Random(1)) in GAME.legal_moves(s)


def test_clairvoyant_regrets_replay_the_match_game_and_judge_each_real_choice() -> None:
    from ai.arena import _play_one
    from ai.levels import Level
    from tests.witches_opponents import clairvoyant_regrets, strong_player

    cheap = Level("cheap", 60, 0.0, "", exact=True, sampling="inferred:search")
    score, choices = clairvoyant_regrets("regrets", 1, cheap, simulations=60)
    played = _play_one((GAME, cheap, strong_player, 2, None, "regrets:1", 1))  # as play_match plays it
    assert score == played.score_a
    assert 0 < len(choices) <= played.moves_a
    assert {choice.kind for choice in choices} <= {"lead", "follow", "decide"}
    assert "lead" in {choice.kind for choice in choices}
    assert all(0.0 <= c.chosen <= 1.0 and 0.0 <= c.best <= 1.0 for c in choices)
    assert all(c.chosen == c.best for c in choices if c.same)


def test_clairvoyant_in_a_range_of_tricks_searches_the_true_deal_there_only() -> None:
    from ai.levels import Level
    from tests.witches_opponents import ClairvoyantIn, SeeingWitches

    states: dict[int, WitchesState] = {}
    for state, _ in random_game(2, 3):
        if GAME.current_player(state) >= 0:
            states.setdefault(len(state.tricks), state)  # the first decision after k tricks
    sees = ClairvoyantIn(8, 12)
    assert sees.searched(GAME, states[7]) is GAME
    assert isinstance(sees.searched(GAME, states[8]), SeeingWitches)
    assert isinstance(sees.searched(GAME, states[11]), SeeingWitches)
    assert sees.searched(GAME, states[12]) is GAME
    cheap = Level("cheap", 60, 0.0, "", exact=True, sampling="inferred:search")
    state = states[9]
    seat = GAME.current_player(state)
    assert ClairvoyantIn(0, 99, cheap)(GAME, state, seat, random.Random(3)) in GAME.legal_moves(state)


# --- knowing the strong player's rules, not its cards (tests/witches_opponents.py) ---------------


def test_w7_rule_histories_count_the_draws_that_leave_the_strong_players_lead_its_cheapest() -> None:
    from engine.witches.inference import Decision
    from tests.witches_opponents import rule_histories

    # seat 1 led red-5, its cheapest plain witch, then drew: which card of its hand now came last?
    led = Decision("play", 0, parse_card("green-5"), (), parse_card("red-5"), False)
    events = [("play", led), ("draw", None)]
    dearer = "red-6 blue-7 violet-8 orange-9 yellow-6 blue-9"

    def histories(hand: str) -> int:
        return rule_histories(events, sum(BIT[c] for c in cards(hand)), False, {})

    assert histories(dearer) == 6  # any of the six may have been drawn: red-5 was the cheapest
    assert histories("red-1 " + dearer[6:]) == 1  # only if red-1 came after the lead
    assert histories("red-1 blue-2 " + dearer[13:]) == 0  # one of them was in hand at the lead
    assert histories("green-1 " + dearer[6:]) == 6  # a trump is led last, so green-1 may be old


def test_the_strong_players_true_hand_always_fits_its_rules() -> None:
    from ai.arena import play_game
    from ai.levels import Level
    from engine.registry import get_game
    from tests.witches_opponents import (
        KnowingWitches,
        exploiting_hard,
        knowing_hard,
        rule_events,
        rule_histories,
        strong_player,
    )

    cheap = Level("cheap", 60, 0.0, "", exact=True)
    seen: list[WitchesState] = []
    game = get_game("witches")
    play_game(game, [cheap, strong_player], "knowing:1", on_state=lambda s: seen.append(s.clone()))
    checked = 0
    for state in seen:
        if game.current_player(state) == 0 and rule_events(state, 0):
            assert rule_histories(rule_events(state, 0), state.hands[1], state.increasing, {}) > 0
            checked += 1
    assert checked > 20
    # the samples fit too: the other hand of each is one its rules allow
    state = next(s for s in seen if game.current_player(s) == 0 and len(s.tricks) == 10)
    draw = KnowingWitches().search_determinizer(state, 0, "")
    events = rule_events(state, 0)
    rng = random.Random(2)
    hands = [draw(rng).hands[1] for _ in range(30)]
    assert all(rule_histories(events, hand, state.increasing, {}) > 0 for hand in hands)
    assert len(set(hands)) > 1  # a belief, not the true hand
    assert all(hand & state.hands[0] == 0 for hand in hands)
    for policy in (knowing_hard, exploiting_hard):
        assert policy(game, state, 0, random.Random(3)) in game.legal_moves(state)


def test_the_exploiting_tree_lets_the_other_seat_make_only_the_strong_players_move() -> None:
    from tests.witches_opponents import ExploitingWitches, strong_play

    s = build(["violet-1 blue-2", "red-4 red-3 green-2 blue-1"], "green-5", turn=1, leader=0, trick="red-9")
    exploiting = ExploitingWitches()
    exploiting.searcher = 0
    assert exploiting.legal_moves(s) == [Play(strong_play(s.hands[1], s.trick, s.trump, False, 2))]
    exploiting.searcher = 1
    assert len(exploiting.legal_moves(s)) == 4
