"""ISMCTS through the engine protocol: legality, budgets, progress, reproducibility, known answers.

Fast and deterministic: fixed seeds, iteration caps only (time caps generous),
no timing assertions. Runs over every registered game plus the toy game.
"""

from __future__ import annotations

import random

import pytest

from ai.levels import LEVELS, Level, get_level
from ai.play import choose_move
from ai.search import Progress, search
from engine import CHANCE, TERMINAL, all_games, get_game
from engine.core import Game, State
from tests.toy_games import TOY, Play, ToyState, ToyTricks, card_of

GAMES: list[Game] = [*all_games(), TOY]
IDS = [g.info.id for g in GAMES]
ENCHANTERS_GAME = get_game("enchanters")
GENEROUS = 60.0  # seconds: a time cap that never binds in these tests


def decision_states(game: Game, n: int, seed: int, every: int = 1):
    """Yield (state, seat) at player decisions along a random game (chance sampled)."""
    rng = random.Random(seed)
    state = game.new_state(n, game.validate_options({}))
    count = 0
    while (player := game.current_player(state)) != TERMINAL:
        if player == CHANCE:
            game.step(state, game.sample_chance(state, rng))
            continue
        if count % every == 0:
            yield state.clone(), player
        count += 1
        game.step(state, rng.choice(game.legal_moves(state)))


def spread(items: list, count: int) -> list:
    """At most `count` items evenly spaced through `items` (first and last included)."""
    if len(items) <= count:
        return items
    return [items[round(i * (len(items) - 1) / (count - 1))] for i in range(count)]


def first_decision(game: Game, n: int, seed: int = 0) -> tuple[State, int]:
    return next(decision_states(game, n, seed))


# --- levels -----------------------------------------------------------------


def test_levels_are_ordered_and_serialisable() -> None:
    assert list(LEVELS) == ["random", "easy", "medium", "hard"]
    budgets = [(lv.iterations, lv.seconds) for lv in LEVELS.values()]
    assert budgets == sorted(budgets)
    assert LEVELS["random"].iterations == 0 and LEVELS["random"].seconds == 0
    for name, level in LEVELS.items():
        assert get_level(name) is level
        assert level.to_json() == {
            "name": name, "iterations": level.iterations,
            "seconds": level.seconds, "blunder": level.blunder, "description": level.description,
        }


def test_unknown_level_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        get_level("grandmaster")


# --- legality -----------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_never_returns_an_illegal_move(game: Game) -> None:
    """Many states of every game and player count; the move is always legal in the real state."""
    level = Level("test", 40, GENEROUS, "tiny search")
    rng = random.Random(7)
    counts = sorted({game.info.min_players, game.info.max_players})
    for n in counts:
        for seed in range(2):
            for state, seat in spread(list(decision_states(game, n, seed)), 15):
                legal = game.legal_moves(state)
                move = choose_move(game, state, seat, level, rng)
                assert move in legal
                game.check_move(state, move)  # the checked edge agrees


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_random_level_plays_legal_moves_of_every_kind(game: Game) -> None:
    rng = random.Random(3)
    state, seat = next(
        (s, p) for s, p in decision_states(game, game.info.min_players, 1)
        if len(game.legal_moves(s)) > 1
    )
    legal = game.legal_moves(state)
    chosen = {choose_move(game, state, seat, "random", rng) for _ in range(200)}
    assert chosen <= set(legal)
    assert len(chosen) > 1  # uniform, not always the first move


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_search_does_not_change_the_real_state(game: Game) -> None:
    state, seat = first_decision(game, game.info.max_players)
    before = game.encode(state)
    search(game, state, seat, random.Random(1), iterations=50, seconds=GENEROUS)
    assert game.encode(state) == before


def test_refuses_to_move_for_a_seat_that_is_not_to_act() -> None:
    state, seat = first_decision(TOY, 2)
    with pytest.raises(ValueError, match="cannot move"):
        choose_move(TOY, state, 1 - seat, "easy", random.Random(0))
    with pytest.raises(ValueError, match="chance"):
        choose_move(TOY, TOY.new_state(2), 0, "easy", random.Random(0))


# --- budget, progress, reproducibility ---------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_respects_the_iteration_budget(game: Game) -> None:
    state, seat = first_decision(game, game.info.min_players)
    reports: list[Progress] = []
    result = search(game, state, seat, random.Random(2), iterations=123, seconds=GENEROUS,
                    on_progress=reports.append, stop_early=False)
    assert result.iterations == 123
    assert sum(result.visits.values()) == 123  # every iteration went through one root move
    assert reports[-1].iterations == 123
    assert reports[-1].best_move == max(result.visits, key=result.visits.__getitem__)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_stopping_early_never_changes_the_choice(game: Game) -> None:
    """The search stops once the leader cannot be overtaken; the full budget picks the same move."""
    stopped_sooner = 0
    choices = [(s, p) for s, p in decision_states(game, game.info.min_players, seed=8)
               if len(game.legal_moves(s)) > 1]
    for state, seat in spread(choices, 6):
        early = search(game, state, seat, random.Random(6), iterations=200, seconds=GENEROUS)
        full = search(game, state, seat, random.Random(6), iterations=200, seconds=GENEROUS,
                      stop_early=False)
        assert early.move == full.move
        assert early.iterations <= full.iterations == 200
        stopped_sooner += early.iterations < 200
    assert stopped_sooner


def test_reports_progress_through_the_callback() -> None:
    state, seat = first_decision(TOY, 3)
    reports: list[Progress] = []
    level = Level("test", 400, GENEROUS, "")
    move = choose_move(TOY, state, seat, level, random.Random(4),
                       on_progress=reports.append, progress_every=0.0)
    assert len(reports) > 2  # periodic reports plus the final one
    iterations = [r.iterations for r in reports]
    assert iterations == sorted(iterations) and 0 < iterations[-1] <= 400
    elapsed = [r.elapsed for r in reports]
    assert elapsed == sorted(elapsed)
    assert reports[-1].best_move == move
    assert all(r.best_visits <= r.iterations for r in reports)


def test_no_progress_report_between_long_intervals() -> None:
    state, seat = first_decision(TOY, 2)
    reports: list[Progress] = []
    search(TOY, state, seat, random.Random(4), iterations=300, seconds=GENEROUS,
           on_progress=reports.append, progress_every=GENEROUS)
    assert len(reports) == 1 and 0 < reports[0].iterations <= 300  # only the final report


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_seeded_searches_are_reproducible(game: Game) -> None:
    state, seat = first_decision(game, game.info.max_players, seed=5)
    runs = [
        search(game, state, seat, random.Random(99), iterations=300, seconds=GENEROUS)
        for _ in range(2)
    ]
    assert runs[0].visits == runs[1].visits
    assert runs[0].values == runs[1].values
    assert runs[0].move == runs[1].move


class _NoSearchToy(ToyTricks):
    """A toy game whose determinize fails: proves a forced move is returned without searching."""

    def determinize(self, state: ToyState, seat: int, rng: random.Random) -> ToyState:
        raise AssertionError("searched a forced move")


def test_single_legal_move_is_returned_at_once() -> None:
    game = _NoSearchToy()
    state, seat = next(
        (s, p) for s, p in decision_states(game, 2, 0) if len(game.legal_moves(s)) == 1
    )
    reports: list[Progress] = []
    move = choose_move(game, state, seat, "hard", random.Random(0), on_progress=reports.append)
    assert move == game.legal_moves(state)[0]
    assert [(r.iterations, r.best_move) for r in reports] == [(0, move)]


# --- blunders -------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_blundering_level_plays_legal_moves_the_same_for_a_seed(game: Game) -> None:
    level = Level("test", 40, GENEROUS, "", blunder=0.5)
    for state, seat in spread(list(decision_states(game, game.info.min_players, 2)), 10):
        moves = [choose_move(game, state, seat, level, random.Random(11)) for _ in range(2)]
        assert moves[0] == moves[1] and moves[0] in game.legal_moves(state)
        game.check_move(state, moves[0])


def test_a_level_that_always_blunders_plays_a_random_move_without_searching() -> None:
    game = _NoSearchToy()  # its determinize fails: no search ran
    state, seat = next((s, p) for s, p in decision_states(game, 2, 0) if len(game.legal_moves(s)) > 2)
    level = Level("test", 10**9, 0.0, "", blunder=1.0)
    chosen = {choose_move(game, state, seat, level, random.Random(seed)) for seed in range(60)}
    assert chosen <= set(game.legal_moves(state)) and len(chosen) > 2


def test_a_level_without_blunders_plays_its_search_move() -> None:
    """No blunder chance draws nothing from the generator: the move is the search's for that seed."""
    for state, seat in spread(list(decision_states(ENCHANTERS_GAME, 2, 4)), 6):
        if len(ENCHANTERS_GAME.legal_moves(state)) < 2:
            continue
        found = search(ENCHANTERS_GAME, state, seat, random.Random(8), iterations=60, seconds=GENEROUS)
        level = Level("test", 60, GENEROUS, "")
        assert choose_move(ENCHANTERS_GAME, state, seat, level, random.Random(8)) == found.move



# --- known answers ----------------------------------------------------------


class _HighestCardToy(ToyTricks):
    """A toy game with a heuristic (the search's first expansion): play the highest legal card."""

    def heuristic_move(self, state: ToyState, rng: random.Random) -> Play:
        return max(self.legal_moves(state))


def _leading_decision(game: Game) -> tuple[State, int]:
    """The first decision of a 2-player toy game: seat 0 leads, all four cards legal."""
    state, seat = first_decision(game, 2)
    assert len(game.legal_moves(state)) == 4
    return state, seat


def test_the_heuristic_move_is_expanded_first() -> None:
    game = _HighestCardToy()
    state, seat = _leading_decision(game)
    result = search(game, state, seat, random.Random(0), iterations=1, stop_early=False)
    assert list(result.visits) == [max(game.legal_moves(state))]


def test_a_heuristic_widens_the_node_progressively() -> None:
    """With a heuristic, a node visited n times has tried about sqrt(n) + 1 moves; without, all."""
    game = _HighestCardToy()
    state, seat = _leading_decision(game)
    widened = search(game, state, seat, random.Random(0), iterations=8, stop_early=False)
    assert len(widened.visits) == 3
    plain = search(TOY, state, seat, random.Random(0), iterations=8, stop_early=False)
    assert len(plain.visits) == 4


class _WideHighestCardToy(_HighestCardToy):
    """The same toy, opening a node's other moves four times sooner (`Game.search_widening`)."""

    search_widening = 4.0


def test_a_game_sets_how_soon_the_search_widens() -> None:
    """`search_widening` 4: the k-th move after k**2 / 4 visits, so 4 visits open every move."""
    state, seat = _leading_decision(_HighestCardToy())
    narrow = search(_HighestCardToy(), state, seat, random.Random(0), iterations=4, stop_early=False)
    wide = search(_WideHighestCardToy(), state, seat, random.Random(0), iterations=4, stop_early=False)
    assert len(narrow.visits) < len(wide.visits) == 4


def test_the_search_overrules_a_bad_heuristic() -> None:
    """The heuristic only orders the search: here it suggests 0H, which loses, and 4S still wins."""
    game = _HighestCardToy()
    state = toy_last_tricks()
    assert game.heuristic_move(state, random.Random(0)) == Play(card_of("0H"))
    for seed in range(3):
        move = choose_move(game, state, 0, Level("test", 500, GENEROUS, ""), random.Random(seed))
        assert move == Play(card_of("4S"))


def toy_last_tricks() -> ToyState:
    """Toy, 2 players, hand 3: seat 0 won trick 1 and leads trick 2 holding 4S (top spade) and 0H.

    Leading 4S takes trick 2 for sure: 2 tricks of 3, a certain win. Leading 0H
    loses the trick whenever seat 1 holds a heart.
    """
    state = TOY.new_state(2, {"hand": 3})
    state.hands = [1 << card_of("4S") | 1 << card_of("0H"), 1 << card_of("2H") | 1 << card_of("1C")]
    played = [card_of("3C"), card_of("2C")]
    dealt = state.hands[0] | state.hands[1]
    for card in played:
        dealt |= 1 << card
    state.dealt = 6
    state.deck = ((1 << 15) - 1) & ~dealt
    state.played = (1 << played[0]) | (1 << played[1])
    state.tricks = [1, 0]
    state.leader = state.turn = 0
    return state


def test_toy_takes_the_trick_that_wins_the_game() -> None:
    state = toy_last_tricks()
    for seed in range(3):
        move = choose_move(TOY, state, 0, Level("test", 500, GENEROUS, ""), random.Random(seed))
        assert move == Play(card_of("4S"))


def witches_penultimate_trick() -> State:
    """Witches, 2 players, pile empty, trump green-5 (decreasing: 5 > 4 > 3 …).

    Seat 1 led red-9; seat 0 holds green-4 (the strongest trump left) and
    orange-1. Seat 1 is 5 points ahead (yellow-8 vs yellow-3). green-4 takes
    red-9 (+9): seat 0 then leads 12 to 8 with one card each, and the last
    trick can cost it at most orange-1: a certain win. orange-1 hands seat 1
    the trick (9 to 3), and the game is very likely lost.
    """
    from engine.witches import mask_of, parse_card
    from engine.witches.cards import ALL_CARDS
    from engine.witches.state import PLAY, WitchesState

    c = parse_card
    state = WitchesState.initial(2, increasing=False)
    state.hands = [mask_of([c("green-4"), c("orange-1")]), mask_of([c("blue-2")])]
    state.captured = [mask_of([c("yellow-3")]), mask_of([c("yellow-8")])]
    state.trump = c("green-5")
    state.trick = (c("red-9"),)
    used = state.hands[0] | state.hands[1] | state.captured[0] | state.captured[1]
    used |= mask_of([c("green-5"), c("red-9")])
    state.pile = 0
    state.discard = ALL_CARDS & ~used
    state.phase = PLAY
    state.pending = 0
    state.leader = 1
    state.turn = 0
    return state


@pytest.mark.skipif("witches" not in {g.info.id for g in all_games()}, reason="witches not registered")
def test_witches_takes_the_trick_that_wins_the_game() -> None:
    game = get_game("witches")
    state = witches_penultimate_trick()
    from engine.witches import Play

    assert set(game.legal_moves(state)) == {Play.of("green-4"), Play.of("orange-1")}
    for seed in range(3):
        result = search(game, state, 0, random.Random(seed), iterations=300, seconds=GENEROUS)
        assert result.move == Play.of("green-4")
        assert result.values[Play.of("green-4")] > result.values[Play.of("orange-1")]


# --- trees by hand (trees "others" and "hands", issue 35's multiple-observer tree) ----------


def test_an_unknown_search_tree_is_refused() -> None:
    state, seat = first_decision(TOY, 2)
    with pytest.raises(ValueError, match="unknown search tree"):
        search(TOY, state, seat, random.Random(0), iterations=10, tree="observers")
    with pytest.raises(ValueError, match="unknown search tree"):
        choose_move(TOY, state, seat, Level("test", 10, GENEROUS, "", tree="observers"), random.Random(0))


@pytest.mark.parametrize("tree", ["others", "hands"])
@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_tree_by_hand_plays_legal_moves_the_same_for_a_seed(game: Game, tree: str) -> None:
    for state, seat in spread(list(decision_states(game, 2, seed=3)), 4):
        runs = [search(game, state, seat, random.Random(7), iterations=300, seconds=GENEROUS, tree=tree)
                for _ in range(2)]
        assert runs[0].move in game.legal_moves(state)
        assert runs[0].visits == runs[1].visits and runs[0].move == runs[1].move


def witches_known_hands(seed: int) -> tuple[State, int]:
    """A 2-player witches decision whose unseen cards are exactly the other seat's hand (the rest
    discarded, the pile spent), so every sample deals that seat the same hand."""
    from engine.witches import mask_of
    from engine.witches.cards import ALL_CARDS

    game = get_game("witches")
    state, seat = next((s, p) for s, p in decision_states(game, 2, seed) if len(s.tricks) >= 12
                       and len(game.legal_moves(s)) > 1 and s.hands[1 - p].bit_count() > 1)
    kept = state.hands[0] | state.hands[1] | state.captured[0] | state.captured[1]
    kept |= mask_of([state.trump, *state.trick])
    state.pile = 0
    state.discard = ALL_CARDS & ~kept
    return state, seat


@pytest.mark.parametrize("tree", ["others", "hands"])
def test_known_hands_make_a_tree_by_hand_the_single_observers(tree: str) -> None:
    # with the pile spent, every sample gives each seat the same key all along, so its own
    # statistics are the shared ones
    game = get_game("witches")
    for seed in range(3):
        state, seat = witches_known_hands(seed)
        single, by_hand = (search(game, state, seat, random.Random(seed), iterations=400, seconds=GENEROUS,
                                  tree=kind) for kind in ("", tree))
        assert by_hand.visits == single.visits and by_hand.move == single.move


def test_the_others_tree_lets_the_other_seat_choose_by_its_own_hand() -> None:
    # where the other hand is unknown, the same seed searches differently once it chooses by it (the
    # inferred samples come from a pool of deals, so a hand comes back to a node within 600 of them)
    game = get_game("witches")
    differ = 0
    for state, seat in spread(list(decision_states(game, 2, seed=11)), 6):
        single, hands = (search(game, state, seat, random.Random(5), iterations=600, seconds=GENEROUS,
                                sampling="inferred:search", tree=tree) for tree in ("", "others"))
        differ += hands.visits != single.visits
    assert differ >= 4


def test_the_hands_tree_lets_the_searching_seat_choose_by_what_it_drew() -> None:
    # "hands" differs from "others" only at the searching seat's later choices, keyed by its sampled draws
    game = get_game("witches")
    differ = 0
    for seed in range(4):
        state, seat = next((s, p) for s, p in decision_states(game, 2, seed) if len(s.tricks) == 10)
        others, hands = (search(game, state, seat, random.Random(seed), iterations=600, seconds=GENEROUS,
                                tree=tree) for tree in ("others", "hands"))
        differ += hands.visits != others.visits
    assert differ >= 3
