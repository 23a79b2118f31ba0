"""The Witches' Wheel: one test (or more) per rule id of rules/witches.md, on hand-built states.

Plus the information rule (views and log), the calibration note, snapshots,
move JSON, and property tests (cards conserved; fast playout ≈ generic playout).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CHANCE, TERMINAL, IllegalMove, InvalidMove, InvalidOptions, InvalidSnapshot
from engine.core import Game
from engine.witches import GAME, Deal, Draw, First, Keep, Play, Reveal, Trump, WitchesState, fast
from engine.witches.cards import (
    ALL_CARDS,
    BIT,
    NAMES,
    NUM_CARDS,
    cards_of,
    mask_of,
    parse_card,
    ranking,
)
from engine.witches.moves import WitchesMove
from engine.witches.state import DEAL, DECIDE, DRAW, FIRST, OVER, PLAY, REVEAL

# --- helpers ----------------------------------------------------------------------


def cards(text: str) -> list[int]:
    """Card indices from space-separated names: "red-7 blue-3"."""
    return [parse_card(name) for name in text.split()]


def names(mask: int) -> set[str]:
    return {NAMES[c] for c in cards_of(mask)}


def build(
    hands: Iterable[str],
    trump: str,
    *,
    wheel: str = "decreasing",
    turn: int = 0,
    leader: int | None = None,
    trick: str = "",
    captured: Iterable[str] | None = None,
    discard: str = "",
    pile: str | None = None,
    phase: int = PLAY,
) -> WitchesState:
    """A state from readable card names; cards not placed go to the pile, or to the discard when `pile` is given."""
    hands = list(hands)
    n = len(hands)
    s = WitchesState.initial(n, wheel == "increasing")
    s.phase = phase
    s.turn = turn
    s.leader = turn if leader is None else leader
    s.pending = 0
    s.hands = [mask_of(cards(h)) for h in hands]
    s.captured = [mask_of(cards(c)) for c in (captured or [""] * n)]
    s.discard = mask_of(cards(discard))
    s.trump = parse_card(trump)
    s.trick = tuple(cards(trick))
    placed = sum(s.hands) + sum(s.captured) + s.discard + BIT[s.trump] + mask_of(s.trick)
    if pile is None:
        s.pile = ALL_CARDS ^ placed
    else:
        s.pile = mask_of(cards(pile))
        s.discard |= ALL_CARDS ^ (placed | s.pile)
    assert_conserved(s)
    return s


def assert_conserved(s: WitchesState) -> None:
    """Every one of the 54 cards is in exactly one place."""
    places = [*s.hands, *s.captured, s.pile, s.discard, mask_of(s.trick)]
    if s.trump >= 0:
        places.append(BIT[s.trump])
    assert sum(mask.bit_count() for mask in places) == NUM_CARDS
    union = 0
    for mask in places:
        union |= mask
    assert union == ALL_CARDS


def play_trick(s: WitchesState, text: str) -> WitchesState:
    """Play the given cards, in turn order, through the checked path."""
    for card in cards(text):
        s = GAME.apply(s, Play(card))
    return s


def dealt(n: int, seed: int = 0, wheel: str = "decreasing") -> WitchesState:
    """A state after the deal, the trump card and the first player, from a seeded generator."""
    rng = random.Random(seed)
    s = GAME.new_state(n, {"wheel": wheel})
    while GAME.current_player(s) == CHANCE:
        s = GAME.apply(s, GAME.sample_chance(s, rng))
    return s


def random_game(n: int, seed: int, wheel: str = "decreasing"):
    """Yield (state, move) along a random game through the checked path; move None at the end."""
    rng = random.Random(seed)
    s = GAME.new_state(n, {"wheel": wheel})
    while True:
        player = GAME.current_player(s)
        if player == TERMINAL:
            yield s, None
            return
        move = GAME.sample_chance(s, rng) if player == CHANCE else rng.choice(GAME.legal_moves(s))
        yield s, move
        s = GAME.apply(s, move)


def rule_of(s: WitchesState, move) -> str:
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(s, move)
    return caught.value.rule


# --- components ---------------------------------------------------------------------


def test_w1_54_cards_six_colours_nine_values() -> None:
    assert len(NAMES) == len(set(NAMES)) == 54
    assert {name.split("-")[0] for name in NAMES} == {
        "red", "orange", "yellow", "green", "blue", "violet",
    }
    assert sorted({int(name.split("-")[1]) for name in NAMES}) == list(range(1, 10))
    assert parse_card("red-1") == 0 and parse_card("orange-1") == 9 and parse_card("violet-9") == 53


def test_w1_two_to_six_players() -> None:
    for n in range(2, 7):
        assert GAME.num_players(GAME.new_state(n)) == n
    for n in (1, 7):
        with pytest.raises(InvalidOptions):
            GAME.new_state(n)


def test_w1_captured_witches_score_their_value() -> None:
    s = build(["", ""], "red-1", captured=["blue-9 green-2", "violet-5"], pile="", phase=OVER,
              discard=" ".join(n for n in NAMES if n not in ("red-1", "blue-9", "green-2", "violet-5")))
    assert GAME.outcome(s).scores == (11.0, 5.0)


def test_w2_wheel_option_defaults_to_decreasing() -> None:
    assert GAME.validate_options({}) == {"wheel": "decreasing"}
    assert GAME.new_state(3).increasing is False
    assert GAME.new_state(3, {"wheel": "increasing"}).increasing is True
    with pytest.raises(InvalidOptions):
        GAME.new_state(3, {"wheel": "sideways"})


def test_w3_decreasing_side_counts_down_and_wraps() -> None:
    assert ranking(5, increasing=False) == [5, 4, 3, 2, 1, 9, 8, 7, 6]
    # trump red-5, led blue: blue-1 beats blue-9 on the decreasing side
    s = build(["blue-9", "blue-1"], "red-5")
    s = play_trick(s, "blue-9 blue-1")
    assert s.leader == 1


def test_w3_increasing_side_wraps() -> None:
    assert ranking(5, increasing=True) == [5, 6, 7, 8, 9, 1, 2, 3, 4]
    s = build(["blue-9", "blue-1"], "red-5", wheel="increasing")
    s = play_trick(s, "blue-9 blue-1")
    assert s.leader == 0  # 9 beats 1 when counting up from 5


def test_w3_wheel_value_is_strongest() -> None:
    for increasing in (False, True):
        s = build(["green-4", "green-9", "green-3"], "red-3",
                  wheel="increasing" if increasing else "decreasing")
        s = play_trick(s, "green-4 green-9 green-3")
        assert s.leader == 2


# --- setup ----------------------------------------------------------------------------


def test_w4_deal_six_cards_each_rest_is_pile() -> None:
    for n in range(2, 7):
        s = GAME.new_state(n)
        assert GAME.current_player(s) == CHANCE
        outcomes = GAME.chance_outcomes(s)
        assert {type(m) for m, _ in outcomes} == {Deal} and len(outcomes) == 54
        assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
        rng = random.Random(n)
        while s.phase == DEAL:
            s = GAME.apply(s, GAME.sample_chance(s, rng))
        assert [h.bit_count() for h in s.hands] == [6] * n
        assert s.pile.bit_count() == 54 - 6 * n
        assert s.phase == REVEAL


def test_w5_top_card_turned_up_is_trump() -> None:
    rng = random.Random(1)
    s = GAME.new_state(4)
    while s.phase == DEAL:
        s = GAME.apply(s, GAME.sample_chance(s, rng))
    outcomes = GAME.chance_outcomes(s)
    assert {type(m) for m, _ in outcomes} == {Reveal} and len(outcomes) == 30
    card = outcomes[0][0].card
    s = GAME.apply(s, Reveal(card))
    assert s.trump == card and s.pile.bit_count() == 29 and GAME.current_player(s) == CHANCE
    colour, value = NAMES[card].split("-")
    view = GAME.view(s, None)
    assert view["trump"] == NAMES[card] and view["trump_colour"] == colour
    assert view["wheel_value"] == int(value) and view["ranking"] == ranking(int(value), False)


def test_w5_trump_card_must_come_from_the_pile() -> None:
    s = dealt(4)
    s2 = WitchesState.initial(4, False)
    s2.phase = REVEAL
    s2.hands = s.hands[:]
    s2.pile = ALL_CARDS ^ sum(s.hands)
    held = cards_of(s.hands[0])[0]
    assert rule_of(s2, Reveal(held)) == "chance"


def test_w6_first_player_is_chance_over_seats() -> None:
    s = dealt(5)
    s.phase = FIRST
    outcomes = GAME.chance_outcomes(s)
    assert outcomes == [(First(seat), 0.2) for seat in range(5)]
    after = GAME.apply(s, First(3))
    assert GAME.current_player(after) == 3 and after.leader == 3
    assert rule_of(s, First(5)) == "chance"
    seen = {GAME.sample_chance(s, random.Random(k)).seat for k in range(200)}
    assert seen == set(range(5))


# --- a trick ----------------------------------------------------------------------------


def test_w7_any_card_may_be_played_following_never_required() -> None:
    s = build(["red-2 blue-4", "red-9 green-1 violet-7"], "yellow-5")
    s = GAME.apply(s, Play.of("red-2"))
    assert set(GAME.legal_moves(s)) == {Play.of("red-9"), Play.of("green-1"), Play.of("violet-7")}
    GAME.apply(s, Play.of("violet-7"))  # not following although holding red: allowed


def test_w7_card_not_in_hand_is_illegal() -> None:
    s = build(["red-2 blue-4", "red-9 green-1"], "yellow-5")
    assert rule_of(s, Play.of("red-9")) == "W7"  # another seat's card
    assert rule_of(s, Play.of("orange-3")) == "W7"  # in the pile


def test_w7_clockwise_order() -> None:
    s = build(["red-1", "red-2", "red-3"], "blue-1", turn=1)
    assert GAME.current_player(s) == 1
    s = GAME.apply(s, Play.of("red-2"))
    assert GAME.current_player(s) == 2
    s = GAME.apply(s, Play.of("red-3"))
    assert GAME.current_player(s) == 0


def test_w8_trump_beats_lead_colour() -> None:
    s = build(["red-5 red-1", "blue-6 red-2", "green-5 red-3"], "blue-5")
    s = play_trick(s, "red-5 blue-6 green-5")  # blue-6 is the weakest blue, still a trump
    assert s.leader == 1 and s.phase == DECIDE


def test_w8_strongest_trump_wins() -> None:
    s = build(["blue-4 red-1", "blue-6 red-2", "blue-3 red-3"], "blue-5")
    s = play_trick(s, "blue-4 blue-6 blue-3")
    assert s.leader == 0  # 4 > 3 > ... > 6 on the decreasing wheel at 5


def test_w8_strongest_of_led_colour_without_trump() -> None:
    s = build(["green-2 red-1", "green-7 red-2", "yellow-1 red-3", "green-1 red-4"], "blue-1")
    s = play_trick(s, "green-2 green-7 yellow-1 green-1")
    # no trump: among greens, 1 is strongest at wheel 1; yellow-1 is off-colour and cannot win
    assert s.leader == 3


def test_w8_off_colour_cards_never_win() -> None:
    s = build(["green-6 red-1", "yellow-5 red-2"], "blue-5")
    s = play_trick(s, "green-6 yellow-5")
    assert s.leader == 0


def test_w8_the_view_names_the_seat_winning_the_trick_so_far() -> None:
    s = build(["green-2 red-1", "green-7 red-2", "blue-9 red-3", "green-1 red-4"], "blue-1")
    assert GAME.view(s, 0)["winning"] is None  # no card on the table yet
    seen = []
    for card in ["green-2", "green-7", "blue-9", "green-1"]:
        s = GAME.apply(s, Play.of(card))
        if s.phase == PLAY:
            seen.append(GAME.view(s, None)["winning"])
    # green-7 beats the green-2 led (wheel 1, decreasing: 1 > 9 > ... > 2); then blue-9, a trump
    assert seen == [0, 1, 2]
    assert s.leader == 2


@given(st.integers(0, 2**32), st.integers(2, 6))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_w8_the_winning_seat_shown_is_the_trick_winner_unless_a_later_card_beats_it(seed: int, n: int) -> None:
    rng = random.Random(seed)
    s = GAME.new_state(n, GAME.validate_options({}))
    while GAME.current_player(s) != TERMINAL:
        if GAME.current_player(s) == CHANCE:
            s = GAME.apply(s, GAME.sample_chance(s, rng))
            continue
        shown = GAME.view(s, None)["winning"] if s.phase == PLAY and s.trick else None
        move = rng.choice(GAME.legal_moves(s))
        before = len(s.trick)
        s = GAME.apply(s, move)
        if shown is not None and before == n - 1:  # that card closed the trick
            winner = s.tricks[-1][2]
            last = (s.tricks[-1][0] + n - 1) % n
            assert winner in (shown, last)


def test_w9_winner_leads_next_trick() -> None:
    s = build(["red-1 red-4", "red-2 red-5", "red-3 red-6"], "blue-2", pile="")
    s.discard = ALL_CARDS ^ (sum(s.hands) | BIT[s.trump])
    s = play_trick(s, "red-1 red-2 red-3")
    assert s.leader == 1  # red-2 strongest at wheel 2
    s = GAME.apply(s, Keep())
    assert GAME.current_player(s) == 1 and s.phase == PLAY


# --- after a trick ------------------------------------------------------------------------


def test_w10_winner_captures_others_cards_own_card_discarded() -> None:
    s = build(["red-1 red-4", "red-2 red-5", "red-3 red-6"], "blue-2")
    s = play_trick(s, "red-1 red-2 red-3")
    assert names(s.captured[1]) == {"red-1", "red-3"}
    assert names(s.discard) == {"red-2"}
    assert s.captured[0] == s.captured[2] == 0
    assert_conserved(s)


def test_w11_decision_choices_are_keep_or_a_card_just_captured() -> None:
    s = build(["red-1 red-4", "red-2 red-5", "red-3 red-6"], "blue-2",
              captured=["", "violet-9", ""])
    s = play_trick(s, "red-1 red-2 red-3")
    assert GAME.current_player(s) == 1
    assert set(GAME.legal_moves(s)) == {Keep(), Trump.of("red-1"), Trump.of("red-3")}
    view = GAME.view(s, 0)
    assert view["phase"] == "trump_decision" and view["to_act"] == 1
    assert sorted(view["just_captured"]) == ["red-1", "red-3"]


def test_w11_giving_up_a_card_makes_it_trump() -> None:
    s = build(["red-1 red-4", "red-2 red-5", "red-3 red-6"], "blue-2")
    s = play_trick(s, "red-1 red-2 red-3")
    s = GAME.apply(s, Trump.of("red-3"))
    assert s.trump == parse_card("red-3")
    assert names(s.captured[1]) == {"red-1"}  # the card given up scores nothing
    assert {"blue-2", "red-2"} <= names(s.discard)  # the previous trump is discarded
    assert GAME.view(s, None)["ranking"][0] == 3
    assert_conserved(s)


def test_w11_declining_keeps_the_trump() -> None:
    s = build(["red-1 red-4", "red-2 red-5", "red-3 red-6"], "blue-2")
    s = play_trick(s, "red-1 red-2 red-3")
    s = GAME.apply(s, Keep())
    assert s.trump == parse_card("blue-2") and names(s.captured[1]) == {"red-1", "red-3"}


def test_w11_only_cards_captured_in_the_trick_just_won() -> None:
    s = build(["red-1 red-4", "red-2 red-5", "red-3 red-6"], "blue-2",
              captured=["", "violet-9", ""])
    s = play_trick(s, "red-1 red-2 red-3")
    assert rule_of(s, Trump.of("violet-9")) == "W11"  # captured earlier
    assert rule_of(s, Trump.of("red-2")) == "W11"  # the winner's own card, discarded
    assert rule_of(s, Trump.of("red-6")) == "W11"  # in a hand
    assert rule_of(s, Play.of("red-5")) == "W11"  # must decide before the next trick


def test_w11_decision_only_after_winning_a_trick() -> None:
    s = build(["red-1 red-4", "red-2 red-5"], "blue-2")
    assert rule_of(s, Keep()) == "W11"
    assert rule_of(s, Trump.of("red-1")) == "W11"


def test_w12_everyone_draws_winner_first_then_clockwise() -> None:
    s = build(["red-1 red-4", "red-2 red-5", "red-3 red-6"], "blue-2",
              pile="green-1 green-2 green-3 green-4")
    s.discard = ALL_CARDS ^ (sum(s.hands) | s.pile | BIT[s.trump])
    s = play_trick(s, "red-1 red-2 red-3")
    s = GAME.apply(s, Keep())
    assert s.phase == DRAW and GAME.current_player(s) == CHANCE
    receivers = []
    while s.phase == DRAW:
        receivers.append(s.turn)
        outcomes = GAME.chance_outcomes(s)
        assert {type(m) for m, _ in outcomes} == {Draw}
        assert len(outcomes) == s.pile.bit_count()
        s = GAME.apply(s, outcomes[0][0])
    assert receivers == [1, 2, 0]
    assert [h.bit_count() for h in s.hands] == [2, 2, 2]
    assert s.pile.bit_count() == 1 and GAME.current_player(s) == 1


def test_w12_nobody_draws_when_pile_short() -> None:
    s = build(["red-1 red-4", "red-2 red-5", "red-3 red-6"], "blue-2", pile="green-1 green-2")
    s.discard = ALL_CARDS ^ (sum(s.hands) | s.pile | BIT[s.trump])
    s = play_trick(s, "red-1 red-2 red-3")
    s = GAME.apply(s, Keep())
    assert s.phase == PLAY and GAME.current_player(s) == 1
    assert [h.bit_count() for h in s.hands] == [1, 1, 1]
    assert names(s.pile) == {"green-1", "green-2"}  # stays out of play
    assert GAME.view(s, 0)["pile_size"] == 2


def test_w12_draw_outcomes_are_uniform_over_the_pile() -> None:
    s = build(["red-1 red-4", "red-2 red-5"], "blue-2", pile="green-1 green-2 green-3 green-4",
              phase=DRAW)
    s.discard = ALL_CARDS ^ (sum(s.hands) | s.pile | BIT[s.trump])
    s.pending = 2
    outcomes = GAME.chance_outcomes(s)
    assert sorted(NAMES[m.card] for m, _ in outcomes) == ["green-1", "green-2", "green-3", "green-4"]
    assert all(p == 0.25 for _, p in outcomes)
    assert rule_of(s, Draw.of("red-9")) == "chance"
    assert rule_of(s, Play.of("red-1")) == "chance"


# --- end and scoring ---------------------------------------------------------------------


def _last_trick() -> WitchesState:
    s = build(["red-1", "red-2", "red-3"], "blue-2", pile="green-1", captured=["", "", "violet-2"])
    s.discard = ALL_CARDS ^ (sum(s.hands) | s.pile | BIT[s.trump] | s.captured[2])
    return play_trick(s, "red-1 red-2 red-3")


def test_w13_game_ends_when_hands_are_empty() -> None:
    s = _last_trick()
    assert GAME.current_player(s) == TERMINAL and GAME.legal_moves(s) == []
    assert names(s.captured[1]) == {"red-1", "red-3"}  # captured as usual
    assert names(s.pile) == {"green-1"}
    outcome = GAME.outcome(s)
    assert outcome.reason == "hands_empty" and outcome.winners == (1,)


def test_w13_no_trump_decision_after_the_last_trick() -> None:
    s = _last_trick()
    assert rule_of(s, Keep()) == "W13"
    assert rule_of(s, Trump.of("red-1")) == "W13"
    assert rule_of(s, Play.of("red-1")) == "game_over"


def test_w13_play_out_hands_after_the_pile_runs_short() -> None:
    for n in range(2, 7):
        s = dealt(n, seed=n)
        s = s.clone()
        GAME.playout(s, random.Random(n))
        tricks = len(s.tricks)
        rounds = (53 - 6 * n) // n  # draw rounds while the pile holds n cards
        assert tricks == rounds + 6
        assert s.pile.bit_count() == (53 - 6 * n) % n


def test_w14_most_points_wins() -> None:
    rest = "green-1 green-2"
    s = build(["", ""], "red-1", captured=["blue-9", "blue-2 blue-3"], pile=rest, phase=OVER)
    s.discard = ALL_CARDS ^ (s.pile | BIT[s.trump] | s.captured[0] | s.captured[1])
    outcome = GAME.outcome(s)
    assert outcome.scores == (9.0, 5.0) and outcome.winners == (0,) and outcome.ranks == (1, 2)
    assert GAME.returns(s)[0] > 0.9 > GAME.returns(s)[1]


def test_w14_tie_broken_by_captured_cards() -> None:
    s = build(["", ""], "red-1", captured=["blue-9", "blue-4 blue-5"], pile="", phase=OVER)
    s.discard = ALL_CARDS ^ (BIT[s.trump] | s.captured[0] | s.captured[1])
    outcome = GAME.outcome(s)
    assert outcome.scores == (9.0, 9.0) and outcome.winners == (1,) and outcome.ranks == (2, 1)


def test_w14_shared_win() -> None:
    s = build(["", "", ""], "red-1", captured=["blue-9 blue-1", "blue-4 blue-6", "blue-2"],
              pile="", phase=OVER)
    s.discard = ALL_CARDS ^ (BIT[s.trump] | sum(s.captured))
    outcome = GAME.outcome(s)
    assert outcome.winners == (0, 1) and outcome.ranks == (1, 1, 3)
    r = GAME.returns(s)
    assert r[0] == pytest.approx(0.9 + 0.1 * 10 / 22) and r[1] == pytest.approx(0.9 + 0.1 * 10 / 22)
    assert r[2] == pytest.approx(0.1 * 2 / 22)


# --- information: views and the log ---------------------------------------------------------


@pytest.mark.parametrize("n", [2, 4, 6])
def test_view_never_shows_other_hands_or_pile(n: int) -> None:
    for state, _ in random_game(n, seed=n):
        if state.phase == OVER:
            continue  # once finished everything may be shown (test_view_shows_the_pile_once_finished)
        for seat in [*range(n), None]:
            text = json.dumps(GAME.view(state, seat))
            hidden = state.pile
            for other in range(n):
                if other != seat:
                    hidden |= state.hands[other]
            for card in cards_of(hidden):
                assert f'"{NAMES[card]}"' not in text
            if seat is not None:
                for card in cards_of(state.hands[seat]):
                    assert f'"{NAMES[card]}"' in text


def test_view_shows_the_pile_once_finished() -> None:
    """'Never shown while the match runs: the order of the pile'; once finished the cards left are shown."""
    running = build(["red-1", "red-2"], "blue-2", pile="green-1 green-2")
    assert GAME.view(running, 0)["pile_cards"] is None
    over = build(["", ""], "red-1", captured=["blue-9", "blue-2 blue-3"], pile="green-2 green-1", phase=OVER)
    for seat in (0, 1, None):
        assert GAME.view(over, seat)["pile_cards"] == ["green-1", "green-2"]


def test_view_lists_public_items() -> None:
    s = dealt(4, seed=3)
    view = GAME.view(s, 2)
    assert view["phase"] == "play" and view["to_act"] == s.turn and view["seat"] == 2
    assert view["hand_sizes"] == [6, 6, 6, 6] and view["pile_size"] == 29
    assert view["scores"] == [0, 0, 0, 0] and view["wheel"] == "decreasing"
    assert len(view["hand"]) == 6 and "hand" not in GAME.view(s, None)


def test_log_redacts_deals_and_draws() -> None:
    s = GAME.new_state(3)
    move = Deal.of("red-7")
    assert GAME.log_entry(s, move, 0) == {"type": "deal", "card": "red-7", "seat": 0}
    assert GAME.log_entry(s, move, 1) == {"type": "deal", "seat": 0}
    assert GAME.log_entry(s, move, None) == {"type": "deal", "seat": 0}
    s = build(["red-1", "red-2"], "blue-2", phase=DRAW, turn=1, pile="green-1 green-2")
    s.discard = ALL_CARDS ^ (sum(s.hands) | s.pile | BIT[s.trump])
    assert GAME.log_entry(s, Draw.of("green-1"), 0) == {"type": "draw", "seat": 1}
    assert GAME.log_entry(s, Draw.of("green-1"), 1)["card"] == "green-1"
    s.phase = REVEAL
    assert GAME.log_entry(s, Reveal.of("green-2"), 0) == {"type": "reveal", "card": "green-2"}
    assert GAME.log_entry(s, Play.of("red-1"), 1) == {"type": "play", "card": "red-1"}


def test_determinize_keeps_own_hand_and_public_state() -> None:
    s = dealt(4, seed=7)
    s = GAME.apply(s, GAME.legal_moves(s)[0])
    rng = random.Random(1)
    for _ in range(20):
        d = GAME.determinize(s, 2, rng)
        assert d.hands[2] == s.hands[2] and d.trick == s.trick and d.trump == s.trump
        assert [h.bit_count() for h in d.hands] == [h.bit_count() for h in s.hands]
        assert_conserved(d)
    seen = set()
    for _ in range(50):
        seen |= names(GAME.determinize(s, 2, rng).hands[0])
    assert len(seen) > 20  # other hands really are resampled


# --- moves, snapshots, errors ---------------------------------------------------------------


def test_moves_json_and_repr_round_trip() -> None:
    moves = [Play.of("red-7"), Trump.of("blue-3"), Keep(), Deal.of("violet-9"),
             Draw.of("orange-1"), Reveal.of("green-5"), First(2)]
    namespace = {"Play": Play, "Trump": Trump, "Keep": Keep, "Deal": Deal, "Draw": Draw,
                 "Reveal": Reveal, "First": First}
    for move in moves:
        assert GAME.move_from_json(json.loads(json.dumps(move.to_json()))) == move
        assert eval(repr(move), namespace) == move
    assert Play.of("red-7").to_json() == {"type": "play", "card": "red-7"}
    assert len(set(moves)) == len(moves) and Play.of("red-7") != Draw.of("red-7")


@pytest.mark.parametrize("garbage", [
    None, 3, "play", [], {"type": "play"}, {"type": "play", "card": "red-10"},
    {"type": "play", "card": 7}, {"type": "play", "card": "pink-3"}, {"type": "keep", "card": "red-1"},
    {"type": "first", "seat": True}, {"type": "first", "seat": 9}, {"type": 1}, {"card": "red-1"},
])
def test_malformed_moves_are_invalid(garbage) -> None:
    with pytest.raises(InvalidMove):
        GAME.move_from_json(garbage)


def test_chance_and_player_moves_do_not_mix() -> None:
    s = GAME.new_state(3)
    assert rule_of(s, Play.of("red-1")) == "chance"
    s = dealt(3)
    assert rule_of(s, Deal.of(NAMES[cards_of(s.pile)[0]])) == "chance"


@pytest.mark.parametrize("garbage", [
    None, {}, {"v": 2}, {"v": 1}, {"v": 1, "n": 9},
])
def test_decode_refuses_garbage(garbage) -> None:
    with pytest.raises(InvalidSnapshot):
        GAME.decode(garbage)


def test_decode_refuses_cards_in_two_places() -> None:
    data = GAME.encode(dealt(3))
    assert GAME.decode(data) == dealt(3)
    data["discard"] = data["hands"][0]
    with pytest.raises(InvalidSnapshot):
        GAME.decode(data)
    data = GAME.encode(dealt(3))
    data["v"] = 2
    with pytest.raises(InvalidSnapshot):
        GAME.decode(data)


# --- calibration and properties -----------------------------------------------------------------


def test_calibration_four_players_13_tricks_52_plays_12_decisions() -> None:
    plays = decisions = 0
    final = None
    for state, move in random_game(4, seed=42):
        if isinstance(move, Play):
            plays += 1
        elif isinstance(move, (Keep, Trump)):
            decisions += 1
        final = state
    assert (len(final.tricks), plays, decisions) == (13, 52, 12)


def test_calibration_random_winner_scores_about_69() -> None:
    rng = random.Random(2024)
    best = []
    for _ in range(400):
        s = GAME.new_state(4)
        GAME.random_playout(s, rng)
        best.append(max(GAME.outcome(s).scores))
    mean = sum(best) / len(best)
    assert 63 <= mean <= 75, mean


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32), wheel=st.sampled_from(["decreasing", "increasing"]))
def test_cards_are_conserved_at_every_step(n: int, seed: int, wheel: str) -> None:
    for state, move in random_game(n, seed, wheel):
        assert_conserved(state)
        if move is not None and GAME.current_player(state) >= 0:
            assert move in GAME.legal_moves(state)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32), cut=st.floats(0, 1))
def test_fast_playout_from_any_state_ends_consistently(n: int, seed: int, cut: float) -> None:
    trajectory = [state for state, _ in random_game(n, seed)]
    start = trajectory[int(cut * (len(trajectory) - 1))]
    uniform, kept, slow = start.clone(), start.clone(), start.clone()
    rng = random.Random(seed)
    returns = GAME.random_playout(uniform, rng)
    kept_returns = GAME.playout(kept, rng)
    Game.random_playout(GAME, slow, rng)
    for end in (uniform, kept, slow):
        assert GAME.current_player(end) == TERMINAL
        assert_conserved(end)
        assert sum(h for h in end.hands) == 0
        assert len(end.tricks) == len(trajectory[-1].tricks)
        assert end.tricks[: len(start.tricks)] == start.tricks
        assert GAME.decode(json.loads(json.dumps(GAME.encode(end)))) == end
    assert returns == GAME.returns(uniform)
    assert kept_returns == GAME.returns(kept)


def test_fast_and_generic_playouts_agree_in_distribution() -> None:
    rng = random.Random(5)
    start = dealt(4, seed=5)
    stats = {}
    for label, play in (("fast", GAME.random_playout), ("generic", lambda s, r: Game.random_playout(GAME, s, r))):
        wins = [0] * 4
        total = 0.0
        for _ in range(300):
            s = start.clone()
            play(s, rng)
            for w in GAME.outcome(s).winners:
                wins[w] += 1
            total += max(GAME.outcome(s).scores)
        stats[label] = (wins, total / 300)
    (fw, fmean), (gw, gmean) = stats["fast"], stats["generic"]
    assert abs(fmean - gmean) < 5
    for a, b in zip(fw, gw, strict=True):
        assert abs(a - b) < 60  # ~4.5 standard deviations of a 300-game win count


def drawn_chance(state: WitchesState, words: Iterator[int], pile: list[int]) -> WitchesMove | None:
    """The chance move a fast playout draws at `state` from its next `words` (an index `r * k >> 32`
    into `pile`, the pile's cards in the playout's order, or into the seats); None at a player's move."""
    if state.phase in (DEAL, DRAW):
        card = pile.pop(next(words) * len(pile) >> 32)
        return (Deal if state.phase == DEAL else Draw)(card)
    if state.phase == REVEAL:
        return Reveal(pile.pop(next(words) * len(pile) >> 32))
    if state.phase == FIRST:
        return First(next(words) * state.n >> 32)
    return None


def checked_playout(state: WitchesState, rng: random.Random, keep_trump: bool = False) -> WitchesState:
    """The fast playout's game through the checked path: every transition by `apply`.

    It draws from `rng` exactly as `fast.playout` does: an index `r * k >> 32`, r
    the next word of `fast.random_words`, into the pile's cards (a list, in the playout's order) and into the cards of
    the hand to play (in card order), and the trump decision as a random card of
    the trick (the winner's own: keep), or with `keep_trump`, no draw and a keep.
    """
    words = iter(fast.random_words(state, rng))
    n = state.n
    pile = cards_of(state.pile)
    if state.phase == DECIDE and keep_trump:
        state = GAME.apply(state, Keep())
    elif state.phase == DECIDE:  # a decision left open: keep, or one of the cards just captured
        choices = cards_of(state.won)
        pick = next(words) * (len(choices) + 1) >> 32
        state = GAME.apply(state, Trump(choices[pick - 1]) if pick else Keep())
    while state.phase != OVER:
        chance = drawn_chance(state, words, pile)
        if chance is not None:
            move = chance
        elif state.phase == PLAY:
            hand = cards_of(state.hands[state.turn])
            move = Play(hand[next(words) * len(hand) >> 32])
        elif keep_trump:  # DECIDE after a trick played here
            move = Keep()
        else:
            _, trick, winner = state.tricks[-1]
            pick = trick[next(words) * n >> 32]
            own = trick[(winner - state.tricks[-1][0]) % n]
            move = Keep() if pick == own else Trump(pick)
        state = GAME.apply(state, move)
    return state


@pytest.mark.parametrize("keep_trump", [False, True])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_fast_playout_is_the_checked_rules_on_every_game(n: int, keep_trump: bool) -> None:
    """W4–W14 once: from any state, the fast playout ends exactly where the checked rules end it."""
    for seed in range(150):
        trajectory = [state for state, _ in random_game(n, seed, ("decreasing", "increasing")[seed % 2])]
        start = trajectory[(seed * 7919) % len(trajectory)] if seed % 3 else trajectory[0]
        ours = start.clone()
        returns = fast.playout(ours, random.Random(seed), keep_trump)
        checked = checked_playout(start.clone(), random.Random(seed), keep_trump)
        assert ours == checked, (n, seed, keep_trump)
        assert returns == GAME.returns(checked)


def test_w11_the_search_playout_keeps_every_trump() -> None:
    """The search's playout (`WitchesGame.playout`) never gives a captured witch up: the trump
    card it starts with is the one it ends with, and nothing captured goes to the discard pile."""
    for n in (2, 4):
        for seed in range(20):
            s = dealt(n, seed=seed)
            trump = s.trump
            GAME.playout(s, random.Random(seed))
            assert s.trump == trump
            played = [card for _, trick, _ in s.tricks for card in trick]
            assert sum(c.bit_count() for c in s.captured) == len(played) - len(s.tricks)


@pytest.mark.skipif(sys.byteorder != "little", reason="the words are read in the machine's byte order")
def test_random_words_are_the_generators_32_bit_draws() -> None:
    """The playout's one big draw gives, word by word, what a `getrandbits(32)` a draw would have."""
    start = GAME.new_state(4)
    words = fast.random_words(start, random.Random(3))
    rng = random.Random(3)
    assert list(words) == [rng.getrandbits(32) for _ in range(len(words))]
    assert len(words) >= 2 * 54  # every card may be drawn and then played
