"""Liveness and readiness, outside /v1."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from redis.exceptions import RedisError

from api import schemas
from api.http import service

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    """Process is up.
    ---
    get:
      tags: [health]
      summary: Process is up
      description: Answers as long as the web process runs; does not touch Redis.
      responses:
        200:
          description: Up
          content:
            application/json:
              schema: HealthSchema
              example: {"status": "ok"}
    """
    return jsonify(schemas.HEALTH.dump({"status": "ok"}))


@bp.get("/readyz")
def readyz() -> Response | tuple[Response, int]:
    """Redis is reachable.
    ---
    get:
      tags: [health]
      summary: Ready to serve (Redis reachable)
      responses:
        200:
          description: Ready
          content:
            application/json:
              schema: HealthSchema
              example: {"status": "ok", "redis": "ok"}
        503:
          description: Redis unreachable
          content:
            application/json:
              schema: HealthSchema
              example: {"status": "unavailable", "redis": "Connection refused"}
    """
    try:
        service().redis.ping()
    except RedisError as error:
        return jsonify(schemas.HEALTH.dump({"status": "unavailable", "redis": str(error)})), 503
    return jsonify(schemas.HEALTH.dump({"status": "ok", "redis": "ok"}))
