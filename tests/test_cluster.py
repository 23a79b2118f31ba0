"""Matches on a real three-master Redis Cluster (REDIS_CLUSTER=1), bot queues on a single Redis
(QUEUE_REDIS_URL): whole matches against bots, the eight-thread race, waiting, keys spread over masters."""

from __future__ import annotations

import threading

import pytest
from api_support import create, play_out, race, view
from conftest import UNTHROTTLED
from redis.cluster import RedisCluster

from api.store.storage import match_key
from engine import all_games

GAME_IDS = [game.info.id for game in all_games()]


@pytest.fixture
def cluster(redis_cluster_url: str):
    """The cluster's client, emptied before each test."""
    client = RedisCluster.from_url(redis_cluster_url)
    client.flushall(target_nodes=RedisCluster.PRIMARIES)
    yield client
    client.close()


@pytest.fixture
def config(redis_cluster_url: str, redis_url: str, redis, cluster, monkeypatch: pytest.MonkeyPatch):
    """Matches on the cluster, the bot queues on the session's single Redis (the worker reads the same)."""
    from api.runtime.config import Config

    monkeypatch.setenv("REDIS_URL", redis_cluster_url)
    monkeypatch.setenv("REDIS_CLUSTER", "1")
    monkeypatch.setenv("QUEUE_REDIS_URL", redis_url)
    return Config(REDIS_URL=redis_cluster_url, REDIS_CLUSTER=True, QUEUE_REDIS_URL=redis_url,
                  LONG_POLL_MAX_SECONDS=5.0, SSE_MAX_SECONDS=10.0, SSE_KEEPALIVE_SECONDS=1.0,
                  BOT_GRACE_SECONDS=1.0, **UNTHROTTLED)


def test_the_app_stores_matches_on_the_cluster(app, cluster) -> None:
    assert isinstance(app.extensions["coven"].redis, RedisCluster)
    client = app.test_client()
    ids = [create(client, "witches", [{"type": "human"}, {"type": "human"}])["id"] for _ in range(12)]
    holders = {cluster.get_node_from_key(match_key(mid)).name for mid in ids}
    assert len(holders) >= 2, "twelve matches should land on more than one master"
    for mid in ids:
        assert cluster.exists(match_key(mid))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_human_vs_bots_to_the_end_on_a_cluster(client, run_bots, game_id: str) -> None:
    game = next(g for g in all_games() if g.info.id == game_id)
    seats = [{"type": "human"}] + [{"type": "bot", "level": "random"}] * game.info.min_players  # three seats or more
    created = create(client, game_id, seats)
    final = play_out(client, created["id"], {0: created["token"]}, run_bots)
    assert final["status"] == "finished" and final["outcome"]["winners"]
    log = client.get(f"/v1/matches/{created['id']}/log").get_json()
    assert len(log["entries"]) >= final["version"] - 1


def test_bots_only_match_to_the_end_on_a_cluster(client, run_bots) -> None:
    created = client.post("/v1/matches", json={
        "game": "witches", "seats": [{"type": "bot", "level": "random"}] * 4}).get_json()
    run_bots()
    final = view(client, created["id"])
    assert final["status"] == "finished" and final["outcome"]["winners"]


def test_race_on_one_version_applies_exactly_once_on_a_cluster(app, client) -> None:
    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    tokens = {0: created["token"], 1: client.post(f"/v1/matches/{created['id']}/join").get_json()["token"]}
    for _ in range(3):  # a few rounds, each a fresh version raced by eight threads
        seat = view(client, created["id"])["to_act"]
        mine = view(client, created["id"], tokens[seat])
        statuses = race(app, created["id"], tokens[seat], mine["legal_moves"], mine["version"])
        assert sorted(statuses).count(200) == 1
        assert all(status in (200, 409, 412) for status in statuses), statuses
        assert view(client, created["id"])["version"] == mine["version"] + 1


def test_long_poll_wakes_on_a_move_on_a_cluster(app, client) -> None:
    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    tokens = {0: created["token"], 1: client.post(f"/v1/matches/{created['id']}/join").get_json()["token"]}
    seat = view(client, created["id"])["to_act"]
    mine = view(client, created["id"], tokens[seat])
    result = {}

    def waiter() -> None:
        result["view"] = view(app.test_client(), created["id"], after_version=mine["version"], wait=5)

    thread = threading.Thread(target=waiter)
    thread.start()
    client.post(f"/v1/matches/{created['id']}/moves", json={"move": mine["legal_moves"][0]},
                headers={"Authorization": f"Bearer {tokens[seat]}"})
    thread.join(timeout=10)
    assert result["view"]["version"] == mine["version"] + 1


def test_a_cluster_without_a_queue_redis_is_refused(redis_cluster_url: str) -> None:
    from api import create_app
    from api.runtime.config import Config

    with pytest.raises(ValueError, match="QUEUE_REDIS_URL"):
        create_app(Config(REDIS_URL=redis_cluster_url, REDIS_CLUSTER=True))
