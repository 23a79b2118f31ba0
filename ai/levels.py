"""Bot levels: named search budgets, from a random mover to a one-second search.

A level caps a search both by iterations and by wall time, whichever comes
first; the match descriptor shows the level as JSON so players know what they face.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Level:
    """A named search budget: an iteration cap and a wall-time cap (both 0 for random)."""

    name: str
    iterations: int
    seconds: float
    description: str

    def to_json(self) -> dict[str, Any]:
        """The level as the API shows it."""
        return {
            "name": self.name,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "description": self.description,
        }


_ALL = (
    Level("random", 0, 0.0, "Plays a uniformly random legal move."),
    Level("easy", 100, 0.1, "A quick information-set MCTS: 100 simulations or 0.1 s."),
    Level("medium", 1000, 0.5, "Information-set MCTS: 1,000 simulations or 0.5 s."),
    Level("hard", 3000, 1.0, "Information-set MCTS: 3,000 simulations or 1 s."),
)

#: Every level by name, weakest first.
LEVELS: dict[str, Level] = {level.name: level for level in _ALL}

#: The level of a bot seat created without one.
DEFAULT_LEVEL = "medium"


def get_level(name: str) -> Level:
    """The level called `name`; KeyError for an unknown name."""
    try:
        return LEVELS[name]
    except KeyError:
        raise KeyError(f"unknown bot level {name!r}; known: {', '.join(LEVELS)}") from None
