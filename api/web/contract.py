"""How a view declares its place in the OpenAPI document: `@operation(...)` with Python values.

The declaration names the schema instances the view loads and dumps with
(`api.web.schemas`), so a response shape is written once; the view's docstring,
after its first line, becomes the operation's description. `api.web.openapi`
turns the declarations into the document — no YAML in docstrings.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from marshmallow import Schema

F = TypeVar("F", bound=Callable[..., Any])

ETAG_HEADER = {"ETag": {"description": "The version, quoted", "schema": {"type": "string"}}}


class Auth(Enum):
    """Whether an operation takes a seat token."""

    NONE = "none"          # no seats involved
    OPTIONAL = "optional"  # a seat's view with a token, the spectator's without
    REQUIRED = "required"  # only a seat may do this


@dataclass(frozen=True)
class Reply:
    """One documented success response: its schema (or raw OpenAPI schema), examples, headers."""

    description: str
    schema: Schema | dict[str, Any] | str | None = None  # str: a components/schemas name
    example: Any = None
    examples: dict[str, Any] | None = None  # name → example (or a components/examples name)
    headers: dict[str, Any] = field(default_factory=dict)
    media_type: str = "application/json"

    def to_openapi(self) -> dict[str, Any]:
        response: dict[str, Any] = {"description": self.description}
        if self.headers:
            response["headers"] = self.headers
        if self.schema is not None:
            media: dict[str, Any] = {"schema": self.schema}
            if self.example is not None:
                media["example"] = self.example
            if self.examples is not None:
                media["examples"] = self.examples
            response["content"] = {self.media_type: media}
        return response


@dataclass(frozen=True)
class Operation:
    """An operation of the document, attached to its view function by `@operation`."""

    operation_id: str
    tag: str
    summary: str
    responses: dict[int, Reply | str]  # str: a shared response of components/responses
    auth: Auth = Auth.NONE
    parameters: list[Any] = field(default_factory=list)  # names of components/parameters or dicts
    query: Schema | None = None
    body: Schema | None = None
    body_required: bool = True
    body_example: Any = None
    body_examples: dict[str, Any] | None = None
    description: str | None = None

    def to_openapi(self) -> dict[str, Any]:
        """The operation object, schemas left as instances for apispec's marshmallow plugin."""
        document: dict[str, Any] = {"operationId": self.operation_id, "tags": [self.tag],
                                    "summary": self.summary}
        if self.description:
            document["description"] = self.description
        if self.auth is Auth.OPTIONAL:
            document["security"] = [{}, {"seatToken": []}]
        elif self.auth is Auth.REQUIRED:
            document["security"] = [{"seatToken": []}]
        parameters = list(self.parameters)
        if self.query is not None:
            parameters.insert(1 if parameters else 0, {"in": "query", "schema": self.query})
        if parameters:
            document["parameters"] = parameters
        if self.body is not None:
            media: dict[str, Any] = {"schema": self.body}
            if self.body_example is not None:
                media["example"] = self.body_example
            if self.body_examples is not None:
                media["examples"] = self.body_examples
            document["requestBody"] = {"required": self.body_required,
                                       "content": {"application/json": media}}
        document["responses"] = {
            status: reply.to_openapi() if isinstance(reply, Reply) else reply
            for status, reply in self.responses.items()
        }
        return document


def operation(**declared: Any) -> Callable[[F], F]:
    """Attach an `Operation` to a view; its description is the docstring after the first line."""

    def attach(view: F) -> F:
        _, _, rest = inspect.cleandoc(view.__doc__ or "").partition("\n")
        description = " ".join(rest.split()) or None
        view.openapi = Operation(description=description, **declared)  # type: ignore[attr-defined]
        return view

    return attach


def operation_of(view: Callable[..., Any]) -> Operation | None:
    """The operation declared on a view, if any."""
    return getattr(view, "openapi", None)
