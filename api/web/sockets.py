"""The WebSocket channel of a seat: `GET /v1/matches/{id}/socket` upgraded (simple-websocket).

The route authenticates and checks the request like any other (problem+json before the
upgrade: 401, 404, 426 without an Upgrade), then hands the connection to the service's channel
(`api.service.channel`), which pushes the seat's views and plays its moves. Under gunicorn's
gevent worker a connection holds greenlets, not threads; the worker's connection closes when
the channel ends.
"""

from __future__ import annotations

import contextlib
import socket as socket_module
from typing import Any

from flask import Blueprint, Response, request
from simple_websocket import ConnectionClosed, Server
from wsproto.events import Ping, TextMessage
from wsproto.utilities import LocalProtocolError

from api.service import channel
from api.web import limits
from api.web.contract import Auth, Reply, operation
from api.web.errors import BadRequestBody, QueryError, problem
from api.web.http import follower, parse_version, service

bp = Blueprint("sockets", __name__, url_prefix="/v1/matches")

#: The largest message a client may send (a move is well under a kilobyte).
MAX_MESSAGE_BYTES = 64 * 1024


@bp.get("/<match_id>/socket", websocket=True)  # werkzeug routes a handshake to a WebSocket rule only
@bp.get("/<match_id>/socket")  # ... and anything else here: 426
@operation(
    operation_id="openMatchSocket", tag="matches", summary="Play over a WebSocket (views pushed, moves sent)",
    auth=Auth.OPTIONAL,
    parameters=[
        "MatchId",
        {"name": "last_version", "in": "query", "example": "3",
         "description": "the last version the client holds: every later version is sent first, in order",
         "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"}},
        {"name": "ticket", "in": "query", "example": "b3JhbmdlLTEgaXMgbm90IGEgdGlja2V0",
         "description": "A stream ticket (POST /v1/matches/{id}/stream-ticket): that seat's channel, "
                        "without the seat token in the URL (a browser's WebSocket cannot send headers)",
         "schema": {"type": "string"}},
    ],
    responses={
        101: Reply("Switching protocols: JSON text frames follow, as the AsyncAPI document "
                   "/asyncapi.yaml describes (`match`, `ack`, `error`, `bot`, `reconnect` from the "
                   "server; `move` from the client)"),
        400: "BadRequest", 401: "Unauthorized", 404: "NotFound",
        426: Reply("Not a WebSocket handshake: open it with a WebSocket client", "Problem",
                   media_type="application/problem+json", example={
                       "type": "https://coven.example/problems/upgrade-required", "title": "Upgrade required",
                       "status": 426, "detail": "this URL speaks WebSocket only: send Upgrade: websocket",
                       "instance": "/v1/matches/4f1c2e9a0b7d3a65/socket"},
                   headers={"Upgrade": {"description": "websocket", "schema": {"type": "string"}}}),
    },
)
def socket(match_id: str) -> Response:
    """A seat's WebSocket channel: its view pushed at every new version, its moves sent on it.

    Open it with RFC 6455's handshake (Upgrade: websocket, Connection: Upgrade,
    Sec-WebSocket-Key); any other request gets 426.
    The server sends the caller's view at once (`match`), then every new version, none skipped;
    opened with `last_version`, it first sends every version after that one, in order, as the
    seat saw them. The client sends `{"type": "move", "move": …, "version": n, "ref": …}`; each
    is played as POST /moves plays it (same checks, same compare-and-set, the same move rate
    limit; `ref` is its idempotency key) and answered with `ack` and the mover's new view, or
    `error` carrying the problem+json POST /moves would answer with. `reconnect` (close code
    1001) means the server shuts down: reconnect with `last_version`, to any server. The server
    closes with 1000 after the final view of an ended match. Without a token (or `ticket`), a
    spectator's channel. Any web process serves any seat.
    """
    if not _is_handshake():
        response = problem(426, "Upgrade required", "this URL speaks WebSocket only: open it with a "
                           "WebSocket client (Upgrade: websocket, Connection: Upgrade, Sec-WebSocket-Key)")
        response.headers["Upgrade"] = "websocket"
        return response
    if not any(name in request.environ for name in ("gunicorn.socket", "werkzeug.socket")):
        raise BadRequestBody("this server cannot hand the connection over to a WebSocket")
    svc = service()
    caller = follower(svc, match_id)
    last_version = None
    if "last_version" in request.args:
        last_version = parse_version(request.args["last_version"])
        if last_version is None:
            raise QueryError({"last_version": ["a version: digits only"]})
    seat = channel.Seat(caller.record.id, caller.seat, limits.channel_move_budget(caller.record.id, caller.seat),
                        instance=request.path)
    # No ping_interval: simple-websocket's reader then waits in a selector, which under gevent
    # missed data now and then until the next ping (25 s); the channel pings on its quiet wake-ups.
    server = Server(_without_compression(request.environ), max_message_size=MAX_MESSAGE_BYTES)
    # A move's `ack` and its view are two small frames back to back: without TCP_NODELAY, Nagle's
    # algorithm holds the second until the client acknowledges the first (up to its delayed ACK).
    with contextlib.suppress(OSError):
        server.sock.setsockopt(socket_module.IPPROTO_TCP, socket_module.TCP_NODELAY, 1)
    channel.serve(svc, seat, Connection(server), last_version)
    return Handled()


def _without_compression(environ: dict[str, Any]) -> dict[str, Any]:
    """The handshake without the client's offer of permessage-deflate, which simple-websocket
    would always accept: views are a few kilobytes, and each connection's zlib state cost some
    170 KB and a third of the CPU of sending (socket.io, boardgame.io's transport, leaves it off too)."""
    return {name: value for name, value in environ.items() if name != "HTTP_SEC_WEBSOCKET_EXTENSIONS"}


def _is_handshake() -> bool:
    """Whether the request opens a WebSocket (RFC 6455, section 4.1)."""
    headers = request.headers
    return (headers.get("Upgrade", "").lower() == "websocket"
            and "upgrade" in headers.get("Connection", "").lower() and bool(headers.get("Sec-WebSocket-Key")))


class Connection:
    """simple-websocket's server as the channel's `Socket`: once closed, `receive` answers None
    and `send` does nothing; frames go out whole (`sendall`), several at once in one write."""

    def __init__(self, server: Server):
        self._server = server

    def is_open(self) -> bool:
        return bool(self._server.connected)

    def send(self, *messages: str) -> None:
        self._send(*(TextMessage(data=data) for data in messages))

    def ping(self) -> None:
        self._send(Ping())

    def _send(self, *events: TextMessage | Ping) -> None:
        """The frames of `events` in one write (a move's `ack` and view: one syscall, one packet)."""
        if not self._server.connected:
            return
        try:
            self._server.sock.sendall(b"".join(self._server.ws.send(event) for event in events))
        except (OSError, LocalProtocolError):
            self._server.connected = False

    def receive(self, timeout: float | None = None) -> str | bytes | None:
        try:
            data: str | bytes | None = self._server.receive(timeout)
        except ConnectionClosed:
            return None
        return data

    def close(self, reason: int | None = None, message: str | None = None) -> None:
        try:
            self._server.close(reason, message)
        except (ConnectionClosed, OSError, LocalProtocolError):
            self._server.connected = False


class Handled(Response):
    """The answer of a channel that has ended: gunicorn closes the connection (its protocol
    already spoke WebSocket), any other server gets an empty body."""

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if "gunicorn.socket" in environ:
            raise StopIteration  # gunicorn's signal: the application handled the connection
        return super().__call__(environ, start_response)
