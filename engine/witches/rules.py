"""The rules W4–W14 as fast functions over `WitchesState`: transitions, legality, scoring.

`step` is the unchecked in-place transition; `check_move` names the rule a move
breaks. Both dispatch on the state's phase, most frequent first.
"""

from __future__ import annotations

from typing import Any

from engine.errors import IllegalMove
from engine.witches.cards import (
    BIT,
    COLOUR,
    KEYS,
    NAMES,
    NUM_CARDS,
    SCORE18,
    TRUMP_BONUS,
    cards_of,
    score_of,
)
from engine.witches.moves import (
    DEALS,
    DRAWS,
    FIRSTS,
    KEEP,
    PLAY_CHUNKS,
    REVEALS,
    TRUMP_CHUNKS,
    Deal,
    Draw,
    First,
    Keep,
    Play,
    Reveal,
    Trump,
    moves_of,
)
from engine.witches.state import DEAL, DECIDE, DRAW, FIRST, OVER, PLAY, REVEAL, WitchesState

CHANCE_PHASES = (DEAL, REVEAL, FIRST, DRAW)


# --- transitions --------------------------------------------------------------


def step(s: WitchesState, move: Any) -> None:
    """Apply `move` in place, unchecked (the search's hot path)."""
    phase = s.phase
    if phase == PLAY:  # W7
        card = move.card
        turn = s.turn
        s.hands[turn] ^= BIT[card]
        trick = s.trick + (card,)
        if len(trick) < s.n:
            s.trick = trick
            s.turn = turn + 1 if turn + 1 < s.n else 0
        else:
            _finish_trick(s, trick)
    elif phase == DECIDE:  # W11
        if move.type == "trump":
            card = move.card
            s.captured[s.turn] ^= BIT[card]
            s.discard |= BIT[s.trump]
            s.trump = card
        s.won = 0
        if s.pile.bit_count() >= s.n:  # W12
            s.phase = DRAW
            s.pending = s.n
        else:
            s.phase = PLAY
    elif phase == DRAW:  # W12: the winner first, then clockwise
        bit = BIT[move.card]
        turn = s.turn
        s.hands[turn] |= bit
        s.pile ^= bit
        s.pending -= 1
        if s.pending:
            s.turn = turn + 1 if turn + 1 < s.n else 0
        else:
            s.phase = PLAY
            s.turn = s.leader
    elif phase == DEAL:  # W4
        bit = BIT[move.card]
        turn = s.turn
        s.hands[turn] |= bit
        s.pile ^= bit
        s.pending -= 1
        s.turn = turn + 1 if turn + 1 < s.n else 0
        if not s.pending:
            s.phase = REVEAL
    elif phase == REVEAL:  # W5
        s.pile ^= BIT[move.card]
        s.trump = move.card
        s.phase = FIRST
    elif phase == FIRST:  # W6
        s.turn = s.leader = move.seat
        s.phase = PLAY
    else:
        raise IllegalMove("game_over", "the game is over", move)


def _finish_trick(s: WitchesState, trick: tuple[int, ...]) -> None:
    """W8–W10, W13: decide the winner, capture, and move on to the trump decision or the end."""
    keys = KEYS[s.increasing][s.trump]
    led = COLOUR[trick[0]]
    best = -1
    index = 0
    mask = 0
    for i, card in enumerate(trick):
        mask |= BIT[card]
        key = keys[card]
        if key > best and (key >= TRUMP_BONUS or COLOUR[card] == led):
            best = key
            index = i
    leader = s.leader
    winner = (leader + index) % s.n
    own = BIT[trick[index]]
    won = mask ^ own
    s.captured[winner] |= won  # W10
    s.discard |= own
    s.tricks = s.tricks + ((leader, trick, winner),)
    s.trick = ()
    s.leader = s.turn = winner  # W9
    if s.hands[winner]:  # after a trick every hand has the same size
        s.phase = DECIDE
        s.won = won
    else:  # W13: the last trick; no trump decision
        s.phase = OVER
        s.won = 0


# --- moves and chance -----------------------------------------------------------


def legal_moves(s: WitchesState) -> list[Any]:
    """The moves of the seat to act; empty at chance nodes and at the end."""
    phase = s.phase
    if phase == PLAY:
        return moves_of(s.hands[s.turn], PLAY_CHUNKS, [])
    if phase == DECIDE:
        return moves_of(s.won, TRUMP_CHUNKS, [KEEP])
    return []


def chance_outcomes(s: WitchesState) -> list[tuple[Any, float]]:
    """Every chance outcome with its probability: a uniform card from the pile, or a seat."""
    phase = s.phase
    if phase == FIRST:
        p = 1.0 / s.n
        return [(FIRSTS[seat], p) for seat in range(s.n)]
    table = {DEAL: DEALS, REVEAL: REVEALS, DRAW: DRAWS}.get(phase)
    if table is None:
        return []
    cards = cards_of(s.pile)
    p = 1.0 / len(cards)
    return [(table[c], p) for c in cards]


def sample_chance(s: WitchesState, random: Any) -> Any:
    """One chance outcome, uniformly (`random` is a `random.Random`)."""
    phase = s.phase
    if phase == FIRST:
        return FIRSTS[int(random.random() * s.n)]
    cards = cards_of(s.pile)
    card = cards[int(random.random() * len(cards))]
    if phase == DRAW:
        return DRAWS[card]
    if phase == DEAL:
        return DEALS[card]
    if phase == REVEAL:
        return REVEALS[card]
    raise IllegalMove("chance", "chance does not act now")


_CHANCE_TYPES = {DEAL: Deal, REVEAL: Reveal, FIRST: First, DRAW: Draw}
_CHANCE_MOVES = (Deal, Reveal, First, Draw)
_CARD_RANGE = range(NUM_CARDS)


def _describe(move: Any) -> str:
    """repr of a move, safe for hand-made moves holding no valid card."""
    card = getattr(move, "card", None)
    if isinstance(card, int) and card in _CARD_RANGE:
        return repr(move)
    return f"{type(move).__name__} with card {card!r}"


def check_move(s: WitchesState, move: Any) -> None:
    """Raise IllegalMove naming the broken rule unless `move` is legal now."""
    phase = s.phase
    if phase == OVER:
        if isinstance(move, (Trump, Keep)):
            raise IllegalMove("W13", "there is no trump decision after the last trick", move)
        raise IllegalMove("game_over", "the game is over", move)
    if phase in CHANCE_PHASES:
        expected = _CHANCE_TYPES[phase]
        if not isinstance(move, expected):
            raise IllegalMove("chance", f"chance acts now ({expected.__name__}), not a player", move)
        if isinstance(move, First):
            if not 0 <= move.seat < s.n:
                raise IllegalMove("chance", f"no seat {move.seat} in a {s.n}-player game", move)
        elif move.card not in _CARD_RANGE or not s.pile & BIT[move.card]:
            raise IllegalMove("chance", f"{_describe(move)} is not a card of the pile", move)
        return
    if isinstance(move, _CHANCE_MOVES):
        raise IllegalMove("chance", f"{move!r} is a chance outcome, not a player's move", move)
    if phase == PLAY:
        if isinstance(move, (Trump, Keep)):
            raise IllegalMove("W11", "a trump decision is only made by a trick's winner, right after it", move)
        if not isinstance(move, Play) or move.card not in _CARD_RANGE:
            raise IllegalMove("W7", f"{_describe(move)} is not a card play", move)
        if not s.hands[s.turn] & BIT[move.card]:
            raise IllegalMove("W7", f"{NAMES[move.card]} is not in seat {s.turn}'s hand", move)
        return
    # DECIDE
    if isinstance(move, Keep):
        return
    if not isinstance(move, Trump) or move.card not in _CARD_RANGE:
        raise IllegalMove("W11", f"seat {s.turn} must first keep the trump or give up a captured card", move)
    if not s.won & BIT[move.card]:
        raise IllegalMove("W11", f"{NAMES[move.card]} was not captured in the trick just won", move)


# --- scoring --------------------------------------------------------------------


def scores(s: WitchesState) -> list[int]:
    """Magic Points of each seat: the values of the witches it captured (W14)."""
    return [score_of(mask) for mask in s.captured]


def winners(s: WitchesState) -> list[int]:
    """Most points; ties broken by more captured cards; still tied, all win (W14)."""
    keys = [(score_of(mask), mask.bit_count()) for mask in s.captured]
    best = max(keys)
    return [seat for seat, key in enumerate(keys) if key == best]


WIN_WEIGHT = 0.9  # returns: 0.9 for a win (shared ties too) + 0.1 × the seat's share of all points


def returns(s: WitchesState) -> tuple[float, ...]:
    """Search rewards in [0, 1]: 0.9·win + 0.1·(own points / all points)."""
    table = SCORE18
    points = []
    total = 0
    for mask in s.captured:
        p = table[mask & 0x3FFFF] + table[mask >> 18 & 0x3FFFF] + table[mask >> 36]
        points.append(p)
        total += p
    best = max(points)
    share = (1.0 - WIN_WEIGHT) / (total or 1)
    if points.count(best) == 1:
        return tuple([WIN_WEIGHT + p * share if p == best else p * share for p in points])
    # W14: tied on points, more captured cards wins; still tied, all win
    cards = [mask.bit_count() if p == best else -1 for p, mask in zip(points, s.captured, strict=True)]
    most = max(cards)
    return tuple([
        WIN_WEIGHT + p * share if c == most else p * share
        for p, c in zip(points, cards, strict=True)
    ])
