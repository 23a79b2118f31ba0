"""Provably fair chance and resignations, engine side: `check_log` replays a history from its seed
and names the first entry that differs; resigned seats rank last."""

from __future__ import annotations

import json
import random

import pytest

from engine import CHANCE, TERMINAL, all_games, get_game, resolve_chance
from engine.core import Outcome
from engine.fairness import Ending, LogEntry, check_log, commitment
from engine.resignation import RESIGNED, by_resignation, with_resignations
from engine.verify import main

SEED = "0f" * 32


def committed(game_id: str, players: int, seed: str = SEED) -> str:
    """The commitment of a match of `game_id` with default options."""
    return commitment(seed, game_id, get_game(game_id).validate_options({}), players)


def played_history(game_id: str, players: int, seed: str = SEED) -> list:
    """A whole match's history as the match service writes it: random moves, chance from the seed."""
    game = get_game(game_id)
    rng = random.Random(7)
    state, chance = resolve_chance(game, game.new_state(players, {}), seed, 0)
    history = [game.move_to_json(move) for move in chance]
    while game.current_player(state) != TERMINAL:
        move = rng.choice(game.legal_moves(state))
        history.append(game.move_to_json(move))
        state, chance = resolve_chance(game, game.apply(state, move), seed, len(history))
        history.extend(game.move_to_json(m) for m in chance)
    return history


def entries(game_id: str, players: int, history: list) -> list[LogEntry]:
    """`history` as published: each move with who made it (the rules say), chance marked."""
    game = get_game(game_id)
    state = game.new_state(players, {})
    published = []
    for data in history:
        player = game.current_player(state)
        published.append(LogEntry(None if player == CHANCE else player, data, player == CHANCE))
        game.step(state, game.move_from_json(data))
    return published


def ending(game_id: str, players: int, history: list) -> Ending:
    """The end a finished match of `history` claims."""
    game = get_game(game_id)
    state = game.new_state(players, {})
    for data in history:
        game.step(state, game.move_from_json(data))
    outcome = game.outcome(state)
    assert outcome is not None
    return Ending(True, (), outcome.to_json(), len(history))


def first_chance_after(game_id: str, players: int, history: list, start: int) -> int:
    """The position of the first chance entry at or after `start`."""
    game = get_game(game_id)
    state = game.new_state(players, {})
    for index, data in enumerate(history):
        if index >= start and game.current_player(state) == CHANCE:
            return index
        game.step(state, game.move_from_json(data))
    raise AssertionError("no chance entry")


def changed_chance_entry(game_id: str, players: int, history: list, index: int) -> list:
    """`history` with the chance outcome at `index` replaced by another possible one."""
    game = get_game(game_id)
    state = game.new_state(players, {})
    for data in history[:index]:
        game.step(state, game.move_from_json(data))
    others = [game.move_to_json(m) for m, _ in game.chance_outcomes(state) if game.move_to_json(m) != history[index]]
    assert others, "a chance node with a single outcome"
    return [*history[:index], others[0], *history[index + 1:]]


@pytest.mark.parametrize("game_id", [game.info.id for game in all_games()])
def test_a_played_match_checks_out_and_a_changed_draw_is_named(game_id: str) -> None:
    history = played_history(game_id, 3)
    game = get_game(game_id)
    end = ending(game_id, 3, history)
    assert check_log(game, 3, {}, SEED, committed(game_id, 3), entries(game_id, 3, history), end) is None
    index = first_chance_after(game_id, 3, history, len(history) // 2)
    changed = entries(game_id, 3, history)
    changed[index] = LogEntry(None, changed_chance_entry(game_id, 3, history, index)[index], True)
    found = check_log(game, 3, {}, SEED, committed(game_id, 3), changed, end)
    assert found is not None and found.index == index and "the seed draws" in found.message


@pytest.mark.parametrize("game_id", [game.info.id for game in all_games()])
def test_a_log_without_its_last_entry_or_with_a_wrong_outcome_is_refused(game_id: str) -> None:
    history = played_history(game_id, 3)
    game = get_game(game_id)
    end = ending(game_id, 3, history)
    published = entries(game_id, 3, history)
    shorter = Ending(True, (), end.outcome, end.length - 1)  # the claimed length cut too
    found = check_log(game, 3, {}, SEED, committed(game_id, 3), published[:-1], shorter)
    assert found is not None and found.index == len(history) - 1 and "not over" in found.message
    found = check_log(game, 3, {}, SEED, committed(game_id, 3), published[:-1], end)
    assert found is not None and found.index == len(history) - 1 and "missing" in found.message
    assert isinstance(end.outcome, dict)
    boasting = Ending(True, (), {**end.outcome, "winners": [seat for seat in range(3)
                                                             if seat not in end.outcome["winners"]]}, end.length)
    found = check_log(game, 3, {}, SEED, committed(game_id, 3), published, boasting)
    assert found is not None and found.index is None and found.part == "end"


def test_the_commitment_binds_the_game_options_and_seat_count() -> None:
    base = commitment(SEED, "witches", {"wheel": "decreasing"}, 3)
    assert len(base) == 64 and base == commitment(SEED, "witches", {"wheel": "decreasing"}, 3)
    others = {commitment("1e" * 32, "witches", {"wheel": "decreasing"}, 3),
              commitment(SEED, "witches", {"wheel": "increasing"}, 3),
              commitment(SEED, "witches", {"wheel": "decreasing"}, 4),
              commitment(SEED, "enchanters", {}, 3)}
    assert base not in others and len(others) == 4
    history = played_history("witches", 3)
    published = entries("witches", 3, history)
    game = get_game("witches")
    for players, options in ((3, {"wheel": "increasing"}), (4, {})):
        found = check_log(game, players, options, SEED, committed("witches", 3), published)
        assert found is not None and found.index is None and "commitment was" in found.message


def test_a_move_credited_to_another_seat_or_to_chance_is_named() -> None:
    history = played_history("witches", 3)
    published = entries("witches", 3, history)
    game = get_game("witches")
    index = next(i for i, entry in enumerate(published) if not entry.chance)
    moved = published[index]
    assert moved.seat is not None
    for wrong in (LogEntry((moved.seat + 1) % 3, moved.move), LogEntry(None, moved.move, True)):
        found = check_log(game, 3, {}, SEED, committed("witches", 3),
                          [*published[:index], wrong, *published[index + 1:]])
        assert found is not None and found.index == index and "the rules give seat" in found.message


def test_a_wrong_seed_or_commitment_is_refused() -> None:
    game = get_game("witches")
    history = entries("witches", 2, played_history("witches", 2))
    other = "1e" * 32
    wrong_seed = check_log(game, 2, {}, other, committed("witches", 2), history)
    assert wrong_seed is not None and wrong_seed.index is None  # the commitment does not match
    replayed = check_log(game, 2, {}, other, committed("witches", 2, other), history)
    assert replayed is not None and replayed.index == 0  # the first deal differs


def test_verify_command_reads_a_log_document(tmp_path, capsys) -> None:
    history = played_history("cube", 2)
    end = ending("cube", 2, history)
    document = {"game": "cube", "players": 2, "options": {}, "status": "finished", "length": len(history),
                "resigned": [], "outcome": end.outcome,
                "fairness": {"commitment": committed("cube", 2), "seed": SEED},
                "entries": [{"index": i, "seat": entry.seat, "chance": entry.chance, "move": entry.move}
                            for i, entry in enumerate(entries("cube", 2, history))]}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(document))
    assert main([str(path)]) == 0
    index = first_chance_after("cube", 2, history, 1)
    document["entries"][index]["move"] = changed_chance_entry("cube", 2, history, index)[index]
    path.write_text(json.dumps(document))
    assert main([str(path)]) == 1
    assert f"entry {index}" in capsys.readouterr().out
    document["fairness"]["seed"] = None
    path.write_text(json.dumps(document))
    assert main([str(path)]) == 2


def test_resigned_seats_rank_last_and_never_win() -> None:
    outcome = Outcome((10.0, 30.0, 20.0, 30.0), (1, 3), "hands_empty", (4, 1, 3, 1))
    after = with_resignations(outcome, [1])
    assert after.ranks == (3, 4, 2, 1) and after.winners == (3,) and after.reason == "hands_empty"
    both = with_resignations(outcome, [3, 1])  # 3 resigned first: last of all
    assert both.ranks == (2, 3, 1, 4) and both.winners == (2,)


def test_the_last_seat_left_wins_by_resignation() -> None:
    outcome = by_resignation(3, [2, 0])
    assert outcome.winners == (1,) and outcome.ranks == (2, 1, 3) and outcome.reason == RESIGNED
