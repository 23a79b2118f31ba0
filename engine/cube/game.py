"""`CubeGame`: the engine protocol for The Magic Cube, wired to the rule modules."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from engine.core import Game, GameInfo, Json, Outcome, Seat
from engine.cube import fast, rules, views
from engine.cube import state as states
from engine.cube.moves import MOVE_SCHEMA, CubeMove, move_from_json
from engine.cube.state import OVER, CubeState


class CubeGame(Game[CubeState, CubeMove]):
    """The Magic Cube (rules/cube.md, C1–C16): roll, take an object, turn the cube, hope nothing falls out."""

    info = GameInfo(
        id="cube",
        title="The Magic Cube",
        min_players=2,
        max_players=5,
        options=(),
        rules_file="rules/cube.md",
        hidden_information=False,
        summary=(
            "Roll the symbol die, drop the magic object into the cube and turn it "
            "without letting anything fall out; the fewest objects in front of you wins."
        ),
        move_schema=MOVE_SCHEMA,
        view_schema=views.VIEW_SCHEMA,
    )

    # life cycle ------------------------------------------------------------

    def new_state(self, num_players: int, options: Mapping[str, Any] | None = None) -> CubeState:
        """C1, C5: full lid, empty cube with violet up; chance draws the first player (C6)."""
        self.validate_players(num_players)
        self.validate_options(options)
        return CubeState(num_players)

    def num_players(self, state: CubeState) -> int:
        return state.n

    def current_player(self, state: CubeState) -> int:
        return rules.current_player(state)

    def is_terminal(self, state: CubeState) -> bool:
        return state.phase == OVER

    # moves and chance --------------------------------------------------------

    def chance_outcomes(self, state: CubeState) -> list[tuple[CubeMove, float]]:
        return rules.chance_outcomes(state)

    def sample_chance(self, state: CubeState, rng: random.Random) -> CubeMove:
        return rules.sample_chance(state, rng)

    def legal_moves(self, state: CubeState) -> list[CubeMove]:
        return rules.legal_moves(state)

    def check_move(self, state: CubeState, move: CubeMove) -> None:
        rules.check_move(state, move)

    def step(self, state: CubeState, move: CubeMove) -> None:
        rules.step(state, move)

    # results ---------------------------------------------------------------

    def outcome(self, state: CubeState) -> Outcome | None:
        return rules.outcome(state)

    def returns(self, state: CubeState) -> tuple[float, ...]:
        return rules.returns(state)

    # search ------------------------------------------------------------------

    def playout(self, state: CubeState, rng: random.Random) -> tuple[float, ...]:
        """The careful player's choices and sampled chance to the end, in place (`fast.playout`)."""
        return fast.playout(state, rng, careful=True)

    def random_playout(self, state: CubeState, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random choices and sampled chance to the end, in place (`fast.playout`)."""
        return fast.playout(state, rng, careful=False)

    def heuristic_move(self, state: CubeState, rng: random.Random) -> CubeMove:
        """The careful player's move (`fast.careful_move`): the search tries it first."""
        return fast.careful_move(state)

    def position_key(self, state: CubeState) -> tuple[int, ...]:
        """The phase, the turn in progress, the counts (`rules.position_key`)."""
        return rules.position_key(state)

    def named_policies(self) -> Mapping[str, Callable[[CubeState, random.Random], CubeMove]]:
        """The careful player (`fast.careful_move`), a baseline on the ladder."""
        return {"careful": lambda state, _rng: fast.careful_move(state)}

    def determinize(self, state: CubeState, seat: Seat, rng: random.Random) -> CubeState:
        return views.determinize(state, seat, rng)

    # information -------------------------------------------------------------

    def view(self, state: CubeState, seat: Seat | None) -> dict[str, Json]:
        return views.view(state, seat)

    def log_entry(self, state: CubeState, move: CubeMove, seat: Seat | None) -> Json:
        return views.log_entry(state, move, seat)

    # serialisation -------------------------------------------------------------

    def move_from_json(self, data: Json) -> CubeMove:
        return move_from_json(data)

    def encode(self, state: CubeState) -> dict[str, Json]:
        return states.encode(state)

    def decode(self, data: Mapping[str, Json]) -> CubeState:
        return states.decode(data)
