"""Sessions with a Coven server (sync and asyncio) and the match a seat plays.

A `Session` creates, joins and lists matches; a `Match` is one seat of one match: it follows the
seat over its WebSocket (views pushed, moves sent on it; `coven.channel`) or, when the socket
cannot be had or with `transport="http"`, over its event stream (resuming with `Last-Event-ID`
after a cut) with moves posted; each move names the version it was chosen at; `play_with` plays
a whole match with a `choose(view) -> move` function.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Literal, cast

import httpx

from coven.channel import ENDED, AsyncSeatSocket, SeatSocket, SocketUnavailable
from coven.errors import Conflict, CovenError, problem_of
from coven.models import MatchSummary, MatchView, Move
from coven.sse import EventParser
from coven.transport import RetryPolicy, is_retried, new_idempotency_key

#: Reading a stream waits this long for a line (the server sends a keep-alive comment well within it).
STREAM_READ_SECONDS = 60.0

#: How a match is followed and played: "auto" over its WebSocket when it opens, else as "http"
#: (the event stream, moves posted).
Transport = Literal["auto", "http"]
Choose = Callable[[MatchView], Move]
AsyncChoose = Callable[[MatchView], Move | Awaitable[Move]]


def seats_against(level: str, players: int = 2) -> list[dict[str, str]]:
    """Seats for a match of one human (you, seat 0) against `players - 1` bots of `level`."""
    return [{"type": "human"}, *({"type": "bot", "level": level} for _ in range(players - 1))]


def is_my_turn(view: MatchView) -> bool:
    """The seat holding this view is to move now."""
    return view["status"] == "active" and view["you"] is not None and view["to_act"] == view["you"] \
        and bool(view["legal_moves"])


def _request(method: str, path: str, body: Any, token: str | None, headers: dict[str, str] | None
             ) -> dict[str, Any]:
    sent = {**(headers or {})}
    if token:
        sent["Authorization"] = f"Bearer {token}"
    if method == "POST":
        sent.setdefault("Idempotency-Key", new_idempotency_key())  # the same on every retry of this request
    return {"method": method, "url": path, "json": body, "headers": sent}


def _answer(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        raise problem_of(response)
    return response.json() if response.content else None


# --- synchronous ----------------------------------------------------------------------


class Session:
    """A connection to a Coven server: `with Session(url) as coven: coven.play_against(...)`."""

    def __init__(self, base_url: str, *, retry: RetryPolicy | None = None,
                 client: httpx.Client | None = None, timeout: float = 40.0, transport: Transport = "auto") -> None:
        self.retry = retry or RetryPolicy()
        self.http = client or httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)
        self.transport = transport

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def call(self, method: str, path: str, body: Any = None, *, token: str | None = None,
             headers: dict[str, str] | None = None) -> Any:
        """One request, retried on a lost connection, 429 and 502–504 with the server's back-off."""
        request = _request(method, path, body, token, headers)
        for attempt in range(self.retry.attempts):
            try:
                response = self.http.request(**request)
            except httpx.TransportError:
                if attempt + 1 == self.retry.attempts:
                    raise
                time.sleep(self.retry.delay(attempt))
                continue
            if not is_retried(response) or attempt + 1 == self.retry.attempts:
                return _answer(response)
            time.sleep(self.retry.delay(attempt, response))
        raise CovenError("unreachable")  # the loop returns or raises on its last attempt

    def games(self) -> list[dict[str, Any]]:
        """The catalog: each game's id, seats, options and bot levels (with their ratings)."""
        return cast(list[dict[str, Any]], self.call("GET", "/v1/games")["games"])

    def create(self, game: str, seats: list[dict[str, str]], **fields: Any) -> Match:
        """A new match (you take its first human seat); `fields`: options, name, visibility, clock…"""
        return Match(self, cast(dict[str, Any], self.call("POST", "/v1/matches", {"game": game, "seats": seats, **fields})))

    def play_against(self, game: str, level: str = "easy", players: int = 2, **fields: Any) -> Match:
        """A new match of you (seat 0) against bots of `level`."""
        return self.create(game, seats_against(level, players), **fields)

    def join(self, match_id: str, seat: int | None = None, name: str | None = None) -> Match:
        """Take a free seat of a waiting match (the first free one unless `seat`)."""
        body = {key: value for key, value in (("seat", seat), ("name", name)) if value is not None}
        return Match(self, cast(dict[str, Any], self.call("POST", f"/v1/matches/{match_id}/join", body)))

    def resume(self, match_id: str, token: str) -> Match:
        """A seat you already hold (its token from create or join)."""
        view = self.call("GET", f"/v1/matches/{match_id}", token=token)
        return Match(self, {**view, "token": token})

    def open_matches(self, game: str | None = None) -> list[MatchSummary]:
        """Public matches waiting for players (those with a free seat)."""
        query = "?status=waiting" + (f"&game={game}" if game else "")
        return cast(list[MatchSummary], self.call("GET", f"/v1/matches{query}")["matches"])


class Match:
    """One seat of one match: its latest `view`, its moves, its socket or event stream."""

    def __init__(self, session: Session, granted: dict[str, Any]) -> None:
        self.session = session
        self.token: str | None = granted.pop("token", None)
        self.view: MatchView = cast(MatchView, granted)
        self.id: str = granted["id"]
        self.socket: SeatSocket | None = None  # while `views()` follows the match over it

    @property
    def seat(self) -> int | None:
        return self.view["you"]

    def refresh(self) -> MatchView:
        self.view = self.session.call("GET", f"/v1/matches/{self.id}", token=self.token)
        return self.view

    def play(self, move: Move) -> MatchView:
        """Play `move` as chosen at the current view's version (on the socket `views()` follows,
        else posted); the answer is the new view."""
        headers: dict[str, str] = {}
        if self.socket is not None and not self.socket.broken:
            try:
                self.view = self.socket.play(move, self.view["version"])
                return self.view
            except SocketUnavailable:  # posted below under the move's ref: played at most once
                headers = self.socket.frames.hand_over()
        self.view = self.session.call("POST", f"/v1/matches/{self.id}/moves",
                                      {"move": move, "version": self.view["version"]}, token=self.token,
                                      headers=headers)
        return self.view

    def resign(self) -> MatchView:
        self.view = self.session.call("POST", f"/v1/matches/{self.id}/resign", token=self.token)
        return self.view

    def views(self) -> Iterator[MatchView]:
        """Every version of the match as this seat sees it, from now to its end, none skipped:
        over the seat's socket, reopened from the last version after a cut; over the event
        stream when it cannot be had, resumed with `Last-Event-ID`."""
        last_version: int | None = None
        if self.session.transport == "auto":
            socket = SeatSocket(self.session.http.base_url, self.id, self.token, self.session.retry)
            try:
                socket.open()
                self.socket = socket
                while (view := socket.next_view()) is not None:
                    self.view = view
                    yield view
                return
            except SocketUnavailable:
                last_version = socket.frames.last_version
            finally:
                self.socket = None
                socket.close()
        yield from self._streamed(None if last_version is None else str(last_version))

    def _streamed(self, last_id: str | None) -> Iterator[MatchView]:
        """The event stream's views from `last_id` on (the Last-Event-ID of a cut stream)."""
        failures = 0
        while True:
            headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
            if last_id is not None:
                headers["Last-Event-ID"] = last_id
            try:
                with self.session.http.stream(
                        "GET", f"/v1/matches/{self.id}/events", headers=headers,
                        timeout=httpx.Timeout(10.0, read=STREAM_READ_SECONDS)) as response:
                    if response.status_code == 204:
                        return  # the match ended and this seat holds its final view
                    if response.status_code >= 400:
                        response.read()
                        if is_retried(response) and failures + 1 < self.session.retry.attempts:
                            time.sleep(self.session.retry.delay(failures, response))
                            failures += 1
                            continue
                        raise problem_of(response)
                    parser = EventParser()
                    for line in response.iter_lines():
                        event = parser.feed(line)
                        if event is None or event.event != "match":
                            continue
                        failures, last_id = 0, event.id
                        self.view = json.loads(event.data)
                        yield self.view
                        if self.view["status"] in ENDED:
                            return
            except httpx.TransportError:
                if failures + 1 >= self.session.retry.attempts:
                    raise
                time.sleep(self.session.retry.delay(failures))
                failures += 1

    def play_with(self, choose: Choose) -> MatchView:
        """Play this seat to the end of the match: `choose(view)` names each move; the final view."""
        for view in self.views():
            if is_my_turn(view):
                try:
                    self.play(choose(view))
                except Conflict:
                    continue  # the match moved on (a clock ran out): the stream brings the news
        return self.view


# --- asyncio --------------------------------------------------------------------------


class AsyncSession:
    """`Session` for asyncio: `async with AsyncSession(url) as coven: await coven.play_against(...)`."""

    def __init__(self, base_url: str, *, retry: RetryPolicy | None = None,
                 client: httpx.AsyncClient | None = None, timeout: float = 40.0, transport: Transport = "auto") -> None:
        self.retry = retry or RetryPolicy()
        self.http = client or httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=timeout)
        self.transport = transport

    async def __aenter__(self) -> AsyncSession:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def call(self, method: str, path: str, body: Any = None, *, token: str | None = None,
                   headers: dict[str, str] | None = None) -> Any:
        """As `Session.call`, without blocking the event loop while it waits."""
        request = _request(method, path, body, token, headers)
        for attempt in range(self.retry.attempts):
            try:
                response = await self.http.request(**request)
            except httpx.TransportError:
                if attempt + 1 == self.retry.attempts:
                    raise
                await asyncio.sleep(self.retry.delay(attempt))
                continue
            if not is_retried(response) or attempt + 1 == self.retry.attempts:
                return _answer(response)
            await asyncio.sleep(self.retry.delay(attempt, response))
        raise CovenError("unreachable")

    async def games(self) -> list[dict[str, Any]]:
        return cast(list[dict[str, Any]], (await self.call("GET", "/v1/games"))["games"])

    async def create(self, game: str, seats: list[dict[str, str]], **fields: Any) -> AsyncMatch:
        return AsyncMatch(self, await self.call("POST", "/v1/matches", {"game": game, "seats": seats, **fields}))

    async def play_against(self, game: str, level: str = "easy", players: int = 2, **fields: Any) -> AsyncMatch:
        return await self.create(game, seats_against(level, players), **fields)

    async def join(self, match_id: str, seat: int | None = None, name: str | None = None) -> AsyncMatch:
        body = {key: value for key, value in (("seat", seat), ("name", name)) if value is not None}
        return AsyncMatch(self, await self.call("POST", f"/v1/matches/{match_id}/join", body))

    async def open_matches(self, game: str | None = None) -> list[MatchSummary]:
        query = "?status=waiting" + (f"&game={game}" if game else "")
        return cast(list[MatchSummary], (await self.call("GET", f"/v1/matches{query}"))["matches"])


class AsyncMatch:
    """`Match` for asyncio: `async for view in match.views()`, `await match.play(move)`."""

    def __init__(self, session: AsyncSession, granted: dict[str, Any]) -> None:
        self.session = session
        self.token: str | None = granted.pop("token", None)
        self.view: MatchView = cast(MatchView, granted)
        self.id: str = granted["id"]
        self.socket: AsyncSeatSocket | None = None

    @property
    def seat(self) -> int | None:
        return self.view["you"]

    async def play(self, move: Move) -> MatchView:
        headers: dict[str, str] = {}
        if self.socket is not None and not self.socket.broken:
            try:
                self.view = await self.socket.play(move, self.view["version"])
                return self.view
            except SocketUnavailable:  # posted below under the move's ref: played at most once
                headers = self.socket.frames.hand_over()
        self.view = await self.session.call("POST", f"/v1/matches/{self.id}/moves",
                                            {"move": move, "version": self.view["version"]}, token=self.token,
                                            headers=headers)
        return self.view

    async def views(self) -> AsyncIterator[MatchView]:
        """As `Match.views`: every version to the end, over the socket or the event stream."""
        last_version: int | None = None
        if self.session.transport == "auto":
            socket = AsyncSeatSocket(self.session.http.base_url, self.id, self.token, self.session.retry)
            try:
                await socket.open()
                self.socket = socket
                while (view := await socket.next_view()) is not None:
                    self.view = view
                    yield view
                return
            except SocketUnavailable:
                last_version = socket.frames.last_version
            finally:
                self.socket = None
                await socket.close()
        async for view in self._streamed(None if last_version is None else str(last_version)):
            yield view

    async def _streamed(self, last_id: str | None) -> AsyncIterator[MatchView]:
        failures = 0
        while True:
            headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
            if last_id is not None:
                headers["Last-Event-ID"] = last_id
            try:
                async with self.session.http.stream(
                        "GET", f"/v1/matches/{self.id}/events", headers=headers,
                        timeout=httpx.Timeout(10.0, read=STREAM_READ_SECONDS)) as response:
                    if response.status_code == 204:
                        return
                    if response.status_code >= 400:
                        await response.aread()
                        if is_retried(response) and failures + 1 < self.session.retry.attempts:
                            await asyncio.sleep(self.session.retry.delay(failures, response))
                            failures += 1
                            continue
                        raise problem_of(response)
                    parser = EventParser()
                    async for line in response.aiter_lines():
                        event = parser.feed(line)
                        if event is None or event.event != "match":
                            continue
                        failures, last_id = 0, event.id
                        self.view = json.loads(event.data)
                        yield self.view
                        if self.view["status"] in ENDED:
                            return
            except httpx.TransportError:
                if failures + 1 >= self.session.retry.attempts:
                    raise
                await asyncio.sleep(self.session.retry.delay(failures))
                failures += 1

    async def play_with(self, choose: AsyncChoose) -> MatchView:
        """Play this seat to the end; `choose` may be a plain or an async function."""
        async for view in self.views():
            if is_my_turn(view):
                move = choose(view)
                if inspect.isawaitable(move):
                    move = await move
                try:
                    await self.play(move)
                except Conflict:
                    continue
        return self.view
