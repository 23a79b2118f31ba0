"""The Coven HTTP API: `create_app(config)` builds the Flask application (Flask tutorial factory)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.config import Config

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: Config | None = None) -> Flask:
    """A Flask app wired to Redis and the match service; blueprints are imported here."""
    from flask import Flask
    from werkzeug.middleware.proxy_fix import ProxyFix

    from api import (
        analysis,
        docs,
        games,
        health,
        limits,
        logs,
        matches,
        metrics,
        play,
        storage,
        sweep,
    )
    from api.connections import match_redis, queue_redis
    from api.errors import register_error_handlers
    from api.jsonio import OrjsonProvider
    from api.service import MatchService

    config = config or Config.from_env()
    logs.configure_logging(config.LOG_LEVEL)
    app = Flask(__name__)
    app.config.update(config.as_flask())
    app.json = OrjsonProvider(app)  # keeps schema field order in responses
    if config.TRUSTED_PROXY_HOPS > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=config.TRUSTED_PROXY_HOPS)  # type: ignore[method-assign]
    service = MatchService(match_redis(config), config, queue_redis(config))
    app.extensions["coven"] = service
    app.register_blueprint(health.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(matches.bp)
    app.register_blueprint(analysis.bp)
    app.register_blueprint(docs.bp)
    app.register_blueprint(play.bp)
    register_error_handlers(app)
    logs.init_app(app)  # first, so that even a request refused by a limit has its id
    metrics.init_app(app, metrics.SharedCollector(service.redis, config.BOT_QUEUE, storage.STATUS_INDEXES,
                                                     service.bots.redis))
    limits.init_app(app, config)
    _allow_cross_origin(app, config)
    app.cli.add_command(sweep.sweep_bots_command)
    return app


def _allow_cross_origin(app: Flask, config: Config) -> None:
    """CORS for the configured origins only, with the methods and headers the routes have."""
    from flask_cors import CORS

    if not config.CORS_ORIGINS:
        return
    methods = sorted({m for rule in app.url_map.iter_rules() for m in rule.methods or ()}
                     - {"HEAD", "OPTIONS"})
    wildcard = "*" in config.CORS_ORIGINS
    CORS(
        app,
        origins="*" if wildcard else list(config.CORS_ORIGINS),
        send_wildcard=wildcard,  # "*" is answered as "*", never by echoing the caller's origin
        methods=methods,
        expose_headers=["ETag", "Location", "Idempotent-Replayed", "Link", "Retry-After",
                        "RateLimit", "RateLimit-Policy", "X-Request-ID"],
        allow_headers=["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key",
                       "Last-Event-ID", "X-Request-ID"],
        max_age=600,
        vary_header=True,
    )
    _remember_cors_answers(app)


def _remember_cors_answers(app: Flask) -> None:
    """Keep flask-cors's answer per Origin: outside preflights, the headers it adds depend on the
    request's Origin alone (its one resource covers every path), and working them out anew cost
    a tenth of a match view. Preflights, private-network asks and responses that already carry
    CORS headers go to flask-cors itself; at most 256 origins are remembered."""
    import threading
    from collections.abc import Callable
    from typing import cast

    from cachetools import LRUCache
    from flask import Response, request

    decide = cast(Callable[[Response], Response], app.after_request_funcs[None].pop())  # flask-cors's, just registered
    answers: LRUCache[str | None, list[tuple[str, str]]] = LRUCache(maxsize=256)
    lock = threading.Lock()

    def add_cors_headers(response: Response) -> Response:
        environ = request.environ  # its HTTP_ keys: what request.headers would look up, without the wrapper
        if (request.method == "OPTIONS" or "HTTP_ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK" in environ
                or "Access-Control-Allow-Origin" in response.headers):
            return decide(response)
        origin = environ.get("HTTP_ORIGIN")
        with lock:
            added = answers.get(origin)
        if added is None:
            probe = Response()
            before = len(probe.headers)
            decide(probe)
            added = list(probe.headers)[before:]
            with lock:
                answers[origin] = added
        for name, value in added:
            response.headers.add(name, value)
        return response

    app.after_request(add_cors_headers)
