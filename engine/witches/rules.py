"""The rules W4–W14 as fast functions over `WitchesState`: transitions, legality, scoring.

`step` is the unchecked in-place transition; `check_move` names the rule a move
breaks. Both dispatch on the state's phase, most frequent first.
"""

from __future__ import annotations

import random
from typing import Any, cast

import cython

from engine.core import CHANCE, TERMINAL, Outcome, Termination, ranks_for
from engine.errors import IllegalMove
from engine.witches.cards import (
    BIT,
    CHUNK_SCORE,
    COLOUR,
    LED_KEYS,
    NAMES,
    NUM_CARDS,
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
    WitchesMove,
    moves_of,
)
from engine.witches.state import DEAL, DECIDE, DRAW, FIRST, OVER, PLAY, REVEAL, WitchesState

CHANCE_PHASES = (DEAL, REVEAL, FIRST, DRAW)


# --- who acts -------------------------------------------------------------------


def current_player(state: WitchesState) -> int:
    """The seat to act, CHANCE or TERMINAL."""
    phase = state.phase  # chance phases < PLAY < DECIDE < OVER
    if phase < PLAY:
        return CHANCE
    return TERMINAL if phase == OVER else state.turn


# --- transitions --------------------------------------------------------------


def step(state: WitchesState, move: WitchesMove) -> None:
    """Apply `move` in place, unchecked (the search's hot path)."""
    phase = state.phase
    if phase == PLAY:  # W7
        card = cast(Play, move).card
        turn = state.turn
        state.hands[turn] ^= BIT[card]
        trick = state.trick + (card,)
        if len(trick) < state.n:
            state.trick = trick
            state.turn = turn + 1 if turn + 1 < state.n else 0
        else:
            _finish_trick(state, trick)
    elif phase == DECIDE:  # W11
        if move.type == "trump":
            card = cast(Trump, move).card
            state.captured[state.turn] ^= BIT[card]
            state.discard |= BIT[state.trump]
            state.trump = card
        state.won = 0
        if state.pile.bit_count() >= state.n:  # W12
            state.phase = DRAW
            state.pending = state.n
        else:
            state.phase = PLAY
    elif phase == DRAW:  # W12: the winner first, then clockwise
        bit = BIT[cast(Draw, move).card]
        turn = state.turn
        state.hands[turn] |= bit
        state.pile ^= bit
        state.pending -= 1
        if state.pending:
            state.turn = turn + 1 if turn + 1 < state.n else 0
        else:
            state.phase = PLAY
            state.turn = state.leader
    elif phase == DEAL:  # W4
        bit = BIT[cast(Deal, move).card]
        turn = state.turn
        state.hands[turn] |= bit
        state.pile ^= bit
        state.pending -= 1
        state.turn = turn + 1 if turn + 1 < state.n else 0
        if not state.pending:
            state.phase = REVEAL
    elif phase == REVEAL:  # W5
        card = cast(Reveal, move).card
        state.pile ^= BIT[card]
        state.trump = card
        state.phase = FIRST
    elif phase == FIRST:  # W6
        state.turn = state.leader = cast(First, move).seat
        state.phase = PLAY
    else:
        raise IllegalMove("game_over", "the game is over", move)


def strongest(s: WitchesState, trick: tuple[int, ...]) -> int:
    """W8: the index in `trick` of the card winning it (so far): the strongest trump, else the
    strongest card of the colour led, by the wheel's ranking."""
    keys = LED_KEYS[s.increasing][s.trump][COLOUR[trick[0]]]
    best = -1
    index = 0
    for i, card in enumerate(trick):
        if keys[card] > best:
            best = keys[card]
            index = i
    return index


def _finish_trick(s: WitchesState, trick: tuple[int, ...]) -> None:
    """W8–W10, W13: decide the winner, capture, and move on to the trump decision or the end."""
    index = strongest(s, trick)
    mask = 0
    for card in trick:
        mask |= BIT[card]
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


def legal_moves(state: WitchesState) -> list[WitchesMove]:
    """The moves of the seat to act; empty at chance nodes and at the end."""
    phase = state.phase
    if phase == PLAY:
        return moves_of(state.hands[state.turn], PLAY_CHUNKS, [])
    if phase == DECIDE:
        return moves_of(state.won, TRUMP_CHUNKS, [KEEP])
    return []


def chance_outcomes(s: WitchesState) -> list[tuple[WitchesMove, float]]:
    """Every chance outcome with its probability: a uniform card from the pile, or a seat."""
    phase = s.phase
    if phase == FIRST:
        p = 1.0 / s.n
        return [(FIRSTS[seat], p) for seat in range(s.n)]
    table = _CARD_CHANCE.get(phase)
    if table is None:
        return []
    cards = cards_of(s.pile)
    p = 1.0 / len(cards)
    return [(table[c], p) for c in cards]


_CARD_CHANCE: dict[int, tuple[WitchesMove, ...]] = {DEAL: DEALS, REVEAL: REVEALS, DRAW: DRAWS}


def sample_chance(s: WitchesState, rng: random.Random) -> WitchesMove:
    """One chance outcome, uniformly."""
    phase = s.phase
    if phase == FIRST:
        return FIRSTS[int(rng.random() * s.n)]
    cards = cards_of(s.pile)
    card = cards[int(rng.random() * len(cards))]
    if phase == DRAW:
        return DRAWS[card]
    if phase == DEAL:
        return DEALS[card]
    if phase == REVEAL:
        return REVEALS[card]
    raise IllegalMove("chance", "chance does not act now")


_CHANCE_TYPES: dict[int, type[WitchesMove]] = {DEAL: Deal, REVEAL: Reveal, FIRST: First, DRAW: Draw}
_CHANCE_MOVES = (Deal, Reveal, First, Draw)


def _is_card(card: object) -> bool:
    """Whether a hand-made move's field is a card index (a bool or a float is not)."""
    return type(card) is int and 0 <= card < NUM_CARDS


def _describe(move: Any) -> str:
    """repr of a move, safe for hand-made moves holding no valid card."""
    card = getattr(move, "card", None)
    if _is_card(card):
        return repr(move)
    return f"{type(move).__name__} with card {card!r}"


def check_move(s: WitchesState, move: WitchesMove) -> None:
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
            if type(move.seat) is not int or not 0 <= move.seat < s.n:
                raise IllegalMove("chance", f"no seat {move.seat} in a {s.n}-player game", move)
        elif not isinstance(move, (Deal, Reveal, Draw)) or not _is_card(move.card) \
                or not s.pile & BIT[move.card]:
            raise IllegalMove("chance", f"{_describe(move)} is not a card of the pile", move)
        return
    if isinstance(move, _CHANCE_MOVES):
        raise IllegalMove("chance", f"{_describe(move)} is a chance outcome, not a player's move", move)
    if phase == PLAY:
        if isinstance(move, (Trump, Keep)):
            raise IllegalMove("W11", "a trump decision is only made by a trick's winner, right after it", move)
        if not isinstance(move, Play) or not _is_card(move.card):
            raise IllegalMove("W7", f"{_describe(move)} is not a card play", move)
        if not s.hands[s.turn] & BIT[move.card]:
            raise IllegalMove("W7", f"{NAMES[move.card]} is not in seat {s.turn}'s hand", move)
        return
    # DECIDE
    if isinstance(move, Keep):
        return
    if not isinstance(move, Trump) or not _is_card(move.card):
        raise IllegalMove("W11", f"seat {s.turn} must first keep the trump or give up a captured card", move)
    if not s.won & BIT[move.card]:
        raise IllegalMove("W11", f"{NAMES[move.card]} was not captured in the trick just won", move)


# --- the end -------------------------------------------------------------------


def outcome(s: WitchesState) -> Outcome | None:
    """Scores, winners (W14 tie-break by captured cards) and ranks once all hands are empty (W13)."""
    if s.phase != OVER:
        return None
    keys = [(score_of(mask), mask.bit_count()) for mask in s.captured]
    return Outcome(
        scores=tuple(float(score) for score, _ in keys),
        winners=tuple(winners(s)),
        reason=Termination.HANDS_EMPTY,
        ranks=ranks_for(keys),
    )


def scores(s: WitchesState) -> list[int]:
    """Magic Points of each seat: the values of the witches it captured (W14)."""
    return [score_of(mask) for mask in s.captured]


def winners(s: WitchesState) -> list[int]:
    """Most points; ties broken by more captured cards; still tied, all win (W14)."""
    return _winners(scores(s), s.captured)


WIN_WEIGHT = 0.9  # returns: 0.9 for a win (shared ties too) + 0.1 × the seat's share of all points


@cython.locals(
    seat=cython.int, p=cython.int, total=cython.int, best=cython.int, ties=cython.int,
    mask=cython.ulonglong, share=cython.double, win=cython.double, captured=list, points=list,
    chunks=tuple, out=list,
)
def returns(s: WitchesState) -> tuple[float, ...]:
    """Search rewards in [0, 1]: 0.9·win + 0.1·(own points / all points)."""
    captured = s.captured
    chunks = CHUNK_SCORE
    points = []
    total = 0
    best = -1
    ties = 0
    for seat in range(len(captured)):
        mask = captured[seat]
        p = (chunks[mask & 511] + chunks[mask >> 9 & 511] + chunks[mask >> 18 & 511]  # a colour each
             + chunks[mask >> 27 & 511] + chunks[mask >> 36 & 511] + chunks[mask >> 45 & 511])
        points.append(p)
        total += p
        if p > best:
            best = p
            ties = 1
        elif p == best:
            ties += 1
    share = (1.0 - WIN_WEIGHT) / (total or 1)
    win = WIN_WEIGHT
    out = []
    if ties == 1:
        for seat in range(len(points)):
            p = points[seat]
            out.append(win + p * share if p == best else p * share)
    else:
        won = _winners(points, captured)
        for seat in range(len(points)):
            p = points[seat]
            out.append(win + p * share if seat in won else p * share)
    return tuple(out)


def _winners(points: list[int], captured: list[int]) -> list[int]:
    """W14 on precomputed points: most points, then most captured cards; still tied, all win."""
    best = max(points)
    tied = [seat for seat, p in enumerate(points) if p == best]
    if len(tied) == 1:
        return tied
    most = max(captured[seat].bit_count() for seat in tied)
    return [seat for seat in tied if captured[seat].bit_count() == most]
