"""The fast playout (engine/enchanters/fast.py) is the rules' own transitions, played by its policy.

`fast.playout` runs the game on local variables; `reference_playout` below plays
the same policy through `rules.py`'s transitions and `advance`, drawing from the
generator exactly as the fast one does. From the same state and seed, both must
end in the same state (the records only views and determinization read aside).
"""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, TERMINAL
from engine.enchanters import GAME, fast
from engine.enchanters.cards import NUM_PILES
from engine.enchanters.rules import _discard, _draw, _gather, _object, _take, _trick, advance
from engine.enchanters.state import (
    ACT,
    DISCARD,
    FIRST,
    OBJECT,
    OVER,
    REFILL,
    TAKE1,
    TAKE2,
    VADEMECUM_DRAW,
    EnchantersState,
)

#: What the playout keeps up to date (not: history, known, peaks, reshuffled, pair_extra).
FIELDS = (
    "phase", "turn", "hands", "table", "deck", "discard", "towers", "piles", "ng_left", "objects", "ng",
    "obj_points", "stones", "proxima", "master", "last_pile", "queue", "vade_left", "refill", "skip_act",
    "reshuffles", "turns", "idle", "busy", "winners", "reason",
)


def reference_playout(s: EnchantersState, rng: random.Random) -> None:
    """The policy to the end through the rules' transitions (the playout before it was typed)."""
    rand = rng.random
    values = fast.pattern_values(s)
    while s.phase != OVER:
        phase = s.phase
        if phase == REFILL:
            deck = s.deck
            high = deck.bit_length()
            if deck.bit_count() * 3 >= high:
                card = int(rand() * high)
                while not deck >> card & 1:
                    card = int(rand() * high)
            else:
                for _ in range(int(rand() * deck.bit_count())):
                    deck &= deck - 1
                card = (deck & -deck).bit_length() - 1
            _draw(s, card)
        elif phase in (TAKE1, TAKE2):
            _take(s, fast.take_spot(s, rng))
        elif phase == ACT:
            move = fast.act_move(s, values)
            if move[-1] == "trick":
                _trick(s, move[0], move[1])
            elif move[-1] == "pass":
                s.phase = DISCARD
            else:
                _gather(s, move[0], move[2], move[1], move[3])
        elif phase == DISCARD:
            _discard(s, fast.discard_card(s, rng))
        elif phase == OBJECT:
            counts = s.piles[0]
            for k in range(NUM_PILES):
                counts = s.piles[(s.queue[0][1] + k) % NUM_PILES]
                if sum(counts):
                    break
            r = int(rand() * sum(counts))
            value = 0
            while r >= counts[value]:
                r -= counts[value]
                value += 1
            _object(s, value)
            values = fast.pattern_values(s)
        elif phase == VADEMECUM_DRAW:
            deck = s.deck
            for _ in range(int(rand() * deck.bit_count())):
                deck &= deck - 1
            _draw(s, (deck & -deck).bit_length() - 1)
        elif phase == FIRST:
            s.turn = int(rand() * s.n)
            s.phase = TAKE1
        if s.phase != OVER:
            advance(s)


def random_position(seed: int) -> EnchantersState:
    """A game of 2-6 players after a random number of random moves (any phase, the end included)."""
    rng = random.Random(seed)
    s = GAME.new_state(2 + seed % 5)
    for _ in range(rng.randrange(160)):
        player = GAME.current_player(s)
        if player == TERMINAL:
            break
        GAME.step(s, GAME.sample_chance(s, rng) if player == CHANCE else rng.choice(GAME.legal_moves(s)))
    return s


@pytest.mark.parametrize("chunk", range(4))
def test_fast_playout_ends_where_the_rules_end(chunk: int) -> None:
    for seed in range(chunk * 150, (chunk + 1) * 150):
        start = random_position(seed)
        fast_state, reference = start.clone(), start.clone()
        fast.playout(fast_state, random.Random(seed))
        reference_playout(reference, random.Random(seed))
        assert fast_state.phase == OVER
        for name in FIELDS:
            assert getattr(fast_state, name) == getattr(reference, name), (seed, name)
