"""The README's curl session, run against a live server started the way `make run` starts it
(api.devserver: the Procfile's gunicorn, RQ worker and sweeper), on free ports."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import UNTHROTTLED, free_port

from engine import all_games

ROOT = Path(__file__).resolve().parent.parent


def readme_session() -> str:
    """The curl session of the README (its one ```sh block)."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) == 1, "the README should hold exactly one ```sh block: the curl session"
    return blocks[0]


@contextlib.contextmanager
def devserver(redis_url: str, log: Path, **settings: object) -> Iterator[str]:
    """A dev server (the Procfile's processes, as `make run` starts them) on a free port, with
    limits no test reaches and `settings` in its environment; yields its base URL."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "WEB_CONCURRENCY": "1",
           **{name: str(value) for name, value in {**UNTHROTTLED, **settings}.items()}}
    # Its output (a JSON access line per request) goes to a file: a pipe nobody reads fills up
    # and blocks the server.
    with log.open("wb") as output:
        server = subprocess.Popen([sys.executable, "-m", "api.devserver"], cwd=ROOT, env=env,
                                  stdout=output, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as answer:
                        if answer.status == 200:
                            break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        pytest.fail("the dev server did not come up")
                    time.sleep(0.2)
            yield f"http://127.0.0.1:{port}"
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                raise


@pytest.fixture(scope="module")
def live_api(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dev server the README's curl session runs against."""
    with devserver(redis_url, tmp_path_factory.mktemp("live") / "server.log") as url:
        yield url


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="needs curl and jq")
@pytest.mark.parametrize("game_id", [game.info.id for game in all_games()])
def test_readme_curl_session_plays_a_match_to_the_end(live_api: str, game_id: str) -> None:
    # Verbatim, with the README's own knobs: `hard` thinks a second a move, `random` keeps the suite fast.
    env = {**os.environ, "API": live_api, "GAME": game_id, "LEVEL": "random"}
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", readme_session()], cwd=ROOT,
                         capture_output=True, text=True, timeout=240, env=env)
    assert run.returncode == 0, run.stderr + run.stdout
    assert '"status": "finished"' in run.stdout and '"winners"' in run.stdout, run.stdout
    assert "you play" in run.stdout
