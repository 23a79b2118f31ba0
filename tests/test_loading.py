"""Compiled body loaders (api/loading.py): for every body, what `schema.load` returns or raises."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError, fields, validate

from api.web import schemas
from api.web.loading import compile_load

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
#: Bodies near a move request: its fields with any values, sometimes one too many or one short.
move_bodies = st.dictionaries(
    st.sampled_from(["move", "version", "extra", "Version"]),
    json_values | st.integers(-3, 3) | st.just({"type": "play", "card": "orange-1"}),
    max_size=3,
)


class Bounded(Schema):
    """Every case `compile_load` compiles: nullable Raw, exclusive and open-ended ranges."""

    anything = fields.Raw(allow_none=True)
    low = fields.Integer(strict=True, required=True, validate=validate.Range(1, 5, min_inclusive=False))
    high = fields.Integer(strict=True, validate=[validate.Range(max=10, max_inclusive=False), validate.Range(-4)])
    renamed = fields.Raw(data_key="other-name")


def outcome(load: Any, data: Any) -> tuple[str, Any]:
    try:
        return "loaded", load(data)
    except ValidationError as error:
        return "refused", error.messages


def test_the_move_request_is_compiled_and_other_schemas_are_left_to_marshmallow() -> None:
    assert compile_load(schemas.MOVE_REQUEST) != schemas.MOVE_REQUEST.load
    for schema in (schemas.CREATE_MATCH, schemas.JOIN, schemas.ANALYSIS_REQUEST):
        assert compile_load(schema) == schema.load  # a String, an Enum, a default: marshmallow's


@settings(max_examples=400, deadline=None)
@given(move_bodies)
def test_a_move_body_loads_as_marshmallow_loads_it(body: dict) -> None:
    assert outcome(compile_load(schemas.MOVE_REQUEST), body) == outcome(schemas.MOVE_REQUEST.load, body)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(["anything", "low", "high", "renamed", "other-name"]),
                       st.integers(-6, 12) | st.none() | st.booleans() | json_values, max_size=4))
def test_ranges_nulls_and_data_keys_load_as_marshmallow_loads_them(body: dict) -> None:
    schema = Bounded()
    assert outcome(compile_load(schema), body) == outcome(schema.load, body)


@pytest.mark.parametrize("body", [[], "move", 3, None, {"move": 1, "version": 2**64}, {"move": 1, "version": 2.0}])
def test_what_is_not_a_plain_valid_body_is_marshmallows_to_answer(body: Any) -> None:
    assert outcome(compile_load(schemas.MOVE_REQUEST), body) == outcome(schemas.MOVE_REQUEST.load, body)
