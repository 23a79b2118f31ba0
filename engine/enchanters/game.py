"""`EnchantersGame`: the engine protocol for The Enchanters' Gathering, wired to the rule modules."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.core import CHANCE, TERMINAL, Game, GameInfo, Outcome, ranks_for
from engine.enchanters import policy, rules, views
from engine.enchanters import state as states
from engine.enchanters.moves import MOVE_SCHEMA, move_from_json
from engine.enchanters.state import OVER, TAKE1, EnchantersState

#: A loser's return: this share of their points out of 15 (winners get 1).
LOSER_POINTS_SHARE = 0.1


class EnchantersGame(Game):
    """The Enchanters' Gathering (rules/enchanters.md, E1–E23)."""

    info = GameInfo(
        id="enchanters",
        title="The Enchanters' Gathering",
        min_players=2,
        max_players=6,
        options=(),
        rules_file="rules/enchanters.md",
        hidden_information=True,
        summary="Set collection: gather three Enchanters, earn hidden Magic Objects, reach 15 Spell Points.",
        move_schema=MOVE_SCHEMA,
    )
    snapshot_version = states.SNAPSHOT_VERSION

    # life cycle ------------------------------------------------------------

    def new_state(self, num_players: int, options: Mapping[str, Any] | None = None) -> EnchantersState:
        """Every card in the deck; chance lays out the table, then draws the first player (E8)."""
        self.validate_players(num_players)
        self.validate_options(options)
        return EnchantersState.initial(num_players)

    def num_players(self, state: EnchantersState) -> int:
        return state.n

    def current_player(self, state: EnchantersState) -> int:
        phase = state.phase
        if phase < TAKE1:
            return CHANCE
        return TERMINAL if phase == OVER else state.turn

    def is_terminal(self, state: EnchantersState) -> bool:
        return state.phase == OVER

    def chance_outcomes(self, state: EnchantersState) -> list[tuple[Any, float]]:
        return rules.chance_outcomes(state)

    def sample_chance(self, state: EnchantersState, rng: random.Random) -> Any:
        return rules.sample_chance(state, rng)

    def legal_moves(self, state: EnchantersState) -> list[Any]:
        return rules.legal_moves(state)

    def step(self, state: EnchantersState, move: Any) -> None:
        rules.step(state, move)

    def check_move(self, state: EnchantersState, move: Any) -> None:
        rules.check_move(state, move)

    def playout(self, state: EnchantersState, rng: random.Random) -> tuple[float, ...]:
        """The cheap greedy policy of `policy.playout` and sampled chance to the end (heavy playout)."""
        policy.playout(state, rng)
        return self.returns(state)

    def heuristic_move(self, state: EnchantersState, rng: random.Random) -> Any:
        """The greedy playout policy's move (`policy.policy_move`)."""
        return policy.policy_move(state, rng)

    # results ---------------------------------------------------------------

    def outcome(self, state: EnchantersState) -> Outcome | None:
        if state.phase != OVER:
            return None
        scores = tuple(float(rules.points(state, p)) for p in range(state.n))
        keys = [(p in state.winners, scores[p]) for p in range(state.n)]
        return Outcome(
            scores=scores,
            winners=state.winners,
            reason=states.REASONS[state.reason],
            ranks=ranks_for(keys),
        )

    def returns(self, state: EnchantersState) -> tuple[float, ...]:
        """1 for a winner; a loser gets LOSER_POINTS_SHARE x points / 15 (below 0.1)."""
        winners = state.winners
        return tuple(
            1.0 if p in winners else LOSER_POINTS_SHARE * min(rules.points(state, p), 14) / 15
            for p in range(state.n)
        )

    # information -------------------------------------------------------------

    def view(self, state: EnchantersState, seat: int | None) -> dict[str, Any]:
        return views.view(state, seat)

    def log_entry(self, state: EnchantersState, move: Any, seat: int | None) -> Any:
        return views.log_entry(state, move, seat)

    def determinize(self, state: EnchantersState, seat: int, rng: random.Random) -> EnchantersState:
        return views.determinize(state, seat, rng)

    # serialisation -------------------------------------------------------------

    def move_from_json(self, data: Any) -> Any:
        return move_from_json(data)

    def encode(self, state: EnchantersState) -> dict[str, Any]:
        return states.encode(state)

    def decode(self, data: Mapping[str, Any]) -> EnchantersState:
        return states.decode(data)
