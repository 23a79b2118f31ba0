"""The rules C6–C16 as functions over `CubeState`: who acts, chance, legality, transitions, the end.

`step` is the unchecked in-place transition; `check_move` names the rule a move
breaks. An exposure where nothing can fall (no object in the cube fits the down
side) has a single certain outcome and is resolved at once, without a chance node.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import product
from math import comb
from typing import cast

from engine.core import CHANCE, TERMINAL, Outcome, Termination, ranks_for
from engine.cube.cards import (
    FACE_INDEX,
    HOLES,
    KIND_INDEX,
    OPPOSITE,
    SIDE_INDEX,
    SIDES,
    STARS,
    Counts,
    add_penalty,
    can_fall,
    fall_probability,
    is_via,
    rewards,
)
from engine.cube.moves import (
    CHOOSE_MOVES,
    NOTHING,
    ROLL_MOVE,
    ROLLED_MOVES,
    TURN_MOVES,
    Choose,
    CubeMove,
    Fall,
    First,
    Roll,
    Rolled,
    Turn,
)
from engine.cube.state import (
    CHANCE_PHASES,
    CHOOSE,
    FACE,
    FINAL,
    FIRST,
    MID,
    OVER,
    ROLL,
    VIA,
    CubeState,
)
from engine.errors import IllegalMove

# --- who acts ------------------------------------------------------------------


def current_player(s: CubeState) -> int:
    """The seat to act, CHANCE or TERMINAL."""
    phase = s.phase
    if phase == OVER:
        return TERMINAL
    if phase in CHANCE_PHASES:
        return CHANCE
    return s.player


# --- transitions ----------------------------------------------------------------


def step(s: CubeState, move: CubeMove) -> None:
    """Apply `move` in place, unchecked (the search's hot path)."""
    phase = s.phase
    if phase == ROLL:
        s.phase = FACE
        s.t_seat, s.t_face, s.t_obj, s.t_start = s.player, -1, -1, s.up
        s.t_via, s.t_mid, s.t_final = -1, None, None
    elif phase == FACE:
        face = FACE_INDEX[cast(Rolled, move).face]
        s.t_face = face
        if face < 4:
            if not s.lid[face]:          # C15: that object cannot be taken
                s.phase = OVER
                return
            s.lid[face] -= 1             # C9
            s.t_obj = face
            _turn_cube(s)
        elif face == STARS:
            if not any(s.lid):           # C15
                s.phase = OVER
                return
            s.phase = CHOOSE
        else:                            # square: no object, never ends the game
            _turn_cube(s)
    elif phase == CHOOSE:
        kind = KIND_INDEX[cast(Choose, move).object]
        s.lid[kind] -= 1
        s.t_obj = kind
        _turn_cube(s)
    elif phase == VIA:
        via = SIDE_INDEX[cast(Turn, move).via]
        s.t_via = via
        s.up = via
        if can_fall(s.cube, HOLES[OPPOSITE[via]]):
            s.phase = MID
        else:
            s.t_mid = NOTHING
            _throw(s)
    elif phase == MID:
        fell = cast(Fall, move).objects
        s.t_mid = fell
        if any(fell):                    # C12: back to the lid, no throw, target up
            cube = s.cube
            for k in range(4):
                cube[k] -= fell[k]
            if s.t_obj >= 0:
                s.lid[s.t_obj] += 1
            s.up = s.t_face
            _end_turn(s, fell)
        else:
            _throw(s)
    elif phase == FINAL:
        fell = cast(Fall, move).objects
        s.t_final = fell
        cube = s.cube
        for k in range(4):
            cube[k] -= fell[k]
        _end_turn(s, fell)
    elif phase == FIRST:
        s.player = cast(First, move).seat
        s.phase = ROLL


def _turn_cube(s: CubeState) -> None:
    """C10: the object (if any) is in hand; turn the cube towards the target side."""
    if OPPOSITE[s.up] == s.t_face:
        s.phase = VIA
    else:
        _throw(s)


def _throw(s: CubeState) -> None:
    """C13: throw the object in, target up, then the final exposure (a chance node if needed)."""
    if s.t_obj >= 0:
        s.cube[s.t_obj] += 1
    s.up = s.t_face
    if can_fall(s.cube, HOLES[OPPOSITE[s.up]]):
        s.phase = FINAL
    else:
        s.t_final = NOTHING
        _end_turn(s, NOTHING)


def _end_turn(s: CubeState, fell: tuple[int, ...]) -> None:
    """C14 penalties, then the next player clockwise rolls (C6)."""
    if any(fell):
        add_penalty(s.front[s.player], s.out, fell)
    s.turns += 1
    s.player = (s.player + 1) % s.n
    s.phase = ROLL


def position_key(s: CubeState) -> tuple[int, ...]:
    """What the rest of the game depends on: the phase, the turn in progress, the counts (in front
    of each seat only their sums: C14 and C16 read nothing else)."""
    turn = (s.t_face, s.t_obj, s.t_start) if s.phase in (CHOOSE, VIA, MID) else (-1, -1, -1)
    return (s.phase, s.player, s.up, *turn, *s.lid, *s.cube, *(sum(row) for row in s.front))


# --- moves and chance -----------------------------------------------------------


def legal_moves(s: CubeState) -> list[CubeMove]:
    """The moves of the seat to act; empty at chance nodes and at the end."""
    if s.phase == ROLL:
        return [ROLL_MOVE]
    if s.phase == CHOOSE:
        return [CHOOSE_MOVES[k] for k in range(4) if s.lid[k]]
    if s.phase == VIA:
        return [TURN_MOVES[side] for side in range(6) if is_via(side, s.t_start, s.t_face)]
    return []


@cache
def fall_outcomes(cube: tuple[int, ...], mask: int) -> tuple[tuple[Fall, float], ...]:
    """C11: every possible fall with its probability: a product of binomials, one per fitting kind.

    `cube` holds the objects per kind inside the cube, `mask` the kinds fitting the down side.
    """
    p = fall_probability(sum(cube))
    ranges = [range(c + 1) if mask >> k & 1 else range(1) for k, c in enumerate(cube)]
    outcomes = []
    for book, ring, hat, wand in product(*ranges):
        counts = (book, ring, hat, wand)
        prob = 1.0
        for k, fell in enumerate(counts):
            if mask >> k & 1:
                c = cube[k]
                prob *= comb(c, fell) * p**fell * (1 - p) ** (c - fell)
        outcomes.append((Fall(counts), prob))
    total = sum(prob for _, prob in outcomes)
    return tuple((fall, prob / total) for fall, prob in outcomes)


def chance_outcomes(s: CubeState) -> list[tuple[CubeMove, float]]:
    """Every chance outcome with its probability: the first player, the face rolled, a fall."""
    if s.phase == FIRST:
        return [(First(seat), 1.0 / s.n) for seat in range(s.n)]
    if s.phase == FACE:
        return [(move, 1.0 / 6) for move in ROLLED_MOVES]
    if s.phase in (MID, FINAL):
        return list(fall_outcomes(tuple(s.cube), HOLES[OPPOSITE[s.up]]))
    return []


def sample_chance(s: CubeState, rng: random.Random) -> CubeMove:
    """One chance outcome drawn with its probability (a fall object by object, C11)."""
    if s.phase == FACE:
        return ROLLED_MOVES[rng.randrange(6)]
    if s.phase == FIRST:
        return First(rng.randrange(s.n))
    return Fall(_sample_fall(s.cube, HOLES[OPPOSITE[s.up]], rng))


def check_move(s: CubeState, move: CubeMove) -> None:
    """Raise IllegalMove naming the rule: C7 roll first, C9 object in the lid, C10 via side."""
    if s.phase == OVER:
        raise IllegalMove("game_over", "the game is over", move)
    if s.phase in CHANCE_PHASES:
        if move not in [m for m, _ in chance_outcomes(s)]:
            raise IllegalMove("chance", f"{move!r} is not a possible chance outcome now", move)
        return
    if s.phase == ROLL:
        if not isinstance(move, Roll):
            raise IllegalMove("C7", "the player to act must roll the die first", move)
    elif s.phase == CHOOSE:
        if not isinstance(move, Choose) or not isinstance(move.object, str):
            raise IllegalMove("C9", "stars: choose an object kind from the lid", move)
        kind = KIND_INDEX.get(move.object)
        if kind is None:
            raise IllegalMove("C9", f"there is no object kind {move.object!r}", move)
        if not s.lid[kind]:
            raise IllegalMove("C9", f"no {move.object} left in the lid", move)
    elif s.phase == VIA:
        if not isinstance(move, Turn) or not isinstance(move.via, str):
            raise IllegalMove("C10", "half turn: choose the intermediate side", move)
        via = SIDE_INDEX.get(move.via)
        if via is None:
            raise IllegalMove("C10", f"there is no side {move.via!r}", move)
        if not is_via(via, s.t_start, s.t_face):
            raise IllegalMove(
                "C10",
                f"{move.via} is not adjacent to both {SIDES[s.t_start]} and {SIDES[s.t_face]}",
                move,
            )


def _sample_fall(cube: list[int], mask: int, rng: random.Random) -> Counts:
    """One fall drawn object by object (C11): each fitting object falls with p = min(0.6, 0.05n)."""
    p = fall_probability(sum(cube))
    rand = rng.random
    book, ring, hat, wand = (
        sum(1 for _ in range(c) if rand() < p) if mask >> k & 1 else 0
        for k, c in enumerate(cube)
    )
    return book, ring, hat, wand


# --- the end ----------------------------------------------------------------------


def outcome(s: CubeState) -> Outcome | None:
    """C15, C16: once an object cannot be taken, the fewest objects in front wins; ties share."""
    if s.phase != OVER:
        return None
    counts = [sum(row) for row in s.front]
    best = min(counts)
    return Outcome(
        scores=tuple(float(c) for c in counts),
        winners=tuple(seat for seat, c in enumerate(counts) if c == best),
        reason=Termination.OBJECT_UNAVAILABLE,
        ranks=ranks_for([-c for c in counts]),
    )


def returns(s: CubeState) -> tuple[float, ...]:
    """0.9 for a (shared) win, plus 0.1 × the share of the 20 objects NOT in front of you."""
    return rewards([sum(row) for row in s.front])
