"""The Witches' Wheel (`witches`): trick-taking with a turning trump, rules in rules/witches.md.

Modules: `cards` (vocabulary and tables), `moves` (value objects, JSON),
`state` (the compact state), `rules` (transitions and legality), `fast`
(determinization and random playout for the search), `view` (views, log,
snapshots), `game` (the `Game` subclass).
"""

from engine.witches.cards import card_name, cards_of, mask_of, parse_card
from engine.witches.game import WitchesGame
from engine.witches.moves import Deal, Draw, First, Keep, Play, Reveal, Trump
from engine.witches.state import WitchesState

GAME = WitchesGame()

__all__ = [
    "GAME",
    "Deal",
    "Draw",
    "First",
    "Keep",
    "Play",
    "Reveal",
    "Trump",
    "WitchesGame",
    "WitchesState",
    "card_name",
    "cards_of",
    "mask_of",
    "parse_card",
]
