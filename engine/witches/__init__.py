"""The Witches' Wheel (`witches`): trick-taking with a turning trump, rules in rules/witches.md.

Modules, vocabulary first: `cards` (cards, colours, bit masks, the wheel's
tables), `moves` (value objects, JSON), `state` (the state and its snapshots),
`rules` (transitions, legal moves, checks, the end), `views` (views, log,
determinization), `fast` (the search's playouts), `game` (the protocol).
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
