"""The head-to-heads the bots pages show (`bench/results/matches.json`): every row consistent with
itself and shown on a page, and the recorder (`python -m bench.matches`) writing rows as the tables
read them, for every game."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ai.arena import play_match, wilson_interval
from ai.ladder import NamedPolicy
from ai.levels import Level
from bench import matches
from bench.tables import matches_table, row_groups
from engine import all_games, get_game

ROOT = Path(__file__).resolve().parents[1]
ROWS = matches.load()
MARKER = re.compile(r"<!-- generated: matches-([a-z0-9-]+) -->")


def _markers() -> set[str]:
    return {found.group(1) for page in (ROOT / "docs").rglob("*.md")
            for found in MARKER.finditer(page.read_text())}


@pytest.mark.parametrize("key", list(ROWS))
def test_a_recorded_row_agrees_with_itself(key: str) -> None:
    row: dict[str, Any] = ROWS[key]
    assert all(re.fullmatch(r"[a-z0-9-]+", group) for group in row_groups(row)) and row["game"] in {game.info.id for game in all_games()}
    assert row["games"] > 0 and row["first"] >= 0 and 0 <= row["score"] <= row["games"]
    assert row["score"] * 2 == int(row["score"] * 2), "a shared win counts as half"
    assert abs(row["score"] / row["games"] - row["rate"]) <= 0.0015
    low, high = wilson_interval(row["score"], row["games"])
    assert abs(low - row["low"]) <= 0.0015 and abs(high - row["high"]) <= 0.0015, (low, high)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", row["date"])
    assert re.fullmatch(r"[0-9a-f]{7,40}\+?", row["commit"] or ""), "every row names the commit it ran or was written down at"
    assert row["seed"] or row.get("seed_text"), "a row says which games it played"
    if "scores" in row:
        assert len(row["scores"]) == row["games"] and sum(row["scores"]) == row["score"]
    if row.get("paired"):
        pairing = row["paired"]
        assert pairing["low"] <= pairing["mean"] <= pairing["high"]
        assert pairing["over"] in ROWS or " " in pairing["over"], "over names a row or says what it was"
        if pairing.get("differ") is not None:
            assert 0 <= pairing["won"] <= pairing["differ"] <= row["games"]


def test_every_group_is_shown_on_a_page_and_every_marker_has_rows() -> None:
    groups = {group for row in ROWS.values() for group in row_groups(row)}
    assert groups == _markers()


#: Rows of the same games, score and run that are two players, each pair a tie the docs report.
SAME_RESULT_TWO_PLAYERS = [
    ["bots-witches-seeing-as-it-plays", "bots-witches-exploiting"],
    ["bots2-enchanters-sims-100-10", "bots2-enchanters-sims-1000-100"],
    ["exp2-mixture-strong", "exp2-search-style-strong"],
]


def test_a_match_is_recorded_once() -> None:
    """A match shown on two pages is one row in two groups: two rows of the same games, score and run
    (and game-by-game scores, where kept) are two players only where the docs report the tie."""
    runs: dict[tuple[object, ...], list[str]] = {}
    for key, row in ROWS.items():
        run = (row["game"], row["seed"], row["first"], row["games"], row["score"], row["commit"])
        runs.setdefault((*run, tuple(row.get("scores", ()))), []).append(key)  # kept games tell runs apart
    assert [keys for keys in runs.values() if len(keys) > 1] == SAME_RESULT_TWO_PLAYERS


def test_a_table_shows_its_rows_with_their_seed_games_and_run(tmp_path: Path) -> None:
    assert "python -m bench.matches" in matches_table("none", tmp_path)
    base = {"game": "witches", "b": "`medium`", "games": 200, "first": 200, "seed": "s", "score": 150.0,
            "rate": 0.75, "low": 0.6857, "high": 0.8049, "date": "2026-12-06", "commit": "abc1234", "group": "g"}
    rows = {"base": {**base, "a": "`hard` as it was", "short": "the old `hard`"},
            "new": {**base, "a": "`hard`", "score": 160.0, "rate": 0.8, "low": 0.7391, "high": 0.8495,
                    "paired": {"over": "base", "mean": 0.05, "low": -0.01, "high": 0.11, "differ": 30, "won": 20}},
            "other": {**base, "a": "x", "group": "h"}, "both": {**base, "a": "y", "group": ["h", "g"]}}
    (tmp_path / "matches.json").write_text(json.dumps({"rows": rows}))
    table = matches_table("g", tmp_path)
    assert "| x vs" not in table and "| y vs" in table and "| y vs" in matches_table("h", tmp_path)
    line = next(line for line in table.splitlines() if line.startswith("| `hard` vs"))
    assert "0.800 (0.739–0.850)" in line and "+0.050 (−0.010 … +0.110) over the old `hard`" in line
    assert "30 games differ, a won 20" in line and "`s`, games 200–399" in line and "2026-12-06, `abc1234`" in line


def test_a_match_played_on_from_game_k_is_that_part_of_the_longer_match() -> None:
    whole = play_match("witches", "random", "random", 4, seed="played-on")
    part = play_match("witches", "random", "random", 2, seed="played-on", first=2)
    assert part.scores == whole.scores[2:]


@pytest.mark.parametrize("game_id", [game.info.id for game in all_games()])
def test_the_recorder_plays_records_and_pairs_a_match(game_id: str, tmp_path: Path) -> None:
    results = tmp_path / "matches.json"

    def common(seed: str = "rec") -> list[str]:
        return ["--group", "g", "--game", game_id, "--games", "4", "--seed", seed, "--processes", "1",
                "--results", str(results)]

    named = next(iter(get_game(game_id).named_policies()))  # careful, greedy, simple
    matches.main(["first", "--a", "random", "--b", named, *common()])
    matches.main(["second", "--a", "easy", "--a-text", "`easy`", "--b", named, "--paired-with", "first",
                  *common()])
    rows = matches.load(results)
    assert list(rows) == ["first", "second"]
    first, second = rows["first"], rows["second"]
    assert second["a"] == "`easy`" and second["b"] == named and len(second["scores"]) == 4
    assert second["paired"]["over"] == "first" and second["commit"] and second["cpu"]
    assert second["paired"]["mean"] == pytest.approx((second["score"] - first["score"]) / 4, abs=1e-4)
    assert f"`easy` vs {named}" in matches_table("g", tmp_path)
    with pytest.raises(SystemExit):  # other games than the row named: no pairing
        matches.main(["third", "--a", "random", "--b", named, "--paired-with", "first", *common("other")])
    with pytest.raises(SystemExit):  # a player that is neither a level, a named policy nor an attribute
        matches.main(["fourth", "--a", "strong", "--b", named, *common()])
    with pytest.raises(SystemExit):  # nor a game that is not Coven's
        matches.main(["fifth", "--a", "random", "--b", "random", *common(), "--game", "chess"])
    assert list(matches.load(results)) == ["first", "second"]


def test_a_player_is_a_level_untimed_a_named_policy_or_an_attribute() -> None:
    level = matches.resolve_player("witches", "hard")
    assert isinstance(level, Level) and level.seconds == 0.0 and level.name == "hard"
    assert isinstance(matches.resolve_player("witches", "simple"), NamedPolicy)
    assert matches.resolve_player("witches", "tests.witches_opponents:strong_player") is not None
    with pytest.raises(ValueError, match="unknown player 'strong'"):
        matches.resolve_player("witches", "strong")
