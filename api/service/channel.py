"""A seat's WebSocket channel: its views pushed as the match changes, its moves taken on the same
connection, through the same service path as `POST /moves`.

The channel listens on the match's channel through the process's one pub/sub connection
(`api.store.notifications`), as a long-poll or an event stream does: it wakes on a
notification, never by polling, and any web process can serve any seat. A channel opened with
`last_version` first sends every version after it, in order, as the seat saw them (as an event
stream resumed with Last-Event-ID does), then each new version — none skipped.

Messages are JSON text frames (the AsyncAPI document, `api.web.asyncapi`, describes them):

- client → server: `{"type": "move", "move": {...}, "version": 7, "ref": "any"}` (`version` and
  `ref` optional; `ref` comes back with the answer, and is the move's idempotency key);
- server → client: `match` (a view, `version`), `ack` (a move was saved: its `ref` and version),
  `error` (a move refused: its `ref` and the problem+json body `POST /moves` would answer with),
  `bot` (a thinking bot's progress), `reconnect` (the server shuts down: reconnect elsewhere with
  `last_version`). The server closes with 1000 after the final view of an ended match.

Transport-agnostic: `serve` takes any `Socket` (the web tier passes a simple-websocket server).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from api.runtime import jsonio
from api.service.commands import MatchService
from api.service.errors import ServiceError
from api.service.model import Loaded
from api.service.presentation import bot_activity, replayed_views
from api.service.streams import quiet, until_clock_runs_out
from api.store import storage
from api.store.records import ENDED
from engine.errors import EngineError

#: Close codes (RFC 6455): normal (the match ended), going away (the server shuts down).
CLOSE_NORMAL, CLOSE_GOING_AWAY = 1000, 1001
#: Problem types, as the HTTP edge writes them (`api.web.errors.PROBLEM_TYPE_BASE`).
PROBLEM_TYPE_BASE = "https://coven.example/problems/"


class Socket(Protocol):
    """What the channel needs of a WebSocket connection: `receive` answers None once it is closed,
    `send` on a closed one does nothing (`api.web.sockets` adapts simple-websocket's `Server`)."""

    def is_open(self) -> bool: ...
    def send(self, *messages: str) -> None: ...  # several: in one write
    def ping(self) -> None: ...
    def receive(self, timeout: float | None = None) -> str | bytes | None: ...
    def close(self, reason: int | None = None, message: str | None = None) -> None: ...


class MoveRefused(Exception):
    """A move message refused before the service saw it (malformed, or over the rate limit)."""

    def __init__(self, status: int, title: str, detail: str):
        super().__init__(detail)
        self.status, self.title, self.detail = status, title, detail


@dataclass
class Seat:
    """Who the channel serves: the match, the seat (None: a spectator), and the check of the seat's
    move budget (`api.web.limits`; True while under it)."""

    match_id: str
    seat: int | None
    allow_move: Callable[[], bool]
    instance: str = ""  # the channel's URL path, for problem bodies


class Channel:
    """One connected seat: sends each version once and in order, from whichever greenlet has it."""

    def __init__(self, service: MatchService, seat: Seat, socket: Socket, sent: int):
        self.service, self.seat, self.socket = service, seat, socket
        self.sent = sent  # the last version the client got
        self.ended = False  # the client got the final view of an ended match
        self._lock = threading.Lock()  # one frame at a time; `sent` moves with what went out

    def send(self, message: dict[str, Any]) -> None:
        with self._lock:
            self.socket.send(jsonio.dumps(message))

    def push(self, loaded: Loaded) -> None:
        """Send every version after `sent` up to `loaded`'s, in order (nothing when already sent)."""
        with self._lock:
            if loaded.record.version <= self.sent:
                return
            caller = loaded.seen_by(self.seat.seat)
            views = self.service.views
            frames = [_frame("match", view.version, views.dump_view(view))
                      for view in replayed_views(self.service.store, caller, self.sent)]
            frames.append(_frame("match", loaded.record.version, views.body(self.service.store, caller)))
            self.socket.send(*frames)
            self.sent = loaded.record.version
            self.ended = loaded.record.status in ENDED

    def answer(self, ref: Any, version: int, body: dict[str, Any]) -> bool:
        """Send a move's `ack` and, if it is the next version, its answer (the mover's view), in
        one write; False when a version came between (the push loop sends them all in order)."""
        with self._lock:
            frames = [jsonio.dumps({"type": "ack", "ref": ref, "version": version})]
            pushed = body["version"] == self.sent + 1
            if pushed:
                frames.append(_frame("match", body["version"], body))
                self.sent = body["version"]
                self.ended = body["status"] in ENDED
            self.socket.send(*frames)
            return pushed or bool(body["version"] <= self.sent)

    # moves ---------------------------------------------------------------------------------

    def take_moves(self, wake: Callable[[], None]) -> None:
        """Read the client's messages until it hangs up, playing each move; then `wake` the push loop."""
        try:
            while self.socket.is_open():
                data = self.socket.receive()
                if data is not None:
                    self._take(data, wake)
        finally:
            wake()

    def _take(self, data: str | bytes, wake: Callable[[], None]) -> None:
        ref: Any = None
        try:
            message = orjson.loads(data)
            if not isinstance(message, dict) or message.get("type") != "move" or "move" not in message:
                raise MoveRefused(400, "Bad request", 'a message is {"type": "move", "move": {...}}')
            ref = message.get("ref")
            version = message.get("version")
            if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
                raise MoveRefused(422, "Invalid request", "version: an integer")
            if not self.seat.allow_move():
                raise MoveRefused(429, "Too many requests", "rate limit move reached; retry later")
            self._play(message["move"], version, ref, wake)
        except orjson.JSONDecodeError:
            self._refuse(ref, 400, "Bad request", "a message is one JSON object")
        except MoveRefused as refused:
            self._refuse(ref, refused.status, refused.title, refused.detail)
        except ServiceError as error:
            self._refuse(ref, error.status, error.title, error.detail, **error.extra)
        except EngineError as error:
            self._refuse(ref, 422, "Invalid request", str(error))

    def _play(self, move: Any, version: int | None, ref: Any, wake: Callable[[], None]) -> None:
        service, seat = self.service, self.seat
        if seat.seat is None:
            raise MoveRefused(401, "Invalid seat token", "a spectator's channel takes no moves")
        key = f"ws:{ref}" if isinstance(ref, str) and 0 < len(ref) <= 200 and ref.isprintable() else None
        result = service.play(service.seat_mover(seat.match_id, seat.seat), move, version, False, key)
        if not self.answer(ref, result.version, result.body) or self.ended:
            wake()  # versions came between (the push loop sends them in order), or the match ended

    def _refuse(self, ref: Any, status: int, title: str, detail: str, **extra: Any) -> None:
        slug = title.lower().replace(" ", "-").replace("'", "")
        problem = {"type": PROBLEM_TYPE_BASE + slug, "title": title, "status": status, "detail": detail,
                   "instance": self.seat.instance,
                   **{name: value for name, value in extra.items() if value is not None}}
        self.send({"type": "error", "ref": ref, "problem": problem})


def serve(service: MatchService, seat: Seat, socket: Socket, last_version: int | None) -> None:
    """Run a seat's channel until the client hangs up, the match ends or the process shuts down."""
    match_id = seat.match_id
    with service.notifications.listen(storage.channel_for(match_id)) as waiter:
        loaded = service.look(match_id)  # read once subscribed: no change slips between
        sent = last_version if last_version is not None else loaded.record.version - 1
        channel = Channel(service, seat, socket, sent)
        receiver = threading.Thread(target=channel.take_moves, args=(waiter.wake,),
                                    name="coven-channel", daemon=True)
        receiver.start()
        try:
            _follow(service, channel, waiter, loaded)
        finally:
            if socket.is_open():
                socket.close()
            receiver.join(timeout=5)


def _follow(service: MatchService, channel: Channel, waiter: Any, loaded: Loaded) -> None:
    """The push loop: the views since the last one sent, then wait for the next notification."""
    socket, match_id = channel.socket, channel.seat.match_id
    bot_moved = False
    while socket.is_open():
        if loaded.record.version > channel.sent:
            channel.push(loaded)
            if not channel.ended:
                service.ensure_progress(loaded)
        if channel.ended:
            socket.close(CLOSE_NORMAL, "the match has ended")
            return
        if bot_moved:
            activity = bot_activity(service.store, loaded)
            if activity is not None:
                channel.send({"type": "bot", "bot": service.views.dump_bot(activity)})
        if service.notifications.draining:  # the process shuts down: reconnect elsewhere
            channel.send({"type": "reconnect"})
            socket.close(CLOSE_GOING_AWAY, "the server is going away: reconnect with last_version")
            return
        notes = waiter.wait(until_clock_runs_out(service, loaded, service.config.SOCKET_PING_SECONDS))
        if not socket.is_open():
            return
        if not notes:
            socket.ping()  # keeps the connection open through proxies; a dead peer fails the send
        bot_moved = any(note.get("kind") == "bot" for note in notes)
        if quiet(waiter, loaded):
            continue  # nothing was heard and no clock runs: the match is as it was
        if notes and not bot_moved and not any(_passes(note, channel.sent) for note in notes):
            continue  # this channel's own move, already sent with its answer
        newest = max((int(note.get("version", 0)) for note in notes if note.get("kind") == "match"), default=0)
        if bot_moved or not newest:
            loaded = service.look(match_id)
        else:  # no round trip when this process saved that version (the mover is served here)
            loaded = service.look_at(match_id, newest)
        service.recent.keep(match_id, loaded.record.stored, loaded.presence)  # the base of the next move


def _frame(kind: str, version: int, view: dict[str, Any]) -> str:
    return jsonio.dumps({"type": kind, "version": version, "view": view})


def _passes(note: dict[str, Any], version: int) -> bool:
    return note.get("kind") == "match" and int(note.get("version", 0)) > version
