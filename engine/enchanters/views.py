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
from typing import Any

from engine.enchanters.cards import (
    ELEMENTAL_FIRST,
    ELEMENTAL_MASK,
    MAX_VALUE,
    NAMES,
    NUM_PILES,
    PERICULUM,
    PILE_LETTERS,
    TRICK_NAMES,
    cards_of,
    names_of,
)
from engine.enchanters.rules import has_artifact, next_pile, points
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

_REJECTION_TRIES = 30
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
    and other players' object values are resampled (nothing once the game is over: all is shown)."""
    d = s.clone()
    if s.phase == OVER:
        return d
    _resample_cards(s, d, seat, rng)
    _resample_objects(s, d, seat, rng)
    return d


def _shuffle(items: list[Any], rand: Any, count: int | None = None) -> None:
    """Fisher-Yates with `rng.random` (faster than `random.shuffle`); with `count`, only the
    first `count` places are drawn (a uniform random ordered sample from the whole list)."""
    size = len(items)
    for i in range(size if count is None else min(count, size - 1)):
        j = i + int(rand() * (size - i))
        items[i], items[j] = items[j], items[i]


def _resample_cards(s: EnchantersState, d: EnchantersState, seat: int, rng: random.Random) -> None:
    """Deal the cards `seat` cannot place: others' hidden hand cards, face-down table cards, the deck.

    Elementals and the Periculum are never hidden in a hand (they are shown as they come), so
    hidden hand slots get ordinary cards; the table spots get any of what is left.
    """
    rand = rng.random
    mine = s.known[seat] | ELEMENTAL_MASK
    n = s.n
    hidden = [s.hands[p] & ~mine if p != seat else 0 for p in range(n)]
    hidden_mask = 0
    for m in hidden:
        hidden_mask |= m
    spots = [i for i in range(FACE_UP_SPOT) if s.table[i] >= 0]
    table_mask = 0
    for i in spots:
        table_mask |= 1 << s.table[i]
    pool_mask = hidden_mask | table_mask | s.deck
    if not pool_mask:
        return
    free = cards_of(pool_mask & ~(ELEMENTAL_MASK | 1 << PERICULUM))
    h = hidden_mask.bit_count()
    _shuffle(free, rand, h)
    # hidden slots, in seat then card order, get free[0..h)
    new_of: dict[int, int] = {}
    hands = d.hands = [hand & ~pool_mask for hand in s.hands]
    k = 0
    for p in range(n):
        m = hidden[p]
        while m:
            low = m & -m
            m ^= low
            c = free[k]
            k += 1
            new_of[low.bit_length() - 1] = c
            hands[p] |= 1 << c
    rest = free[h:]
    rest.extend(cards_of(pool_mask & (ELEMENTAL_MASK | 1 << PERICULUM)))
    _shuffle(rest, rand, len(spots))
    deck = pool_mask
    for p in range(n):
        deck &= ~hands[p]
    for j, i in enumerate(spots):
        c = rest[j]
        d.table[i] = c
        deck &= ~(1 << c)
    d.deck = deck
    # who knew a hidden slot's old card goes on knowing the new card in that slot
    known = d.known = [kn & ~pool_mask for kn in s.known]
    for o in range(n):
        watched = s.known[o] & hidden_mask
        while watched:
            low = watched & -watched
            watched ^= low
            known[o] |= 1 << new_of[low.bit_length() - 1]


def _resample_objects(s: EnchantersState, d: EnchantersState, seat: int, rng: random.Random) -> None:
    """Others' object values and the piles' contents, shuffled together pile by pile (rejecting
    samples where another player would already have won: the game would be over)."""
    others = [p for p in range(s.n) if p != seat and s.objects[p]]
    if not others:
        return
    rand = rng.random
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
        pools.append(values)
    for _ in range(_REJECTION_TRIES):
        objects = [list(o) for o in s.objects]
        piles = s.piles[:]
        for q, values in zip(used, pools, strict=True):
            slots = slots_by_pile[q]
            _shuffle(values, rand, len(slots))
            for (p, i), v in zip(slots, values, strict=False):
                objects[p][i] = q * 8 + v
            counts = [0] * (MAX_VALUE + 1)
            for v in values[len(slots):]:
                counts[v] += 1
            piles[q] = tuple(counts)
        d.objects = [tuple(o) for o in objects]
        d.piles = piles
        d.recount()
        if not any(has_artifact(d, p) or points(d, p) >= 15 for p in others):
            return
