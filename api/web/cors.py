"""CORS for the configured origins (flask-cors), with its answers remembered per origin."""

from __future__ import annotations

from flask import Flask

from api.runtime.config import Config


def init_app(app: Flask, config: Config) -> None:
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
