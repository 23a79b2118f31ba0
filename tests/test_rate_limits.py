"""Rate limits: counted in Redis across web processes, per address / seat token, answered with
429 problem+json, Retry-After and the IETF RateLimit headers."""

from __future__ import annotations

import re

from api_support import auth
from test_api_errors import assert_problem

TWO_HUMANS = {"game": "witches", "seats": [{"type": "human"}, {"type": "human"}]}
VS_BOT = {"game": "witches", "seats": [{"type": "human"}, {"type": "bot", "level": "random"}]}


def rate_limit(response) -> dict[str, int | str]:
    """The RateLimit header's fields: policy name, r (remaining), t (seconds to reset)."""
    match = re.fullmatch(r'"([a-z0-9-]+)";r=(\d+);t=(\d+)', response.headers["RateLimit"])
    assert match, response.headers["RateLimit"]
    return {"policy": match[1], "r": int(match[2]), "t": int(match[3])}


def test_creations_are_limited_per_address_with_headers_and_a_problem(app_with) -> None:
    client = app_with(RATE_LIMIT_CREATE="3/minute;50/hour").test_client()
    answers = [client.post("/v1/matches", json=VS_BOT) for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 201, 201]
    assert answers[0].headers["RateLimit-Policy"] == (
        '"create-per-minute";q=3;w=60, "create-per-hour";q=50;w=3600')
    assert [rate_limit(a)["r"] for a in answers] == [2, 1, 0]
    assert all(rate_limit(a)["policy"] == "create-per-minute" for a in answers)
    refused = client.post("/v1/matches", json=VS_BOT)
    body = assert_problem(refused, 429)
    assert body["policy"] == "create-per-minute" and "3 per 1 minute" in body["detail"]
    retry = int(refused.headers["Retry-After"])
    assert 1 <= retry <= 60
    assert rate_limit(refused) == {"policy": "create-per-minute", "r": 0, "t": retry}
    # Another client address is not affected.
    other = client.post("/v1/matches", json=VS_BOT, environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert other.status_code == 201


def test_every_web_process_counts_together(app_with) -> None:
    first = app_with(RATE_LIMIT_CREATE="3/minute").test_client()
    second = app_with(RATE_LIMIT_CREATE="3/minute").test_client()
    assert first.post("/v1/matches", json=VS_BOT).status_code == 201
    assert second.post("/v1/matches", json=VS_BOT).status_code == 201
    assert first.post("/v1/matches", json=VS_BOT).status_code == 201
    assert_problem(second.post("/v1/matches", json=VS_BOT), 429)


def test_forwarded_for_counts_only_behind_trusted_proxies(app_with) -> None:
    direct = app_with(RATE_LIMIT_CREATE="1/minute").test_client()
    assert direct.post("/v1/matches", json=VS_BOT, headers={"X-Forwarded-For": "10.0.0.1"}).status_code == 201
    spoofed = direct.post("/v1/matches", json=VS_BOT, headers={"X-Forwarded-For": "10.0.0.2"})
    assert_problem(spoofed, 429)  # without trusted proxies the header is the client's to invent

    proxied = app_with(RATE_LIMIT_CREATE="1/minute", TRUSTED_PROXY_HOPS=1).test_client()
    peer = {"REMOTE_ADDR": "192.0.2.9"}  # the proxy
    hdr = {"X-Forwarded-For": "198.51.100.1"}
    assert proxied.post("/v1/matches", json=VS_BOT, headers=hdr, environ_base=peer).status_code == 201
    assert_problem(proxied.post("/v1/matches", json=VS_BOT, headers=hdr, environ_base=peer), 429)
    # One trusted hop: only the last address counts, whatever the client put before it.
    hdr = {"X-Forwarded-For": "198.51.100.1, 198.51.100.2"}
    assert proxied.post("/v1/matches", json=VS_BOT, headers=hdr, environ_base=peer).status_code == 201


def test_ipv6_clients_count_per_64(app_with) -> None:
    client = app_with(RATE_LIMIT_CREATE="1/minute").test_client()
    assert client.post("/v1/matches", json=VS_BOT,
                       environ_base={"REMOTE_ADDR": "2001:db8:1:2::1"}).status_code == 201
    assert_problem(client.post("/v1/matches", json=VS_BOT,
                               environ_base={"REMOTE_ADDR": "2001:db8:1:2:ffff::9"}), 429)
    assert client.post("/v1/matches", json=VS_BOT,
                       environ_base={"REMOTE_ADDR": "2001:db8:1:3::1"}).status_code == 201


def test_joins_are_limited_per_address(app_with) -> None:
    client = app_with(RATE_LIMIT_JOIN="1/minute").test_client()
    first = client.post("/v1/matches", json=TWO_HUMANS).get_json()
    second = client.post("/v1/matches", json=TWO_HUMANS).get_json()
    joined = client.post(f"/v1/matches/{first['id']}/join")
    assert joined.status_code == 200 and rate_limit(joined)["policy"] == "join-per-minute"
    assert_problem(client.post(f"/v1/matches/{second['id']}/join"), 429)


def test_moves_are_limited_per_seat_token(app_with) -> None:
    client = app_with(RATE_LIMIT_MOVE="2/minute").test_client()
    created = client.post("/v1/matches", json=TWO_HUMANS).get_json()
    joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
    tokens = [created["token"], joined["token"]]
    wrong = {"move": {"type": "dance"}}
    for _ in range(2):
        answer = client.post(f"/v1/matches/{created['id']}/moves", json=wrong, headers=auth(tokens[0]))
        assert answer.status_code in (403, 422) and rate_limit(answer)["policy"] == "move-per-minute"
    assert_problem(client.post(f"/v1/matches/{created['id']}/moves", json=wrong, headers=auth(tokens[0])), 429)
    # The other seat, from the same address, still moves.
    answer = client.post(f"/v1/matches/{created['id']}/moves", json=wrong, headers=auth(tokens[1]))
    assert answer.status_code in (403, 422)


def test_reads_are_limited_per_address_and_health_is_free(app_with) -> None:
    client = app_with(RATE_LIMIT_READ="3/minute").test_client()
    for path in ("/v1/games", "/v1/matches", "/v1/games/cube"):
        answer = client.get(path)
        assert answer.status_code == 200 and rate_limit(answer)["policy"] == "read-per-minute"
    body = assert_problem(client.get("/v1/matches"), 429)
    assert body["policy"] == "read-per-minute"
    for _ in range(5):
        assert client.get("/healthz").status_code == 200
        assert client.get("/openapi.json").status_code == 200
    assert client.post("/v1/matches", json=VS_BOT).status_code == 201  # writes have their own limits


def test_open_waiting_matches_are_capped_per_address(app_with) -> None:
    client = app_with(OPEN_MATCHES_PER_ADDRESS=2).test_client()
    first = client.post("/v1/matches", json=TWO_HUMANS).get_json()
    assert client.post("/v1/matches", json=TWO_HUMANS).status_code == 201
    refused = client.post("/v1/matches", json=TWO_HUMANS)
    body = assert_problem(refused, 429)
    assert body["policy"] == "open-matches" and "at most 2" in body["detail"]
    assert int(refused.headers["Retry-After"]) > 0
    assert client.post("/v1/matches", json=VS_BOT).status_code == 201  # starts at once: not waiting
    other = client.post("/v1/matches", json=TWO_HUMANS, environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert other.status_code == 201
    client.post(f"/v1/matches/{first['id']}/join", environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert client.post("/v1/matches", json=TWO_HUMANS).status_code == 201  # one of the two started


def test_the_open_matches_cap_says_when_it_frees_and_costs_no_create_quota(app_with) -> None:
    client = app_with(OPEN_MATCHES_PER_ADDRESS=1, RATE_LIMIT_CREATE="3/minute", WAITING_TTL_SECONDS=600).test_client()
    assert client.post("/v1/matches", json=TWO_HUMANS).status_code == 201  # quota 3 → 2
    for _ in range(4):  # refused by the cap: none of these costs a creation
        refused = client.post("/v1/matches", json=TWO_HUMANS)
        assert_problem(refused, 429)
        assert 590 <= int(refused.headers["Retry-After"]) <= 600  # when the waiting match expires at the latest
    assert client.post("/v1/matches", json=VS_BOT).status_code == 201  # 2 → 1
    assert client.post("/v1/matches", json=VS_BOT).status_code == 201  # 1 → 0
    body = assert_problem(client.post("/v1/matches", json=VS_BOT), 429)
    assert body["policy"] == "create-per-minute"


def test_limits_can_be_switched_off(app_with) -> None:
    client = app_with(RATE_LIMITS_ENABLED=False, RATE_LIMIT_CREATE="1/minute",
                      OPEN_MATCHES_PER_ADDRESS=1).test_client()
    for _ in range(3):
        answer = client.post("/v1/matches", json=TWO_HUMANS)
        assert answer.status_code == 201 and "RateLimit" not in answer.headers


def test_every_write_has_a_limit_of_its_own(app) -> None:
    from api.web.limits import POLICIES

    writes = {rule.endpoint for rule in app.url_map.iter_rules()
              if rule.rule.startswith("/v1/") and (rule.methods or set()) - {"GET", "HEAD", "OPTIONS"}}
    assert writes == set(POLICIES)
