"""The Magic Cube (`cube`): the rules in `engine.cube.game`, a careful hand policy in `engine.cube.policy`."""

from engine.cube.game import GAME, CubeGame, CubeState

__all__ = ["GAME", "CubeGame", "CubeState"]
