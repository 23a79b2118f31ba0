"""OpenSpiel side by side: any Coven game as an OpenSpiel game, OpenSpiel's ISMCTS as a Coven policy.

Two uses, both optional (`pip install -e '.[bench]'` brings `open_spiel`):

- `make bench` times OpenSpiel's C++ and Python ISMCTS on its own trick-taking
  games (`hearts` 4p, `oh_hell` 3p) next to Coven's search on witches at the
  same simulation count, in the same run, and prints the ratios
  (`python -m ai.openspiel`).
- `make strength` plays Coven's levels against OpenSpiel's ISMCTSBot on a Coven
  game through `CovenSpielGame`, at equal simulations (`openspiel_policy`).

The adapter is generic: moves map to action ids through a table that grows as
moves are met (Coven moves are hashable value objects), information-state
strings are the seat's view at the root followed by the log entries the seat
saw since, and resampling is the game's own `determinize`.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts as py_ismcts
from open_spiel.python.algorithms import mcts as py_mcts

from ai.search import search
from bench.search import write_report
from engine.core import CHANCE, TERMINAL, AnyGame, Move, Seat, State
from engine.registry import get_game

#: UCT constant used for every bot in the comparison (OpenSpiel's examples use 2.0 on
#: returns in [-1, 1]; Coven's 0.7 is for rewards in [0, 1]).
OPENSPIEL_UCT_C = 2.0
#: Upper bound on distinct action ids declared to OpenSpiel (the table fills lazily).
MAX_ACTIONS = 4096


class ActionTable:
    """Coven moves <-> OpenSpiel action ids, assigned in order of first use."""

    def __init__(self) -> None:
        self.ids: dict[Move, int] = {}
        self.moves: list[Move] = []

    def id_of(self, move: Move) -> int:
        found = self.ids.get(move)
        if found is None:
            found = self.ids[move] = len(self.moves)
            self.moves.append(move)
        return found


class CovenSpielGame(pyspiel.Game):  # type: ignore[misc]
    """A Coven game with a fixed player count, seen through OpenSpiel's `Game` interface."""

    def __init__(self, game: AnyGame, players: int) -> None:
        self.coven = game
        self.players = players
        self.table = ActionTable()
        game_type = pyspiel.GameType(
            short_name=f"coven_{game.info.id}",
            long_name=f"Coven {game.info.title}",
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.GENERAL_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=game.info.max_players,
            min_num_players=game.info.min_players,
            provides_information_state_string=True,
            provides_information_state_tensor=False,
            provides_observation_string=False,
            provides_observation_tensor=False,
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=MAX_ACTIONS,
            max_chance_outcomes=MAX_ACTIONS,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            max_game_length=10_000,
        )
        super().__init__(game_type, info, {})

    def new_initial_state(self) -> CovenSpielState:
        state = self.coven.new_state(self.players, self.coven.validate_options({}))
        return CovenSpielState(self, state, self.infos_for(state))

    def wrap(self, state: State) -> CovenSpielState:
        """An OpenSpiel state for a Coven state; each seat's information starts at its view."""
        return CovenSpielState(self, state.clone(), self.infos_for(state))

    def infos_for(self, state: State, skip: Seat | None = None) -> list[str]:
        """Each seat's view as a string (views build their dicts in a fixed order, so `repr`
        is canonical); the seat `skip` gets an empty string, to be filled by the caller."""
        view = self.coven.view
        return ["" if seat == skip else repr(view(state, seat)) for seat in range(self.players)]


class CovenSpielState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state holding a Coven state and what each seat has seen of its history."""

    def __init__(self, game: CovenSpielGame, state: State, infos: list[str] | None) -> None:
        super().__init__(game)
        self._spiel_game = game
        self.coven_state = state
        self.infos = infos

    # what OpenSpiel's Python ISMCTS and MCTS evaluators call --------------------

    def get_game(self) -> CovenSpielGame:
        return self._spiel_game

    def current_player(self) -> int:
        player = self._spiel_game.coven.current_player(self.coven_state)
        if player == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if player == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        return player

    def is_chance_node(self) -> bool:
        return self._spiel_game.coven.current_player(self.coven_state) == CHANCE

    def is_terminal(self) -> bool:
        return self._spiel_game.coven.current_player(self.coven_state) == TERMINAL

    def legal_actions(self, player: int | None = None) -> list[int]:
        game = self._spiel_game
        if game.coven.current_player(self.coven_state) < 0:
            return []
        id_of = game.table.id_of
        return sorted(id_of(move) for move in game.coven.legal_moves(self.coven_state))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        game = self._spiel_game
        id_of = game.table.id_of
        return [(id_of(move), p) for move, p in game.coven.chance_outcomes(self.coven_state)]

    def apply_action(self, action: int) -> None:
        game = self._spiel_game
        move = game.table.moves[action]
        if self.infos is None:  # a rollout clone: nobody asks for its information any more
            game.coven.step(self.coven_state, move)
            return
        log_entry = game.coven.log_entry
        self.infos = [
            f"{info}|{log_entry(self.coven_state, move, seat)!r}"
            for seat, info in enumerate(self.infos)
        ]
        game.coven.step(self.coven_state, move)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._spiel_game.players
        return list(self._spiel_game.coven.returns(self.coven_state))

    def information_state_string(self, player: int | None = None) -> str:
        if player is None:
            player = self.current_player()
        assert self.infos is not None, "a rollout clone carries no information strings"
        return self.infos[player]

    def clone(self) -> CovenSpielState:
        """A copy for an evaluator's rollout: OpenSpiel's ISMCTS clones only to evaluate a leaf,
        so the copy drops the information strings and steps at the game's own speed."""
        return CovenSpielState(self._spiel_game, self.coven_state.clone(), None)

    def resampled(self, seat: Seat, rng: random.Random) -> CovenSpielState:
        """A determinization consistent with `seat`'s information.

        `seat` keeps its information string; the other seats' strings are their views
        in the sample (as OpenSpiel's own games do), so the search never sees them in
        the real state.
        """
        game = self._spiel_game
        sample = game.coven.determinize(self.coven_state, seat, rng)
        if sample is self.coven_state:
            sample = sample.clone()
        assert self.infos is not None
        infos = game.infos_for(sample, skip=seat)
        infos[seat] = self.infos[seat]
        return CovenSpielState(game, sample, infos)

    def __str__(self) -> str:
        return repr(self.coven_state)


class PlayoutEvaluator(py_mcts.Evaluator):  # type: ignore[misc]
    """OpenSpiel's random-rollout evaluator at the game's own speed: one `Game.random_playout`.

    Distributionally `RandomRolloutEvaluator(1)` (uniformly random moves and chance),
    without numpy's per-step overhead, so the comparison measures OpenSpiel's tree
    search, not its rollout loop. (Coven's search plays `Game.playout`, which may
    know the game: at witches it keeps the trump.)
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def evaluate(self, state: CovenSpielState) -> np.ndarray:
        game = state.get_game().coven
        return np.array(game.random_playout(state.coven_state.clone(), self.rng))

    def prior(self, state: CovenSpielState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        actions = state.legal_actions()
        return [(action, 1.0 / len(actions)) for action in actions]


class OpenSpielPolicy:
    """OpenSpiel's Python ISMCTSBot (random-rollout evaluator) as a Coven arena policy.

    Picklable, so arena matches can run it in worker processes; the adapter is built
    lazily per process and game.
    """

    def __init__(self, simulations: int, uct_c: float = OPENSPIEL_UCT_C) -> None:
        self.simulations = simulations
        self.uct_c = uct_c
        self._adapters: dict[tuple[str, int], CovenSpielGame] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"simulations": self.simulations, "uct_c": self.uct_c, "_adapters": {}}

    def __call__(self, game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
        n = game.num_players(state)
        key = (game.info.id, n)
        adapter = self._adapters.get(key)
        if adapter is None:
            adapter = self._adapters[key] = CovenSpielGame(game, n)
        root = adapter.wrap(state)
        legal: list[Move] = game.legal_moves(state)
        if len(legal) == 1:
            return legal[0]
        seed = rng.randrange(2**31)
        sampler_rng = random.Random(seed)
        bot = py_ismcts.ISMCTSBot(
            game=adapter,
            evaluator=PlayoutEvaluator(random.Random(seed)),
            uct_c=self.uct_c,
            max_simulations=self.simulations,
            random_state=np.random.RandomState(seed),
        )
        bot.set_resampler(lambda s, player: s.resampled(player, sampler_rng))
        policy = bot.run_search(root)
        action: int = max(policy, key=lambda pair: pair[1])[0]
        return adapter.table.moves[action]


# --- the speed comparison -------------------------------------------------------------


def first_decision(state: Any, rng: random.Random) -> Any:
    """Advance an OpenSpiel state with random chance and moves to the first real choice."""
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        elif len(state.legal_actions()) > 1:
            return state
        else:
            state.apply_action(state.legal_actions()[0])
    raise ValueError("the game ended before any choice")


def openspiel_rates(name: str, simulations: int, repeats: int = 3) -> dict[str, float]:
    """Simulations per CPU second of OpenSpiel's C++ and Python ISMCTS at the first decision of `name`."""
    game = pyspiel.load_game(name)
    rng = random.Random(7)
    rates: dict[str, float] = {}
    cpp_times, py_times = [], []
    for repeat in range(repeats):
        state = first_decision(game.new_initial_state(), rng)
        cpp = pyspiel.ISMCTSBot(
            repeat, pyspiel.RandomRolloutEvaluator(1, repeat), OPENSPIEL_UCT_C, simulations,
            -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        started = time.process_time()
        cpp.step(state)
        cpp_times.append(time.process_time() - started)
        py = py_ismcts.ISMCTSBot(
            game, py_mcts.RandomRolloutEvaluator(1, np.random.RandomState(repeat)),
            OPENSPIEL_UCT_C, simulations, random_state=np.random.RandomState(repeat),
        )
        started = time.process_time()
        py.step(state)
        py_times.append(time.process_time() - started)
    rates["cpp"] = simulations / min(cpp_times)
    rates["python"] = simulations / min(py_times)
    return rates


def coven_rate(game_id: str, players: int, simulations: int, repeats: int = 3) -> float:
    """Simulations per CPU second of Coven's ISMCTS at the first real choice of a seeded game."""
    game = get_game(game_id)
    rng = random.Random(7)
    times = []
    for repeat in range(repeats):
        state = game.new_state(players, game.validate_options({}))
        while (player := game.current_player(state)) == CHANCE or (
            player >= 0 and len(game.legal_moves(state)) < 2
        ):
            if player == CHANCE:
                game.step(state, game.sample_chance(state, rng))
            else:
                game.step(state, game.legal_moves(state)[0])
        started = time.process_time()
        search(game, state, player, random.Random(repeat), iterations=simulations,
               seconds=600.0, stop_early=False)
        times.append(time.process_time() - started)
    return simulations / min(times)


#: (OpenSpiel game, players) compared with Coven's witches at the same player count.
PAIRS = (("hearts", 4), ("oh_hell(players=3)", 3))


def compare(simulations: int, repeats: int = 5) -> list[dict[str, Any]]:
    """One row per pair: simulations/s of each search and Coven's ratios, all from this run.

    The searches take turns, `repeats` times, and each keeps its best: a burst of
    load on a shared machine then slows all of them, not one.
    """
    rows = []
    print(f"{'openspiel game':<20}{'witches':>8}{'coven/s':>10}{'os C++/s':>10}{'os py/s':>10}"
          f"{'vs C++':>8}{'vs py':>8}")
    for name, players in PAIRS:
        theirs = {"cpp": 0.0, "python": 0.0}
        ours = 0.0
        for _ in range(repeats):
            for engine, rate in openspiel_rates(name, simulations, repeats=1).items():
                theirs[engine] = max(theirs[engine], rate)
            ours = max(ours, coven_rate("witches", players, simulations, repeats=1))
        row = {
            "openspiel_game": name,
            "witches_players": players,
            "simulations": simulations,
            "coven_per_s": round(ours),
            "openspiel_cpp_per_s": round(theirs["cpp"]),
            "openspiel_python_per_s": round(theirs["python"]),
            "coven_vs_cpp": round(ours / theirs["cpp"], 3),
            "coven_vs_python": round(ours / theirs["python"], 3),
        }
        rows.append(row)
        print(f"{name:<20}{players:>7}p{row['coven_per_s']:>10}{row['openspiel_cpp_per_s']:>10}"
              f"{row['openspiel_python_per_s']:>10}{row['coven_vs_cpp']:>8.2f}"
              f"{row['coven_vs_python']:>8.2f}", flush=True)
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: print the side-by-side table (`python -m ai.openspiel`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5, help="turns each search takes (best kept)")
    parser.add_argument("--output", type=Path, default=Path("bench/results/openspiel.json"))
    args = parser.parse_args(argv)
    started = time.perf_counter()
    write_report(args.output, started, rows=compare(args.simulations, args.repeats))


if __name__ == "__main__":
    main()
