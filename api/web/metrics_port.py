"""METRICS_PORT: the operators' endpoints (/metrics, /healthz, /readyz) on a port of their own.

gunicorn listens on PORT and on METRICS_PORT (gunicorn.conf.py); the port a request came in on
is the listening socket's (`SERVER_PORT`, which no client can set), so a deployment publishes
PORT and keeps METRICS_PORT for its scraper and its health checks. Each port answers 404 for
the other's paths.
"""

from __future__ import annotations

from flask import Flask, abort, request

#: The paths served on METRICS_PORT, and only there.
OPERATOR_PATHS = frozenset({"/metrics", "/healthz", "/readyz"})


def init_app(app: Flask, metrics_port: int) -> None:
    """Refuse (404) the operators' paths on the public port and the API on the metrics port."""
    port = str(metrics_port)

    @app.before_request
    def keep_ports_apart() -> None:
        if (request.path in OPERATOR_PATHS) != (request.environ.get("SERVER_PORT") == port):
            abort(404)
