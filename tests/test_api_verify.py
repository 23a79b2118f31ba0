"""`python -m engine.verify` on real finished logs from the API, and on tampered copies of them:
a missing last entry, a changed option or seat count, a reordered or altered move, a wrong
outcome — each refused with exit status 1, naming the entry (or the commitment, or the end)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from api_support import create, play_out

from engine import all_games
from engine.verify import main

GAMES = [game.info.id for game in all_games()]
ROOT = Path(__file__).resolve().parent.parent

#: One finished match's published log per game, played once (the tests only read copies of it).
_LOGS: dict[str, dict[str, Any]] = {}


def finished_log(client, game_id: str) -> dict[str, Any]:
    """A real finished match's log as `GET /v1/matches/{id}/log` publishes it: two people
    playing random legal moves to the end."""
    if game_id not in _LOGS:
        created = create(client, game_id, [{"type": "human"}, {"type": "human"}])
        joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
        final = play_out(client, created["id"], {0: created["token"], 1: joined["token"]}, seed=3)
        assert final["status"] == "finished" and final["fairness"]["seed"]
        _LOGS[game_id] = client.get(f"/v1/matches/{created['id']}/log").get_json()
    return copy.deepcopy(_LOGS[game_id])


def verified(tmp_path: Path, capsys, document: dict[str, Any]) -> tuple[int, str]:
    """The exit status of `python -m engine.verify` on `document`, and what it printed."""
    path = tmp_path / "log.json"
    path.write_text(json.dumps(document))
    status = main([str(path)])
    return status, capsys.readouterr().out


def cards_played(document: dict[str, Any]) -> list[int]:
    """The positions of a witches log's entries where a seat played a card."""
    return [entry["index"] for entry in document["entries"] if not entry["chance"] and entry["move"]["type"] == "play"]


@pytest.mark.parametrize("game_id", GAMES)
def test_a_finished_log_verifies_and_one_without_its_last_entry_does_not(client, tmp_path, capsys,
                                                                         game_id) -> None:
    document = finished_log(client, game_id)
    assert document["status"] == "finished" and document["length"] == len(document["entries"])
    assert document["outcome"] is not None
    status, out = verified(tmp_path, capsys, document)
    assert status == 0, out
    last = len(document["entries"]) - 1
    cut = {**document, "entries": document["entries"][:-1]}
    status, out = verified(tmp_path, capsys, cut)
    assert status == 1 and f"entry {last}: missing" in out
    cut["length"] -= 1  # a careful forger shortens the length too: the game is then not over
    status, out = verified(tmp_path, capsys, cut)
    assert status == 1 and f"entry {last}: missing" in out and "not over" in out


@pytest.mark.parametrize("game_id", GAMES)
def test_a_changed_seat_count_breaks_the_commitment(client, tmp_path, capsys, game_id) -> None:
    document = finished_log(client, game_id)
    document["players"] += 1
    status, out = verified(tmp_path, capsys, document)
    assert status == 1 and out.startswith("MISMATCH at commitment:") and '"players":3' in out


def test_a_changed_option_breaks_the_commitment(client, tmp_path, capsys) -> None:
    document = finished_log(client, "witches")
    document["options"]["wheel"] = {"decreasing": "increasing", "increasing": "decreasing"}[document["options"]["wheel"]]
    status, out = verified(tmp_path, capsys, document)
    assert status == 1 and out.startswith("MISMATCH at commitment:")


def test_reordered_moves_are_named(client, tmp_path, capsys) -> None:
    document = finished_log(client, "witches")
    entries = document["entries"]
    first = cards_played(document)[0]
    second = next(index for index in cards_played(document) if entries[index]["seat"] != entries[first]["seat"])
    # two seats' cards: each is illegal from the other's hand
    entries[first]["move"], entries[second]["move"] = entries[second]["move"], entries[first]["move"]
    status, out = verified(tmp_path, capsys, document)
    assert status == 1 and f"entry {first}: illegal move" in out
    document = finished_log(client, "witches")
    entries = document["entries"]
    entries[first], entries[first + 1] = entries[first + 1], entries[first]  # whole entries, numbers too
    status, out = verified(tmp_path, capsys, document)
    assert status == 1 and f"entry {first}: numbered {first + 1}" in out


def test_an_altered_move_a_moved_credit_or_a_wrong_outcome_is_named(client, tmp_path, capsys) -> None:
    document = finished_log(client, "witches")
    index = cards_played(document)[-3]
    played = document["entries"][index]["move"]["card"]
    elsewhere = next(document["entries"][earlier]["move"]["card"] for earlier in cards_played(document)
                     if earlier < index and document["entries"][earlier]["move"]["card"] != played)  # gone
    document["entries"][index]["move"]["card"] = elsewhere
    status, out = verified(tmp_path, capsys, document)
    assert status == 1 and f"entry {index}: illegal move" in out
    document = finished_log(client, "witches")
    document["entries"][index]["seat"] = 1 - document["entries"][index]["seat"]
    status, out = verified(tmp_path, capsys, document)
    assert status == 1 and f"entry {index}: the log says seat" in out
    document = finished_log(client, "witches")
    document["outcome"]["winners"] = [seat for seat in range(2) if seat not in document["outcome"]["winners"]]
    status, out = verified(tmp_path, capsys, document)
    assert status == 1 and out.startswith("MISMATCH at end:")


def test_the_command_line_refuses_a_truncated_log(client, tmp_path) -> None:
    document = finished_log(client, "cube")
    document["entries"] = document["entries"][:-1]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(document))
    done = subprocess.run([sys.executable, "-m", "engine.verify", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 1 and f"entry {len(document['entries'])}: missing" in done.stdout
