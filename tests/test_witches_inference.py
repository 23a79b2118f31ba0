"""Samples weighted by the other seats' own choices (`engine.witches.inference`, the "inferred"
sampling of a level): the public history read back, the placements of the cards a seat held, the
likelihoods, the fit of the weights, and that the samples never read what the seat cannot see."""

from __future__ import annotations

import collections
import itertools
import math
import random

import pytest

from ai.levels import Level
from ai.play import choose_move
from ai.witches_inference import fit, game_decisions, mean_log_likelihood
from engine.witches import GAME, Trump, WitchesState
from engine.witches.cards import BIT, cards_of, parse_card
from engine.witches.inference import (
    PLAY_FEATURES,
    STYLES,
    TRUMP_FEATURES,
    Decision,
    SeatHistory,
    _play_context,
    _play_log_likelihood,
    decisions_of_others,
    determinizer_named,
    place_cards,
    play_features,
    styles_named,
    trump_history,
    weighted_determinizer,
)
from engine.witches.policy import policy_move
from engine.witches.state import DECIDE, PLAY
from tests.test_witches_rules import cards, random_game


def played_games(players: int, seeds: range) -> list[list[tuple[WitchesState, object]]]:
    return [list(random_game(players, seed)) for seed in seeds]


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_w10_w11_every_seat_reads_the_same_history_back_from_the_public_cards(players: int) -> None:
    """The trump card of every trick, and every other seat's plays and trump decisions, as they
    happened: from the finished tricks, captured and discarded cards alone."""
    for game in played_games(players, range(6)):
        happened: list[tuple[int, str, int, int, int]] = []  # (seat, kind, trick, trump, card)
        for state, move in game:
            seat = GAME.current_player(state)
            if state.phase in (PLAY, DECIDE) and move is not None:
                seen = trump_history(state)
                assert seen[-1] == state.trump and len(seen) == len(state.tricks) + 1
                for looking in range(players):
                    read = {o: [(d.kind, d.trick, d.trump, d.chosen) for d in ds]
                            for o, ds in decisions_of_others(state, looking).items()}
                    expected = {o: [(kind, k, trump, card) for who, kind, k, trump, card in happened if who == o]
                                for o in range(players) if o != looking}
                    assert read == expected
                k = len(state.tricks)
                if state.phase == PLAY:
                    happened.append((seat, "play", k, state.trump, move.card))  # type: ignore[attr-defined]
                else:
                    given = move.card if isinstance(move, Trump) else -1
                    happened.append((seat, "trump", k - 1, state.trump, given))


def test_w12_placements_are_uniform_over_those_the_plays_allow() -> None:
    """A seat dealt 6 that drew after tricks 0 and 1 and played x at trick 0 and y at trick 1: x came
    in the deal, y in the deal or the first draw; every allowed placement equally often."""
    x, y, *hand = range(8)
    played = [(0, x), (1, y)]
    times = [0] * 6 + [1, 2]
    allowed = set()
    for order in itertools.permutations(range(8)):
        came = dict(zip(range(8), (times[i] for i in order), strict=True))
        if came[x] <= 0 and came[y] <= 1:
            allowed.add(tuple(sorted(came.items())))
    rng = random.Random(4)
    counts = collections.Counter(tuple(sorted(place_cards(played, hand, rng).items())) for _ in range(20000))
    assert set(counts) == allowed
    expected = 20000 / len(allowed)
    assert all(abs(n - expected) < 6 * math.sqrt(expected) for n in counts.values())


def test_w12_the_kept_placement_brings_every_played_card_in_the_last_draw_its_play_allows() -> None:
    """Dealt 6, drawing after tricks 0, 1 and 2, playing y, w, x at tricks 0, 1, 2: kept, y came in
    the deal, w in the first draw, x in the second, whatever the generator; the hand held now
    fills the rest (five from the deal, one from the third draw)."""
    y, w, x, *hand = range(9)
    played = [(2, x), (0, y), (1, w)]
    for seed in range(5):
        came = place_cards(played, hand, random.Random(seed), kept=True)
        assert (came[y], came[w], came[x]) == (0, 1, 2)
        assert sorted(came[c] for c in hand) == [0, 0, 0, 0, 0, 3]


@pytest.mark.parametrize("players", [2, 3, 5])
def test_w12_the_hands_rebuilt_hold_the_card_played_and_as_many_as_the_seat_held(players: int) -> None:
    rng = random.Random(players)
    for game in played_games(players, range(4)):
        sizes = {(s.turn, len(s.tricks)): s.hands[s.turn].bit_count() for s, m in game if s.phase == PLAY and m}
        for state, _ in game[::7]:
            if GAME.current_player(state) < 0:
                continue
            seat = state.turn
            sample = GAME.determinize(state, seat, rng)
            for other, decisions in decisions_of_others(state, seat).items():
                played = [(d.trick, d.chosen) for d in decisions if d.kind == "play"]
                came = place_cards(played, cards_of(sample.hands[other]), rng)
                gone = {card: k for k, card in played}
                for k, card in played:
                    held = [c for c, t in came.items() if t <= k <= gone.get(c, 99)]
                    assert card in held and len(held) == sizes[(other, k)]


def test_w7_a_play_s_likelihoods_over_the_hand_add_up_to_one() -> None:
    for state, move in random_game(2, 11):
        if state.phase != PLAY or move is None or len(state.tricks) < 3:
            continue
        hand = cards_of(state.hands[state.turn])
        decision = decisions_of_others(state, 1 - state.turn)[state.turn][-1]
        context = _play_context(decision, state.increasing, STYLES[0].play)
        assert sum(math.exp(_play_log_likelihood(context, [*hand, decision.chosen], c))
                   for c in [*hand, decision.chosen]) == pytest.approx(1.0)


def test_w8_a_seat_that_let_a_rich_trick_go_is_unlikely_to_have_held_a_winner() -> None:
    """Trump red (red-5 turned up, decreasing): the other seat threw orange-1 under red-9 at the first
    trick. A hand where it held red-1, which would have taken the 9, explains that less well than
    one where it held nothing that wins (the fitted policy takes rich tricks)."""
    red_1, red_5, red_9, orange_1 = parse_card("red-1"), parse_card("red-5"), parse_card("red-9"), parse_card("orange-1")
    history = SeatHistory([Decision("play", 0, red_5, (red_9,), orange_1, False)], increasing=False)
    rest = cards("yellow-3 green-4 blue-5 violet-1")
    with_a_winner = history.log_likelihood([red_1, *rest], random.Random(1))
    without = history.log_likelihood([parse_card("orange-2"), *rest], random.Random(1))
    assert with_a_winner < without - 1.0


def test_inferred_samples_never_read_the_cards_the_seat_cannot_see() -> None:
    """Two matches alike in everything seat 0 sees but the other hand and the pile: the same samples."""
    for state, _move in random_game(2, 21):
        if state.phase == PLAY and state.turn == 0 and len(state.tricks) == 12:
            break
    other = state.clone()
    unseen = cards_of(other.hands[1] | other.pile)
    random.Random(2).shuffle(unseen)
    size = other.hands[1].bit_count()
    other.hands[1] = sum(BIT[c] for c in unseen[:size])
    other.pile = sum(BIT[c] for c in unseen[size:])
    assert other.hands[1] != state.hands[1]
    first, second = weighted_determinizer(state, 0, worlds=50), weighted_determinizer(other, 0, worlds=50)
    a, b = random.Random(8), random.Random(8)
    for _ in range(20):
        assert first(a) == second(b)


def test_inferred_samples_are_consistent_and_weighted_away_from_unlikely_hands() -> None:
    for state, _move in random_game(2, 5):
        if state.phase == PLAY and state.turn == 0 and len(state.tricks) == 15:
            break
    sampler = weighted_determinizer(state, 0, worlds=200)
    rng = random.Random(3)
    samples = [sampler(rng) for _ in range(300)]
    assert all(s.hands[0] == state.hands[0] and s.hands[1] | s.pile == state.hands[1] | state.pile
               and s.hands[1].bit_count() == state.hands[1].bit_count() for s in samples)
    assert len({s.hands[1] for s in samples}) < 200  # a weighted pool, drawn from again and again


def test_an_unknown_sampling_is_refused() -> None:
    state = next(s for s, m in random_game(2, 1) if s.phase == PLAY)
    for bad in ("inferred::0", "inferred:search:two"):
        with pytest.raises(ValueError, match="placements"):
            GAME.search_determinizer(GAME.new_state(2), 0, bad)
    for other in ("psychic", "inferredish"):  # not a sampling of the inference: the game's own refusal
        assert determinizer_named(state, state.turn, other) is None
        with pytest.raises(ValueError, match="no sampling"):
            GAME.search_determinizer(state, state.turn, other)


def test_a_level_with_inferred_samples_replays_its_moves() -> None:
    level = Level("x", 300, 0.0, "", exact=True, sampling="inferred")
    for state, _move in random_game(2, 9):
        if state.phase == PLAY and len(state.tricks) == 10:
            break
    moves = {choose_move(GAME, state, state.turn, level, random.Random(4)) for _ in range(2)}
    assert len(moves) == 1 and moves <= set(GAME.legal_moves(state))


def test_the_styles_load_one_finite_weight_a_feature_and_priors_that_sum_to_one() -> None:
    assert [style.name for style in STYLES] == ["search", "heuristic"]
    for style in STYLES:
        assert len(style.play) == len(PLAY_FEATURES) and len(style.trump) == len(TRUMP_FEATURES)
        assert all(math.isfinite(w) for w in (*style.play, *style.trump))
    assert sum(style.prior for style in STYLES) == pytest.approx(1.0)


def test_a_sampling_names_its_styles_and_their_priors_are_renormalised() -> None:
    assert styles_named("") == STYLES
    (search,) = styles_named("search")
    assert search.name == "search" and search.prior == 1.0
    with pytest.raises(ValueError, match="no inference style"):
        styles_named("search+bluffing")


def _played_by(style_of_seat_1: str, seed: int) -> WitchesState:
    """A 2-player game at its ninth trick: seat 0 random, seat 1 the simple player or a small search."""
    level = Level("x", 60, 0.0, "")
    rng = random.Random(seed)
    state = GAME.new_state(2)
    while len(state.tricks) < 8 or state.phase != PLAY or state.turn != 0:
        seat = GAME.current_player(state)
        if not isinstance(seat, int) or seat < 0:
            move = GAME.sample_chance(state, rng)
        elif seat == 1 and style_of_seat_1 == "heuristic":
            move = policy_move(state, rng)
        elif seat == 1:
            move = choose_move(GAME, state, seat, level, rng)
        else:
            move = rng.choice(GAME.legal_moves(state))
        state = GAME.apply(state, move)
    return state


def _style_totals(style: str, seed: int) -> list[list[float]]:
    state = _played_by(style, seed)
    history = SeatHistory(decisions_of_others(state, 0)[1], state.increasing)
    hand = cards_of(state.hands[1])
    return [history.style_log_likelihoods(hand, random.Random(k)) for k in range(20)]


@pytest.mark.parametrize("seed", range(4))
def test_a_search_seats_plays_are_likelier_in_the_search_style(seed: int) -> None:
    totals = _style_totals("search", seed)
    assert sum(t[0] for t in totals) > sum(t[1] for t in totals)


@pytest.mark.parametrize("seed", range(4))
def test_a_heuristic_seats_plays_are_likelier_in_its_style_only_where_its_past_hands_are_placed_right(
        seed: int) -> None:
    """The heuristic style tells a heuristic seat apart on the placement of its past hands that fits
    best. A sample draws one placement at random, which usually punishes this nearly deterministic
    style below the soft one (docs/bots/experiments.md): why no level mixes the styles."""
    totals = _style_totals("heuristic", seed)
    best = max(totals, key=lambda t: t[1])
    assert best[1] > best[0]


def _styles_told(style: str, placements: int) -> int:
    """Of 8 seeded games, how often seat 1's style is the likelier of the two, given its true hand."""
    told = 0
    for seed in range(8):
        state = _played_by(style, seed)
        history = SeatHistory(decisions_of_others(state, 0)[1], state.increasing)
        search, heuristic = history.style_log_likelihoods(cards_of(state.hands[1]), random.Random(seed), placements)
        told += (heuristic > search) == (style == "heuristic")
    return told


def test_with_the_kept_placement_a_heuristic_seats_style_is_told_from_its_plays() -> None:
    """Averaged over the kept placement and one random one, the likelihoods tell the simple player's
    style 6 times in 8 where one random placement tells it 3 times, and a search's every time."""
    assert (_styles_told("heuristic", 1), _styles_told("heuristic", 2)) == (3, 6)
    assert _styles_told("search", 1) == _styles_told("search", 2) == 8


def test_self_play_decisions_are_logged_and_fit_better_than_uniform() -> None:
    rows = list(game_decisions(30, "infer-test:0")) + list(game_decisions(30, "infer-test:1"))
    assert {row["kind"] for row in rows} == {"play", "trump"}
    assert all(row["chosen"] in row["hand"] for row in rows if row["kind"] == "play")
    for kind, width in (("play", len(PLAY_FEATURES)), ("trump", len(TRUMP_FEATURES))):
        weights = fit(rows, kind, steps=300)
        assert mean_log_likelihood(rows, kind, weights) > mean_log_likelihood(rows, kind, [0.0] * width)


def test_the_simple_players_decisions_are_logged_and_fit_nearly_deterministically() -> None:
    rows = [row for i in range(4) for row in game_decisions(0, f"infer-test:simple:{i}", "simple")]
    assert {row["kind"] for row in rows} == {"play", "trump"}
    weights = fit(rows, "play", steps=300)
    assert mean_log_likelihood(rows, "play", weights) > -0.5 > mean_log_likelihood(rows, "play", [0.0] * len(PLAY_FEATURES))


def test_the_fast_likelihood_is_the_softmax_of_the_features_the_weights_were_fitted_to() -> None:
    """`_play_context` precomputes `play_features`' terms for speed: both must give one policy."""
    for state, move in random_game(2, 17):
        if state.phase != PLAY or move is None or not state.tricks:
            continue
        hand = cards_of(state.hands[state.turn])
        decision = Decision("play", len(state.tricks), state.trump, state.trick, hand[0], len(state.tricks) >= 20)
        for style in STYLES:
            logits = [sum(w * f for w, f in zip(style.play, play_features(
                state.trump, state.increasing, state.trick, decision.late, hand, c), strict=True)) for c in hand]
            top = max(logits)
            expected = logits[0] - top - math.log(sum(math.exp(z - top) for z in logits))
            context = _play_context(decision, state.increasing, style.play)
            assert _play_log_likelihood(context, hand, hand[0]) == pytest.approx(expected)
