"""What the other seats' own choices say about their hands: samples of the unseen cards weighted by
how likely each other seat's plays (W7) and trump decisions (W11) were with the hand the sample
gives it, under softmax policies fitted to players of known styles (`STYLES`: self-play searches,
the simple hand-written player; `inference_weights`, `ai.witches_inference`), mixed per seat.

No rule makes a seat follow colour, so play reveals a hand only softly. A sample deals the unseen
cards uniformly (`views.determinize`), then places every card another seat ever held (the ones it
played, and the sampled hand) in the deal or one of its draws, uniformly among the placements its
plays allow: a card played at trick k came in the deal or a draw before it. That gives the seat's
hand at each of its decisions, whose likelihood under the policy is the sample's weight (tempered
by `TEMPER`, since the policy only approximates any one opponent). A search draws from a pool of
weighted samples (`weighted_determinizer`). Everything here reads public information only: the
finished tricks, the table, captured and discarded cards and the trump card.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Sequence
from typing import NamedTuple

from engine.witches.cards import (
    BIT,
    COLOUR,
    HAND_SIZE,
    KEYS,
    LED_KEYS,
    NUM_CARDS,
    TRUMP_BONUS,
    VALUE,
    Card,
    cards_of,
)
from engine.witches.inference_weights import STYLE_WEIGHTS
from engine.witches.state import DECIDE, WitchesState
from engine.witches.views import determinize

#: Samples weighed per search: the pool its determinizations are drawn from.
WORLDS = 600
#: Placements of a seat's past hands whose likelihoods a sample's weight averages, by default: one
#: random placement can make a near-deterministic style look impossible (docs/bots/experiments.md).
PLACEMENTS = 1
#: The power of each sample's likelihood: below 1, a softer belief (the policy is fitted to
#: self-play, not to the seat at hand), and a pool whose weight is not all on a few samples.
TEMPER = 0.5
#: A play's features, in `play_features`' order.
PLAY_FEATURES = (
    "lead_trump", "lead_value", "lead_strength", "lead_cheapest", "wins", "wins_trump", "wins_stake",
    "wins_weakest", "loses_value", "loses_trump", "follow_cheapest", "late_trump", "late_value",
    "wins_late", "highest", "strength",
)
#: A trump decision's features, in `trump_features`' order.
TRUMP_FEATURES = ("keep", "value", "colour_gain", "power_gain")


class Style(NamedTuple):
    """A way of playing that a seat may have: its prior probability and its softmax weights."""

    name: str
    prior: float
    play: tuple[float, ...]   # PLAY_FEATURES' order
    trump: tuple[float, ...]  # TRUMP_FEATURES' order


#: The styles fitted to players of known style (`ai.witches_inference`): "search" to self-play
#: searches, "heuristic" to the simple hand-written player.
STYLES: tuple[Style, ...] = tuple(Style(name, *weights) for name, weights in STYLE_WEIGHTS.items())


def styles_named(names: str) -> tuple[Style, ...]:
    """The styles a sampling names after "inferred:" ("search+heuristic"); every style for ""."""
    if not names:
        return STYLES
    by_name = {style.name: style for style in STYLES}
    try:
        chosen = [by_name[name] for name in names.split("+")]
    except KeyError as unknown:
        raise ValueError(f"no inference style {unknown}; known: {', '.join(by_name)}") from None
    total = sum(style.prior for style in chosen)
    return tuple(style._replace(prior=style.prior / total) for style in chosen)


def placements_named(text: str) -> int:
    """The placements a sampling names after its styles ("inferred:search:8"); `PLACEMENTS` for ""."""
    if not text:
        return PLACEMENTS
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"placements must be a whole number from 1, not {text!r}")
    return int(text)


def determinizer_named(s: WitchesState, seat: int, sampling: str, worlds: int = WORLDS,
                       temper: float = TEMPER) -> Callable[[random.Random], WitchesState] | None:
    """The weighted determinizer a search's sampling names ("inferred", "inferred:NAME+NAME",
    "inferred:NAME+NAME:P"; see `styles_named` and `placements_named`), or None for another name."""
    if sampling != "inferred" and not sampling.startswith("inferred:"):
        return None
    names, _, placements = sampling.partition(":")[2].partition(":")
    return weighted_determinizer(s, seat, worlds=worlds, temper=temper, styles=styles_named(names),
                                 placements=placements_named(placements))


class Decision(NamedTuple):
    """A choice another seat made, as everyone saw it: a play ("play", its card) or a trump
    decision ("trump": the card given up, or -1 to keep) after trick `trick`."""

    kind: str
    trick: int
    trump: Card               # the trump card when the choice was made
    table: tuple[Card, ...]   # a play: the trick's cards before it; a trump decision: the cards won
    chosen: Card
    late: bool                # no draw follows the trick (W13)


def draw_tricks(n: int) -> int:
    """How many tricks are followed by a draw (W12): the pile after the deal and the trump card,
    one card a seat per trick while it holds one for every seat."""
    return (NUM_CARDS - HAND_SIZE * n - 1) // n


def last_trick(n: int) -> int:
    """The index of the match's last trick, which has no trump decision (W13)."""
    return HAND_SIZE + draw_tricks(n) - 1


def cheapness(trump: Card, increasing: bool, card: Card) -> int:
    """How much a card costs to give away: non-trumps first, then by value, then by strength
    (the order the simple player leads and throws by, `engine.witches.policy`)."""
    key = KEYS[increasing][trump][card]
    return (key >= TRUMP_BONUS) * 1000 + VALUE[card] * 50 + key


def play_features(trump: Card, increasing: bool, table: Sequence[Card], late: bool, hand: Sequence[Card],
                  card: Card) -> list[float]:
    """The features of playing `card` from `hand` (W7), in `PLAY_FEATURES`' order."""
    keys = KEYS[increasing][trump]
    cheapest = min(hand, key=lambda c: cheapness(trump, increasing, c))
    is_trump = 1.0 if keys[card] >= TRUMP_BONUS else 0.0
    value = VALUE[card] / 9
    strength = (keys[card] % TRUMP_BONUS) / 8
    f = [0.0] * len(PLAY_FEATURES)
    if not table:
        f[0], f[1], f[2] = is_trump, value, strength
        f[3] = 1.0 if card == cheapest else 0.0
    else:
        led = LED_KEYS[increasing][trump][COLOUR[table[0]]]
        best = max(led[c] for c in table)
        if led[card] > best:
            weakest = min((c for c in hand if led[c] > best), key=led.__getitem__)
            f[4], f[5] = 1.0, is_trump
            f[6] = sum(VALUE[c] for c in table) / 9
            f[7] = 1.0 if card == weakest else 0.0
            f[13] = 1.0 if late else 0.0
        else:
            f[8], f[9] = value, is_trump
        f[10] = 1.0 if card == cheapest else 0.0
    if late:
        f[11], f[12] = is_trump, value
    f[14] = 1.0 if VALUE[card] == max(VALUE[c] for c in hand) else 0.0
    f[15] = strength
    return f


def trump_features(trump: Card, increasing: bool, hand: Sequence[Card], option: Card) -> list[float]:
    """The features of a trump decision (W11): keep (`option` -1) or give up `option`."""
    if option < 0:
        return [1.0, 0.0, 0.0, 0.0]
    old, new = KEYS[increasing][trump], KEYS[increasing][option]
    colour_gain = sum((COLOUR[c] == COLOUR[option]) - (COLOUR[c] == COLOUR[trump]) for c in hand) / HAND_SIZE
    power_gain = sum(new[c] - old[c] for c in hand) / (HAND_SIZE * (TRUMP_BONUS + 8))
    return [0.0, VALUE[option] / 9, colour_gain, power_gain]


# --- the public history --------------------------------------------------------------------------

def trump_history(s: WitchesState) -> list[Card]:
    """The trump card during each finished trick, then during the current one: a card a trick's
    winner neither kept nor played was given up to become trump (W10, W11)."""
    changes: list[Card] = []
    own = 0
    for leader, cards, winner in s.tricks:
        winners_card = cards[(winner - leader) % s.n]
        own |= BIT[winners_card]
        given = [c for c in cards if c != winners_card and not s.captured[winner] & BIT[c]]
        changes.append(given[0] if given else -1)
    chosen = [c for c in changes if c >= 0]
    first = s.trump
    if chosen:  # the first trump went to the discard pile, beside the winners' own cards (W10)
        replaced = s.discard & ~own
        for c in chosen:
            replaced &= ~BIT[c]
        first = cards_of(replaced)[0]
    history = [first]
    for change in changes:
        history.append(change if change >= 0 else history[-1])
    return history


def decisions_of_others(s: WitchesState, seat: int) -> dict[int, list[Decision]]:
    """Every other seat's plays and trump decisions so far, in order (from public information)."""
    n = s.n
    trumps = trump_history(s)
    draws = draw_tricks(n)
    found: dict[int, list[Decision]] = {other: [] for other in range(n) if other != seat}
    pending = len(s.tricks) - 1 if s.phase == DECIDE else -1
    for k, (leader, cards, winner) in enumerate(s.tricks):
        for i, card in enumerate(cards):
            if (leader + i) % n != seat:
                found[(leader + i) % n].append(Decision("play", k, trumps[k], cards[:i], card, k >= draws))
        if winner != seat and k != pending and k != last_trick(n):
            won = tuple(c for i, c in enumerate(cards) if (leader + i) % n != winner)
            given = trumps[k + 1] if trumps[k + 1] != trumps[k] else -1
            found[winner].append(Decision("trump", k, trumps[k], won, given, k >= draws))
    k = len(s.tricks)
    for i, card in enumerate(s.trick):
        if (s.leader + i) % n != seat:
            found[(s.leader + i) % n].append(Decision("play", k, trumps[k], s.trick[:i], card, k >= draws))
    return found


def place_cards(played: Sequence[tuple[int, Card]], hand: Sequence[Card], rng: random.Random,
                kept: bool = False) -> dict[Card, int]:
    """When each card a seat ever held came to it: 0 for the deal, k + 1 for the draw after trick k.
    Uniform over the placements where every card played at trick k (`played`: (k, card)) came at a
    time <= k; the cards of `hand` fill the rest. With `kept`, every played card came as late as
    its play allows: the placement where the seat kept its other cards longest (a seat that plays
    its cheapest card and keeps its high ones plays the cards it draws)."""
    times = [0] * HAND_SIZE + list(range(1, len(played) + len(hand) - HAND_SIZE + 1))
    free = list(range(len(times)))  # indices of `times` still free, in increasing time
    came: dict[Card, int] = {}
    # the tightest first: each card then has as many choices whatever the earlier ones took
    for k, card in sorted(played):
        allowed = bisect.bisect_right(free, k + HAND_SIZE - 1)  # times[i] <= k  <=>  i <= k + 5
        came[card] = times[free.pop(allowed - 1 if kept else int(rng.random() * allowed))]
    rng.shuffle(free)
    for card, i in zip(hand, free, strict=True):
        came[card] = times[i]
    return came


# --- likelihoods ---------------------------------------------------------------------------------

class _PlayContext(NamedTuple):
    """A play's logit for each card, apart from the terms that depend on the rest of the hand."""

    base: list[float]
    cheapness: list[int]
    beats: list[int]          # the led key of a card that would win the trick now, else -1
    cheapest_bonus: float
    weakest_bonus: float
    highest_bonus: float


def _play_context(d: Decision, increasing: bool, w: Sequence[float]) -> _PlayContext:
    keys = KEYS[increasing][d.trump]
    base = [0.0] * NUM_CARDS
    beats = [-1] * NUM_CARDS
    led: Sequence[int] = ()
    best = stake = 0.0
    if d.table:
        led = LED_KEYS[increasing][d.trump][COLOUR[d.table[0]]]
        best = max(led[c] for c in d.table)
        stake = sum(VALUE[c] for c in d.table) / 9
    for c in range(NUM_CARDS):
        is_trump = 1.0 if keys[c] >= TRUMP_BONUS else 0.0
        value = VALUE[c] / 9
        strength = (keys[c] % TRUMP_BONUS) / 8
        z = w[15] * strength
        if not d.table:
            z += w[0] * is_trump + w[1] * value + w[2] * strength
        elif led[c] > best:
            z += w[4] + w[5] * is_trump + w[6] * stake + (w[13] if d.late else 0.0)
            beats[c] = led[c]
        else:
            z += w[8] * value + w[9] * is_trump
        if d.late:
            z += w[11] * is_trump + w[12] * value
        base[c] = z
    return _PlayContext(base, [cheapness(d.trump, increasing, c) for c in range(NUM_CARDS)], beats,
                        w[3] if not d.table else w[10], w[7], w[14])


def _hand_marks(ctx: _PlayContext, hand: Sequence[Card]) -> tuple[Card, int, Card]:
    """What a play's logits read of the rest of the hand: its cheapest card, its highest value and
    its weakest winning card (-1 for none). The same for every style."""
    cheapest = min(hand, key=ctx.cheapness.__getitem__)
    highest = max(VALUE[c] for c in hand)
    winning = [c for c in hand if ctx.beats[c] >= 0]
    weakest = min(winning, key=ctx.beats.__getitem__) if winning else -1
    return cheapest, highest, weakest


def _play_log_likelihood(ctx: _PlayContext, hand: Sequence[Card], card: Card,
                         marks: tuple[Card, int, Card] | None = None) -> float:
    cheapest, highest, weakest = marks or _hand_marks(ctx, hand)
    logits = [ctx.base[c] + (ctx.cheapest_bonus if c == cheapest else 0.0)
              + (ctx.weakest_bonus if c == weakest else 0.0) + (ctx.highest_bonus if VALUE[c] == highest else 0.0)
              for c in hand]
    top = max(logits)
    return logits[hand.index(card)] - top - math.log(sum(math.exp(z - top) for z in logits))


def _trump_log_likelihood(d: Decision, increasing: bool, hand: Sequence[Card], w: Sequence[float]) -> float:
    options = [-1, *d.table]
    logits = [sum(a * b for a, b in zip(w, trump_features(d.trump, increasing, hand, o), strict=True))
              for o in options]
    top = max(logits)
    return logits[options.index(d.chosen)] - top - math.log(sum(math.exp(z - top) for z in logits))


def log_sum_exp(values: Sequence[float]) -> float:
    """log(sum(exp(v))), without overflow."""
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


class SeatHistory:
    """One other seat's decisions, with what every sample shares worked out once. The seat plays in
    one of `styles` (`STYLES`), which one unknown: a hand's likelihood is the mixture
    over the styles, so the seat's own plays tell both its hand and its style."""

    def __init__(self, decisions: Sequence[Decision], increasing: bool, styles: Sequence[Style] = STYLES):
        self.increasing = increasing
        self.styles = styles
        self.log_priors = [math.log(style.prior) for style in styles]
        self.played = [(d.trick, d.chosen) for d in decisions if d.kind == "play"]
        self.steps = [(d, [_play_context(d, increasing, style.play) for style in styles] if d.kind == "play" else None)
                      for d in decisions]

    def log_likelihood(self, hand: Sequence[Card], rng: random.Random, placements: int = PLACEMENTS) -> float:
        """The log-probability of the seat's decisions had it held `hand` now, mixed over the styles
        (its earlier hands placed as `style_log_likelihoods` says)."""
        totals = self.style_log_likelihoods(hand, rng, placements)
        return totals[0] if len(totals) == 1 else log_sum_exp(totals)

    def style_log_likelihoods(self, hand: Sequence[Card], rng: random.Random,
                              placements: int = PLACEMENTS) -> list[float]:
        """Each style's log prior plus the log-probability of the seat's decisions in that style had
        it held `hand` now: proportional to the posterior of the styles, given the hand. Its earlier
        hands are placed among those its plays allow (`place_cards`): one placement at random, or with
        `placements` above 1 the likelihood is averaged over the placement that keeps its cards
        longest and `placements` - 1 random ones. One random placement makes a near-deterministic
        style look impossible; the kept one is where such a style's plays fit (a prior over
        placements that gives it its share)."""
        if placements == 1:
            return self._placed_log_likelihoods(place_cards(self.played, hand, rng))
        each = [self._placed_log_likelihoods(place_cards(self.played, hand, rng, kept=i == 0))
                for i in range(placements)]
        return [log_sum_exp(column) - math.log(placements) for column in zip(*each, strict=True)]

    def _placed_log_likelihoods(self, came: dict[Card, int]) -> list[float]:
        """Each style's log prior plus the log-probability of the decisions, the cards held when
        each came as `came` says."""
        gone = {card: k for k, card in self.played}
        held = [(t, gone.get(card, NUM_CARDS), card) for card, t in came.items()]
        totals = list(self.log_priors)
        for d, contexts in self.steps:
            if contexts is not None:
                then = [c for t, g, c in held if t <= d.trick <= g]
                marks = _hand_marks(contexts[0], then)
                for i, ctx in enumerate(contexts):
                    totals[i] += _play_log_likelihood(ctx, then, d.chosen, marks)
            else:
                before = [c for t, g, c in held if t <= d.trick < g]
                if before:
                    for i, style in enumerate(self.styles):
                        totals[i] += _trump_log_likelihood(d, self.increasing, before, style.trump)
        return totals


def weighted_determinizer(s: WitchesState, seat: int, worlds: int = WORLDS, temper: float = TEMPER,
                          styles: Sequence[Style] = STYLES,
                          placements: int = PLACEMENTS) -> Callable[[random.Random], WitchesState]:
    """Samples of what `seat` cannot see, drawn from `worlds` uniform deals weighted by the
    likelihood of the other seats' choices, each averaged over `placements` placements of their
    past hands (see the module); uniform before anyone chose."""
    histories = {other: SeatHistory(ds, s.increasing, styles)
                 for other, ds in decisions_of_others(s, seat).items() if ds}
    if not histories:
        return lambda rng: determinize(s, seat, rng)
    # the pool is a function of the position alone, so a seeded search replays
    rng = random.Random(f"{seat}:{len(s.tricks)}:{s.trick}:{s.phase}")
    pool: list[WitchesState] = []
    logs: list[float] = []
    for _ in range(worlds):
        sample = determinize(s, seat, rng)
        pool.append(sample)
        logs.append(temper * sum(h.log_likelihood(cards_of(sample.hands[other]), rng, placements)
                                 for other, h in histories.items()))
    top = max(logs)
    cumulative: list[float] = []
    total = 0.0
    for log in logs:
        total += math.exp(log - top)
        cumulative.append(total)
    return lambda rng: pool[bisect.bisect_right(cumulative, rng.random() * total)].clone()
