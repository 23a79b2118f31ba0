"""A rated ladder: every bot level and hand-written policy of a game against each other, Bradley–Terry fit.

`python -m ai.ladder` (and `make ladder`, part of `make strength`) plays a round
robin of two-player games per registered game — each pair the same number of
games, seats alternating, through `ai.arena` — and fits Bradley–Terry strengths
by Hunter's MM algorithm (a shared win counts half to each side). Ratings are
on the Elo scale (400 · log10 of the strength ratio) with `random` at 0; the
95% intervals come from a bootstrap over each pair's games and say how well each
player is placed against the field (the mean of all players), as BayesElo's and
Ordo's do: measured from `random` alone, a game where `random` loses every game
would give every player the anchor's uncertainty. The result is written to
`ai/ratings.json`, which `GET /v1/games` shows beside each level.
`python -m ai.ladder --refit` fits the stored games again without playing them, and
`--replay hard` plays again only the pairs of a player whose code changed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from typing import Any

from ai.arena import Policy, play_match
from ai.levels import levels_for
from engine.core import AnyGame, Move, Seat, State
from engine.registry import all_games, get_game

RATINGS_FILE = Path(__file__).with_name("ratings.json")
#: The anchor of every game's scale: its rating is 0 by definition.
ANCHOR = "random"
#: Bootstrap refits for the intervals.
BOOTSTRAP = 400


@dataclass(frozen=True)
class PairResult:
    """Player a's per-game scores against player b (1 win, 0.5 shared, 0 loss)."""

    a: str
    b: str
    scores: tuple[float, ...]

    @property
    def score(self) -> float:
        return sum(self.scores)

    @property
    def games(self) -> int:
        return len(self.scores)


@dataclass(frozen=True)
class Rating:
    """One player's fitted rating (Elo scale) with its 95% bootstrap interval."""

    name: str
    elo: float
    low: float
    high: float
    games: int

    def to_json(self) -> dict[str, Any]:
        return {"elo": round(self.elo), "low": round(self.low), "high": round(self.high),
                "games": self.games}


# --- the fit ----------------------------------------------------------------------------


def fit_strengths(names: Sequence[str], pairs: Sequence[PairResult],
                  iterations: int = 500, tolerance: float = 1e-10) -> dict[str, float]:
    """Bradley–Terry strengths by Hunter's MM updates; a tiny prior keeps unbeaten players finite.

    Every player gets half a win and half a loss against a virtual player of strength 1
    (the usual regularisation), so a player who won every game still has a finite rating.
    """
    wins = {name: 0.5 for name in names}
    meetings: dict[tuple[str, str], int] = {}
    for pair in pairs:
        wins[pair.a] += pair.score
        wins[pair.b] += pair.games - pair.score
        key = (pair.a, pair.b) if pair.a < pair.b else (pair.b, pair.a)
        meetings[key] = meetings.get(key, 0) + pair.games
    strength = dict.fromkeys(names, 1.0)
    for _ in range(iterations):
        updated = {}
        for name in names:
            denominator = 1.0 / (strength[name] + 1.0)  # the virtual opponent: one meeting
            for (x, y), n in meetings.items():
                if name in (x, y):
                    denominator += n / (strength[x] + strength[y])
            updated[name] = wins[name] / denominator
        change = max(abs(math.log(updated[n] / strength[n])) for n in names)
        strength = updated
        if change < tolerance:
            break
    return strength


def elo_ratings(names: Sequence[str], pairs: Sequence[PairResult], anchor: str = ANCHOR,
                bootstrap: int = BOOTSTRAP, seed: int = 0) -> dict[str, Rating]:
    """Ratings on the Elo scale with `anchor` at 0, and 95% intervals from resampled games, each
    player's taken against the field's mean (see the module) and placed on the anchor's scale."""

    def elo(strengths: Mapping[str, float]) -> dict[str, float]:
        base = strengths[anchor]
        return {n: 400.0 * math.log10(strengths[n] / base) for n in names}

    def field_relative(ratings: Mapping[str, float]) -> dict[str, float]:
        mean = sum(ratings.values()) / len(ratings)
        return {n: ratings[n] - mean + point_mean for n in names}

    point = elo(fit_strengths(names, pairs))
    point_mean = sum(point.values()) / len(point)
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(bootstrap):
        resampled = [
            PairResult(p.a, p.b, tuple(rng.choice(p.scores) for _ in p.scores)) for p in pairs
        ]
        refit = elo(fit_strengths(names, resampled, iterations=200, tolerance=1e-8))
        for name, value in field_relative(refit).items():
            samples[name].append(value)
    played = {n: sum(p.games for p in pairs if n in (p.a, p.b)) for n in names}
    ratings = {}
    for name in names:
        values = sorted(samples[name])
        low = values[int(0.025 * (len(values) - 1))] if values else point[name]
        high = values[int(0.975 * (len(values) - 1))] if values else point[name]
        ratings[name] = Rating(name, point[name], low, high, played[name])
    return ratings


# --- the round robin ----------------------------------------------------------------------


class NamedPolicy:
    """A game's hand-written policy as an arena policy (picklable: looked up by name).

    The policy sees a determinization from its seat, never the real hidden cards.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
        move: Move = game.named_policies()[self.name](game.determinize(state, seat, rng), rng)
        return move


def participants(game: AnyGame) -> dict[str, Policy]:
    """Every bot level, then the game's hand-written policies (named after what they do).

    Levels play at their simulation budgets without their time caps, so a rating does not
    depend on how busy the machine was that ran the ladder.
    """
    players: dict[str, Policy] = {
        name: dataclasses.replace(level, seconds=0.0) for name, level in levels_for(game.info.id).items()
    }
    for name in game.named_policies():
        players[name] = NamedPolicy(name)
    return players


def round_robin(game: AnyGame, players: Mapping[str, Policy], games: int, seed: str,
                processes: int, report: Callable[[str], None] = print,
                kept: Mapping[tuple[str, str], PairResult] | None = None) -> list[PairResult]:
    """Every pair plays `games` two-player games, seats alternating; a pair in `kept` is not played
    again but keeps its games."""
    pairs = []
    for a, b in combinations(players, 2):
        if kept and (a, b) in kept:
            pairs.append(kept[a, b])
            report(f"{game.info.id:<11} {a:>8} vs {b:<8} {kept[a, b].score / kept[a, b].games:.3f} over "
                   f"{kept[a, b].games} games (kept)")
            continue
        started = time.perf_counter()
        result = play_match(game, players[a], players[b], games, seed=f"{seed}:{a}:{b}",
                            players=2, processes=processes)
        pairs.append(PairResult(a, b, tuple(result.scores)))
        report(f"{game.info.id:<11} {a:>8} vs {b:<8} {result.rate:.3f} over {games} games "
               f"({time.perf_counter() - started:.0f} s)")
    return pairs


def ladder(game: AnyGame, games: int, seed: str = "ladder", processes: int = 2,
           skip: Sequence[str] = (), kept: Mapping[tuple[str, str], PairResult] | None = None) -> dict[str, Any]:
    """Play the round robin of `game` (but the pairs in `kept`) and fit it; the JSON that
    ratings.json keeps per game."""
    players = {n: p for n, p in participants(game).items() if n not in skip}
    pairs = round_robin(game, players, games, seed, processes, kept=kept)
    ratings = elo_ratings(list(players), pairs)
    return {
        "games_per_pair": games,
        "seed": seed,
        "ratings": {name: rating.to_json() for name, rating in ratings.items()},
        "pairs": [{"a": p.a, "b": p.b, "games": p.games, "score": p.score} for p in pairs],
    }


def stored_pairs(entry: Mapping[str, Any]) -> list[PairResult]:
    """A stored game's pairs as per-game scores, rebuilt from their totals: wins, at most one
    shared win, losses. The fit needs only the totals; the bootstrap sees two shared wins as a
    win and a loss, a hair more spread (shared wins are rare outside the toy games)."""
    pairs = []
    for pair in entry["pairs"]:
        wins = int(pair["score"])
        shared = round(2 * (pair["score"] - wins))
        scores = (1.0,) * wins + (0.5,) * shared + (0.0,) * (pair["games"] - wins - shared)
        pairs.append(PairResult(pair["a"], pair["b"], scores))
    return pairs


def refit(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A stored game's entry with its ratings fitted again from its stored pairs (nothing replayed)."""
    names = list(entry["ratings"])
    ratings = elo_ratings(names, stored_pairs(entry))
    return {**entry, "ratings": {name: rating.to_json() for name, rating in ratings.items()}}


def replay_kept(entry: Mapping[str, Any] | None, replay: Sequence[str],
                games: int) -> dict[tuple[str, str], PairResult]:
    """The stored pairs of a game that `--replay` keeps: those without a replayed player, played at
    the same number of games a pair (a different number plays every pair again)."""
    if entry is None or entry["games_per_pair"] != games:
        return {}
    return {(p.a, p.b): p for p in stored_pairs(entry) if p.a not in replay and p.b not in replay}


def load_ratings(path: Path = RATINGS_FILE) -> dict[str, Any]:
    """The committed ladder: {game id: {"ratings": {player: {...}}, ...}}; empty when absent."""
    if not path.is_file():
        return {}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    games: dict[str, Any] = data.get("games", {})
    return games


def table(results: Mapping[str, Mapping[str, Any]]) -> str:
    """The ladder as a Markdown table, best first per game (what the README shows)."""
    lines = ["| game | player | rating | 95% interval | games |", "|---|---|---|---|---|"]
    for game_id, result in results.items():
        ranked = sorted(result["ratings"].items(), key=lambda item: -item[1]["elo"])
        for name, r in ranked:
            lines.append(f"| {game_id} | {name} | {r['elo']:+d} | {r['low']:+d} … {r['high']:+d} "
                         f"| {r['games']} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: play the ladder of the named games and update ratings.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", help="game ids (default: every registered game)")
    parser.add_argument("--per-pair", type=int, default=100, help="games per pair of players")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--skip", nargs="*", default=[], help="players left out (e.g. hard)")
    parser.add_argument("--output", type=Path, default=RATINGS_FILE)
    parser.add_argument("--replay", nargs="+", metavar="PLAYER",
                        help="play again only the pairs of these players (whose code changed); the "
                             "other pairs keep their stored games, and the fit covers all")
    parser.add_argument("--refit", action="store_true",
                        help="fit the stored games again (after a change to the fit); play nothing")
    args = parser.parse_args(argv)
    from bench.search import provenance  # the benchmarks' stamp; the web tier reads ratings only

    chosen = [get_game(g) for g in args.games] if args.games else all_games()
    existing = json.loads(args.output.read_text()) if args.output.is_file() else {"games": {}}
    if args.refit:
        for game in chosen:
            existing["games"][game.info.id] = refit(existing["games"][game.info.id])
        args.output.write_text(json.dumps(existing, indent=2) + "\n")
        print(table(existing["games"]))
        return
    for game in chosen:
        started = time.perf_counter()
        kept = replay_kept(existing["games"].get(game.info.id), args.replay, args.per_pair) if args.replay else None
        result = ladder(game, args.per_pair, processes=args.processes, skip=args.skip, kept=kept)
        # when, at which commit and on what the game was rated: the docs' table says so
        result["measured"] = {"date": datetime.now(UTC).isoformat(timespec="seconds"), **provenance(),
                              "seconds": round(time.perf_counter() - started)}
        if kept:
            result["measured"]["replayed"] = args.replay
            result["measured"]["kept_from"] = existing["games"][game.info.id].get("measured")
        existing["games"][game.info.id] = result
        args.output.write_text(json.dumps(existing, indent=2) + "\n")
    print(table(existing["games"]))


if __name__ == "__main__":
    main()
