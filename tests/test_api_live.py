"""The README's curl session, run against a live server started the way `make run` starts it
(api.devserver: the Procfile's gunicorn, RQ worker and sweeper), on free ports."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import all_games

ROOT = Path(__file__).resolve().parent.parent


def readme_session() -> str:
    """The curl session of the README (its one ```sh block)."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) == 1, "the README should hold exactly one ```sh block: the curl session"
    return blocks[0]


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
