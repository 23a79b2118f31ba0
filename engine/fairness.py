"""Provably fair chance: the commitment to a match's secret seed, and the check of a finished log.

The server draws a secret seed when a match is created and shows only its
SHA-256 (the commitment) until the match is finished; then it reveals the seed.
Every chance event at history position k was drawn from (seed, k)
(`engine.chance`), so anyone can replay the log with the seed and see that
each deal, draw and roll is the one the seed gives — and that the seed is the
one committed to before the first card was dealt.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.chance import draw_outcome
from engine.core import CHANCE, TERMINAL, AnyGame
from engine.errors import EngineError


def commitment(seed: str) -> str:
    """The SHA-256 (hex) of a seed: shown while the match runs, checked once the seed is revealed."""
    return hashlib.sha256(seed.encode()).hexdigest()


@dataclass(frozen=True)
class Discrepancy:
    """Where a log departs from what its seed and rules give: the entry (None: the seed itself)."""

    index: int | None
    message: str

    def __str__(self) -> str:
        where = "seed" if self.index is None else f"entry {self.index}"
        return f"{where}: {self.message}"


def check_log(
    game: AnyGame,
    players: int,
    options: Mapping[str, Any] | None,
    seed: str,
    committed: str,
    moves: Sequence[Any],
) -> Discrepancy | None:
    """The first discrepancy of a match's history (move JSON in order) with its seed, or None.

    Checks that the seed is the one committed to, that every chance outcome is the
    one the seed draws at its position, and that every player's move is legal.
    """
    if commitment(seed) != committed.strip().lower():
        return Discrepancy(None, f"SHA-256 of the seed is {commitment(seed)}, the commitment was {committed}")
    state = game.new_state(players, game.validate_options(options))
    for index, data in enumerate(moves):
        player = game.current_player(state)
        if player == TERMINAL:
            return Discrepancy(index, "the game was already over")
        try:
            move = game.move_from_json(data)
        except (EngineError, TypeError, ValueError, KeyError, IndexError, AttributeError) as error:
            return Discrepancy(index, f"not a move of {game.info.id}: {error}")
        if player == CHANCE:
            expected = draw_outcome(game, state, seed, index)
            if move != expected:
                return Discrepancy(
                    index, f"the seed draws {game.move_to_json(expected)}, the log has {game.move_to_json(move)}"
                )
        try:
            state = game.apply(state, move)
        except EngineError as error:
            return Discrepancy(index, f"illegal move {data}: {error}")
    return None
