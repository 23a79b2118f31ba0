"""JSON Schema builders for the JSON shapes of a game's moves and views (`GameInfo.move_schema`, `view_schema`).

A game describes its moves as data, so generic code (the API's OpenAPI document,
generated clients) can type them without knowing any game.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

JsonSchema = dict[str, Any]


def move(kind: str, description: str, *, title: str | None = None, **fields: JsonSchema) -> JsonSchema:
    """A move object: `{"type": kind, **fields}`, every field required, nothing else allowed."""
    return {
        "type": "object",
        "title": title or kind,
        "description": description,
        "properties": {"type": {"const": kind}, **fields},
        "required": ["type", *fields],
        "additionalProperties": False,
    }


def one_of(*schemas: JsonSchema) -> JsonSchema:
    """Exactly one of `schemas` (moves of different `type`s never overlap)."""
    return {"oneOf": list(schemas)}


def names(values: Iterable[str], description: str = "") -> JsonSchema:
    """A string among `values`."""
    schema: JsonSchema = {"type": "string", "enum": list(values)}
    if description:
        schema["description"] = description
    return schema


def integer(low: int, high: int, description: str = "") -> JsonSchema:
    """An integer in [low, high]."""
    schema: JsonSchema = {"type": "integer", "minimum": low, "maximum": high}
    if description:
        schema["description"] = description
    return schema


INTEGER: JsonSchema = {"type": "integer"}
BOOLEAN: JsonSchema = {"type": "boolean"}
SEAT: JsonSchema = {"type": "integer", "minimum": 0}


def record(required: dict[str, JsonSchema], optional: dict[str, JsonSchema] | None = None,
           description: str = "") -> JsonSchema:
    """An object with exactly these fields: every `required` one always, `optional` ones sometimes."""
    schema: JsonSchema = {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
        "additionalProperties": False,
    }
    if description:
        schema["description"] = description
    return schema


def counts(keys: Iterable[str], description: str = "") -> JsonSchema:
    """An object counting each of `keys` (every key present, a count ≥ 0)."""
    return record({key: {"type": "integer", "minimum": 0} for key in keys}, description=description)


def array(items: JsonSchema, description: str = "") -> JsonSchema:
    """A list of `items`."""
    schema: JsonSchema = {"type": "array", "items": items}
    if description:
        schema["description"] = description
    return schema


def nullable(schema: JsonSchema) -> JsonSchema:
    """`schema` or null."""
    return {"anyOf": [schema, {"type": "null"}]}
