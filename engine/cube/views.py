"""What a seat sees of a Magic Cube match, how moves appear in the log, and determinization.

The cube has no hidden information: every seat and spectator sees the same
view, the log shows every move as it is, and a determinization is the state itself.
"""

from __future__ import annotations

import random

from engine import shapes
from engine.core import CHANCE, TERMINAL, Json, Seat
from engine.cube.cards import FACES, KINDS, OPPOSITE, SIDES, Side, split_penalty
from engine.cube.moves import NOTHING, OBJECT_SHAPE, SIDE_SHAPE, CubeMove
from engine.cube.rules import current_player, outcome
from engine.cube.state import FINAL, OVER, PHASES, ROLL, CubeState


def view(s: CubeState, seat: Seat | None) -> dict[str, Json]:
    """Everything is public: lid, cube (content and side up), fronts, out, phase, the turn."""
    to_act = current_player(s)
    ended = outcome(s)
    counts = [sum(row) for row in s.front]
    in_hand = s.in_hand()
    return {
        "game": "cube",
        "players": s.n,
        "seat": seat,
        "phase": PHASES[s.phase],
        "to_act": None if to_act == TERMINAL else ("chance" if to_act == CHANCE else to_act),
        "player": s.player if s.player >= 0 else None,
        "turns": s.turns,
        "lid": _kinds(s.lid),
        "cube": {
            "objects": _kinds(s.cube),
            "up": SIDES[s.up],
            "down": SIDES[OPPOSITE[s.up]],
        },
        "in_hand": KINDS[in_hand] if in_hand >= 0 else None,
        "front": [_kinds(row) for row in s.front],
        "front_totals": counts,
        "out_of_game": _kinds(s.out),
        "turn": _turn_record(s),
        "outcome": ended.to_json() if ended else None,
    }


def log_entry(s: CubeState, move: CubeMove, seat: Seat | None) -> Json:
    """Every move is public: its own JSON form."""
    return move.to_json()


def determinize(s: CubeState, seat: Seat, rng: random.Random) -> CubeState:
    """No hidden information: the state itself (a clone)."""
    return s.clone()


# --- private helpers -----------------------------------------------------------


def _kinds(counts: list[int] | tuple[int, ...]) -> dict[str, int]:
    return dict(zip(KINDS, counts, strict=True))


def _turn_record(s: CubeState) -> dict[str, Json] | None:
    """The turn in progress, or the last one: roll, object, path, exposures and penalties."""
    if s.t_seat < 0:
        return None
    complete = s.phase in (ROLL, OVER)
    face, start = s.t_face, s.t_start
    record: dict[str, Json] = {
        "seat": s.t_seat,
        "complete": complete,
        "face": FACES[face] if face >= 0 else None,
        "ended_game": s.phase == OVER,
        "object": KINDS[s.t_obj] if s.t_obj >= 0 else None,
        "start_up": SIDES[start],
        "target": SIDES[face] if face >= 0 else None,
    }
    if s.phase == OVER:   # C15: the ending roll has no effect
        record.update(path=[], exposures=[], thrown=False, returned_to_lid=False)
        return record
    path: list[str] = []   # the sides brought up, in order; empty when the target was up
    if s.t_via >= 0:
        path.append(SIDES[s.t_via])
    if s.phase in (ROLL, FINAL) and face != start:
        path.append(SIDES[face])
    exposures: list[Json] = []
    fallen: tuple[int, ...] = NOTHING
    if s.t_mid is not None:
        exposures.append(_exposure(s.t_via, s.t_mid, before_throw=True))
        fallen = s.t_mid
    if s.t_final is not None:
        exposures.append(_exposure(face, s.t_final, before_throw=False))
        fallen = s.t_final
    record["path"] = path
    record["exposures"] = exposures
    mid_fell = s.t_mid is not None and any(s.t_mid)
    record["thrown"] = s.t_obj >= 0 and (s.t_final is not None or s.phase == FINAL)
    record["returned_to_lid"] = s.t_obj >= 0 and mid_fell
    if complete:
        kept, gone = split_penalty(fallen)
        record["to_front"] = _kinds(kept)
        record["out_of_game"] = _kinds(gone)
    return record


def _exposure(up: Side, fell: tuple[int, ...], before_throw: bool) -> dict[str, Json]:
    """One exposure as a client animates it; the penalty split is for the whole turn."""
    return {
        "up": SIDES[up],
        "down": SIDES[OPPOSITE[up]],
        "before_throw": before_throw,
        "fell": _kinds(fell),
    }


_KIND = OBJECT_SHAPE
_SIDE = SIDE_SHAPE
_OBJECTS = shapes.named("CubeObjects", shapes.counts(KINDS, "how many objects of each kind"))

#: The JSON shape of `view` (GameInfo.view_schema): everything is public.
VIEW_SCHEMA = shapes.record(
    {
        "game": shapes.game("cube"),
        "players": shapes.integer(2, 5),
        "seat": shapes.nullable(shapes.SEAT),
        "phase": shapes.names(PHASES),
        "to_act": shapes.SEAT_OR_CHANCE,
        "player": shapes.nullable(shapes.SEAT),
        "turns": shapes.INTEGER,
        "lid": _OBJECTS,
        "cube": shapes.named("CubeCube", shapes.record({"objects": _OBJECTS, "up": _SIDE, "down": _SIDE})),
        "in_hand": shapes.nullable(_KIND),
        "front": shapes.array(_OBJECTS, "the objects in front of each seat"),
        "front_totals": shapes.array(shapes.INTEGER),
        "out_of_game": _OBJECTS,
        "turn": shapes.nullable(shapes.named("CubeTurn", shapes.record(
            {
                "seat": shapes.SEAT,
                "complete": shapes.BOOLEAN,
                "face": shapes.nullable(shapes.names(FACES)),
                "ended_game": shapes.BOOLEAN,
                "object": shapes.nullable(_KIND),
                "start_up": _SIDE,
                "target": shapes.nullable(_SIDE),
                "path": shapes.array(_SIDE, "the sides brought up, in order"),
                "exposures": shapes.array(shapes.named("CubeExposure", shapes.record(
                    {"up": _SIDE, "down": _SIDE, "before_throw": shapes.BOOLEAN, "fell": _OBJECTS}))),
                "thrown": shapes.BOOLEAN,
                "returned_to_lid": shapes.BOOLEAN,
            },
            {"to_front": _OBJECTS, "out_of_game": _OBJECTS},
            "the turn in progress, or the last one",
        ))),
        "outcome": shapes.nullable(shapes.OUTCOME),
    },
    description="The Magic Cube (every seat sees the same)",
)
