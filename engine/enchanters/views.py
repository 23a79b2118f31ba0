"""What each seat may see (views, log entries) and sampling what it may not (determinize).

Public: the Towers, the face-up table card and which face-down spots hold a
card, the discard pile, deck and pile sizes, hand sizes, every Elemental in a
hand (an Elemental is shown as soon as it comes into a hand: it scores from
there), every player's objects by pile letter, New-gathering cards, Proxima and
the Elemental master, the history of gatherings and Tricks. Private to a seat:
its hand, its objects' values, and the cards it knows to be in other hands
(taken face up, or passed by itself with Chaos). Once the game is over,
everything is shown: every hand, object value and score, the face-down table
cards and the cards left in the deck (as a set: it has no order).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine import shapes
from engine.enchanters.cards import (
    ELEMENTAL_FIRST,
    ELEMENTAL_MASK,
    MASTER_POINTS,
    MAX_VALUE,
    NAMES,
    NUM_PILES,
    PERICULUM,
    PILE_LETTERS,
    STONE,
    TRICK_NAMES,
    WIN_POINTS,
    cards_of,
    names_of,
)
from engine.enchanters.moves import CARD_SHAPE
from engine.enchanters.rules import next_pile, points
from engine.enchanters.state import (
    ACT,
    DISCARD,
    EV_GATHERING,
    EV_TRICK,
    FACE_UP_SPOT,
    FIRST,
    OBJECT,
    OVER,
    PHASE_NAMES,
    REASONS,
    REFILL,
    TAKE1,
    TAKE2,
    VADEMECUM_DRAW,
    EnchantersState,
)

_STEPS = {TAKE1: 1, TAKE2: 1, ACT: 2, DISCARD: 3}  # the turn's steps (E9–E11)


def _to_act(s: EnchantersState) -> Any:
    if s.phase == OVER:
        return None
    if s.phase < TAKE1:  # REFILL, FIRST, VADEMECUM_DRAW, OBJECT
        return "chance"
    return s.turn


def _pending(s: EnchantersState) -> dict[str, Any] | None:
    if s.phase == REFILL:
        return {"draw": "refill", "spot": (s.refill & -s.refill).bit_length() - 1}
    if s.phase == VADEMECUM_DRAW:
        return {"draw": "vademecum", "left": s.vade_left}
    if s.phase == OBJECT:
        seat, pile, _ = s.queue[0]
        return {"draw": "object", "seat": seat, "pile": PILE_LETTERS[next_pile(s, pile)]}
    if s.phase == FIRST:
        return {"draw": "first_player"}
    return None


def _history(s: EnchantersState) -> list[dict[str, Any]]:
    out = []
    for ev in s.history:
        kind, seat, detail = ev >> 6, ev >> 3 & 7, ev & 7
        if kind == EV_GATHERING:
            out.append({"seat": seat, "gathering": PILE_LETTERS[detail]})
        elif kind == EV_TRICK:
            out.append({"seat": seat, "trick": TRICK_NAMES[detail]})
        else:
            out.append({"seat": seat, "periculum": "vademecum" if detail else "table"})
    return out


def view(s: EnchantersState, seat: int | None) -> dict[str, Any]:
    """What `seat` (None: a spectator) may see, as JSON."""
    over = s.phase == OVER
    players = []
    for p in range(s.n):
        hand = s.hands[p]
        shown = over or p == seat
        entry: dict[str, Any] = {
            "seat": p,
            "hand_size": hand.bit_count(),
            "elementals": names_of(hand & ELEMENTAL_MASK),
            "objects": [
                {"pile": PILE_LETTERS[code >> 3], "value": code & 7} if shown else {"pile": PILE_LETTERS[code >> 3]}
                for code in s.objects[p]
            ],
            "new_gathering": s.ng[p],
            "proxima": s.proxima == p,
            "elemental_master": s.master == p,
        }
        if p == seat or over:
            entry["hand"] = names_of(hand)
        elif seat is not None:
            entry["known_cards"] = names_of(hand & s.known[seat] & ~ELEMENTAL_MASK)
        if shown:
            entry["points"] = points(s, p)
        players.append(entry)
    table: list[dict[str, Any]] = [
        {"spot": i, "face": "down", "occupied": s.table[i] >= 0} for i in range(FACE_UP_SPOT)
    ]
    if over:
        for spot in table:
            spot["card"] = NAMES[s.table[spot["spot"]]] if spot["occupied"] else None
    up = s.table[FACE_UP_SPOT]
    table.append({"spot": FACE_UP_SPOT, "face": "up", "card": NAMES[up] if up >= 0 else None})
    data: dict[str, Any] = {
        "game": "enchanters",
        "seat": seat,
        "phase": PHASE_NAMES[s.phase],
        "step": _STEPS.get(s.phase),
        "turn": s.turn if s.turn >= 0 else None,
        "to_act": _to_act(s),
        "skip_step_2": s.skip_act,
        "table": table,
        "deck_size": s.deck.bit_count(),
        "discard": names_of(s.discard),
        "towers": [names_of(t) for t in s.towers],
        "piles": {PILE_LETTERS[q]: sum(s.piles[q]) for q in range(NUM_PILES)},
        "new_gathering_left": s.ng_left,
        "players": players,
        "proxima": s.proxima if s.proxima >= 0 else None,
        "elemental_master": s.master if s.master >= 0 else None,
        "last_pile": PILE_LETTERS[s.last_pile] if s.last_pile >= 0 else None,
        "history": _history(s),
        "pending": _pending(s),
        "turns_completed": s.turns,
        "reshuffles": s.reshuffles,
    }
    if over:
        data["deck"] = names_of(s.deck)
        data["outcome"] = {
            "winners": list(s.winners),
            "reason": REASONS[s.reason],
            "scores": [points(s, p) for p in range(s.n)],
        }
    return data


def log_entry(s: EnchantersState, move: Any, seat: int | None) -> Any:
    """How `move`, about to be applied to `s`, appears to `seat`: drawn cards and values redacted."""
    data = move.to_json()
    kind = move[-1]
    if kind == "draw":
        card = move[0]
        if s.phase == REFILL:
            spot = (s.refill & -s.refill).bit_length() - 1
            data["spot"] = spot
            if spot != FACE_UP_SPOT:
                del data["card"]
                data["hidden"] = True
        else:
            data["to"] = s.turn
            if seat != s.turn and card < ELEMENTAL_FIRST and card != PERICULUM:
                del data["card"]
                data["hidden"] = True
    elif kind == "object":
        owner = s.queue[0][0]
        data["seat"] = owner
        if seat != owner:
            del data["value"]
    elif kind == "take":
        card = s.table[move[0]]
        if card >= 0 and (
            move[0] == FACE_UP_SPOT or seat == s.turn or card >= ELEMENTAL_FIRST or card == PERICULUM
        ):
            data["card"] = NAMES[card]
    return data


def determinize(s: EnchantersState, seat: int, rng: random.Random) -> EnchantersState:
    """A full state consistent with what `seat` has seen: other hands, face-down cards, the deck
    and other players' object values are resampled (nothing once the game is over: all is shown).

    Exact about what is public: a hidden card is redealt only among the cards last dealt from the
    same deck (before or after each reshuffle, `card_groups`), and object values only among those
    that would not have ended the game at any earlier check (`object_limits`)."""
    return determinizer(s, seat)(rng)


def determinizer(s: EnchantersState, seat: int) -> Callable[[random.Random], EnchantersState]:
    """`determinize` for many samples of one (state, seat): what they share is worked out once
    (the card groups, hidden slots, object pools and limits), each call only deals."""
    if s.phase == OVER:
        return lambda rng: s.clone()
    deal_cards = _card_dealer(s, seat)
    deal_objects = _object_dealer(s, seat)

    def sample(rng: random.Random) -> EnchantersState:
        d = s.clone()
        if deal_cards is not None:
            deal_cards(d, rng)
        if deal_objects is not None:
            deal_objects(d, rng)
        return d

    return sample


def _shuffle(items: list[Any], rand: Any, count: int | None = None) -> None:
    """Fisher-Yates with `rng.random` (faster than `random.shuffle`); with `count`, only the
    first `count` places are drawn (a uniform random ordered sample from the whole list)."""
    size = len(items)
    for i in range(size if count is None else min(count, size - 1)):
        j = i + int(rand() * (size - i))
        items[i], items[j] = items[j], items[i]


# --- cards --------------------------------------------------------------------------------

_SHOWN_MASK = ELEMENTAL_MASK | 1 << PERICULUM  # cards that are never hidden in a hand (E18, Elementals)


def card_groups(s: EnchantersState, pool: int) -> list[int]:
    """The unknown cards `pool` split by the deck each was last dealt from (public: the discard
    pile is open when it becomes the deck).

    A hidden card was dealt after the last reshuffle that put it in the deck (had it been dealt
    before, it could not have been on the discard pile then) and has been hidden since; so it can
    only trade places with cards of the same group, and so can a face-down spot or the deck.
    """
    groups = []
    for cards in reversed(s.reshuffled):
        group = pool & cards
        if group:
            groups.append(group)
            pool ^= group
    if pool:
        groups.append(pool)  # last dealt from the first deck
    return groups


_Dealer = Callable[[EnchantersState, random.Random], None]


def _card_dealer(s: EnchantersState, seat: int) -> _Dealer | None:
    """Deals the cards `seat` cannot place into a copy of `s`: others' hidden hand cards, face-down
    table cards, the deck (None when there are none).

    Group by group (`card_groups`), uniformly: Elementals and the Periculum are never hidden in a
    hand (they are shown as they come), so hidden hand slots get ordinary cards; the table spots
    get any of what is left; the rest of the group is (or was) in the deck.
    """
    mine = s.known[seat] | ELEMENTAL_MASK
    n = s.n
    hidden = [s.hands[p] & ~mine if p != seat else 0 for p in range(n)]
    hidden_mask = 0
    for m in hidden:
        hidden_mask |= m
    table = s.table
    spots = [i for i in range(FACE_UP_SPOT) if table[i] >= 0]
    table_mask = 0
    for i in spots:
        table_mask |= 1 << table[i]
    pool_mask = hidden_mask | table_mask | s.deck
    if not pool_mask:
        return None
    plan = []
    for group in card_groups(s, pool_mask) if s.reshuffled else (pool_mask,):
        # hidden slots, in seat then card order, get the first cards of the shuffled free ones
        slots = [(p, c) for p in range(n) for c in cards_of(hidden[p] & group)]
        plan.append((cards_of(group & ~_SHOWN_MASK), slots, [i for i in spots if group >> table[i] & 1],
                     cards_of(group & _SHOWN_MASK)))
    base_hands = [hand & ~pool_mask for hand in s.hands]
    base_known = [kn & ~pool_mask for kn in s.known]
    # who knew a hidden slot's old card goes on knowing the new card in that slot
    watchers = [(o, cards_of(s.known[o] & hidden_mask)) for o in range(n) if s.known[o] & hidden_mask]

    def deal(d: EnchantersState, rng: random.Random) -> None:
        rand = rng.random
        new_of: dict[int, int] = {}
        hands = d.hands = base_hands[:]
        deck = pool_mask
        for free_cards, slots, group_spots, shown in plan:
            free = free_cards[:]
            h = len(slots)
            _shuffle(free, rand, h)
            for k, (p, old) in enumerate(slots):
                c = free[k]
                new_of[old] = c
                hands[p] |= 1 << c
                deck &= ~(1 << c)
            if group_spots:
                rest = free[h:]
                rest.extend(shown)
                _shuffle(rest, rand, len(group_spots))
                for j, i in enumerate(group_spots):
                    c = rest[j]
                    d.table[i] = c
                    deck &= ~(1 << c)
        d.deck = deck
        known = d.known = base_known[:]
        for o, olds in watchers:
            for old in olds:
                known[o] |= 1 << new_of[old]

    return deal


# --- object values ----------------------------------------------------------------------------

#: Joint rejection tries (exact: a uniform sample among the consistent ones) before the
#: constructive search (always consistent, slightly biased) takes over.
_REJECTION_TRIES = 16


def object_limits(s: EnchantersState, p: int) -> tuple[list[int], int]:
    """What seat `p`'s object values must satisfy for the game to have gone on until now (E21, E22).

    Returns, per number k of objects held (1..K), the most the first k values may add up to (the
    game would have ended at 15 points with the public points held then: `peaks`, or now), and
    the most Sorcerer's Stones (value 0) the K objects may hold (two Stones and any other Magic
    Object card would have been an Artifact).
    """
    objects = s.objects[p]
    size = len(objects)
    row = s.peaks[p]
    extra_now = s.ng[p] > 0 or s.master == p
    now = s.ng[p] + (s.hands[p] & ELEMENTAL_MASK).bit_count() + (MASTER_POINTS if s.master == p else 0)
    caps = []
    for k in range(1, size + 1):
        peak = row[k] if k < len(row) else 0
        if k == size and now > peak:
            peak = now
        caps.append(WIN_POINTS - 1 - peak)
    for k in range(size - 2, -1, -1):  # values are never negative: a later cap bounds earlier sums
        if caps[k + 1] < caps[k]:
            caps[k] = caps[k + 1]
    if size >= 3 or (size == 2 and (extra_now or s.pair_extra >> p & 1)):
        return caps, 1
    return caps, size


def _may_have_won(s: EnchantersState, p: int) -> bool:
    """Cheap filter: could any values of `p`'s objects have made a win (else `object_limits` is moot)?"""
    size = len(s.objects[p])
    if size >= 3 or (size == 2 and (s.ng[p] or s.master == p or s.pair_extra >> p & 1)):
        return True  # two Stones would be an Artifact
    now = s.ng[p] + (s.hands[p] & ELEMENTAL_MASK).bit_count() + (MASTER_POINTS if s.master == p else 0)
    row = s.peaks[p]
    return MAX_VALUE * size + max(now, max(row)) >= WIN_POINTS


def _fits(codes: list[int], caps: list[int], max_stones: int) -> bool:
    """Do these objects (codes, in the order taken) keep within `object_limits`?"""
    total = 0
    stones = 0
    for code, cap in zip(codes, caps, strict=True):
        v = code & 7
        total += v
        if total > cap:
            return False
        if v == STONE:
            stones += 1
    return stones <= max_stones


def _all_fit(objects: list[list[int]], checks: list[tuple[int, list[int], int]]) -> bool:
    """Does every checked seat's deal keep within its `object_limits` (`_fits`)?"""
    for p, caps, stones in checks:  # noqa: SIM110 (a loop, not all(generator): compiled, no generator object)
        if not _fits(objects[p], caps, stones):
            return False
    return True


def _object_dealer(s: EnchantersState, seat: int) -> _Dealer | None:
    """Deals others' object values and the piles' contents into a copy of `s` (None when no other
    seat holds an object): the values not known to `seat` are dealt anew pile by pile, and only so
    that no other seat would already have won (`object_limits`).

    First by joint rejection (uniform among the consistent deals); after `_REJECTION_TRIES` misses,
    by a randomized depth-first search that is complete, so it always ends with a consistent deal
    (the true one is one)."""
    others = [p for p in range(s.n) if p != seat and s.objects[p]]
    if not others:
        return None
    slots_by_pile: list[list[tuple[int, int]]] = [[] for _ in range(NUM_PILES)]
    for p in others:
        for i, code in enumerate(s.objects[p]):
            slots_by_pile[code >> 3].append((p, i))
    used = [q for q in range(NUM_PILES) if slots_by_pile[q]]
    pools = []
    for q in used:
        values = [s.objects[p][i] & 7 for p, i in slots_by_pile[q]]
        for v, k in enumerate(s.piles[q]):
            if k:
                values.extend([v] * k)
        pools.append((q, q * 8, slots_by_pile[q], values))
    checks = [(p, *object_limits(s, p)) for p in others if _may_have_won(s, p)]

    def deal(d: EnchantersState, rng: random.Random) -> None:
        rand = rng.random
        objects = [list(o) for o in s.objects]
        piles = s.piles[:]
        shuffled = [(q, base, slots, values[:]) for q, base, slots, values in pools]
        for _ in range(_REJECTION_TRIES):
            for _q, base, slots, values in shuffled:
                _shuffle(values, rand, len(slots))
                for k in range(len(slots)):  # by index: the pool has more values than slots
                    p, i = slots[k]
                    objects[p][i] = base + values[k]
            if _all_fit(objects, checks):
                for q, _base, slots, values in shuffled:
                    counts = [0] * (MAX_VALUE + 1)
                    for v in values[len(slots):]:
                        counts[v] += 1
                    piles[q] = tuple(counts)
                break
        else:
            _construct(s, seat, checks, objects, rng)
            for q in used:
                counts = list(s.piles[q])
                for p, i in slots_by_pile[q]:  # the true values go back, the dealt ones leave
                    counts[s.objects[p][i] & 7] += 1
                    counts[objects[p][i] & 7] -= 1
                piles[q] = tuple(counts)
        d.objects = [tuple(o) for o in objects]
        d.piles = piles
        d.recount()

    return deal


def _construct(
    s: EnchantersState, seat: int, checks: list[tuple[int, list[int], int]], objects: list[list[int]],
    rng: random.Random,
) -> None:
    """Redeal every other seat's object values by a randomized depth-first search.

    The seats in `checks` come first: each slot tries the values left in its pile in a random
    order weighted by their counts (the order a shuffled pile would give), skipping any that
    break the seat's limits. The search is complete, so it finds a consistent deal whenever one
    exists (the true one does); the other seats, which no values can make win, then get what is
    left at random. If no deal fits (only a hand-built state contradicting its own record can do
    that), the last rejected deal stays.
    """
    counts = [list(s.piles[q]) for q in range(NUM_PILES)]
    for p in range(s.n):
        if p != seat:
            for code in s.objects[p]:
                counts[code >> 3][code & 7] += 1
    slots = [
        (o, p, i, code >> 3) for o, (p, _, _) in enumerate(checks) for i, code in enumerate(s.objects[p])
    ]
    rand = rng.random
    values = [0] * len(slots)

    def search(j: int, total: int, stones: int) -> bool:
        if j == len(slots):
            return True
        o, p, i, q = slots[j]
        if i == 0:
            total = stones = 0
        _, caps, max_stones = checks[o]
        cap = caps[i]
        left = counts[q]
        order = [v for v in range(MAX_VALUE + 1) for _ in range(left[v])]
        _shuffle(order, rand)
        tried = 0
        for v in order:
            if tried >> v & 1:
                continue
            tried |= 1 << v
            if total + v > cap or (v == STONE and stones >= max_stones):
                continue
            left[v] -= 1
            values[j] = v
            if search(j + 1, total + v, stones + (v == STONE)):
                return True
            left[v] += 1
        return False

    if not search(0, 0, 0):
        return
    for (_, p, i, q), v in zip(slots, values, strict=True):
        objects[p][i] = q * 8 + v
    checked = {p for p, _, _ in checks}
    for p in range(s.n):
        if p == seat or p in checked:
            continue
        for i, code in enumerate(s.objects[p]):
            q = code >> 3
            left = counts[q]
            r = int(rand() * sum(left))
            v = 0
            while r >= left[v]:
                r -= left[v]
                v += 1
            left[v] -= 1
            objects[p][i] = q * 8 + v


_CARD = CARD_SHAPE
_CARDS = shapes.array(_CARD)
_PILE = shapes.named("EnchantersPile", shapes.names(PILE_LETTERS, "an object pile, by letter"))
_SEATED = {"seat": shapes.SEAT}

#: The JSON shape of `view` (GameInfo.view_schema). Hidden things are left out, not nulled:
#: another seat's `hand`, `points` and object values appear once the game is over.
VIEW_SCHEMA = shapes.record(
    {
        "game": shapes.game("enchanters"),
        "seat": shapes.nullable(shapes.SEAT),
        "phase": shapes.names(sorted(set(PHASE_NAMES))),
        "step": shapes.nullable(shapes.integer(1, 3)),
        "turn": shapes.nullable(shapes.SEAT),
        "to_act": shapes.SEAT_OR_CHANCE,
        "skip_step_2": shapes.BOOLEAN,
        "table": shapes.array(shapes.named("EnchantersTableSpot", shapes.record(
            {"spot": shapes.SEAT, "face": shapes.names(("down", "up"))},
            {"occupied": shapes.BOOLEAN, "card": shapes.nullable(_CARD)},
            "a table spot: face-down cards show only whether they are there, until the end",
        ))),
        "deck_size": shapes.INTEGER,
        "discard": _CARDS,
        "towers": shapes.array(_CARDS),
        # a map, not a record of six properties: openapi-python-client 0.29 names a property `d`
        # like its own local dict and then fails to decode the view
        "piles": {"type": "object", "description": "objects left in each pile, by letter",
                  "propertyNames": _PILE, "additionalProperties": {"type": "integer", "minimum": 0},
                  "minProperties": len(PILE_LETTERS), "maxProperties": len(PILE_LETTERS)},
        "new_gathering_left": shapes.INTEGER,
        "players": shapes.array(shapes.named("EnchantersPlayer", shapes.record(
            {
                "seat": shapes.SEAT,
                "hand_size": shapes.INTEGER,
                "elementals": _CARDS,
                "objects": shapes.array(shapes.named("EnchantersObject", shapes.record(
                    {"pile": _PILE}, {"value": shapes.integer(0, MAX_VALUE)},
                    "an object: its value only to its owner, until the end"))),
                "new_gathering": shapes.INTEGER,
                "proxima": shapes.BOOLEAN,
                "elemental_master": shapes.BOOLEAN,
            },
            {"hand": _CARDS, "known_cards": _CARDS, "points": shapes.INTEGER},
        ))),
        "proxima": shapes.nullable(shapes.SEAT),
        "elemental_master": shapes.nullable(shapes.SEAT),
        "last_pile": shapes.nullable(_PILE),
        "history": shapes.array(shapes.named("EnchantersEvent", shapes.one_of(
            shapes.named("EnchantersGatheringEvent", shapes.record({**_SEATED, "gathering": _PILE})),
            shapes.named("EnchantersTrickEvent", shapes.record({**_SEATED, "trick": shapes.names(TRICK_NAMES)})),
            shapes.named("EnchantersPericulumEvent", shapes.record(
                {**_SEATED, "periculum": shapes.names(("vademecum", "table"))})),
        )), "gatherings, Tricks and Periculums, in order"),
        "pending": shapes.nullable(shapes.named("EnchantersPendingDraw", shapes.one_of(
            shapes.named("EnchantersRefillDraw", shapes.record(
                {"draw": {"type": "string", "const": "refill"}, "spot": shapes.SEAT})),
            shapes.named("EnchantersVademecumDraw", shapes.record(
                {"draw": {"type": "string", "const": "vademecum"}, "left": shapes.INTEGER})),
            shapes.named("EnchantersObjectDraw", shapes.record(
                {"draw": {"type": "string", "const": "object"}, **_SEATED, "pile": _PILE})),
            shapes.named("EnchantersFirstPlayerDraw", shapes.record(
                {"draw": {"type": "string", "const": "first_player"}})),
        ))),
        "turns_completed": shapes.INTEGER,
        "reshuffles": shapes.INTEGER,
    },
    {"deck": _CARDS, "outcome": shapes.named("EnchantersOutcome", shapes.record({
        "winners": shapes.array(shapes.SEAT),
        "reason": shapes.names(REASONS[1:], "how the game ended"),
        "scores": shapes.array(shapes.INTEGER, "each seat's points"),
    }, description="once over: winners, why, every seat's points"))},
    "The Enchanters' Gathering as one seat (or a spectator) sees it",
)
