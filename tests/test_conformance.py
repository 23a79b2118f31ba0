"""One conformance suite for every registered game (after OpenSpiel's games_sim_test).

Random playouts through the checked protocol, clone/encode round-trips, move
JSON round-trips, exact replays, and the information rule: a seat's view must
be the same in every state that seat cannot tell apart (every determinization),
so a view can only contain what that seat is allowed to know.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CHANCE, TERMINAL, IllegalMove, InvalidMove, all_games, resolve_chance
from engine.core import Game, State

GAMES = all_games()
MAX_STEPS = 5000


def player_counts(game: Game) -> list[int]:
    return list(range(game.info.min_players, game.info.max_players + 1))


def game_cases() -> list[tuple[Game, int, dict]]:
    """Every game × every player count × every value of every choice option."""
    cases = []
    for game in GAMES:
        variants = [{}]
        for spec in game.info.options:
            for value in spec.choices:
                if value != spec.default:
                    variants.append({spec.name: value})
        for n in player_counts(game):
            for options in variants:
                cases.append((game, n, options))
    return cases


CASES = game_cases()
CASE_IDS = [f"{g.info.id}-{n}p-{'-'.join(map(str, o.values())) or 'default'}" for g, n, o in CASES]


def random_trajectory(game: Game, n: int, options: dict, seed: int):
    """Play a whole game through the checked path; yield (state, move) before each move."""
    rng = random.Random(seed)
    state = game.new_state(n, game.validate_options(options))
    for _ in range(MAX_STEPS):
        player = game.current_player(state)
        if player == TERMINAL:
            yield state, None
            return
        if player == CHANCE:
            move = game.sample_chance(state, rng)
        else:
            move = rng.choice(game.legal_moves(state))
        yield state, move
        state = game.apply(state, move)
    pytest.fail(f"{game.info.id} did not end within {MAX_STEPS} steps")


def snapshot(game: Game, state: State) -> str:
    return json.dumps(game.encode(state), sort_keys=True)


@pytest.mark.parametrize(("game", "n", "options"), CASES, ids=CASE_IDS)
def test_random_playouts_reach_a_valid_end(game: Game, n: int, options: dict) -> None:
    for seed in range(5):
        for state, move in random_trajectory(game, n, options, seed):
            player = game.current_player(state)
            assert player in (CHANCE, TERMINAL) or 0 <= player < n
            if move is None:
                assert game.legal_moves(state) == []
                outcome = game.outcome(state)
                assert outcome is not None
                assert len(outcome.scores) == n
                assert outcome.winners and all(0 <= w < n for w in outcome.winners)
                returns = game.returns(state)
                assert len(returns) == n and all(0.0 <= r <= 1.0 for r in returns)
                json.dumps(outcome.to_json())
            else:
                assert game.outcome(state) is None


@pytest.mark.parametrize(("game", "n", "options"), CASES, ids=CASE_IDS)
def test_clone_encode_and_apply_do_not_alias(game: Game, n: int, options: dict) -> None:
    for state, move in random_trajectory(game, n, options, seed=11):
        before = snapshot(game, state)
        assert snapshot(game, state.clone()) == before
        assert snapshot(game, game.decode(json.loads(before))) == before
        if move is not None:
            game.apply(state, move)
            assert snapshot(game, state) == before, "apply() mutated its input"


@pytest.mark.parametrize(("game", "n", "options"), CASES, ids=CASE_IDS)
def test_moves_round_trip_through_json(game: Game, n: int, options: dict) -> None:
    for state, _ in random_trajectory(game, n, options, seed=3):
        if game.current_player(state) == CHANCE:
            moves = [m for m, _ in game.chance_outcomes(state)]
            assert abs(sum(p for _, p in game.chance_outcomes(state)) - 1.0) < 1e-9
        else:
            moves = game.legal_moves(state)
        assert len(set(moves)) == len(moves), "duplicate legal moves"
        for move in moves:
            data = json.loads(json.dumps(game.move_to_json(move)))
            assert game.move_from_json(data) == move


@pytest.mark.parametrize("game", GAMES, ids=[g.info.id for g in GAMES])
def test_legal_moves_have_the_declared_json_shapes(game: Game) -> None:
    """GameInfo.move_schema (what the API documents) admits every legal move, as exactly one shape."""
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(game.info.move_schema)
    validator = Draft202012Validator(game.info.move_schema)
    kinds = set()
    for seed in range(3):
        for state, _ in random_trajectory(game, game.info.min_players, {}, seed=seed):
            if game.current_player(state) >= 0:
                for move in game.legal_moves(state):
                    data = game.move_to_json(move)
                    validator.validate(data)
                    kinds.add(data["type"])
    declared = {shape["properties"]["type"]["const"] for shape in game.info.move_schema["oneOf"]}
    assert declared == kinds, f"{game.info.id}: declared move types never legal: {declared - kinds}"


@pytest.mark.parametrize("game", GAMES, ids=[g.info.id for g in GAMES])
def test_views_have_the_declared_json_shape(game: Game) -> None:
    """GameInfo.view_schema (the API's `state`) admits every seat's and the spectator's view."""
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(game.info.view_schema)
    validator = Draft202012Validator(game.info.view_schema)
    for n in (game.info.min_players, game.info.max_players):
        for step, (state, _) in enumerate(random_trajectory(game, n, {}, seed=5)):
            if step % 3 == 0 or game.current_player(state) == TERMINAL:
                for seat in [None, *range(n)]:
                    validator.validate(json.loads(json.dumps(game.view(state, seat))))


@pytest.mark.parametrize("game", GAMES, ids=[g.info.id for g in GAMES])
@pytest.mark.parametrize("garbage", [None, 1, "x", [], {}, {"type": "no-such-move"}, [1, 2]])
def test_malformed_move_json_is_invalid_move(game: Game, garbage) -> None:
    with pytest.raises(InvalidMove):
        game.move_from_json(garbage)


@pytest.mark.parametrize("game", GAMES, ids=[g.info.id for g in GAMES])
def test_replaying_seed_and_moves_gives_the_same_state(game: Game) -> None:
    n = game.info.min_players + 1 if game.info.max_players > game.info.min_players else game.info.min_players
    options = game.validate_options({})
    seed = "replay-seed"
    rng = random.Random(5)
    state, history = resolve_chance(game, game.new_state(n, options), seed, 0)
    history = list(history)
    while game.current_player(state) != TERMINAL:
        move = rng.choice(game.legal_moves(state))
        state = game.apply(state, move)
        history.append(move)
        state, drawn = resolve_chance(game, state, seed, len(history))
        history.extend(drawn)
    replay = game.new_state(n, options)
    for move in history:
        replay = game.apply(replay, move)
    assert snapshot(game, replay) == snapshot(game, state)


@pytest.mark.parametrize("game", GAMES, ids=[g.info.id for g in GAMES])
def test_illegal_moves_name_a_rule(game: Game) -> None:
    rng = random.Random(1)
    state = game.new_state(game.info.min_players, game.validate_options({}))
    while game.current_player(state) == CHANCE:
        state = game.apply(state, game.sample_chance(state, rng))
    # a chance outcome offered to a player, or a move after the end, is refused with a rule id
    final = state.clone()
    game.playout(final, rng)
    some_move = game.legal_moves(state)[0]
    with pytest.raises(IllegalMove) as caught:
        game.apply(final, some_move)
    assert caught.value.rule


@pytest.mark.parametrize("kind", ["playout", "random_playout"])
@pytest.mark.parametrize(("game", "n", "options"), CASES, ids=CASE_IDS)
def test_fast_playout_ends_the_game(game: Game, n: int, options: dict, kind: str) -> None:
    """Both playouts (the search's and the uniform baseline) end the game and return its rewards."""
    rng = random.Random(9)
    play = getattr(game, kind)
    for _ in range(20):
        state = game.new_state(n, game.validate_options(options))
        returns = play(state, rng)
        assert game.current_player(state) == TERMINAL
        assert returns == game.returns(state)


@pytest.mark.parametrize(("game", "n", "options"), CASES, ids=CASE_IDS)
def test_heuristic_moves_are_legal(game: Game, n: int, options: dict) -> None:
    """A game's heuristic (the search's first expansion) names a legal move, or nothing, and changes nothing."""
    rng = random.Random(11)
    for seed in range(3):
        for state, move in random_trajectory(game, n, options, seed):
            if move is None or game.current_player(state) < 0:
                continue
            before = snapshot(game, state)
            suggested = game.heuristic_move(state, rng)
            if suggested is None:
                break  # the game has no heuristic
            assert suggested in game.legal_moves(state)
            assert snapshot(game, state) == before, "the heuristic changed the state"


@pytest.mark.parametrize(("game", "n", "options"), CASES, ids=CASE_IDS)
def test_states_sharing_a_position_key_offer_the_same_moves_chances_and_end(game: Game, n: int,
                                                                             options: dict) -> None:
    """A search values positions with the same key once (`Game.position_key`): from two of them the
    same moves and chances must lead to positions that share a key again (so, step by step, to the
    same end)."""
    seen: dict = {}

    def after(state: State, move: object) -> object:
        child = state.clone()
        game.step(child, move)
        return game.position_key(child)

    for seed in range(20):
        for state, _move in random_trajectory(game, n, options, seed):
            key = game.position_key(state)
            if key is None:
                return  # the game offers no key
            player = game.current_player(state)
            chances = game.chance_outcomes(state) if player == CHANCE else []
            future = (player, [(m.to_json(), after(state, m)) for m in game.legal_moves(state)],
                      [(m.to_json(), p, after(state, m)) for m, p in chances],
                      game.outcome(state).winners if player == TERMINAL else None)
            assert seen.setdefault(key, future) == future


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(CASES),
    seed=st.integers(0, 2**32),
    stop=st.floats(0.0, 1.0),
)
def test_views_depend_only_on_what_the_seat_knows(case, seed: int, stop: float) -> None:
    """view(s, seat) == view(determinize(s, seat), seat): nothing hidden can leak into a view."""
    game, n, options = case
    trajectory = list(random_trajectory(game, n, options, seed))
    state, _ = trajectory[int(stop * (len(trajectory) - 1))]
    rng = random.Random(seed)
    for seat in range(n):
        view = game.view(state, seat)
        json.dumps(view)
        spectator = game.view(state, None)
        for _ in range(3):
            sample = game.determinize(state, seat, rng)
            assert game.current_player(sample) == game.current_player(state)
            assert game.view(sample, seat) == view
            assert game.view(sample, None) == spectator
            if game.current_player(state) == seat:
                assert set(game.legal_moves(sample)) == set(game.legal_moves(state))


# --- malformed moves: the checked edge answers anything with InvalidMove or IllegalMove ---------

JUNK = [None, -1, 10**6, "zzz", "", 1.5, True, [], {}, (), [1, 2]]


def move_templates(game: Game, seed: int = 2) -> list:
    """One real move of every kind the game has (player moves and chance outcomes)."""
    kinds: dict[type, object] = {}
    for state, move in random_trajectory(game, game.info.min_players, {}, seed):
        if move is None:
            break
        candidates = [m for m, _ in game.chance_outcomes(state)] + game.legal_moves(state)
        for candidate in candidates:
            kinds.setdefault(type(candidate), candidate)
    return list(kinds.values())


def spoiled(move) -> list:
    """`move` with each of its fields in turn replaced by a wrong-typed or out-of-range value."""
    if dataclasses.is_dataclass(move):
        names = [f.name for f in dataclasses.fields(move)]
        rebuild = lambda name, value: dataclasses.replace(move, **{name: value})  # noqa: E731
    elif hasattr(move, "_replace"):
        names = list(move._fields)
        rebuild = lambda name, value: move._replace(**{name: value})  # noqa: E731
    else:
        return []
    return [rebuild(name, value) for name in names for value in JUNK]


ALL_TEMPLATES = {game.info.id: move_templates(game) for game in GAMES}


def hand_made_moves(game: Game) -> list:
    """Junk objects, other games' moves, and this game's moves with spoiled fields."""
    moves: list = [None, object(), 42, "roll", {"type": "roll"}, (), []]
    for templates in ALL_TEMPLATES.values():
        moves += templates
    for template in ALL_TEMPLATES[game.info.id]:
        moves += spoiled(template)
    return moves


def json_junk(game: Game) -> list:
    """Malformed JSON forms: wrong shapes, unknown types, missing, extra and spoiled fields."""
    junk: list = [None, 1, "x", [], {}, [1, 2], {"type": None}, {"type": 7}, {"type": "no-such-move"}]
    for template in ALL_TEMPLATES[game.info.id]:
        data = game.move_to_json(template)
        junk.append({**data, "extra": 1})
        for name in data:
            if name == "type":
                continue
            junk.append({key: value for key, value in data.items() if key != name})
            junk += [{**data, name: value} for value in JUNK]
    return junk


@pytest.mark.parametrize("game", GAMES, ids=[g.info.id for g in GAMES])
def test_move_from_json_answers_junk_with_invalid_move(game: Game) -> None:
    """Malformed JSON raises InvalidMove; a spoiled field either does too or parses to a real move."""
    for data in json_junk(game):
        try:
            move = game.move_from_json(data)
        except InvalidMove:
            continue
        assert game.move_from_json(json.loads(json.dumps(game.move_to_json(move)))) == move, data


@pytest.mark.parametrize("game", GAMES, ids=[g.info.id for g in GAMES])
def test_check_move_answers_hand_made_moves_with_a_rule(game: Game) -> None:
    """check_move and apply refuse any hand-made object with IllegalMove (or InvalidMove), nothing else."""
    moves = hand_made_moves(game)
    trajectory = list(random_trajectory(game, game.info.min_players, {}, seed=4))
    for state, _ in trajectory[:: max(1, len(trajectory) // 40)] + [trajectory[-1]]:
        before = snapshot(game, state)
        for move in moves:
            try:
                game.check_move(state, move)
            except (IllegalMove, InvalidMove):
                with pytest.raises((IllegalMove, InvalidMove)):
                    game.apply(state, move)
                continue
            game.apply(state, move)  # accepted: it must then apply cleanly
        assert snapshot(game, state) == before
