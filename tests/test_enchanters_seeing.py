"""The measurements of what `hard` would win seeing hidden cards (tests/enchanters_opponents.py):
one sees the whole true state, the other the hands and object values but not the table's face-down
cards, which it still deals as `hard` does."""

from __future__ import annotations

import random

from engine import CHANCE
from engine.enchanters import GAME
from engine.enchanters.cards import ALL_CARDS
from engine.enchanters.state import FACE_UP_SPOT, EnchantersState
from tests.enchanters_opponents import (
    HandsSeenEnchanters,
    SeeingEnchanters,
    hands_seen_hard,
    seeing_hard,
)


def midgame(seed: int = 3) -> tuple[EnchantersState, int]:
    """The first decision of a random two-player game where the seat to act cannot see part of the
    other hand, the values of its objects, two face-down table cards and the deck."""
    rng = random.Random(seed)
    s = GAME.new_state(2)
    for _ in range(1000):
        seat = GAME.current_player(s)
        if seat == CHANCE:
            GAME.step(s, GAME.sample_chance(s, rng))
            continue
        spots = sum(s.table[i] >= 0 for i in range(FACE_UP_SPOT))
        if s.objects[1 - seat] and s.hands[1 - seat] & ~s.known[seat] and s.deck and spots >= 2:
            return s, seat
        GAME.step(s, rng.choice(GAME.legal_moves(s)))
    raise AssertionError("no such position in this game")


def face_down(s: EnchantersState) -> list[int]:
    return [s.table[i] for i in range(FACE_UP_SPOT)]


def test_the_seeing_search_samples_the_true_state() -> None:
    s, seat = midgame()
    draw = SeeingEnchanters().determinizer(s, seat)
    rng = random.Random(1)
    assert all(GAME.encode(draw(rng)) == GAME.encode(s) for _ in range(10))
    assert seeing_hard(GAME, s, seat, random.Random(2)) in GAME.legal_moves(s)


def test_hands_seen_keeps_hands_and_objects_and_deals_only_what_nobody_sees() -> None:
    s, seat = midgame()
    hards = [GAME.determinize(s, seat, random.Random(k)) for k in range(20)]
    assert any(d.hands != s.hands for d in hards)  # hard's own samples redeal the other hand
    assert any(d.objects != s.objects for d in hards)  # and the values of its objects
    draw = HandsSeenEnchanters().determinizer(s, seat)
    rng = random.Random(1)
    samples = [draw(rng) for _ in range(50)]
    hidden = [c for c in face_down(s) if c >= 0]
    for d in samples:
        assert d.hands == s.hands and d.objects == s.objects and d.piles == s.piles
        assert d.known == s.known and d.table[FACE_UP_SPOT] == s.table[FACE_UP_SPOT]
        assert d.card_places() == ALL_CARDS
        dealt = [c for c in face_down(d) if c >= 0]
        assert len(dealt) == len(hidden)
        assert sum(1 << c for c in dealt) | d.deck == sum(1 << c for c in hidden) | s.deck
    assert len({tuple(face_down(d)) for d in samples}) > 10  # the face-down cards are redealt
    assert hands_seen_hard(GAME, s, seat, random.Random(2)) in GAME.legal_moves(s)
