"""`WitchesGame`: the engine protocol for The Witches' Wheel, wired to the rule modules."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from engine.core import Game, GameInfo, Json, OptionSpec, Outcome, Seat
from engine.witches import endgame, evaluation, fast, inference, policy, rules, views
from engine.witches import state as states
from engine.witches.cards import WHEEL_SIDES
from engine.witches.moves import MOVE_SCHEMA, WitchesMove, move_from_json
from engine.witches.state import OVER, WitchesState

Playout = Callable[[WitchesState, random.Random], tuple[float, ...]]

#: How often a MAST or heuristic playout plays a uniformly random card instead of the policy's.
MAST_EPSILON = 0.2
HEURISTIC_EPSILON = 0.5
#: The evaluated playout ("eval"): random tricks before the learned evaluation takes over (docs/bots/experiments.md)
EVAL_TRICKS = 2


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

    def search_playout(self, policy: str) -> Playout:
        """The default playout (""), or one search's: "mast" (move-average sampling: epsilon-greedy
        over each card's mean reward in the search's earlier playouts, `fast.MAST`), "heuristic"
        (epsilon-greedy over a cheap player's card, `fast.HEURISTIC`), every trump kept, or "eval"
        (a few random tricks, then the learned evaluation: `_evaluated_playout`)."""
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
        if policy == "eval" or policy.startswith("eval:"):
            return _evaluated_playout(policy)
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

    def private_key(self, state: WitchesState, seat: Seat) -> int:
        """The seat's hand: every play and trump decision is public, so the hand is all it alone knows."""
        return state.hands[seat]

    def named_policies(self) -> Mapping[str, Callable[[WitchesState, random.Random], WitchesMove]]:
        """The simple hand-written player (`policy.policy_move`), a baseline on the ladder."""
        return {"simple": policy.policy_move}

    def determinize(self, state: WitchesState, seat: Seat, rng: random.Random) -> WitchesState:
        """Redeal the cards `seat` has not seen: other hands and the pile."""
        return views.determinize(state, seat, rng)

    def search_determinizer(self, state: WitchesState, seat: Seat,
                            sampling: str) -> Callable[[random.Random], WitchesState]:
        """"inferred": samples weighted by how likely the other seats' own plays and trump decisions
        were with the hands each gives them (`inference.weighted_determinizer`), in a mixture of every
        style of play; "inferred:NAME+NAME" in those styles alone (`inference.STYLES`), and
        "inferred:NAME+NAME:P" (or "inferred::P", every style) with each likelihood averaged over P
        placements of the seats' past hands."""
        draw = inference.determinizer_named(state, seat, sampling)
        return draw if draw is not None else super().search_determinizer(state, seat, sampling)

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


def _evaluated_playout(name: str) -> Playout:
    """The playout "eval[:k[:endgame]]": at two players, k random tricks (`EVAL_TRICKS` by default),
    every trump kept, then the learned evaluation of the trick start reached (`evaluation`); with
    "endgame", once the pile can no longer deal, random tricks to the end instead. Three or more
    players: the default playout (the evaluation is fitted to two)."""
    parts = name.split(":")
    if len(parts) > 3 or (len(parts) == 3 and parts[2] != "endgame") or \
            (len(parts) > 1 and not parts[1].isdigit()):
        raise KeyError(f"witches has no playout policy {name!r}")
    tricks = int(parts[1]) if len(parts) > 1 else EVAL_TRICKS
    play_endgame = len(parts) == 3
    playout, uniform, evaluate = fast.playout, fast.UNIFORM, evaluation.evaluate

    def evaluated(state: WitchesState, rng: random.Random) -> tuple[float, ...]:
        if state.n != 2:
            return playout(state, rng, True)
        result = playout(state, rng, True, uniform, 1.0, None, tricks, play_endgame)
        return result if result else evaluate(state)
    return evaluated
