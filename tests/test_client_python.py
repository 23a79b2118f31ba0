"""The official Python client (`clients/python`, package `coven`) against a live server: sync and
asyncio sessions play every game over the match's WebSocket (no move posted, no stream opened), a
cut socket is reopened from the last version and its unanswered move sent again with the same ref,
a cut stream resumes with Last-Event-ID, a lost answer is retried with the same Idempotency-Key,
back-off honours Retry-After, problems become exceptions, and the `coven` command plays, joins and
rates the example bots."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import coven
import httpx
import pytest
from coven import AsyncSession, IllegalMove, NotFound, Session
from coven.bot import load_bot, score_of
from coven.channel import Frames, SeatSocket
from coven.transport import RetryPolicy

GAMES = ["witches", "cube", "enchanters"]


class _Recorded(httpx.HTTPTransport):
    """Records every HTTP request the session makes (the socket's handshake is not one of them)."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[tuple[str, str]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append((request.method, request.url.path))
        return super().handle_request(request)


@pytest.mark.parametrize("game", GAMES)
def test_the_example_bot_plays_a_match_to_the_end_over_the_socket(live_api: str, game: str) -> None:
    recorded = _Recorded()
    bot = load_bot(f"coven.examples.{game}")
    moves = 0

    def choose(view: coven.MatchView) -> coven.Move:
        nonlocal moves
        assert match.socket is not None and match.socket.connection is not None, "not over the socket"
        moves += 1
        return bot(view)

    with Session(live_api, client=httpx.Client(base_url=live_api, transport=recorded)) as session:
        match = session.play_against(game, level="random")
        assert match.seat == 0 and match.token
        final = match.play_with(choose)
    assert final["status"] == "finished" and final["game"] == game
    assert final["outcome"] is not None and final["outcome"]["winners"]
    assert final["state"]["game"] == game
    assert moves > 0 and recorded.requests == [("POST", "/v1/matches")], "moves or waits went over HTTP"


def test_a_cut_socket_is_reopened_from_the_last_version_and_its_unanswered_move_sent_again(
        live_api: str, monkeypatch: pytest.MonkeyPatch) -> None:
    opened_from: list[int | None] = []
    sent: list[dict] = []
    cuts = 2
    open_socket, send = SeatSocket.open, SeatSocket._send

    def opening(self: SeatSocket) -> None:
        opened_from.append(self.frames.last_version)
        open_socket(self)

    def sending(self: SeatSocket, frame: str) -> None:
        nonlocal cuts
        first = json.loads(frame)["ref"] not in {message["ref"] for message in sent}
        send(self, frame)
        sent.append(json.loads(frame))
        if cuts and first and self.connection is not None:
            cuts -= 1  # the move went out; the connection dies before its answer comes back
            self.connection.socket.shutdown(socket.SHUT_RDWR)

    monkeypatch.setattr(SeatSocket, "open", opening)
    monkeypatch.setattr(SeatSocket, "_send", sending)
    with Session(live_api, retry=RetryPolicy(base=0.01)) as session:
        match = session.play_against("witches", level="random")
        versions = []
        for view in match.views():
            versions.append(view["version"])
            if coven.session.is_my_turn(view):
                match.play(view["legal_moves"][0])
        log = session.call("GET", f"/v1/matches/{match.id}/log", token=match.token)
    assert versions == list(range(versions[0], versions[-1] + 1)), "a version was skipped or repeated"
    assert opened_from[0] is None and len(opened_from) == 3 and all(v is not None for v in opened_from[1:])
    refs = [message["ref"] for message in sent]
    resent = [ref for ref in set(refs) if refs.count(ref) == 2]
    assert len(resent) == 2, "each cut move is sent again, with its own ref"
    mine = [entry for entry in log["entries"] if entry["seat"] == 0 and not entry["chance"]]
    assert len(mine) == len(set(refs)), "a move sent twice was played twice"


def test_a_socket_that_cannot_be_reopened_hands_its_move_to_http_and_the_match_goes_on(
        live_api: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server plays a move, and the socket dies before its answer reaches the client and will
    not open again (its URL now refuses connections): the move is posted under its ref
    (`ws:<ref>`) and answered with the move played, not refused as a conflict; the match goes on
    over the event stream."""
    take, open_socket = Frames.take, SeatSocket.open
    recorded = _Recorded()
    opened: list[SeatSocket] = []
    lost: list[str] = []  # the ref whose answer was lost
    closed_port = _closed_port()

    def opening(self: SeatSocket) -> None:
        opened.append(self)
        open_socket(self)

    def taking(self: Frames, data: str | bytes) -> None:
        if not lost and json.loads(data).get("type") == "ack":
            lost.append(json.loads(data)["ref"])
            monkeypatch.setattr(coven.channel, "socket_url",
                                lambda base, match_id, last: f"ws://127.0.0.1:{closed_port}/socket")
            connection = opened[-1].connection
            assert connection is not None
            connection.socket.shutdown(socket.SHUT_RDWR)
        if not lost:
            take(self, data)  # once cut, whatever was on its way is lost with the connection

    monkeypatch.setattr(SeatSocket, "open", opening)
    monkeypatch.setattr(Frames, "take", taking)
    client = httpx.Client(base_url=live_api, transport=recorded)
    with Session(live_api, retry=RetryPolicy(base=0.01), client=client) as session:
        match = session.play_against("witches", level="random")
        versions, played = [], 0
        for view in match.views():
            versions.append(view["version"])
            if coven.session.is_my_turn(view):
                match.play(view["legal_moves"][0])
                played += 1
        log = session.call("GET", f"/v1/matches/{match.id}/log", token=match.token)
    assert lost and match.view["status"] == "finished"
    assert versions == list(range(versions[0], versions[-1] + 1)), "a version was skipped or repeated"
    assert sum(entry["seat"] == 0 and not entry["chance"] for entry in log["entries"]) == played
    after_create = recorded.requests[1:]
    assert after_create[0][1].endswith("/moves") and any(path.endswith("/events") for _, path in after_create), \
        "the cut move was posted, then the match followed over the event stream"


def _closed_port() -> int:
    """A loopback port nothing listens on (connections to it are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_asyncio_session_reopens_a_cut_socket_and_plays_on(live_api: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from coven.channel import AsyncSeatSocket

    opened_from: list[int | None] = []
    open_socket, send = AsyncSeatSocket.open, AsyncSeatSocket._send
    cut = False

    async def opening(self: AsyncSeatSocket) -> None:
        opened_from.append(self.frames.last_version)
        await open_socket(self)

    async def sending(self: AsyncSeatSocket, frame: str) -> None:
        nonlocal cut
        await send(self, frame)
        if not cut and self.connection is not None:
            cut = True  # the first move went out; its answer is lost with the connection
            self.connection.transport.get_extra_info("socket").shutdown(socket.SHUT_RDWR)

    monkeypatch.setattr(AsyncSeatSocket, "open", opening)
    monkeypatch.setattr(AsyncSeatSocket, "_send", sending)

    async def play() -> tuple[list[int], coven.MatchView, int, int]:
        async with AsyncSession(live_api, retry=RetryPolicy(base=0.01)) as session:
            match = await session.play_against("cube", level="random")
            versions, played = [], 0
            async for view in match.views():
                versions.append(view["version"])
                if coven.session.is_my_turn(view):
                    await match.play(view["legal_moves"][0])
                    played += 1
            log = await session.call("GET", f"/v1/matches/{match.id}/log", token=match.token)
            mine = sum(entry["seat"] == 0 and not entry["chance"] for entry in log["entries"])
            return versions, match.view, played, mine

    versions, final, played, mine = asyncio.run(play())
    assert final["status"] == "finished" and cut
    assert versions == list(range(versions[0], versions[-1] + 1)), "a version was skipped or repeated"
    assert opened_from[0] is None and len(opened_from) == 2 and opened_from[1] is not None
    assert mine == played, "the move sent again was played twice"


def test_a_move_refused_on_the_socket_is_the_same_exception(live_api: str) -> None:
    with Session(live_api) as session:
        match = session.play_against("witches", level="random")
        views = match.views()
        view = next(v for v in views if coven.session.is_my_turn(v))
        assert match.socket is not None
        held = set(view["state"]["hand"])
        other = next(f"{colour}-{value}" for colour in ("red", "orange", "yellow", "green", "blue", "violet")
                     for value in range(1, 10) if f"{colour}-{value}" not in held)
        with pytest.raises(IllegalMove) as illegal:
            match.play({"type": "play", "card": other})
        assert illegal.value.status == 422 and illegal.value.rule
        match.play(view["legal_moves"][0])  # the socket goes on
        assert next(views)["version"] == view["version"] + 1
        views.close()
        assert match.socket is None


def test_an_asyncio_session_plays_a_match_to_the_end(live_api: str) -> None:
    async def play() -> coven.MatchView:
        async with AsyncSession(live_api) as session:
            match = await session.play_against("cube", level="random")

            async def choose(view: coven.MatchView) -> coven.Move:
                await asyncio.sleep(0)
                assert match.socket is not None, "not over the socket"
                return view["legal_moves"][0]

            return await match.play_with(choose)

    final = asyncio.run(play())
    assert final["status"] == "finished" and final["outcome"]


class _CutStreams(httpx.HTTPTransport):
    """Cuts the first `cuts` event streams after their first event, recording each stream's Last-Event-ID."""

    def __init__(self, cuts: int) -> None:
        super().__init__()
        self.cuts = cuts
        self.resumed_from: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if not request.url.path.endswith("/events"):
            return response
        self.resumed_from.append(request.headers.get("Last-Event-ID"))
        if self.cuts == 0:
            return response
        self.cuts -= 1
        inner = response.stream

        class Cut(httpx.SyncByteStream):
            def __iter__(self) -> Iterator[bytes]:
                buffered = b""
                for chunk in inner:
                    buffered += chunk
                    if b"event: match" in buffered and buffered.endswith(b"\n\n"):
                        yield buffered
                        raise httpx.ReadError("the connection dropped")
                yield buffered

            def close(self) -> None:
                inner.close()

        return httpx.Response(response.status_code, headers=response.headers, stream=Cut(),
                              request=request, extensions=response.extensions)


def test_a_cut_stream_resumes_with_last_event_id_and_skips_no_version(live_api: str) -> None:
    transport = _CutStreams(cuts=3)
    client = httpx.Client(base_url=live_api, transport=transport, timeout=40)
    with Session(live_api, client=client, retry=RetryPolicy(base=0.01), transport="http") as session:
        match = session.play_against("witches", level="random")
        versions = []
        for view in match.views():
            versions.append(view["version"])
            if coven.session.is_my_turn(view):
                match.play(view["legal_moves"][0])
    assert versions == list(range(versions[0], versions[-1] + 1)), "a version was skipped or repeated"
    assert transport.resumed_from[0] is None and transport.resumed_from[1:4] == [str(v) for v in versions[:3]]


class _LoseFirstMoveAnswer(httpx.HTTPTransport):
    """Delivers the first move to the server but loses its answer, as a dropped connection would."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.url.path.endswith("/moves") and request.method == "POST":
            self.keys.append(request.headers.get("Idempotency-Key"))
            if len(self.keys) == 1:
                response.read()
                raise httpx.ReadError("the answer was lost")
        return response


def test_a_lost_answer_is_retried_with_the_same_idempotency_key_and_plays_once(live_api: str) -> None:
    transport = _LoseFirstMoveAnswer()
    client = httpx.Client(base_url=live_api, transport=transport, timeout=40)
    with Session(live_api, client=client, retry=RetryPolicy(base=0.01), transport="http") as session:
        match = session.play_against("cube", level="random")
        view = next(v for v in match.views() if coven.session.is_my_turn(v))
        answer = match.play(view["legal_moves"][0])
        log = session.call("GET", f"/v1/matches/{match.id}/log", token=match.token)
    assert len(transport.keys) == 2 and transport.keys[0] == transport.keys[1] and transport.keys[0]
    assert answer["version"] > view["version"]
    mine = [entry for entry in log["entries"] if entry["seat"] == 0 and not entry["chance"]]
    assert len(mine) == 1, "the retried move was played twice"


def test_back_off_honours_retry_after_and_ratelimit(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(coven.session.time, "sleep", waits.append)
    answers = iter([
        httpx.Response(429, headers={"Retry-After": "3"}, json={"title": "Too many requests", "status": 429}),
        httpx.Response(429, headers={"RateLimit": '"read";r=0;t=7'}, json={"status": 429}),
        httpx.Response(503, json={"status": 503}),
        httpx.Response(200, json={"games": []}),
    ])
    keys = []

    def server(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers.get("Idempotency-Key"))
        return next(answers)

    client = httpx.Client(base_url="http://coven.test", transport=httpx.MockTransport(server))
    with Session("http://coven.test", client=client, retry=RetryPolicy(base=0.5)) as session:
        assert session.games() == []
    assert waits == [3.0, 7.0, 2.0]  # Retry-After, then RateLimit's reset, then doubling from 0.5


def test_problems_are_exceptions(live_api: str) -> None:
    with Session(live_api) as session:
        with pytest.raises(NotFound) as missing:
            session.resume("no-such-match", "token")
        assert missing.value.status == 404
        match = session.play_against("witches", level="random")
        view = next(v for v in match.views() if coven.session.is_my_turn(v))
        with pytest.raises(IllegalMove) as illegal:
            held = set(view["state"]["hand"])
            other = next(f"{colour}-{value}" for colour in ("red", "orange", "yellow", "green", "blue", "violet")
                         for value in range(1, 10) if f"{colour}-{value}" not in held)
            match.play({"type": "play", "card": other})
        assert illegal.value.status == 422 and illegal.value.rule
        assert match.refresh()["version"] == view["version"]


def _coven(live_api: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "coven", "--server", live_api, *args], capture_output=True,
                          text=True, timeout=600, env={**os.environ})


def test_the_command_plays_an_example_bot_against_a_level(live_api: str) -> None:
    game = "witches"  # the example bots of every game play over HTTP above
    ran = _coven(live_api, "play", "--bot", f"coven.examples.{game}", "--game", game, "--level", "random",
                 "--matches", "2")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.count(f"{game} #") == 2 and "score" in ran.stdout.splitlines()[-1]


def test_the_command_joins_an_open_seat(live_api: str) -> None:
    with Session(live_api) as session:
        match = session.create("witches", [{"type": "human"}, {"type": "human"}], name="Morgane")
        host = threading.Thread(target=match.play_with, args=(load_bot("coven.examples.witches"),))
        ran_holder: list[subprocess.CompletedProcess[str]] = []
        joiner = threading.Thread(target=lambda: ran_holder.append(_coven(
            live_api, "join", "--bot", "coven.examples.witches", "--game", "witches", "--wait", "20")))
        joiner.start()
        host.start()
        joiner.join(timeout=600)
        host.join(timeout=600)
    ran = ran_holder[0]
    assert ran.returncode == 0, ran.stderr
    assert f"joined {match.id}" in ran.stdout and "played 1" in ran.stdout
    assert match.view["status"] == "finished"


def test_the_command_rates_a_bot_on_the_ladder_scale(live_api: str) -> None:
    ran = _coven(live_api, "rate", "--bot", "coven.examples.cube", "--game", "cube", "--per-level", "2",
                 "--levels", "random,easy")
    assert ran.returncode == 0, ran.stderr
    line = ran.stdout.splitlines()[-1]
    assert line.startswith("cube: ") and "Elo (95% interval" in line and "4 games" in line, line


def test_the_rating_fit_recovers_a_known_strength() -> None:
    from coven.rating import fit_elo, rate

    # against a 0 and a 400 opponent, scoring the Elo-expected share of each
    games = [(0.0, 1.0)] * 76 + [(0.0, 0.0)] * 24 + [(400.0, 1.0)] * 24 + [(400.0, 0.0)] * 76
    assert abs(fit_elo(games) - 200) < 15
    rating = rate(games)
    assert rating.low < rating.elo < rating.high and rating.games == 200
    assert score_of({"outcome": {"winners": [0, 1]}, "you": 1}) == 0.5  # type: ignore[typeddict-item]


def test_the_typed_models_have_the_served_documents_fields(live_api: str) -> None:
    """Each TypedDict of `coven.models` named after a schema of the document has its fields:
    the same required ones, the same optional ones (a renamed or added field fails here)."""
    from typing import is_typeddict

    from coven import models

    schemas = httpx.get(f"{live_api}/openapi.json", timeout=10).json()["components"]["schemas"]
    checked = []
    for name, model in vars(models).items():
        if not is_typeddict(model) or name.startswith("_"):
            continue
        schema = schemas[name]
        required = set(schema.get("required", []))
        assert model.__required_keys__ == required, name
        assert model.__optional_keys__ == set(schema["properties"]) - required, name
        checked.append(name)
    assert {"WitchesState", "CubeState", "EnchantersState", "WitchesMatchView", "CubeMatchView",
            "EnchantersMatchView", "EnchantersMoveExodus", "CubeTurn", "SeatView"} <= set(checked)


def test_the_readme_match_runs_as_written(live_api: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's complete match (under 20 lines) plays to the end against the live server."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "clients" / "python" / "README.md").read_text()
    snippet = readme.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(snippet.strip().splitlines()) < 20
    exec(compile(snippet.replace("http://localhost:8000", live_api), "README.md", "exec"), {})  # noqa: S102
    assert "'winners'" in capsys.readouterr().out


def test_the_clients_are_versioned_with_the_api(live_api: str) -> None:
    import json
    from pathlib import Path

    api_version = httpx.get(f"{live_api}/openapi.json", timeout=10).json()["info"]["version"]
    package = Path(__file__).resolve().parent.parent / "clients" / "typescript" / "package.json"
    assert coven.__version__ == api_version == json.loads(package.read_text())["version"]
