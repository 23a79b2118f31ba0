"""Test opponents at The Witches' Wheel for `make strength`: a strong hand-written player, and a
perfect-information Monte Carlo (PIMC) player. Both play from what their seat may see.

The strong player: the simple player's heuristics (`engine.witches.policy`) made sharper — a
follower wins a trick with its weakest winning card of the led colour, trumps only when the
witches at stake are worth the trump, and throws the card that gives least away — and, once the
pile can no longer deal (W13), exact play: the move with the best mean solved value over every
deal of the unseen cards it samples (`engine.witches.endgame`).

The PIMC player (`ai.pimc`): 40 sampled worlds, every move valued by playouts, and exactly once the
pile is spent — as the outside PIMC player of issue 35.

A measurement, not an opponent: `clairvoyant_hard`, the `hard` level searching the true deal (the
other hands, not the pile's order, which chance still draws) in every sample, bounds what any
inference of the unseen cards could buy `hard` (docs/bots/index.md); `clairvoyant_regrets` shows
at which of `hard`'s choices seeing the other hand pays, and `ClairvoyantIn` how many games it wins
in each part of the hand (docs/bots/index.md). `PartlySeeing` makes only a share of the samples the
true deal. `knowing_hard` knows the strong player's rules instead of its cards (its hand sampled from
the exact posterior those rules give, `rule_histories`), and `exploiting_hard` also expects the
strong player's moves in its tree: what the best possible model of this opponent could buy.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ai.arena import Policy, _act, play_game
from ai.levels import Level
from ai.play import choose_move
from ai.search import search
from engine.core import AnyGame, Move, Seat, State
from engine.registry import get_game
from engine.witches.cards import BIT, COLOUR, KEYS, LED_KEYS, TRUMP_BONUS, VALUE, Card, cards_of
from engine.witches.endgame import exact_returns, is_endgame
from engine.witches.game import WitchesGame
from engine.witches.inference import Decision, decisions_of_others, draw_tricks
from engine.witches.moves import PLAYS, WitchesMove
from engine.witches.policy import policy_move, trump_choice
from engine.witches.rules import legal_moves, step
from engine.witches.state import DECIDE, PLAY, WitchesState
from engine.witches.views import determinize

#: Worlds the strong player solves in the endgame.
ENDGAME_WORLDS = 20
#: A PIMC player: about 40 worlds of a 6-card hand (its budget counts a world's move once).
PIMC = Level("pimc", 240, 0.0, "PIMC: 40 worlds, playouts, exact after the last draw.", method="pimc",
             exact=True)


def strong_player(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """The strong hand-written player's move for `seat` (see the module)."""
    sample = game.determinize(state, seat, rng)
    if is_endgame(sample):
        return _solved_move(game, state, seat, rng)
    if sample.phase != PLAY:
        return policy_move(sample, rng)
    return _play(sample)


def _play(s: WitchesState) -> WitchesMove:
    """W7: a lead or an answer, from the seat's own hand and the table only."""
    return PLAYS[strong_play(s.hands[s.turn], s.trick, s.trump, s.increasing, s.n)]


def strong_play(hand_mask: int, table: Sequence[Card], trump: Card, increasing: bool, n: int) -> Card:
    """The strong player's card (W7) from the hand `hand_mask` (a card mask), `table` the trick so far."""
    hand = cards_of(hand_mask)
    keys = KEYS[increasing][trump]
    cheapest = min(hand, key=lambda c: (keys[c] >= TRUMP_BONUS, VALUE[c], keys[c]))
    if not table:
        # lead a card that costs little if lost: a low witch that is not a trump
        return cheapest
    led = LED_KEYS[increasing][trump][COLOUR[table[0]]]
    best = max(led[c] for c in table)
    at_stake = sum(VALUE[c] for c in table)
    last = len(table) == n - 1
    winning = [c for c in hand if led[c] > best]
    plain = [c for c in winning if led[c] < TRUMP_BONUS]
    if plain and (last or at_stake >= 3):
        # the weakest plain winner, and among equals the one worth most (it goes to the discard)
        return min(plain, key=lambda c: (led[c], -VALUE[c]))
    trumps = [c for c in winning if led[c] >= TRUMP_BONUS]
    if trumps and at_stake + VALUE[cheapest] >= 6 and (last or at_stake >= 6):
        return min(trumps, key=lambda c: (led[c], -VALUE[c]))
    return cheapest


def _solved_move(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """The move with the best mean exact value over sampled deals of the unseen cards."""
    moves = legal_moves(state)
    totals = [0.0] * len(moves)
    for _ in range(ENDGAME_WORLDS):
        world = game.determinize(state, seat, rng)
        for k, move in enumerate(moves):
            after = world.clone()
            step(after, move)
            totals[k] += exact_returns(after)[seat]  # exact at the end of the hand too (shared table)
    return moves[max(range(len(moves)), key=totals.__getitem__)]


class SeeingWitches(WitchesGame):
    """The Witches' Wheel with every determinization the true state: a search on it sees all hands."""

    def determinize(self, state: WitchesState, seat: Seat, rng: random.Random) -> WitchesState:
        return state.clone()

    def search_determinizer(self, state: WitchesState, seat: Seat,
                            sampling: str) -> Callable[[random.Random], WitchesState]:
        """The true state whatever the level's sampling: `hard`'s inferred deals draw their own."""
        return lambda rng: state.clone()


_SEEING = SeeingWitches()


def _searching(searched: AnyGame, state: State, seat: Seat, rng: random.Random,
               level: Level | str = "hard") -> Move:
    """The move `level` (`hard` by default) makes in `state` searching `searched`, one of the
    measuring games below, whose samples say what the level may know of the other hand."""
    assert isinstance(state, WitchesState)
    move: Move = choose_move(searched, state, seat, level, rng)
    return move


@dataclass(frozen=True)
class PartlySeeing:
    """`hard` whose samples are the true deal with probability `share`, else its own inferred deals:
    how sure of the other hand a belief must be before it wins games (docs/bots/index.md)."""

    share: float

    def __call__(self, game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
        return _searching(_PartlySeeingWitches(self.share), state, seat, rng)


class _PartlySeeingWitches(WitchesGame):
    def __init__(self, share: float) -> None:
        super().__init__()
        self.share = share

    def search_determinizer(self, state: WitchesState, seat: Seat,
                            sampling: str) -> Callable[[random.Random], WitchesState]:
        own = super().search_determinizer(state, seat, sampling)
        return lambda rng: state.clone() if rng.random() < self.share else own(rng)


def clairvoyant_hard(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """`hard`'s move for `seat` when it searches the true deal (see the module)."""
    return _searching(_SEEING, state, seat, rng)


# --- knowing the strong player's rules, not its cards ------------------------------------------


def rule_events(s: WitchesState, seat: Seat) -> list[tuple[str, Decision | None]]:
    """The other seat's plays (W7), trump decisions (W11) and draws (W12) so far, in order, from what
    `seat` sees (two players): ("play" | "trump", its decision) or ("draw", None)."""
    decisions = decisions_of_others(s, seat)[1 - seat]
    done = len(s.tricks) - (1 if s.phase == DECIDE else 0)  # tricks whose draws were made, if any
    draws = draw_tricks(s.n)
    events: list[tuple[str, Decision | None]] = []
    for k in range(len(s.tricks) + 1):
        events.extend((d.kind, d) for d in decisions if d.trick == k)
        if k < min(done, draws):
            events.append(("draw", None))
    return events


def rule_histories(events: Sequence[tuple[str, Decision | None]], hand: int, increasing: bool,
                   memo: dict[tuple[int, int], int]) -> int:
    """How many histories (the deal, then each draw) that end in `hand` (a card mask) make the
    strong player choose as it did at every play and trump decision before the endgame (its endgame
    moves solve sampled deals, so they are not checked). A uniform deal and uniform draws make every
    history equally likely, so this is proportional to the likelihood of its choices given `hand`.
    `memo` (a dict, shared by the hands of one position) keeps the counts by (event, hand then)."""

    def back(i: int, h: int) -> int:
        if i < 0:
            return 1
        count = memo.get((i, h))
        if count is not None:
            return count
        kind, d = events[i]
        if d is None:  # a draw: any card of the hand after it may have been the one drawn
            count = sum(back(i - 1, h ^ BIT[c]) for c in cards_of(h))
        elif kind == "play":
            before = h | BIT[d.chosen]
            chosen = d.late or strong_play(before, d.table, d.trump, increasing, 2) == d.chosen
            count = back(i - 1, before) if chosen else 0
        else:
            won = sum(BIT[c] for c in d.table)
            chosen = d.late or trump_choice(h, d.trump, won) == d.chosen
            count = back(i - 1, h) if chosen else 0
        memo[(i, h)] = count
        return count

    return back(len(events) - 1, hand)


class KnowingWitches(WitchesGame):
    """The Witches' Wheel for a search that knows the other seat plays the strong player's rules
    (two players): each sample's deal is drawn from uniform deals of the unseen cards in proportion
    to `rule_histories` of the other hand, the exact posterior of that hand given its choices."""

    #: Uniform deals weighed per search, at least; more (up to `TRIES`) until `WANTED` fit.
    POOL, WANTED, TRIES = 600, 200, 6000

    def search_determinizer(self, state: WitchesState, seat: Seat,
                            sampling: str) -> Callable[[random.Random], WitchesState]:
        events = rule_events(state, seat)
        if not events:
            return super().search_determinizer(state, seat, sampling)
        rng = random.Random(f"{seat}:{len(state.tricks)}:{state.trick}:{state.phase}")
        memo: dict[tuple[int, int], int] = {}
        pool: list[WitchesState] = []
        cumulative: list[int] = []
        total = tries = 0
        while tries < self.TRIES and (tries < self.POOL or len(pool) < self.WANTED):
            tries += 1
            sample = determinize(state, seat, rng)
            weight = rule_histories(events, sample.hands[1 - seat], state.increasing, memo)
            if weight:
                total += weight
                pool.append(sample)
                cumulative.append(total)
        if not pool:  # only if the other seat is not the strong player
            return super().search_determinizer(state, seat, sampling)
        return lambda r: pool[bisect.bisect_right(cumulative, r.random() * total)].clone()


class ExploitingWitches(KnowingWitches):
    """`KnowingWitches` whose tree lets the other seat make only the strong player's move before
    the endgame: a search for the best reply to its rules, where `hard`'s tree expects a search."""

    searcher: Seat = 0

    def search_determinizer(self, state: WitchesState, seat: Seat,
                            sampling: str) -> Callable[[random.Random], WitchesState]:
        # a search asks for its determinizer once, before its first walk; one search at a time per
        # process (as in `play_match`), so one instance serves
        self.searcher = seat
        return super().search_determinizer(state, seat, sampling)

    def legal_moves(self, state: WitchesState) -> list[WitchesMove]:  # type: ignore[override]
        moves = legal_moves(state)
        if state.turn == self.searcher or len(moves) < 2 or is_endgame(state):
            return moves
        if state.phase == PLAY:
            return [_play(state)]
        return [policy_move(state)]


_KNOWING = KnowingWitches()
_EXPLOITING = ExploitingWitches()


def knowing_hard(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """`hard`'s move when it knows the other seat's rules, not its cards (`KnowingWitches`)."""
    return _searching(_KNOWING, state, seat, rng)


def exploiting_hard(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
    """`knowing_hard` whose tree also expects the strong player's moves (`ExploitingWitches`)."""
    return _searching(_EXPLOITING, state, seat, rng)


@dataclass(frozen=True)
class ClairvoyantIn:
    """A level (`hard` unless named) searching the true deal only while `first` <= tricks played <
    `last`, and as it plays otherwise: how many games seeing the other hand wins in each part of
    the hand (docs/bots/index.md). Picklable, for `play_match`'s processes."""

    first: int
    last: int
    level: Level | str = "hard"

    def searched(self, game: AnyGame, state: WitchesState) -> AnyGame:
        """The game the level searches in `state`: the true deal's inside the range, else `game`."""
        return _SEEING if self.first <= len(state.tricks) < self.last else game

    def __call__(self, game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
        assert isinstance(state, WitchesState)
        return _searching(self.searched(game, state), state, seat, rng, self.level)


@dataclass(frozen=True)
class Choice:
    """One choice of a player judged by a search of the true deal: the clairvoyant's mean reward
    for its own choice (`best`) and for the player's (`chosen`), rewards as the search counts them."""

    trick: int   # tricks already played
    kind: str    # "lead", "follow" or "decide" (the trump decision, W11)
    pile: int    # cards left in the pile (under 2: after the last draw, W13)
    same: bool   # the player chose the clairvoyant's move
    best: float
    chosen: float


class _Recording:
    """A policy that keeps every (state, seat, move) it chose (picklable)."""

    def __init__(self, player: Policy) -> None:
        self.player = player
        self.choices: list[tuple[WitchesState, Seat, Move]] = []

    def __call__(self, game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
        move = _act(self.player, game, state, seat, rng)
        assert isinstance(state, WitchesState)
        self.choices.append((state.clone(), seat, move))
        return move


def clairvoyant_regrets(seed: str, index: int, player: Policy = "hard",
                        simulations: int = 15000) -> tuple[float, list[Choice]]:
    """Game `index` of `seed` as `play_match` plays `player` (a level or a policy) against the strong
    player (`player` in seat `index mod 2`), and each of its choices among two or more moves judged
    by a search of the true deal (`simulations`, exact endgame): its score and its choices."""
    recording = _Recording(player)
    seat_a = index % 2
    policies: list[Policy] = [strong_player, strong_player]
    policies[seat_a] = recording
    winners, _ = play_game(get_game("witches"), policies, f"{seed}:{index}")
    choices = []
    for number, (state, seat, move) in enumerate(recording.choices):
        if len(legal_moves(state)) < 2:
            continue
        found = search(_SEEING, state, seat, random.Random(f"{seed}:{index}:{number}"), simulations,
                       exact=True)
        kind = "decide" if state.phase == DECIDE else "follow" if state.trick else "lead"
        choices.append(Choice(len(state.tricks), kind, state.pile.bit_count(), move == found.move,
                              found.values[found.move], found.values[move]))
    return (1.0 / len(winners) if seat_a in winners else 0.0), choices
