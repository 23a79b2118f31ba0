"""Head-to-head measurements made outside `make strength`, one row each in a results file, with the
match, its score and interval, the seed and games played, and when, at which commit and on what.

The bots pages' tables of such matches are generated from these rows (`bench.tables.matches_table`,
one table per `group`), never written by hand. Record a match by playing it:

    python -m bench.matches h2h-witches-hard-strong-fresh --group head-to-head --game witches \
        --a hard --b tests.witches_opponents:strong_player --b-text "the strong player" \
        --games 200 --first 400 --seed strength:witches:strong

A player is a level name (played at its simulations, untimed, as `make strength` plays it), a
game's named policy (`careful`, `greedy`, `simple`) or `module:attribute` naming a `Level` or a
policy callable. `--paired-with KEY` pairs the match game by game with a recorded row of the same
games, seed and seats. Rows made before this recorder existed were carried over from the docs with
the date and commit the docs gave, and have no per-game `scores` and no machine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ai.arena import MatchResult, Policy, paired_difference, play_match, print_progress
from ai.ladder import participants
from bench.strength import measured
from bench.tables import MATCHES_FILE, RESULTS
from engine.registry import get_game

#: The results file of head-to-heads shown on the bots pages.
MATCHES = RESULTS / MATCHES_FILE
_NUMBER_LIST = re.compile(r"\[\s*((?:-?[0-9.]+,\s*)*-?[0-9.]+)\s*\]")


def resolve_player(game_id: str, name: str) -> Policy:
    """A player named on the command line: `module:attribute`, or one of the ladder's players (a
    level, untimed, or the game's named policy); ValueError for any other name."""
    if ":" in name:
        module, attribute = name.split(":", 1)
        player: Policy = getattr(importlib.import_module(module), attribute)
        return player
    players = participants(get_game(game_id))
    if name not in players:
        raise ValueError(f"unknown player {name!r} at {game_id}; known: {', '.join(players)}, or module:attribute")
    return players[name]


def paired(scores: Sequence[float], baseline: Sequence[float]) -> dict[str, float | int]:
    """Two matches of the same games compared game by game: the mean difference, its 95% interval,
    how many games they differ in and how many of those the first won more of."""
    mean, low, high = paired_difference(scores, baseline)
    differ = sum(1 for a, b in zip(scores, baseline, strict=True) if a != b)
    won = sum(1 for a, b in zip(scores, baseline, strict=True) if a > b)
    return {"mean": round(mean, 4), "low": round(low, 4), "high": round(high, 4), "differ": differ, "won": won}


def row(group: str, game: str, a: str, b: str, result: MatchResult, seed: str, first: int = 0,
        note: str = "") -> dict[str, Any]:
    """One match as the results file keeps it: `bench.strength.measured`'s fields, the games played
    and a's score in each."""
    return {
        "group": group, "game": game, "a": a, "b": b, "games": result.games, "first": first,
        "seed": seed, "score": result.score, "note": note, **measured(result),
        "scores": list(result.scores),
    }


def load(path: Path = MATCHES) -> dict[str, dict[str, Any]]:
    """Every recorded row, by key (none when the file does not exist)."""
    rows: dict[str, dict[str, Any]] = json.loads(path.read_text())["rows"] if path.exists() else {}
    return rows


def record(path: Path, key: str, fields: dict[str, Any]) -> None:
    """Put the row `key` into the results file at `path`, keeping every other row and their order
    (a row's per-game scores on one line)."""
    rows = load(path)
    rows[key] = fields
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"rows": rows}, indent=1, ensure_ascii=False)
    text = _NUMBER_LIST.sub(lambda found: "[" + ", ".join(re.split(r",\s*", found.group(1))) + "]", text)
    path.write_text(text + "\n")


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: play one match, print it and record it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("key", help="the row's name in the results file (replaced if recorded before)")
    parser.add_argument("--group", required=True, help="the docs table the row belongs to")
    parser.add_argument("--game", required=True)
    parser.add_argument("--a", required=True, help="the measured player")
    parser.add_argument("--b", required=True, help="its opponents")
    parser.add_argument("--a-text", help="how the table names the measured player (default: --a)")
    parser.add_argument("--b-text", help="how the table names its opponents (default: --b)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first", type=int, default=0, help="the first game of the seed to play")
    parser.add_argument("--seed", required=True)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--paired-with", help="a recorded row of the same games to compare with")
    parser.add_argument("--note", default="")
    parser.add_argument("--results", type=Path, default=MATCHES)
    args = parser.parse_args(argv)
    try:
        a, b = resolve_player(args.game, args.a), resolve_player(args.game, args.b)
    except (LookupError, ValueError) as error:  # an unknown game or player
        parser.error(str(error))
    rows = load(args.results)
    baseline = rows.get(args.paired_with) if args.paired_with else None
    if args.paired_with and (baseline is None or len(baseline.get("scores", ())) != args.games
                             or (baseline["seed"], baseline.get("first", 0)) != (args.seed, args.first)):
        parser.error(f"--paired-with {args.paired_with}: no recorded row of the same games with its scores")
    result = play_match(args.game, a, b, args.games, args.seed, args.players, processes=args.processes,
                        progress=print_progress(), first=args.first)
    fields = row(args.group, args.game, args.a_text or args.a, args.b_text or args.b, result, args.seed,
                 args.first, args.note)
    if baseline is not None:
        fields["paired"] = {"over": args.paired_with, **paired(result.scores, baseline["scores"])}
    record(args.results, args.key, fields)
    print(f"{args.key}: {result.summary()} -> {args.results}")


if __name__ == "__main__":
    main()
