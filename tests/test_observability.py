"""What operators see: JSON access lines with request ids, Prometheus metrics, and a /readyz that
fails when Redis cannot be used or no bot worker is alive."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

import pytest
from api_support import auth
from prometheus_client.parser import text_string_to_metric_families

VS_BOT = {"game": "witches", "seats": [{"type": "human"}, {"type": "bot", "level": "random"}]}


def scrape(client) -> dict[tuple[str, tuple], float]:
    """The /metrics answer as {(sample name, sorted labels): value}."""
    response = client.get("/metrics")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    samples = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def test_access_line_per_request_with_its_id(client, caplog) -> None:
    caplog.set_level(logging.INFO, logger="coven.access")
    kept = client.get("/v1/games/cube", headers={"X-Request-ID": "edge-42.a"})
    assert kept.headers["X-Request-ID"] == "edge-42.a"
    made = client.get("/v1/matches/nope", headers={"X-Request-ID": "bad id\u00e9" + "x" * 200})
    assert made.headers["X-Request-ID"] != "" and " " not in made.headers["X-Request-ID"]
    lines = [r for r in caplog.records if r.name == "coven.access"]
    assert [(r.request_id, r.method, r.route, r.status) for r in lines] == [
        ("edge-42.a", "GET", "/v1/games/<game_id>", 200),
        (made.headers["X-Request-ID"], "GET", "/v1/matches/<match_id>", 404),
    ]
    assert all(r.duration_ms >= 0 for r in lines)


def test_access_lines_sampled_keep_every_error(app_with, caplog) -> None:
    """ACCESS_LOG_SAMPLE=0: no line for a quick success, one for every error."""
    client = app_with(ACCESS_LOG_SAMPLE=0.0).test_client()
    caplog.set_level(logging.INFO, logger="coven.access")
    for _ in range(20):
        assert client.get("/v1/games/cube").status_code == 200
    assert client.get("/v1/matches/nope").status_code == 404
    assert client.post("/v1/matches", json={"game": "nope"}).status_code == 422
    lines = [r for r in caplog.records if r.name == "coven.access"]
    assert [r.status for r in lines] == [404, 422]


def test_logs_are_json_lines_carrying_the_request_id(app) -> None:
    from api.runtime.logs import RequestContext, configure_logging

    configure_logging("INFO")
    handler = next(h for h in logging.getLogger().handlers if getattr(h, "_coven", False))
    record = logging.LogRecord("coven.access", logging.INFO, __file__, 1, "GET %s", ("/x",), None)
    record.status = 200
    with app.test_request_context("/x"):
        from flask import g

        g.request_id = "abc"
        RequestContext().filter(record)
    line = json.loads(handler.format(record))
    assert line["message"] == "GET /x" and line["level"] == "INFO" and line["logger"] == "coven.access"
    assert line["request_id"] == "abc" and line["status"] == 200 and line["time"]


def test_metrics_count_requests_by_route_and_429s(app_with) -> None:
    client = app_with(RATE_LIMIT_READ="2/minute").test_client()
    before = scrape(client)
    for _ in range(3):
        client.get("/v1/games")
    after = scrape(client)
    key = ("coven_http_requests_total", (("method", "GET"), ("route", "/v1/games"), ("status", "200")))
    assert after[key] - before.get(key, 0) == 2
    limited = ("coven_http_requests_total", (("method", "GET"), ("route", "/v1/games"), ("status", "429")))
    assert after[limited] - before.get(limited, 0) == 1
    refused = ("coven_rate_limited_total", (("policy", "read-per-minute"),))
    assert after[refused] - before.get(refused, 0) == 1
    count = ("coven_http_request_duration_seconds_count", (("method", "GET"), ("route", "/v1/games")))
    assert after[count] - before.get(count, 0) == 3


def test_metrics_show_matches_moves_and_bot_turns(client, run_bots) -> None:
    created = client.post("/v1/matches", json=VS_BOT).get_json()
    client.post("/v1/matches", json={"game": "cube", "seats": [{"type": "human"}, {"type": "human"}]})
    samples = scrape(client)
    assert samples[("coven_matches", (("status", "waiting"),))] == 1
    assert samples[("coven_matches", (("status", "active"),))] == 1
    assert samples[("coven_bot_queue_depth", ())] == (1 if created["to_act"] == 1 else 0)
    for _ in range(3):
        run_bots()
        view = client.get(f"/v1/matches/{created['id']}", headers=auth(created["token"])).get_json()
        if view["to_act"] == 0 and view["legal_moves"]:
            client.post(f"/v1/matches/{created['id']}/moves", json={"move": view["legal_moves"][0]},
                        headers=auth(created["token"]))
    run_bots()
    samples = scrape(client)
    assert samples[("coven_moves_applied_total", (("by", "human"), ("game", "witches")))] >= 1
    assert samples[("coven_moves_applied_total", (("by", "bot"), ("game", "witches")))] >= 1
    assert samples[("coven_bot_turn_seconds_count", ())] >= 1
    assert samples[("coven_bot_queue_depth", ())] == 0
    assert ("coven_bot_turns_recovered_total", ()) in samples
    assert ("coven_bot_turns_failed_total", ()) in samples


def _register_worker(redis, config, heartbeat_age: float) -> None:
    from rq import Queue, Worker

    worker = Worker([Queue(config.BOT_QUEUE, connection=redis)], connection=redis)
    worker.register_birth()
    worker.heartbeat()
    stale = datetime.now(UTC) - timedelta(seconds=heartbeat_age)
    redis.hset(worker.key, "last_heartbeat", stale.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))


def test_readyz_needs_a_live_bot_worker(client, redis, config) -> None:
    answer = client.get("/readyz")
    assert answer.status_code == 503
    assert answer.get_json() == {"status": "unavailable", "redis": "ok", "workers": 0}
    _register_worker(redis, config, heartbeat_age=config.READY_WORKER_SECONDS + 30)
    assert client.get("/readyz").status_code == 503
    _register_worker(redis, config, heartbeat_age=1)
    answer = client.get("/readyz")
    assert answer.status_code == 200 and answer.get_json() == {"status": "ok", "redis": "ok", "workers": 1}
    assert client.get("/healthz").get_json() == {"status": "ok"}


def test_readyz_fails_when_redis_refuses_writes(client, redis, config) -> None:
    _register_worker(redis, config, heartbeat_age=1)
    redis.config_set("min-replicas-to-write", 1)  # a primary without its replica refuses writes
    try:
        answer = client.get("/readyz")
        assert answer.status_code == 503 and answer.get_json()["redis"] != "ok"
    finally:
        redis.config_set("min-replicas-to-write", 0)


@pytest.mark.parametrize("path", ["/healthz", "/metrics"])
def test_health_and_metrics_are_never_rate_limited(app_with, path) -> None:
    client = app_with(RATE_LIMIT_READ="1/minute").test_client()
    assert all(client.get(path).status_code == 200 for _ in range(3))


def test_metrics_add_up_every_gunicorn_worker(redis_url) -> None:
    """Under the dev server (PROMETHEUS_MULTIPROC_DIR set), /metrics counts the requests of both
    gunicorn workers, whichever answered /metrics."""
    import urllib.request

    from conftest import devserver

    with devserver(redis_url, WEB_CONCURRENCY=2) as base:
        for _ in range(40):
            with urllib.request.urlopen(f"{base}/v1/games/cube", timeout=10) as answer:
                assert answer.status == 200
        for _ in range(3):  # asked three times: any worker may answer, each must see all 40
            with urllib.request.urlopen(f"{base}/metrics", timeout=10) as answer:
                text = answer.read().decode()
            samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
                       for family in text_string_to_metric_families(text) for s in family.samples}
            key = ("coven_http_requests_total",
                   (("method", "GET"), ("route", "/v1/games/<game_id>"), ("status", "200")))
            assert samples[key] == 40


def test_access_lines_are_written_as_the_generic_formatter_writes_them() -> None:
    """The formatter's short cut for access lines (api/logs.py) writes what python-json-logger's
    own orjson formatter writes."""
    from pythonjsonlogger.orjson import OrjsonFormatter

    from api.runtime.logs import JsonLines, access_log

    style = dict(fmt="{levelname}{name}{message}", style="{", rename_fields={"levelname": "level", "name": "logger"},
                 timestamp="time")
    record = access_log.makeRecord(access_log.name, logging.INFO, __file__, 0, "%s %s %s", ("GET", "/v1/games", 200),
                                   None, extra={"request_id": "abc", "method": "GET", "route": "/v1/games",
                                                "path": "/v1/games", "status": 200, "duration_ms": 1.25,
                                                "client": "127.0.0.1"})
    assert JsonLines(**style).format(record) == OrjsonFormatter(**style).format(record)


def test_access_line_written_directly_is_the_formatters_line(app) -> None:
    """With Coven's JSON handler as the one handler (production), `log_access` writes the line
    itself (api/logs.py): the same fields, in the same order, as JsonLines writes for its record."""
    import io

    from api.runtime.logs import JsonLines, _sole_handler, access_log, configure_logging

    configure_logging("INFO")
    handler = next(h for h in logging.getLogger().handlers if getattr(h, "_coven", False))
    others = [h for h in logging.getLogger().handlers if h is not handler]
    stream, handler.stream = handler.stream, io.StringIO()
    saved_level = access_log.level
    access_log.setLevel(logging.INFO)
    for other in others:  # pytest's capture handlers: they would send the line through logging
        logging.getLogger().removeHandler(other)
    try:
        assert _sole_handler() is handler
        app.test_client().get("/v1/games/cube", headers={"X-Request-ID": "direct-1"})
        written = [json.loads(text) for text in handler.stream.getvalue().splitlines()]
    finally:
        handler.stream = stream
        access_log.setLevel(saved_level)
        for other in others:
            logging.getLogger().addHandler(other)
    line = next(each for each in written if each.get("request_id") == "direct-1")
    record = access_log.makeRecord(access_log.name, logging.INFO, __file__, 0, "%s %s %s",
                                   ("GET", "/v1/games/cube", 200), None, extra={
                                       "request_id": "direct-1", "method": "GET", "route": "/v1/games/<game_id>",
                                       "path": "/v1/games/cube", "status": 200,
                                       "duration_ms": line["duration_ms"], "client": line["client"]})
    expected = json.loads(JsonLines("{levelname}{name}{message}", style="{",
                                    rename_fields={"levelname": "level", "name": "logger"},
                                    timestamp="time").format(record))
    assert list(line) == list(expected)
    assert {k: v for k, v in line.items() if k != "time"} == {k: v for k, v in expected.items() if k != "time"}
    assert datetime.fromisoformat(line["time"]).tzinfo is not None and line["duration_ms"] >= 0


def test_made_request_ids_are_version_4_uuids() -> None:
    import uuid

    from api.runtime.logs import new_request_id

    for _ in range(200):
        made = new_request_id()
        assert len(made) == 32 and uuid.UUID(hex=made).version == 4 and uuid.UUID(hex=made).hex == made
        assert uuid.UUID(hex=made).variant == uuid.RFC_4122
    assert len({new_request_id() for _ in range(1000)}) == 1000
