"""`make bench`: search speed of every registered game, printed and written to bench/results/latest.json.

For each game at its minimum, a middle and its maximum player count, from the
first decision and from the middle of a random game (fixed seed), it measures
ISMCTS iterations per second (a fixed iteration budget), random playouts per
second (clone + `Game.playout`, the floor under any search), determinized
playouts per second (`determinize` + `playout`: what every iteration must do
besides walking the tree), the ratios of search to both (it/po, it/dpo: the
share of search time that is the game itself), all per CPU second (a shared
machine's load then changes them less). Then the CPU seconds a move of every
searching level takes (`time.thread_time`, the unit of a level's cap), by game and
every player count, from the same two positions; and over whole two-player games of `hard` against
itself (untimed, so a move costs what its budget costs), its mean and largest CPU seconds a decision,
also over the positions the game solves exactly (`Game.solvable`: the witches endgame, whose first
move fills the solver's table). Single process, one core. The report says which
modules ran compiled (`engine/compiled.py`): `COVEN_PURE_PYTHON=1 make bench`
measures the same from source.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ai.arena import play_game
from ai.levels import LEVELS, Level, levels_for
from ai.play import choose_move
from ai.search import search
from engine.compiled import HOT_MODULES, compiled_modules
from engine.core import CHANCE, TERMINAL, AnyGame, Seat, State
from engine.registry import all_games

ITERATIONS = 2000   # search iterations per measurement
PLAYOUTS = 2000     # random playouts per measurement
SEED = 20240601
RESULTS = Path("bench/results/latest.json")


def player_counts(game: AnyGame) -> list[int]:
    """Minimum, middle and maximum player counts (fewer when the range is small)."""
    low, high = game.info.min_players, game.info.max_players
    return sorted({low, (low + high) // 2, high})


def positions(game: AnyGame, n: int, seed: int = SEED) -> dict[str, tuple[State, Seat]]:
    """The first real choice (two or more legal moves) of a random game, and one halfway through."""
    decisions = []
    rng = random.Random(seed)
    state = game.new_state(n, game.validate_options({}))
    while (player := game.current_player(state)) != TERMINAL:
        if player == CHANCE:
            game.step(state, game.sample_chance(state, rng))
            continue
        moves = game.legal_moves(state)
        if len(moves) > 1:
            decisions.append((state.clone(), player))
        game.step(state, rng.choice(moves))
    return {"start": decisions[0], "mid": decisions[len(decisions) // 2]}


def measure(game: AnyGame, state: State, seat: Seat, iterations: int, playouts: int) -> dict[str, Any]:
    """Iterations/s, playouts/s and their ratios for one position.

    Rates are per CPU second (the machine may be shared).
    """
    started = time.process_time()
    result = search(game, state, seat, random.Random(1), iterations=iterations, seconds=600.0)
    iterations_per_s = result.iterations / (time.process_time() - started)
    rng = random.Random(2)
    clone, playout = state.clone, game.playout
    started = time.process_time()
    for _ in range(playouts):
        playout(clone(), rng)
    playouts_per_s = playouts / (time.process_time() - started)
    determinize = game.determinizer(state, seat)
    started = time.process_time()
    for _ in range(playouts):
        playout(determinize(rng), rng)
    sampled_per_s = playouts / (time.process_time() - started)
    row: dict[str, Any] = {
        "legal_moves": len(game.legal_moves(state)),
        "iterations_per_s": round(iterations_per_s),
        "playouts_per_s": round(playouts_per_s),
        "determinized_playouts_per_s": round(sampled_per_s),
        "search_vs_playouts": round(iterations_per_s / playouts_per_s, 3),
        "search_vs_determinized": round(iterations_per_s / sampled_per_s, 3),
    }
    return row


def level_seconds(games: Sequence[AnyGame]) -> dict[str, Any]:
    """CPU seconds of one move of every searching level, by game, player count and position."""
    print(f"{'game':<12}{'n':>3} {'position':<8}" + "".join(f"{name:>9}" for name in _searching()))
    out: dict[str, Any] = {}
    for game in games:
        rows = []
        for n in range(game.info.min_players, game.info.max_players + 1):
            for name, (state, seat) in positions(game, n).items():
                row: dict[str, Any] = {"players": n, "position": name}
                for level in levels_for(game.info.id).values():
                    if level.iterations <= 0:
                        continue
                    started = time.thread_time()
                    choose_move(game, state, seat, level, random.Random(3))
                    row[level.name] = round(time.thread_time() - started, 3)
                rows.append(row)
                print(f"{game.info.id:<12}{n:>3} {name:<8}"
                      + "".join(f"{row.get(level, 0):>9.3f}" for level in _searching()), flush=True)
        out[game.info.id] = rows
    return out


#: The seeds of the whole games `whole_game_seconds` plays, one game each.
WHOLE_GAMES = ("cpu:0", "cpu:1")


class _TimedLevel:
    """A level as a policy that keeps each decision's CPU seconds (among two or more moves) with
    whether the game solves that position exactly."""

    def __init__(self, level: Level) -> None:
        self.level = level
        self.decisions: list[tuple[float, bool]] = []

    def __call__(self, game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Any:
        if len(game.legal_moves(state)) < 2:
            return choose_move(game, state, seat, self.level, rng)
        started = time.thread_time()
        move = choose_move(game, state, seat, self.level, rng)
        self.decisions.append((time.thread_time() - started, game.solvable(state)))
        return move


def whole_game_seconds(games: Sequence[AnyGame], level_name: str = "hard",
                       seeds: Sequence[str] = WHOLE_GAMES) -> dict[str, Any]:
    """CPU seconds a decision of `level_name` (untimed) over whole two-player games against itself:
    mean and largest, over every decision and over the positions the game solves exactly."""
    out: dict[str, Any] = {}
    for game in games:
        timed = _TimedLevel(replace(levels_for(game.info.id)[level_name], seconds=0.0))
        for seed in seeds:
            play_game(game, [timed, timed], seed)
        every = [seconds for seconds, _ in timed.decisions]
        solved = [seconds for seconds, solvable in timed.decisions if solvable]
        out[game.info.id] = {
            "level": level_name, "players": 2, "seeds": list(seeds), "decisions": len(every),
            "mean": round(sum(every) / len(every), 3), "max": round(max(every), 3),
            "solved_decisions": len(solved),
            "solved_mean": round(sum(solved) / len(solved), 3) if solved else None,
            "solved_max": round(max(solved), 3) if solved else None,
        }
        print(f"{game.info.id:<12} whole games: {len(every)} decisions of {level_name}, "
              f"mean {out[game.info.id]['mean']:.3f} s, max {out[game.info.id]['max']:.3f} s", flush=True)
    return out


def _searching() -> list[str]:
    """The names of the levels that search."""
    return [name for name, level in LEVELS.items() if level.iterations > 0]


def run(games: Sequence[AnyGame], iterations: int, playouts: int) -> dict[str, Any]:
    """Measure every game; print one line per measurement as it completes."""
    print(f"{'game':<12}{'n':>3} {'position':<8}{'moves':>6}{'iter/s':>9}{'playout/s':>11}"
          f"{'det+po/s':>10}{'it/po':>7}{'it/dpo':>7}")
    out: dict[str, Any] = {}
    for game in games:
        rows = []
        for n in player_counts(game):
            for name, (state, seat) in positions(game, n).items():
                row = {"players": n, "position": name,
                       **measure(game, state, seat, iterations, playouts)}
                rows.append(row)
                print(f"{game.info.id:<12}{n:>3} {name:<8}{row['legal_moves']:>6}"
                      f"{row['iterations_per_s']:>9}{row['playouts_per_s']:>11}"
                      f"{row['determinized_playouts_per_s']:>10}"
                      f"{row['search_vs_playouts']:>7.2f}{row['search_vs_determinized']:>7.2f}",
                      flush=True)
        out[game.info.id] = rows
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """Command line entry point (`python -m bench.search`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", help="game ids (default: every registered game)")
    parser.add_argument("--iterations", type=int, default=ITERATIONS)
    parser.add_argument("--playouts", type=int, default=PLAYOUTS)
    parser.add_argument("--no-levels", action="store_true", help="skip timing the levels")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    games = [g for g in all_games() if not args.games or g.info.id in args.games]
    for name in HOT_MODULES:  # those a level imports when it first searches (ai.halving) too
        importlib.import_module(name)
    compiled = compiled_modules()
    print(f"compiled hot path: {len(compiled)} of {len(HOT_MODULES)} modules are C extensions")
    started = time.perf_counter()
    results = run(games, args.iterations, args.playouts)
    levels = {} if args.no_levels else level_seconds(games)
    whole = {} if args.no_levels else whole_game_seconds(games)
    write_report(args.output, started, compiled=compiled,
                 budget={"iterations": args.iterations, "playouts": args.playouts, "seed": SEED,
                         "levels": {game.info.id: [level.to_json() for level in levels_for(game.info.id).values()]
                                    for game in games}},
                 games=results, level_cpu_seconds=levels, whole_game_cpu_seconds=whole)


def provenance() -> dict[str, Any]:
    """What a result was measured on: the commit (with `+` when the tree had changes besides the
    results themselves) and the host."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], capture_output=True, text=True, timeout=10).stdout.strip()
        except OSError:
            return ""
    commit = git("rev-parse", "--short", "HEAD")
    if commit and git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results"):
        commit += "+"
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "") if Path("/proc/cpuinfo").exists() else ""
    return {"commit": commit or None, "cpu": cpu or platform.processor() or platform.machine(),
            "cores": os.cpu_count()}


def write_report(path: Path, started: float, **fields: Any) -> dict[str, Any]:
    """Write a benchmark's JSON report (when, on what, then `fields`, then how long) and say where."""
    report = {
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        **provenance(),
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        **fields,
        "seconds": round(time.perf_counter() - started, 1),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"{report['seconds']} s; written to {path}")
    return report


if __name__ == "__main__":
    main()
