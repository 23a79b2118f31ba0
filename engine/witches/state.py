"""The Witches' Wheel state: a handful of ints, bit masks and tuples, cheap to clone."""

from __future__ import annotations

from engine.core import State
from engine.witches.cards import ALL_CARDS, HAND_SIZE, Card, CardSet

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
