"""An Enchanters' Gathering bot: gathers whenever it can, then plays a Trick, takes a card, passes."""

from coven.models import MatchView, Move

PREFERENCE = ("gather", "trick", "take", "discard", "pass")


def choose(view: MatchView) -> Move:
    assert view["game"] == "enchanters"  # narrows: enchanters state, enchanters moves
    return min(view["legal_moves"], key=lambda move: PREFERENCE.index(move["type"]))
