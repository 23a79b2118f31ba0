"""What a seat sees of a Witches' Wheel match, how moves appear in the log, and determinization."""

from __future__ import annotations

import math
import random
from bisect import bisect
from itertools import accumulate

from engine import shapes
from engine.core import Json, Seat
from engine.witches.cards import (
    BIT,
    COLOUR,
    COLOURS,
    HAND_SIZE,
    LED_KEYS,
    NAMES,
    VALUE,
    WHEEL_SIDES,
    cards_of,
    ranking,
    score_of,
)
from engine.witches.moves import Deal, Draw, WitchesMove
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


def view(s: WitchesState, seat: Seat | None) -> dict[str, Json]:
    """The public state plus `seat`'s own hand; never another hand, nor the pile's cards before the end."""
    n = s.n
    trump = s.trump
    acting = s.phase in (PLAY, DECIDE)
    out: dict[str, Json] = {
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


def log_entry(s: WitchesState, move: WitchesMove, seat: Seat | None) -> Json:
    """A move as `seat` sees it: a dealt or drawn card only to its receiver."""
    data = move.to_json()
    if isinstance(move, (Deal, Draw)):
        data["seat"] = s.turn
        if seat != s.turn:
            del data["card"]
    return data


def determinize(state: WitchesState, seat: int, rng: random.Random, weighted: bool = True) -> WitchesState:
    """A copy where the cards `seat` has not seen (other hands ∪ pile) are dealt anew.

    Each other seat's hand is drawn with weights (`play_weights`): a card that
    seat would likely have played, had it held it, instead of what it did play
    is less likely in its hand. Without such evidence, or `weighted`, the deal is uniform.
    """
    s = state.clone()
    hands = s.hands
    unseen = s.pile
    for other, hand in enumerate(hands):
        if other != seat:
            unseen |= hand
    cards = cards_of(unseen)
    draws = _cached_draws(state, seat, cards) if weighted else None
    if draws is not None:
        _weighted_deal(s, seat, unseen, draws, rng)
        return s
    left = len(cards)
    bits = rng.getrandbits
    for other, hand in enumerate(hands):
        if other == seat or not hand:
            continue
        mask = 0
        for _ in range(hand.bit_count()):
            i = bits(32) * left >> 32
            left -= 1
            mask |= BIT[cards[i]]
            cards[i] = cards[left]
        hands[other] = mask
        unseen ^= mask
    s.pile = unseen
    return s


# --- weighting samples by the plays seen ------------------------------------------

#: How sharply the play model prefers better plays: a play worse by 1/PLAY_SHARPNESS
#: Magic Points than another is e times less likely.
PLAY_SHARPNESS = 0.4


def trump_history(s: WitchesState) -> list[int]:
    """The trump card during each finished trick and the current one (W5, W11), oldest first.

    A card given up for the trump (W11) was captured in a trick and now lies in the
    discard pile (or is the trump); the first trump is the one card never played.
    """
    played_at: dict[int, int] = {}
    for index, (leader, cards, winner) in enumerate(s.tricks):
        own = cards[(winner - leader) % s.n]
        for card in cards:
            if card != own:
                played_at[card] = index
    was_trump = s.discard | BIT[s.trump]
    changes = sorted((index, card) for card, index in played_at.items() if was_trump >> card & 1)
    first = s.trump
    if changes:
        played = 0
        for _, cards, _ in s.tricks:
            for card in cards:
                played |= BIT[card]
        first = next(c for c in cards_of(s.discard | BIT[s.trump]) if not played >> c & 1)
    history = []
    trump = first
    pending = iter(changes)
    change = next(pending, None)
    for index in range(len(s.tricks) + 1):
        history.append(trump)
        while change is not None and change[0] == index:
            trump = change[1]
            change = next(pending, None)
    return history


def play_weights(s: WitchesState, seat: int) -> list[list[float]] | None:
    """Per other seat and card, how much likelier it holds the card given its plays (None: no evidence).

    The play model: a follower values a winning card at the witches on the table
    and a losing one at minus its own value (it gives them away), and plays with
    probability rising exponentially in that value (PLAY_SHARPNESS). A card x held
    when p was played weighs 2 / (1 + e^(k (g(x) - g(p)))) against the cards neither
    better nor worse; a card now in hand was held at a trick d draws ago with
    probability (5/6)^d. Leads are not used: a lead says little without a table.
    """
    n = s.n
    if not s.tricks and not s.trick:
        return None
    trumps = trump_history(s)
    rounds = _draw_rounds(s)
    records = list(s.tricks)
    if s.trick:
        records.append((s.leader, s.trick, -1))
    weights = [[1.0] * 54 for _ in range(n)]
    evidence = False
    increasing = s.increasing
    exp = math.exp
    for index, (leader, cards, _) in enumerate(records):
        trump = trumps[index]
        keys = LED_KEYS[increasing][trump][COLOUR[cards[0]]]
        held = HELD_PER_DRAW ** max(0, rounds - index)
        for i in range(1, len(cards)):
            other = (leader + i) % n
            if other == seat:
                continue
            table = cards[:i]
            best = max(keys[c] for c in table)
            stake = sum(VALUE[c] for c in table)
            played = cards[i]
            gain_played = stake if keys[played] > best else -VALUE[played]
            row = weights[other]
            for card in range(54):
                gain = stake if keys[card] > best else -VALUE[card]
                if gain == gain_played:
                    continue
                ratio = 2.0 / (1.0 + exp(PLAY_SHARPNESS * (gain - gain_played)))
                row[card] *= 1.0 - held + held * ratio
                evidence = True
    return weights if evidence else None


def _draw_rounds(s: WitchesState) -> int:
    """How many times everyone has drawn (W12): the pile's shrinking since the deal, per seat."""
    after_deal = 54 - HAND_SIZE * s.n - 1
    return (after_deal - s.pile.bit_count()) // s.n


#: The chance that a card in a full hand is still there after one more draw (one play of six).
HELD_PER_DRAW = (HAND_SIZE - 1) / HAND_SIZE

_cache: list[object] = [None, None]

#: Per seat: the unseen cards and their cumulative weights (None for the searching seat).
_Draws = list[tuple[list[int], list[float]] | None]


def _cached_draws(s: WitchesState, seat: int, cards: list[int]) -> _Draws | None:
    """Per other seat, cumulative weights over the unseen cards: computed once for a search's many samples."""
    key = (seat, s.hands[seat], s.trump, s.discard, s.tricks, s.trick)
    if _cache[0] != key:
        _cache[0] = key
        weights = play_weights(s, seat)
        draws: _Draws | None = None
        if weights is not None:
            draws = []
            for other in range(s.n):
                if other == seat:
                    draws.append(None)
                    continue
                cumulative = list(accumulate(weights[other][card] for card in cards))
                draws.append((cards, cumulative))
        _cache[1] = draws
    return _cache[1]  # type: ignore[return-value]


#: Redraws of an already dealt card before the weights are given up for a uniform pick.
MAX_REDRAWS = 64


def _weighted_deal(s: WitchesState, seat: int, unseen: int, draws: _Draws, rng: random.Random) -> None:
    """Deal the unseen cards to the other hands (sizes kept), each card by its seat's weights; the rest to the pile.

    Drawing by weight and drawing again on a card already dealt is drawing by
    weight among the cards left.
    """
    hands = s.hands
    rand = rng.random
    for other, hand in enumerate(hands):
        if other == seat or not hand:
            continue
        cards, cumulative = draws[other]  # type: ignore[misc]
        total = cumulative[-1]
        last = len(cards) - 1
        mask = 0
        for _ in range(hand.bit_count()):
            for _ in range(MAX_REDRAWS):
                bit = BIT[cards[min(bisect(cumulative, rand() * total), last)]]
                if unseen & bit:
                    break
            else:
                left = cards_of(unseen)
                bit = BIT[left[int(rand() * len(left))]]
            unseen ^= bit
            mask |= bit
        hands[other] = mask
    s.pile = unseen


# --- private helpers -----------------------------------------------------------


def _names(mask: int) -> list[str]:
    return [NAMES[c] for c in cards_of(mask)]


_CARD = shapes.names(NAMES, "a card, colour-value")
_PLAYED = shapes.record({"seat": shapes.SEAT, "card": _CARD})
_CARDS = shapes.array(_CARD)

#: The JSON shape of `view` (GameInfo.view_schema); `hand` only in a seat's own view.
VIEW_SCHEMA = shapes.record(
    {
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
        "just_captured": _CARDS,
        "hand_sizes": shapes.array(shapes.INTEGER),
        "pile_size": shapes.INTEGER,
        "captured": shapes.array(_CARDS, "each seat's captured witches"),
        "scores": shapes.array(shapes.INTEGER),
        "discard": _CARDS,
        "tricks": shapes.array(shapes.record(
            {"leader": shapes.SEAT, "cards": shapes.array(_PLAYED), "winner": shapes.SEAT})),
        "winners": shapes.nullable(shapes.array(shapes.SEAT)),
        "pile_cards": shapes.nullable(_CARDS),
    },
    {"hand": _CARDS},
    "The Witches' Wheel as one seat (or a spectator) sees it",
)
