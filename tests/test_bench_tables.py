"""The docs' generated strength and ladder tables (`bench.tables`) from results files written the
way `make strength` and `make ladder` write them."""

from __future__ import annotations

import json
from pathlib import Path

from ai.arena import MatchResult
from bench.search import whole_game_seconds
from bench.strength import record, row
from bench.tables import ladder_table, strength_table, whole_game_table
from engine import all_games


def _result(score: float, games: int) -> MatchResult:
    return MatchResult(games=games, wins=int(score), ties=0, losses=games - int(score), score=score,
                       moves_a=10 * games, seconds_a=games * 0.5)


def test_a_check_played_again_replaces_its_row_and_keeps_the_others(tmp_path: Path) -> None:
    path = tmp_path / "strength.json"
    record(path, "witches-hard-vs-strong", row("witches", "hard", "strong", _result(130, 200), "s", "rate ≥ 0.95", False))
    record(path, "cube-hard-vs-careful", row("cube", "hard", "careful", _result(201, 400), "c", "rate ≥ 0.50", True))
    record(path, "witches-hard-vs-strong", row("witches", "hard", "strong", _result(390, 400), "s", "rate ≥ 0.95", True))
    rows = json.loads(path.read_text())["rows"]
    assert list(rows) == ["cube-hard-vs-careful", "witches-hard-vs-strong"]
    assert rows["witches-hard-vs-strong"]["games"] == 400
    assert rows["witches-hard-vs-strong"]["rate"] == 0.975
    assert rows["witches-hard-vs-strong"]["date"] and "cores" in rows["witches-hard-vs-strong"]


def test_the_strength_table_shows_each_row_with_its_target_date_and_commit(tmp_path: Path) -> None:
    assert "make strength" in strength_table(tmp_path)  # nothing recorded yet: says which target writes it
    fields = row("witches", "hard", "strong", _result(262, 400), "strength:witches:strong", "rate ≥ 0.95", False)
    fields["commit"] = "abc1234"
    record(tmp_path / "strength.json", "witches-hard-vs-strong", fields)
    table = strength_table(tmp_path)
    line = next(line for line in table.splitlines() if line.startswith("| witches"))
    assert "hard vs strong" in line and "0.655" in line and "**not met**" in line
    assert fields["date"][:10] in line and "`abc1234`" in line and "`strength:witches:strong`" in line


def test_the_ladder_table_says_when_each_game_was_rated(tmp_path: Path) -> None:
    ratings = {"games": {
        "witches": {"games_per_pair": 60, "seed": "ladder", "measured": {
            "date": "2026-12-03T20:00:00+00:00", "commit": "abc1234", "cpu": "a CPU", "cores": 2},
            "ratings": {"random": {"elo": 0, "low": 0, "high": 0, "games": 120},
                        "hard": {"elo": 1360, "low": 1290, "high": 1444, "games": 120}}},
        "cube": {"games_per_pair": 60, "seed": "ladder",
                 "ratings": {"random": {"elo": 0, "low": 0, "high": 0, "games": 60}}},
    }}
    path = tmp_path / "ratings.json"
    path.write_text(json.dumps(ratings))
    table = ladder_table(path)
    lines = table.splitlines()
    assert lines[2] == "| witches | `hard` | +1360 | +1290 … +1444 | 120 |"  # best first
    assert lines[3] == "| witches | `random` | 0 | — | 120 |"
    assert "witches: 60 games a pair, seed `ladder`, rated 2026-12-03 at commit `abc1234`" in table
    assert "cube: 60 games a pair, seed `ladder`, rated before the ladder stamped its runs" in table


def test_the_ladder_table_names_a_replayed_player_and_the_run_its_other_pairs_kept(tmp_path: Path) -> None:
    ratings = {"games": {"witches": {"games_per_pair": 100, "seed": "ladder", "measured": {
        "date": "2026-12-06T01:00:00+00:00", "commit": "def5678", "cpu": "a CPU", "cores": 2,
        "replayed": ["hard"], "kept_from": {"date": "2026-12-03T20:00:00+00:00", "commit": "abc1234"}},
        "ratings": {"random": {"elo": 0, "low": 0, "high": 0, "games": 100}}}}}
    path = tmp_path / "ratings.json"
    path.write_text(json.dumps(ratings))
    table = ladder_table(path)
    assert "rated 2026-12-06 at commit `def5678`" in table
    assert ("replaying the pairs of `hard` and keeping the others from the run of 2026-12-03 at commit "
            "`abc1234`") in table
    ratings["games"]["witches"]["measured"]["kept_from"] = None  # the kept run was never stamped
    path.write_text(json.dumps(ratings))
    assert "from the run of an unrecorded date at commit `unrecorded`" in ladder_table(path)


def test_whole_games_time_every_decision_and_the_exactly_solved_ones_apart(tmp_path: Path) -> None:
    whole = whole_game_seconds(all_games(), "easy", ("table:0",))
    witches = whole["witches"]
    assert witches["decisions"] > witches["solved_decisions"] > 0, "a witches game ends in its exact endgame"
    assert 0 <= witches["mean"] <= witches["max"] and witches["solved_mean"] <= witches["solved_max"]
    assert all(row["solved_decisions"] == 0 for game, row in whole.items() if game != "witches")
    assert "make bench" in whole_game_table(tmp_path)
    (tmp_path / "latest.json").write_text(json.dumps({"whole_game_cpu_seconds": whole, "commit": "abc1234"}))
    table = whole_game_table(tmp_path)
    line = next(line for line in table.splitlines() if line.startswith("| witches"))
    assert f"| {witches['decisions']} |" in line and "`table:0`" in line and "`abc1234`" in table
    assert next(line for line in table.splitlines() if line.startswith("| cube")).endswith("| 0 | — | — |")
