"""Response schemas compiled into plain functions: what `schema.dump` returns, at a fraction of
its cost.

marshmallow walks every field of every nested schema through several calls per
value; a view holds a few hundred values, and dumping it was the largest cost of
rendering one. `compile_dump(schema)` reads the schema's fields once and builds
one function that does just their conversions (the field types the response
schemas use; any other field is dumped by marshmallow itself). The schema stays
the contract: tests/test_rendering.py checks that both agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import Schema, fields, missing

from api.service.rendering import Dumpers
from api.web import schemas

Convert = Callable[[Any], Any]


def compile_dump(schema: Schema) -> Callable[[Any], dict[str, Any]]:
    """A function dumping an object (or a mapping) as `schema.dump` would."""
    if any(schema._hooks.values()) or schema.many:
        return schema.dump  # pre/post hooks: leave them to marshmallow
    steps = [(field.attribute or name, field.data_key or name, _converter(field))
             for name, field in schema.dump_fields.items()]

    def dump(obj: Any) -> dict[str, Any]:
        if isinstance(obj, Mapping):
            return {key: convert(obj[attr]) for attr, key, convert in steps if attr in obj}
        return {key: convert(getattr(obj, attr)) for attr, key, convert in steps}

    return dump


def _converter(field: fields.Field[Any]) -> Convert:
    """How `field` turns a value into its dumped form (None stays None, as in marshmallow)."""
    if field.dump_default is not missing:
        return _by_marshmallow(field)
    if isinstance(field, fields.Nested) and not field.many and isinstance(field.schema, Schema):
        return _none_or(compile_dump(field.schema))
    if isinstance(field, fields.List):
        inner = _converter(field.inner)
        return _none_or(lambda values: [inner(value) for value in values])
    if isinstance(field, fields.Enum):
        inner = _converter(field.field)
        by_value = bool(field.by_value)
        return _none_or(lambda value: inner(value.value if by_value else value.name))
    if isinstance(field, fields.Mapping) and field.key_field is None and field.value_field is None:
        return _none_or(field.mapping_type)
    if type(field) is fields.Integer and not field.as_string:
        return _none_or(int)
    if type(field) is fields.Float and not field.as_string:
        return _none_or(float)
    if type(field) is fields.String:
        return _none_or(str)
    if type(field) in (fields.Raw, fields.Boolean):
        return _same
    return _by_marshmallow(field)


def _none_or(convert: Convert) -> Convert:
    return lambda value: None if value is None else convert(value)


def _same(value: Any) -> Any:
    return value


def _by_marshmallow(field: fields.Field[Any]) -> Convert:
    return lambda value: field._serialize(value, None, None)


def view_dumpers() -> Dumpers:
    """The match view, the bot's activity and the clock as the contract's schemas dump them."""
    return Dumpers(view=compile_dump(schemas.MATCH_VIEW), bot=compile_dump(schemas.BOT_ACTIVITY),
                   clock=compile_dump(schemas.CLOCK_VIEW))
