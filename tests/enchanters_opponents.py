"""Measurements at The Enchanters' Gathering for issue 35: `hard` given what its seat cannot see,
to bound what a level above `hard` could draw from better guesses of the hidden cards.

`seeing_hard`: `hard` (paired halving, 9,000 playouts, no CPU cap, as `make strength` plays it)
whose every world is the true state: the other hands, their object values and the face-down table
cards (the deck is a set that chance draws from, so the future stays unknown). `hands_seen_hard`
sees the other hands and their object values only: the face-down table cards and the deck, which
nobody at the table sees and nobody's choice reveals, are dealt as `hard` deals them. What the
second wins over `hard` bounds what any inference from the other player's choices could buy this
search (docs/bots/index.md, "No level above `hard`").
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

from ai.levels import get_level
from ai.play import choose_move
from engine.core import AnyGame, Move, Seat, State
from engine.enchanters import views
from engine.enchanters.game import EnchantersGame
from engine.enchanters.state import EnchantersState

#: `hard` as `make strength` plays it: its 9,000 playouts, no CPU cap.
HARD = dataclasses.replace(get_level("hard", "enchanters"), seconds=0.0)


class SeeingEnchanters(EnchantersGame):
    """The Enchanters' Gathering with every determinization the true state."""

    def determinize(self, state: EnchantersState, seat: Seat, rng: random.Random) -> EnchantersState:
        return state.clone()

    def determinizer(self, state: EnchantersState, seat: Seat) -> Callable[[random.Random], EnchantersState]:
        return lambda rng: state.clone()


class HandsSeenEnchanters(EnchantersGame):
    """The Enchanters' Gathering whose determinizations keep the true hands and object values and
    deal only the face-down table cards and the deck, as `views.determinizer` deals them."""

    def determinize(self, state: EnchantersState, seat: Seat, rng: random.Random) -> EnchantersState:
        return self.determinizer(state, seat)(rng)

    def determinizer(self, state: EnchantersState, seat: Seat) -> Callable[[random.Random], EnchantersState]:
        knowing = state.clone()
        for hand in state.hands:
            knowing.known[seat] |= hand  # so the dealer leaves every hand in place
        deal = views.determinizer(knowing, seat)

        def sample(rng: random.Random) -> EnchantersState:
            d = deal(rng)
            d.objects, d.piles = state.objects[:], state.piles[:]  # the true object values
            d.known = state.known[:]
            return d

        return sample


_SEEING = SeeingEnchanters()
_HANDS_SEEN = HandsSeenEnchanters()


def seeing_hard(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """`hard`'s move for `seat` when it searches the true state (see the module)."""
    return _searching(_SEEING, state, seat, rng)


def hands_seen_hard(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """`hard`'s move for `seat` when it sees the other hands and object values (see the module)."""
    return _searching(_HANDS_SEEN, state, seat, rng)


def _searching(searched: EnchantersGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """The move `hard` makes in `state` searching `searched`, whose samples say what it may see."""
    assert isinstance(state, EnchantersState)
    move: Move = choose_move(searched, state, seat, HARD, rng)
    return move
