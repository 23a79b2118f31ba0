"""Structured logs: one JSON object a line (python-json-logger), and an access line per request
with its request id, method, route, status and duration.

A request id comes from the client's `X-Request-ID` when it is a sane token (kept, so a
proxy's or a client's id follows the request), else it is made here; either way it is
echoed in the answer's `X-Request-ID` and logged with every line of that request.
"""

from __future__ import annotations

import logging
import os
import random
import re
import sys
import time
from datetime import UTC, datetime
from typing import Any

import orjson
from flask import Flask, Response, g, has_request_context, request
from pythonjsonlogger.orjson import OrjsonFormatter
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

REQUEST_ID_HEADER = "X-Request-ID"
_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")

access_log = logging.getLogger("coven.access")
#: The fields of an access line, in order.
ACCESS_FIELDS = ("request_id", "method", "route", "path", "status", "duration_ms", "client")


class JsonLines(OrjsonFormatter):
    """python-json-logger's orjson formatter; an access line (one a request, its fields known)
    skips the generic merge of the record's attributes and is written as that would write it."""

    def format(self, record: logging.LogRecord) -> str:
        if record.name != access_log.name or record.exc_info or record.stack_info:
            return super().format(record)
        line: dict[str, object] = {"level": record.levelname, "logger": record.name, "message": record.getMessage()}
        for name in ACCESS_FIELDS:
            line[name] = getattr(record, name, None)
        line["time"] = datetime.fromtimestamp(record.created, tz=UTC)
        return orjson.dumps(line).decode()


class RequestContext(logging.Filter):
    """Adds the current request's id to every record logged while it is served."""

    def filter(self, record: logging.LogRecord) -> bool:
        if has_request_context() and "request_id" in g:
            record.request_id = g.request_id
        return True


def configure_logging(level: str = "INFO", quiet_redis: bool = False) -> None:
    """JSON lines on stderr for the root logger (once per process; gunicorn's and RQ's too);
    `quiet_redis`: a Redis outage is one warning, not a traceback a retry (`RedisOutage`)."""
    root = logging.getLogger()
    if any(getattr(handler, "_coven", False) for handler in root.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler._coven = True  # type: ignore[attr-defined]
    handler.setFormatter(JsonLines(
        "{levelname}{name}{message}", style="{",
        rename_fields={"levelname": "level", "name": "logger"},
        timestamp="time",  # ISO 8601, UTC
    ))
    handler.addFilter(RequestContext())
    if quiet_redis:
        handler.addFilter(REDIS_OUTAGE)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("gunicorn.error", "gunicorn.access", "rq.worker", "rq.worker_pool"):
        logging.getLogger(name).propagate = True
        logging.getLogger(name).handlers = []


class RedisOutage(logging.Filter):
    """One warning per process when Redis goes away, one line when it is back: what RQ and redis-py
    log on every retry (tracebacks included) while it is away is folded into them.

    Installed on the JSON handler of the worker processes (`configure_logging(quiet_redis=True)`);
    `lost` and `back` are also called by the loops that notice an outage themselves."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    def lost(self, error: BaseException | str) -> None:
        if not self.down:
            self.down = True
            logging.getLogger("coven.redis").warning("redis unavailable (%s): retrying until it is back", error)

    def back(self) -> None:
        if self.down:
            self.down = False
            logging.getLogger("coven.redis").info("redis reachable again")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "coven.redis":
            return True
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, RedisConnectionError | RedisTimeoutError) or "connect to Redis" in record.getMessage():
            self.lost(error or record.getMessage())
            return False
        return True


#: The process's one outage notice (see RedisOutage).
REDIS_OUTAGE = RedisOutage()


def new_request_id() -> str:
    """A random version-4 UUID in hex, as `uuid.uuid4().hex` writes it, at a tenth of its cost
    (no UUID object on every request without an id of its own)."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # version 4
    raw[8] = raw[8] & 0x3F | 0x80  # RFC 4122 variant
    return raw.hex()


#: A request this slow always gets its access line, whatever the sample (ACCESS_LOG_SAMPLE).
SLOW_REQUEST_SECONDS = 1.0


def init_app(app: Flask, sample: float = 1.0) -> None:
    """Give every request an id and log an access line when it is answered: for every request,
    or for a `sample` share of the successful, quick ones (errors and slow requests always)."""

    @app.before_request
    def assign_request_id() -> None:
        incoming = request.headers.get(REQUEST_ID_HEADER, "")
        g.request_id = incoming if _SANE_REQUEST_ID.fullmatch(incoming) else new_request_id()
        g.access_started = time.perf_counter()

    @app.after_request
    def log_access(response: Response) -> Response:
        request_id = g.get("request_id") or new_request_id()
        response.headers[REQUEST_ID_HEADER] = request_id
        if not access_log.isEnabledFor(logging.INFO):
            return response
        started = g.get("access_started")
        duration = time.perf_counter() - started if started else None
        status = response.status_code
        if sample < 1.0 and status < 400 and (duration or 0.0) < SLOW_REQUEST_SECONDS and random.random() >= sample:
            return response
        method, path = request.method, request.path
        fields = {
            "request_id": request_id,
            "method": method,
            "route": request.url_rule.rule if request.url_rule is not None else None,
            "path": path,
            "status": status,
            "duration_ms": round(duration * 1000, 2) if duration is not None else None,
            "client": request.remote_addr,
        }
        handler = _sole_handler()
        if handler is not None and _write_access_line(handler, f"{method} {path} {status}", fields):
            return response
        # makeRecord + handle: what `info` does, without looking up the caller's frame (every request)
        access_log.handle(access_log.makeRecord(
            access_log.name, logging.INFO, __file__, 0, "%s %s %s", (method, path, status), None, extra=fields))
        return response


def _sole_handler() -> logging.StreamHandler[Any] | None:
    """Coven's JSON handler when it is the one handler an access line reaches and nothing but
    its request-id filter stands in between (as `configure_logging` sets things up); else None."""
    found: logging.StreamHandler[Any] | None = None
    logger: logging.Logger | None = access_log
    if access_log.filters:
        return None
    while logger is not None:
        for handler in logger.handlers:
            if found is not None or not getattr(handler, "_coven", False):
                return None
            found = handler  # type: ignore[assignment]
        if not logger.propagate:
            break
        logger = logger.parent
    if found is None or found.level > logging.INFO or any(
            not isinstance(each, RequestContext) for each in found.filters):
        return None
    return found


def _write_access_line(handler: logging.StreamHandler[Any], message: str, fields: dict[str, object]) -> bool:
    """Write the access line as `handler` would (JsonLines' format of the record `log_access`
    would log), without making a LogRecord and taking it through logging's hierarchy: a
    tenth of a match view's cost. False when the stream refused it (then logging takes over)."""
    line: dict[str, object] = {"level": "INFO", "logger": access_log.name, "message": message}
    line.update(fields)
    line["time"] = datetime.now(tz=UTC)
    text = orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE).decode()
    with handler.lock:  # type: ignore[union-attr]
        try:
            handler.stream.write(text)
            handler.flush()
        except (OSError, ValueError):
            return False
    return True
