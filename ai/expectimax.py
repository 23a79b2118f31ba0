"""Expectimax over every chance outcome to a fixed depth, the leaves valued by playouts that share
their random numbers: a search for games whose decisions are few and whose luck is everything.

Each chance node averages over every outcome with its probability (`Game.chance_outcomes`), each
player node takes the move best for the seat to act (max-n: every seat maximises its own share),
and a player node `depth` player nodes below the root is a leaf. A leaf's value is each seat's mean
win share (1/k for k winners, as the arena counts) over the same `playouts` seeded playouts of the
game's own policy (`Game.playout`): the value of the position if everyone plays that policy from
there, with common random numbers, so two leaves that differ a little are compared by the same
luck. Positions reached twice (`Game.position_key`) are valued once. The budget is playouts per
move, shared evenly between the leaves: the search goes as deep as the level allows while every
leaf still gets `MIN_PLAYOUTS`, so a decision with few outcomes ahead is judged by many playouts
(the noise of a leaf, not its depth, is what blurs the small differences between moves). The
search is exact over the die given that leaf value. It has no pruning (Ballard's Star1/Star2 need
bounded values and a two-player zero-sum game; a transposition table was simpler, and the cost is
in the playouts, not in the tree). It reads the whole state, so it plays perfect-information
games only.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Generic

from ai.search import Progress, SearchResult, legal_for
from engine.core import CHANCE, TERMINAL, Game, M, S, Seat

#: Player nodes below the root before a leaf, when the level names none.
DEPTH = 1
#: The fewest playouts a leaf gets before the search goes one ply deeper.
MIN_PLAYOUTS = 200

#: The values of every seat at a position: its expected win share.
Values = tuple[float, ...]


class _OutOfTime(Exception):
    """The CPU cap ran out inside a depth: its answer is incomplete and dropped."""


def expectimax_search(
    game: Game[S, M],
    state: S,
    seat: Seat,
    rng: random.Random,
    iterations: int,
    seconds: float = 0.0,
    on_progress: Callable[[Progress], None] | None = None,
    progress_every: float = 0.25,
    exact: bool = False,
    depth: int = DEPTH,
) -> SearchResult[M]:
    """The move of `seat` best by expectimax to the deepest ply up to `depth` whose leaves
    `iterations` playouts can value with at least `MIN_PLAYOUTS` each (ply 1 whatever it costs),
    the budget shared evenly between the leaves; within `seconds` of the thread's CPU (when above
    0), else the heuristic's move. `values` holds each root move's expected win share for the
    seat, `visits` the depth searched (0 when the cap cut it short), `iterations` the playouts."""
    if game.info.hidden_information:
        raise ValueError("expectimax reads the whole state: perfect-information games only")
    if iterations <= 0:
        raise ValueError("an expectimax search needs a playout budget")
    legal = _ordered(game, state, legal_for(game, state, seat), rng)
    clock = time.thread_time
    start = clock()
    deadline = start + seconds if seconds > 0 else math.inf
    seeds = [rng.getrandbits(64) for _ in range(iterations)]
    ply, leaves = 1, count_leaves(game, state, legal, 1) or 0
    while ply < depth:
        deeper = count_leaves(game, state, legal, ply + 1, limit=iterations // MIN_PLAYOUTS)
        if deeper is None:
            break
        ply, leaves = ply + 1, deeper
    per_leaf = max(1, iterations // max(1, leaves))
    tree = Expectimax(game, playout_value(game, seeds[:per_leaf]), deadline)
    best, values = legal[0], {move: 0.0 for move in legal}
    try:
        found = tree.root_values(state, legal, ply)
        values = {move: found[k][seat] for k, move in enumerate(legal)}
        best = _best(legal, values)
    except _OutOfTime:
        ply = 0
    elapsed = clock() - start
    if on_progress is not None:
        on_progress(Progress(tree.leaves * per_leaf, elapsed, best, ply))
    visits = {move: ply for move in legal}
    return SearchResult(best, tree.leaves * per_leaf, elapsed, visits, values)


def count_leaves(game: Game[S, M], state: S, legal: Sequence[M], depth: int,
                 limit: float = math.inf) -> int | None:
    """How many distinct leaves expectimax to `depth` values after `legal` in `state`; None once
    there are more than `limit`."""
    seen: set[Hashable] = set()
    zeros = (0.0,) * game.num_players(state)

    def record(leaf: S) -> Values:
        key = game.position_key(leaf)
        seen.add(key if key is not None else len(seen))
        if len(seen) > limit:
            raise _OutOfTime
        return zeros

    try:
        Expectimax(game, record).root_values(state, legal, depth)
    except _OutOfTime:
        return None
    return len(seen)


class Expectimax(Generic[S, M]):
    """Expectimax values of positions to a number of player nodes, with a transposition table."""

    def __init__(self, game: Game[S, M], leaf: Callable[[S], Values], deadline: float = math.inf) -> None:
        self.game = game
        self.leaf = leaf
        self.deadline = deadline
        self.leaves = 0                                      # leaf evaluations, cached ones not counted
        self._leaf_values: dict[Hashable, Values] = {}       # position -> leaf value
        self._values: dict[tuple[Hashable, int], Values] = {}  # (position, plies left) -> value

    def root_values(self, state: S, legal: Sequence[M], depth: int) -> list[Values]:
        """Every seat's value after each of `legal`, the root counting as no ply."""
        step = self.game.step
        found = []
        for move in legal:
            child = state.clone()
            step(child, move)
            found.append(self.value(child, depth))
        return found

    def value(self, state: S, left: int) -> Values:
        """The expected win shares of `state` with `left` player nodes to go before a leaf."""
        game = self.game
        player = game.current_player(state)
        if player == TERMINAL:
            return win_shares(game, state)
        if player != CHANCE and left <= 1:
            return self._leaf(state)
        key = game.position_key(state)
        if key is not None:
            known = self._values.get((key, left))
            if known is not None:
                return known
        step = game.step
        if player == CHANCE:
            total = [0.0] * game.num_players(state)
            for outcome, p in game.chance_outcomes(state):
                child = state.clone()
                step(child, outcome)
                for seat, v in enumerate(self.value(child, left)):
                    total[seat] += p * v
            result: Values = tuple(total)
        else:
            best: Values | None = None
            for move in game.legal_moves(state):
                child = state.clone()
                step(child, move)
                found = self.value(child, left - 1)
                if best is None or found[player] > best[player]:
                    best = found
            assert best is not None
            result = best
        if key is not None:
            self._values[(key, left)] = result
        return result

    def _leaf(self, state: S) -> Values:
        key = self.game.position_key(state)
        if key is not None and (known := self._leaf_values.get(key)) is not None:
            return known
        if time.thread_time() >= self.deadline:
            raise _OutOfTime
        self.leaves += 1
        found = self.leaf(state)
        if key is not None:
            self._leaf_values[key] = found
        return found


def playout_value(game: Game[S, M], seeds: Sequence[int]) -> Callable[[S], Values]:
    """A leaf value: each seat's mean win share over one `Game.playout` per seed (the same seeds at
    every leaf, so that leaves are compared by the same luck)."""
    playout, n = game.playout, len(seeds)
    luck = random.Random()

    def value(state: S) -> Values:
        total = [0.0] * game.num_players(state)
        for seed in seeds:
            sample = state.clone()
            luck.seed(seed)
            playout(sample, luck)
            for seat, share in enumerate(win_shares(game, sample)):
                total[seat] += share
        return tuple(v / n for v in total)

    return value


def win_shares(game: Game[S, M], state: S) -> Values:
    """At the end of a game: 1/k for each of its k winners, 0 for the others (the arena's score)."""
    outcome = game.outcome(state)
    if outcome is None:
        raise ValueError("the game is not over")
    shares = [0.0] * len(outcome.scores)
    for seat in outcome.winners:
        shares[seat] = 1.0 / len(outcome.winners)
    return tuple(shares)


# --- helpers ------------------------------------------------------------------


def _ordered(game: Game[S, M], state: S, legal: list[M], rng: random.Random) -> list[M]:
    """The legal moves with the game's heuristic move first, so that it wins every tie."""
    first = game.heuristic_move(state, rng)
    if first is None or first not in legal:
        return legal
    return [first, *(move for move in legal if move != first)]


def _best(legal: Sequence[M], values: dict[M, float]) -> M:
    """The first move of highest value (the heuristic's, on a tie)."""
    best = legal[0]
    for move in legal[1:]:
        if values[move] > values[best]:
            best = move
    return best
