"""Expectimax over the die (ai.expectimax): exact values on hand-built Magic Cube positions, checked
by hand and against a brute-force recursion, the budget shared between the leaves, and the level
that plays it."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from ai.expectimax import Expectimax, count_leaves, expectimax_search, playout_value, win_shares
from ai.levels import Level
from ai.play import choose_move
from engine import get_game
from engine.core import CHANCE, TERMINAL
from engine.cube import CubeState, Turn
from engine.cube.cards import BOOK, GREEN, HAT, RED, RING, STARS, VIOLET, WAND, fall_probability
from engine.cube.fast import careful_move
from engine.cube.state import CHOOSE, ROLL, VIA
from tests.toy_games import TOY

CUBE = get_game("cube")
Values = tuple[float, ...]


def via_position() -> CubeState:
    """Seat 0 holds a wand and must turn red-up to green-up through a side of its choice (C10)."""
    s = CubeState(2)
    s.lid = [2, 3, 4, 2]
    s.cube = [2, 1, 1, 2]        # 2 books, 1 ring, 1 hat, 2 wands inside
    s.front = [[0, 0, 0, 0], [0, 0, 0, 0]]
    s.up, s.player, s.phase = RED, 0, VIA
    s.t_seat, s.t_face, s.t_obj, s.t_start = 0, GREEN, WAND, RED
    return s


def choose_position() -> CubeState:
    """Seat 1 rolled stars with violet up: it picks a kind, then a half turn to orange (C9, C10)."""
    s = CubeState(2)
    s.lid = [1, 0, 2, 1]
    s.cube = [1, 2, 0, 1]
    s.front = [[1, 0, 1, 0], [0, 1, 0, 0]]
    s.out = [2, 2, 2, 2]
    s.up, s.player, s.phase = VIOLET, 1, CHOOSE
    s.t_seat, s.t_face, s.t_obj, s.t_start = 1, STARS, -1, VIOLET
    return s


def ends_now(s: CubeState) -> Values:
    """A leaf value for the tests: the win shares if the game ended here (C16)."""
    counts = [sum(row) for row in s.front]
    winners = [seat for seat, c in enumerate(counts) if c == min(counts)]
    return tuple(1.0 / len(winners) if seat in winners else 0.0 for seat in range(s.n))


def brute_force(s: CubeState, left: int, leaf: Callable[[CubeState], Values]) -> Values:
    """Expectimax by the definition: no table, every outcome and move enumerated again."""
    player = CUBE.current_player(s)
    if player == TERMINAL:
        return win_shares(CUBE, s)
    if player != CHANCE and left <= 1:
        return leaf(s)
    children = []
    if player == CHANCE:
        for outcome, p in CUBE.chance_outcomes(s):
            child = s.clone()
            CUBE.step(child, outcome)
            children.append((p, brute_force(child, left, leaf)))
        return tuple(sum(p * v[seat] for p, v in children) for seat in range(s.n))
    best: Values | None = None
    for move in CUBE.legal_moves(s):
        child = s.clone()
        CUBE.step(child, move)
        found = brute_force(child, left - 1, leaf)
        if best is None or found[player] > best[player]:
            best = found
    assert best is not None
    return best


def root_values(s: CubeState, depth: int, leaf: Callable[[CubeState], Values]) -> dict[str, Values]:
    legal = CUBE.legal_moves(s)
    found = Expectimax(CUBE, leaf).root_values(s, legal, depth)
    return {str(move): values for move, values in zip(legal, found, strict=True)}


def test_a_half_turn_is_valued_by_hand_what_may_fall_before_and_after_the_throw() -> None:
    """C11-C13 at depth 1 with 'whoever has the fewest objects wins now' at the leaves: seat 0
    keeps its half share only if nothing falls, at the intermediate side nor at the end."""
    s = via_position()
    p_mid = fall_probability(6)   # the wand is in hand: 6 objects in the cube
    p_end = fall_probability(7)   # thrown in: 7
    books_after = (1 - p_end) ** 2   # green up, red down: books fit (C3)
    expected = {
        "violet": 0.5 * (1 - p_mid) ** 6 * books_after,  # orange down: everything fits
        "orange": 0.5 * books_after,                      # violet down: no hole
        "yellow": 0.5 * (1 - p_mid) ** 1 * books_after,  # blue down: the hat
        "blue": 0.5 * (1 - p_mid) ** 1 * books_after,    # yellow down: the ring
    }
    found = root_values(s, 1, ends_now)
    for via, value in expected.items():
        assert found[str(Turn(via))][0] == pytest.approx(value, abs=1e-12)
        assert sum(found[str(Turn(via))]) == pytest.approx(1.0)


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("position", [via_position, choose_position])
def test_values_are_the_brute_force_recursion(position: Callable[[], CubeState], depth: int) -> None:
    """The transposition table changes nothing: every root value is the plain recursion's."""
    s = position()
    found = root_values(s, depth, ends_now)
    for move in CUBE.legal_moves(s):
        child = s.clone()
        CUBE.step(child, move)
        assert found[str(move)] == pytest.approx(brute_force(child, depth, ends_now), abs=1e-12)


def test_playout_leaves_are_the_brute_force_recursion_over_the_same_luck() -> None:
    """With playouts at the leaves (the same seeds at every leaf), still the plain recursion's."""
    s = choose_position()
    leaf = playout_value(CUBE, [random.Random(seed).getrandbits(64) for seed in range(40)])
    found = root_values(s, 2, leaf)
    for move in CUBE.legal_moves(s):
        child = s.clone()
        CUBE.step(child, move)
        assert found[str(move)] == pytest.approx(brute_force(child, 2, leaf), abs=1e-12)


def test_playout_value_is_deterministic_and_a_win_share() -> None:
    seeds = [11, 12, 13, 14]
    leaf = playout_value(CUBE, seeds)
    s = via_position()
    s.phase, s.t_obj = ROLL, -1
    assert leaf(s) == leaf(s.clone())
    assert sum(leaf(s)) == pytest.approx(1.0)


def test_search_plays_the_move_of_highest_value_and_never_exposes_the_whole_cube() -> None:
    s = via_position()
    found = expectimax_search(CUBE, s, 0, random.Random(1), 4000, depth=1)
    assert found.values[found.move] == max(found.values.values())
    assert found.values[Turn("violet")] < min(v for m, v in found.values.items() if m != Turn("violet"))
    assert found.iterations <= 4000
    again = expectimax_search(CUBE, via_position(), 0, random.Random(1), 4000, depth=1)
    assert (again.move, again.values) == (found.move, found.values)


def test_a_tie_goes_to_the_heuristic_move() -> None:
    """From violet up to orange with an empty cube nothing can fall: every side is worth the same."""
    s = CubeState(2)
    s.lid = [4, 5, 5, 5]
    s.up, s.player, s.phase = VIOLET, 0, VIA
    s.t_seat, s.t_face, s.t_obj, s.t_start = 0, STARS, BOOK, VIOLET
    found = expectimax_search(CUBE, s, 0, random.Random(2), 800, depth=2)
    assert len(set(found.values.values())) == 1
    assert found.move == careful_move(s)


def test_the_budget_buys_depth_while_every_leaf_keeps_its_playouts() -> None:
    s = choose_position()
    legal = CUBE.legal_moves(s)
    leaves = [count_leaves(CUBE, s, legal, depth) for depth in (1, 2, 3)]
    assert leaves[0] is not None and leaves[1] is not None and leaves[2] is not None
    assert leaves[0] < leaves[1] < leaves[2]
    assert count_leaves(CUBE, s, legal, 3, limit=leaves[2] - 1) is None
    small = expectimax_search(CUBE, s, 1, random.Random(3), 200 * leaves[0], depth=3)
    large = expectimax_search(CUBE, s, 1, random.Random(3), 200 * leaves[2], depth=3)
    assert set(small.visits.values()) == {1}   # ply 1: 200 playouts a leaf
    assert set(large.visits.values()) == {3}
    assert small.iterations == 200 * leaves[0]


def test_a_level_plays_expectimax_through_choose_move() -> None:
    level = Level("deep", 2000, 0.0, "", method="expectimax", depth=2)
    s = choose_position()
    move = choose_move(CUBE, s, 1, level, random.Random(4))
    assert move in CUBE.legal_moves(s)
    assert move.object in ("book", "hat", "wand")  # C9: a kind left in the lid


def test_a_game_with_hidden_information_is_refused() -> None:
    state = TOY.new_state(2)
    while TOY.current_player(state) == CHANCE:
        TOY.step(state, TOY.sample_chance(state, random.Random(5)))
    with pytest.raises(ValueError, match="perfect-information"):
        expectimax_search(TOY, state, TOY.current_player(state), random.Random(5), 100)


def test_states_the_rest_of_the_game_cannot_tell_apart_share_a_position_key() -> None:
    """The last turn's record and how the objects in front split by kind change nothing ahead."""
    a = via_position()
    a.phase, a.t_obj = ROLL, -1
    b = a.clone()
    b.t_face, b.t_obj, b.t_start, b.t_via = RING, RING, HAT, VIOLET
    b.front = [[0, 0, 0, 0], [0, 0, 0, 0]]
    a.front[1] = [1, 0, 0, 0]
    b.front[1] = [0, 0, 1, 0]
    assert CUBE.position_key(a) == CUBE.position_key(b)
    b.lid[RING] -= 1
    assert CUBE.position_key(a) != CUBE.position_key(b)


def test_the_edge_over_the_careful_player_is_measured_decision_by_decision() -> None:
    from ai.edge import measure, report

    edge = measure(CUBE, 3, 400, 1, seed="test-edge")
    decisions = sum(len(gains) for gains in edge.gains.values())
    assert decisions > 0
    assert set(edge.gains) <= {"Choose", "Turn"}
    for kind, gains in edge.gains.items():
        assert sum(1 for gain in gains if gain != 0.0) <= edge.switched[kind]
        assert all(gap >= 0.0 for gap in edge.upper[kind])  # the search's pick is its best
    assert "against the heuristic player" in report(edge)
