"""Perfect-information Monte Carlo: every root move judged in the same sampled worlds, each world
solved exactly where the game can (`Game.solved_returns`), else played out.

The method of card-play programs in Skat and Bridge (Ginsberg's GIB; Long et al. 2010): sample the
hidden cards, treat each sample as an open game, average. It is a test opponent and a level
method: unlike the tree search it keeps no statistics below the root.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from ai.search import Progress, SearchResult, legal_for
from engine.core import CHANCE, Game, M, S, Seat

#: Playouts per world and move where the world cannot be solved.
PLAYOUTS = 4


def pimc_search(
    game: Game[S, M],
    state: S,
    seat: Seat,
    rng: random.Random,
    iterations: int,
    seconds: float = 0.0,
    on_progress: Callable[[Progress], None] | None = None,
    progress_every: float = 0.25,
    exact: bool = True,
) -> SearchResult[M]:
    """The move of `seat` with the best mean reward over sampled worlds: `iterations` evaluations
    (a solved world or `PLAYOUTS` playouts of one move), within `seconds` of CPU when above 0."""
    legal = legal_for(game, state, seat)
    if iterations <= 0:
        raise ValueError("a PIMC search needs an evaluation budget")
    determinize = game.determinizer(state, seat)
    step, current_player, sample_chance = game.step, game.current_player, game.sample_chance
    playout, returns = game.playout, game.returns
    solved = game.solved_returns if exact and game.solvable(state) else None
    clock = time.thread_time
    start = clock()
    deadline = start + seconds if seconds > 0 else float("inf")
    total = [0.0] * len(legal)
    worlds = max(1, iterations // len(legal))
    done = 0
    for _ in range(worlds):
        world = determinize(rng)
        seed = rng.getrandbits(64)
        for k, move in enumerate(legal):
            sample = world.clone()
            luck = random.Random(seed)
            step(sample, move)
            while current_player(sample) == CHANCE:
                step(sample, sample_chance(sample, luck))
            if current_player(sample) < 0:
                total[k] += returns(sample)[seat]
            elif solved is not None and (rewards := solved(sample)) is not None:
                total[k] += rewards[seat]
            else:
                for _ in range(PLAYOUTS):
                    total[k] += playout(sample.clone(), luck)[seat] / PLAYOUTS
            done += 1
        if clock() >= deadline:
            break
    elapsed = clock() - start
    played = done // len(legal)
    best = max(range(len(legal)), key=lambda k: total[k])
    if on_progress is not None:
        on_progress(Progress(done, elapsed, legal[best], played))
    visits = {move: played for move in legal}
    values = {move: total[k] / max(1, played) for k, move in enumerate(legal)}
    return SearchResult(legal[best], done, elapsed, visits, values)
