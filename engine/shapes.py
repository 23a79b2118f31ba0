"""JSON Schema builders for the JSON shapes of a game's moves and views (`GameInfo.move_schema`, `view_schema`).

A game describes its moves as data, so generic code (the API's OpenAPI document,
generated clients) can type them without knowing any game.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.core import Termination

JsonSchema = dict[str, Any]


def named(name: str, schema: JsonSchema) -> JsonSchema:
    """`schema` under a name (`$anchor`): the OpenAPI document makes it a component of that name,
    so generated clients get one type for it (a card, a seat's record) instead of a copy per use."""
    return {"$anchor": name, **schema}


def game(game_id: str) -> JsonSchema:
    """The `game` field every view carries: the discriminator clients narrow a view by."""
    return {"type": "string", "const": game_id, "description": "the game id"}


def move(kind: str, description: str, *, title: str | None = None, **fields: JsonSchema) -> JsonSchema:
    """A move object: `{"type": kind, **fields}`, every field required, nothing else allowed."""
    return {
        "type": "object",
        "title": title or kind,
        "description": description,
        "properties": {"type": {"type": "string", "const": kind}, **fields},
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
    """`schema` or null (a `oneOf`: exactly one holds, which generators decode by trying each)."""
    return {"oneOf": [schema, {"type": "null"}]}


#: Who is to act in a view: a seat, `chance` (a draw or roll is due), or null once over.
SEAT_OR_CHANCE: JsonSchema = {"oneOf": [
    {"type": "integer", "minimum": 0, "description": "the seat to act"},
    # an enum of one, not a const: openapi-python-client 0.29 parses a const in a union without
    # trying the other members (it refused every seat number)
    named("Chance", {"type": "string", "enum": ["chance"], "description": "a chance outcome is due"}),
    {"type": "null", "description": "nobody: the game is over"},
]}

#: `Outcome.to_json()`: how a finished game ended.
OUTCOME: JsonSchema = named("GameOutcome", record({
    "scores": array({"type": "number"}, "each seat's score"),
    "winners": array(SEAT, "the winning seats (ties allowed)"),
    "ranks": array({"type": "integer", "minimum": 1}, "each seat's rank, 1 the best"),
    "reason": names([reason.value for reason in Termination], "how the game ended"),
}, description="How a finished game ended"))
