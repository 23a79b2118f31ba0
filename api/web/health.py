"""Liveness and readiness, outside /v1."""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, Response, jsonify
from redis import Redis
from redis.cluster import RedisCluster
from redis.exceptions import RedisError

from api.runtime.config import Config
from api.runtime.metrics import live_workers
from api.web import schemas
from api.web.contract import Reply, operation
from api.web.http import service

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
@operation(
    operation_id="getReadiness", tag="health", summary="Ready to serve (Redis writable, a bot worker alive)",
    responses={
        200: Reply("Ready", schemas.HEALTH, example={"status": "ok", "redis": "ok", "workers": 1}),
        503: Reply("Redis unusable, or no live bot worker", schemas.HEALTH,
                   example={"status": "unavailable", "redis": "ok", "workers": 0}),
    },
)
def readyz() -> tuple[Response, int]:
    """Redis serves a write and a read, and a bot worker sent a heartbeat recently.

    503 when Redis cannot store and read back a key, or when no RQ worker of the bot queue has
    sent a heartbeat within READY_WORKER_SECONDS.
    """
    body = readiness()
    return jsonify(schemas.HEALTH.dump(body)), 200 if body["status"] == "ok" else 503


def readiness() -> dict[str, Any]:
    """What /readyz answers: status "ok" or "unavailable", Redis's state, live bot workers."""
    svc = service()
    body: dict[str, Any] = {"status": "ok", "redis": "ok", "workers": 0}
    try:
        body["workers"] = _redis_round_trip_and_workers(svc.redis, svc.bots.redis, svc.config)
    except RedisError as error:
        body.update(status="unavailable", redis=str(error) or type(error).__name__)
    if body["workers"] == 0:
        body["status"] = "unavailable"
    return body


def _redis_round_trip_and_workers(redis: Redis | RedisCluster, queues: Redis, config: Config) -> int:
    """Write, read back and delete a key of the matches' Redis (RedisError if any fails); then
    count the bot workers (on the queues' Redis) whose last heartbeat is recent."""
    key = f"coven:readyz:{uuid.uuid4().hex}"
    with redis.pipeline(transaction=True) as pipe:
        pipe.set(key, "1", ex=10)
        pipe.get(key)
        pipe.delete(key)
        _, value, _ = pipe.execute()
    if value != b"1":
        raise RedisError("a key written could not be read back")
    return live_workers(queues, config.BOT_QUEUE, config.READY_WORKER_SECONDS)
