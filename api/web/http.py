"""Small request helpers shared by the blueprints: JSON bodies, query strings, bearer tokens."""

from __future__ import annotations

import json
import re
from typing import Any, cast

import orjson
from flask import current_app, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import UnsupportedMediaType

from api.service import Caller, MatchService, tickets
from api.service.errors import Unauthorized
from api.web.errors import BadRequestBody, QueryError
from api.web.loading import Load, compile_load

#: The longest Idempotency-Key accepted; a longer one is refused (400), never cut.
IDEMPOTENCY_KEY_MAX_LENGTH = 255
#: JSON bodies nest at most this deep (a move needs four levels).
MAX_JSON_DEPTH = 32

_VERSION = re.compile(r"[0-9]{1,18}")  # ASCII digits only: "²".isdigit() is True
_IF_MATCH = re.compile(r'(?:W/)?(?:"([0-9]{1,18})"|([0-9]{1,18}))')  # a bare version is taken too
_IDEMPOTENCY_KEY = re.compile(rf"[\x21-\x7e]{{1,{IDEMPOTENCY_KEY_MAX_LENGTH}}}")


def service() -> MatchService:
    """The match service of the running app."""
    return cast(MatchService, current_app.extensions["coven"])


#: Each body schema's loader (`api.web.loading`), compiled on first use.
_LOADERS: dict[Schema, Load] = {}


def load_body(schema: Schema, optional: bool = False) -> dict[str, Any]:
    """The JSON object body, validated by `schema` (400 not JSON, 415 wrong type, 422 fields)."""
    raw = request.get_data(cache=True)  # raises 413 past MAX_CONTENT_LENGTH
    load = _LOADERS.get(schema)
    if load is None:
        load = _LOADERS.setdefault(schema, compile_load(schema))
    if optional and not raw:  # no body at all; whitespace is not JSON
        return load({})
    if not request.is_json:
        raise UnsupportedMediaType("send the body as application/json")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        data = _parsed_by_json(raw)  # what orjson refuses and json takes (NaN, huge integers), or the error
    if not isinstance(data, dict):
        raise BadRequestBody("the body must be a JSON object")
    # nesting deeper than MAX_JSON_DEPTH takes more opening brackets than that (counted in C)
    if raw.count(b"{") + raw.count(b"[") > MAX_JSON_DEPTH and _depth(data) > MAX_JSON_DEPTH:
        raise BadRequestBody(f"the body nests deeper than {MAX_JSON_DEPTH} levels")
    return load(data)


def _parsed_by_json(raw: bytes) -> Any:
    """The body as the standard library reads it (400 when it is not JSON)."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise BadRequestBody(f"the body nests deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:
        raise BadRequestBody("the body is not valid JSON") from None


#: What each query schema loads from an empty query string (loaded once, not per request).
_EMPTY_QUERIES: dict[Schema, dict[str, Any]] = {}


def load_query(schema: Schema) -> dict[str, Any]:
    """The query string validated by `schema` (400 with the fields)."""
    if not request.args:  # most requests: the schema's answer to nothing is known already
        if schema not in _EMPTY_QUERIES:
            _EMPTY_QUERIES[schema] = schema.load({})
        return dict(_EMPTY_QUERIES[schema])
    try:
        return cast(dict[str, Any], schema.load(request.args.to_dict()))
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


def follower(svc: MatchService, match_id: str) -> Caller:
    """Who a stream or a socket follows the match as: the seat of its `ticket` (a browser cannot
    send Authorization there), else its bearer token's, else a spectator."""
    ticket = request.args.get("ticket")
    if ticket is not None:
        return tickets.caller_of_ticket(svc, match_id, ticket)
    return svc.caller(match_id, bearer_token())


def if_match_version() -> int | None:
    """The version named by If-Match (`"3"`), None when absent or `*`; 400 when not a version."""
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return None
    match = _IF_MATCH.fullmatch(header.strip())
    if match is None:
        raise BadRequestBody(f'If-Match {_shown(header)} is not a quoted version like "3" (or *)')
    return int(match[1] or match[2])


def last_event_version() -> int | None:
    """The version named by Last-Event-ID, None when absent; 400 when it is not one we sent."""
    header = request.headers.get("Last-Event-ID")
    if header is None or header == "":
        return None
    value = parse_version(header)
    if value is None:
        raise BadRequestBody(f"Last-Event-ID {_shown(header)} is not an event id of this stream")
    return value


def idempotency_key() -> str | None:
    """The Idempotency-Key header; 400 past its maximum length or with other than visible ASCII."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not _IDEMPOTENCY_KEY.fullmatch(key):
        raise BadRequestBody(
            f"Idempotency-Key must be 1 to {IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters "
            f"(got {len(key)} characters)"
        )
    return key


def parse_version(text: str) -> int | None:
    """A version written in ASCII digits (at most 18 of them), else None."""
    return int(text) if _VERSION.fullmatch(text) else None


def client_socket() -> Any:
    """The client's socket when the server hands it over (gunicorn does), so that a wait can
    notice the client hanging up; None elsewhere (the test client, other servers)."""
    return request.environ.get("gunicorn.socket")


def etag(version: int) -> str:
    """The ETag of a match version."""
    return f'"{version}"'


def _shown(header: str) -> str:
    """A header value for an error message: quoted, and cut when long."""
    return repr(header if len(header) <= 40 else header[:40] + "…")


def _depth(data: Any) -> int:
    """How deep a parsed JSON value nests (a scalar is 0), without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, depth)
            stack.extend((item, depth + 1) for item in value)
    return deepest
