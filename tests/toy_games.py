"""A small trick-taking game implementing the whole engine protocol, for testing the search.

Toy Tricks: 2-3 players, a deck of 3 suits x 5 ranks (card = suit * 5 + rank).
Chance deals `hand` cards to each seat one at a time (seat 0 first, round
robin); seat 0 leads the first trick. Players must follow the led suit when
they can; the highest card of the led suit wins the trick and its winner
leads next. When hands are empty the most tricks wins (ties share the win).
Hidden: the other hands and the undealt cards. Never registered: tests only.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, NamedTuple

from engine.core import (
    CHANCE,
    TERMINAL,
    Game,
    GameInfo,
    OptionSpec,
    Outcome,
    State,
    Termination,
    ranks_for,
)
from engine.errors import IllegalMove, InvalidMove, InvalidSnapshot

SUITS = 3
RANKS = 5
DECK = SUITS * RANKS
SUIT_NAMES = "SHC"


def card_name(card: int) -> str:
    return f"{card % RANKS}{SUIT_NAMES[card // RANKS]}"


def card_of(name: str) -> int:
    return SUIT_NAMES.index(name[-1]) * RANKS + int(name[:-1])


class Play(NamedTuple):
    card: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "play", "card": card_name(self.card)}


class Deal(NamedTuple):
    card: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "deal", "card": card_name(self.card)}


def cards_in(mask: int) -> list[int]:
    return [c for c in range(DECK) if mask >> c & 1]


def suit_mask(suit: int) -> int:
    return ((1 << RANKS) - 1) << (suit * RANKS)


class ToyState(State):
    __slots__ = ("n", "hand_size", "hands", "deck", "dealt", "trick", "leader", "turn",
                 "tricks", "voids", "played")

    def __init__(self, n: int, hand_size: int) -> None:
        self.n = n
        self.hand_size = hand_size
        self.hands = [0] * n          # bit masks
        self.deck = (1 << DECK) - 1   # undealt cards
        self.dealt = 0                # cards dealt so far
        self.trick: list[int] = []    # cards of the current trick, in play order
        self.leader = 0
        self.turn = 0
        self.tricks = [0] * n
        self.voids = [0] * n          # bit per suit a seat showed it lacks
        self.played = 0               # cards played so far (public)

    def clone(self) -> ToyState:
        other = ToyState.__new__(ToyState)
        other.n = self.n
        other.hand_size = self.hand_size
        other.hands = self.hands[:]
        other.deck = self.deck
        other.dealt = self.dealt
        other.trick = self.trick[:]
        other.leader = self.leader
        other.turn = self.turn
        other.tricks = self.tricks[:]
        other.voids = self.voids[:]
        other.played = self.played
        return other


class ToyTricks(Game):
    info = GameInfo(
        id="toy",
        title="Toy Tricks",
        min_players=2,
        max_players=3,
        options=(OptionSpec("hand", "cards per hand", 4, (2, 3, 4), "integer"),),
        rules_file="tests/toy_games.py",
        hidden_information=True,
    )

    def new_state(self, num_players: int, options: Mapping[str, Any] | None = None) -> ToyState:
        self.validate_players(num_players)
        options = self.validate_options(options)
        return ToyState(num_players, options["hand"])

    def num_players(self, state: ToyState) -> int:
        return state.n

    def current_player(self, state: ToyState) -> int:
        if state.dealt < state.n * state.hand_size:
            return CHANCE
        if not any(state.hands):
            return TERMINAL
        return state.turn

    def chance_outcomes(self, state: ToyState) -> list[tuple[Deal, float]]:
        cards = cards_in(state.deck)
        return [(Deal(c), 1.0 / len(cards)) for c in cards]

    def sample_chance(self, state: ToyState, rng: random.Random) -> Deal:
        return Deal(rng.choice(cards_in(state.deck)))

    def legal_moves(self, state: ToyState) -> list[Play]:
        if self.current_player(state) < 0:
            return []
        hand = state.hands[state.turn]
        if state.trick:
            follow = hand & suit_mask(state.trick[0] // RANKS)
            if follow:
                hand = follow
        return [Play(c) for c in cards_in(hand)]

    def step(self, state: ToyState, move: Play | Deal) -> None:
        card = move.card
        if type(move) is Deal:
            seat = state.dealt % state.n
            state.hands[seat] |= 1 << card
            state.deck &= ~(1 << card)
            state.dealt += 1
            return
        seat = state.turn
        trick = state.trick
        if trick and card // RANKS != trick[0] // RANKS:
            state.voids[seat] |= 1 << (trick[0] // RANKS)
        state.hands[seat] &= ~(1 << card)
        state.played |= 1 << card
        trick.append(card)
        if len(trick) < state.n:
            state.turn = (seat + 1) % state.n
            return
        suit = trick[0] // RANKS
        best = max((c, i) for i, c in enumerate(trick) if c // RANKS == suit)[1]
        winner = (state.leader + best) % state.n
        state.tricks[winner] += 1
        state.trick = []
        state.leader = state.turn = winner

    def check_move(self, state: ToyState, move: Any) -> None:
        player = self.current_player(state)
        if player == TERMINAL:
            raise IllegalMove("T0", "the game is over", move)
        if player == CHANCE:
            if not isinstance(move, Deal) or not state.deck >> move.card & 1:
                raise IllegalMove("T1", "chance deals an undealt card", move)
            return
        if not isinstance(move, Play) or not state.hands[player] >> move.card & 1:
            raise IllegalMove("T2", "play a card from your hand", move)
        if move not in self.legal_moves(state):
            raise IllegalMove("T3", "follow the led suit", move)

    def outcome(self, state: ToyState) -> Outcome | None:
        if self.current_player(state) != TERMINAL:
            return None
        best = max(state.tricks)
        winners = tuple(s for s in range(state.n) if state.tricks[s] == best)
        return Outcome(tuple(map(float, state.tricks)), winners, Termination.HANDS_EMPTY,
                       ranks_for(state.tricks))

    def returns(self, state: ToyState) -> tuple[float, ...]:
        best = max(state.tricks)
        return tuple(1.0 if t == best else 0.0 for t in state.tricks)

    def playout(self, state: ToyState, rng: random.Random) -> tuple[float, ...]:
        current, legal, step = self.current_player, self.legal_moves, self.step
        while True:
            player = current(state)
            if player == TERMINAL:
                return self.returns(state)
            if player == CHANCE:
                step(state, self.sample_chance(state, rng))
            else:
                moves = legal(state)
                step(state, moves[rng.randrange(len(moves))])

    def view(self, state: ToyState, seat: int | None) -> dict[str, Any]:
        return {
            "hand": [card_name(c) for c in cards_in(state.hands[seat])] if seat is not None else None,
            "hand_sizes": [h.bit_count() for h in state.hands],
            "trick": [card_name(c) for c in state.trick],
            "leader": state.leader,
            "tricks": list(state.tricks),
            "played": [card_name(c) for c in cards_in(state.played)],
            "dealt": state.dealt,
        }

    def determinize(self, state: ToyState, seat: int, rng: random.Random) -> ToyState:
        """Redeal the cards `seat` cannot see, keeping hand sizes and the voids players showed."""
        sample = state.clone()
        others = [s for s in range(state.n) if s != seat]
        pool = state.deck
        for s in others:
            pool |= state.hands[s]
        for _ in range(100):
            left = pool
            hands = {}
            for s in sorted(others, key=lambda s: -state.voids[s].bit_count()):
                allowed = left
                for suit in range(SUITS):
                    if state.voids[s] >> suit & 1:
                        allowed &= ~suit_mask(suit)
                cards = cards_in(allowed)
                size = state.hands[s].bit_count()
                if len(cards) < size:
                    break
                chosen = 0
                for c in rng.sample(cards, size):
                    chosen |= 1 << c
                hands[s] = chosen
                left &= ~chosen
            else:
                for s, h in hands.items():
                    sample.hands[s] = h
                sample.deck = left
                return sample
        return state.clone()  # the true deal always satisfies the constraints; rarely reached

    def move_from_json(self, data: Any) -> Play | Deal:
        if not isinstance(data, dict) or data.get("type") not in ("play", "deal"):
            raise InvalidMove("expected {type: play|deal, card}", data)
        try:
            card = card_of(data["card"])
        except (KeyError, ValueError, TypeError, IndexError):
            raise InvalidMove("bad card", data) from None
        return Play(card) if data["type"] == "play" else Deal(card)

    def encode(self, state: ToyState) -> dict[str, Any]:
        return {
            "v": 1, "n": state.n, "hand_size": state.hand_size, "hands": state.hands,
            "deck": state.deck, "dealt": state.dealt, "trick": state.trick,
            "leader": state.leader, "turn": state.turn, "tricks": state.tricks,
            "voids": state.voids, "played": state.played,
        }

    def decode(self, data: Mapping[str, Any]) -> ToyState:
        if data.get("v") != 1:
            raise InvalidSnapshot("unknown snapshot version")
        state = ToyState(data["n"], data["hand_size"])
        for name in ("deck", "dealt", "leader", "turn", "played"):
            setattr(state, name, data[name])
        for name in ("hands", "trick", "tricks", "voids"):
            setattr(state, name, list(data[name]))
        return state


TOY = ToyTricks()
