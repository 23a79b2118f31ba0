"""Provably fair chance: the commitment to a match's deal setup, and the check of a finished log.

The server draws a secret seed when a match is created and shows only the
commitment until the match is finished; then it reveals the seed. The
commitment is the SHA-256 of the canonical JSON of everything that shapes the
deal: `{"game", "options", "players", "seed"}` (`setup_json`), so neither the
seed nor the game, its options or its seat count can change once a match is
listed. Every chance event at history position k was drawn from (seed, k)
(`engine.chance`), so anyone can replay the log with the seed and see that
each deal, draw and roll is the one the seed gives, that every move was
legal, and that the log reaches the end and the outcome it claims.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.chance import draw_outcome
from engine.core import CHANCE, TERMINAL, AnyGame, Json, Outcome, State
from engine.errors import EngineError
from engine.resignation import by_resignation, with_resignations


def setup_json(seed: str, game: str, options: Mapping[str, Any], players: int) -> str:
    """The canonical JSON of a match's deal setup: sorted keys, no spaces, UTF-8 as is."""
    setup = {"game": game, "options": dict(options), "players": players, "seed": seed}
    return json.dumps(setup, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def commitment(seed: str, game: str, options: Mapping[str, Any], players: int) -> str:
    """The SHA-256 (hex) of `setup_json`: shown while the match runs, checked once the seed is revealed.

    `options` are the game's validated options (every default filled in), as a match shows them."""
    return hashlib.sha256(setup_json(seed, game, options, players).encode()).hexdigest()


@dataclass(frozen=True)
class Discrepancy:
    """Where a log departs from what its seed and rules give: the entry, or (index None) `part`:
    the commitment (seed and setup) or the end the log claims."""

    index: int | None
    message: str
    part: str = "commitment"

    def __str__(self) -> str:
        where = self.part if self.index is None else f"entry {self.index}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class LogEntry:
    """One published history entry: who the log says moved (None: chance) and the move's JSON."""

    seat: int | None
    move: Json
    chance: bool = False


@dataclass(frozen=True)
class Ending:
    """How the published log says the match ended.

    `finished`: the game is over (False: called off while it waited); `resigned`: the seats that
    resigned, in order; `outcome`: the outcome's JSON (`Outcome.to_json`, None when not finished);
    `length`: how many entries the whole history has."""

    finished: bool
    resigned: tuple[int, ...]
    outcome: Json
    length: int


def check_log(
    game: AnyGame,
    players: int,
    options: Mapping[str, Any] | None,
    seed: str,
    committed: str,
    entries: Sequence[LogEntry],
    ending: Ending | None = None,
) -> Discrepancy | None:
    """The first discrepancy of a match's published history with its commitment, seed and rules, or None.

    Checks that the commitment is that of the seed and setup, that every entry is made by the
    one the rules say is to act, that every chance outcome is the one the seed draws at its
    position, and every player's move is legal; with an `ending`, that the log reaches it: all
    its entries are there, and the game it replays ends (or all but one seat resigned) with
    the outcome claimed.
    """
    try:
        validated = game.validate_options(options)
        game.validate_players(players)
    except EngineError as error:
        return Discrepancy(None, f"not a setup of {game.info.id}: {error}")
    expected = commitment(seed, game.info.id, validated, players)
    if expected != committed.strip().lower():
        return Discrepancy(None, f"SHA-256 of {setup_json(seed, game.info.id, validated, players)} is {expected},"
                                 f" the commitment was {committed}: the seed, game, options or seat count"
                                 " differ from those committed to")
    state = game.new_state(players, validated)
    for index, entry in enumerate(entries):
        found = _check_entry(game, state, seed, index, entry)
        if isinstance(found, Discrepancy):
            return found
        state = found
    return None if ending is None else check_ending(game, state, players, len(entries), ending)


def check_ending(game: AnyGame, state: State, players: int, entries: int, ending: Ending) -> Discrepancy | None:
    """Whether a log of `entries` entries that replays to `state` reaches the `ending` it claims."""
    if entries < ending.length:
        return Discrepancy(entries, f"missing: the log has {entries} entries, the history {ending.length}")
    if entries > ending.length:
        return Discrepancy(ending.length, f"one too many: the history has {ending.length} entries")
    if not ending.finished:
        if game.is_terminal(state) or ending.outcome is not None:
            return Discrepancy(None, "the match says it was called off, yet its game ended", "end")
        return None
    reached = _outcome(game, state, players, ending.resigned)
    if reached is None:
        return Discrepancy(entries, "missing: the game is not over after the last entry of the log")
    if reached.to_json() != ending.outcome:
        return Discrepancy(None, f"the log plays to {reached.to_json()}, the match says {ending.outcome}", "end")
    return None


def _check_entry(game: AnyGame, state: State, seed: str, index: int, entry: LogEntry) -> State | Discrepancy:
    """The state after `entry` (made at history position `index` in `state`), or its discrepancy."""
    player = game.current_player(state)
    if player == TERMINAL:
        return Discrepancy(index, "the game was already over")
    try:
        move = game.move_from_json(entry.move)
    except (EngineError, TypeError, ValueError, KeyError, IndexError, AttributeError) as error:
        return Discrepancy(index, f"not a move of {game.info.id}: {error}")
    by_chance = player == CHANCE
    if entry.chance != by_chance or (not by_chance and entry.seat != player):
        mover = "chance" if entry.chance else f"seat {entry.seat}"
        return Discrepancy(index, f"the log says {mover} moved, the rules give "
                                  f"{'chance' if by_chance else f'seat {player}'}")
    if by_chance:
        drawn = draw_outcome(game, state, seed, index)
        if move != drawn:
            return Discrepancy(index, f"the seed draws {game.move_to_json(drawn)}, the log has {game.move_to_json(move)}")
    try:
        after: State = game.apply(state, move)
    except EngineError as error:
        return Discrepancy(index, f"illegal move {entry.move}: {error}")
    return after


def _outcome(game: AnyGame, state: State, players: int, resigned: Sequence[int]) -> Outcome | None:
    """The match's outcome once the game is over or all but one seat resigned, else None."""
    if game.is_terminal(state):
        outcome = game.outcome(state)
        return None if outcome is None else with_resignations(outcome, resigned)
    if len(set(resigned)) >= players - 1:
        return by_resignation(players, resigned)
    return None
