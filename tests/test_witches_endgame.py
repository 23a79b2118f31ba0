"""The Witches' Wheel's exact endgame (W13: the pile can no longer deal): values checked against a
brute-force minimax over the rules themselves, and a search that uses it sees only sampled deals.
"""

from __future__ import annotations

import random

import pytest

from ai.search import search
from engine.core import TERMINAL
from engine.witches import GAME, rules
from engine.witches.cards import ALL_CARDS, BIT, mask_of
from engine.witches.endgame import SCALE, exact_returns, is_endgame, solve
from engine.witches.game import WitchesGame
from engine.witches.state import DECIDE, PLAY, WitchesState
from tests.test_witches_rules import build, cards


def margin_now(s: WitchesState) -> int:
    """Seat 0's margin: SCALE × its points ahead plus its captured cards ahead (W14)."""
    points = rules.scores(s)
    return SCALE * (points[0] - points[1]) + s.captured[0].bit_count() - s.captured[1].bit_count()


def brute_force(s: WitchesState) -> int:
    """Seat 0's final margin under best play by both seats, every move of the rules tried."""
    player = rules.current_player(s)
    if player == TERMINAL:
        return margin_now(s)
    values = []
    for move in rules.legal_moves(s):
        after = s.clone()
        rules.step(after, move)
        values.append(brute_force(after))
    return max(values) if player == 0 else min(values)


def random_endgame(rng: random.Random, size: int, increasing: bool) -> WitchesState:
    """Two hands of `size` cards, a trump, some captures, one card left in the pile (W12, W13)."""
    deck = list(range(54))
    rng.shuffle(deck)
    s = WitchesState.initial(2, increasing)
    s.hands = [mask_of(deck[:size]), mask_of(deck[size:2 * size])]
    s.trump = deck[2 * size]
    rest = deck[2 * size + 1:]
    s.captured = [mask_of(rest[:rng.randrange(8)]), mask_of(rest[8:8 + rng.randrange(8)])]
    s.pile = BIT[rest[-1]]
    s.discard = ALL_CARDS ^ s.hands[0] ^ s.hands[1] ^ BIT[s.trump] ^ s.captured[0] ^ s.captured[1] ^ s.pile
    s.phase = PLAY
    s.turn = s.leader = rng.randrange(2)
    return s


def positions(rng: random.Random, size: int, increasing: bool) -> list[WitchesState]:
    """A trick's start, the follower to answer a lead, and a winner's trump decision (W7, W11)."""
    start = random_endgame(rng, size, increasing)
    answer = start.clone()
    rules.step(answer, rng.choice(rules.legal_moves(answer)))
    decide = answer.clone()
    rules.step(decide, rng.choice(rules.legal_moves(decide)))
    return [start, answer] + ([decide] if decide.phase == DECIDE else [])


@pytest.mark.parametrize("size", [1, 2, 3, 4])
@pytest.mark.parametrize("wheel", ["decreasing", "increasing"])
def test_w13_the_endgame_value_is_the_brute_force_minimax(size: int, wheel: str) -> None:
    rng = random.Random(f"{size}:{wheel}")
    for _ in range(6):
        for s in positions(rng, size, wheel == "increasing"):
            assert is_endgame(s)
            assert margin_now(s) + solve(s, {}) == brute_force(s), s


def test_w11_the_endgame_solver_gives_up_a_capture_for_the_trump_when_it_pays() -> None:
    # seat 0 just won orange-1 (decreasing wheel, trump green-5). Kept, seat 1's green trumps take
    # both of seat 0's oranges (17 points to 1); given up, orange is trump and seat 0's oranges take
    # both greens (17 points to none)
    s = build(["orange-9 orange-8", "green-9 green-8"], "green-5", phase=DECIDE, captured=["orange-1", ""],
              pile="red-1")
    s.won = BIT[cards("orange-1")[0]]
    assert margin_now(s) + solve(s, {}) == brute_force(s)
    assert exact_returns(s)[0] > 0.9  # seat 0 wins


def test_w14_exact_returns_name_the_brute_force_winner() -> None:
    rng = random.Random(3)
    for _ in range(20):
        s = random_endgame(rng, 3, False)
        margin = brute_force(s)
        first, second = exact_returns(s)
        assert (first > 0.9, second > 0.9) == (margin >= 0, margin <= 0)
        assert 0.0 <= first <= 1.0 and 0.0 <= second <= 1.0


class _Spy(WitchesGame):
    """Counts the positions the search asks to solve."""

    def __init__(self) -> None:
        self.solved = 0

    def solved_returns(self, state: WitchesState) -> tuple[float, ...] | None:
        self.solved += 1
        return super().solved_returns(state)


def test_a_search_solves_sampled_deals_only() -> None:
    """The same view with the unseen cards laid out otherwise (seat 1's hand swapped with the pile's
    card) gives the same search, statistics and all: the solver saw samples, never the hidden cards."""
    rng = random.Random(8)
    true = random_endgame(rng, 4, False)
    true.turn = true.leader = 0
    other = true.clone()  # one card of seat 1 traded with the pile's
    swapped = next(c for c in range(54) if other.hands[1] & BIT[c])
    other.hands[1] ^= BIT[swapped] | other.pile
    other.pile = BIT[swapped]
    assert other.hands[1] != true.hands[1]
    assert GAME.view(other, 0) == GAME.view(true, 0)
    results = []
    for state in (true, other):
        spy = _Spy()
        found = search(spy, state, 0, random.Random(1), iterations=200, seconds=60.0, exact=True)
        assert spy.solved > 0
        results.append((found.move, found.visits, found.values))
    assert results[0] == results[1]


def test_a_search_from_before_the_last_draw_solves_nothing() -> None:
    """Samples reached from before the last draw are all new deals: too many to solve (W12)."""
    rng = random.Random(9)
    state = random_endgame(rng, 4, False)
    state.pile |= state.discard & -state.discard  # two cards in the pile: one more draw to come
    state.discard &= state.discard - 1
    assert not GAME.solvable(state) and GAME.solvable(random_endgame(rng, 4, False))
    spy = _Spy()
    search(spy, state, state.turn, random.Random(1), iterations=200, seconds=60.0, exact=True)
    assert spy.solved == 0
