"""The rules E6–E23 as transitions on `EnchantersState`: legal moves, checks and the unchecked step.

`step` applies one move in place, then checks the end of the game (E21–E23)
wherever points or piles changed, then runs the automatic steps (skipped
step 2, refills, reshuffles, the next turn) until a player or chance must act.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import CHANCE, TERMINAL, Outcome, Termination, ranks_for
from engine.enchanters.cards import (
    CHAOS,
    ELEMENTAL_FIRST,
    ELEMENTAL_MASK,
    EXODUS,
    GATHERABLE_MASK,
    HAND_LIMIT,
    IDEM,
    MASTER_POINTS,
    MAX_VALUE,
    NAMES,
    NUM_CARDS,
    NUM_PILES,
    PERICULUM,
    PERICULUM_BIT,
    PROXIMA,
    STONE,
    TRICK_FIRST,
    TRICK_MASK,
    VADEMECUM,
    WIN_POINTS,
    cards_of,
    is_air,
)
from engine.enchanters.moves import (
    DISCARDS,
    DRAWS,
    FIRSTS,
    NUM_TOWERS,
    PASS,
    TAKES,
    Discard,
    Draw,
    DrawObject,
    EnchantersMove,
    First,
    Gather,
    Pass,
    PlayTrick,
    Take,
)
from engine.enchanters.sets import Declaration, effective_chars, gatherings, pattern_of
from engine.enchanters.state import (
    ACT,
    DISCARD,
    EV_GATHERING,
    EV_PERICULUM,
    EV_TRICK,
    FACE_UP_SPOT,
    FIFTEEN_POINTS,
    FIRST,
    OBJECT,
    OVER,
    PILES_EMPTY,
    PLAIN,
    PROXIMA_PAYOUT,
    REASONS,
    REFILL,
    SPECIAL_VICTORY,
    STALEMATE,
    TAKE1,
    TAKE2,
    VADEMECUM_DRAW,
    WITH_NEW_GATHERING,
    EnchantersState,
)
from engine.errors import IllegalMove

_VADEMECUM_BIT = 1 << VADEMECUM
_EMPTY_PILE = (0,) * (MAX_VALUE + 1)
_PROXIMA_BIT = 1 << PROXIMA
_STEP_RULE = {TAKE1: "E9", TAKE2: "E9", ACT: "E10", DISCARD: "E11"}
_STEP_TEXT = {
    TAKE1: "take two table cards first (step 1)",
    TAKE2: "take your second table card first (step 1)",
    ACT: "it is step 2: gather, play a Trick or pass",
    DISCARD: "it is step 3: discard down to five cards",
}


# --- who acts ----------------------------------------------------------------------


def current_player(s: EnchantersState) -> int:
    """The seat to act, CHANCE or TERMINAL."""
    phase = s.phase  # chance phases < TAKE1 <= player phases < OVER
    if phase < TAKE1:
        return CHANCE
    return TERMINAL if phase == OVER else s.turn


# --- points and end checks (E19–E23) ------------------------------------------------


def points(s: EnchantersState, seat: int) -> int:
    """Spell Points: objects (with New-gathering cards), Elementals in hand, the master (E19, E20)."""
    return (
        s.obj_points[seat]
        + (s.hands[seat] & ELEMENTAL_MASK).bit_count()
        + (MASTER_POINTS if s.master == seat else 0)
    )


def has_artifact(s: EnchantersState, seat: int) -> bool:
    """E22: two Sorcerer's Stones and any other Magic Object card (a Stone, A-G, New-gathering, the master)."""
    return s.stones[seat] >= 2 and len(s.objects[seat]) + s.ng[seat] + (s.master == seat) >= 3


def next_pile(s: EnchantersState, pile: int) -> int:
    """The pile that pays for `pile`: itself, else the next non-empty in A..G, A order (E7); -1 if none."""
    piles = s.piles
    for k in range(NUM_PILES):
        q = (pile + k) % NUM_PILES
        if piles[q] != _EMPTY_PILE:
            return q
    return -1


def update_master(s: EnchantersState) -> None:
    """E20: the master goes to whoever holds three or more Elementals (at most one can), else back."""
    for seat in range(s.n):
        if (s.hands[seat] & ELEMENTAL_MASK).bit_count() >= 3:
            s.master = seat
            return
    s.master = -1


def check_end(s: EnchantersState, changed: int = -1) -> None:
    """E21/E22 (any player at 15 or with an Artifact wins; the player to act, else clockwise), E23.

    `changed` is the one seat whose points may have grown (-1: any seat), for `record_peaks`.
    """
    n = s.n
    start = s.turn if s.turn >= 0 else 0
    for k in range(n):
        seat = (start + k) % n
        special = has_artifact(s, seat)
        if special or points(s, seat) >= WIN_POINTS:
            s.winners = (seat,)
            s.reason = SPECIAL_VICTORY if special else FIFTEEN_POINTS
            s.phase = OVER
            return
    for pile in s.piles:
        if pile != _EMPTY_PILE:
            record_peaks(s, changed)
            return
    end_on_points(s, PILES_EMPTY)


def record_peaks(s: EnchantersState, changed: int = -1) -> None:
    """The game goes on: note the public points (and E22 extras) held with the objects so far.

    No win here means no hidden object values that would have made one (views.determinize).
    Only `changed` (-1: every seat) may hold more than at its last record.
    """
    hands, objects, ng, peaks, master = s.hands, s.objects, s.ng, s.peaks, s.master
    for seat in range(s.n) if changed < 0 else (changed,):
        k = len(objects[seat])
        public = ng[seat] + (hands[seat] & ELEMENTAL_MASK).bit_count() + (MASTER_POINTS if master == seat else 0)
        row = peaks[seat]
        if len(row) <= k:
            row += (0,) * (k + 1 - len(row))
            peaks[seat] = row
        if row[k] < public:
            peaks[seat] = row[:k] + (public,) + row[k + 1:]
        if k == 2 and (ng[seat] or master == seat):
            s.pair_extra |= 1 << seat


def reshuffle(s: EnchantersState, cards: int) -> None:
    """E12: the (public) discard cards `cards` become the new deck; older groups give them up."""
    s.deck = cards
    s.reshuffles += 1
    s.reshuffled = tuple(m & ~cards for m in s.reshuffled if m & ~cards) + (cards,)


def end_on_points(s: EnchantersState, reason: int) -> None:
    """E23 (and the stalemate): the most Spell Points win, ties win together."""
    totals = [points(s, seat) for seat in range(s.n)]
    best = max(totals)
    s.winners = tuple(seat for seat in range(s.n) if totals[seat] == best)
    s.reason = reason
    s.phase = OVER


# --- transitions -------------------------------------------------------------------


def step(s: EnchantersState, move: EnchantersMove) -> None:
    """Apply a legal move in place (unchecked), then run the automatic steps."""
    kind = move[-1]
    fields: Any = move  # fields by position: a named field is a descriptor call, step runs in every search
    if kind == "draw":
        _draw(s, fields[0])
    elif kind == "take":
        _take(s, fields[0])
    elif kind == "object":
        _object(s, fields[1])
    elif kind == "discard":
        _discard(s, fields[0])
    elif kind == "gather":
        _gather(s, fields[0], fields[1], fields[2])
    elif kind == "trick":
        _trick(s, fields[0], fields[1])
    elif kind == "pass":
        s.phase = DISCARD
    else:  # first
        s.turn = fields[0]
        s.phase = TAKE1
    if s.phase != OVER:
        advance(s)


def _into_hand(s: EnchantersState, seat: int, card: int, public: bool) -> None:
    """A card comes into a hand; Elementals are shown as they come (they score from the hand)."""
    bit = 1 << card
    s.hands[seat] |= bit
    known = s.known
    if public or card >= ELEMENTAL_FIRST:
        for o in range(s.n):
            known[o] |= bit
    else:
        for o in range(s.n):
            known[o] &= ~bit
        known[seat] |= bit
    if card >= ELEMENTAL_FIRST:
        update_master(s)
        check_end(s, seat)


def _take(s: EnchantersState, spot: int) -> None:
    """E9: a table card into the hand; a Periculum is shown and discarded, step 2 is lost (E18)."""
    card = s.table[spot]
    s.table[spot] = -1
    s.phase = TAKE2 if s.phase == TAKE1 else ACT
    if card == PERICULUM:
        s.discard |= PERICULUM_BIT
        s.skip_act = True
        s.history += (EV_PERICULUM * 64 + s.turn * 8,)
    else:
        _into_hand(s, s.turn, card, spot == FACE_UP_SPOT)


def _draw(s: EnchantersState, card: int) -> None:
    """A card from the deck: onto the table (E12) or into the hand (Vademecum, E17)."""
    bit = 1 << card
    s.deck &= ~bit
    if s.phase == REFILL:
        low = s.refill & -s.refill
        spot = low.bit_length() - 1
        if spot == FACE_UP_SPOT and card == PERICULUM:
            s.discard |= bit  # E18: discarded at once, the spot is refilled
        else:
            s.table[spot] = card
            s.refill ^= low
        return
    s.vade_left -= 1
    if card == PERICULUM:
        s.discard |= bit
        s.vade_left = 0  # E18: the remaining draws are cancelled; the turn goes on with step 3
        s.history += (EV_PERICULUM * 64 + s.turn * 8 + 1,)
    if s.vade_left == 0:
        s.phase = DISCARD
    if card != PERICULUM:
        _into_hand(s, s.turn, card, False)


def _object(s: EnchantersState, value: int) -> None:
    """E7: the top object of the paying pile goes to the head of the payout queue."""
    seat, wanted, kind = s.queue[0]
    pile = next_pile(s, wanted)
    counts = list(s.piles[pile])
    counts[value] -= 1
    s.piles[pile] = tuple(counts)
    s.objects[seat] += (pile * 8 + value,)
    s.obj_points[seat] += value
    if value == STONE:
        s.stones[seat] += 1
    _finish_payout(s, seat, kind)
    check_end(s, seat)


def _finish_payout(s: EnchantersState, seat: int, kind: int) -> None:
    if kind == WITH_NEW_GATHERING and s.ng_left > 0:
        s.ng_left -= 1
        s.ng[seat] += 1
        s.obj_points[seat] += 1
    elif kind == PROXIMA_PAYOUT:
        s.discard |= _PROXIMA_BIT
        s.proxima = -1
    s.queue = s.queue[1:]
    if not s.queue:
        s.phase = DISCARD


def gathering_pattern(cards: tuple[int, ...], air: tuple[tuple[int, int, int], ...]) -> int:
    """The pattern of three cards with their Air declarations, -1 if they do not gather."""
    known = _PATTERNS.get((cards, air))  # a gathering `legal_moves` listed: its pattern is known
    return declared_pattern(cards, air) if known is None else known


def declared_pattern(cards: tuple[int, ...], air: tuple[tuple[int, int, int], ...]) -> int:
    """`gathering_pattern` worked out from the cards' characteristics (E1, E4, E5)."""
    x = effective_chars(cards[0], air)
    y = effective_chars(cards[1], air)
    z = effective_chars(cards[2], air)
    if x is None or y is None or z is None:
        return -1
    return pattern_of(x, y, z)


def _gather(
    s: EnchantersState, cards: tuple[int, ...], tower: int, air: tuple[Declaration, ...], pattern: int = -1
) -> None:
    """E6/E7: the cards leave hand and Towers, fill the chosen Tower, and the payouts queue up.

    `pattern` may be given by a caller that already knows it (the playout policy).
    """
    seat = s.turn
    s.busy = True
    if pattern < 0:
        pattern = gathering_pattern(cards, air)
    towers = s.towers
    mask = 0
    all_from_hand = True
    for c in cards:
        bit = 1 << c
        mask |= bit
        if s.hands[seat] & bit:
            s.hands[seat] ^= bit
        else:
            all_from_hand = False
            for t in range(NUM_TOWERS):
                towers[t] &= ~bit
    s.discard |= towers[tower]
    towers[tower] = mask
    paying = next_pile(s, pattern)
    s.last_pile = paying
    queue: tuple[tuple[int, int, int], ...] = ((seat, pattern, WITH_NEW_GATHERING if all_from_hand else PLAIN),)
    if s.proxima >= 0 and s.proxima != seat:
        queue += ((s.proxima, paying, PROXIMA_PAYOUT),)
    s.queue = queue
    s.history += (EV_GATHERING * 64 + seat * 8 + pattern,)
    s.phase = OBJECT


def _trick(s: EnchantersState, trick: int, tower: int) -> None:
    """E13–E17: the Trick leaves the hand, acts, and goes to the discard pile (Proxima stays out)."""
    seat = s.turn
    s.busy = True
    bit = 1 << trick
    s.hands[seat] ^= bit
    s.history += (EV_TRICK * 64 + seat * 8 + trick - TRICK_FIRST,)
    s.phase = DISCARD
    if trick == PROXIMA:
        s.proxima = seat
        return
    s.discard |= bit
    if trick == IDEM:
        if s.last_pile >= 0:
            s.queue = ((seat, s.last_pile, PLAIN),)
            s.phase = OBJECT
    elif trick == EXODUS:
        s.discard |= s.towers[tower]
        s.towers[tower] = 0
    elif trick == CHAOS:
        old = s.hands
        n = s.n
        s.hands = [old[(q - 1) % n] for q in range(n)]
        for q in range(n):
            s.known[q] |= old[q]  # each player knows where their old hand went
        update_master(s)
        check_end(s)
    else:  # Vademecum: it is on the discard pile but not reshuffled while it acts
        s.vade_left = 3
        s.phase = VADEMECUM_DRAW


def _discard(s: EnchantersState, card: int) -> None:
    """E11: one card from the hand to the discard pile."""
    bit = 1 << card
    s.hands[s.turn] ^= bit
    s.discard |= bit
    if card >= ELEMENTAL_FIRST:
        update_master(s)


def advance(s: EnchantersState) -> None:
    """Run the automatic steps until a player or chance must act."""
    while True:
        phase = s.phase
        if phase == ACT:
            if not s.skip_act:
                return
            s.phase = DISCARD
        elif phase == DISCARD:
            if s.hands[s.turn].bit_count() > HAND_LIMIT:
                return
            s.phase = REFILL
            table = s.table
            s.refill = (table[0] < 0) | (table[1] < 0) << 1 | (table[2] < 0) << 2 | (table[3] < 0) << 3
        elif phase == REFILL:
            if not s.refill:
                if s.turn < 0:
                    s.phase = FIRST
                    return
                s.turns += 1
                s.idle = 0 if s.busy or s.deck else s.idle + 1
                s.busy = False
                if s.idle >= 2 * s.n:  # two rounds stuck: no step 2 and nothing left to draw
                    end_on_points(s, STALEMATE)
                    return
                s.turn = (s.turn + 1) % s.n
                s.skip_act = False
                s.phase = TAKE1
                continue
            if s.deck:
                return
            low = s.refill & -s.refill
            if s.discard & ~PERICULUM_BIT == 0:
                # E12: deck and discard pile empty (a lone Periculum is not reshuffled): stays empty
                s.refill ^= low
                continue
            reshuffle(s, s.discard)
            s.discard = 0
            return
        elif phase in (TAKE1, TAKE2):
            table = s.table
            if table[0] >= 0 or table[1] >= 0 or table[2] >= 0 or table[3] >= 0:
                return
            s.phase = ACT
        elif phase == VADEMECUM_DRAW:
            if s.vade_left == 0:
                s.phase = DISCARD
                continue
            if s.deck:
                return
            rest = s.discard & ~_VADEMECUM_BIT
            if not rest & ~PERICULUM_BIT:
                # E12: an empty discard pile (or the lone Periculum, which stays there): no more draws
                s.vade_left = 0
                continue
            reshuffle(s, rest)
            s.discard &= _VADEMECUM_BIT
            return
        elif phase == OBJECT:
            if not s.queue:
                s.phase = DISCARD
                continue
            seat, pile, kind = s.queue[0]
            if next_pile(s, pile) >= 0:
                return
            _finish_payout(s, seat, kind)  # nothing left to pay
        else:  # FIRST, OVER
            return


# --- moves and chance ----------------------------------------------------------------


def legal_moves(s: EnchantersState) -> list[EnchantersMove]:
    """The moves of the player to act (empty at chance and at the end)."""
    phase = s.phase
    if phase in (TAKE1, TAKE2):
        return [TAKES[i] for i in range(4) if s.table[i] >= 0]
    if phase == DISCARD:
        return [DISCARDS[c] for c in cards_of(s.hands[s.turn])]
    if phase != ACT:
        return []
    hand = s.hands[s.turn] & (GATHERABLE_MASK | TRICK_MASK)
    towers = s.towers
    t0, t1, t2 = towers
    key = (hand, t0, t1, t2)
    listed = _ACTS.get(key)
    if listed is not None:
        return listed[:]
    moves = _act_moves(hand, towers)
    if len(_ACTS) >= _ACTS_KEPT:
        _ACTS.clear()
    _ACTS[key] = moves
    return moves[:]


#: The moves of an ACT turn by (hand's gatherable and trick cards, Towers): a search lists the
#: same hands and Towers on every visit of a node (at most `_ACTS_KEPT` kept, then forgotten)
_ACTS: dict[tuple[int, int, int, int], list[EnchantersMove]] = {}
_ACTS_KEPT = 20_000


def _act_moves(hand: int, towers: list[int]) -> list[EnchantersMove]:
    """Every gathering of `hand`'s cards with the Towers' into each Tower, each trick, pass (E6, E10–E18)."""
    t0, t1, t2 = towers
    moves: list[EnchantersMove] = []
    for cards, decl, pattern in gatherings(hand & GATHERABLE_MASK, t0 | t1 | t2):
        key = (cards, decl)
        into = _GATHERS.get(key)
        if into is None:
            into = _GATHERS[key] = (Gather(cards, 0, decl), Gather(cards, 1, decl), Gather(cards, 2, decl))
            _PATTERNS[key] = pattern
        # Towers left empty by the gathering are equivalent: only the first of them is offered
        used = (1 << cards[0]) | (1 << cards[1]) | (1 << cards[2])
        empty_offered = False
        for t, tower in enumerate(towers):
            if tower & ~used:
                moves.append(into[t])
            elif not empty_offered:
                moves.append(into[t])
                empty_offered = True
    for trick in cards_of(hand & TRICK_MASK):
        if trick == EXODUS:
            moves.extend(PlayTrick(EXODUS, t) for t in range(NUM_TOWERS) if towers[t])
        else:
            moves.append(PlayTrick(trick))
    moves.append(PASS)
    return moves


#: Gather moves by (cards, declarations), into Towers 0-2: made once (legal_moves runs in every search)
_GATHERS: dict[tuple[tuple[int, int, int], tuple[Declaration, ...]], tuple[Gather, Gather, Gather]] = {}
#: The pattern of each gathering in `_GATHERS` (a gathering's step then need not work it out again)
_PATTERNS: dict[tuple[tuple[int, ...], tuple[Declaration, ...]], int] = {}


def chance_outcomes(s: EnchantersState) -> list[tuple[EnchantersMove, float]]:
    """Every chance outcome with its probability."""
    phase = s.phase
    if phase in (REFILL, VADEMECUM_DRAW):
        cards = cards_of(s.deck)
        p = 1.0 / len(cards)
        return [(DRAWS[c], p) for c in cards]
    if phase == FIRST:
        return [(FIRSTS[i], 1.0 / s.n) for i in range(s.n)]
    if phase == OBJECT:
        pile = next_pile(s, s.queue[0][1])
        counts = s.piles[pile]
        total = sum(counts)
        return [(DrawObject(pile, v), k / total) for v, k in enumerate(counts) if k]
    return []


def sample_chance(s: EnchantersState, rng: random.Random) -> EnchantersMove:
    """One chance outcome, drawn with its probability (without listing them all)."""
    phase = s.phase
    if phase in (REFILL, VADEMECUM_DRAW):
        return DRAWS[_random_card(s.deck, rng)]
    if phase == FIRST:
        return FIRSTS[rng.randrange(s.n)]
    pile = next_pile(s, s.queue[0][1])
    counts = s.piles[pile]
    r = rng.randrange(sum(counts))
    for v, k in enumerate(counts):
        if r < k:
            return DrawObject(pile, v)
        r -= k
    raise AssertionError("unreachable")


def _random_card(mask: int, rng: random.Random) -> int:
    r = rng.randrange(mask.bit_count())
    for _ in range(r):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def check_move(s: EnchantersState, move: EnchantersMove) -> None:
    """Raise IllegalMove naming the rule unless `move` is legal now."""
    phase = s.phase
    if phase == OVER:
        raise IllegalMove("game_over", "the game is over", move)
    kind = _kind_of(move)
    if kind is None:
        raise IllegalMove("illegal", f"{move!r} is not a well-formed move of this game", move)
    if phase < TAKE1:
        _check_chance(s, move)
        return
    if isinstance(move, (Draw, DrawObject, First)):
        raise IllegalMove("chance", f"{move!r} is a chance outcome, not a player's move", move)
    rule = _STEP_RULE[phase]
    if isinstance(move, Take):
        if phase not in (TAKE1, TAKE2):
            raise IllegalMove("E9", f"two table cards a turn, no more: {_STEP_TEXT[phase]}", move)
        if not 0 <= move.spot < 4 or s.table[move.spot] < 0:
            raise IllegalMove("E9", f"table spot {move.spot} is empty", move)
    elif isinstance(move, (Gather, PlayTrick, Pass)):
        if phase != ACT:
            if s.skip_act and phase == DISCARD:
                raise IllegalMove("E18", "a Periculum came in step 1: step 2 is skipped", move)
            raise IllegalMove(rule, _STEP_TEXT[phase], move)
        if isinstance(move, Gather):
            _check_gather(s, move)
        elif isinstance(move, PlayTrick):
            _check_trick(s, move)
    else:  # Discard
        if phase != DISCARD:
            raise IllegalMove(rule, _STEP_TEXT[phase], move)
        if not s.hands[s.turn] >> move.card & 1:
            raise IllegalMove("E11", f"{NAMES[move.card]} is not in your hand", move)


_CLASSES: dict[str, type[EnchantersMove]] = {
    "take": Take, "gather": Gather, "trick": PlayTrick, "pass": Pass,
    "discard": Discard, "draw": Draw, "object": DrawObject, "first": First,
}


def _kind_of(move: object) -> str | None:
    """The `type` of a well-formed move of this game, else None.

    Hand-made moves reach `check_move` too: past this test every field has the right type, and
    every card a mask is shifted by is a card; the rule checks name what else is out of range.
    """
    if not isinstance(move, tuple) or not move:
        return None
    kind = move[-1]
    if not isinstance(kind, str) or type(move) is not _CLASSES.get(kind):
        return None
    if isinstance(move, (Take, Discard, Draw, First)):
        return kind if _is_small(move[0], NUM_CARDS) else None
    if isinstance(move, DrawObject):
        return kind if _is_small(move.pile, NUM_PILES) and _is_small(move.value, 6) else None
    if isinstance(move, PlayTrick):
        return kind if _is_small(move.trick, NUM_CARDS) and type(move.tower) is int else None
    if isinstance(move, Gather):
        cards, air = move.cards, move.air
        well_formed = (
            isinstance(cards, tuple) and len(cards) == 3 and all(type(c) is int for c in cards)
            and type(move.tower) is int
            and isinstance(air, tuple)
            and all(
                isinstance(d, tuple) and len(d) == 3 and _is_small(d[0], NUM_CARDS)
                and _is_small(d[1], 3) and _is_small(d[2], 3)
                for d in air
            )
        )
        return kind if well_formed else None
    return kind  # Pass


def _is_small(value: object, limit: int) -> bool:
    """Whether `value` is an int in 0..limit-1 (a bool is not)."""
    return type(value) is int and 0 <= value < limit


def _check_chance(s: EnchantersState, move: EnchantersMove) -> None:
    phase = s.phase
    if phase in (REFILL, VADEMECUM_DRAW):
        ok = isinstance(move, Draw) and bool(s.deck >> move.card & 1)
    elif phase == FIRST:
        ok = isinstance(move, First) and 0 <= move.seat < s.n
    else:
        pile = next_pile(s, s.queue[0][1])
        ok = isinstance(move, DrawObject) and move.pile == pile and s.piles[pile][move.value] > 0
    if not ok:
        raise IllegalMove("chance", f"{move!r} is not a possible chance outcome now", move)


def _check_gather(s: EnchantersState, move: Gather) -> None:
    cards, tower, air = move.cards, move.tower, move.air
    if len(cards) != 3 or len(set(cards)) != 3:
        raise IllegalMove("E4", "a gathering is three different Enchanters", move)
    for c in cards:
        if not (0 <= c < 40 and GATHERABLE_MASK >> c & 1):
            raise IllegalMove("E4", f"{NAMES[c] if 0 <= c < 40 else c} is not an Enchanter", move)
    if not 0 <= tower < NUM_TOWERS:
        raise IllegalMove("E6", f"there is no Tower {tower}", move)
    hand = s.hands[s.turn]
    in_towers = s.towers[0] | s.towers[1] | s.towers[2]
    for c in cards:
        if not (hand | in_towers) >> c & 1:
            raise IllegalMove("E6", f"{NAMES[c]} is neither in your hand nor in a Tower", move)
    if not any(hand >> c & 1 for c in cards):
        raise IllegalMove("E6", "at least one card of a gathering comes from your hand", move)
    airs = sorted(c for c in cards if is_air(c))
    declared = sorted(d[0] for d in air)
    if airs != declared:
        raise IllegalMove(
            "E1", "declare the school and element of each Air Enchanter in the gathering, and only those", move
        )
    if gathering_pattern(cards, air) < 0:
        names = ", ".join(NAMES[c] for c in cards)
        raise IllegalMove(
            "E4", f"{names} do not gather: each characteristic must be all the same or all different", move
        )


def _check_trick(s: EnchantersState, move: PlayTrick) -> None:
    trick = move.trick
    if not (isinstance(trick, int) and TRICK_MASK >> trick & 1):
        raise IllegalMove("E10", f"{trick!r} is not a Trick", move)
    if trick == PERICULUM:
        raise IllegalMove("E18", "Periculum is never played: it acts as soon as it is drawn", move)
    if not s.hands[s.turn] >> trick & 1:
        raise IllegalMove("E10", f"{NAMES[trick]} is not in your hand", move)
    if trick == EXODUS:
        if not 0 <= move.tower < NUM_TOWERS:
            raise IllegalMove("E15", "Exodus names one of the three Towers", move)
        if not s.towers[move.tower]:
            raise IllegalMove("E15", f"Tower {move.tower} is empty", move)
    elif move.tower != -1:
        raise IllegalMove("E10", f"only Exodus names a Tower, not {NAMES[trick]}", move)


# --- the end -------------------------------------------------------------------------

#: A loser's return: this share of their points out of 15 (winners get 1).
LOSER_POINTS_SHARE = 0.1


def outcome(s: EnchantersState) -> Outcome | None:
    """Spell Points, the winners (E21–E23) and ranks (winners first, then by points) once over."""
    if s.phase != OVER:
        return None
    scores = tuple(float(points(s, p)) for p in range(s.n))
    keys = [(p in s.winners, scores[p]) for p in range(s.n)]
    return Outcome(
        scores=scores,
        winners=s.winners,
        reason=Termination(REASONS[s.reason]),
        ranks=ranks_for(keys),
    )


def returns(s: EnchantersState) -> tuple[float, ...]:
    """1 for a winner; a loser gets LOSER_POINTS_SHARE x points / 15 (below 0.1)."""
    winners = s.winners
    out = []
    for p in range(s.n):  # a loop, not a generator: compiled, it runs without one
        out.append(1.0 if p in winners else LOSER_POINTS_SHARE * min(points(s, p), 14) / 15)
    return tuple(out)
