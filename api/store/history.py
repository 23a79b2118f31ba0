"""A match's history as stored: each move as its index among the moves possible where it was made.

A player's move is stored as its index in `Game.legal_moves`, a chance outcome as its index
in `Game.chance_outcomes` of the state it was made in: one small number instead of a move's
JSON (the deals and draws are most of a history). Both lists are deterministic functions of
the state (the engine protocol), so reading replays the match from its initial state with the
engine — which the log, the versions and resumed streams do anyway. A move that is not in its
list (never, for a game that keeps the protocol) and the moves of matches stored by the old
format are kept as their JSON in a one-item list.
"""

from __future__ import annotations

from typing import Any, cast

from engine import CHANCE
from engine.core import AnyGame, Move, State


def possible(game: AnyGame, state: State, player: int) -> list[Move]:
    """The moves `player` (a seat or CHANCE, the one to act in `state`) could make there, in order."""
    if player == CHANCE:
        return [outcome for outcome, _ in game.chance_outcomes(state)]
    return game.legal_moves(state)


def entries_for(game: AnyGame, state: State, moves: list[Move]) -> list[Any]:
    """The stored entries of `moves` made one after the other from `state` (left unchanged)."""
    entries: list[Any] = []
    current = state.clone()
    for move in moves:
        choices = possible(game, current, game.current_player(current))
        entries.append(choices.index(move) if move in choices else [game.move_to_json(move)])
        game.step(current, move)
    return entries


class Replay:
    """A match replayed from its initial state, one history entry after the other."""

    def __init__(self, game: AnyGame, players: int, options: dict[str, Any], entries: list[Any]):
        self.game = game
        self.entries = entries
        self.state = game.new_state(players, options)
        self.played = 0

    def peek(self) -> tuple[int, Move]:
        """Who makes the next entry's move (a seat or CHANCE), and the move (not made yet)."""
        game, entry = self.game, self.entries[self.played]
        player = game.current_player(self.state)
        move = possible(game, self.state, player)[entry] if isinstance(entry, int) else game.move_from_json(entry[0])
        return player, move

    def make(self, move: Move) -> None:
        """Make the next entry's move (the one `peek` gave)."""
        self.game.step(self.state, move)
        self.played += 1

    def advance_to(self, length: int) -> State:
        """The state after the first `length` entries (at least those played so far)."""
        while self.played < length:
            self.make(self.peek()[1])
        return cast(State, self.state)
