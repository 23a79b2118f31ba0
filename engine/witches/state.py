"""The Witches' Wheel state: a handful of ints, bit masks and tuples, cheap to clone,
and its compact JSON snapshot (`encode`/`decode`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Json, State
from engine.errors import InvalidSnapshot
from engine.witches.cards import ALL_CARDS, HAND_SIZE, NUM_CARDS, WHEEL_SIDES, Card, CardSet

SNAPSHOT_VERSION = 1

# phases; chance acts in DEAL, REVEAL, FIRST and DRAW
DEAL = 0      # W4: `pending` cards still to deal, next to seat `turn`
REVEAL = 1    # W5: the trump card is turned up
FIRST = 2     # W6: the first leader is chosen
DRAW = 3      # W12: `pending` draws left, next by seat `turn`
PLAY = 4      # W7: seat `turn` plays a card to `trick`
DECIDE = 5    # W11: seat `turn` (the trick winner) keeps the trump or gives up a card of `won`
OVER = 6      # W13: all hands empty

PHASE_NAMES: tuple[str, ...] = ("deal", "reveal", "first", "draw", "play", "trump_decision", "over")

#: a finished trick: (leader seat, cards in play order, winner seat)
TrickRecord = tuple[int, tuple[Card, ...], int]


class WitchesState(State):
    """Everything about a match in progress; every card is in exactly one place.

    The places: `hands[seat]`, `pile`, `captured[seat]`, `discard`, `trump`
    (once turned up) and `trick`.
    """

    __slots__ = (
        "n", "increasing", "phase", "turn", "leader", "pending",
        "hands", "pile", "captured", "discard", "trump", "trick", "won", "tricks",
    )

    n: int
    increasing: bool
    phase: int
    turn: int                   # seat to act (or to receive a card)
    leader: int                 # leader of the current trick
    pending: int                # cards still to deal (DEAL) or draws left (DRAW)
    hands: list[CardSet]
    pile: CardSet
    captured: list[CardSet]
    discard: CardSet
    trump: Card                 # -1 until turned up
    trick: tuple[Card, ...]     # cards of the current trick, from `leader` clockwise
    won: CardSet                # DECIDE: the cards just captured (W11 choices)
    tricks: tuple[TrickRecord, ...]  # public history of finished tricks

    @classmethod
    def initial(cls, n: int, increasing: bool) -> WitchesState:
        """Before the deal: every card in the pile, chance to deal 6 to each seat."""
        s = cls.__new__(cls)
        s.n = n
        s.increasing = increasing
        s.phase = DEAL
        s.turn = 0
        s.leader = 0
        s.pending = HAND_SIZE * n
        s.hands = [0] * n
        s.pile = ALL_CARDS
        s.captured = [0] * n
        s.discard = 0
        s.trump = -1
        s.trick = ()
        s.won = 0
        s.tricks = ()
        return s

    def clone(self) -> WitchesState:
        """An independent copy (the mutable lists are copied, the rest is immutable)."""
        s = WitchesState.__new__(WitchesState)
        s.n = self.n
        s.increasing = self.increasing
        s.phase = self.phase
        s.turn = self.turn
        s.leader = self.leader
        s.pending = self.pending
        s.hands = self.hands[:]
        s.pile = self.pile
        s.captured = self.captured[:]
        s.discard = self.discard
        s.trump = self.trump
        s.trick = self.trick
        s.won = self.won
        s.tricks = self.tricks
        return s

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WitchesState):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<WitchesState {self.n}p {PHASE_NAMES[self.phase]} turn={self.turn}>"


# --- snapshots ------------------------------------------------------------------


def encode(s: WitchesState) -> dict[str, Json]:
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


def decode(data: Mapping[str, Json]) -> WitchesState:
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


def _decode(data: Mapping[str, Json]) -> WitchesState:
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
