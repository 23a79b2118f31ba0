"""Test opponents at The Witches' Wheel for `make strength`: a strong hand-written player, and a
perfect-information Monte Carlo (PIMC) player. Both play from what their seat may see.

The strong player: the simple player's heuristics (`engine.witches.policy`) made sharper — a
follower wins a trick with its weakest winning card of the led colour, trumps only when the
witches at stake are worth the trump, and throws the card that gives least away — and, once the
pile can no longer deal (W13), exact play: the move with the best mean solved value over every
deal of the unseen cards it samples (`engine.witches.endgame`).

The PIMC player (`ai.pimc`): 40 sampled worlds, every move valued by playouts, and exactly once the
pile is spent — as the outside PIMC player of issue 35.

A measurement, not an opponent: `clairvoyant_hard`, the `hard` level searching the true deal (the
other hands, not the pile's order, which chance still draws) in every sample, bounds what any
inference of the unseen cards could buy `hard` (docs/bots/index.md); `clairvoyant_regrets` shows
at which of `hard`'s choices seeing the other hand pays, and `ClairvoyantIn` how many games it wins
in each part of the hand (docs/bots/index.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ai.arena import Policy, _act, play_game
from ai.levels import Level
from ai.play import choose_move
from ai.search import search
from engine.core import AnyGame, Move, Seat, State
from engine.registry import get_game
from engine.witches.cards import COLOUR, KEYS, LED_KEYS, TRUMP_BONUS, VALUE, cards_of
from engine.witches.endgame import exact_returns, is_endgame
from engine.witches.game import WitchesGame
from engine.witches.moves import PLAYS, WitchesMove
from engine.witches.policy import policy_move
from engine.witches.rules import legal_moves, step
from engine.witches.state import DECIDE, PLAY, WitchesState

#: Worlds the strong player solves in the endgame.
ENDGAME_WORLDS = 20
#: A PIMC player: about 40 worlds of a 6-card hand (its budget counts a world's move once).
PIMC = Level("pimc", 240, 0.0, "PIMC: 40 worlds, playouts, exact after the last draw.", method="pimc",
             exact=True)


def strong_player(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """The strong hand-written player's move for `seat` (see the module)."""
    sample = game.determinize(state, seat, rng)
    if is_endgame(sample):
        return _solved_move(game, state, seat, rng)
    if sample.phase != PLAY:
        return policy_move(sample, rng)
    return _play(sample)


def _play(s: WitchesState) -> WitchesMove:
    """W7: a lead or an answer, from the seat's own hand and the table only."""
    hand = cards_of(s.hands[s.turn])
    keys = KEYS[s.increasing][s.trump]
    cheapest = min(hand, key=lambda c: (keys[c] >= TRUMP_BONUS, VALUE[c], keys[c]))
    if not s.trick:
        # lead a card that costs little if lost: a low witch that is not a trump
        return PLAYS[cheapest]
    led = LED_KEYS[s.increasing][s.trump][COLOUR[s.trick[0]]]
    best = max(led[c] for c in s.trick)
    at_stake = sum(VALUE[c] for c in s.trick)
    last = len(s.trick) == s.n - 1
    winning = [c for c in hand if led[c] > best]
    plain = [c for c in winning if led[c] < TRUMP_BONUS]
    if plain and (last or at_stake >= 3):
        # the weakest plain winner, and among equals the one worth most (it goes to the discard)
        return PLAYS[min(plain, key=lambda c: (led[c], -VALUE[c]))]
    trumps = [c for c in winning if led[c] >= TRUMP_BONUS]
    if trumps and at_stake + VALUE[cheapest] >= 6 and (last or at_stake >= 6):
        return PLAYS[min(trumps, key=lambda c: (led[c], -VALUE[c]))]
    return PLAYS[cheapest]


def _solved_move(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """The move with the best mean exact value over sampled deals of the unseen cards."""
    moves = legal_moves(state)
    totals = [0.0] * len(moves)
    for _ in range(ENDGAME_WORLDS):
        world = game.determinize(state, seat, rng)
        for k, move in enumerate(moves):
            after = world.clone()
            step(after, move)
            totals[k] += exact_returns(after)[seat]  # exact at the end of the hand too (shared table)
    return moves[max(range(len(moves)), key=totals.__getitem__)]


class SeeingWitches(WitchesGame):
    """The Witches' Wheel with every determinization the true state: a search on it sees all hands."""

    def determinize(self, state: WitchesState, seat: Seat, rng: random.Random) -> WitchesState:
        return state.clone()

    def search_determinizer(self, state: WitchesState, seat: Seat,
                            sampling: str) -> Callable[[random.Random], WitchesState]:
        """The true state whatever the level's sampling: `hard`'s inferred deals draw their own."""
        return lambda rng: state.clone()


_SEEING = SeeingWitches()


def clairvoyant_hard(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """`hard`'s move for `seat` when it searches the true deal (see the module)."""
    assert isinstance(state, WitchesState)
    move: Move = choose_move(_SEEING, state, seat, "hard", rng)
    return move


@dataclass(frozen=True)
class ClairvoyantIn:
    """A level (`hard` unless named) searching the true deal only while `first` <= tricks played <
    `last`, and as it plays otherwise: how many games seeing the other hand wins in each part of
    the hand (docs/bots/index.md). Picklable, for `play_match`'s processes."""

    first: int
    last: int
    level: Level | str = "hard"

    def searched(self, game: AnyGame, state: WitchesState) -> AnyGame:
        """The game the level searches in `state`: the true deal's inside the range, else `game`."""
        return _SEEING if self.first <= len(state.tricks) < self.last else game

    def __call__(self, game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
        assert isinstance(state, WitchesState)
        move: Move = choose_move(self.searched(game, state), state, seat, self.level, rng)
        return move


@dataclass(frozen=True)
class Choice:
    """One choice of a player judged by a search of the true deal: the clairvoyant's mean reward
    for its own choice (`best`) and for the player's (`chosen`), rewards as the search counts them."""

    trick: int   # tricks already played
    kind: str    # "lead", "follow" or "decide" (the trump decision, W11)
    pile: int    # cards left in the pile (under 2: after the last draw, W13)
    same: bool   # the player chose the clairvoyant's move
    best: float
    chosen: float


class _Recording:
    """A policy that keeps every (state, seat, move) it chose (picklable)."""

    def __init__(self, player: Policy) -> None:
        self.player = player
        self.choices: list[tuple[WitchesState, Seat, Move]] = []

    def __call__(self, game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
        move = _act(self.player, game, state, seat, rng)
        assert isinstance(state, WitchesState)
        self.choices.append((state.clone(), seat, move))
        return move


def clairvoyant_regrets(seed: str, index: int, player: Policy = "hard",
                        simulations: int = 15000) -> tuple[float, list[Choice]]:
    """Game `index` of `seed` as `play_match` plays `player` (a level or a policy) against the strong
    player (`player` in seat `index mod 2`), and each of its choices among two or more moves judged
    by a search of the true deal (`simulations`, exact endgame): its score and its choices."""
    recording = _Recording(player)
    seat_a = index % 2
    policies: list[Policy] = [strong_player, strong_player]
    policies[seat_a] = recording
    winners, _ = play_game(get_game("witches"), policies, f"{seed}:{index}")
    choices = []
    for number, (state, seat, move) in enumerate(recording.choices):
        if len(legal_moves(state)) < 2:
            continue
        found = search(_SEEING, state, seat, random.Random(f"{seed}:{index}:{number}"), simulations,
                       exact=True)
        kind = "decide" if state.phase == DECIDE else "follow" if state.trick else "lead"
        choices.append(Choice(len(state.tricks), kind, state.pile.bit_count(), move == found.move,
                              found.values[found.move], found.values[move]))
    return (1.0 / len(winners) if seat_a in winners else 0.0), choices
