"""Bring your own bot: a `choose(view) -> move` function takes seats on a server.

`play_levels` plays matches against a server level, `join_open` takes free seats of other
people's matches, `rate_bot` plays every rated level and places the bot on the ladder's scale.
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from coven.errors import Conflict
from coven.models import MatchView, Move
from coven.rating import Game, Rating, rate
from coven.session import Session

Choose = Callable[[MatchView], Move]


def load_bot(spec: str) -> Choose:
    """`package.module:function` or `path/to/file.py:function` (the function defaults to `choose`)."""
    target, _, name = spec.partition(":")
    if target.endswith(".py"):
        loader = importlib.util.spec_from_file_location(Path(target).stem, target)
        if loader is None or loader.loader is None:
            raise ImportError(f"cannot load {target}")
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    choose = getattr(module, name or "choose")
    if not callable(choose):
        raise TypeError(f"{spec} is not a function")
    return choose  # type: ignore[no-any-return]


def score_of(view: MatchView) -> float:
    """The seat's score in a finished match: 1 alone among the winners, shared wins split, else 0."""
    outcome = view["outcome"]
    if outcome is None or view["you"] not in outcome["winners"]:
        return 0.0
    return 1.0 / len(outcome["winners"])


def play_levels(session: Session, game: str, choose: Choose, level: str, matches: int,
                players: int = 2, report: Callable[[str], Any] = print) -> list[MatchView]:
    """Play `matches` matches against bots of `level`, taking seat 0, 1, … in turn."""
    finals = []
    for number in range(matches):
        seat = number % players
        seats = [{"type": "bot", "level": level} for _ in range(players)]
        seats[seat] = {"type": "human"}
        final = session.create(game, seats, name="guest bot").play_with(choose)
        finals.append(final)
        report(f"{game} #{number + 1} vs {level}, seat {seat}: score {score_of(final):g} "
               f"({final['outcome']['reason'] if final['outcome'] else final['status']})")
    return finals


def join_open(session: Session, game: str | None, choose: Choose, matches: int, wait: float = 60.0,
              report: Callable[[str], Any] = print) -> list[MatchView]:
    """Join `matches` open seats of public waiting matches (of `game`, or any), one after another,
    and play each to its end; waits up to `wait` seconds for a seat to open."""
    finals: list[MatchView] = []
    deadline = time.monotonic() + wait
    while len(finals) < matches:
        waiting = [summary for summary in session.open_matches(game) if summary["open_seats"]]
        if not waiting:
            if time.monotonic() > deadline:
                break
            time.sleep(1.0)
            continue
        try:
            match = session.join(waiting[0]["id"], name="guest bot")
        except Conflict:
            continue  # someone took the seat first
        final = match.play_with(choose)
        finals.append(final)
        deadline = time.monotonic() + wait
        report(f"joined {match.id} ({final['game']}), seat {match.seat}: score {score_of(final):g}")
    return finals


def rate_bot(session: Session, game: str, choose: Choose, per_level: int,
             levels: Sequence[str] | None = None, report: Callable[[str], Any] = print) -> Rating:
    """Play `per_level` two-player matches against every rated level of `game` (or those of
    `levels`), alternating seats, and fit the bot's Elo with the levels' ratings held fixed."""
    entry = next(g for g in session.games() if g["id"] == game)
    rated = [(level["name"], level["rating"]["elo"]) for level in entry["bot_levels"]
             if level["rating"] and (levels is None or level["name"] in levels)]
    if not rated:
        raise ValueError(f"the server has no rated levels of {game} (run `make ladder` there)")
    games: list[Game] = []
    for name, elo in rated:
        finals = play_levels(session, game, choose, name, per_level, report=report)
        games += [(float(elo), score_of(final)) for final in finals]
    return rate(games)
