"""The order of each game's legal moves and chance outcomes is part of the stored format.

A match's log stores a move as its index among the moves (or chance outcomes) of the
state it was made in (`api/history.py`), so reordering them in a game's code would
replay every stored match wrongly. This test pins the orders seen along fixed random
games by a digest; if it fails after an intended change, stored matches of that game
need migrating before the new digest is written here.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from engine import all_games, get_game
from engine.core import CHANCE, TERMINAL

#: game id -> players -> sha256 of the orders met along GAMES seeded random games
PINNED: dict[str, dict[int, str]] = {
    "witches": {2: "1ebba1858bbe185068d5f4303306256c5a0669a66fcab7ddda6d45a2b8c953c6",
                6: "3a0acf9f15cfe7a7ff72c18da37b22cc94405f543e3a6ec80469d067baec208f"},
    "cube": {2: "ce4b58d80d3104c7acf40e9f168b4a9cedf4c9cb24d3f40a6d21a33eb8d10fed",
             5: "fd1671f02f49e11993b9b412b47c8386b73c1e50a163d53b5dec4d5e6cd4abfd"},
    "enchanters": {2: "b9aac90810ee1ac69f94f12c1b523393732bd6293d79d43f379a5e645cb0706e",
                   6: "747df7c9fec3678c66f6d6cbc81b1a81132713b59af7b95d46b406320752a562"},
}
GAMES = 5
CASES = [(game.info.id, n) for game in all_games()
         for n in sorted({game.info.min_players, game.info.max_players})]


def order_digest(game_id: str, players: int) -> str:
    """Digest of every move and outcome list, in order, met along fixed random games."""
    game = get_game(game_id)
    digest = hashlib.sha256()
    for index in range(GAMES):
        rng = random.Random(f"move-order:{game_id}:{players}:{index}")
        state = game.new_state(players)
        while (player := game.current_player(state)) != TERMINAL:
            if player == CHANCE:
                outcomes = game.chance_outcomes(state)
                moves = [move for move, _ in outcomes]
                move = rng.choices(moves, weights=[p for _, p in outcomes])[0]
            else:
                moves = game.legal_moves(state)
                move = rng.choice(moves)
            digest.update(json.dumps([game.move_to_json(m) for m in moves],
                                     sort_keys=True).encode())
            state = game.apply(state, move)
    return digest.hexdigest()


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_move_order_is_the_one_stored_matches_replay(game_id: str, players: int) -> None:
    assert order_digest(game_id, players) == PINNED[game_id][players], (
        f"{game_id}'s order of legal moves or chance outcomes changed: matches stored with "
        "the old order would replay wrongly (see this module's docstring)")
