"""A seat's WebSocket (`GET /v1/matches/{id}/socket`, with the `websockets` library): its views
pushed, its moves sent on the same connection, none of either lost to a cut.

The server sends `match` (a view, at every version, none skipped), `ack` and `error` (a move's
answer, naming its `ref`), `bot`, `reconnect`; the client sends `move` with the version it was
chosen at and a `ref`, the move's idempotency key. After a cut the socket is reopened with
`last_version` (every later version comes first, in order) and an unanswered move is sent again
with the same ref, so it is played at most once. `Frames` is that bookkeeping without I/O; the
sync `SeatSocket` and the asyncio `AsyncSeatSocket` drive it. When a socket cannot be opened
(or reopened within the retry policy) they raise `SocketUnavailable`: the match then goes on
over the event stream and POST /moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any, cast

import httpx
from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as async_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.sync.client import ClientConnection, connect

from coven.errors import CovenError, problem_from
from coven.models import MatchView, Move
from coven.transport import RetryPolicy

#: A match in one of these states sends nothing more (the server closes after its final view).
ENDED = ("finished", "cancelled")
#: How long opening a socket may take (handshake included).
OPEN_SECONDS = 10.0
#: What opening a socket may fail with: refused, cut, not a WebSocket server, timed out.
OPEN_FAILURES = (OSError, InvalidHandshake, InvalidURI, TimeoutError)


class SocketUnavailable(CovenError):
    """The seat's socket cannot be opened (or reopened): follow the match over HTTP instead."""


def socket_url(base_url: httpx.URL | str, match_id: str, last_version: int | None) -> str:
    """The socket's ws:// (or wss://) URL on the server of `base_url`."""
    base = httpx.URL(str(base_url))
    url = base.copy_with(scheme="wss" if base.scheme == "https" else "ws",
                         path=base.path.rstrip("/") + f"/v1/matches/{match_id}/socket")
    if last_version is not None:
        url = url.copy_set_param("last_version", str(last_version))
    return str(url)


@dataclass
class _Move:
    """A move sent on the socket and its answer, as far as it came."""

    ref: str
    frame: str
    move: Move
    version: int
    acked: int | None = None  # the version the move made
    answer: MatchView | None = None  # the mover's view of that version
    problem: dict[str, Any] | None = None  # the problem+json it was refused with

    @property
    def settled(self) -> bool:
        return self.answer is not None or self.problem is not None


@dataclass
class Frames:
    """What a seat's socket has received: the views not handed out yet, the last version, the move
    in flight (no I/O here: `SeatSocket` and `AsyncSeatSocket` feed it)."""

    views: deque[MatchView] = field(default_factory=deque)
    last_version: int | None = None
    latest: MatchView | None = None
    ended: bool = False
    pending: _Move | None = None

    def take(self, data: str | bytes) -> None:
        """One frame from the server."""
        message = json.loads(data)
        kind = message.get("type")
        if kind == "match":
            view = cast(MatchView, message["view"])
            if self.last_version is not None and view["version"] <= self.last_version:
                return  # already had (a reopened socket sends only later versions; this is a guard)
            self.views.append(view)
            self.last_version, self.latest = view["version"], view
            self.ended = view["status"] in ENDED
            self._answer()
        elif kind in ("ack", "error") and self.pending is not None and message.get("ref") == self.pending.ref:
            if kind == "ack":
                self.pending.acked = message["version"]
                self._answer()
            else:
                self.pending.problem = message["problem"]

    def send_move(self, move: Move, version: int) -> str:
        """The frame of a move chosen at `version`, now the move in flight."""
        ref = uuid.uuid4().hex
        frame = json.dumps({"type": "move", "move": move, "version": version, "ref": ref})
        self.pending = _Move(ref, frame, move, version)
        return frame

    def unanswered(self) -> str | None:
        """The move to send again on a reopened socket (its ack never came), if any."""
        pending = self.pending
        return pending.frame if pending is not None and pending.acked is None and pending.problem is None else None

    def hand_over(self) -> dict[str, str]:
        """The headers that post the move in flight over HTTP once the socket is given up: its
        `ref` as the Idempotency-Key `ws:<ref>`, so a move the server played before the cut is
        answered, not played again or refused (no headers when none is in flight)."""
        pending, self.pending = self.pending, None
        return {"Idempotency-Key": f"ws:{pending.ref}"} if pending is not None else {}

    def settle(self) -> MatchView:
        """The answer of the move in flight (its view), or its problem raised; it is no longer in flight."""
        pending, self.pending = self.pending, None
        assert pending is not None and pending.settled
        if pending.problem is not None:
            raise problem_from(int(pending.problem.get("status", 400)), pending.problem)
        assert pending.answer is not None
        return pending.answer

    def _answer(self) -> None:
        pending = self.pending
        if pending is not None and pending.acked is not None and pending.answer is None \
                and self.latest is not None and self.latest["version"] >= pending.acked:
            pending.answer = self.latest


class SeatSocket:
    """One seat's socket, synchronous: `next_view()` and `play(move, version)`, reopened after a cut."""

    def __init__(self, base_url: httpx.URL | str, match_id: str, token: str | None, retry: RetryPolicy) -> None:
        self.base_url, self.match_id, self.retry = base_url, match_id, retry
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.frames = Frames()
        self.connection: ClientConnection | None = None
        self._opened = contextlib.ExitStack()  # closes `connection`
        self.broken = False  # given up: every call raises SocketUnavailable

    def open(self) -> None:
        """Connect (again, from the last version received); SocketUnavailable when it cannot."""
        opened = contextlib.ExitStack()  # websockets >= 17.1 wants connect() as a context manager
        try:
            self.connection = opened.enter_context(connect(
                socket_url(self.base_url, self.match_id, self.frames.last_version),
                additional_headers=self.headers, open_timeout=OPEN_SECONDS))
            self._opened = opened
        except OPEN_FAILURES as error:
            raise SocketUnavailable(f"the match's socket cannot be opened: {error}") from error
        resent = self.frames.unanswered()
        if resent is not None:
            self._send(resent)

    def next_view(self) -> MatchView | None:
        """The next version's view, in order; None after the final view of an ended match."""
        frames = self.frames
        while not frames.views:
            if frames.ended:
                return None
            self._receive()
        return frames.views.popleft()

    def play(self, move: Move, version: int) -> MatchView:
        """Send a move chosen at `version`; its view, or the problem it was refused with, raised."""
        self._send(self.frames.send_move(move, version))
        while self.frames.pending is not None and not self.frames.pending.settled:
            self._receive()
        return self.frames.settle()

    def close(self) -> None:
        self.connection = None
        self._opened.close()

    def _send(self, frame: str) -> None:
        if self.connection is None:
            self._reopen()  # the frame in flight is sent again on the new connection
            return
        try:
            self.connection.send(frame)
        except ConnectionClosed:
            self._reopen()

    def _receive(self) -> None:
        if self.broken:
            raise SocketUnavailable("the match's socket was given up")
        if self.connection is None:
            self._reopen()
            return
        try:
            data = self.connection.recv()
        except ConnectionClosed:
            if self.frames.ended:  # closed after the final view: nothing more will come
                raise SocketUnavailable("the match has ended and its socket is closed") from None
            self._reopen()
            return
        self.frames.take(data)

    def _reopen(self) -> None:
        """The connection was cut: open it again from the last version, backing off between tries."""
        self.close()
        for attempt in range(self.retry.attempts):
            time.sleep(self.retry.delay(attempt))
            try:
                self.open()
                return
            except SocketUnavailable:
                continue
        self.broken = True
        raise SocketUnavailable(f"the match's socket could not be reopened in {self.retry.attempts} tries")


class AsyncSeatSocket:
    """`SeatSocket` for asyncio."""

    def __init__(self, base_url: httpx.URL | str, match_id: str, token: str | None, retry: RetryPolicy) -> None:
        self.base_url, self.match_id, self.retry = base_url, match_id, retry
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.frames = Frames()
        self.connection: AsyncConnection | None = None
        self.broken = False

    async def open(self) -> None:
        try:
            self.connection = await async_connect(
                socket_url(self.base_url, self.match_id, self.frames.last_version),
                additional_headers=self.headers, open_timeout=OPEN_SECONDS)
        except OPEN_FAILURES as error:
            raise SocketUnavailable(f"the match's socket cannot be opened: {error}") from error
        resent = self.frames.unanswered()
        if resent is not None:
            await self._send(resent)

    async def next_view(self) -> MatchView | None:
        frames = self.frames
        while not frames.views:
            if frames.ended:
                return None
            await self._receive()
        return frames.views.popleft()

    async def play(self, move: Move, version: int) -> MatchView:
        await self._send(self.frames.send_move(move, version))
        while self.frames.pending is not None and not self.frames.pending.settled:
            await self._receive()
        return self.frames.settle()

    async def close(self) -> None:
        if self.connection is not None:
            await self.connection.close()
            self.connection = None

    async def _send(self, frame: str) -> None:
        if self.connection is None:
            await self._reopen()
            return
        try:
            await self.connection.send(frame)
        except ConnectionClosed:
            await self._reopen()

    async def _receive(self) -> None:
        if self.broken:
            raise SocketUnavailable("the match's socket was given up")
        if self.connection is None:
            await self._reopen()
            return
        try:
            data = await self.connection.recv()
        except ConnectionClosed:
            if self.frames.ended:
                raise SocketUnavailable("the match has ended and its socket is closed") from None
            await self._reopen()
            return
        self.frames.take(data)

    async def _reopen(self) -> None:
        await self.close()
        for attempt in range(self.retry.attempts):
            await asyncio.sleep(self.retry.delay(attempt))
            try:
                await self.open()
                return
            except SocketUnavailable:
                continue
        self.broken = True
        raise SocketUnavailable(f"the match's socket could not be reopened in {self.retry.attempts} tries")
