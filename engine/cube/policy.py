"""A simple careful hand policy for The Magic Cube: a baseline for calibration and bot strength.

On stars (C9) a player who is ahead (no more objects in front than anyone) takes
the kind with the fewest left in the lid, to bring the end (C15) closer; a
player who is behind takes the kind with the most left, to put it off. On a half
turn (C10) it passes through the intermediate side whose down side lets the
fewest objects fall.
"""

from __future__ import annotations

from engine.cube.game import (
    CHOOSE,
    CHOOSE_MOVES,
    GAME,
    HOLES,
    OPPOSITE,
    SIDE_INDEX,
    VIA,
    CubeMove,
    CubeState,
)


def is_ahead(state: CubeState, seat: int) -> bool:
    """Whether `seat` would win (alone or tied) if the game ended now (C16)."""
    counts = [sum(row) for row in state.front]
    return counts[seat] <= min(counts)


def exposed(state: CubeState, up: int) -> int:
    """How many objects in the cube fit the down side when `up` is up."""
    mask = HOLES[OPPOSITE[up]]
    return sum(c for k, c in enumerate(state.cube) if mask >> k & 1)


def careful_move(state: CubeState) -> CubeMove:
    """The careful player's move in `state` (the seat to act must be a player, not chance)."""
    moves = GAME.legal_moves(state)
    if state.phase == CHOOSE:
        kinds = [k for k in range(4) if state.lid[k]]
        if is_ahead(state, state.player):
            best = min(kinds, key=lambda k: state.lid[k])
        else:
            best = max(kinds, key=lambda k: state.lid[k])
        return CHOOSE_MOVES[best]
    if state.phase == VIA:
        return min(moves, key=lambda move: exposed(state, SIDE_INDEX[move.via]))
    if not moves:
        raise ValueError(f"no player move in {state!r}")
    return moves[0]  # the roll (C7), the only move in that phase
