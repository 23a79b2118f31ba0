"""The README's curl session, run against a live server started the way `make run` starts it
(api.devserver: gunicorn and an RQ worker from the Procfile), on free ports."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import free_port

ROOT = Path(__file__).resolve().parent.parent


def readme_session() -> str:
    """The curl session of the README (its one ```sh block)."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) == 1, "the README should hold exactly one ```sh block: the curl session"
    return blocks[0]


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="needs curl and jq")
def test_readme_curl_session_plays_a_match_to_the_end(redis_url: str, redis) -> None:
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "WEB_CONCURRENCY": "1"}
    server = subprocess.Popen([sys.executable, "-m", "api.devserver"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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
        # Verbatim but for the bot level: `hard` thinks a second a move; `random` keeps the suite fast.
        script = readme_session().replace('"level": "hard"', '"level": "random"')
        assert script != readme_session()
        run = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, capture_output=True,
                             text=True, timeout=240, env={**os.environ, "API": f"http://127.0.0.1:{port}"})
        assert run.returncode == 0, run.stderr + run.stdout
        assert '"status": "finished"' in run.stdout and '"winners"' in run.stdout, run.stdout
        assert "you play" in run.stdout
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
