"""The OpenSpiel adapter: Coven games as OpenSpiel games, OpenSpiel's ISMCTS as a Coven policy."""

from __future__ import annotations

import random

import pytest

from ai.arena import play_game
from ai.openspiel import CovenSpielGame, OpenSpielPolicy, openspiel_rates
from engine import get_game


def test_adapter_plays_witches_through_openspiel_ismcts_to_the_end() -> None:
    game = get_game("witches")
    winners, thinking = play_game(game, [OpenSpielPolicy(30), "random"], seed="openspiel:adapter")
    assert winners and thinking[0] > 0


def test_information_strings_hold_no_hidden_card_of_another_seat() -> None:
    """A seat's information string is its view plus its redacted log: equal in every determinization."""
    game = get_game("witches")
    rng = random.Random(3)
    state = game.new_state(2, game.validate_options({}))
    while game.current_player(state) < 0:
        game.step(state, game.sample_chance(state, rng))
    seat = game.current_player(state)
    adapter = CovenSpielGame(game, 2)
    root = adapter.wrap(state)
    samples = [root.resampled(seat, rng) for _ in range(20)]
    for sample in samples:
        move = game.legal_moves(sample.coven_state)[0]
        sample.apply_action(adapter.table.id_of(move))
    assert {s.information_state_string(seat) for s in samples} == {samples[0].information_state_string(seat)}
    # the other seat's string comes from each sample, never from the real state
    assert len({s.information_state_string(1 - seat) for s in samples}) > 1


def test_action_ids_round_trip_to_moves() -> None:
    game = get_game("witches")
    adapter = CovenSpielGame(game, 3)
    state = adapter.new_initial_state()
    rng = random.Random(1)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            action = rng.choices(actions, probs)[0]
        else:
            action = rng.choice(state.legal_actions())
            move = adapter.table.moves[action]
            assert move in game.legal_moves(state.coven_state)
        state.apply_action(action)
    assert sum(state.returns()) >= 1.0


@pytest.mark.parametrize("name", ["hearts", "oh_hell(players=3)"])
def test_openspiel_reference_searches_run(name: str) -> None:
    rates = openspiel_rates(name, simulations=20, repeats=1)
    assert rates["cpp"] > 0 and rates["python"] > 0
