"""Event streams that resume: every missed version in order, as the seat saw it; a finished match ends."""

from __future__ import annotations

import json

from api_support import auth, create, match_events, play, view

VOLATILE = ("bot", "seats")  # a past version's view shows no bot at work and no presence (last_seen)


def same_view(seen: dict, replayed: dict) -> None:
    trimmed = {key: value for key, value in seen.items() if key not in VOLATILE}
    assert {key: replayed[key] for key in trimmed} == trimmed
    unseen = [{**row, "last_seen": None} for row in seen["seats"]]
    assert [{**row, "last_seen": None} for row in replayed["seats"]] == unseen


def test_a_resumed_stream_sends_every_missed_version_as_the_seat_saw_it(client) -> None:
    created = create(client, "witches", [{"type": "human"}] * 3)
    tokens = {0: created["token"]}
    seen: dict[int, dict[int, dict]] = {0: {1: view(client, created["id"], created["token"])}}
    for seat in (1, 2):
        joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
        tokens[seat] = joined["token"]
        for holder in tokens:
            seen.setdefault(holder, {})[joined["version"]] = view(client, created["id"], tokens[holder])
    for _ in range(8):
        current = view(client, created["id"])
        mine = view(client, created["id"], tokens[current["to_act"]])
        assert play(client, created["id"], tokens[current["to_act"]], mine["legal_moves"][-1],
                    mine["version"]).status_code == 200
        for holder in tokens:
            shown = view(client, created["id"], tokens[holder])
            seen[holder][shown["version"]] = shown
    last = view(client, created["id"])["version"]
    assert last == 1 + 2 + 8
    for holder in tokens:
        events = match_events(client, created["id"], {**auth(tokens[holder]), "Last-Event-ID": "1"}, last)
        assert [event["version"] for event in events] == list(range(2, last + 1))
        for event in events:
            if event["version"] in seen[holder]:  # seat 2 was taken at version 3
                same_view(seen[holder][event["version"]], event)
        assert len(seen[holder]) >= last - 2
    # the spectator, resuming by query parameter (clients that cannot set the header)
    events = match_events(client, created["id"], {}, last, last_event_id=5)
    assert [event["version"] for event in events] == list(range(6, last + 1))
    assert all(event["you"] is None and event["legal_moves"] == [] for event in events)
    assert all("hand" not in event["state"] or event["state"]["hand"] in (None, []) for event in events)


def test_a_stream_without_last_event_id_starts_at_the_current_version(client) -> None:
    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
    events = match_events(client, created["id"], auth(joined["token"]), joined["version"])
    assert [event["version"] for event in events] == [joined["version"]]


def test_a_finished_match_sends_its_final_view_and_ends(client, run_bots) -> None:
    created = client.post("/v1/matches", json={
        "game": "cube", "seats": [{"type": "bot", "level": "random"}] * 2}).get_json()
    run_bots()
    final = view(client, created["id"])
    assert final["status"] == "finished"
    response = client.get(f"/v1/matches/{created['id']}/events", headers={"Last-Event-ID": str(final["version"] - 2)})
    body = response.get_data(as_text=True)  # the stream ends by itself
    versions = [int(line.removeprefix("id: ")) for line in body.splitlines() if line.startswith("id: ")]
    assert versions == [final["version"] - 1, final["version"]]
    assert json.loads(body.rsplit("data: ", 1)[1])["status"] == "finished"
    fresh = client.get(f"/v1/matches/{created['id']}/events").get_data(as_text=True)
    assert fresh.count("event: match") == 1 and f"id: {final['version']}" in fresh
    # a browser reconnecting after the final event is told to stop (204)
    done = client.get(f"/v1/matches/{created['id']}/events", headers={"Last-Event-ID": str(final["version"])})
    assert done.status_code == 204
