"""Every error response, in one shape: RFC 9457 `application/problem+json`.

Service errors, marshmallow validation errors, engine errors that reach the
edge, and every HTTP error Flask raises (404, 405, 413, 415, 500, …) become
`{"type", "title", "status", "detail", "instance", …}`, plus `errors` per field
for validation and `rule`/`legal_moves` for illegal moves.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, json, request
from marshmallow import ValidationError
from redis.exceptions import RedisError
from werkzeug.exceptions import HTTPException

from api.service.errors import ServiceError
from engine.errors import EngineError, InvalidOptions
from engine.registry import UnknownGame

PROBLEM_TYPE_BASE = "https://coven.example/problems/"
MEDIA_TYPE = "application/problem+json"

log = logging.getLogger(__name__)


def problem(status: int, title: str, detail: str | None = None, **extra: Any) -> Response:
    """A problem+json response."""
    slug = title.lower().replace(" ", "-").replace("'", "")
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + slug,
        "title": title,
        "status": status,
        "detail": detail or title,
        "instance": request.path if request else None,
    }
    body.update({key: value for key, value in extra.items() if value is not None})
    response = Response(json.dumps(body), status=status, mimetype=MEDIA_TYPE)
    return response


class BadRequestBody(Exception):
    """The request body is not a JSON object (400) — raised before any schema runs."""

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


class QueryError(Exception):
    """Query-string parameters failed validation (400, with the fields)."""

    def __init__(self, errors: dict[str, Any] | list[Any]):
        super().__init__("invalid query parameters")
        self.errors = errors


def register_error_handlers(app: Flask) -> None:
    """Route every exception to a problem+json response."""

    @app.errorhandler(ServiceError)
    def service_error(error: ServiceError) -> Response:
        response = problem(error.status, error.title, error.detail, **error.extra)
        if error.status == 401:
            response.headers["WWW-Authenticate"] = 'Bearer realm="coven"'
        return response

    @app.errorhandler(ValidationError)
    def validation_error(error: ValidationError) -> Response:
        return problem(422, "Invalid request", "the request body has invalid fields",
                       errors=error.messages)

    @app.errorhandler(BadRequestBody)
    def bad_body(error: BadRequestBody) -> Response:
        return problem(400, "Bad request", error.detail)

    @app.errorhandler(QueryError)
    def bad_query(error: QueryError) -> Response:
        return problem(400, "Bad request", "invalid query parameters", errors=error.errors)

    @app.errorhandler(UnknownGame)
    def unknown_game(error: UnknownGame) -> Response:
        return problem(404, "Game not found", str(error))

    @app.errorhandler(InvalidOptions)
    def invalid_options(error: InvalidOptions) -> Response:
        return problem(422, "Invalid request", str(error), errors=error.fields)

    @app.errorhandler(EngineError)
    def engine_error(error: EngineError) -> Response:
        return problem(422, "Invalid request", str(error))

    @app.errorhandler(RedisError)
    def storage_down(error: RedisError) -> Response:
        log.error("Redis error on %s %s: %s", request.method, request.path, error)
        response = problem(503, "Service Unavailable", "the match store is unreachable; retry shortly")
        response.headers["Retry-After"] = "5"
        return response

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        status = error.code or 500
        title = error.name
        detail = error.description
        if status == 413:
            detail = f"the request body is larger than {app.config['MAX_CONTENT_LENGTH']} bytes"
        response = problem(status, title, detail)
        if status == 405 and hasattr(error, "valid_methods") and error.valid_methods:
            response.headers["Allow"] = ", ".join(error.valid_methods)
        return response

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return problem(500, "Internal Server Error", "the server failed; the error is logged")
