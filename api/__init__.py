"""The Coven HTTP API: `create_app(config)` builds the Flask application (Flask tutorial factory)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.runtime.config import Config

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: Config | None = None) -> Flask:
    """A Flask app wired to Redis and the match service; blueprints are imported here."""
    from flask import Flask
    from werkzeug.middleware.proxy_fix import ProxyFix

    from api.jobs import sweep
    from api.runtime import logs
    from api.runtime.jsonio import OrjsonProvider
    from api.runtime.metrics import SharedCollector
    from api.service import MatchService
    from api.service.rendering import RenderedViews
    from api.store import storage
    from api.store.connections import match_redis, queue_redis
    from api.web import (
        analysis,
        asyncapi,
        cors,
        docs,
        games,
        guide,
        health,
        limits,
        matches,
        metrics,
        metrics_port,
        openapi,
        play,
        sockets,
    )
    from api.web.dumping import view_dumpers
    from api.web.errors import register_error_handlers

    config = config or Config.from_env()
    logs.configure_logging(config.LOG_LEVEL)
    app = Flask(__name__)
    app.config.update(config.as_flask())
    app.json = OrjsonProvider(app)  # keeps schema field order in responses
    if config.TRUSTED_PROXY_HOPS > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=config.TRUSTED_PROXY_HOPS)  # type: ignore[method-assign]
    service = MatchService(match_redis(config), config, queue_redis(config), RenderedViews(view_dumpers()))
    app.extensions["coven"] = service
    app.register_blueprint(health.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(matches.bp)
    app.register_blueprint(sockets.bp)
    app.register_blueprint(analysis.bp)
    app.register_blueprint(docs.bp)
    app.register_blueprint(asyncapi.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(guide.bp)
    register_error_handlers(app)
    logs.init_app(app, config.ACCESS_LOG_SAMPLE)  # first, so that even a request refused by a limit has its id
    if config.METRICS_PORT:
        metrics_port.init_app(app, config.METRICS_PORT)
    metrics.init_app(app, SharedCollector(service.redis, config.BOT_QUEUE, storage.STATUS_INDEXES,
                                          service.bots.redis, storage.DUE_KEY, config.READY_WORKER_SECONDS))
    limits.init_app(app, config)
    cors.init_app(app, config)
    app.cli.add_command(sweep.sweep_bots_command)
    app.cli.add_command(openapi.openapi_command)
    return app
