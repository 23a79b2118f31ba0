"""Analysis for players: queued on the bot workers, the top moves of the position to act, never
another seat's cards."""

from __future__ import annotations

import random

from api_support import auth, create, play, play_out, view

from ai.search import search
from engine import get_game


def human_to_act(client, game: str = "witches") -> dict:
    """A two-human match of `game` where seat 0 is to act, with both tokens."""
    for _ in range(50):
        created = create(client, game, [{"type": "human"}, {"type": "human"}])
        joined = client.post(f"/v1/matches/{created['id']}/join").get_json()
        if joined["to_act"] == 0:  # dealt when the second seat was taken
            return {**created, "tokens": {0: created["token"], 1: joined["token"]}}
    raise AssertionError("seat 0 never started")


def test_the_seat_to_act_gets_its_top_moves_from_the_workers(client, run_bots) -> None:
    match = human_to_act(client)
    asked = client.post(f"/v1/matches/{match['id']}/analysis", json={"simulations": 300},
                        headers=auth(match["tokens"][0]))
    assert asked.status_code == 202, asked.get_json()
    body = asked.get_json()
    assert body["status"] == "queued" and body["result"] is None and body["seat"] == 0
    location = asked.headers["Location"]
    assert location.endswith(f"/analysis/{body['id']}")
    run_bots()
    done = client.get(location, headers=auth(match["tokens"][0])).get_json()
    assert done["status"] == "done", done
    result = done["result"]
    assert result["simulations"] == 300
    legal = view(client, match["id"], match["tokens"][0])["legal_moves"]
    moves = [entry["move"] for entry in result["moves"]]
    assert moves and all(move in legal for move in moves)
    visits = [entry["visits"] for entry in result["moves"]]
    assert visits == sorted(visits, reverse=True)
    assert 0 < sum(entry["share"] for entry in result["moves"]) <= 1.0001
    assert all(0.0 <= entry["win_chance"] <= 1.0 for entry in result["moves"])


def test_hidden_information_only_the_seat_to_act_may_analyse(client) -> None:
    match = human_to_act(client)
    url = f"/v1/matches/{match['id']}/analysis"
    spectator = client.post(url)
    assert spectator.status_code == 403
    assert spectator.headers["Content-Type"] == "application/problem+json"
    assert client.post(url, headers=auth(match["tokens"][1])).status_code == 403


def test_an_analysis_is_shown_to_the_seat_that_asked_until_the_end(client, run_bots) -> None:
    match = human_to_act(client)
    asked = client.post(f"/v1/matches/{match['id']}/analysis", json={"simulations": 50},
                        headers=auth(match["tokens"][0]))
    location = asked.headers["Location"]
    run_bots()
    assert client.get(location, headers=auth(match["tokens"][1])).status_code == 403
    assert client.get(location).status_code == 403
    play_out(client, match["id"], match["tokens"])
    assert client.get(location).get_json()["status"] == "done"  # everything may be shown once over


def test_open_games_may_be_analysed_by_spectators(client, run_bots) -> None:
    created = create(client, "cube", [{"type": "human"}, {"type": "human"}])
    client.post(f"/v1/matches/{created['id']}/join")
    asked = client.post(f"/v1/matches/{created['id']}/analysis", json={"simulations": 100})
    assert asked.status_code == 202
    run_bots()
    done = client.get(asked.headers["Location"]).get_json()
    assert done["status"] == "done" and done["result"]["moves"]


def test_a_position_that_moved_on_is_stale_not_searched(client, run_bots) -> None:
    match = human_to_act(client)
    asked = client.post(f"/v1/matches/{match['id']}/analysis", json={"simulations": 50},
                        headers=auth(match["tokens"][0]))
    mine = view(client, match["id"], match["tokens"][0])
    assert play(client, match["id"], match["tokens"][0], mine["legal_moves"][0], mine["version"]).status_code == 200
    run_bots()
    stale = client.get(asked.headers["Location"], headers=auth(match["tokens"][0])).get_json()
    assert stale["status"] == "stale" and stale["result"] is None


def test_nothing_to_analyse_and_bad_requests_are_problems(client) -> None:
    waiting = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    answer = client.post(f"/v1/matches/{waiting['id']}/analysis", headers=auth(waiting["token"]))
    assert answer.status_code == 409
    match = human_to_act(client)
    url = f"/v1/matches/{match['id']}/analysis"
    too_many = client.post(url, json={"simulations": 10**9}, headers=auth(match["tokens"][0]))
    assert too_many.status_code == 422 and "simulations" in too_many.get_json()["errors"]
    assert client.get(f"{url}/nope", headers=auth(match["tokens"][0])).status_code == 404
    assert client.post("/v1/matches/missing/analysis").status_code == 404


def test_the_search_sees_only_what_the_seat_knows() -> None:
    """Two deals the seat to act cannot tell apart give the very same analysis for the same generator."""
    game = get_game("witches")
    rng = random.Random(5)
    state = game.new_state(2, game.validate_options({}))
    while game.current_player(state) < 0:
        game.step(state, game.sample_chance(state, rng))
    seat = game.current_player(state)
    other = game.determinize(state, seat, random.Random(99))
    assert game.encode(other) != game.encode(state)  # the opponent's hand differs
    first = search(game, state, seat, random.Random(1), iterations=200)
    second = search(game, other, seat, random.Random(1), iterations=200)
    assert first.visits == second.visits and first.values == second.values


def test_an_analysis_whose_job_failed_or_vanished_says_failed(client, redis) -> None:
    from rq.job import Job

    from api.service.analysis import job_id_for

    match = human_to_act(client)
    asked = client.post(f"/v1/matches/{match['id']}/analysis", json={"simulations": 50},
                        headers=auth(match["tokens"][0])).get_json()
    Job.fetch(job_id_for(match["id"], asked["id"]), connection=redis).delete()  # lost with its worker
    failed = client.get(f"/v1/matches/{match['id']}/analysis/{asked['id']}", headers=auth(match["tokens"][0]))
    assert failed.get_json()["status"] == "failed"


def test_an_address_and_a_match_have_a_cap_of_analyses_in_flight(app_with, run_bots) -> None:
    client = app_with(ANALYSES_PER_ADDRESS=2, ANALYSES_PER_MATCH=3).test_client()
    first, second = human_to_act(client, "cube"), human_to_act(client, "cube")

    def ask(match: dict, address: str):
        return client.post(f"/v1/matches/{match['id']}/analysis", json={"simulations": 20},
                           environ_base={"REMOTE_ADDR": address})

    assert ask(first, "10.0.0.1").status_code == 202
    assert ask(first, "10.0.0.1").status_code == 202
    refused = ask(first, "10.0.0.1")  # the address's third
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert "per client address" in refused.get_json()["detail"]
    assert ask(second, "10.0.0.1").status_code == 429  # the cap is the address's, whatever the match
    assert ask(first, "10.0.0.2").status_code == 202  # the match's third
    assert ask(first, "10.0.0.3").status_code == 429  # the match's fourth
    run_bots()  # done: they no longer count
    assert ask(first, "10.0.0.1").status_code == 202


def test_analyses_never_wait_in_front_of_a_bot_turn(client, redis, config) -> None:
    """Sixteen heavy analyses queued, then a person's match where a bot is to act: the worker takes
    the bot turn first, however many analyses wait."""
    from rq import Queue, SimpleWorker

    matches = [human_to_act(client, "cube") for _ in range(4)]
    for index in range(16):
        asked = client.post(f"/v1/matches/{matches[index % 4]['id']}/analysis", json={"simulations": 20000},
                            environ_base={"REMOTE_ADDR": f"10.0.1.{index // 4}"})
        assert asked.status_code == 202
    for attempt in range(50):
        bot_first = create(client, "witches", [{"type": "bot", "level": "hard"}, {"type": "human"}],
                           seed=f"a{attempt}")
        if bot_first["to_act"] == 0:
            break
    queues = [Queue(name, connection=redis) for name in (config.BOT_QUEUE, config.BOTS_ONLY_QUEUE,
                                                          config.ANALYSIS_QUEUE)]
    assert queues[2].count == 16 and queues[0].count == 1
    SimpleWorker(queues, connection=redis).work(burst=True, max_jobs=1, logging_level="WARNING")
    assert view(client, bot_first["id"])["version"] == bot_first["version"] + 1
    assert queues[2].count == 16  # not one analysis ran first
