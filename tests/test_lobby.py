"""The lobby: exact filters by game and status from their own indices, cursor pagination with a
`next` link, `seeded` per match — however many other matches were created since."""

from __future__ import annotations

from api_support import create, play_out

from api.store import storage
from api.store.records import MatchRecord

HUMANS = [{"type": "human"}, {"type": "human"}]
VS_BOT = [{"type": "human"}, {"type": "bot", "level": "random"}]


def ids(answer) -> list[str]:
    return [match["id"] for match in answer.get_json()["matches"]]


def test_an_old_match_is_found_behind_a_flood_of_newer_ones(client) -> None:
    old = create(client, "witches", VS_BOT, seed="practice")  # a seed takes at most one human seat
    for _ in range(150):
        create(client, "cube", HUMANS)
    answer = client.get("/v1/matches?game=witches&status=active")
    assert answer.status_code == 200 and ids(answer) == [old["id"]]
    assert answer.get_json()["matches"][0]["seeded"] is True
    assert answer.get_json()["next"] is None and "Link" not in answer.headers
    assert client.get("/v1/matches?game=witches&status=waiting").get_json()["matches"] == []
    assert len(ids(client.get("/v1/matches?game=cube"))) == 100  # one page of LIST_LIMIT


def test_pages_follow_next_links_newest_first(client) -> None:
    made = [create(client, "cube", HUMANS)["id"] for _ in range(5)]
    create(client, "witches", HUMANS)  # another game: not in these pages
    seen, url = [], "/v1/matches?game=cube&status=waiting&limit=2"
    while url:
        answer = client.get(url)
        assert answer.status_code == 200
        body = answer.get_json()
        assert len(body["matches"]) <= 2
        seen += [m["id"] for m in body["matches"]]
        url = body["next"]
        if url:
            assert answer.headers["Link"] == f'<{url}>; rel="next"'
            assert "game=cube" in url and "status=waiting" in url and "limit=2" in url
    assert seen == made[::-1]


def test_status_changes_move_a_match_between_indices(client, run_bots) -> None:
    waiting = create(client, "witches", HUMANS)
    assert ids(client.get("/v1/matches?status=waiting")) == [waiting["id"]]
    client.post(f"/v1/matches/{waiting['id']}/join")
    assert ids(client.get("/v1/matches?status=waiting")) == []
    assert ids(client.get("/v1/matches?status=active&game=witches")) == [waiting["id"]]


def test_moves_keep_a_match_listed_and_the_last_one_unlists_it(client, redis) -> None:
    """A move that leaves the status as it was leaves the lobby alone (its listing is unchanged);
    the one that ends the match takes it out of every index (finished matches are not listed)."""
    created = create(client, "witches", HUMANS)
    joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
    assert ids(client.get("/v1/matches?status=active&game=witches")) == [created["id"]]
    play_out(client, created["id"], {0: created["token"], 1: joined["token"]})
    assert ids(client.get("/v1/matches?status=active")) == ids(client.get("/v1/matches")) == []
    assert not any(redis.zscore(key, created["id"]) for key in redis.keys("coven:lobby:*") + [storage.INDEX_KEY])


def test_expired_matches_leave_every_index(client, redis) -> None:
    gone = create(client, "witches", HUMANS)
    kept = create(client, "witches", HUMANS)
    redis.delete(*storage.keys_of(gone["id"]))  # as if its time to live ran out
    assert ids(client.get("/v1/matches?game=witches&status=waiting")) == [kept["id"]]
    for key in (storage.INDEX_KEY, storage.lobby_key(None, "waiting"), storage.lobby_key("witches", None)):
        assert redis.zscore(key, gone["id"]) is None, key


def test_matches_created_at_the_same_instant_are_each_listed_once(client, redis) -> None:
    made = [create(client, "cube", HUMANS)["id"] for _ in range(5)]
    store = storage.Store(redis, lambda status: 3600)
    for mid in made:
        record = store.load(mid)
        assert isinstance(record, MatchRecord)
        record.created = 1733050000.5
        redis.set(storage.match_key(mid), record.to_stored())
        store.index(record)
    seen, url = [], "/v1/matches?limit=2"
    while url:
        body = client.get(url).get_json()
        seen += [m["id"] for m in body["matches"]]
        url = body["next"]
    assert sorted(seen) == sorted(made) and len(seen) == len(made)


def test_a_bad_cursor_or_filter_is_400(client) -> None:
    for query in ("cursor=nope", "cursor=bm9wZQ", "game=chess", "limit=0", "limit=101", "status=finished"):
        answer = client.get(f"/v1/matches?{query}")
        assert answer.status_code == 400 and answer.mimetype == "application/problem+json", query
