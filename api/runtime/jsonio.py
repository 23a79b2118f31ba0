"""JSON on the wire through orjson: Flask's responses and the event streams' data.

orjson writes what the standard library's compact form writes (keys in
insertion order; non-ASCII as UTF-8 rather than \\u escapes) several times
faster, and a view's body is one of the larger costs of a request. Types orjson
does not know (and dates, as HTTP dates) go to Flask's own fallback.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider
from werkzeug.sansio.response import Response

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def dumps(value: Any) -> str:
    """`value` as compact JSON text."""
    return orjson.dumps(value, default=DefaultJSONProvider.default, option=_OPTIONS).decode()


class OrjsonProvider(DefaultJSONProvider):
    """Flask's JSON provider, serialising with orjson (pretty-printed in debug, as Flask's is)."""

    sort_keys = False  # keep schema field order in responses

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs:  # a caller asked for the standard library's options
            return super().dumps(obj, **kwargs)
        return dumps(obj)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if self._app.debug:
            return super().response(*args, **kwargs)
        obj = self._prepare_response_obj(args, kwargs)
        body = orjson.dumps(obj, default=DefaultJSONProvider.default, option=_OPTIONS | orjson.OPT_APPEND_NEWLINE)
        return self._app.response_class(body, mimetype=self.mimetype)  # type: ignore[arg-type]
