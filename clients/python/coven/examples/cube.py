"""A Magic Cube bot: on stars it takes the kind of object the lid holds most of; otherwise the first move."""

from coven.models import CubeMoveChoose, MatchView, Move


def choose(view: MatchView) -> Move:
    assert view["game"] == "cube"  # narrows: cube state, cube moves
    lid = view["state"]["lid"]
    in_lid = {"book": lid["book"], "ring": lid["ring"], "hat": lid["hat"], "wand": lid["wand"]}
    chooses: list[CubeMoveChoose] = [move for move in view["legal_moves"] if move["type"] == "choose"]
    if chooses:
        return max(chooses, key=lambda move: in_lid[move["object"]])
    return view["legal_moves"][0]
