"""Request schemas compiled for their valid bodies: what `schema.load` returns, without its walk.

marshmallow's `load` goes through hooks, the unknown-field check and every field's
deserialize and validators, several calls a value: for a move's body that was a tenth
of the request. `compile_load(schema)` handles the flat schemas made of `Raw` and strict
`Integer` fields (with `Range` validators) that the hot requests use: a body it finds
valid is returned as marshmallow would return it; any other body (a missing or unknown
field, a wrong type, out of range) goes to `schema.load`, which raises the error it
always did. Any other schema is left to marshmallow. tests/test_loading.py checks that
both agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from marshmallow import RAISE, Schema, fields, missing, validate

Load = Callable[[Any], dict[str, Any]]
Check = Callable[[Any], bool]


def compile_load(schema: Schema) -> Load:
    """A function loading a body as `schema.load` would (marshmallow itself past the valid cases)."""
    if any(schema._hooks.values()) or schema.many or schema.unknown != RAISE or schema.partial:
        return schema.load
    steps: list[tuple[str, str, bool, Check]] = []
    for name, field in schema.load_fields.items():
        check = _check(field)
        if check is None or field.load_default is not missing or (field.attribute or name) != name:
            return schema.load
        steps.append((field.data_key or name, name, field.required, check))
    known = frozenset(key for key, _, _, _ in steps)
    load = schema.load

    def load_valid(data: Any) -> dict[str, Any]:
        if type(data) is not dict or not known.issuperset(data):
            return cast(dict[str, Any], load(data))
        loaded: dict[str, Any] = {}
        for key, name, required, check in steps:
            if key in data:
                value = data[key]
                if not check(value):
                    return cast(dict[str, Any], load(data))
                loaded[name] = value
            elif required:
                return cast(dict[str, Any], load(data))
        return loaded

    return load_valid


def _check(field: fields.Field[Any]) -> Check | None:
    """Whether a value passes `field` unchanged (None: a field this module does not compile)."""
    if type(field) is fields.Raw and not field.validators:
        return (lambda value: True) if field.allow_none else (lambda value: value is not None)
    if type(field) is fields.Integer and field.strict and not field.allow_none and not field.as_string:
        ranges = []
        for validator in field.validators:
            if type(validator) is not validate.Range:
                return None
            ranges.append(validator)

        def in_ranges(value: Any) -> bool:
            return type(value) is int and all(_within(value, bounds) for bounds in ranges)

        return in_ranges
    return None


def _within(value: int, bounds: validate.Range) -> bool:
    """What `validate.Range` accepts."""
    if bounds.min is not None and (value < bounds.min if bounds.min_inclusive else value <= bounds.min):
        return False
    return not (bounds.max is not None and (value > bounds.max if bounds.max_inclusive else value >= bounds.max))
