"""The search's hot path: a tight playout, typed for Cython.

`playout` is distributionally the generic loop of `Game.random_playout` (uniform
legal moves, uniform chance, a trump decision uniform over keep + each captured
card), or, with `keep_trump` (the search's playout, `WitchesGame.playout`), the
same with every trump decision a keep. It keeps hands and captures as bit masks
in local variables, and writes the final state back at the end. Compiled (setup.py), the `cython.locals`
declarations make those masks C integers (54 cards fit in 64 bits) and the
hands and captures C arrays; from source they are Python ints and lists. Both
draw the same random numbers: a uniform index `r * k >> 32`, r the next 32-bit
word of `random_words`, into the pile's cards (a list, in card order) or a
hand's (the index-th card of the mask, in card order).
"""

from __future__ import annotations

import random

import cython

from engine.witches.cards import COLOUR, HAND_SIZE, KEYS, LED_KEYS, TRUMP_BONUS, VALUE, cards_of
from engine.witches.rules import returns
from engine.witches.state import DEAL, DECIDE, DRAW, FIRST, OVER, PLAY, REVEAL, WitchesState

#: CARD_OF_BIT[(1 << card) % 67] == card: the powers of two below 2**64 differ modulo 67
CARD_OF_BIT: tuple[int, ...] = tuple(
    next((card for card in range(64) if (1 << card) % 67 == rest), -1) for rest in range(67)
)

#: C arrays when compiled, one entry per seat (at most 6); lists of ints from source
SeatMasks = cython.typedef(cython.ulonglong[6])
#: every card played in the playout's tricks, trick by trick (53 at most: all but the first trump)
Played = cython.typedef(cython.int[54])
#: a seat per trick (the leader, the winner): 26 tricks at most
TrickSeats = cython.typedef(cython.int[27])
#: a read-only C view of 32-bit words when compiled; a memoryview from source
Words = cython.typedef(cython.const[cython.uint][:])
#: a writable C view of doubles when compiled (MAST's statistics); a memoryview from source
Stats = cython.typedef(cython.double[:])

#: Playout policies (`playout`'s `policy`): uniform cards; MAST (move-average sampling, epsilon-greedy
#: over each card's mean reward in this search's earlier playouts); a cheap heuristic, epsilon-greedy.
UNIFORM, MAST, HEURISTIC = 0, 1, 2
#: MAST's keys: one per (seat, leading or following, card)
MAST_KEYS = 6 * 2 * 54
#: A heuristic follower wins a trick with a plain card when at least this much is at stake (or it is
#: last), with a trump when at least this much
PLAIN_STAKE, TRUMP_STAKE = 3, 6


def mast_table() -> memoryview[float]:
    """Fresh MAST statistics for one search: summed rewards, then counts, per key (`MAST_KEYS`)."""
    return memoryview(bytearray(8 * 2 * MAST_KEYS)).cast("d")


def random_words(s: WitchesState, rng: random.Random, per_card: int = 1) -> memoryview:
    """All the 32-bit random numbers a playout from `s` may use, drawn at once.

    On a little-endian machine word j is what the j-th `rng.getrandbits(32)`
    would have returned: one call instead of one a draw. Enough for any
    playout: each pile card is drawn at most once, each card in a hand or in the
    pile played at most once, one trump pick per trick, and the first leader
    and a pending trump decision.
    """
    pile = s.pile.bit_count()
    cards = pile + HAND_SIZE * s.n
    count = pile + per_card * cards + cards // s.n + 3
    return memoryview(rng.getrandbits(32 * count).to_bytes(4 * count, "little")).cast("I")


@cython.locals(
    n=cython.int, phase=cython.int, trump=cython.int, turn=cython.int, leader=cython.int,
    pending=cython.int, winner=cython.int, size=cython.int, count=cython.int, seat=cython.int,
    card=cython.int, wcard=cython.int, best=cython.int, key=cython.int, i=cython.int,
    w=cython.int, r=cython.ulonglong, one=cython.ulonglong, words=Words, mask=cython.ulonglong, own=cython.ulonglong,
    discard=cython.ulonglong, rest=cython.ulonglong, pile=list, choices=list, trick=tuple, by_trump=tuple, keys=tuple,
    hands=SeatMasks, captured=SeatMasks, played=Played, base=cython.int, tricks=cython.int,
    leaders=TrickSeats, winners=TrickSeats, keep_trump=cython.bint, flat=tuple, _=cython.int,
    policy=cython.int, explore=cython.ulonglong, table=Stats, all_keys=tuple, led=tuple, stake=cython.int,
    cheap=cython.int, cheap_rank=cython.int, rank=cython.int, win=cython.int, win_key=cython.int,
    mean=cython.double, best_mean=cython.double, at=cython.int, low=cython.ulonglong, first=cython.int,
    result=tuple, stop_after=cython.int, play_endgame=cython.bint, stopped=cython.bint,
)
def playout(s: WitchesState, rng: random.Random, keep_trump: bool = False, policy: int = UNIFORM,
            epsilon: float = 1.0, stats: memoryview[float] | None = None, stop_after: int = 1 << 20,
            play_endgame: bool = False) -> tuple[float, ...]:
    """Play cards and chance to the end, in place; return `returns(s)`.

    With `stop_after`, stop instead at the first trick start (a seat to lead, the draws done) after
    that many of the playout's own tricks, leave `s` there and return () (the caller evaluates it);
    with `play_endgame`, never stop once the pile can no longer deal (W13): play on to the end.

    Cards are uniformly random, or with `policy` MAST or HEURISTIC, uniform with probability
    `epsilon` and otherwise the policy's card. MAST reads and updates `stats` (`mast_table`): each
    card played in the playout is credited with its player's reward.

    Trump decisions (W11) are uniform over keep and each captured card, or, with
    `keep_trump`, always keep: the search's playout. Random give-ups change the
    trump every other trick and throw away half of what tricks capture, which
    drowns what a hand's trumps and a trick's witches are worth; playouts that
    keep them won 0.701 (0.655-0.744) of 400 games, medium against medium.
    """
    phase = s.phase
    if phase == OVER:
        return returns(s)
    words = random_words(s, rng, 2 if policy else 1)  # `r * k >> 32`: a uniform index below k
    w = 0
    explore = int(epsilon * 4294967296.0)  # a policy move when the word is at or above this
    table = stats if policy == MAST and stats is not None else _NO_STATS
    one = 1
    n = s.n
    pile = cards_of(s.pile)
    pop = pile.pop
    hands = [0, 0, 0, 0, 0, 0]
    captured = [0, 0, 0, 0, 0, 0]
    played = [0] * 54
    leaders = [0] * 27
    winners = [0] * 27
    for seat in range(n):
        hands[seat] = s.hands[seat]
        captured[seat] = s.captured[seat]
    discard = s.discard
    trump = s.trump
    turn = s.turn
    leader = s.leader
    pending = s.pending
    by_trump = LED_KEYS[s.increasing]

    # --- setup chance (W4-W6) and a state caught between tricks (W11, W12) ---
    if phase == DEAL:
        for _ in range(pending):
            r = words[w]
            w += 1
            hands[turn] |= one << pop(r * len(pile) >> 32)
            turn = turn + 1 if turn + 1 < n else 0
        phase = REVEAL
    if phase == REVEAL:
        r = words[w]
        w += 1
        trump = pop(r * len(pile) >> 32)
        phase = FIRST
    if phase == FIRST:
        r = words[w]
        w += 1
        turn = leader = r * n >> 32
    if phase == DECIDE:
        if not keep_trump:
            choices = cards_of(s.won)
            r = words[w]
            w += 1
            i = r * (len(choices) + 1) >> 32
            if i:
                card = choices[i - 1]
                captured[turn] ^= one << card
                discard |= one << trump
                trump = card
        if len(pile) >= n:
            phase = DRAW
            pending = n
    if phase == DRAW:
        for _ in range(pending):
            r = words[w]
            w += 1
            hands[turn] |= one << pop(r * len(pile) >> 32)
            turn = turn + 1 if turn + 1 < n else 0

    # --- tricks (W7-W13) ---
    trick = s.trick
    count = len(trick)  # cards of the current trick on the table
    for i in range(count):
        played[i] = trick[i]
    base = 0  # where the current trick starts in `played`
    first = count  # the playout's own plays start here (MAST credits only those)
    all_keys = KEYS[s.increasing]
    tricks = 0
    stopped = False
    seat = leader + count if leader + count < n else leader + count - n
    mask = hands[seat]
    size = 0  # cards in hand of the next seat to play
    while mask:
        mask &= mask - 1
        size += 1
    while True:
        if count == 0 and tricks >= stop_after and not (play_endgame and len(pile) < n):
            stopped = True
            break
        while count < n:
            r = words[w]
            w += 1
            mask = hands[seat]
            if policy and r >= explore:
                if policy == MAST:  # the card of the best mean reward so far (untried: 1, tried first)
                    at = (seat * 2 + (count > 0)) * 54
                    card = -1
                    best_mean = -1.0
                    while mask:
                        low = mask & (~mask + 1)
                        mask ^= low
                        key = CARD_OF_BIT[low % 67]
                        mean = table[at + key] / table[MAST_KEYS + at + key] if table[MAST_KEYS + at + key] else 1.0
                        if mean > best_mean:
                            best_mean = mean
                            card = key
                else:  # lead the cheapest non-trump; follow with the weakest winner if worth it
                    keys = all_keys[trump]
                    led = by_trump[trump][COLOUR[played[base]]] if count else keys
                    best = -1
                    stake = 0
                    for i in range(count):
                        key = played[base + i]
                        stake += VALUE[key]
                        if led[key] > best:
                            best = led[key]
                    cheap = win = -1
                    cheap_rank = win_key = 1 << 20
                    while mask:
                        low = mask & (~mask + 1)
                        mask ^= low
                        key = CARD_OF_BIT[low % 67]
                        rank = (keys[key] >= TRUMP_BONUS) * 4096 + VALUE[key] * 64 + keys[key]
                        if rank < cheap_rank:
                            cheap_rank = rank
                            cheap = key
                        if count and best < led[key] < win_key:
                            win_key = led[key]
                            win = key
                    card = cheap
                    if win >= 0 and (stake >= TRUMP_STAKE if win_key >= TRUMP_BONUS
                                     else count == n - 1 or stake >= PLAIN_STAKE):
                        card = win
            else:
                if policy:
                    r = words[w]
                    w += 1
                for _ in range(r * size >> 32):  # the card of the index-th lowest bit
                    mask &= mask - 1
                card = CARD_OF_BIT[(mask & (~mask + 1)) % 67]
            hands[seat] ^= one << card
            played[base + count] = card
            count += 1
            seat = seat + 1 if seat + 1 < n else 0
        keys = by_trump[trump][COLOUR[played[base]]]
        best = -1
        winner = wcard = 0
        mask = 0
        for i in range(n):
            card = played[base + i]
            mask |= one << card
            key = keys[card]
            if key > best:
                best = key
                wcard = card
                winner = leader + i if leader + i < n else leader + i - n
        own = one << wcard
        captured[winner] |= mask ^ own  # W10
        discard |= own
        leaders[tricks] = leader
        winners[tricks] = winner
        tricks += 1
        leader = seat = winner  # W9
        if size == 1:  # W13: hands are empty, that was the last trick
            break
        size -= 1
        # W11: keep (when the pick is the winner's own card) or give up a captured card
        if not keep_trump:
            r = words[w]
            w += 1
            card = played[base + (r * n >> 32)]
            if card != wcard:
                captured[winner] ^= one << card
                discard |= one << trump
                trump = card
        base += n
        count = 0
        if len(pile) >= n:  # W12: the winner draws first
            for _ in range(n):
                r = words[w]
                w += 1
                hands[seat] |= one << pop(r * len(pile) >> 32)
                seat = seat + 1 if seat + 1 < n else 0
            size += 1

    rest = 0
    for card in pile:
        rest |= one << card
    s.pile = rest
    s.hands = [hands[i] for i in range(n)]
    s.captured = [captured[i] for i in range(n)]
    s.discard = discard
    s.trump = trump
    s.turn = s.leader = leader
    s.trick = ()
    s.won = 0
    s.pending = 0
    s.phase = PLAY if stopped else OVER
    flat = tuple([played[i] for i in range(tricks * n)])
    s.tricks = s.tricks + tuple([
        (leaders[i], flat[i * n:i * n + n], winners[i]) for i in range(tricks)
    ])
    if stopped:
        return ()
    result = returns(s)
    if policy == MAST:
        for i in range(first, tricks * n):
            seat = leaders[i // n] + i % n
            if seat >= n:
                seat -= n
            key = (seat * 2 + (i % n > 0)) * 54 + played[i]
            table[key] += result[seat]
            table[MAST_KEYS + key] += 1.0
    return result


#: a stand-in for MAST's statistics when the policy does not use them
_NO_STATS: memoryview[float] = memoryview(bytearray(8)).cast("d")
