"""What a seat sees, how moves appear in the log, and the snapshot format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import InvalidSnapshot
from engine.witches.cards import (
    ALL_CARDS,
    COLOURS,
    NAMES,
    NUM_CARDS,
    VALUE,
    WHEEL_SIDES,
    cards_of,
    ranking,
    score_of,
)
from engine.witches.moves import Deal, Draw
from engine.witches.rules import winners
from engine.witches.state import (
    DEAL,
    DECIDE,
    DRAW,
    OVER,
    PHASE_NAMES,
    PLAY,
    WitchesState,
)

SNAPSHOT_VERSION = 1


def _names(mask: int) -> list[str]:
    return [NAMES[c] for c in cards_of(mask)]


def view(s: WitchesState, seat: int | None) -> dict[str, Any]:
    """The public state plus `seat`'s own hand; never another hand, nor the pile's cards before the end."""
    n = s.n
    trump = s.trump
    acting = s.phase in (PLAY, DECIDE)
    out: dict[str, Any] = {
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


def log_entry(s: WitchesState, move: Any, seat: int | None) -> dict[str, Any]:
    """A move as `seat` sees it: a dealt or drawn card only to its receiver."""
    data = move.to_json()
    if isinstance(move, (Deal, Draw)):
        data["seat"] = s.turn
        if seat != s.turn:
            del data["card"]
    return data


# --- snapshots ------------------------------------------------------------------


def encode(s: WitchesState) -> dict[str, Any]:
    """A compact JSON snapshot; card sets are hex strings (54 bits overflow JS numbers)."""
    return {
        "v": SNAPSHOT_VERSION,
        "n": s.n,
        "wheel": WHEEL_SIDES[s.increasing],
        "phase": s.phase,
        "turn": s.turn,
        "leader": s.leader,
        "pending": s.pending,
        "hands": [format(h, "x") for h in s.hands],
        "pile": format(s.pile, "x"),
        "captured": [format(c, "x") for c in s.captured],
        "discard": format(s.discard, "x"),
        "trump": s.trump,
        "trick": list(s.trick),
        "won": format(s.won, "x"),
        "tricks": [[leader, list(cards), winner] for leader, cards, winner in s.tricks],
    }


def decode(data: Mapping[str, Any]) -> WitchesState:
    """Rebuild a state from `encode`'s output; InvalidSnapshot on anything inconsistent."""
    try:
        return _decode(data)
    except InvalidSnapshot:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise InvalidSnapshot(f"corrupt witches snapshot: {error!r}") from None


def _mask(text: Any) -> int:
    if not isinstance(text, str):
        raise InvalidSnapshot("card sets are hex strings")
    mask = int(text, 16)
    if mask < 0 or mask > ALL_CARDS:
        raise InvalidSnapshot("card set out of range")
    return mask


def _int(value: Any, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise InvalidSnapshot(f"{value!r} is not an integer in {low}..{high}")
    return value


def _decode(data: Mapping[str, Any]) -> WitchesState:
    if not isinstance(data, Mapping) or data.get("v") != SNAPSHOT_VERSION:
        raise InvalidSnapshot(f"not a witches snapshot of version {SNAPSHOT_VERSION}")
    n = _int(data["n"], 2, 6)
    if data["wheel"] not in WHEEL_SIDES:
        raise InvalidSnapshot("unknown wheel side")
    s = WitchesState.initial(n, data["wheel"] == "increasing")
    s.phase = _int(data["phase"], DEAL, OVER)
    s.turn = _int(data["turn"], 0, n - 1)
    s.leader = _int(data["leader"], 0, n - 1)
    s.pending = _int(data["pending"], 0, 6 * n)
    s.hands = [_mask(h) for h in data["hands"]]
    s.captured = [_mask(c) for c in data["captured"]]
    if len(s.hands) != n or len(s.captured) != n:
        raise InvalidSnapshot("hands and captured need one entry per seat")
    s.pile = _mask(data["pile"])
    s.discard = _mask(data["discard"])
    s.trump = _int(data["trump"], -1, NUM_CARDS - 1)
    s.trick = tuple(_int(c, 0, NUM_CARDS - 1) for c in data["trick"])
    s.won = _mask(data["won"])
    s.tricks = tuple(
        (
            _int(leader, 0, n - 1),
            tuple(_int(c, 0, NUM_CARDS - 1) for c in cards),
            _int(winner, 0, n - 1),
        )
        for leader, cards, winner in data["tricks"]
    )
    places = [*s.hands, *s.captured, s.pile, s.discard]
    places += [1 << c for c in s.trick]
    if s.trump >= 0:
        places.append(1 << s.trump)
    union = 0
    for place in places:
        if union & place:
            raise InvalidSnapshot("a card is in two places")
        union |= place
    if union != ALL_CARDS or len(s.trick) >= n:
        raise InvalidSnapshot("cards are not conserved")
    if s.phase == DECIDE and s.won & ~s.captured[s.turn]:
        raise InvalidSnapshot("the cards just won must be among the winner's captures")
    if s.phase == DRAW and not s.pending:
        raise InvalidSnapshot("a draw phase needs pending draws")
    return s
