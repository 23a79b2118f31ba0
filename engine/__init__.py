"""Pure game rules for Coven: the protocol (`engine.core`), errors, and the registry of games."""

from engine import compiled

compiled.install()  # before any game module loads: stale or unwanted extensions stay unimported
# ruff: noqa: E402 - the imports below come after that call on purpose

from engine.chance import chance_rng, resolve_chance
from engine.core import (
    CHANCE,
    TERMINAL,
    AnyGame,
    Game,
    GameInfo,
    OptionSpec,
    Outcome,
    State,
    Termination,
)
from engine.errors import EngineError, IllegalMove, InvalidMove, InvalidOptions, InvalidSnapshot
from engine.registry import UnknownGame, all_games, get_game

__all__ = [
    "CHANCE",
    "TERMINAL",
    "chance_rng",
    "resolve_chance",
    "AnyGame",
    "EngineError",
    "Game",
    "GameInfo",
    "IllegalMove",
    "InvalidMove",
    "InvalidOptions",
    "InvalidSnapshot",
    "OptionSpec",
    "Outcome",
    "State",
    "Termination",
    "UnknownGame",
    "all_games",
    "get_game",
]
