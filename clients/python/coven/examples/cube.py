"""A Magic Cube bot: on stars it takes the kind of object the lid holds most of; otherwise the first move."""

from coven.models import MatchView, Move


def choose(view: MatchView) -> Move:
    lid = view["state"]["lid"]
    chooses = [move for move in view["legal_moves"] if move["type"] == "choose"]
    if chooses:
        return max(chooses, key=lambda move: lid[move["object"]])
    return view["legal_moves"][0]
