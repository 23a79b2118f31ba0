"""Paired sequential halving at the root (ai.halving): known answers, budgets, shared worlds,
reproducibility, and the levels that play it (The Enchanters' Gathering's `hard`)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from ai.halving import halving_search
from ai.levels import LEVELS, get_level, levels_for
from ai.play import choose_move
from ai.search import Progress, search
from engine import get_game
from engine.core import Game
from tests.test_search import decision_states, first_decision, toy_last_tricks
from tests.toy_games import TOY, Play, ToyState, ToyTricks, card_of

ENCHANTERS = get_game("enchanters")


def test_halving_finds_the_move_that_wins_the_game() -> None:
    state = toy_last_tricks()
    for seed in range(3):
        found = halving_search(TOY, state, 0, random.Random(seed), 200)
        assert found.move == Play(card_of("4S"))
        assert found.values[found.move] == 1.0  # a certain win, whatever the world


class _CountingToy(ToyTricks):
    """The toy game, counting the worlds the search samples and the playouts it plays."""

    def __init__(self) -> None:
        super().__init__()
        self.worlds = 0
        self.playouts = 0

    def determinizer(self, state: ToyState, seat: int):
        inner = super().determinizer(state, seat)

        def sample(rng: random.Random) -> ToyState:
            self.worlds += 1
            return inner(rng)
        return sample

    def playout(self, state: ToyState, rng: random.Random) -> tuple[float, ...]:
        self.playouts += 1
        return super().playout(state, rng)


def test_every_surviving_move_is_played_out_in_the_same_worlds_within_the_budget() -> None:
    game = _CountingToy()
    state, seat = first_decision(game, 2, seed=4)
    legal = game.legal_moves(state)
    assert len(legal) >= 4
    found = halving_search(game, state, seat, random.Random(1), 400)
    assert found.iterations <= 400 and found.iterations == sum(found.visits.values())
    assert set(found.visits) == set(legal)  # the first round plays every move
    counts = sorted(found.visits.values(), reverse=True)
    # a move dropped after round r was played in the worlds of rounds 1..r, as every other move
    assert counts[0] == counts[1] and counts[-1] == min(counts) > 0
    assert game.worlds * len(legal) >= found.iterations and game.worlds < found.iterations


def test_halving_searches_are_reproducible_and_leave_the_state_alone() -> None:
    for state, seat in list(decision_states(ENCHANTERS, 2, seed=2, every=5))[:4]:
        before = ENCHANTERS.encode(state)
        first = halving_search(ENCHANTERS, state, seat, random.Random(7), 300)
        again = halving_search(ENCHANTERS, state, seat, random.Random(7), 300)
        assert (first.move, first.visits, first.values) == (again.move, again.visits, again.values)
        assert first.move in ENCHANTERS.legal_moves(state)
        assert ENCHANTERS.encode(state) == before


def test_a_time_cap_cuts_the_rounds_short_and_still_answers_a_legal_move() -> None:
    state, seat = first_decision(ENCHANTERS, 4)
    found = halving_search(ENCHANTERS, state, seat, random.Random(1), 100_000, seconds=1e-9)
    assert found.move in ENCHANTERS.legal_moves(state)
    assert 0 < found.iterations < 100_000  # one world, then the clock stopped it


def test_progress_names_a_surviving_move() -> None:
    state, seat = first_decision(ENCHANTERS, 2)
    reports: list[Progress] = []
    found = halving_search(ENCHANTERS, state, seat, random.Random(1), 200, on_progress=reports.append,
                           progress_every=0.0)
    assert reports and reports[-1].iterations == found.iterations
    assert all(report.best_move in ENCHANTERS.legal_moves(state) for report in reports)


def test_halving_refuses_a_seat_that_is_not_to_act_and_an_empty_budget() -> None:
    state, seat = first_decision(ENCHANTERS, 2)
    with pytest.raises(ValueError):
        halving_search(ENCHANTERS, state, 1 - seat, random.Random(1), 100)
    with pytest.raises(ValueError):
        halving_search(ENCHANTERS, state, seat, random.Random(1), 0)


# --- the levels that play it --------------------------------------------------


def test_enchanters_hard_plays_halving_and_every_other_level_is_the_default() -> None:
    hard = levels_for("enchanters")["hard"]
    assert (hard.method, hard.iterations, hard.seconds) == ("halving", 9000, 1.0)
    assert get_level("hard", "enchanters") == hard and get_level("hard") == LEVELS["hard"]
    assert levels_for("cube") == LEVELS
    witches = levels_for("witches")  # issue 35: weaker easy and medium, a hard with the exact endgame, a tree by hand
    assert [witches[n].iterations for n in ("easy", "medium", "hard")] == [70, 300, 15000]
    assert (witches["hard"].exact, witches["hard"].tree) == (True, "hands")
    assert list(witches) == list(LEVELS)
    enchanters = levels_for("enchanters")  # issue 35: levels parted by blunders, hard the surest
    assert [(enchanters[n].method, enchanters[n].iterations, enchanters[n].blunder)
            for n in ("random", "easy", "medium", "hard")] == [
        ("ismcts", 0, 0.0), ("ismcts", 1, 0.9), ("ismcts", 1, 0.3), ("halving", 9000, 0.0)]
    assert list(enchanters) == list(LEVELS) and enchanters["random"] == LEVELS["random"]
    with pytest.raises(KeyError):
        get_level("grandmaster", "enchanters")


@pytest.mark.parametrize("game", [ENCHANTERS, TOY], ids=lambda g: g.info.id)
def test_choose_move_plays_the_method_the_game_names_for_a_level(game: Game) -> None:
    state, seat = first_decision(game, 2, seed=3)
    level = dataclasses.replace(get_level("hard", game.info.id), iterations=240, seconds=0.0)
    chosen = choose_move(game, state, seat, level, random.Random(5))
    if game is ENCHANTERS:
        assert chosen == halving_search(game, state, seat, random.Random(5), 240).move
    else:
        assert chosen == search(game, state, seat, random.Random(5), iterations=240).move
