"""The OpenAPI 3.1 document, generated from the views' `@operation` declarations and the schemas.

`python -m api.web.openapi > openapi.yaml` writes the committed contract; a test
fails when the committed file differs from what this module generates.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import click
import yaml
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask, current_app
from flask.cli import with_appcontext
from marshmallow import fields, missing

from api.web import schemas
from api.web.contract import operation_of
from engine import all_games, get_game, resolve_chance, shapes
from engine.core import AnyGame
from engine.fairness import commitment

TITLE = "Coven"
VERSION = "1.0.0"
DESCRIPTION = """\
Play The Witches' Wheel, The Magic Cube and The Enchanters' Gathering over HTTP,
against people and Monte-Carlo-tree-search bots.

Create a match (you get a seat token, once), send it as `Authorization: Bearer <token>`,
read your view, post one of your `legal_moves` verbatim with the `version` you saw,
and wait for your turn by long-polling (`?after_version=N&wait=30`) or with the
event stream. Every error is `application/problem+json` (RFC 9457).

Requests under `/v1` are rate-limited: creations and joins per client address, moves per
seat token, reads per client address, and the matches one address leaves waiting for players
are capped. Answers carry the IETF `RateLimit-Policy` and `RateLimit` headers; a refused
request gets `429` with `Retry-After`.
"""

def _match_view_example() -> dict[str, Any]:
    """A real view: a seeded two-seat witches match at its first decision, as the seat to act sees it."""
    game = get_game("witches")
    state, _ = resolve_chance(game, game.new_state(2, game.validate_options({})), "example", 0)
    seat = game.current_player(state)
    return {
        "id": "4f1c2e9a0b7d3a65",
        "game": "witches",
        "version": 1,
        "status": "active",
        "to_act": seat,
        "you": seat,
        "seats": [
            {"seat": index, "type": "human", "level": None, "filled": True, "name": "Morgane", "takeover": None,
             "reserved": False, "timeouts": 0, "last_seen": "2025-01-01T12:00:04Z"} if index == seat
            else {"seat": index, "type": "bot", "level": "hard", "filled": True, "name": "hard bot",
                  "takeover": None, "reserved": False, "timeouts": 0, "last_seen": None}
            for index in range(2)
        ],
        "state": game.view(state, seat),
        "legal_moves": [game.move_to_json(move) for move in game.legal_moves(state)],
        "outcome": None,
        "bot": None,
        "seeded": False,
        "options": {"wheel": "decreasing"},
        "created": "2025-01-01T12:00:00Z",
        "updated": "2025-01-01T12:00:05Z",
        "visibility": "public",
        "takeover_level": "medium",
        "clock": {"move_seconds": 30.0, "bank_seconds": None, "increment_seconds": None,
                  "deadline": "2025-01-01T12:00:35.000Z",
                  "remaining": [30.0 if index == seat else None for index in range(2)]},
        "fairness": {"commitment": commitment("example", "witches", game.validate_options({}), 2), "seed": None},
        "resigned": [],
        "rematch": None,
        "previous": None,
    }


MATCH_VIEW_EXAMPLE = _match_view_example()

PROBLEMS: dict[str, tuple[str, int, str, dict[str, Any]]] = {
    "BadRequest": ("Bad request: the body is not JSON, or the query is invalid", 400,
                   "the body is not valid JSON", {}),
    "Unauthorized": ("The seat token is missing or holds no seat of this match", 401,
                     "this token holds no seat of this match", {}),
    "Forbidden": ("Not your turn, the match is not active, or not yours to see", 403,
                  "seat 1 is to act, you hold seat 0", {"to_act": 1}),
    "NotFound": ("No such match or game (or it expired)", 404,
                 "no match 'abc' (it may have expired)", {}),
    "Conflict": ("The version is stale, the seat is taken, or the match is not in play", 409,
                 "the match is at version 4, not 3", {"current_version": 4}),
    "PreconditionFailed": ("If-Match names a stale version", 412,
                           "the match is at version 4, not 3", {"current_version": 4}),
    "NotCreator": ("Only the match's creator may do this", 403,
                   "only the seat that created the match may cancel it", {}),
    "TooLarge": ("The body is too large", 413, "the request body is larger than 65536 bytes", {}),
    "UnsupportedMediaType": ("The body is not application/json", 415,
                             "send the body as application/json", {}),
    "Invalid": ("Invalid fields", 422, "the request body has invalid fields",
                {"errors": {"seats": ["Missing data for required field."]}}),
    "IllegalMove": ("Invalid fields, or a move the rules forbid (rule and legal moves named)", 422,
                    "W7: blue-4 is not in seat 0's hand",
                    {"rule": "W7", "legal_moves": [{"type": "play", "card": "orange-1"},
                                                   {"type": "play", "card": "green-7"}]}),
}


def _json_data(component: str, description: str) -> dict[str, Any]:
    """An event's `data:` line: a JSON document of the component's schema."""
    return {"type": "string", "contentMediaType": "application/json",
            "contentSchema": {"$ref": f"#/components/schemas/{component}"}, "description": description}


#: The events of GET /v1/matches/{id}/events (`api.service.streams` writes them), each modelled
#: as the SSE fields it carries; the stream is an array of them (OpenAPI 3.1 has no itemSchema).
STREAM_EVENTS: dict[str, dict[str, Any]] = {
    "MatchEvent": {
        "type": "object",
        "description": "The caller's view, sent at once and after every change of the match, none "
                       "skipped; a stream resumed with Last-Event-ID first sends every version after "
                       "that one, in order, as the caller's seat saw it then",
        "properties": {
            "event": {"const": "match"},
            "id": {"type": "string", "description": "the match version (send it back as Last-Event-ID)"},
            "data": _json_data("MatchView", "the caller's view at that version"),
        },
        "required": ["event", "id", "data"],
    },
    "BotEvent": {
        "type": "object",
        "description": "A thinking bot's progress (several per bot turn)",
        "properties": {
            "event": {"const": "bot"},
            "data": _json_data("BotActivity", "what the bot to act is doing"),
        },
        "required": ["event", "data"],
    },
    "ReconnectEvent": {
        "type": "object",
        "description": "Last, when the server shuts down: reconnect (with Last-Event-ID) elsewhere",
        "properties": {"event": {"const": "reconnect"}, "data": {"const": "{}"}},
        "required": ["event"],
    },
    "RetryEvent": {
        "type": "object",
        "description": "First in every stream: how long to wait before reconnecting (no data)",
        "properties": {"retry": {"type": "integer", "description": "milliseconds", "example": 2000}},
        "required": ["retry"],
    },
}


RATE_LIMIT_HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Policy": {
        "description": "The limits that apply (IETF draft-ietf-httpapi-ratelimit-headers): a name, "
                       "`q` requests per `w` seconds",
        "schema": {"type": "string"}, "example": '"create-per-minute";q=20;w=60',
    },
    "RateLimit": {
        "description": "The limit nearest to refusing: `r` requests remain, renewed in `t` seconds",
        "schema": {"type": "string"}, "example": '"create-per-minute";r=0;t=42',
    },
    "Retry-After": {
        "description": "Seconds to wait before retrying", "schema": {"type": "integer", "minimum": 1},
        "example": 42,
    },
}


#: Response schemas whose fields depend on the game: one variant per game (`WitchesMatchView`, …),
#: and the schema itself is one of them, told apart by `game` (so clients narrow a view by game).
BY_GAME = {"MatchView": schemas.MatchViewSchema, "VersionView": schemas.VersionViewSchema,
           "SeatGrant": schemas.SeatGrantSchema, "LegalMoves": schemas.LegalMovesSchema}


def _string_enum(converter: Any, field: fields.Field[Any], ret: dict[str, Any], **_: Any) -> dict[str, Any]:
    """`type: string` on enum fields of string values (apispec gives only the `enum`)."""
    if isinstance(field, fields.Enum) and "type" not in ret and all(
            isinstance(value, str) for value in ret.get("enum", ())):
        return {"type": "string"}
    return {}


def _optional_without_default(converter: Any, field: fields.Field[Any], ret: dict[str, Any],
                               **_: Any) -> dict[str, Any]:
    """An optional request field says its default in words, not as `default`: generators
    (openapi-typescript) make a property with a `default` mandatory."""
    if field.load_default is not missing and not field.required and "default" in ret:
        default = ret.pop("default")  # the converter's dict, edited in place: there is no removal hook
        if field.load_default is not None and not callable(field.load_default):
            return {"description": f"{ret.get('description', '')} (default: {default})".lstrip()}
    return {}


def build_spec(app: Flask) -> APISpec:
    """The APISpec of `app`: schemas, shared responses, then every route's operations."""
    marshmallow = MarshmallowPlugin()
    spec = APISpec(
        title=TITLE,
        version=VERSION,
        openapi_version="3.1.0",
        plugins=[marshmallow],
        info={"description": DESCRIPTION},
        servers=[{"url": "/", "description": "this server"}],
    )
    assert marshmallow.converter is not None  # set when the plugin joined the spec
    marshmallow.converter.add_attribute_function(_string_enum)  # type: ignore[no-untyped-call]
    marshmallow.converter.add_attribute_function(_optional_without_default)  # type: ignore[no-untyped-call]
    spec.components.security_scheme(
        "seatToken", {"type": "http", "scheme": "bearer", "description": "the seat token from create or join"}
    )
    spec.components.parameter(
        "MatchId", "path", {"name": "match_id", "required": True, "schema": {"type": "string"},
                            "example": "4f1c2e9a0b7d3a65"},
    )
    spec.components.parameter(
        "IfNoneMatch", "header", {
            "name": "If-None-Match", "schema": {"type": "string"}, "example": '"3"',
            "description": "an ETag seen before: 304 when the match is still at that version "
                           "(and, for the view, no bot is at work)",
        },
    )
    spec.components.response("NotModified", {
        "description": "Not modified: If-None-Match names the current version; no body",
        "headers": {"ETag": {"description": "The version, quoted", "schema": {"type": "string"}}},
    })
    for name, header in RATE_LIMIT_HEADERS.items():
        spec.components.header(name, header)
    spec.components.response("TooManyRequests", {
        "description": "Rate limit reached, or too many matches left waiting by this address; "
                       "retry after `Retry-After` seconds",
        "headers": {name: name for name in RATE_LIMIT_HEADERS},
        "content": {"application/problem+json": {"schema": "Problem", "example": {
            "type": "https://coven.example/problems/too-many-requests", "title": "Too many requests",
            "status": 429, "detail": "rate limit create-per-minute (20 per 1 minute) reached; retry later",
            "instance": "/v1/matches", "policy": "create-per-minute"}}},
    })
    spec.components.response("UriTooLong", {
        "description": "The request line (method, path and query) is longer than 4,094 bytes: the HTTP "
                       "server (gunicorn's `limit_request_line`) answers before the API reads it",
        "content": {"text/html": {"schema": {"type": "string"}}},
    })
    spec.components.example("MatchView", {"summary": "a seat's view", "value": MATCH_VIEW_EXAMPLE})
    spec.components.example(
        "SeatGrant", {"summary": "view plus token", "value": {**MATCH_VIEW_EXAMPLE, "token": "q8HnVb3…"}}
    )
    spec.components.schema("Problem", schema=schemas.ProblemSchema)
    named: dict[str, dict[str, Any]] = {}
    for game in all_games():
        _move_components(spec, game, named)
        spec.components.schema(schemas.state_component(game), _lift(game.info.view_schema, named))
    for name, schema in named.items():
        spec.components.schema(name, schema)
    for name, component in STREAM_EVENTS.items():
        spec.components.schema(name, component)
    for name, (description, status, detail, extra) in PROBLEMS.items():
        example = {
            "type": "https://coven.example/problems/…",
            "title": description.split(",")[0].split(":")[0],
            "status": status,
            "detail": detail,
            "instance": "/v1/matches/4f1c2e9a0b7d3a65/moves",
            **extra,
        }
        spec.components.response(name, {
            "description": description,
            "content": {"application/problem+json": {"schema": "Problem", "example": example}},
        })
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: (r.rule, r.endpoint)):
        declared = operation_of(app.view_functions[rule.endpoint])
        if declared is None:
            continue  # the documents and the explorer themselves
        methods = sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})
        for method in methods:
            document = declared.to_openapi()
            if rule.rule.startswith("/v1/"):  # every request there counts against a rate limit
                document["responses"].setdefault(429, "TooManyRequests")
            document["responses"].setdefault(414, "UriTooLong")
            paths.setdefault(_openapi_path(rule.rule), {})[method.lower()] = document
    for path, operations in paths.items():
        spec.path(path=path, operations=operations)
    return spec


def _openapi_path(rule: str) -> str:
    """A Flask rule (`/v1/matches/<match_id>`) as an OpenAPI path (`/v1/matches/{match_id}`)."""
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)


def spec_dict(app: Flask) -> dict[str, Any]:
    """The OpenAPI document as a dict."""
    document: dict[str, Any] = _exclusive_nulls(build_spec(app).to_dict())
    for name, schema in BY_GAME.items():
        summary = (schema.__doc__ or name).strip().splitlines()[0]
        _split_by_game(document["components"]["schemas"], name, summary)
    return document


def _exclusive_nulls(schema: Any) -> Any:
    """`anyOf: [X, null]` (apispec's nullable nested field) as `oneOf`: the two never overlap,
    and a `oneOf` is what generators decode as "this or nothing"."""
    if isinstance(schema, list):
        return [_exclusive_nulls(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _exclusive_nulls(value) for key, value in schema.items()}
    members = out.get("anyOf")
    if isinstance(members, list) and len(members) == 2 and {"type": "null"} in members:
        out["oneOf"] = out.pop("anyOf")
    return out


def _split_by_game(components: dict[str, Any], name: str, description: str) -> None:
    """Replace component `name` by one variant per game and make it `oneOf` them, by `game`."""
    generic = components.pop(name)
    mapping = {}
    for game in all_games():
        variant = copy.deepcopy(generic)
        for field, schema in _game_fields(game).items():
            if field in variant["properties"]:
                described = variant["properties"][field].get("description")
                variant["properties"][field] = {**schema, **({"description": described} if described else {})}
        variant["description"] = f"{description} ({game.info.title})"
        variant_name = f"{game.info.id.capitalize()}{name}"
        components[variant_name] = variant
        mapping[game.info.id] = f"#/components/schemas/{variant_name}"
    components[name] = {
        "description": f"{description}: one schema per game, told apart by `game`",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "game", "mapping": mapping},
    }


def _game_fields(game: AnyGame) -> dict[str, dict[str, Any]]:
    """The fields of a view whose shape is the game's: its id, state, moves, and seats' states."""
    state = {"$ref": f"#/components/schemas/{schemas.state_component(game)}"}
    return {
        "game": shapes.game(game.info.id),
        "state": state,
        "legal_moves": {"type": "array", "items": {"$ref": f"#/components/schemas/{schemas.move_component(game)}"}},
        "seat_views": {"oneOf": [{"type": "array", "items": state}, {"type": "null"}]},
    }


def _lift(schema: Any, named: dict[str, dict[str, Any]]) -> Any:
    """A copy of `schema` where each subschema named with `$anchor` (`engine.shapes.named`) is a
    `$ref` to a component of that name, collected in `named` (one definition per name)."""
    if isinstance(schema, list):
        return [_lift(item, named) for item in schema]
    if not isinstance(schema, dict):
        return schema
    lifted = {key: _lift(value, named) for key, value in schema.items() if key != "$anchor"}
    if "$anchor" not in schema:
        return lifted
    name = schema["$anchor"]
    if named.setdefault(name, lifted) != lifted:
        raise ValueError(f"two different schemas are named {name}")
    return {"$ref": f"#/components/schemas/{name}"}


def _move_components(spec: APISpec, game: AnyGame, named: dict[str, dict[str, Any]]) -> None:
    """A game's moves: one component per move shape (`<Game>Move<Title>`), and `<Game>Move` one of them.

    Named shapes give generated clients one class per move kind (inline `oneOf` members made
    openapi-python-client build the same nested model twice and drop the gathering).
    """
    name = schemas.move_component(game)
    refs = []
    for shape in game.info.move_schema["oneOf"]:
        title = "".join(word.capitalize() for word in re.split(r"[^A-Za-z0-9]+", shape["title"]) if word)
        # titled as the component: generators name a class after a schema's title
        spec.components.schema(f"{name}{title}", {**_lift(shape, named), "title": f"{name}{title}"})
        refs.append({"$ref": f"#/components/schemas/{name}{title}"})
    spec.components.schema(name, {"oneOf": refs, "description": f"A player's move in {game.info.title}"})


class _PlainDumper(yaml.SafeDumper):
    """Writes a repeated schema out again instead of as a YAML anchor and alias (`&id001`)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def to_yaml(document: dict[str, Any]) -> str:
    """The document as YAML, keys in generation order, no anchors (some tools read them badly)."""
    return yaml.dump(document, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=100)


@click.command("openapi")
@with_appcontext
def openapi_command() -> None:
    """Print the OpenAPI document generated from the code (the committed openapi.yaml)."""
    click.echo(to_yaml(spec_dict(current_app._get_current_object())), nl=False)  # type: ignore[attr-defined]
