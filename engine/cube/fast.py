"""The search's fast path and a hand policy: a tight playout, and the careful player.

`playout` is distributionally the generic loop of `Game.random_playout` (uniform legal
moves, or with `careful` the careful player's, chance sampled object by object)
but runs whole turns on local variables and writes the turn record (`t_*`) back
only at the end. It shares the fall probability, the penalty split and the
rewards with the rules. The search plays careful playouts (`CubeGame.playout`).

`careful_move` is a simple hand policy, a baseline for calibration and bot
strength: on stars (C9) a player who is ahead (no more objects in front than
anyone) takes the kind with the fewest left in the lid, to bring the end (C15)
closer; a player who is behind takes the kind with the most left, to put it
off. On a half turn (C10) it passes through the intermediate side whose down
side lets the fewest objects fall.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.cube.cards import (
    HALF_TURN_VIAS,
    HOLES,
    OPPOSITE,
    SIDE_INDEX,
    STARS,
    add_penalty,
    fall_probability,
)
from engine.cube.moves import CHOOSE_MOVES, CubeMove, Turn
from engine.cube.rules import legal_moves, returns, sample_chance, step
from engine.cube.state import CHANCE_PHASES, CHOOSE, OVER, ROLL, VIA, CubeState

# --- playout ------------------------------------------------------------------------


def playout(s: CubeState, rng: random.Random, careful: bool = False) -> tuple[float, ...]:
    """Uniformly random (or careful) moves and sampled chance to the end, in place; then `returns`."""
    if s.phase != ROLL:
        # finish the turn in progress through the ordinary path
        while s.phase not in (ROLL, OVER):
            if s.phase in CHANCE_PHASES:
                step(s, sample_chance(s, rng))
            else:
                step(s, careful_move(s) if careful else rng.choice(legal_moves(s)))
        if s.phase == OVER:
            return returns(s)
    lid, cube, front, out = s.lid, s.cube, s.front, s.out
    up, player, n, turns = s.up, s.player, s.n, s.turns
    rand, randrange = rng.random, rng.randrange
    while True:
        face = randrange(6)
        start = up
        obj = -1
        if face < 4:
            if not lid[face]:
                break
            obj = face
        elif face == STARS:
            kinds = [k for k in range(4) if lid[k]]
            if not kinds:
                break
            if careful:
                mine = front[player]
                ahead = mine[0] + mine[1] + mine[2] + mine[3] <= min(sum(row) for row in front)
                obj = kinds[0]
                for k in kinds:
                    if (lid[k] < lid[obj]) if ahead else (lid[k] > lid[obj]):
                        obj = k
            else:
                obj = kinds[randrange(len(kinds))]
        if obj >= 0:
            lid[obj] -= 1
        fell = None
        if OPPOSITE[start] == face:      # half turn: intermediate exposure (C10, C11)
            via = _careful_via(cube, start) if careful else HALF_TURN_VIAS[start][randrange(4)]
            fell = _random_fall(cube, HOLES[OPPOSITE[via]], rand)
            if fell is not None and obj >= 0:   # C12: the object goes back to the lid
                lid[obj] += 1
        if fell is None:                 # C13: throw, final exposure
            if obj >= 0:
                cube[obj] += 1
            fell = _random_fall(cube, HOLES[OPPOSITE[face]], rand)
        up = face
        if fell is not None:             # C14
            add_penalty(front[player], out, fell)
        turns += 1
        player = (player + 1) % n
    s.up, s.player, s.turns, s.phase = up, player, turns, OVER
    s.t_seat, s.t_face, s.t_obj, s.t_start = player, face, -1, up
    s.t_via, s.t_mid, s.t_final = -1, None, None
    return returns(s)


def _careful_via(cube: list[int], start: int) -> int:
    """The careful player's intermediate side from `start`: the first that exposes the fewest objects."""
    best, least = -1, 99
    for via in HALF_TURN_VIAS[start]:
        mask = HOLES[OPPOSITE[via]]
        exposed = 0
        for k in range(4):
            if mask >> k & 1:
                exposed += cube[k]
        if exposed < least:
            best, least = via, exposed
    return best


def _random_fall(cube: list[int], mask: int, rand: Callable[[], float]) -> list[int] | None:
    """C11 on the playout's lists: remove the fallen objects from `cube`; None when nothing fell."""
    p = fall_probability(cube[0] + cube[1] + cube[2] + cube[3])
    fell = None
    for k in range(4):
        if mask >> k & 1:
            c = cube[k]
            dropped = 0
            for _ in range(c):
                if rand() < p:
                    dropped += 1
            if dropped:
                if fell is None:
                    fell = [0, 0, 0, 0]
                fell[k] = dropped
                cube[k] = c - dropped
    return fell


# --- the careful player ----------------------------------------------------------------


def is_ahead(s: CubeState, seat: int) -> bool:
    """Whether `seat` would win (alone or tied) if the game ended now (C16)."""
    counts = [sum(row) for row in s.front]
    return counts[seat] <= min(counts)


def exposed(s: CubeState, up: int) -> int:
    """How many objects in the cube fit the down side when `up` is up."""
    mask = HOLES[OPPOSITE[up]]
    return sum(c for k, c in enumerate(s.cube) if mask >> k & 1)


def careful_move(s: CubeState) -> CubeMove:
    """The careful player's move in `s` (the seat to act must be a player, not chance)."""
    moves = legal_moves(s)
    if s.phase == CHOOSE:
        kinds = [k for k in range(4) if s.lid[k]]
        if is_ahead(s, s.player):
            best = min(kinds, key=lambda k: s.lid[k])
        else:
            best = max(kinds, key=lambda k: s.lid[k])
        return CHOOSE_MOVES[best]
    if s.phase == VIA:
        turns = [move for move in moves if isinstance(move, Turn)]
        return min(turns, key=lambda move: exposed(s, SIDE_INDEX[move.via]))
    if not moves:
        raise ValueError(f"no player move in {s!r}")
    return moves[0]  # the roll (C7), the only move in that phase
