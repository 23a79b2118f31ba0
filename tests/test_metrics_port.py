"""METRICS_PORT: the operators' endpoints on their own port, the API on PORT only."""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

import pytest

from tests.conftest import UNTHROTTLED, free_port, serving

OPERATOR_PATHS = ["/metrics", "/healthz", "/readyz"]


@pytest.mark.parametrize("path", OPERATOR_PATHS)
def test_operator_paths_answer_on_the_metrics_port_only(app_with, run_bots, path) -> None:
    client = app_with(METRICS_PORT=9100).test_client()
    assert client.get(path).status_code == 404
    assert client.get(path, base_url="http://localhost:9100").status_code in (200, 503)


def test_the_api_is_not_on_the_metrics_port(app_with) -> None:
    client = app_with(METRICS_PORT=9100).test_client()
    refused = client.get("/v1/games", base_url="http://localhost:9100")
    assert refused.status_code == 404 and refused.mimetype == "application/problem+json"
    assert client.get("/v1/games").status_code == 200


def test_without_a_metrics_port_everything_is_on_port(client) -> None:
    assert client.get("/metrics").status_code == 200 and client.get("/v1/games").status_code == 200


def test_gunicorn_listens_on_both_ports(redis_url: str) -> None:
    """gunicorn.conf.py binds METRICS_PORT too; the port is the listening socket's."""
    port, metrics_port = free_port(), free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "METRICS_PORT": str(metrics_port),
           "WEB_CONCURRENCY": "1", **{name: str(value) for name, value in UNTHROTTLED.items()}}
    with serving([sys.executable, "-m", "api.runtime.devserver"], env, port, ready="/v1/games") as api:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{api}/metrics", timeout=10)
        assert refused.value.code == 404
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as answer:
            assert b"coven_http_requests_total" in answer.read()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/v1/games", timeout=10)
        assert refused.value.code == 404
