"""The belief measurement (`ai.witches_belief`): what it counts, how it scores, and that its
positions and scores replay for a seed."""

from __future__ import annotations

import pickle

import pytest

from ai.witches_belief import (
    FIRST_TRICK,
    PER_GAME,
    Position,
    card_chances,
    game_positions,
    main,
    opponent,
    sampler_named,
    score,
    searcher,
)
from engine.witches import GAME
from engine.witches.cards import BIT, cards_of


@pytest.fixture(scope="module")
def positions() -> list[Position]:
    """The measured seat's decisions in one game of cheap searches against themselves."""
    level = searcher(20)
    return game_positions((level, level, "belief-test", 1))


def test_positions_are_the_measured_seats_choices_from_the_third_trick(positions: list[Position]) -> None:
    assert 0 < len(positions) <= PER_GAME
    for p in positions:
        assert p.seat == 1 and p.other == 0  # game 1: the measured seat sits second
        assert GAME.current_player(p.state) == p.seat
        assert len(p.state.tricks) >= FIRST_TRICK and len(GAME.legal_moves(p.state)) > 1


def test_positions_replay_for_a_seed(positions: list[Position]) -> None:
    level = searcher(20)
    again = game_positions((level, level, "belief-test", 1))
    assert [(p.state.hands, p.state.pile, p.state.tricks) for p in again] == \
        [(p.state.hands, p.state.pile, p.state.tricks) for p in positions]


def test_a_sampler_that_knows_the_hand_scores_zero(positions: list[Position]) -> None:
    p = positions[-1]
    chances = card_chances(lambda rng: p.state.clone(), p, samples=5)
    assert score(p, chances).brier == 0.0
    assert set(chances) == set(cards_of(p.state.hands[p.other] | p.state.pile))


@pytest.mark.parametrize("spec", ["uniform", "inferred:search", "inferred:search:2,worlds=50,temper=0.7"])
def test_chances_add_up_to_the_other_hand(positions: list[Position], spec: str) -> None:
    """Every deal gives the other seat its whole hand from the unseen cards, so the chances add up to
    its size: a sampler cannot score well by leaving cards out."""
    p = positions[-1]
    chances = card_chances(sampler_named(spec, p), p, samples=40)
    assert sum(chances.values()) == pytest.approx(p.state.hands[p.other].bit_count())
    assert 0.0 < score(p, chances).brier < 1.0


def test_scores_by_hand() -> None:
    """Certainty on the right cards scores 0; an even chance on every card scores 1/4 and log 2."""
    p = Position(GAME.new_state(2, GAME.validate_options({})), 0, 1)
    p.state.hands[1] = BIT[0] | BIT[1]
    p.state.pile = BIT[2] | BIT[3]
    assert score(p, {0: 1.0, 1: 1.0, 2: 0.0, 3: 0.0}).brier == 0.0
    even = score(p, dict.fromkeys([0, 1, 2, 3], 0.5))
    assert even.brier == 0.25 and even.log_loss == pytest.approx(0.6931, abs=1e-4)


@pytest.mark.parametrize("spec", ["random", "uniform,worlds=10", "inferred:search,depth=3"])
def test_unknown_samplers_are_refused(positions: list[Position], spec: str) -> None:
    with pytest.raises(ValueError, match="unknown"):
        sampler_named(spec, positions[-1])


def test_an_opponent_is_named_or_imported_by_name() -> None:
    from tests.witches_opponents import strong_player
    assert opponent("self", 50) == searcher(50)
    assert opponent("tests.witches_opponents:strong_player", 50) is strong_player
    for name in ("strong", "tests.witches_opponents:nobody", "no.such.module:player"):
        with pytest.raises(ValueError, match="unknown opponent"):
            opponent(name, 50)


def test_command_line_collects_then_scores(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "positions.pkl")
    main([path, "--games", "2", "--simulations", "10", "--seed", "belief-cli", "--processes", "1"])
    with open(path, "rb") as f:
        kept = pickle.load(f)
    assert kept and all(len(p) == 3 for p in kept)
    main([path, "--score", "uniform", "inferred:search"])
    out = capsys.readouterr().out
    assert f"{len(kept)} positions" in out
    assert "| `uniform` |" in out and "| `inferred:search` |" in out
