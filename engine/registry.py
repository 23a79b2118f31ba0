"""Games by id. Generic code (API, bots, tests) finds games here, never by importing a game."""

from __future__ import annotations

from engine.core import AnyGame
from engine.errors import EngineError


class UnknownGame(EngineError, LookupError):
    """No game is registered under that id."""


_GAMES: dict[str, AnyGame] = {}


def register(game: AnyGame) -> AnyGame:
    """Add a game instance under its `info.id`."""
    _GAMES[game.info.id] = game
    return game


def get_game(game_id: str) -> AnyGame:
    try:
        return _GAMES[game_id]
    except KeyError:
        raise UnknownGame(f"unknown game {game_id!r}") from None


def all_games() -> list[AnyGame]:
    """Every registered game, in registration order."""
    return list(_GAMES.values())


def _load_builtin_games() -> None:
    # One import and one register() per game module; each module builds its Game instance.
    from engine import witches

    register(witches.GAME)
    from engine import cube

    register(cube.GAME)
    from engine import enchanters

    register(enchanters.GAME)


_load_builtin_games()
