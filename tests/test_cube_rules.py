"""The Magic Cube, rule by rule (C1–C16 of rules/cube.md), on hand-built states with fixed seeds."""

from __future__ import annotations

import json
import random
from math import isclose

import pytest

from engine import CHANCE, TERMINAL, IllegalMove, InvalidMove, InvalidOptions, InvalidSnapshot
from engine.cube import GAME, CubeState, fast
from engine.cube.cards import BLUE, GREEN, HOLES, OPPOSITE, ORANGE, RED, VIOLET, YELLOW, is_adjacent
from engine.cube.fast import careful_move
from engine.cube.moves import Choose, Fall, First, Roll, Rolled, Turn
from engine.cube.rules import fall_outcomes
from engine.cube.state import CHOOSE, FINAL, MID, ROLL, VIA


def make(
    n: int = 2,
    lid: tuple[int, ...] = (5, 5, 5, 5),
    cube: tuple[int, ...] = (0, 0, 0, 0),
    up: int = VIOLET,
    player: int = 0,
    front: list[list[int]] | None = None,
    out: tuple[int, ...] = (0, 0, 0, 0),
) -> CubeState:
    """A state at the start of `player`'s turn (phase roll), with the given counts."""
    state = GAME.new_state(n)
    state.lid, state.cube, state.out = list(lid), list(cube), list(out)
    state.front = [list(row) for row in front] if front else [[0] * 4 for _ in range(n)]
    state.up, state.player, state.phase = up, player, ROLL
    return state


def roll(state: CubeState, face: str) -> CubeState:
    """The player to act rolls and the die shows `face` (checked path)."""
    state = GAME.apply(state, Roll())
    assert GAME.current_player(state) == CHANCE
    return GAME.apply(state, Rolled(face))


def outcomes(state: CubeState) -> dict[tuple[int, ...], float]:
    return {move.objects: p for move, p in GAME.chance_outcomes(state)}


def play(n: int, policy, rng: random.Random) -> CubeState:
    state = GAME.new_state(n)
    while (player := GAME.current_player(state)) != TERMINAL:
        move = GAME.sample_chance(state, rng) if player == CHANCE else policy(state, rng)
        GAME.step(state, move)
    return state


# --- components --------------------------------------------------------------


def test_c1_two_to_five_players_and_twenty_objects_in_the_lid() -> None:
    for n in range(2, 6):
        state = GAME.new_state(n)
        assert state.lid == [5, 5, 5, 5] and len(state.front) == n
    for n in (1, 6):
        with pytest.raises(InvalidOptions):
            GAME.new_state(n)
    assert GAME.view(GAME.new_state(3), None)["lid"] == {"book": 5, "ring": 5, "hat": 5, "wand": 5}


def test_c2_the_die_has_six_equally_likely_faces() -> None:
    state = GAME.apply(make(), Roll())
    faces = GAME.chance_outcomes(state)
    assert [m.face for m, _ in faces] == ["book", "ring", "hat", "wand", "stars", "square"]
    assert all(isclose(p, 1 / 6) for _, p in faces)


def test_c3_holes_orange_has_all_shapes_violet_none_each_colour_its_own() -> None:
    assert HOLES[ORANGE] == 0b1111 and HOLES[VIOLET] == 0
    assert [HOLES[side] for side in (RED, YELLOW, BLUE, GREEN)] == [1, 2, 4, 8]
    # book rolled: red up, green down, so only wands can fall out
    state = roll(make(cube=(2, 2, 2, 2), up=YELLOW), "book")
    assert GAME.current_player(state) == CHANCE and state.up == RED
    assert {fell[:3] for fell in outcomes(state)} == {(0, 0, 0)}
    assert {fell[3] for fell in outcomes(state)} == {0, 1, 2}


def test_c4_opposite_and_adjacent_sides() -> None:
    pairs = {(ORANGE, VIOLET), (RED, GREEN), (YELLOW, BLUE)}
    for a, b in pairs:
        assert OPPOSITE[a] == b and OPPOSITE[b] == a
        assert not is_adjacent(a, b) and not is_adjacent(a, a)
    assert sum(is_adjacent(a, b) for a in range(6) for b in range(6)) == 6 * 4


def test_c5_the_cube_starts_violet_up_and_empty() -> None:
    state = GAME.new_state(2)
    assert state.up == VIOLET and state.cube == [0, 0, 0, 0]
    view = GAME.view(state, None)
    assert view["cube"] == {
        "objects": {"book": 0, "ring": 0, "hat": 0, "wand": 0},
        "up": "violet",
        "down": "orange",
    }


# --- turn --------------------------------------------------------------------


def test_c6_first_player_by_chance_then_clockwise() -> None:
    state = GAME.new_state(4)
    assert GAME.current_player(state) == CHANCE
    assert GAME.chance_outcomes(state) == [(First(seat), 0.25) for seat in range(4)]
    state = GAME.apply(state, First(3))
    assert GAME.current_player(state) == 3
    state = roll(state, "stars")
    state = GAME.apply(state, Choose("book"))       # violet to orange: a half turn
    state = GAME.apply(state, Turn("red"))           # the cube is empty: nothing can fall
    assert GAME.current_player(state) == 0            # clockwise, wrapping around


def test_c7_the_player_must_roll_and_the_result_is_chance() -> None:
    state = make()
    assert GAME.legal_moves(state) == [Roll()]
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, Choose("book"))
    assert caught.value.rule == "C7"
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, Rolled("book"))
    assert caught.value.rule == "C7"
    after = GAME.apply(state, Roll())
    assert GAME.current_player(after) == CHANCE and GAME.legal_moves(after) == []
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(after, Roll())
    assert caught.value.rule == "chance"


def test_c8_the_face_names_the_target_side() -> None:
    for face, side in [("book", RED), ("ring", YELLOW), ("hat", BLUE), ("wand", GREEN)]:
        assert roll(make(up=ORANGE), face).up == side
    assert roll(make(up=RED), "square").up == VIOLET
    state = GAME.apply(roll(make(up=RED), "stars"), Choose("ring"))
    assert state.up == ORANGE


def test_c9_object_from_the_lid_stars_is_a_choice_square_takes_none() -> None:
    state = roll(make(), "hat")
    assert state.lid == [5, 5, 4, 5] and state.cube == [0, 0, 1, 0]
    state = roll(make(lid=(0, 2, 0, 1), cube=(5, 0, 5, 0), up=RED), "stars")
    assert state.phase == CHOOSE and GAME.current_player(state) == 0
    assert GAME.legal_moves(state) == [Choose("ring"), Choose("wand")]
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, Choose("book"))
    assert caught.value.rule == "C9"
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, Turn("red"))
    assert caught.value.rule == "C9"
    state = GAME.apply(state, Choose("wand"))
    assert state.lid == [0, 2, 0, 0] and state.cube == [5, 0, 5, 1]
    state = roll(make(up=RED), "square")
    assert state.lid == [5, 5, 5, 5] and state.cube == [0, 0, 0, 0]


def test_c10_paths_lift_quarter_turn_or_half_turn_through_a_chosen_side() -> None:
    # target already up: lifted, no decision, the final exposure still happens (C13)
    state = roll(make(cube=(0, 0, 0, 2), up=RED), "book")
    assert state.phase == FINAL and state.up == RED
    assert GAME.view(state, None)["turn"]["path"] == []
    # adjacent: one quarter turn, no decision and no intermediate exposure
    state = roll(make(cube=(2, 2, 2, 2), up=VIOLET), "ring")
    assert state.phase == FINAL and state.up == YELLOW
    assert GAME.view(state, None)["turn"]["path"] == ["yellow"]
    # opposite: the player chooses among the four sides adjacent to both
    state = roll(make(cube=(1, 0, 0, 0), up=VIOLET), "stars")
    state = GAME.apply(state, Choose("ring"))
    assert state.phase == VIA
    assert GAME.legal_moves(state) == [Turn(side) for side in ("red", "yellow", "blue", "green")]
    for bad in ("violet", "orange"):
        with pytest.raises(IllegalMove) as caught:
            GAME.apply(state, Turn(bad))
        assert caught.value.rule == "C10"
    state = roll(make(cube=(1, 0, 0, 0), up=RED), "wand")
    assert GAME.legal_moves(state) == [Turn(s) for s in ("yellow", "blue", "orange", "violet")]
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, Turn("red"))
    assert caught.value.rule == "C10"
    state = GAME.apply(state, Turn("violet"))   # orange down: the book may fall
    assert state.phase == MID and state.up == VIOLET
    assert GAME.view(state, None)["turn"]["path"] == ["violet"]


def test_c11_exposure_probabilities_are_exact_products_of_binomials() -> None:
    # ring rolled from violet: yellow up, blue down; 1 hat and 2 rings inside + the thrown ring
    state = roll(make(cube=(1, 2, 1, 0), up=VIOLET), "ring")
    assert state.cube == [1, 3, 1, 0] and state.phase == FINAL
    p = 0.05 * 5
    assert outcomes(state) == pytest.approx({(0, 0, 0, 0): 1 - p, (0, 0, 1, 0): p})
    # square on violet: orange down, 2 books and 1 wand, n = 3, p = 0.15
    state = roll(make(cube=(2, 0, 0, 1), up=VIOLET), "square")
    p = 0.15
    expected = {
        (b, 0, 0, w): [(1 - p) ** 2, 2 * p * (1 - p), p**2][b] * [1 - p, p][w]
        for b in range(3)
        for w in range(2)
    }
    assert outcomes(state) == pytest.approx(expected)
    assert isclose(sum(outcomes(state).values()), 1.0)
    # the probability is capped at 0.6 from 12 objects on
    capped = fall_outcomes((5, 5, 5, 5), 0b0001)
    assert dict((m.objects, p) for m, p in capped)[(5, 0, 0, 0)] == pytest.approx(0.6**5)
    # an exposure where nothing fits is no chance node
    state = roll(make(cube=(3, 0, 0, 0), up=RED), "ring")
    assert GAME.current_player(state) == 1


def test_c11_a_square_on_a_full_cube_exposes_every_object_to_the_orange_side() -> None:
    state = roll(make(lid=(1, 1, 1, 1), cube=(4, 4, 4, 4), up=RED), "square")
    assert state.phase == FINAL and state.up == VIOLET and OPPOSITE[state.up] == ORANGE
    table = outcomes(state)
    assert len(table) == 5**4
    assert table[(4, 4, 4, 4)] == pytest.approx(0.6**16)
    assert table[(0, 0, 0, 0)] == pytest.approx(0.4**16)
    assert sum(table.values()) == pytest.approx(1.0)


def test_c12_a_fall_before_the_throw_sends_the_object_back_to_the_lid() -> None:
    state = roll(make(lid=(5, 5, 5, 3), cube=(0, 0, 0, 2), up=RED), "wand")  # red to green
    assert state.phase == VIA
    state = GAME.apply(state, Turn("yellow"))                                 # blue down, no hats
    assert state.cube == [0, 0, 0, 3] and GAME.current_player(state) == 1    # nothing could fall
    state = roll(make(lid=(5, 5, 5, 3), cube=(0, 0, 2, 0), up=RED), "wand")
    state = GAME.apply(state, Turn("yellow"))                                 # blue down: hats
    assert state.phase == MID and GAME.view(state, None)["in_hand"] == "wand"
    state = GAME.apply(state, Fall((0, 0, 1, 0)))
    assert state.lid == [5, 5, 5, 3]                   # the wand went back to the lid
    assert state.cube == [0, 0, 1, 0]                  # nothing thrown
    assert state.up == GREEN                           # target up, no further exposure
    assert state.front[0] == [0, 0, 1, 0] and GAME.current_player(state) == 1
    turn = GAME.view(state, None)["turn"]
    assert turn["returned_to_lid"] and not turn["thrown"]
    assert [e["before_throw"] for e in turn["exposures"]] == [True]
    assert turn["path"] == ["yellow", "green"]


def test_c13_throw_then_final_exposure_even_when_the_target_was_up() -> None:
    state = roll(make(cube=(0, 0, 0, 0), up=RED), "book")   # red already up, green down
    assert state.cube == [1, 0, 0, 0] and GAME.current_player(state) == 1
    state = roll(make(cube=(0, 0, 0, 1), up=RED), "book")
    assert state.phase == FINAL and state.cube == [1, 0, 0, 1]
    assert outcomes(state) == pytest.approx({(0, 0, 0, 0): 0.9, (0, 0, 0, 1): 0.1})
    # a half turn with no fall before the throw: thrown, then the final exposure
    state = roll(make(cube=(1, 0, 1, 0), up=VIOLET), "stars")
    state = GAME.apply(GAME.apply(state, Choose("hat")), Turn("yellow"))
    assert state.phase == MID
    state = GAME.apply(state, Fall((0, 0, 0, 0)))
    assert state.cube == [1, 0, 2, 0] and state.up == ORANGE
    assert GAME.current_player(state) == 1                      # violet down: nothing can fall
    turn = GAME.view(state, None)["turn"]
    assert turn["thrown"] and [e["up"] for e in turn["exposures"]] == ["yellow", "orange"]


def test_c14_more_than_two_fallen_two_in_front_the_rest_out_of_the_game() -> None:
    state = roll(make(lid=(2, 2, 2, 2), cube=(3, 1, 1, 1), up=RED), "square")
    state = GAME.apply(state, Fall((2, 1, 0, 1)))
    assert state.front[0] == [2, 0, 0, 0] and state.out == [0, 1, 0, 1]
    assert state.lid == [2, 2, 2, 2] and state.cube == [1, 0, 1, 0]
    turn = GAME.view(state, None)["turn"]
    assert turn["to_front"] == {"book": 2, "ring": 0, "hat": 0, "wand": 0}
    assert turn["out_of_game"] == {"book": 0, "ring": 1, "hat": 0, "wand": 1}
    # one or two: all in front of the player; none returns to the lid
    state = roll(make(lid=(2, 2, 2, 2), cube=(3, 1, 1, 1), up=RED, player=1), "square")
    state = GAME.apply(state, Fall((0, 1, 1, 0)))
    assert state.front[1] == [0, 1, 1, 0] and state.out == [0, 0, 0, 0]
    assert state.lid == [2, 2, 2, 2]


def test_c14_no_object_falls_through_nobodys_fault() -> None:
    """Every object leaving the cube lands in front of the player whose turn it is, or out of the game."""
    for seed in range(20):
        rng = random.Random(seed)
        state = GAME.new_state(2 + seed % 4)
        while GAME.current_player(state) != TERMINAL:
            player = GAME.current_player(state)
            move = GAME.sample_chance(state, rng) if player == CHANCE else rng.choice(GAME.legal_moves(state))
            after = GAME.apply(state, move)
            left_cube = sum(state.cube) - sum(after.cube)
            if isinstance(move, Fall) and any(move.objects):
                landed = sum(after.front[state.player]) - sum(state.front[state.player])
                assert left_cube == landed + sum(after.out) - sum(state.out) == sum(move.objects)
            others = [row for seat, row in enumerate(after.front) if seat != state.player]
            assert others == [row for seat, row in enumerate(state.front) if seat != state.player]
            assert left_cube <= 0 or isinstance(move, Fall)
            state = after


# --- end -----------------------------------------------------------------------


def test_c15_a_roll_asking_for_an_object_that_cannot_be_taken_ends_the_game() -> None:
    before = make(lid=(0, 1, 1, 1), cube=(3, 0, 0, 0), up=YELLOW, front=[[1, 0, 0, 0], [0, 0, 0, 1]])
    state = roll(before, "book")
    assert GAME.current_player(state) == TERMINAL
    assert (state.lid, state.cube, state.up, state.front) == (
        before.lid, before.cube, before.up, before.front,
    )
    assert GAME.legal_moves(state) == []
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, Roll())
    assert caught.value.rule == "game_over"
    assert GAME.view(state, 0)["turn"]["ended_game"] is True
    # stars with an empty lid ends it; a square never does
    empty = make(lid=(0, 0, 0, 0), cube=(1, 0, 0, 0), up=RED, out=(4, 5, 5, 5))
    assert GAME.current_player(roll(empty, "stars")) == TERMINAL
    after_square = roll(empty, "square")
    assert GAME.current_player(after_square) == CHANCE and after_square.phase == FINAL


def test_c16_fewest_objects_in_front_wins_ties_share() -> None:
    state = roll(make(n=3, lid=(0, 5, 5, 5), front=[[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 1]]), "book")
    outcome = GAME.outcome(state)
    assert outcome.winners == (0, 2) and outcome.ranks == (1, 3, 1)
    assert outcome.scores == (1.0, 2.0, 1.0)
    r = GAME.returns(state)
    assert r[0] == r[2] > 0.9 > r[1] and all(0 <= x <= 1 for x in r)


# --- protocol details --------------------------------------------------------------


def test_moves_json_round_trip_and_malformed_json_is_invalid() -> None:
    for move in [Roll(), First(2), Rolled("stars"), Choose("ring"), Turn("red"), Fall((1, 0, 2, 0))]:
        assert GAME.move_from_json(json.loads(json.dumps(GAME.move_to_json(move)))) == move
    assert GAME.move_to_json(Fall((1, 0, 2, 0))) == {
        "type": "fall", "objects": {"book": 1, "ring": 0, "hat": 2, "wand": 0},
    }
    for bad in [
        {"type": "choose", "object": "broom"},
        {"type": "turn", "via": 3},
        {"type": "roll", "extra": 1},
        {"type": "fall", "objects": {"book": 1}},
        {"type": "fall", "objects": {"book": True, "ring": 0, "hat": 0, "wand": 0}},
        {"type": "first", "seat": -1},
    ]:
        with pytest.raises(InvalidMove):
            GAME.move_from_json(bad)


def test_snapshots_round_trip_and_garbage_is_refused() -> None:
    state = GAME.apply(roll(make(lid=(4, 5, 5, 5), cube=(1, 0, 0, 0), up=RED), "wand"), Turn("violet"))
    data = json.loads(json.dumps(GAME.encode(state)))
    assert GAME.encode(GAME.decode(data)) == GAME.encode(state)
    for garbage in [{}, {"v": 2}, [], None, {**data, "lid": [5, 5, 5]}, {**data, "cube": [9, 0, 0, 0]}]:
        with pytest.raises(InvalidSnapshot):
            GAME.decode(garbage)


def checked_playout(state: CubeState, rng: random.Random,
                    careful: bool = False) -> tuple[CubeState, tuple[float, ...]]:
    """The fast playout's game through the checked path: every transition by `apply`.

    It draws from `rng` exactly as `fast.playout` does (a roll draws nothing,
    a choice draws an index into the legal moves, or nothing for the careful
    player's choice, chance is `sample_chance`).
    """
    while (player := GAME.current_player(state)) != TERMINAL:
        if player == CHANCE:
            move = GAME.sample_chance(state, rng)
        elif careful:
            move = careful_move(state)
        else:
            moves = GAME.legal_moves(state)
            move = moves[0] if moves == [Roll()] else moves[rng.randrange(len(moves))]
        state = GAME.apply(state, move)
    return state, GAME.returns(state)


@pytest.mark.parametrize("careful", [False, True], ids=["random", "careful"])
def test_fast_playout_is_the_checked_rules_on_every_game(careful: bool) -> None:
    """C6–C16 once: the fast playout ends every game exactly where the checked rules end it."""
    for seed in range(1200 if not careful else 600):
        start = make(n=2 + seed % 4, player=seed % 2)
        fast_state = start.clone()
        fast_returns = fast.playout(fast_state, random.Random(seed), careful=careful)
        checked_state, checked_returns = checked_playout(start, random.Random(seed), careful)
        assert GAME.encode(fast_state) == GAME.encode(checked_state), seed
        assert fast_returns == checked_returns
        assert GAME.view(fast_state, None)["turn"]["ended_game"]


def test_calibration_three_careful_players_about_sixteen_turns_six_to_seven_objects_fall() -> None:
    """rules/cube.md calibration note: ~16 turns, ~6 objects fallen (we measure 6.8 over 3,000)."""
    rng = random.Random(31)
    games = [play(3, lambda s, _rng: careful_move(s), rng) for _ in range(500)]
    turns = sum(s.turns for s in games) / len(games)
    fallen = sum(sum(map(sum, s.front)) + sum(s.out) for s in games) / len(games)
    assert 14.5 <= turns <= 17.5
    assert 5.0 <= fallen <= 8.0


def test_the_search_tries_the_careful_move_first_and_plays_careful_playouts() -> None:
    """The search's heuristic and playout are the careful player's (issue 15: a bot as good as it)."""
    rng = random.Random(8)
    for seed in range(200):
        state = make(n=2 + seed % 4, player=seed % 2, cube=(seed % 3, 1, seed % 2, 2),
                     front=[[seed % 2, 0, 0, 0]] + [[0] * 4] * (1 + seed % 4))
        state = roll(state, ["stars", "wand", "square", "book"][seed % 4])
        while GAME.current_player(state) == CHANCE:
            state = GAME.apply(state, GAME.sample_chance(state, rng))
        if GAME.current_player(state) >= 0:
            assert GAME.heuristic_move(state, rng) == careful_move(state)
        ours, theirs = state.clone(), state.clone()
        assert GAME.playout(ours, random.Random(seed)) == fast.playout(theirs, random.Random(seed), careful=True)
        assert GAME.encode(ours) == GAME.encode(theirs)
