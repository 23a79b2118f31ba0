"""Bot levels: named search budgets, from a random mover to a one-second search.

A level plays a fixed number of simulations; its seconds cap the searching thread's CPU time
(never wall time), a safety net that a level's simulations stay well inside, so a loaded server
plays the same moves as an idle one. The match descriptor shows the level as JSON.
A game may play a level its own way (`GAME_LEVELS`): `GET /v1/games` shows each game's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Level:
    """A named search budget: simulations, and a cap on the search's CPU seconds (both 0 for random)."""

    name: str
    iterations: int
    seconds: float
    description: str
    #: "ismcts" (ai.search: the tree), "halving" (ai.halving: paired sequential halving at the root),
    #: "pimc" (ai.pimc) or "expectimax" (ai.expectimax: every chance outcome to a depth)
    method: str = "ismcts"
    #: whether the search values the positions a game can solve exactly (`Game.solved_returns`)
    exact: bool = False
    #: expectimax only: the most player nodes below the root before a leaf
    depth: int = 0
    #: ismcts only: the game's playout policy (`Game.search_playout`; "": its default playout)
    playout: str = ""
    #: ismcts only: how the samples deal the cards the seat cannot see (`Game.search_determinizer`:
    #: "" uniformly; "inferred" weighted by the other seats' own choices, at The Witches' Wheel)
    sampling: str = ""
    #: ismcts only: "" one tree seen from the searching seat; "others" where the other seats also choose
    #: by statistics of their own sampled hand, "hands" every seat (`ai.search.TREES`)
    tree: str = ""
    #: the chance of a uniformly random legal move instead of the search's (a game whose searches
    #: all play alike, as The Enchanters' Gathering's, parts its levels by this)
    blunder: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The level as the API shows it."""
        return {
            "name": self.name,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "blunder": self.blunder,
            "description": self.description,
        }


_ALL = (
    Level("random", 0, 0.0, "Plays a uniformly random legal move."),
    Level("easy", 100, 0.1, "A quick information-set MCTS: 100 simulations (at most 0.1 s of CPU)."),
    Level("medium", 1000, 0.5, "Information-set MCTS: 1,000 simulations (at most 0.5 s of CPU)."),
    Level("hard", 3000, 1.0, "Information-set MCTS: 3,000 simulations (at most 1 s of CPU)."),
)

#: Every level by name, weakest first.
LEVELS: dict[str, Level] = {level.name: level for level in _ALL}

#: Levels a game plays otherwise than the defaults, by game id. The Enchanters' Gathering's `hard`:
#: one level of greedy playouts judged its root moves as well as the tree did, and paired halving
#: over three times the playouts beat `easy` 0.652 of 400 games (the tree: 0.605) and random 0.890
#: of 200 (0.885), in 0.35-0.8 s a move (README, Bots).
GAME_LEVELS: dict[str, dict[str, Level]] = {
    # The Witches' Wheel (2 players, untimed, issue 35): medium at 300 simulations beat easy at 100
    # by about 0.72 (1,800 games over three seeds), too close to 0.70 for a 400-game check; easy at
    # 70 simulations: 0.772 (0.746-0.797) of 1,000, and still 0.632 against the simple player. hard
    # values samples after the last draw by the exact endgame, and with it simulations pay again:
    # 15,000 beat 3,000 0.598 (0.528-0.663) of 200 (0.19 s a move), where without it 1,000 had
    # stood even with 3,000 (0.453 of 107). Its tree keeps every seat's choices by the hand the
    # seat holds in the sample ("hands"): at 3,000 against OpenSpiel's ISMCTS that won +0.073
    # (+0.021 ... +0.124) a game over the single observer's tree, paired on the same 400 games, and
    # no less against the strong player or in self-play. docs/bots/strength.md.
    "witches": {
        "easy": Level("easy", 70, 0.1,
                      "A quick information-set MCTS: 70 simulations (at most 0.1 s of CPU)."),
        "medium": Level("medium", 300, 0.5, "Information-set MCTS: 300 simulations (at most 0.5 s of CPU)."),
        "hard": Level("hard", 15000, 1.0, "Information-set MCTS: 15,000 simulations over deals weighted by "
                      "what the other seats' own plays say of their hands, every seat choosing by the hand it "
                      "holds in the sample, the endgame after the last draw solved exactly in every sampled "
                      "deal (at most 1 s of CPU).", exact=True, sampling="inferred:search", tree="hands"),
    },
    # The Enchanters' Gathering (2 players, untimed, issue 35; docs/bots/index.md): every search plays
    # alike (each tries the greedy playout policy's move first), and random play already wins 0.11
    # against hard, so the levels are parted by blunders (a uniformly random move), not budgets.
    "enchanters": {
        "easy": Level("easy", 1, 0.1, "The greedy player's move in one sampled deal (1 simulation), "
                      "but a random move 9 times in 10.", blunder=0.9),
        "medium": Level("medium", 1, 0.5, "The greedy player's move in one sampled deal (1 simulation), "
                        "but a random move 3 times in 10.", blunder=0.3),
        "hard": Level("hard", 9000, 1.0,
                      "Paired sequential halving of the root moves: 9,000 playouts (at most 1 s of CPU).",
                      method="halving"),
    },
}

#: The level of a bot seat created without one.
DEFAULT_LEVEL = "medium"


def levels_for(game_id: str) -> dict[str, Level]:
    """Every level as the game `game_id` plays it, weakest first."""
    own = GAME_LEVELS.get(game_id, {})
    return {name: own.get(name, level) for name, level in LEVELS.items()}


def get_level(name: str, game_id: str | None = None) -> Level:
    """The level called `name` (as the game `game_id` plays it, when given); KeyError for an
    unknown name."""
    levels = LEVELS if game_id is None else levels_for(game_id)
    try:
        return levels[name]
    except KeyError:
        raise KeyError(f"unknown bot level {name!r}; known: {', '.join(LEVELS)}") from None
