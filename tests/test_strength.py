"""Bot strength over hundreds of two-player games per registered game (`make strength`, slow).

Each check plays level a against level b, seats alternating, and prints the
win rate with its Wilson 95% interval so the figures can be copied to notes.
A shared win counts as half. The checks are test data: a game whose results
are mostly luck gets its own row below, never a branch in the engine or the bot.

`STRENGTH_GAMES=40 make strength` runs shorter (informal) matches.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from ai.arena import play_match
from engine import all_games


@dataclass(frozen=True)
class Check:
    """Level a must beat level b: its win rate (or the interval's lower bound) above `threshold`."""

    a: str
    b: str
    games: int
    threshold: float
    on: str = "rate"  # "rate": the observed win rate; "lower": the 95% interval's lower bound


DEFAULT = (
    Check("hard", "random", 200, 0.95),
    Check("hard", "easy", 200, 0.60),
)

#: Per-game checks replacing DEFAULT, keyed by game id.
CHECKS: dict[str, tuple[Check, ...]] = {
    # The Magic Cube is mostly luck (dexterity simulated by chance): the bot only
    # has to beat random play with the whole interval above 52%. Its edge is about
    # 3 points (easy 0.529 over 3,000 games, medium 0.531 over 1,000), so it takes
    # ~20,000 games (about 4 minutes on 2 cores at easy) to show it.
    "cube": (Check("easy", "random", 20000, 0.52, on="lower"),),
    # The Enchanters' Gathering is a race to 15 points with hidden draws: random play,
    # which gathers almost every turn, reaches 15 or the Artifact first in about one game
    # in seven against any fair player we could build. Over 3,000 games against random, the
    # search's greedy playout policy alone wins 0.825, none of a dozen variants of it does
    # better, and even a cheat that sees the face-down table cards wins only 0.898 (one that
    # sees every hidden card and runs 30 rollouts a move: 0.938 over 400). So hard is held
    # to the 0.60 against easy, but only to 0.78 against random, not 0.95: it
    # measured 0.860 (0.805-0.901) and 0.610 (0.541-0.675) over these 200 games.
    "enchanters": (Check("hard", "random", 200, 0.78), Check("hard", "easy", 200, 0.60)),
}

CASES = [
    (game.info.id, check)
    for game in all_games()
    for check in CHECKS.get(game.info.id, DEFAULT)
]


@pytest.mark.slow
@pytest.mark.timeout(0)
@pytest.mark.parametrize(("game_id", "check"), CASES, ids=[f"{g}-{c.a}-vs-{c.b}" for g, c in CASES])
def test_bot_beats_weaker_level(game_id: str, check: Check) -> None:
    games = int(os.environ.get("STRENGTH_GAMES", check.games))
    result = play_match(game_id, check.a, check.b, games, seed=f"strength:{game_id}",
                        players=2, processes=2)
    low, high = result.interval()
    print(f"\n{game_id} 2p {check.a} vs {check.b}: {result.summary()}")
    measured = result.rate if check.on == "rate" else low
    assert measured >= check.threshold, (
        f"{check.a} vs {check.b}: {check.on} {measured:.3f} below {check.threshold}"
    )
