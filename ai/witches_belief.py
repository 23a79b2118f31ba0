"""How much a sampler of the unseen cards knows of the other hand at The Witches' Wheel: each unseen
card's chance of being in that hand, counted over the sampler's deals, scored against the true hand
(the Brier score: 0 for a sampler that knows the hand). A measurement of beliefs on positions of
real games (docs/bots/experiments.md), not part of any level.

    python -m ai.witches_belief positions.pkl --opponent openspiel --seed brier-os
    python -m ai.witches_belief positions.pkl --score uniform inferred:search inferred:search:2 \
        "inferred:search,worlds=2400,temper=0.7"
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import math
import pickle
import random
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ai.arena import Policy, map_in_processes, play_game
from ai.levels import Level, levels_for
from engine.core import Seat
from engine.witches import GAME, inference
from engine.witches.cards import BIT, cards_of
from engine.witches.state import WitchesState

Sampler = Callable[[random.Random], WitchesState]

#: Deals a position's chances are counted over.
SAMPLES = 400
#: The measured seat's decisions kept from a game, at random among those with a choice.
PER_GAME = 8
#: Decisions before this trick are not kept: nobody has chosen enough for a belief yet.
FIRST_TRICK = 3
#: Chances are held inside [CLIP, 1 - CLIP] for the log loss, as a sampler of finitely many deals
#: can give a card 0 or 1.
CLIP = 0.01


class Position(NamedTuple):
    """A full state at a decision of `seat`, whose belief about `other`'s hand is measured."""

    state: WitchesState
    seat: Seat
    other: Seat


class Scores(NamedTuple):
    """A sampler's scores at one position, each a mean over the cards the seat cannot see."""

    trick: int
    brier: float
    log_loss: float


def searcher(simulations: int) -> Level:
    """`hard` as the game plays it, at `simulations` and untimed: the measured seat."""
    return dataclasses.replace(levels_for("witches")["hard"], iterations=simulations, seconds=0.0)


def opponent(name: str, simulations: int) -> Policy:
    """The other seat: "self" (the measured search), "openspiel" (OpenSpiel's ISMCTS), both at
    `simulations`, or "MODULE:NAME", a policy function by name (as the strong test player,
    "tests.witches_opponents:strong_player")."""
    if ":" in name:
        module, _, attribute = name.partition(":")
        try:
            return getattr(importlib.import_module(module), attribute)  # type: ignore[no-any-return]
        except (ImportError, AttributeError) as error:
            raise ValueError(f"unknown opponent {name!r}: {error}") from None
    if name == "self":
        return searcher(simulations)
    if name == "openspiel":
        from ai.openspiel import OpenSpielPolicy  # pyspiel is optional
        return OpenSpielPolicy(simulations)
    raise ValueError(f"unknown opponent {name!r}: self, openspiel or MODULE:NAME")


def game_positions(job: tuple[Level, Policy, str, int]) -> list[Position]:
    """Up to `PER_GAME` decisions of the measured seat (seat `i` mod 2) in game `i` of `seed`, two players."""
    measured, other, seed, i = job
    seat = i % 2
    policies: list[Policy] = [other, other]
    policies[seat] = measured
    found: list[Position] = []

    def keep(state: WitchesState) -> None:
        if (GAME.current_player(state) == seat and len(state.tricks) >= FIRST_TRICK
                and len(GAME.legal_moves(state)) > 1):
            found.append(Position(state.clone(), seat, 1 - seat))

    play_game(GAME, policies, f"{seed}:{i}", None, keep)  # type: ignore[arg-type]
    return random.Random(i).sample(found, min(len(found), PER_GAME))


def collect(other: str, games: int, seed: str, simulations: int = 3000, processes: int = 2) -> list[Position]:
    """Positions of `games` games of the measured search against `other` (`opponent`)."""
    jobs = [(searcher(simulations), opponent(other, simulations), seed, i) for i in range(games)]
    return [p for found in map_in_processes(game_positions, jobs, processes) for p in found]


def sampler_named(spec: str, position: Position) -> Sampler:
    """The sampler `spec` names at `position`: "uniform", or a sampling the game's search takes
    ("inferred:STYLES:P"), optionally followed by ",worlds=N" and ",temper=T"."""
    sampling, *tweaks = spec.split(",")
    state, seat = position.state, position.seat
    if sampling == "uniform" and not tweaks:
        return lambda rng: GAME.determinize(state, seat, rng)
    settings = {"worlds": float(inference.WORLDS), "temper": inference.TEMPER}
    for tweak in tweaks:
        key, _, value = tweak.partition("=")
        if key not in settings:
            raise ValueError(f"unknown setting {key!r} in {spec!r}: worlds or temper")
        settings[key] = float(value)
    draw = inference.determinizer_named(state, seat, sampling, worlds=int(settings["worlds"]),
                                        temper=settings["temper"])
    if draw is None:
        raise ValueError(f"unknown sampler {spec!r}")
    return draw


def card_chances(draw: Sampler, position: Position, samples: int = SAMPLES) -> dict[int, float]:
    """Each card `position.seat` cannot see, and the share of `samples` deals of `draw` that put it
    in `position.other`'s hand."""
    state, other = position.state, position.other
    unseen = cards_of(state.hands[other] | state.pile)
    counts = dict.fromkeys(unseen, 0)
    rng = random.Random(7)
    for _ in range(samples):
        hand = draw(rng).hands[other]
        for card in unseen:
            if hand & BIT[card]:
                counts[card] += 1
    return {card: count / samples for card, count in counts.items()}


def score(position: Position, chances: dict[int, float]) -> Scores:
    """The Brier score and log loss of `chances` against `position.other`'s true hand."""
    hand = position.state.hands[position.other]
    brier = loss = 0.0
    for card, p in chances.items():
        held = 1.0 if hand & BIT[card] else 0.0
        brier += (p - held) ** 2
        q = min(max(p, CLIP), 1 - CLIP)
        loss -= held * math.log(q) + (1 - held) * math.log(1 - q)
    return Scores(len(position.state.tricks), brier / len(chances), loss / len(chances))


def score_position(job: tuple[Position, Sequence[str]]) -> dict[str, Scores]:
    """Every sampler's scores at one position."""
    position, specs = job
    return {spec: score(position, card_chances(sampler_named(spec, position), position)) for spec in specs}


#: The stretches of the hand the table reports, by the trick a position is at.
STRETCHES = ((3, 8), (8, 14), (14, 30), (3, 30))


def table(results: Sequence[dict[str, Scores]], specs: Sequence[str]) -> str:
    """Mean Brier score / log loss of every sampler, by stretch of the hand, as Markdown."""
    rows = ["| sampler | " + " | ".join(f"tricks {a}–{b - 1}" for a, b in STRETCHES) + " |",
            "|---" * (len(STRETCHES) + 1) + "|"]
    for spec in specs:
        cells = []
        for low, high in STRETCHES:
            chosen = [r[spec] for r in results if low <= r[spec].trick < high]
            cells.append(f"{sum(s.brier for s in chosen) / len(chosen):.4f} / "
                         f"{sum(s.log_loss for s in chosen) / len(chosen):.4f} ({len(chosen)})" if chosen else "–")
        rows.append(f"| `{spec}` | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: collect positions into a file, or score samplers on a file's positions."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("positions", help="a pickle file of positions, written by collecting, read by --score")
    parser.add_argument("--opponent", default="self", help="self, openspiel or MODULE:NAME (a policy function)")
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--seed", default="brier")
    parser.add_argument("--simulations", type=int, default=3000)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--score", nargs="+", metavar="SAMPLER", help="score these samplers instead of collecting")
    args = parser.parse_args(argv)
    if args.score:
        with open(args.positions, "rb") as f:
            positions = [Position(*p) for p in pickle.load(f)]
        results = list(map_in_processes(score_position, [(p, args.score) for p in positions], args.processes))
        print(table(results, args.score))
        return
    positions = collect(args.opponent, args.games, args.seed, args.simulations, args.processes)
    with open(args.positions, "wb") as f:
        pickle.dump([tuple(p) for p in positions], f)  # plain tuples: a file any caller can load
    print(f"{len(positions)} positions")


if __name__ == "__main__":
    main()
