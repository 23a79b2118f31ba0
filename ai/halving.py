"""Paired sequential halving at the root: each candidate move judged by playouts, the weaker half
dropped round after round (Karnin, Koren & Somekh 2013), every move of a round played out in the
same sampled worlds.

A world is one determinization of what the seat cannot see plus one seed for the chance and the
playout that follow each move, so the luck of the draw is shared and the comparison between two
moves measures the moves. It has no tree below the root: at The Enchanters' Gathering one level of
greedy playouts judged root moves as well as the full tree search did (flat UCB 0.605 of 400 games
against `easy`, the tree 0.605), so the budget buys more playouts of the root's moves instead.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from ai.search import Progress, SearchResult
from engine.core import CHANCE, Game, M, S, Seat


def halving_search(
    game: Game[S, M],
    state: S,
    seat: Seat,
    rng: random.Random,
    iterations: int,
    seconds: float = 0.0,
    on_progress: Callable[[Progress], None] | None = None,
    progress_every: float = 0.25,
    exact: bool = False,
) -> SearchResult[M]:
    """The move of `seat` in `state` that survives halving within `iterations` playouts (and
    `seconds` of the searching thread's CPU time when above 0: a round cut short judges the moves
    on the worlds it had).
    Every round plays at least one world, so a budget below the moves times the rounds is overspent.

    `visits` counts each move's playouts, `values` its mean reward for the seat. With `exact`, a
    world the game can solve after a move (`Game.solved_returns`) takes that value, not a playout."""
    legal = game.legal_moves(state)
    if iterations <= 0:
        raise ValueError("a halving search needs a playout budget")
    if game.current_player(state) != seat or not legal:
        raise ValueError(f"seat {seat} is not to act")
    determinize = game.determinizer(state, seat)
    step, current_player, sample_chance = game.step, game.current_player, game.sample_chance
    playout, returns = game.playout, game.returns
    solved = game.solved_returns if exact and game.solvable(state) else None
    clock = time.thread_time  # CPU time of this thread, as ai.search
    start = clock()
    deadline = start + seconds if seconds > 0 else math.inf
    next_report = start + progress_every if on_progress is not None else math.inf
    alive = list(range(len(legal)))
    total = [0.0] * len(legal)
    played = [0] * len(legal)
    budget = iterations
    rounds = max(1, math.ceil(math.log2(len(legal))))
    out_of_time = False
    for round_index in range(rounds):
        if len(alive) == 1 or out_of_time:
            break
        worlds = max(1, budget // (len(alive) * (rounds - round_index)))
        for _ in range(worlds):
            world = determinize(rng)
            seed = rng.getrandbits(64)
            for k in alive:
                sample = world.clone()
                luck = random.Random(seed)
                step(sample, legal[k])
                while current_player(sample) == CHANCE:
                    step(sample, sample_chance(sample, luck))
                exact_rewards = None
                if current_player(sample) >= 0 and solved is not None:
                    exact_rewards = solved(sample)
                if exact_rewards is not None:
                    rewards = exact_rewards
                elif current_player(sample) < 0:
                    rewards = returns(sample)
                else:
                    rewards = playout(sample, luck)
                total[k] += rewards[seat]
                played[k] += 1
                budget -= 1
            now = clock()
            if now >= next_report and on_progress is not None:
                on_progress(_progress(legal, alive, total, played, iterations - budget, now - start))
                next_report = now + progress_every
            if now >= deadline:
                out_of_time = True
                break
        # stable: among equal sums the earlier legal move stays ahead
        alive.sort(key=lambda k: -total[k])
        alive = alive[:max(1, (len(alive) + 1) // 2)]
    elapsed = clock() - start
    if on_progress is not None:
        on_progress(_progress(legal, alive, total, played, iterations - budget, elapsed))
    visits = {legal[k]: played[k] for k in range(len(legal)) if played[k]}
    values = {legal[k]: total[k] / played[k] for k in range(len(legal)) if played[k]}
    return SearchResult(legal[alive[0]], iterations - budget, elapsed, visits, values)


def _progress(legal: list[M], alive: list[int], total: list[float], played: list[int], done: int,
              elapsed: float) -> Progress:
    """The leader so far: the surviving move with the best sum over the worlds they share."""
    best = max(alive, key=lambda k: total[k])
    return Progress(done, elapsed, legal[best], played[best])
