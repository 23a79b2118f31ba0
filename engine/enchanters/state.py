"""The state of a game of The Enchanters' Gathering: compact, cheap to clone, JSON snapshots.

Hidden truth lives here (hands, face-down table cards, object values); the deck
is a set (a mask) with no order: every draw is a chance node over it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import State
from engine.enchanters.cards import (
    ALL_CARDS,
    INITIAL_PILES,
    MAX_VALUE,
    NEW_GATHERING_CARDS,
    NUM_CARDS,
    NUM_PILES,
    PROXIMA,
    STONE,
)
from engine.errors import InvalidSnapshot

SNAPSHOT_VERSION = 2  # 2 added `reshuffled`, `peaks` and `pair_extra` (version 1 still decodes)

# phases: chance phases first, then the player's decisions, then the end
REFILL, FIRST, VADEMECUM_DRAW, OBJECT, TAKE1, TAKE2, ACT, DISCARD, OVER = range(9)
PHASE_NAMES = ("refill", "first_player", "vademecum", "object", "take", "take", "act", "discard", "over")

# why the game ended
NOT_OVER, FIFTEEN_POINTS, SPECIAL_VICTORY, PILES_EMPTY, STALEMATE = range(5)
REASONS = ("", "fifteen_points", "special_victory", "piles_empty", "stalemate")

# payouts waiting in the queue: (seat, pile, kind)
PLAIN, WITH_NEW_GATHERING, PROXIMA_PAYOUT = range(3)

# history events: kind * 64 + seat * 8 + detail
EV_GATHERING, EV_TRICK, EV_PERICULUM = range(3)

FACE_UP_SPOT = 3


class EnchantersState(State):
    """Everything about a game in progress, true values included."""

    __slots__ = (
        "n", "phase", "turn", "hands", "known", "table", "deck", "discard", "towers",
        "piles", "ng_left", "objects", "ng", "obj_points", "stones", "proxima", "master",
        "last_pile", "queue", "vade_left", "refill", "skip_act", "history", "reshuffles",
        "turns", "idle", "busy", "winners", "reason", "reshuffled", "peaks", "pair_extra",
    )

    def __init__(self) -> None:
        self.n = 0
        self.phase = REFILL
        self.turn = -1                  # seat whose turn it is; -1 during setup
        self.hands: list[int] = []      # per seat, a card mask
        self.known: list[int] = []      # per seat, cards whose place that seat knows
        self.table: list[int] = [-1, -1, -1, -1]  # spots 0-2 face down, 3 face up; -1 empty
        self.deck = 0                   # card mask, no order
        self.discard = 0
        self.towers: list[int] = [0, 0, 0]
        self.piles: list[tuple[int, ...]] = []    # per pile A..G, counts of values 0..5
        self.ng_left = NEW_GATHERING_CARDS
        self.objects: list[tuple[int, ...]] = []  # per seat, object codes pile*8+value, in order taken
        self.ng: list[int] = []         # per seat, New-gathering cards
        self.obj_points: list[int] = [] # per seat, points of objects incl. New-gathering cards
        self.stones: list[int] = []     # per seat, Sorcerer's Stones held
        self.proxima = -1               # seat holding Proxima face up, or -1
        self.master = -1                # seat holding the Elemental master, or -1
        self.last_pile = -1             # pile that paid the most recent gathering (E14)
        self.queue: tuple[tuple[int, int, int], ...] = ()  # payouts to draw
        self.vade_left = 0              # Vademecum draws still to make
        self.refill = 0                 # mask of spots still to refill
        self.skip_act = False           # a Periculum came in step 1 (E18)
        self.history: tuple[int, ...] = ()
        self.reshuffles = 0
        self.turns = 0                  # turns completed
        self.idle = 0                   # turns in a row ending with no gathering, no Trick, no deck
        self.busy = False               # this turn gathered or played a Trick
        self.winners: tuple[int, ...] = ()
        self.reason = NOT_OVER
        # Public facts for exact determinization (views.determinize):
        # per reshuffle still relevant (oldest first), the cards it put in the deck that no later
        # reshuffle took back; a card in none of them last came from the first deck.
        self.reshuffled: tuple[int, ...] = ()
        # per seat, per number k of objects held, the most public points (Elementals, master,
        # New-gathering cards) held with exactly k objects while the game went on (E21)
        self.peaks: list[tuple[int, ...]] = []
        self.pair_extra = 0             # seats that held exactly two objects with another Magic Object card (E22)

    @classmethod
    def initial(cls, n: int) -> EnchantersState:
        """Before setup: every card in the deck, chance lays out the table (E8)."""
        s = cls()
        s.n = n
        s.hands = [0] * n
        s.known = [0] * n
        s.deck = ALL_CARDS
        s.piles = list(INITIAL_PILES)
        s.objects = [()] * n
        s.ng = [0] * n
        s.obj_points = [0] * n
        s.stones = [0] * n
        s.peaks = [(0,)] * n
        s.refill = 0b1111
        return s

    def clone(self) -> EnchantersState:
        c = EnchantersState.__new__(EnchantersState)
        c.n = self.n
        c.phase = self.phase
        c.turn = self.turn
        c.hands = self.hands[:]
        c.known = self.known[:]
        c.table = self.table[:]
        c.deck = self.deck
        c.discard = self.discard
        c.towers = self.towers[:]
        c.piles = self.piles[:]
        c.ng_left = self.ng_left
        c.objects = self.objects[:]
        c.ng = self.ng[:]
        c.obj_points = self.obj_points[:]
        c.stones = self.stones[:]
        c.proxima = self.proxima
        c.master = self.master
        c.last_pile = self.last_pile
        c.queue = self.queue
        c.vade_left = self.vade_left
        c.refill = self.refill
        c.skip_act = self.skip_act
        c.history = self.history
        c.reshuffles = self.reshuffles
        c.turns = self.turns
        c.idle = self.idle
        c.busy = self.busy
        c.winners = self.winners
        c.reason = self.reason
        c.reshuffled = self.reshuffled
        c.peaks = self.peaks[:]
        c.pair_extra = self.pair_extra
        return c

    def recount(self) -> None:
        """Recompute the derived per-seat totals from `objects` and `ng`."""
        obj_points = []
        stones = []
        for objs, ng in zip(self.objects, self.ng, strict=True):  # loops: every sample recounts
            total = ng
            held = 0
            for code in objs:
                total += code & 7
                if code & 7 == STONE:
                    held += 1
            obj_points.append(total)
            stones.append(held)
        self.obj_points = obj_points
        self.stones = stones

    def card_places(self) -> int:
        """OR of every place a card can be (for conservation checks); Proxima in front counts."""
        mask = self.deck | self.discard
        for h in self.hands:
            mask |= h
        for t in self.towers:
            mask |= t
        for c in self.table:
            if c >= 0:
                mask |= 1 << c
        if self.proxima >= 0:
            mask |= 1 << PROXIMA
        return mask


_FIELDS = (
    "n", "phase", "turn", "hands", "known", "table", "deck", "discard", "towers", "piles",
    "ng_left", "objects", "ng", "proxima", "master", "last_pile", "queue", "vade_left",
    "refill", "skip_act", "history", "reshuffles", "turns", "idle", "busy", "winners", "reason",
)
_FIELDS_2 = ("reshuffled", "peaks", "pair_extra")


def encode(s: EnchantersState) -> dict[str, Any]:
    """A compact JSON snapshot."""
    return {
        "v": SNAPSHOT_VERSION,
        "n": s.n, "phase": s.phase, "turn": s.turn,
        "hands": list(s.hands), "known": list(s.known), "table": list(s.table),
        "deck": s.deck, "discard": s.discard, "towers": list(s.towers),
        "piles": [list(p) for p in s.piles], "ng_left": s.ng_left,
        "objects": [list(o) for o in s.objects], "ng": list(s.ng),
        "proxima": s.proxima, "master": s.master, "last_pile": s.last_pile,
        "queue": [list(q) for q in s.queue], "vade_left": s.vade_left, "refill": s.refill,
        "skip_act": s.skip_act, "history": list(s.history), "reshuffles": s.reshuffles,
        "turns": s.turns, "idle": s.idle, "busy": s.busy, "winners": list(s.winners), "reason": s.reason,
        "reshuffled": list(s.reshuffled), "peaks": [list(row) for row in s.peaks], "pair_extra": s.pair_extra,
    }


def _ints(value: Any, length: int | None = None) -> list[int]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise InvalidSnapshot("expected a list of integers")
    for x in value:
        if not isinstance(x, int) or isinstance(x, bool):
            raise InvalidSnapshot("expected a list of integers")
    return value


def _int(value: Any, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidSnapshot(f"integer out of range: {value!r}")
    return value


def decode(data: Mapping[str, Any]) -> EnchantersState:
    """Rebuild a state from `encode`'s output; InvalidSnapshot on anything else."""
    if not isinstance(data, Mapping) or data.get("v") not in (1, SNAPSHOT_VERSION):
        raise InvalidSnapshot(f"not an enchanters snapshot of version 1 or {SNAPSHOT_VERSION}")
    fields = _FIELDS if data["v"] == 1 else _FIELDS + _FIELDS_2
    missing = [f for f in fields if f not in data]
    if missing:
        raise InvalidSnapshot(f"missing fields: {', '.join(missing)}")
    s = EnchantersState()
    n = s.n = _int(data["n"], 2, 6)
    s.phase = _int(data["phase"], 0, OVER)
    s.turn = _int(data["turn"], -1, n - 1)
    s.hands = [_int(h, 0, ALL_CARDS) for h in _ints(data["hands"], n)]
    s.known = [_int(k, 0, ALL_CARDS) for k in _ints(data["known"], n)]
    s.table = [_int(c, -1, NUM_CARDS - 1) for c in _ints(data["table"], 4)]
    s.deck = _int(data["deck"], 0, ALL_CARDS)
    s.discard = _int(data["discard"], 0, ALL_CARDS)
    s.towers = [_int(t, 0, ALL_CARDS) for t in _ints(data["towers"], 3)]
    piles = data["piles"]
    if not isinstance(piles, list) or len(piles) != NUM_PILES:
        raise InvalidSnapshot("expected seven piles")
    s.piles = [tuple(_int(x, 0, 7) for x in _ints(p, MAX_VALUE + 1)) for p in piles]
    s.ng_left = _int(data["ng_left"], 0, NEW_GATHERING_CARDS)
    objects = data["objects"]
    if not isinstance(objects, list) or len(objects) != n:
        raise InvalidSnapshot("expected objects per seat")
    s.objects = [tuple(_int(x, 0, 8 * NUM_PILES - 1) for x in _ints(o)) for o in objects]
    s.ng = [_int(x, 0, NEW_GATHERING_CARDS) for x in _ints(data["ng"], n)]
    s.proxima = _int(data["proxima"], -1, n - 1)
    s.master = _int(data["master"], -1, n - 1)
    s.last_pile = _int(data["last_pile"], -1, NUM_PILES - 1)
    queue = data["queue"]
    if not isinstance(queue, list):
        raise InvalidSnapshot("expected a queue list")
    s.queue = tuple(
        (_int(q[0], 0, n - 1), _int(q[1], 0, NUM_PILES - 1), _int(q[2], 0, 2))
        for q in (_ints(item, 3) for item in queue)
    )
    s.vade_left = _int(data["vade_left"], 0, 3)
    s.refill = _int(data["refill"], 0, 15)
    if not isinstance(data["skip_act"], bool):
        raise InvalidSnapshot("skip_act must be a boolean")
    s.skip_act = data["skip_act"]
    s.history = tuple(_ints(data["history"]))
    s.reshuffles = _int(data["reshuffles"], 0, 10**6)
    s.turns = _int(data["turns"], 0, 10**6)
    s.idle = _int(data["idle"], 0, 2 * n)
    if not isinstance(data["busy"], bool):
        raise InvalidSnapshot("busy must be a boolean")
    s.busy = data["busy"]
    s.winners = tuple(_int(w, 0, n - 1) for w in _ints(data["winners"]))
    s.reason = _int(data["reason"], 0, len(REASONS) - 1)
    s.recount()
    _check_cards(s)
    if data["v"] == 1:
        # migrated: no grouping by reshuffle, and only the present constrains object values
        s.reshuffled = ()
        s.peaks = [(0,) * (len(objs) + 1) for objs in s.objects]
        s.pair_extra = 0
        return s
    s.reshuffled = tuple(_int(m, 1, ALL_CARDS) for m in _ints(data["reshuffled"]))
    union = 0
    for m in s.reshuffled:
        if union & m:
            raise InvalidSnapshot("reshuffled card sets must be disjoint")
        union |= m
    peaks = data["peaks"]
    if not isinstance(peaks, list) or len(peaks) != n:
        raise InvalidSnapshot("expected peaks per seat")
    s.peaks = [tuple(_int(x, 0, 100) for x in _ints(row)) for row in peaks]
    if any(not 1 <= len(row) <= len(objs) + 1 for row, objs in zip(s.peaks, s.objects, strict=True)):
        raise InvalidSnapshot("a seat's peaks run from no object to the objects it holds")
    s.pair_extra = _int(data["pair_extra"], 0, (1 << n) - 1)
    return s


def _check_cards(s: EnchantersState) -> None:
    """Every card in exactly one place (Proxima may be face up in front of its holder)."""
    seen = 0
    total = 0
    places = [s.deck, s.discard, *s.hands, *s.towers, *[(1 << c) for c in s.table if c >= 0]]
    if s.proxima >= 0:
        places.append(1 << PROXIMA)
    for mask in places:
        if seen & mask:
            raise InvalidSnapshot("a card is in two places")
        seen |= mask
        total += mask.bit_count()
    if seen != ALL_CARDS or total != NUM_CARDS:
        raise InvalidSnapshot("the snapshot does not hold all 40 cards exactly once")
