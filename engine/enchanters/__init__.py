"""The Enchanters' Gathering (rules/enchanters.md): set collection with hidden hands and rewards.

Modules, vocabulary first: `cards` (cards, piles, objects), `sets` (the set
rule, Air declarations, the seven patterns), `moves` (moves and their JSON),
`state` (the state and its snapshots), `rules` (transitions, legal moves,
checks), `views` (views, log redaction, determinization), `game` (the protocol).
"""

from engine.enchanters.game import EnchantersGame
from engine.enchanters.moves import Discard, Draw, DrawObject, First, Gather, Pass, PlayTrick, Take
from engine.enchanters.state import EnchantersState

GAME = EnchantersGame()

__all__ = [
    "GAME",
    "Discard",
    "Draw",
    "DrawObject",
    "EnchantersGame",
    "EnchantersState",
    "First",
    "Gather",
    "Pass",
    "PlayTrick",
    "Take",
]
