"""The Magic Cube (`cube`): dexterity and luck, simulated; rules C1–C16 in rules/cube.md.

Modules, vocabulary first: `cards` (object kinds, sides, faces and their
tables), `moves` (value objects, JSON), `state` (the state and its snapshots),
`rules` (transitions, legal moves, checks, the end), `views` (views, log,
determinization), `fast` (the search's playout and the careful hand policy),
`game` (the protocol).
"""

from engine.cube.game import CubeGame
from engine.cube.moves import Choose, Fall, First, Roll, Rolled, Turn
from engine.cube.state import CubeState

GAME = CubeGame()

__all__ = ["GAME", "Choose", "CubeGame", "CubeState", "Fall", "First", "Roll", "Rolled", "Turn"]
