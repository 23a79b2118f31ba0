"""The Witches' Wheel's playout policies (`fast.MAST`, `fast.HEURISTIC`, `WitchesGame.search_playout`).

Each policy playout is replayed through the checked rules (`Game.apply`) by a reference written
here from its description, drawing the same random words: the fast playout must end exactly where
the reference does (so it plays only legal cards and conserves them), and MAST must credit each
card it played with its player's reward.
"""

from __future__ import annotations

import random

import pytest

from ai.levels import Level
from ai.play import choose_move
from engine.witches import GAME, Keep, Play, WitchesState, fast
from engine.witches.cards import COLOUR, KEYS, LED_KEYS, TRUMP_BONUS, VALUE, cards_of
from engine.witches.state import DECIDE, OVER, PLAY
from tests.test_witches_rules import assert_conserved, cards, drawn_chance, random_game


def reference_card(s: WitchesState, policy: int, stats: list[float]) -> int:
    """The policy's card for the seat to play, from its description."""
    hand = cards_of(s.hands[s.turn])
    if policy == fast.MAST:
        at = (s.turn * 2 + (len(s.trick) > 0)) * 54

        def mean(card: int) -> float:
            count = stats[fast.MAST_KEYS + at + card]
            return stats[at + card] / count if count else 1.0
        return max(hand, key=lambda c: (mean(c), -c))  # the first of the best, in card order
    keys = KEYS[s.increasing][s.trump]
    cheap = min(hand, key=lambda c: (keys[c] >= TRUMP_BONUS, VALUE[c], keys[c]))
    if not s.trick:
        return cheap
    led = LED_KEYS[s.increasing][s.trump][COLOUR[s.trick[0]]]
    best = max(led[c] for c in s.trick)
    stake = sum(VALUE[c] for c in s.trick)
    winners = [c for c in hand if led[c] > best]
    if not winners:
        return cheap
    win = min(winners, key=lambda c: led[c])
    worth = stake >= fast.TRUMP_STAKE if led[win] >= TRUMP_BONUS else (
        len(s.trick) == s.n - 1 or stake >= fast.PLAIN_STAKE)
    return win if worth else cheap


def reference_playout(state: WitchesState, rng: random.Random, policy: int, epsilon: float,
                      stats: list[float]) -> WitchesState:
    """The policy playout through the checked path, every trump kept, MAST's credits added to `stats`."""
    words = iter(fast.random_words(state, rng, 2))
    explore = int(epsilon * 2**32)
    pile = cards_of(state.pile)
    start_tricks, start_trick = len(state.tricks), len(state.trick)
    if state.phase == DECIDE:
        state = GAME.apply(state, Keep())
    before = list(stats)
    while state.phase != OVER:
        chance = drawn_chance(state, words, pile)
        if chance is not None:
            move = chance
        elif state.phase == PLAY:
            r = next(words)
            if r >= explore:
                move = Play(reference_card(state, policy, before))
            else:
                hand = cards_of(state.hands[state.turn])
                move = Play(hand[next(words) * len(hand) >> 32])
        else:
            move = Keep()
        state = GAME.apply(state, move)
    if policy == fast.MAST:
        rewards = GAME.returns(state)
        for t, (leader, trick, _) in enumerate(state.tricks[start_tricks:]):
            for i, card in enumerate(trick):
                if t == 0 and i < start_trick:
                    continue  # on the table before the playout
                seat = (leader + i) % state.n
                key = (seat * 2 + (i > 0)) * 54 + card
                stats[key] += rewards[seat]
                stats[fast.MAST_KEYS + key] += 1.0
    return state


@pytest.mark.parametrize("policy", [fast.MAST, fast.HEURISTIC])
@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_policy_playouts_are_the_checked_rules(n: int, policy: int) -> None:
    """W7-W14 with a policy: from any state, the fast playout ends where the checked reference
    ends (legal cards only, every card conserved, every trump kept), and MAST's statistics agree."""
    stats = fast.mast_table()
    expected = [0.0] * (2 * fast.MAST_KEYS)
    for seed in range(40):
        trajectory = [state for state, _ in random_game(n, seed, ("decreasing", "increasing")[seed % 2])]
        start = trajectory[(seed * 7919) % len(trajectory)] if seed % 3 else trajectory[0]
        ours = start.clone()
        returns = fast.playout(ours, random.Random(seed), True, policy, 0.3, stats)
        checked = reference_playout(start.clone(), random.Random(seed), policy, 0.3, expected)
        assert ours == checked, (n, seed, policy)
        assert returns == GAME.returns(checked)
        assert_conserved(ours)
        assert list(stats) == pytest.approx(expected)
    if policy == fast.MAST:
        assert sum(expected[fast.MAST_KEYS:]) > 0


def test_heuristic_playout_leads_cheap_and_wins_a_trick_worth_it() -> None:
    """With no exploration, a heuristic playout leads the cheapest non-trump and follows with its
    weakest winning card when the witches on the table are worth it."""
    s = GAME.new_state(2)
    s.phase, s.trump, s.turn, s.leader = PLAY, cards("red-5")[0], 0, 0
    s.pile = 0
    s.hands = [sum(1 << c for c in cards("red-1 blue-2 green-9")),
               sum(1 << c for c in cards("blue-1 blue-3 yellow-1"))]
    fast.playout(s, random.Random(0), True, fast.HEURISTIC, 0.0)
    # blue-2 is the cheapest non-trump lead; blue-3 is the follower's one winner (decreasing wheel:
    # 5 4 3 2 1 9 8 7 6, so 3 beats 2), and it is last to play
    assert s.tricks[0][1] == tuple(cards("blue-2 blue-3"))


def test_search_playout_names_the_policies() -> None:
    """The search asks the game for a playout by name; an unknown name is refused."""
    for name in ("", "mast", "heuristic"):
        s = GAME.new_state(3)
        while GAME.current_player(s) < 0 and s.phase != OVER:
            s = GAME.apply(s, GAME.sample_chance(s, random.Random(1)))
        rewards = GAME.search_playout(name)(s, random.Random(2))
        assert s.phase == OVER and len(rewards) == 3
    with pytest.raises(KeyError):
        GAME.search_playout("nonsense")


def test_a_level_with_a_playout_policy_plays_legal_moves() -> None:
    """A level naming a playout policy searches with it and returns a legal move."""
    s = GAME.new_state(2)
    rng = random.Random(4)
    while GAME.current_player(s) < 0:
        s = GAME.apply(s, GAME.sample_chance(s, rng))
    level = Level("test", 200, 0.0, "", playout="mast")
    assert choose_move(GAME, s, GAME.current_player(s), level, rng) in GAME.legal_moves(s)
