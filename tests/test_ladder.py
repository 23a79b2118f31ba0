"""The rated ladder: Bradley–Terry fit with known answers, intervals, and the catalog showing ratings."""

from __future__ import annotations

import math

from ai.ladder import (
    PairResult,
    elo_ratings,
    fit_strengths,
    ladder,
    refit,
    replay_kept,
    stored_pairs,
    table,
)
from engine import get_game


def test_fit_of_one_pair_is_the_log_odds_of_its_win_rate() -> None:
    pairs = [PairResult("easy", "random", (1.0,) * 3000 + (0.0,) * 1000)]
    strengths = fit_strengths(["random", "easy"], pairs)
    elo = 400 * math.log10(strengths["easy"] / strengths["random"])
    assert abs(elo - 400 * math.log10(3)) < 2  # 75% is 191 Elo; the prior moves it a hair


def test_even_results_give_equal_ratings_and_shared_wins_count_half() -> None:
    pairs = [PairResult("random", "easy", (0.5,) * 10 + (1.0, 0.0) * 5)]
    ratings = elo_ratings(["random", "easy"], pairs, bootstrap=50)
    assert abs(ratings["easy"].elo) < 1e-6
    assert ratings["easy"].low < 0 < ratings["easy"].high


def test_transitive_results_order_the_ladder_and_intervals_contain_the_estimate() -> None:
    pairs = [
        PairResult("random", "easy", (0.0,) * 30 + (1.0,) * 10),
        PairResult("random", "hard", (0.0,) * 38 + (1.0,) * 2),
        PairResult("easy", "hard", (0.0,) * 28 + (1.0,) * 12),
    ]
    ratings = elo_ratings(["random", "easy", "hard"], pairs, bootstrap=100)
    assert ratings["random"].elo == 0
    assert 0 < ratings["easy"].elo < ratings["hard"].elo
    for rating in ratings.values():
        assert rating.low <= rating.elo <= rating.high
        assert rating.games == 80


def test_an_anchor_that_loses_every_game_does_not_blur_the_others_apart() -> None:
    # random loses all its games: its distance to the field is barely known, but easy and hard,
    # 0.8 against each other over 100 games (+241 Elo), are told apart
    pairs = [
        PairResult("random", "easy", (0.0,) * 100),
        PairResult("random", "hard", (0.0,) * 100),
        PairResult("easy", "hard", (1.0,) * 20 + (0.0,) * 80),
    ]
    ratings = elo_ratings(["random", "easy", "hard"], pairs, bootstrap=200)
    assert ratings["random"].elo == 0 and ratings["random"].low < 0 < ratings["random"].high
    assert ratings["easy"].high < ratings["hard"].low
    assert 200 < ratings["hard"].elo - ratings["easy"].elo < 280


def test_refit_from_the_stored_totals_gives_the_ratings_of_the_played_games() -> None:
    pairs = [PairResult("random", "easy", (0.0, 1.0, 0.5, 0.0) * 10),
             PairResult("random", "hard", (0.0,) * 35 + (1.0,) * 5),
             PairResult("easy", "hard", (1.0, 0.0, 0.0) * 10)]
    entry = {"ratings": {n: {} for n in ("random", "easy", "hard")},
             "pairs": [{"a": p.a, "b": p.b, "games": p.games, "score": p.score} for p in pairs]}
    assert [(p.games, p.score) for p in stored_pairs(entry)] == [(p.games, p.score) for p in pairs]
    played = elo_ratings(["random", "easy", "hard"], pairs)
    refitted = refit(entry)["ratings"]
    assert {n: r["elo"] for n, r in refitted.items()} == {n: round(r.elo) for n, r in played.items()}


def test_a_small_ladder_plays_every_pair_and_prints_a_table() -> None:
    result = ladder(get_game("witches"), games=2, processes=1, skip=("medium", "hard", "simple"))
    assert {(p["a"], p["b"]) for p in result["pairs"]} == {("random", "easy")}
    assert set(result["ratings"]) == {"random", "easy"}
    assert "| witches | random | +0 |" in table({"witches": result})


def test_a_replay_plays_only_the_pairs_of_the_replayed_player_and_keeps_the_others() -> None:
    """`--replay easy`: the pair without easy keeps its stored games (here, made up: no game of
    them is played), easy's pairs are played again; a stored ladder at another number of games a
    pair keeps nothing."""
    stored = {"games_per_pair": 2, "ratings": {}, "pairs": [
        {"a": "random", "b": "easy", "games": 2, "score": 2.0},
        {"a": "random", "b": "simple", "games": 2, "score": 1.5},
        {"a": "easy", "b": "simple", "games": 2, "score": 0.0}]}
    kept = replay_kept(stored, ["easy"], 2)
    assert set(kept) == {("random", "simple")} and replay_kept(stored, ["easy"], 4) == {}
    result = ladder(get_game("witches"), games=2, processes=1, skip=("medium", "hard"), kept=kept)
    by_pair = {(p["a"], p["b"]): p["score"] for p in result["pairs"]}
    assert by_pair[("random", "simple")] == 1.5
    assert set(by_pair) == {("random", "easy"), ("random", "simple"), ("easy", "simple")}
    assert by_pair[("random", "easy")] != 2.0  # played again: random does not beat easy 2-0


def test_named_policies_join_the_ladder_and_play_legal_moves_from_a_determinization() -> None:
    from ai.arena import play_game
    from ai.ladder import NamedPolicy, participants

    for game_id, name in (("cube", "careful"), ("enchanters", "greedy"), ("witches", "simple")):
        game = get_game(game_id)
        assert name in participants(game)
        winners, _ = play_game(game, [NamedPolicy(name), "random"], seed=f"named:{game_id}")
        assert winners  # every move went through the checked `apply`
