"""Bot-vs-bot matches through the engine's checked edge, with win rates and Wilson intervals.

Games are played exactly as the match service plays them: chance resolved by
`engine.chance.resolve_chance` from a per-game seed, every move applied with
the checked `Game.apply`. Seats alternate between games so that neither side
keeps the advantage of moving first. A shared win counts as 1/k for k
winners (half, in a two-player game).

    python -m ai.arena witches hard random --games 200 --processes 2
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ai.levels import Level, get_level
from ai.play import choose_move
from engine.chance import resolve_chance
from engine.core import TERMINAL, AnyGame, Move, Seat, State
from engine.registry import get_game

#: A callable policy: (game, state, seat, rng) -> a legal move.
PolicyFn = Callable[[AnyGame, State, Seat, random.Random], Move]
Policy = Level | str | PolicyFn
Job = TypeVar("Job")
Result = TypeVar("Result")
#: One arena game to play: (game, policy a, policy b, players, options, seed, a's seat).
_Job = tuple[AnyGame, Policy, Policy, int, Mapping[str, Any] | None, str, Seat]


@dataclass
class GameRecord:
    """One finished arena game, from the point of view of the first policy ("a")."""

    seat_a: Seat
    score_a: float          # 1 win, 1/k shared win among k winners, 0 loss
    moves_a: int
    seconds_a: float        # thinking CPU time of policy a over the whole game


@dataclass
class MatchResult:
    """Totals of a match between policy a and policy b."""

    games: int
    wins: int               # outright wins of a
    ties: int               # shared wins involving a
    losses: int
    score: float            # wins + shared fractions
    moves_a: int
    seconds_a: float
    scores: tuple[float, ...] = ()  # a's score in each game, in order

    @property
    def rate(self) -> float:
        return self.score / self.games if self.games else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval for a's win rate (95% by default)."""
        return wilson_interval(self.score, self.games, z)

    def seconds_per_move(self) -> float:
        return self.seconds_a / self.moves_a if self.moves_a else 0.0

    def summary(self) -> str:
        low, high = self.interval()
        return (
            f"{self.games} games: {self.wins} won, {self.ties} shared, {self.losses} lost; "
            f"win rate {self.rate:.3f} (95% CI {low:.3f}-{high:.3f}); "
            f"{self.seconds_per_move():.3f} s per move"
        )


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (fractional successes allowed)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def paired_difference(scores: Sequence[float], baseline: Sequence[float],
                      z: float = 1.96) -> tuple[float, float, float]:
    """The mean of `scores` minus `baseline`, game by game (two matches on the same seeds), and its
    normal 95% interval: the luck both matches share cancels, so a small edge shows in fewer games."""
    if len(scores) != len(baseline) or len(scores) < 2:
        raise ValueError("a paired difference needs two matches of the same games, at least two")
    gaps = [a - b for a, b in zip(scores, baseline, strict=True)]
    mean = sum(gaps) / len(gaps)
    spread = math.sqrt(sum((g - mean) ** 2 for g in gaps) / (len(gaps) - 1) / len(gaps))
    return mean, mean - z * spread, mean + z * spread


def play_game(
    game: AnyGame,
    policies: Sequence[Policy],
    seed: str,
    options: Mapping[str, Any] | None = None,
    on_state: Callable[[State], None] | None = None,
) -> tuple[tuple[Seat, ...], list[float]]:
    """Play one game with one policy per seat; return the winners and each seat's thinking time.
    `on_state` sees every state a seat acts in, then the final one (to collect positions)."""
    n = len(policies)
    state = game.new_state(n, game.validate_options(options))
    rng = random.Random(f"{seed}:bots")
    state, drawn = resolve_chance(game, state, seed, 0)
    index = len(drawn)
    thinking = [0.0] * n
    while (seat := game.current_player(state)) != TERMINAL:
        if on_state is not None:
            on_state(state)
        started = time.thread_time()
        move = _act(policies[seat], game, state, seat, rng)
        thinking[seat] += time.thread_time() - started
        state = game.apply(state, move)
        state, drawn = resolve_chance(game, state, seed, index + 1)
        index += 1 + len(drawn)
    if on_state is not None:
        on_state(state)
    outcome = game.outcome(state)
    assert outcome is not None
    return outcome.winners, thinking


def play_match(
    game: AnyGame | str,
    a: Policy,
    b: Policy,
    games: int,
    seed: str = "arena",
    players: int = 2,
    options: Mapping[str, Any] | None = None,
    processes: int = 1,
    progress: Callable[[int, float], None] | None = None,
    first: int = 0,
) -> MatchResult:
    """Play `games` games of policy a against policy b (in all other seats), a's seat rotating:
    games `first` to `first + games - 1` of `seed`, game i seeded `seed:i` with a in seat i mod
    `players` (so a match played on from where another stopped is the same as one long match).
    `progress(played, score)` is told a's running score after each game, in the games' order
    (a long match shows where it stands, and a stopped one what it had reached)."""
    if isinstance(game, str):
        game = get_game(game)
    jobs: list[_Job] = [(game, a, b, players, options, f"{seed}:{i}", i % players)
                        for i in range(first, first + games)]
    records: list[GameRecord] = []

    def collect(played: Iterable[GameRecord]) -> None:
        for record in played:
            records.append(record)
            if progress is not None:
                progress(len(records), sum(r.score_a for r in records))

    collect(map_in_processes(_play_one, jobs, processes))
    return MatchResult(
        games=games,
        wins=sum(1 for r in records if r.score_a == 1.0),
        ties=sum(1 for r in records if 0.0 < r.score_a < 1.0),
        losses=sum(1 for r in records if r.score_a == 0.0),
        score=sum(r.score_a for r in records),
        moves_a=sum(r.moves_a for r in records),
        seconds_a=sum(r.seconds_a for r in records),
        scores=tuple(r.score_a for r in records),
    )


# --- helpers ------------------------------------------------------------------


def map_in_processes(work: Callable[[Job], Result], jobs: Sequence[Job], processes: int) -> Iterator[Result]:
    """`work` over `jobs`, in order, as each finishes: in this process, or in `processes` fresh ones.
    Spawned, not forked: a fork of a process with threads (Redis clients, test servers) can deadlock
    in the child."""
    if processes <= 1:
        yield from (work(job) for job in jobs)
        return
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        yield from pool.imap(work, jobs, chunksize=1)


def _act(policy: Policy, game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    if isinstance(policy, (Level, str)):
        move: Move = choose_move(game, state, seat, policy, rng)
        return move
    return policy(game, state, seat, rng)


class _Counting:
    """Wraps policy a to count its moves (picklable, unlike a closure)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.moves = 0

    def __call__(self, game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
        self.moves += 1
        return _act(self.policy, game, state, seat, rng)


def _play_one(job: _Job) -> GameRecord:
    game, a, b, players, options, seed, seat_a = job
    counted = _Counting(a)
    policies: list[Policy] = [b] * players
    policies[seat_a] = counted
    winners, thinking = play_game(game, policies, seed, options)
    score = 1.0 / len(winners) if seat_a in winners else 0.0
    return GameRecord(seat_a, score, counted.moves, thinking[seat_a])


def print_progress(every: int = 20) -> Callable[[int, float], None]:
    """A `play_match` progress reporter that prints a's running score every `every` games."""

    def report(played: int, score: float) -> None:
        if played % every == 0:
            low, high = wilson_interval(score, played)
            print(f"  {played} games: {score / played:.3f} ({low:.3f}-{high:.3f})", flush=True)

    return report


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: play a match between two levels and print the result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("a", help="level of the measured bot")
    parser.add_argument("b", help="level of its opponents")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", default="arena")
    args = parser.parse_args(argv)
    get_level(args.a), get_level(args.b)
    result = play_match(args.game, args.a, args.b, args.games, args.seed, args.players,
                        processes=args.processes, progress=print_progress())
    print(f"{args.game} {args.players}p: {args.a} vs {args.b}: {result.summary()}")


if __name__ == "__main__":
    main()
