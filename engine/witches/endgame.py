"""The exact value of a two-player endgame of The Witches' Wheel, once the pile can no longer deal (W13).

From then on nothing is hidden in a full state (a bot's sample): both hands are known and no card
is drawn, so the rest of the hand is a perfect-information game of plays (W7) and trump decisions
(W11). `solve` finds its value by alpha-beta (fail-soft negamax over whole tricks: the leader's
card, the follower's answer, the winner's trump decision) with a transposition table and move
ordering. The bots call it on sampled deals only (perfect-information Monte Carlo, as in Skat and
Bridge programs): it never sees more than the full state it is handed.

A margin is `SCALE` × the points one seat captures more than the other, plus the cards it
captures more (W14's tie-break: `SCALE` exceeds any difference of card counts), so a seat wins
exactly when its final margin is positive, and the two seats share a win at 0. A trick start is
symmetric, so the table stores the leader's margin of the rest of the hand under the key (leader's
hand, follower's hand, trump card), whoever the seats are.
"""

from __future__ import annotations

import cython

from engine.witches.cards import BIT, COLOUR, LED_KEYS, VALUE, cards_of, score_of
from engine.witches.rules import WIN_WEIGHT
from engine.witches.state import DECIDE, OVER, PLAY, WitchesState

#: A margin's weight of one Magic Point: above any difference in captured cards (54 at most).
SCALE = 128
#: The table starts over beyond this many positions (about 100 bytes each).
TABLE_LIMIT = 400_000

_INF = 1 << 30
#: the table: (leader's hand, follower's hand, trump) -> (lower bound, upper bound) of the leader's margin
Table = dict[tuple[int, int, int], tuple[int, int]]

_TABLE: Table = {}


def is_endgame(s: WitchesState) -> bool:
    """Whether `s` is a two-player position after the last draw (W12, W13), a seat to act."""
    return s.n == 2 and (s.phase == PLAY or s.phase == DECIDE) and s.pile.bit_count() < 2


def solve(s: WitchesState, table: Table | None = None) -> int:
    """Seat 0's exact margin of the rest of the hand from the endgame position `s` (see the module)."""
    if table is None:
        table = _table()
    if s.phase == OVER:
        return 0
    inc = s.increasing
    if s.phase == DECIDE:  # the winner decides: keep, or give up the one card just captured
        winner = s.turn
        card = s.won.bit_count() and cards_of(s.won)[0]
        gain = SCALE * VALUE[card] + 1
        hw, hl = s.hands[winner], s.hands[1 - winner]
        keep = _value(hw, hl, s.trump, inc, -_INF, _INF, table)
        give = -gain + _value(hw, hl, card, inc, -_INF, _INF, table)
        best = max(keep, give)
        return best if winner == 0 else -best
    if not s.trick:
        value = _value(s.hands[s.turn], s.hands[1 - s.turn], s.trump, inc, -_INF, _INF, table)
        return value if s.turn == 0 else -value
    # the follower answers the leader's card
    lead = s.trick[0]
    follower = s.turn
    hl, hf = s.hands[1 - follower], s.hands[follower]
    worst = _INF
    for b in cards_of(hf):
        m = _after_trick(lead, b, hl, hf ^ BIT[b], s.trump, inc, -_INF, _INF, table)
        worst = min(worst, m)
    # worst: the leader's margin (the follower minimises it)
    return worst if follower == 1 else -worst


def exact_returns(s: WitchesState, table: Table | None = None) -> tuple[float, ...]:
    """`returns` at the end of optimal play from the endgame position `s`: the win exactly, the
    share of the points from the exact point margin and the points still to come (half of those in
    hand and on the table: a trick captures one of its two cards)."""
    margin = _now(s) + solve(s, table)
    if margin > 0:
        wins = (1.0, 0.0)
    elif margin < 0:
        wins = (0.0, 1.0)
    else:
        wins = (1.0, 1.0)
    difference = (margin + SCALE // 2) // SCALE  # seat 0's points minus seat 1's
    now = score_of(s.captured[0]) + score_of(s.captured[1])
    total = now + (score_of(s.hands[0] | s.hands[1]) + sum(VALUE[c] for c in s.trick) + _won_value(s)) / 2
    share0 = min(1.0, max(0.0, (total + difference) / (2 * total))) if total > 0 else 0.5
    share = 1.0 - WIN_WEIGHT
    return (WIN_WEIGHT * wins[0] + share * share0, WIN_WEIGHT * wins[1] + share * (1.0 - share0))


# --- helpers ------------------------------------------------------------------


def _table() -> Table:
    """The shared table, started over when full (its entries hold for any search: exact values)."""
    if len(_TABLE) > TABLE_LIMIT:
        _TABLE.clear()
    return _TABLE


def _now(s: WitchesState) -> int:
    """Seat 0's margin so far: captured points and cards."""
    c0, c1 = s.captured
    return SCALE * (score_of(c0) - score_of(c1)) + c0.bit_count() - c1.bit_count()


def _won_value(s: WitchesState) -> int:
    """The points of the card just captured, still to be kept or given up (DECIDE)."""
    return score_of(s.won) if s.phase == DECIDE else 0


@cython.locals(a=cython.int, b=cython.int, hl=cython.ulonglong, hf=cython.ulonglong,
               trump=cython.int, keep=cython.longlong, give=cython.longlong, gain=cython.longlong,
               alpha=cython.longlong, beta=cython.longlong, wm=cython.longlong, lead_wins=cython.bint)
def _after_trick(a: int, b: int, hl: int, hf: int, trump: int, inc: bool, alpha: int, beta: int,
                 table: Table) -> int:
    """The leader's margin after the trick (leader played `a`, follower `b`; `hl`, `hf` the hands
    left), the winner deciding on the trump; fail-soft within (alpha, beta)."""
    keys = LED_KEYS[inc][trump][COLOUR[a]]
    lead_wins = keys[a] > keys[b]
    taken = b if lead_wins else a
    gain = SCALE * VALUE[taken] + 1
    if not hl:  # W13: the last trick, no trump decision
        return gain if lead_wins else -gain
    if lead_wins:
        hw, hlo = hl, hf
        low, high = alpha, beta
    else:
        hw, hlo = hf, hl
        low, high = -beta, -alpha
    # the winner's margin: keep (the card's points and the trump) or give the card up for the trump
    keep = gain + _value(hw, hlo, trump, inc, low - gain, high - gain, table)
    if keep < high:
        give = _value(hw, hlo, taken, inc, max(low, keep), high, table)
        wm = keep if keep >= give else give
    else:
        wm = keep
    return wm if lead_wins else -wm


@cython.locals(hl=cython.ulonglong, hf=cython.ulonglong, trump=cython.int, alpha=cython.longlong,
               beta=cython.longlong, low=cython.longlong, high=cython.longlong, best=cython.longlong,
               worst=cython.longlong, m=cython.longlong, a=cython.int, b=cython.int)
def _value(hl: int, hf: int, trump: int, inc: bool, alpha: int, beta: int, table: Table) -> int:
    """The leader's margin of the rest of the hand from a trick's start, fail-soft in (alpha, beta)."""
    key = (hl, hf, trump)
    bounds = table.get(key)
    if bounds is not None:
        low, high = bounds[0], bounds[1]
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        if low > alpha:
            alpha = low
        if high < beta:
            beta = high
    else:
        low, high = -_INF, _INF
    start_alpha, start_beta = alpha, beta
    by_led = LED_KEYS[inc][trump]
    best = -_INF
    for a in _lead_order(hl, by_led):
        keys = by_led[COLOUR[a]]
        rest = hl ^ BIT[a]
        worst = _INF
        for b in _answer_order(hf, a, keys):
            m = _after_trick(a, b, rest, hf ^ BIT[b], trump, inc,
                             best if best > alpha else alpha, worst if worst < beta else beta, table)
            if m < worst:
                worst = m
                if worst <= alpha or worst <= best:
                    break  # the leader has a card at least as good already
        if worst > best:
            best = worst
            if best >= beta:
                break
    # store what the search proved: exact inside the window, a bound outside it
    if best <= start_alpha:
        table[key] = (low, best)
    elif best >= start_beta:
        table[key] = (best, high)
    else:
        table[key] = (best, best)
    return best


def _lead_order(hand: int, by_led: tuple[tuple[int, ...], ...]) -> list[int]:
    """The leader's cards, strongest first (a lead that wins the trick tends to be good)."""
    cards = cards_of(hand)
    cards.sort(key=lambda c: -by_led[COLOUR[c]][c] * 16 - VALUE[c])
    return cards


def _answer_order(hand: int, lead: int, keys: tuple[int, ...]) -> list[int]:
    """The follower's cards: the cheapest winners first, then the lowest-valued losers."""
    best = keys[lead]
    cards = cards_of(hand)
    cards.sort(key=lambda c: (keys[c] <= best, keys[c] if keys[c] > best else VALUE[c]))
    return cards
