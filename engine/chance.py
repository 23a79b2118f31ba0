"""Resolving chance nodes from a match's secret seed, with no stored generator state.

The k-th chance outcome of a match is drawn by a fresh generator seeded with a
hash of (seed, k), so the action history alone replays a match, and a snapshot
never carries a generator (a pickled Mersenne Twister is 5 KB).
"""

from __future__ import annotations

import hashlib
import random

from engine.core import CHANCE, Game, M, S


def chance_rng(seed: str, index: int) -> random.Random:
    """The generator for the chance event at position `index` of a match's history."""
    digest = hashlib.sha256(f"{seed}:{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def draw_outcome(game: Game[S, M], state: S, seed: str, index: int) -> M:
    """The chance outcome that `seed` assigns to history position `index`."""
    return game.sample_chance(state, chance_rng(seed, index))


def resolve_chance(game: Game[S, M], state: S, seed: str, index: int) -> tuple[S, list[M]]:
    """Apply chance outcomes while chance is to act, starting at history position `index`.

    Returns the new state and the outcomes applied, in order (to append to the history).
    """
    applied: list[M] = []
    while game.current_player(state) == CHANCE:
        move = draw_outcome(game, state, seed, index + len(applied))
        state = game.apply(state, move)
        applied.append(move)
    return state, applied


def bot_rng(seed: str, version: int) -> random.Random:
    """The bot's generator for its turn at match `version`: seeded matches replay exactly."""
    digest = hashlib.sha256(f"{seed}:bot:{version}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))
