"""What a seat sees of a Witches' Wheel match, how moves appear in the log, and determinization."""

from __future__ import annotations

import random

import cython

from engine import shapes
from engine.core import Json, Seat
from engine.witches.cards import (
    BIT,
    COLOURS,
    NAMES,
    VALUE,
    WHEEL_SIDES,
    cards_of,
    ranking,
    score_of,
)
from engine.witches.moves import CARD_SHAPE, Deal, Draw, WitchesMove
from engine.witches.rules import strongest, winners
from engine.witches.state import (
    DEAL,
    DECIDE,
    DRAW,
    OVER,
    PHASE_NAMES,
    PLAY,
    WitchesState,
)


def view(s: WitchesState, seat: Seat | None) -> dict[str, Json]:
    """The public state plus `seat`'s own hand; never another hand, nor the pile's cards before the end."""
    n = s.n
    trump = s.trump
    acting = s.phase in (PLAY, DECIDE)
    out: dict[str, Json] = {
        "game": "witches",
        "players": n,
        "seat": seat,
        "phase": PHASE_NAMES[s.phase],
        "to_act": s.turn if acting else None,
        "receiving": s.turn if s.phase in (DEAL, DRAW) else None,
        "wheel": WHEEL_SIDES[s.increasing],
        "trump": NAMES[trump] if trump >= 0 else None,
        "trump_colour": COLOURS[trump // 9] if trump >= 0 else None,
        "wheel_value": VALUE[trump] if trump >= 0 else None,
        "ranking": ranking(VALUE[trump], s.increasing) if trump >= 0 else None,
        "leader": s.leader if s.phase >= DRAW else None,
        "trick": [
            {"seat": (s.leader + i) % n, "card": NAMES[c]} for i, c in enumerate(s.trick)
        ],
        # W8: whose card wins the trick on the table so far (the view says it; clients need no rules)
        "winning": (s.leader + strongest(s, s.trick)) % n if s.trick else None,
        "just_captured": _names(s.won),
        "hand_sizes": [h.bit_count() for h in s.hands],
        "pile_size": s.pile.bit_count(),
        "captured": [_names(mask) for mask in s.captured],
        "scores": [score_of(mask) for mask in s.captured],
        "discard": _names(s.discard),
        "tricks": [
            {
                "leader": leader,
                "cards": [{"seat": (leader + i) % n, "card": NAMES[c]} for i, c in enumerate(cards)],
                "winner": winner,
            }
            for leader, cards, winner in s.tricks
        ],
        "winners": winners(s) if s.phase == OVER else None,
        # once finished everything may be shown: the cards left in the pile (public by then anyway)
        "pile_cards": _names(s.pile) if s.phase == OVER else None,
    }
    if seat is not None:
        out["hand"] = _names(s.hands[seat])
    return out


def log_entry(s: WitchesState, move: WitchesMove, seat: Seat | None) -> Json:
    """A move as `seat` sees it: a dealt or drawn card only to its receiver."""
    data = move.to_json()
    if isinstance(move, (Deal, Draw)):
        data["seat"] = s.turn
        if seat != s.turn:
            del data["card"]
    return data


@cython.locals(
    seat=cython.int, other=cython.int, left=cython.int, i=cython.int, r=cython.ulonglong,
    unseen=cython.ulonglong, mask=cython.ulonglong, hands=list, cards=list, _=cython.int,
)
def determinize(state: WitchesState, seat: int, rng: random.Random) -> WitchesState:
    """A copy where the cards `seat` has not seen (other hands ∪ pile) are dealt anew, uniformly."""
    s = state.clone()
    hands = s.hands
    unseen = s.pile
    for other, hand in enumerate(hands):
        if other != seat:
            unseen |= hand
    cards = cards_of(unseen)
    left = len(cards)
    bits = rng.getrandbits
    for other, hand in enumerate(hands):
        if other == seat or not hand:
            continue
        mask = 0
        for _ in range(hand.bit_count()):
            r = bits(32)
            i = r * left >> 32
            left -= 1
            mask |= BIT[cards[i]]
            cards[i] = cards[left]
        hands[other] = mask
        unseen ^= mask
    s.pile = unseen
    return s


# --- private helpers -----------------------------------------------------------


def _names(mask: int) -> list[str]:
    return [NAMES[c] for c in cards_of(mask)]


_CARD = CARD_SHAPE
_PLAYED = shapes.named("WitchesPlayedCard", shapes.record({"seat": shapes.SEAT, "card": _CARD}))
_CARDS = shapes.array(_CARD)

#: The JSON shape of `view` (GameInfo.view_schema); `hand` only in a seat's own view.
VIEW_SCHEMA = shapes.record(
    {
        "game": shapes.game("witches"),
        "players": shapes.integer(2, 6),
        "seat": shapes.nullable(shapes.SEAT),
        "phase": shapes.names(PHASE_NAMES),
        "to_act": shapes.nullable(shapes.SEAT),
        "receiving": shapes.nullable(shapes.SEAT),
        "wheel": shapes.names(WHEEL_SIDES),
        "trump": shapes.nullable(_CARD),
        "trump_colour": shapes.nullable(shapes.names(COLOURS)),
        "wheel_value": shapes.nullable(shapes.integer(1, 9)),
        "ranking": shapes.nullable(shapes.array(shapes.integer(1, 9), "values, strongest first (W3)")),
        "leader": shapes.nullable(shapes.SEAT),
        "trick": shapes.array(_PLAYED, "the trick on the table, in play order"),
        "winning": shapes.nullable(shapes.SEAT),
        "just_captured": _CARDS,
        "hand_sizes": shapes.array(shapes.INTEGER),
        "pile_size": shapes.INTEGER,
        "captured": shapes.array(_CARDS, "each seat's captured witches"),
        "scores": shapes.array(shapes.INTEGER),
        "discard": _CARDS,
        "tricks": shapes.array(shapes.named("WitchesTrick", shapes.record(
            {"leader": shapes.SEAT, "cards": shapes.array(_PLAYED), "winner": shapes.SEAT}))),
        "winners": shapes.nullable(shapes.array(shapes.SEAT)),
        "pile_cards": shapes.nullable(_CARDS),
    },
    {"hand": _CARDS},
    "The Witches' Wheel as one seat (or a spectator) sees it",
)
