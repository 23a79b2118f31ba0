"""`WitchesGame`: the engine protocol for The Witches' Wheel, wired to the rule modules."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.core import CHANCE, TERMINAL, Game, GameInfo, OptionSpec, Outcome, ranks_for
from engine.witches import fast, rules
from engine.witches import view as views
from engine.witches.cards import WHEEL_SIDES, score_of
from engine.witches.moves import MOVE_SCHEMA, move_from_json
from engine.witches.state import OVER, PLAY, WitchesState


class WitchesGame(Game):
    """The Witches' Wheel (rules/witches.md, W1–W14)."""

    info = GameInfo(
        id="witches",
        title="The Witches' Wheel",
        min_players=2,
        max_players=6,
        options=(
            OptionSpec(
                name="wheel",
                description="Side of the Witches' Wheel (W2, W3): the trump value is strongest, "
                "then values count down (decreasing) or up (increasing), wrapping around.",
                default="decreasing",
                choices=WHEEL_SIDES,
            ),
        ),
        rules_file="rules/witches.md",
        hidden_information=True,
        summary="Trick-taking with a turning trump: capture witches, or give one up to become the trump.",
        move_schema=MOVE_SCHEMA,
    )
    snapshot_version = views.SNAPSHOT_VERSION

    # life cycle ------------------------------------------------------------

    def new_state(self, num_players: int, options: Mapping[str, Any] | None = None) -> WitchesState:
        """Every card in the pile; chance deals first (W4)."""
        self.validate_players(num_players)
        options = self.validate_options(options)
        return WitchesState.initial(num_players, options["wheel"] == "increasing")

    def num_players(self, state: WitchesState) -> int:
        return state.n

    def current_player(self, state: WitchesState) -> int:
        phase = state.phase  # chance phases < PLAY < DECIDE < OVER
        if phase < PLAY:
            return CHANCE
        return TERMINAL if phase == OVER else state.turn

    def is_terminal(self, state: WitchesState) -> bool:
        return state.phase == OVER

    # the hot paths are the rule functions themselves (no method indirection)
    step = staticmethod(rules.step)
    legal_moves = staticmethod(rules.legal_moves)
    chance_outcomes = staticmethod(rules.chance_outcomes)
    sample_chance = staticmethod(rules.sample_chance)
    check_move = staticmethod(rules.check_move)
    returns = staticmethod(rules.returns)

    def playout(self, state: WitchesState, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random play to the end, in place (fast path, see `fast.playout`)."""
        return fast.playout(state, rng)

    def determinize(self, state: WitchesState, seat: int, rng: random.Random) -> WitchesState:
        """Redeal the cards `seat` has not seen: other hands and the pile."""
        return fast.determinize(state, seat, rng)

    def outcome(self, state: WitchesState) -> Outcome | None:
        """Scores, winners (W14 tie-break by captured cards) and ranks once all hands are empty."""
        if state.phase != OVER:
            return None
        keys = [(score_of(mask), mask.bit_count()) for mask in state.captured]
        return Outcome(
            scores=tuple(float(score) for score, _ in keys),
            winners=tuple(rules.winners(state)),
            reason="hands_empty",
            ranks=ranks_for(keys),
        )

    # information -------------------------------------------------------------

    def view(self, state: WitchesState, seat: int | None) -> dict[str, Any]:
        return views.view(state, seat)

    def log_entry(self, state: WitchesState, move: Any, seat: int | None) -> Any:
        return views.log_entry(state, move, seat)

    # serialisation -------------------------------------------------------------

    def move_from_json(self, data: Any) -> Any:
        return move_from_json(data)

    def encode(self, state: WitchesState) -> dict[str, Any]:
        return views.encode(state)

    def decode(self, data: Mapping[str, Any]) -> WitchesState:
        return views.decode(data)
