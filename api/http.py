"""Small request helpers shared by the blueprints: JSON bodies, query strings, bearer tokens."""

from __future__ import annotations

import json
from typing import Any

from flask import current_app, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import UnsupportedMediaType

from api.errors import BadRequestBody, QueryError
from api.service import MatchService
from api.service.errors import PreconditionFailed, Unauthorized


def service() -> MatchService:
    """The match service of the running app."""
    return current_app.extensions["coven"]


def load_body(schema: Schema, optional: bool = False) -> dict[str, Any]:
    """The JSON object body, validated by `schema` (400 not JSON, 415 wrong type, 422 fields)."""
    raw = request.get_data(cache=True)  # raises 413 past MAX_CONTENT_LENGTH
    if optional and not raw.strip():
        return schema.load({})
    if not request.is_json:
        raise UnsupportedMediaType("send the body as application/json")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise BadRequestBody("the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise BadRequestBody("the body must be a JSON object")
    return schema.load(data)


#: What each query schema loads from an empty query string (loaded once, not per request).
_EMPTY_QUERIES: dict[Schema, dict[str, Any]] = {}


def load_query(schema: Schema) -> dict[str, Any]:
    """The query string validated by `schema` (400 with the fields)."""
    if not request.args:  # most requests: the schema's answer to nothing is known already
        if schema not in _EMPTY_QUERIES:
            _EMPTY_QUERIES[schema] = schema.load({})
        return dict(_EMPTY_QUERIES[schema])
    try:
        return schema.load(request.args.to_dict())
    except ValidationError as error:
        raise QueryError(error.messages) from None


def bearer_token() -> str | None:
    """The seat token of `Authorization: Bearer …`, None without the header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("use 'Authorization: Bearer <seat token>'")
    return token.strip()


def if_match_version() -> int | None:
    """The version named by If-Match (`"3"`), None when absent or `*`; 412 when not a version."""
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return None
    value = header.strip().removeprefix("W/").strip('"')
    if not value.isdigit():
        raise PreconditionFailed(f"If-Match {header!r} names no version of this match")
    return int(value)


def client_socket() -> Any:
    """The client's socket when the server hands it over (gunicorn does), so that a wait can
    notice the client hanging up; None elsewhere (the test client, other servers)."""
    return request.environ.get("gunicorn.socket")


def etag(version: int) -> str:
    """The ETag of a match version."""
    return f'"{version}"'
