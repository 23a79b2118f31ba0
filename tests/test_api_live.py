"""The README's curl session, run against a live server started the way `make run` starts it
(api.runtime.devserver: the Procfile's gunicorn, RQ worker and sweeper), on free ports."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from engine import all_games

ROOT = Path(__file__).resolve().parent.parent


def readme_session() -> str:
    """The curl session of the README (its one ```sh block)."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) == 1, "the README should hold exactly one ```sh block: the curl session"
    return blocks[0]


def run_readme_session(timeout: float, **knobs: str) -> subprocess.CompletedProcess[str]:
    """The README's session, verbatim, with its own knobs (API, GAME, LEVEL) set."""
    return subprocess.run(["bash", "-c", readme_session()], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **knobs})


needs_curl_and_jq = pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")),
                                       reason="needs curl and jq")


@needs_curl_and_jq
@pytest.mark.parametrize("game_id", [game.info.id for game in all_games()])
def test_readme_curl_session_plays_a_match_to_the_end(live_api: str, game_id: str) -> None:
    # `hard` thinks a second a move; `random` keeps the suite fast
    run = run_readme_session(240, API=live_api, GAME=game_id, LEVEL="random")
    assert run.returncode == 0, run.stderr + run.stdout
    assert '"status": "finished"' in run.stdout and '"winners"' in run.stdout, run.stdout
    assert "you play" in run.stdout


@needs_curl_and_jq
def test_readme_curl_session_stops_at_a_refusal_showing_the_servers_problem(live_api: str) -> None:
    started = time.monotonic()
    run = run_readme_session(30, API=live_api, GAME="witchs", LEVEL="random")
    assert time.monotonic() - started < 10
    assert run.returncode != 0 and "you play" not in run.stdout
    problem = json.loads(run.stderr.split("was refused: ", 1)[1])  # the server's own problem+json
    assert problem["status"] == 422 and "game" in problem["errors"], run.stderr


@needs_curl_and_jq
def test_readme_curl_session_stops_when_no_server_answers() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        nobody = f"http://127.0.0.1:{sock.getsockname()[1]}"
    started = time.monotonic()
    run = run_readme_session(30, API=nobody)
    assert time.monotonic() - started < 10
    assert run.returncode != 0 and "no answer from" in run.stderr, run.stderr


def call(method: str, url: str, body: dict | None = None, token: str | None = None) -> dict:
    """One JSON request to the live server."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=40) as answer:
        return json.load(answer)


def test_the_sweeper_and_a_worker_move_for_a_seat_out_of_time(live_api: str) -> None:
    created = call("POST", f"{live_api}/v1/matches", {"game": "witches", "clock": {"move_seconds": 1},
                                                      "seats": [{"type": "human"}, {"type": "human"}]})
    mid = created["id"]
    joined = call("POST", f"{live_api}/v1/matches/{mid}/join", {"name": "Viviane"})
    late = joined["to_act"]
    after = call("GET", f"{live_api}/v1/matches/{mid}?after_version={joined['version']}&wait=15")
    assert after["version"] == joined["version"] + 1, "no move was made for the seat out of time"
    entries = call("GET", f"{live_api}/v1/matches/{mid}/log")["entries"]
    assert [entry["seat"] for entry in entries if entry["timeout"]] == [late]
    assert after["seats"][late]["timeouts"] == 1 and after["seats"][late]["takeover"] is None
    token = created["token"] if late == 0 else joined["token"]
    ended = call("POST", f"{live_api}/v1/matches/{mid}/resign", token=token)  # no bots left playing it
    assert ended["status"] == "finished" and ended["outcome"]["winners"] == [1 - late]


def test_engine_verify_checks_a_finished_match_by_its_url(live_api: str) -> None:
    created = call("POST", f"{live_api}/v1/matches", {
        "game": "witches", "seats": [{"type": "human"}, {"type": "bot", "level": "random"}]})
    url = f"{live_api}/v1/matches/{created['id']}"
    ended = call("POST", f"{url}/resign", token=created["token"])  # finished: the deal is revealed
    assert ended["status"] == "finished" and ended["fairness"]["seed"]
    checked = subprocess.run([sys.executable, "-m", "engine.verify", url], cwd=ROOT, capture_output=True,
                             text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("ok:")


def test_a_request_line_over_the_limit_gets_the_documented_414(live_api: str) -> None:
    """gunicorn refuses a request line over 4,094 bytes before the API reads it: 414, as the
    OpenAPI document says of every operation."""
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{live_api}/v1/games?padding={'a' * 5000}", timeout=10)
    assert refused.value.code == 414
    with urllib.request.urlopen(f"{live_api}/openapi.json", timeout=10) as answer:
        document = json.loads(answer.read())
    assert "414" in document["paths"]["/v1/games"]["get"]["responses"]
