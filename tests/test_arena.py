"""The arena: whole games through the checked edge, seat rotation, tie counting, Wilson intervals."""

from __future__ import annotations

import random

import pytest

from ai.arena import paired_difference, play_game, play_match, wilson_interval
from ai.levels import Level
from engine.core import Game, State
from tests.toy_games import TOY


def first_legal(game: Game, state: State, seat: int, rng: random.Random):
    """A deterministic policy: always the first legal move."""
    return game.legal_moves(state)[0]


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = wilson_interval(200, 200)
    assert high == 1.0 and low == pytest.approx(0.9812, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_play_game_is_reproducible_from_its_seed() -> None:
    runs = [play_game(TOY, ["random", first_legal], seed="same") for _ in range(2)]
    assert runs[0][0] == runs[1][0]


def test_match_counts_add_up_and_ties_count_half() -> None:
    result = play_match(TOY, "random", first_legal, games=40, seed="t")
    assert result.games == 40
    assert result.wins + result.ties + result.losses == 40
    assert result.score == pytest.approx(result.wins + result.ties / 2)
    assert result.ties > 0  # toy ties are common: the half-win rule is exercised
    low, high = result.interval()
    assert low <= result.rate <= high


def test_match_across_processes_matches_a_single_process() -> None:
    # an iteration budget only: a time cap would make a loaded machine play differently
    searcher = Level("easy-untimed", 100, 0.0, "easy without its time cap")
    one = play_match(TOY, searcher, "random", games=8, seed="p", processes=1)
    two = play_match(TOY, searcher, "random", games=8, seed="p", processes=2)
    assert (one.wins, one.ties, one.losses) == (two.wins, two.ties, two.losses)


def test_progress_reports_the_running_score_after_every_game_in_order() -> None:
    seen: list[tuple[int, float]] = []
    result = play_match(TOY, "random", first_legal, games=12, seed="t", processes=2,
                        progress=lambda played, score: seen.append((played, score)))
    assert [played for played, _ in seen] == list(range(1, 13))
    assert seen[-1][1] == pytest.approx(result.score)
    assert [score for _, score in seen] == pytest.approx(
        [sum(result.scores[:i]) for i in range(1, 13)])


def test_three_player_match_rotates_the_measured_seat() -> None:
    result = play_match(TOY, first_legal, "random", games=6, seed="r", players=3)
    assert result.games == 6 and result.moves_a > 0


def test_paired_difference_cancels_the_luck_both_matches_share() -> None:
    mean, low, high = paired_difference([1.0, 0.0, 1.0, 0.5], [1.0, 0.0, 0.5, 0.5])
    assert mean == 0.125
    assert low < mean < high
    assert paired_difference([1.0, 0.0], [1.0, 0.0]) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        paired_difference([1.0], [1.0, 0.0])
