"""The Coven HTTP API: `create_app(config)` builds the Flask application (Flask tutorial factory)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.config import Config

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: Config | None = None) -> Flask:
    """A Flask app wired to Redis and the match service; blueprints are imported here."""
    from flask import Flask
    from flask.json.provider import DefaultJSONProvider
    from flask_cors import CORS

    from api import analysis, docs, games, health, matches, play, sweep
    from api.connections import match_redis, queue_redis
    from api.errors import register_error_handlers
    from api.service import MatchService

    config = config or Config.from_env()
    app = Flask(__name__)
    app.config.update(config.as_flask())
    if isinstance(app.json, DefaultJSONProvider):
        app.json.sort_keys = False  # keep schema field order in responses
    app.extensions["coven"] = MatchService(match_redis(config), config, queue_redis(config))
    if config.CORS_ORIGINS:
        origins = "*" if "*" in config.CORS_ORIGINS else list(config.CORS_ORIGINS)
        CORS(
            app,
            origins=origins,
            expose_headers=["ETag", "Location", "Idempotent-Replayed"],
            allow_headers=["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key",
                           "Last-Event-ID"],
        )
    app.register_blueprint(health.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(matches.bp)
    app.register_blueprint(analysis.bp)
    app.register_blueprint(docs.bp)
    app.register_blueprint(play.bp)
    register_error_handlers(app)
    app.cli.add_command(sweep.sweep_bots_command)
    return app
