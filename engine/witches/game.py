"""`WitchesGame`: the engine protocol for The Witches' Wheel, wired to the rule modules."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from engine.core import Game, GameInfo, Json, OptionSpec, Outcome, Seat
from engine.witches import endgame, fast, policy, rules, views
from engine.witches import state as states
from engine.witches.cards import WHEEL_SIDES
from engine.witches.moves import MOVE_SCHEMA, WitchesMove, move_from_json
from engine.witches.state import OVER, WitchesState

#: How often a MAST or heuristic playout plays a uniformly random card instead of the policy's.
MAST_EPSILON = 0.2
HEURISTIC_EPSILON = 0.5


class WitchesGame(Game[WitchesState, WitchesMove]):
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
        view_schema=views.VIEW_SCHEMA,
    )

    # life cycle ------------------------------------------------------------

    def new_state(self, num_players: int, options: Mapping[str, Any] | None = None) -> WitchesState:
        """Every card in the pile; chance deals first (W4)."""
        self.validate_players(num_players)
        options = self.validate_options(options)
        return WitchesState.initial(num_players, options["wheel"] == "increasing")

    def num_players(self, state: WitchesState) -> int:
        return state.n

    # the search calls these at every step of its walk: the rule functions themselves, not wrappers
    current_player = staticmethod(rules.current_player)

    def is_terminal(self, state: WitchesState) -> bool:
        return state.phase == OVER

    # moves and chance --------------------------------------------------------

    def chance_outcomes(self, state: WitchesState) -> list[tuple[WitchesMove, float]]:
        return rules.chance_outcomes(state)

    def sample_chance(self, state: WitchesState, rng: random.Random) -> WitchesMove:
        return rules.sample_chance(state, rng)

    legal_moves = staticmethod(rules.legal_moves)

    def check_move(self, state: WitchesState, move: WitchesMove) -> None:
        rules.check_move(state, move)

    step = staticmethod(rules.step)

    # results ---------------------------------------------------------------

    def outcome(self, state: WitchesState) -> Outcome | None:
        return rules.outcome(state)

    def returns(self, state: WitchesState) -> tuple[float, ...]:
        return rules.returns(state)

    # search ------------------------------------------------------------------

    def playout(self, state: WitchesState, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random cards to the end, every trump kept (W11), in place (`fast.playout`)."""
        return fast.playout(state, rng, keep_trump=True)

    def search_playout(self, policy: str) -> Callable[[WitchesState, random.Random], tuple[float, ...]]:
        """The default playout (""), or one search's: "mast" (move-average sampling: epsilon-greedy
        over each card's mean reward in the search's earlier playouts, `fast.MAST`) or "heuristic"
        (epsilon-greedy over a cheap player's card, `fast.HEURISTIC`), every trump kept."""
        if policy == "":
            return self.playout
        if policy == "mast":
            stats = fast.mast_table()
            epsilon = MAST_EPSILON

            def mast(state: WitchesState, rng: random.Random) -> tuple[float, ...]:
                return fast.playout(state, rng, True, fast.MAST, epsilon, stats)
            return mast
        if policy == "heuristic":
            epsilon = HEURISTIC_EPSILON

            def heuristic(state: WitchesState, rng: random.Random) -> tuple[float, ...]:
                return fast.playout(state, rng, True, fast.HEURISTIC, epsilon)
            return heuristic
        raise KeyError(f"witches has no playout policy {policy!r}")

    def random_playout(self, state: WitchesState, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random cards and trump decisions to the end, in place (`fast.playout`)."""
        return fast.playout(state, rng, keep_trump=False)

    def solvable(self, state: WitchesState) -> bool:
        """Two players after the last draw (W13): few deals are left to sample, and each one's
        solution serves many (a search there took at most 0.13 s of CPU a move)."""
        return endgame.is_endgame(state)

    def solved_returns(self, state: WitchesState) -> tuple[float, ...] | None:
        """Two players after the last draw (W13): the rest of the hand solved exactly (`endgame`)."""
        if endgame.is_endgame(state):
            return endgame.exact_returns(state)
        return None

    def named_policies(self) -> Mapping[str, Callable[[WitchesState, random.Random], WitchesMove]]:
        """The simple hand-written player (`policy.policy_move`), a baseline on the ladder."""
        return {"simple": policy.policy_move}

    def determinize(self, state: WitchesState, seat: Seat, rng: random.Random) -> WitchesState:
        """Redeal the cards `seat` has not seen: other hands and the pile."""
        return views.determinize(state, seat, rng)

    # information -------------------------------------------------------------

    def view(self, state: WitchesState, seat: Seat | None) -> dict[str, Json]:
        return views.view(state, seat)

    def log_entry(self, state: WitchesState, move: WitchesMove, seat: Seat | None) -> Json:
        return views.log_entry(state, move, seat)

    # serialisation -------------------------------------------------------------

    def move_from_json(self, data: Json) -> WitchesMove:
        return move_from_json(data)

    def encode(self, state: WitchesState) -> dict[str, Json]:
        return states.encode(state)

    def decode(self, data: Mapping[str, Json]) -> WitchesState:
        return states.decode(data)
