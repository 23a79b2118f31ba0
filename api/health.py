"""Liveness and readiness, outside /v1."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from redis.exceptions import RedisError

from api import schemas
from api.contract import Reply, operation
from api.http import service

bp = Blueprint("health", __name__)


@bp.get("/healthz")
@operation(operation_id="getHealth", tag="health", summary="Process is up", responses={
    200: Reply("Up", schemas.HEALTH, example={"status": "ok"}),
})
def healthz() -> Response:
    """Process is up.

    Answers as long as the web process runs; does not touch Redis.
    """
    return jsonify(schemas.HEALTH.dump({"status": "ok"}))


@bp.get("/readyz")
@operation(operation_id="getReadiness", tag="health", summary="Ready to serve (Redis reachable)", responses={
    200: Reply("Ready", schemas.HEALTH, example={"status": "ok", "redis": "ok"}),
    503: Reply("Redis unreachable", schemas.HEALTH,
               example={"status": "unavailable", "redis": "Connection refused"}),
})
def readyz() -> Response | tuple[Response, int]:
    """Redis is reachable."""
    try:
        service().redis.ping()
    except RedisError as error:
        return jsonify(schemas.HEALTH.dump({"status": "unavailable", "redis": str(error)})), 503
    return jsonify(schemas.HEALTH.dump({"status": "ok", "redis": "ok"}))
