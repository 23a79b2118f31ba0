"""The learned evaluation of The Witches' Wheel (`engine.witches.evaluation`), the playout that stops
early to use it (`WitchesGame.search_playout("eval")`), and the script that fits it (`ai.witches_eval`).

The evaluation reads the full state it is handed (in the search, a sampled deal) and nothing else;
the stopped playout is replayed through the checked rules, drawing the same random words.
"""

from __future__ import annotations

import math
import random

import pytest

from ai.levels import Level
from ai.play import choose_move
from ai.witches_eval import fit, game_positions, position_state
from engine.witches import GAME, Keep, Play, WitchesState, fast
from engine.witches.cards import cards_of
from engine.witches.evaluation import FEATURES, evaluate, features
from engine.witches.evaluation_weights import WEIGHTS
from engine.witches.game import EVAL_TRICKS
from engine.witches.state import DECIDE, OVER, PLAY, decode, encode
from tests.test_witches_rules import assert_conserved, drawn_chance, random_game


def trick_starts(n: int, seeds: range) -> list[WitchesState]:
    """Every trick start (a seat to lead, the draws done) of random games, both sides of the wheel."""
    return [state for seed in seeds
            for state, _ in random_game(n, seed, ("decreasing", "increasing")[seed % 2])
            if state.phase == PLAY and not state.trick]


def test_the_weights_file_loads_one_finite_weight_a_feature() -> None:
    assert len(WEIGHTS) == len(FEATURES)
    assert all(math.isfinite(w) for w in WEIGHTS)
    assert any(WEIGHTS)  # fitted, not the placeholder


def test_values_are_rewards_that_add_up_to_one() -> None:
    """Both seats' values lie in [0, 1] and add up to 1, at every trick start, on either wheel."""
    starts = trick_starts(2, range(30))
    assert len(starts) > 500
    for s in starts:
        a, b = evaluate(s)
        assert 0.0 <= a <= 1.0 and 0.0 <= b <= 1.0
        assert a + b == pytest.approx(1.0)
    huge = tuple(1e6 * w for w in WEIGHTS)  # far past exp's range: still a reward
    assert all(0.0 <= evaluate(s, huge)[0] <= 1.0 for s in starts)


def test_swapping_the_seats_swaps_the_values() -> None:
    """The model has no side: the same position seen from the other seat is worth the other value."""
    for s in trick_starts(2, range(5))[::7]:
        swapped = s.clone()
        swapped.hands = s.hands[::-1]
        swapped.captured = s.captured[::-1]
        swapped.turn = swapped.leader = 1 - s.leader
        assert evaluate(swapped)[0] == pytest.approx(evaluate(s)[1])


def test_features_read_the_sample_alone() -> None:
    """The evaluation of a sample depends on that sample's cards only: not on the history that led
    there, and it does not change the sample; another deal of the unseen cards changes it."""
    s = trick_starts(2, range(1))[5]
    before = s.clone()
    forgotten = s.clone()
    forgotten.tricks = ()
    assert features(forgotten) == features(s) and evaluate(forgotten) == evaluate(s)
    assert s == before
    redeals = [GAME.determinize(s, 0, random.Random(seed)) for seed in range(10)]
    assert all(redealt.hands[0] == s.hands[0] for redealt in redeals)
    assert any(evaluate(redealt) != evaluate(s) for redealt in redeals)  # seat 1's hand dealt again


def reference_stopped(state: WitchesState, rng: random.Random, tricks: int, play_endgame: bool) -> WitchesState:
    """The evaluated playout's random part through the checked path: every trump kept, stopping at
    the first trick start after `tricks` tricks (not after the last draw with `play_endgame`)."""
    words = iter(fast.random_words(state, rng))
    pile = cards_of(state.pile)
    start = len(state.tricks)
    if state.phase == DECIDE:
        state = GAME.apply(state, Keep())
    while state.phase != OVER:
        chance = drawn_chance(state, words, pile)
        if chance is not None:
            move = chance
        elif state.phase == PLAY:
            if not state.trick and len(state.tricks) - start >= tricks and not (
                    play_endgame and state.pile.bit_count() < state.n):
                break
            hand = cards_of(state.hands[state.turn])
            move = Play(hand[next(words) * len(hand) >> 32])
        else:
            move = Keep()
        state = GAME.apply(state, move)
    return state


@pytest.mark.parametrize("name", ["eval:0", "eval:1", "eval:2", "eval:1:endgame", "eval"])
def test_evaluated_playout_plays_the_checked_rules_then_evaluates(name: str) -> None:
    """From any state of a 2-player game, the playout stops where the checked rules do (legal cards
    only, every card conserved, every trump kept) and returns the evaluation there, or the rewards
    at the end; the same seed gives the same result."""
    parts = name.split(":")
    tricks = int(parts[1]) if len(parts) > 1 else EVAL_TRICKS
    playout = GAME.search_playout(name)
    stopped = 0
    for seed in range(60):
        trajectory = [state for state, _ in random_game(2, seed, ("decreasing", "increasing")[seed % 2])]
        start = trajectory[(seed * 7919) % len(trajectory)]
        if GAME.current_player(start) < 0 and start.phase != OVER and not start.tricks:
            continue  # the deal: the search never plays out from there
        ours = start.clone()
        value = playout(ours, random.Random(seed))
        checked = reference_stopped(start.clone(), random.Random(seed), tricks, len(parts) == 3)
        assert ours == checked, (name, seed)
        assert_conserved(ours)
        decode(encode(ours))
        if ours.phase == OVER:
            assert value == GAME.returns(ours)
        else:
            stopped += 1
            assert ours.phase == PLAY and not ours.trick
            assert value == evaluate(ours)
        again = start.clone()
        assert playout(again, random.Random(seed)) == value and again == ours
    assert stopped > 20


def test_evaluated_playout_plays_to_the_end_beyond_two_players() -> None:
    """The evaluation is fitted to two players: at three, the default playout, draw for draw."""
    s = trick_starts(3, range(1))[2]
    ours, default = s.clone(), s.clone()
    assert GAME.search_playout("eval")(ours, random.Random(5)) == GAME.playout(default, random.Random(5))
    assert ours == default and ours.phase == OVER


@pytest.mark.parametrize("name", ["eval:x", "eval:1:2", "eval:1:endgame:3", "evaluate"])
def test_unknown_evaluated_playouts_are_refused(name: str) -> None:
    with pytest.raises(KeyError):
        GAME.search_playout(name)


def test_a_level_with_the_evaluation_plays_legal_moves() -> None:
    """A level naming the evaluated playout searches with it (and the exact endgame) to a legal move."""
    level = Level("test", 300, 0.0, "", exact=True, playout="eval")
    for s in trick_starts(2, range(2))[::9]:
        seat = GAME.current_player(s)
        assert choose_move(GAME, s, seat, level, random.Random(6)) in GAME.legal_moves(s)


def test_positions_are_labelled_with_the_final_reward_and_fit() -> None:
    """The training script's positions are trick starts of one game with seat 0's final reward, and
    a fit to them gives one finite weight a feature."""
    rows = list(game_positions("easy", "test:eval", increasing=False))
    assert len(rows) > 15
    assert len({row["reward"] for row in rows}) == 1 and 0.0 <= float(rows[0]["reward"]) <= 1.0
    for row in rows:
        s = position_state(row)  # type: ignore[arg-type]
        assert s.phase == PLAY and not s.trick and s.hands[0].bit_count() == s.hands[1].bit_count()
    weights = fit(rows)
    assert len(weights) == len(FEATURES) and all(math.isfinite(w) for w in weights)
