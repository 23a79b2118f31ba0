"""A match's history as stored: every applied move, chance outcomes included, in order.

A player's move is stored as its JSON form; a chance outcome as its index among
the chance outcomes of the state it was drawn in (`Game.chance_outcomes` is
deterministic), a number of one or two digits instead of a card's JSON — the
deals and draws are most of a history. Entries stored whole by older versions
(a chance outcome's JSON) still read. Reading replays the match from its
initial state with the engine, which the log and resumed streams do anyway.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine import CHANCE, Game
from engine.core import Move, State


@dataclass
class Step:
    """One history entry: the state it was played in (the replay moves it on after), who
    played it (a seat, or CHANCE) and the move."""

    index: int
    player: int
    move: Move
    state: State


def entries_for(game: Game, state: State, moves: list[Move]) -> list[Any]:
    """The stored form of `moves` applied in order from `state` (`state` is not changed)."""
    entries: list[Any] = []
    current = state.clone()
    for move in moves:
        entry: Any = game.move_to_json(move)
        if game.current_player(current) == CHANCE:
            outcomes = [outcome for outcome, _ in game.chance_outcomes(current)]
            if move in outcomes:
                entry = outcomes.index(move)
        entries.append(entry)
        game.step(current, move)
    return entries


def replay(game: Game, players: int, options: dict[str, Any], entries: list[Any]) -> Iterator[Step]:
    """Every stored entry as a Step, replaying the match from its initial state; each step's
    state moves on once the consumer asks for the next one."""
    state = game.new_state(players, options)
    for index, entry in enumerate(entries):
        player = game.current_player(state)
        if isinstance(entry, int) and player == CHANCE:
            move = game.chance_outcomes(state)[entry][0]
        else:
            move = game.move_from_json(entry)
        yield Step(index, player, move, state)
        game.step(state, move)
