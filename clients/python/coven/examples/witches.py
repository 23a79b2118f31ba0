"""A Witches' Wheel bot: plays its lowest card, keeps captured cards rather than changing the trump."""

from coven.models import MatchView, Move, WitchesMovePlay


def choose(view: MatchView) -> Move:
    assert view["game"] == "witches"  # narrows: witches state, witches moves
    plays: list[WitchesMovePlay] = [move for move in view["legal_moves"] if move["type"] == "play"]
    if plays:
        return min(plays, key=lambda move: int(move["card"].rsplit("-", 1)[1]))
    keep = [move for move in view["legal_moves"] if move["type"] == "keep"]
    return keep[0] if keep else view["legal_moves"][0]
