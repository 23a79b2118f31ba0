"""The game catalog: /v1/games and /v1/games/{game}."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify

from ai.ladder import load_ratings
from ai.levels import levels_for
from api.web import schemas
from api.web.contract import Reply, operation
from engine.core import AnyGame
from engine.registry import all_games, get_game

bp = Blueprint("games", __name__, url_prefix="/v1/games")

ROOT = Path(__file__).resolve().parents[2]
#: The committed ladder (ai/ratings.json), read once: {game id: {"ratings": {level: {...}}}}.
RATINGS = load_ratings()


def describe(game: AnyGame) -> dict[str, Any]:
    """A game's descriptor as the catalog shows it."""
    info = game.info
    return {
        "id": info.id,
        "title": info.title,
        "summary": info.summary,
        "min_players": info.min_players,
        "max_players": info.max_players,
        "hidden_information": info.hidden_information,
        "options": [spec.to_json() for spec in info.options],
        "bot_levels": [
            {**level.to_json(), "rating": RATINGS.get(info.id, {}).get("ratings", {}).get(level.name)}
            for level in levels_for(info.id).values()
        ],
    }


@bp.get("")
@operation(operation_id="listGames", tag="games", summary="List the games", responses={
    200: Reply("The catalog", schemas.GAME_LIST, example={"games": [{
        "id": "witches", "title": "The Witches' Wheel", "summary": "Trick-taking with hidden hands.",
        "min_players": 2, "max_players": 6, "hidden_information": True, "options": [],
        "bot_levels": [{"name": "hard", "iterations": 3000, "seconds": 1.0,
                        "description": "Information-set MCTS: 3,000 simulations (at most 1 s of CPU).",
                        "rating": {"elo": 420, "low": 380, "high": 465, "games": 400}}],
    }]}),
})
def list_games() -> Response:
    """The games you can play.

    Every game with its player range, options (with defaults) and the bot levels with their budgets.
    """
    return jsonify(schemas.GAME_LIST.dump({"games": [describe(game) for game in all_games()]}))


@bp.get("/<game_id>")
@operation(
    operation_id="getGame", tag="games", summary="One game with its rules",
    parameters=[{"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"},
                 "example": "witches"}],
    responses={
        200: Reply("The game's descriptor and its rules document (Markdown)", schemas.GAME_DETAIL, example={
            "id": "witches", "title": "The Witches' Wheel", "summary": "Trick-taking with hidden hands.",
            "min_players": 2, "max_players": 6, "hidden_information": True, "options": [],
            "bot_levels": [], "rules": "# The Witches' Wheel\n...",
        }),
        404: Reply("No such game", "Problem", media_type="application/problem+json", example={
            "type": "https://coven.example/problems/game-not-found", "title": "Game not found",
            "status": 404, "detail": "unknown game 'chess'", "instance": "/v1/games/chess",
        }),
    },
)
def get_one(game_id: str) -> Response:
    """One game, with its rules."""
    game = get_game(game_id)
    path = ROOT / game.info.rules_file
    rules = path.read_text(encoding="utf-8") if path.is_file() else None
    return jsonify(schemas.GAME_DETAIL.dump({**describe(game), "rules": rules}))
