"""Prometheus at the web side: every request counted and timed, and `/metrics` served.

The metrics themselves, and the deployment-wide ones counted in Redis, are in
`api.runtime.metrics`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from redis.exceptions import RedisError

from api.runtime.metrics import LATENCY, RATE_LIMITED, REQUESTS, SharedCollector
from api.web.contract import Reply, operation

bp = Blueprint("metrics", __name__)


def init_app(app: Flask, collector: SharedCollector) -> None:
    """Count and time every request; serve /metrics."""
    app.extensions["coven.metrics"] = collector

    # (method, route, status) → its request counter and latency histogram: prometheus-client's
    # `labels` checks and looks the labels up under a lock on every call
    children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    @app.before_request
    def start_timer() -> None:
        g.metrics_started = time.perf_counter()

    @app.after_request
    def observe(response: Response) -> Response:
        status = response.status_code
        key = (request.method, request.url_rule.rule if request.url_rule is not None else "unmatched", status)
        pair = children.get(key)
        if pair is None:
            pair = children.setdefault(key, (REQUESTS.labels(key[0], key[1], str(status)),
                                             LATENCY.labels(key[0], key[1])))
        pair[0].inc()
        started = g.get("metrics_started")
        if started is not None:
            pair[1].observe(time.perf_counter() - started)
        if status == 429:
            RATE_LIMITED.labels(_policy_of(response)).inc()
        return response

    app.register_blueprint(bp)


@bp.get("/metrics")
@operation(
    operation_id="getMetrics", tag="health", summary="Metrics (Prometheus text format)",
    responses={200: Reply("The metrics", {"type": "string"}, media_type="text/plain",
                          example="coven_bot_queue_depth 0.0\n")},
)
def metrics() -> Response:
    """Prometheus text format: this host's request metrics and the deployment's shared ones.

    Requests and latency by route and 429s (this host's web processes, added up); moves
    applied, matches by status, bot queue depth, bot-turn latency, search iterations and
    seconds, recovered and failed bot turns, live bot workers, overdue turns, Redis memory
    (the whole deployment, counted in Redis); this host's readiness.
    """
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        local = CollectorRegistry()
        multiprocess.MultiProcessCollector(local)  # type: ignore[no-untyped-call]
    else:
        local = REGISTRY
    from api.web.health import readiness

    shared = CollectorRegistry(auto_describe=False)
    shared.register(current_app.extensions["coven.metrics"])
    ready = CollectorRegistry(auto_describe=False)
    ready.register(_Ready(readiness()["status"] == "ok"))
    try:
        body = generate_latest(local) + generate_latest(shared)
    except RedisError:
        body = generate_latest(local)  # request metrics still tell what is going on
    body += generate_latest(ready)
    return Response(body, mimetype=CONTENT_TYPE_LATEST.split(";")[0],
                    headers={"Content-Type": CONTENT_TYPE_LATEST})


class _Ready(Collector):
    """This host's readiness, as /readyz would answer now."""

    def __init__(self, ready: bool):
        self.ready = ready

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily("coven_ready", "1 when /readyz answers 200 (Redis writable, a bot worker "
                                "alive), else 0", value=1.0 if self.ready else 0.0)


def _policy_of(response: Response) -> str:
    """The rate-limit policy a 429 names (its RateLimit header), or the open-matches cap."""
    header = response.headers.get("RateLimit", "")
    return header.split('"')[1] if header.count('"') >= 2 else "open-matches"
