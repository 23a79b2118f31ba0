"""Schemathesis (its CLI, every check and phase) against a live dev server: whatever it
generates from the OpenAPI document, the answers match the document — statuses, headers,
content types, bodies — and nothing makes a 500. Path parameters name real matches and
requests carry their seat tokens (tests/schemathesis_hooks.py). Bounded to about a minute.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT, devserver

#: Valid by the document yet refused by the state of the match (412: If-Match names an older
#: version) or by the rules (422: an illegal move, a seat count the game does not allow); invalid,
#: and refused by the HTTP server for a request line over its limit (414, on every operation): the
#: negative check's default list plus 414 (its 5xx stays failed by the not_a_server_error check).
CONFIG = """
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "412", "422", "426", "429"]

[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "414", "415", "422", "426", "428", "429", "5xx"]
"""
MAX_EXAMPLES = 8


def _create(base: str, body: dict) -> dict:
    request = urllib.request.Request(base + "/v1/matches", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def test_schemathesis_finds_nothing(redis_url: str, tmp_path: Path) -> None:
    # Waits end fast so that a generated long-poll or event stream does not hold the run.
    with devserver(redis_url, LONG_POLL_MAX_SECONDS=0.2, SSE_MAX_SECONDS=0.3,
                   SSE_KEEPALIVE_SECONDS=0.2) as base:
        matches = [
            _create(base, {"game": "witches", "seats": [{"type": "human"}, {"type": "human"}]}),
            _create(base, {"game": "witches", "seats": [{"type": "human"}, {"type": "bot", "level": "random"}]}),
        ]
        (tmp_path / "schemathesis.toml").write_text(CONFIG)
        env = {**os.environ, "SCHEMATHESIS_HOOKS": "schemathesis_hooks", "COVEN_API": base,
               "COVEN_MATCHES": json.dumps([{"id": m["id"], "token": m["token"]} for m in matches]),
               "PYTHONPATH": f"{ROOT / 'tests'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        run = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "--no-color",
             "--config-file", str(tmp_path / "schemathesis.toml"), "run", f"{base}/openapi.json",
             "--url", base, "--checks", "all", "--max-examples", str(MAX_EXAMPLES), "--seed", "1",
             "--workers", "2", "--max-time", "100"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )
    if run.returncode != 0:
        pytest.fail(run.stdout[-20000:] + run.stderr[-3000:], pytrace=False)
