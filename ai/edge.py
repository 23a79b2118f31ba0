"""How much expectimax gains over a game's heuristic player, decision by decision (issue 35).

The heuristic player (`Game.heuristic_move`) plays every seat of two-player games, chance resolved
as the arena resolves it. At each decision with a choice, one expectimax search picks a move; when
it differs from the heuristic's, a second search with other seeds values both, and the gap is an
unbiased estimate of the expected win share that switching this one decision gains, the heuristic
playing on. Summed over a seat's decisions in a game it estimates what the search's choices are
worth against the heuristic player. The first search's own gap, biased upwards by its noise, is
reported too, as an upper bound.

    python -m ai.edge cube --games 60 --playouts 40000 --depth 3
"""

from __future__ import annotations

import argparse
import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from ai.expectimax import expectimax_search
from engine.chance import resolve_chance
from engine.core import TERMINAL, AnyGame
from engine.registry import get_game


@dataclass
class Edge:
    """Gains per decision, by the kind of move the heuristic chose, over `games` games."""

    games: int
    gains: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    upper: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    switched: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def per_game(self) -> tuple[float, float]:
        """The estimated gain of one seat in one game, and the half-width of its 95% interval."""
        every = [gain for gains in self.gains.values() for gain in gains]
        per_seat = len(every) / (2 * self.games)
        mean, half = _mean(every)
        return per_seat * mean, per_seat * half


def measure(game: AnyGame, games: int, playouts: int, depth: int, seed: str = "edge") -> Edge:
    """Play `games` two-player games of the heuristic player against itself, judging its choices."""
    edge = Edge(games)
    for i in range(games):
        game_seed = f"{seed}:{i}"
        state, drawn = resolve_chance(game, game.new_state(2), game_seed, 0)
        index = len(drawn)
        while (seat := game.current_player(state)) != TERMINAL:
            rng = random.Random(f"{game_seed}:{index}")
            move = game.heuristic_move(state, rng)
            if move is None:
                raise ValueError(f"{game.info.id} has no heuristic player to measure")
            if len(game.legal_moves(state)) > 1:
                kind = type(move).__name__
                pick = expectimax_search(game, state, seat, rng, playouts, depth=depth)
                edge.upper[kind].append(pick.values[pick.move] - pick.values[move])
                gain = 0.0
                if pick.move != move:
                    edge.switched[kind] += 1
                    judge = expectimax_search(game, state, seat, random.Random(f"{game_seed}:{index}:judge"),
                                              playouts, depth=depth)
                    gain = judge.values[pick.move] - judge.values[move]
                edge.gains[kind].append(gain)
            state = game.apply(state, move)
            state, drawn = resolve_chance(game, state, game_seed, index + 1)
            index += 1 + len(drawn)
    return edge


def report(edge: Edge) -> str:
    """The figures, one line per kind of decision and one for the game."""
    lines = []
    for kind, gains in edge.gains.items():
        mean, half = _mean(gains)
        upper, _ = _mean(edge.upper[kind])
        lines.append(f"{kind}: {len(gains)} decisions, {edge.switched[kind]} switched; gain "
                     f"{mean:+.4f} (±{half:.4f}) a decision, same-seed gap {upper:+.4f}")
    gain, half = edge.per_game()
    lines.append(f"{edge.games} games: a seat's gain {gain:+.4f} (±{half:.4f}) a game, "
                 f"an expected score of {0.5 + gain:.3f} against the heuristic player")
    return "\n".join(lines)


def _mean(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its normal 95% interval."""
    if not values:
        return 0.0, 0.0
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, math.inf
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values))
    return mean, 1.96 * spread


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--playouts", type=int, default=40000)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--seed", default="edge")
    args = parser.parse_args(argv)
    print(report(measure(get_game(args.game), args.games, args.playouts, args.depth, args.seed)))


if __name__ == "__main__":
    main()
