"""An Enchanters' Gathering bot: gathers whenever it can, then plays a Trick, takes a card, passes."""

from coven.models import MatchView, Move

PREFERENCE = ("gather", "trick", "take", "discard", "pass")


def choose(view: MatchView) -> Move:
    return min(view["legal_moves"], key=lambda move: PREFERENCE.index(move["type"]))
