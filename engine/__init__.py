"""Pure game rules for Coven: the protocol (`engine.core`), errors, and the registry of games."""

from engine.chance import chance_rng, resolve_chance
from engine.core import CHANCE, TERMINAL, Game, GameInfo, OptionSpec, Outcome, State
from engine.errors import EngineError, IllegalMove, InvalidMove, InvalidOptions, InvalidSnapshot
from engine.registry import UnknownGame, all_games, get_game

__all__ = [
    "CHANCE",
    "TERMINAL",
    "chance_rng",
    "resolve_chance",
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
    "UnknownGame",
    "all_games",
    "get_game",
]
