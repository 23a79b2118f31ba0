"""An external bot's strength on the server's rated ladder (the Elo scale of `GET /v1/games`).

The server's levels keep the ratings the ladder gave them (`make ladder`); only the bot's own is
fitted, with the ladder's maths: Bradley–Terry by Hunter's MM updates, half a win and half a
loss against a 0-rated virtual player as the prior, a 95% interval from resampled games.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

#: One game: the opponent level's Elo and the bot's score (1 win, 0.5 shared, 0 loss).
Game = tuple[float, float]


@dataclass(frozen=True)
class Rating:
    elo: float
    low: float
    high: float
    games: int

    def __str__(self) -> str:
        return f"{self.elo:+.0f} Elo (95% interval {self.low:+.0f} to {self.high:+.0f}, {self.games} games)"


def fit_elo(games: Sequence[Game], iterations: int = 500, tolerance: float = 1e-10) -> float:
    """The Elo that best explains the scores against opponents of known Elo."""
    wins = 0.5 + sum(score for _, score in games)
    opponents = [10 ** (elo / 400) for elo, _ in games]
    strength = 1.0
    for _ in range(iterations):
        updated = wins / (1 / (strength + 1) + sum(1 / (strength + other) for other in opponents))
        change = abs(math.log(updated / strength))
        strength = updated
        if change < tolerance:
            break
    return 400 * math.log10(strength)


def rate(games: Sequence[Game], bootstrap: int = 400, seed: int = 0) -> Rating:
    """The fitted Elo with its 95% bootstrap interval."""
    rng = random.Random(seed)
    samples = sorted(fit_elo([rng.choice(games) for _ in games], iterations=200, tolerance=1e-8)
                     for _ in range(bootstrap)) if games else [0.0]
    return Rating(fit_elo(games), samples[int(0.025 * (len(samples) - 1))],
                  samples[int(0.975 * (len(samples) - 1))], len(games))
