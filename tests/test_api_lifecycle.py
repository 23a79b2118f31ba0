"""The match lifecycle over HTTP, against a real Redis with real (burst) workers: names, private
matches and cancelling, resigning, leaving, turn clocks, rematches, history by version, fair chance,
presence."""

from __future__ import annotations

import threading
import time

import pytest
from api_support import auth, create, play, play_out, view

from engine.fairness import commitment as committed_to
from engine.verify import verify


def join(client, match_id: str, **body) -> dict:
    response = client.post(f"/v1/matches/{match_id}/join", json=body)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def duel(client, game: str = "witches", **extra) -> tuple[str, dict[int, str]]:
    """A running two-human match: its id and both tokens."""
    created = create(client, game, [{"type": "human"}, {"type": "human"}], name="Morgane", **extra)
    joined = join(client, created["id"], name="Viviane")
    return created["id"], {0: created["token"], 1: joined["token"]}


def problem(response, status: int) -> dict:
    assert response.status_code == status, response.get_json()
    assert response.mimetype == "application/problem+json"
    return response.get_json()


def sweep(app) -> None:
    """One round of the sweeper process (clocks, then lost bot turns)."""
    result = app.test_cli_runner().invoke(args=["sweep-bots", "--once"])
    assert result.exit_code == 0, result.output


# --- names ---------------------------------------------------------------------------------


def test_names_show_in_views_the_lobby_and_the_log(client, run_bots) -> None:
    created = create(client, "witches", [{"type": "human"}, {"type": "bot", "level": "random"}, {"type": "human"}],
                     name="Morgane la Fée")
    joined = join(client, created["id"], name="Ælfgifu-2")
    names = [seat["name"] for seat in joined["seats"]]
    assert names == ["Morgane la Fée", "random bot", "Ælfgifu-2"]
    listed = client.get("/v1/matches").get_json()["matches"][0]
    assert [seat["name"] for seat in listed["seats"]] == names
    play_out(client, created["id"], {0: created["token"], 2: joined["token"]}, run_bots)
    entries = client.get(f"/v1/matches/{created['id']}/log").get_json()["entries"]
    assert {entry["name"] for entry in entries if not entry["chance"]} == set(names)
    assert all(entry["name"] is None for entry in entries if entry["chance"])


def test_a_seat_without_a_name_gets_one(client) -> None:
    created = create(client, "cube", [{"type": "human"}, {"type": "human"}])
    assert created["seats"][0]["name"] == "Player 1" and created["seats"][1]["name"] is None
    assert join(client, created["id"])["seats"][1]["name"] == "Player 2"


@pytest.mark.parametrize("name", ["", "x" * 33, " Morgane", "Mor  gane", "tab\there", "<script>", "💀", "a\u200bb"])
def test_bad_names_are_refused(client, name: str) -> None:
    body = {"game": "cube", "seats": [{"type": "human"}, {"type": "human"}], "name": name}
    assert "name" in problem(client.post("/v1/matches", json=body), 422)["errors"]
    created = create(client, "cube", [{"type": "human"}, {"type": "human"}])
    assert "name" in problem(client.post(f"/v1/matches/{created['id']}/join", json={"name": name}), 422)["errors"]


# --- private matches, cancel --------------------------------------------------------------------


def test_private_matches_are_never_listed_but_joined_by_id(client) -> None:
    private = create(client, "witches", [{"type": "human"}, {"type": "human"}], visibility="private")
    public = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    assert private["visibility"] == "private"
    assert [m["id"] for m in client.get("/v1/matches").get_json()["matches"]] == [public["id"]]
    joined = join(client, private["id"])
    assert joined["status"] == "active" and joined["visibility"] == "private"
    assert [m["id"] for m in client.get("/v1/matches").get_json()["matches"]] == [public["id"]]


def test_the_creator_cancels_a_waiting_match(client) -> None:
    created = create(client, "witches", [{"type": "human"}] * 3)
    mid = created["id"]
    other = join(client, mid)
    problem(client.delete(f"/v1/matches/{mid}"), 401)
    problem(client.delete(f"/v1/matches/{mid}", headers=auth(other["token"])), 403)
    cancelled = client.delete(f"/v1/matches/{mid}", headers=auth(created["token"]))
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    assert client.get("/v1/matches").get_json()["matches"] == []
    assert problem(client.post(f"/v1/matches/{mid}/join"), 409)["match_status"] == "cancelled"
    problem(client.delete(f"/v1/matches/{mid}", headers=auth(created["token"])), 409)
    running, tokens = duel(client)
    problem(client.delete(f"/v1/matches/{running}", headers=auth(tokens[0])), 409)


def test_leaving_a_waiting_match_frees_the_seat(client) -> None:
    created = create(client, "witches", [{"type": "human"}] * 3)
    first = join(client, created["id"], name="Viviane")
    left = client.post(f"/v1/matches/{created['id']}/leave", headers=auth(first["token"]))
    assert left.status_code == 200 and left.get_json()["seats"][1]["filled"] is False
    problem(client.get(f"/v1/matches/{created['id']}", headers=auth(first["token"])), 401)
    problem(client.post(f"/v1/matches/{created['id']}/leave", headers=auth(created["token"])), 409)
    assert join(client, created["id"])["you"] == 1


# --- resign ------------------------------------------------------------------------------------


def test_resigning_a_two_player_match_ends_it(client) -> None:
    mid, tokens = duel(client)
    resigned = client.post(f"/v1/matches/{mid}/resign", headers=auth(tokens[0]))
    assert resigned.status_code == 200, resigned.get_json()
    final = resigned.get_json()
    assert final["status"] == "finished" and final["to_act"] is None and final["legal_moves"] == []
    assert final["outcome"]["reason"] == "resigned" and final["outcome"]["winners"] == [1]
    assert final["outcome"]["ranks"] == [2, 1] and final["resigned"] == [0]
    assert final["seats"][0]["takeover"] == "resigned"
    conflict = problem(client.post(f"/v1/matches/{mid}/resign", headers=auth(tokens[1])), 409)
    assert conflict["match_status"] == "finished"
    problem(client.post(f"/v1/matches/{mid}/resign"), 401)


def test_resigning_a_four_player_match_ranks_the_seat_last_and_a_bot_plays_it(client, run_bots) -> None:
    created = create(client, "witches", [{"type": "human"}] * 4, takeover_level="random")
    tokens = {0: created["token"]}
    for _ in range(3):
        joined = join(client, created["id"])
        tokens[joined["you"]] = joined["token"]
    mid = created["id"]
    resigned = client.post(f"/v1/matches/{mid}/resign", headers=auth(tokens[2])).get_json()
    assert resigned["status"] == "active" and resigned["seats"][2]["takeover"] == "resigned"
    assert resigned["seats"][2]["level"] == "random"
    problem(client.post(f"/v1/matches/{mid}/resign", headers=auth(tokens[2])), 409)
    problem(client.post(f"/v1/matches/{mid}/leave", headers=auth(tokens[2])), 409)
    mine = view(client, mid, tokens[2])
    assert mine["legal_moves"] == [] and mine["state"]["hand"]  # still sees its seat
    final = play_out(client, mid, {seat: token for seat, token in tokens.items() if seat != 2}, run_bots)
    assert final["outcome"]["ranks"][2] == 4 and 2 not in final["outcome"]["winners"]
    assert final["outcome"]["reason"] == "hands_empty"
    entries = client.get(f"/v1/matches/{mid}/log").get_json()["entries"]
    assert any(entry["seat"] == 2 for entry in entries[len(entries) // 2:])  # the bot played on


# --- leave -------------------------------------------------------------------------------------


def test_leave_hands_the_seat_to_a_bot_that_finishes_it(client, run_bots) -> None:
    mid, tokens = duel(client, "cube", takeover_level="easy")
    left = client.post(f"/v1/matches/{mid}/leave", headers=auth(tokens[1]))
    assert left.status_code == 200, left.get_json()
    seat = left.get_json()["seats"][1]
    assert seat["takeover"] == "left" and seat["level"] == "easy" and seat["name"] == "Viviane"
    assert problem(client.post(f"/v1/matches/{mid}/leave", headers=auth(tokens[1])), 409)["match_status"] == "active"
    final = play_out(client, mid, {0: tokens[0]}, run_bots)
    assert final["status"] == "finished" and final["outcome"]["reason"] != "resigned"
    problem(client.post(f"/v1/matches/{mid}/leave", headers=auth(tokens[0])), 409)


# --- clocks ------------------------------------------------------------------------------------


def wait_past(deadline_view: dict) -> None:
    """Sleep until the view's clock deadline has passed."""
    remaining = max(r for r in deadline_view["clock"]["remaining"] if r is not None)
    time.sleep(remaining + 0.1)


def test_a_move_clock_runs_out_the_bot_moves_and_three_timeouts_take_the_seat(app, client, run_bots) -> None:
    mid, tokens = duel(client, "witches", clock={"move_seconds": 1})
    late = view(client, mid)["to_act"]  # this seat lets its time run out, three turns in a row
    for round_ in range(3):
        current = view(client, mid)
        while current["to_act"] != late:  # the punctual seat plays at once
            punctual = view(client, mid, tokens[current["to_act"]])
            assert play(client, mid, tokens[current["to_act"]], punctual["legal_moves"][0],
                        punctual["version"]).status_code == 200
            current = view(client, mid)
        assert current["clock"]["deadline"] and 0 < current["clock"]["remaining"][late] <= 1
        wait_past(current)
        mine = view(client, mid, tokens[late])
        refused = problem(play(client, mid, tokens[late], mine["legal_moves"][0], mine["version"]), 409)
        assert refused["title"] == "Time ran out"
        sweep(app)
        run_bots()
        after = view(client, mid)
        assert after["version"] > current["version"]  # once taken over, its bot may play on at once
        assert after["seats"][late]["timeouts"] == round_ + 1
    assert after["seats"][late]["takeover"] == "timeouts"
    entries = client.get(f"/v1/matches/{mid}/log").get_json()["entries"]
    timed_out = [entry for entry in entries if entry["timeout"]]
    assert len(timed_out) == 3 and {entry["seat"] for entry in timed_out} == {late}


def test_a_long_poll_queues_the_move_of_a_seat_out_of_time_without_the_sweeper(app, client, run_bots) -> None:
    mid, _ = duel(client, "witches", clock={"move_seconds": 1})
    current, answer = view(client, mid), {}

    def long_poll() -> None:
        answer.update(view(app.test_client(), mid, after_version=current["version"], wait=5))

    waiter = threading.Thread(target=long_poll)
    waiter.start()
    time.sleep(1.5)  # the clock runs out meanwhile: the waiting request queues the bot's move
    run_bots()
    waiter.join()
    assert answer["version"] == current["version"] + 1
    assert answer["seats"][current["to_act"]]["timeouts"] == 1


def test_a_move_in_time_resets_the_count_and_a_bank_clock_charges_and_adds(client) -> None:
    mid, tokens = duel(client, "witches", clock={"bank_seconds": 5, "increment_seconds": 2})
    current = view(client, mid)
    seat = current["to_act"]
    assert current["clock"]["bank_seconds"] == 5 and current["clock"]["remaining"][1 - seat] == 5
    mine = view(client, mid, tokens[seat])
    time.sleep(0.3)
    after = play(client, mid, tokens[seat], mine["legal_moves"][0], mine["version"]).get_json()
    left = after["clock"]["remaining"][seat]
    assert 5 + 2 - 1.5 < left < 5 + 2 - 0.3  # charged the time it took, plus the increment
    assert after["seats"][seat]["timeouts"] == 0


def test_bad_clocks_are_refused(client) -> None:
    for clock in ({}, {"move_seconds": 30, "bank_seconds": 60}, {"move_seconds": 0},
                  {"move_seconds": 5, "increment_seconds": 1}, {"bank_seconds": "soon"}):
        body = {"game": "cube", "seats": [{"type": "human"}, {"type": "human"}], "clock": clock}
        assert "clock" in problem(client.post("/v1/matches", json=body), 422)["errors"]


# --- rematch -----------------------------------------------------------------------------------


def test_rematch_called_by_both_humans_seats_them_in_one_new_match(client) -> None:
    created = create(client, "witches", [{"type": "human"}, {"type": "bot", "level": "easy"}, {"type": "human"}],
                     name="Morgane", clock={"move_seconds": 60}, visibility="private")
    joined = join(client, created["id"], name="Viviane")
    mid, tokens = created["id"], {0: created["token"], 2: joined["token"]}
    problem(client.post(f"/v1/matches/{mid}/rematch", headers=auth(tokens[0])), 409)  # not finished
    client.post(f"/v1/matches/{mid}/resign", headers=auth(tokens[0]))
    client.post(f"/v1/matches/{mid}/resign", headers=auth(tokens[2]))  # the bot is left: it wins
    assert view(client, mid)["outcome"]["winners"] == [1]
    first = client.post(f"/v1/matches/{mid}/rematch", headers=auth(tokens[2]))
    assert first.status_code == 200, first.get_json()
    viviane = first.get_json()
    follow_up = viviane["id"]
    assert follow_up != mid and first.headers["Location"] == f"/v1/matches/{follow_up}"
    assert viviane["you"] == 1 and viviane["status"] == "waiting" and viviane["previous"] == mid
    assert [seat["type"] for seat in viviane["seats"]] == ["bot", "human", "human"]  # rotated by one
    assert viviane["seats"][2]["reserved"] and viviane["seats"][2]["name"] == "Morgane"
    assert viviane["options"] == view(client, mid)["options"] and viviane["clock"]["move_seconds"] == 60
    assert viviane["visibility"] == "private" and viviane["seeded"] is False
    assert viviane["fairness"]["commitment"] != view(client, mid)["fairness"]["commitment"]
    problem(client.post(f"/v1/matches/{follow_up}/join"), 409)  # the seat is kept for Morgane
    morgane = client.post(f"/v1/matches/{mid}/rematch", headers=auth(tokens[0])).get_json()
    assert morgane["id"] == follow_up and morgane["you"] == 2 and morgane["status"] == "active"
    assert morgane["token"] not in (viviane["token"], tokens[0])
    assert view(client, mid)["rematch"] == follow_up
    again = problem(client.post(f"/v1/matches/{mid}/rematch", headers=auth(tokens[0])), 409)
    assert follow_up in again["detail"]


# --- history by version -------------------------------------------------------------------------

COMPARED = ("version", "status", "to_act", "you", "state", "legal_moves", "outcome", "resigned")


def comparable(body: dict) -> dict:
    """What a view at a version must repeat exactly (presence, bot progress and clocks move on)."""
    seats = [{key: value for key, value in seat.items() if key != "last_seen"} for seat in body["seats"]]
    return {**{key: body[key] for key in COMPARED}, "seats": seats}


def test_every_version_of_a_finished_three_player_match_is_what_each_seat_saw(client) -> None:
    created = create(client, "witches", [{"type": "human"}] * 3, name="A")
    mid, tokens = created["id"], {0: created["token"]}
    for name in ("B", "C"):
        joined = join(client, mid, name=name)
        tokens[joined["you"]] = joined["token"]
    seen: dict[tuple[int, int | None], dict] = {}
    while True:
        public = view(client, mid)
        seen[(public["version"], None)] = comparable(public)
        for seat, token in tokens.items():
            seen[(public["version"], seat)] = comparable(view(client, mid, token))
        if public["status"] == "finished":
            break
        mine = seen[(public["version"], public["to_act"])]
        assert play(client, mid, tokens[public["to_act"]], mine["legal_moves"][-1], public["version"]).status_code == 200
    last = public["version"]
    for (version, seat), live in seen.items():
        then = client.get(f"/v1/matches/{mid}/versions/{version}", headers=auth(tokens.get(seat)))
        assert then.status_code == 200, then.get_json()
        body = then.get_json()
        assert comparable(body) == live, (version, seat)
        assert len(body["seat_views"]) == 3 and body["fairness"]["seed"]  # finished: the full view
    hands = {tuple(client.get(f"/v1/matches/{mid}/versions/{last - 10}").get_json()["seat_views"][s]["hand"])
             for s in range(3)}
    assert len(hands) == 3
    assert problem(client.get(f"/v1/matches/{mid}/versions/{last + 1}"), 404)["title"] == "Version not found"
    problem(client.get(f"/v1/matches/{mid}/versions/0"), 404)


def test_a_running_match_shows_a_seat_only_what_it_saw_then(client) -> None:
    mid, tokens = duel(client)
    before = view(client, mid, tokens[0])
    seat = before["to_act"]
    mine = view(client, mid, tokens[seat])
    play(client, mid, tokens[seat], mine["legal_moves"][0], mine["version"])
    then = client.get(f"/v1/matches/{mid}/versions/{before['version']}", headers=auth(tokens[0])).get_json()
    assert comparable(then) == comparable(before) and then["seat_views"] is None
    assert then["fairness"]["seed"] is None and "hand" not in then["state"].get("others", {})
    spectator = client.get(f"/v1/matches/{mid}/versions/{before['version']}").get_json()
    assert "hand" not in spectator["state"] and spectator["you"] is None


# --- fair chance ---------------------------------------------------------------------------------


def test_the_seed_is_committed_revealed_at_the_end_and_the_log_verifies(client, run_bots) -> None:
    created = create(client, "enchanters", [{"type": "human"}, {"type": "bot", "level": "random"}])
    commitment = created["fairness"]["commitment"]
    assert created["fairness"]["seed"] is None and len(commitment) == 64
    log = client.get(f"/v1/matches/{created['id']}/log").get_json()
    assert log["fairness"] == {"commitment": commitment, "seed": None}
    final = play_out(client, created["id"], {0: created["token"]}, run_bots)
    seed = final["fairness"]["seed"]
    assert committed_to(seed, "enchanters", final["options"], 2) == commitment and len(bytes.fromhex(seed)) == 32
    document = client.get(f"/v1/matches/{created['id']}/log").get_json()
    assert verify(document) is None
    chance = [entry["index"] for entry in document["entries"] if entry["chance"]]
    tampered = {**document, "entries": [dict(entry) for entry in document["entries"]]}
    index = chance[len(chance) // 2]
    others = [entry["move"] for entry in document["entries"] if entry["chance"] and entry["move"]
              != document["entries"][index]["move"] and entry["move"].get("type") == document["entries"][index]["move"].get("type")]
    tampered["entries"][index]["move"] = others[0]
    found = verify(tampered)
    assert found is not None and found.index is not None and found.index <= index
    wrong = {**document, "fairness": {"commitment": commitment, "seed": "00" * 32}}
    assert verify(wrong).index is None


def test_a_client_seed_is_refused_with_two_humans_and_shown_in_the_lobby_otherwise(client) -> None:
    body = {"game": "witches", "seats": [{"type": "human"}, {"type": "human"}], "seed": "practice"}
    assert "seed" in problem(client.post("/v1/matches", json=body), 422)["errors"]
    practice = create(client, "witches", [{"type": "human"}, {"type": "bot"}, {"type": "human"}][:2], seed="practice")
    assert practice["seeded"] is True
    assert practice["fairness"]["commitment"] == committed_to("practice", "witches", practice["options"], 2)
    waiting = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    listed = {m["id"]: m["seeded"] for m in client.get("/v1/matches").get_json()["matches"]}
    assert listed == {practice["id"]: True, waiting["id"]: False}


# --- presence ------------------------------------------------------------------------------------


def test_last_seen_follows_polls_and_moves(client) -> None:
    created = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    assert created["seats"][0]["last_seen"] and created["seats"][1]["last_seen"] is None
    joined = join(client, created["id"])
    assert joined["seats"][1]["last_seen"]
    spectator = view(client, created["id"])
    assert all(seat["last_seen"] for seat in spectator["seats"])


def test_racing_rematch_calls_share_one_follow_up(app, client) -> None:
    mid, tokens = duel(client)
    client.post(f"/v1/matches/{mid}/resign", headers=auth(tokens[1]))
    barrier, answers = threading.Barrier(2), {}

    def ask(seat: int) -> None:
        local = app.test_client()
        barrier.wait()
        answers[seat] = local.post(f"/v1/matches/{mid}/rematch", headers=auth(tokens[seat])).get_json()

    threads = [threading.Thread(target=ask, args=(seat,)) for seat in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers[0]["id"] == answers[1]["id"] == view(client, mid)["rematch"]
    assert {answers[0]["you"], answers[1]["you"]} == {0, 1} and answers[0]["you"] == 1
    listed = [m["id"] for m in client.get("/v1/matches").get_json()["matches"]]
    assert listed == [answers[0]["id"]]  # the follow-up that lost the race is gone
    assert view(client, answers[0]["id"])["status"] == "active"
