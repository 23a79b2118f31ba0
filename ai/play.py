"""A level's move: the one place that maps a level's search method to the module that runs it.

`ai.levels` says which method and budget each game's level plays (data); the searches
(`ai.search`, `ai.halving`) know nothing of levels. Only this module imports both, so no two
`ai` modules import each other.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ai.expectimax import expectimax_search
from ai.halving import halving_search
from ai.levels import Level, get_level
from ai.pimc import pimc_search
from ai.search import Progress, SearchResult, legal_for, search
from engine.core import Game, M, S

#: A search method: (game, state, seat, rng, simulations, CPU seconds, on_progress, progress_every).
Method = Callable[..., SearchResult[Any]]

#: Every search method a level may name (`Level.method`).
METHODS: dict[str, Method] = {
    "ismcts": search,
    "halving": halving_search,
    "pimc": pimc_search,
    "expectimax": expectimax_search,
}


def choose_move(
    game: Game[S, M],
    state: S,
    seat: int,
    level: Level | str,
    rng: random.Random,
    on_progress: Callable[[Progress], None] | None = None,
    progress_every: float = 0.25,
) -> M:
    """The move `level` (a name: as this game plays it) makes for `seat` in `state`: random,
    forced, a blunder (a random move, with the level's `blunder` chance), or the choice of its
    search method."""
    if isinstance(level, str):
        level = get_level(level, game.info.id)
    legal = legal_for(game, state, seat)
    blunders = level.blunder > 0 and len(legal) > 1 and rng.random() < level.blunder
    if len(legal) == 1 or blunders or (level.iterations <= 0 and level.seconds <= 0):
        move = legal[0] if len(legal) == 1 else rng.choice(legal)
        if on_progress is not None:
            on_progress(Progress(0, 0.0, move, 0))
        return move
    extra: dict[str, Any] = {"depth": level.depth} if level.depth else {}
    if level.playout:
        extra["playout_policy"] = level.playout
    if level.sampling:
        extra["sampling"] = level.sampling
    if level.tree:
        extra["tree"] = level.tree
    found: SearchResult[M] = METHODS[level.method](
        game, state, seat, rng, level.iterations, level.seconds,
        on_progress=on_progress, progress_every=progress_every, exact=level.exact, **extra)
    return found.move
