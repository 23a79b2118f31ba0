"""Bot turns on RQ: queued once per version, duplicate or late jobs are no-ops, dead turns are retried."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from api_support import create, view
from rq import Queue
from rq.job import Job

from api.jobs import worker as worker_module
from api.jobs.bot_turn import play_bot_turn
from api.store.bot_queue import MAX_RECOVERIES, job_id_for
from api.store.storage import DUE_KEY, bot_key, claim_key, recovery_key
from tests.conftest import ROOT, free_port


def bot_first(client, level: str = "random") -> dict:
    """A seeded witches match where the bot (seat 0) is to act first."""
    for attempt in range(50):
        created = create(client, "witches", [{"type": "bot", "level": level}, {"type": "human"}],
                         seed=f"w{attempt}")
        if created["to_act"] == 0:
            created["seed"] = f"w{attempt}"
            return created
    raise AssertionError("no seed lets the bot start")


def overdue(redis, match_id: str, version: int) -> None:
    """Let the time the sweeper gives a bot turn pass (as if its budget and grace were over)."""
    assert redis.zscore(DUE_KEY, f"{match_id}:{version}") is not None
    redis.zadd(DUE_KEY, {f"{match_id}:{version}": 0})


def current_job_id(redis, match_id: str, version: int) -> str:
    """The id of the turn's latest job (a recovery queues the turn under a new id)."""
    progress = {k.decode(): v.decode() for k, v in redis.hgetall(bot_key(match_id)).items()}
    attempt = int(progress.get("recoveries", 0)) if progress.get("version") == str(version) else 0
    return job_id_for(match_id, version, attempt)


def lose(redis, config, match_id: str, version: int) -> str:
    """A worker took the turn's job and died, before claiming it or after its lease ran out: the job
    waits in no queue, nobody holds the lease, and the grace to claim it is over. The lost job's id."""
    job_id = current_job_id(redis, match_id, version)
    for name in (config.BOT_QUEUE, config.BOTS_ONLY_QUEUE):
        redis.lrem(Queue(name, connection=redis).key, 0, job_id)
    redis.delete(claim_key(match_id), recovery_key(match_id, version))  # lease and last lock expired
    redis.hset(bot_key(match_id), mapping={"version": version, "unclaimed_since": repr(time.time() - 60)})
    overdue(redis, match_id, version)
    return job_id


def test_a_turn_is_queued_once(client, redis, app, config) -> None:
    created = bot_first(client)
    queue = Queue(config.BOT_QUEUE, connection=redis)
    job_id = job_id_for(created["id"], created["version"])
    assert queue.job_ids == [job_id]
    service = app.extensions["coven"]
    assert service.bots.enqueue(created["id"], created["version"], "random") is None
    view(client, created["id"])  # a view of a queued turn does not queue it again
    assert queue.job_ids == [job_id]


def test_duplicate_and_late_jobs_are_no_ops(client, redis) -> None:
    created = bot_first(client)
    first = play_bot_turn(created["id"], created["version"])
    assert first["played"] is True
    after = view(client, created["id"])
    assert after["version"] == created["version"] + 1
    again = play_bot_turn(created["id"], created["version"])
    assert again == {"match": created["id"], "version": created["version"], "played": False, "reason": "stale"}
    assert play_bot_turn(created["id"], after["version"])["played"] is False  # a human is to act
    assert play_bot_turn("missing", 1)["played"] is False
    assert view(client, created["id"])["version"] == after["version"]


def test_seeded_bot_turns_replay(client) -> None:
    a = bot_first(client)
    b = create(client, "witches", [{"type": "bot", "level": "random"}, {"type": "human"}], seed=a["seed"])
    play_bot_turn(a["id"], a["version"])
    play_bot_turn(b["id"], b["version"])
    assert view(client, a["id"], a["token"])["state"] == view(client, b["id"], b["token"])["state"]


def test_thinking_progress_shows_in_the_view(client, app) -> None:
    created = bot_first(client)
    service = app.extensions["coven"]
    service.report_bot(created["id"], created["version"], {
        "status": "thinking", "iterations": 42, "elapsed": 0.5, "best_visits": 7, "best_move": "",
    })
    bot = view(client, created["id"])["bot"]
    assert bot["status"] == "thinking" and bot["iterations"] == 42 and bot["best_visits"] == 7
    assert bot["best_move"] is None  # witches hides hands: the bot's favourite card stays secret


def test_a_turn_whose_worker_died_is_re_enqueued(client, redis, app, config, run_bots) -> None:
    created = bot_first(client)
    queue = Queue(config.BOT_QUEUE, connection=redis)
    lost = lose(redis, config, created["id"], created["version"])
    assert queue.job_ids == [] and Job.exists(lost, connection=redis)  # RQ still says "queued"
    view(client, created["id"])  # the view finds the turn unclaimed and in no queue: it re-enqueues it
    assert queue.job_ids == [job_id_for(created["id"], created["version"], 1)]
    assert not Job.exists(lost, connection=redis)  # the lost job's record does not stay forever
    run_bots()
    after = view(client, created["id"], created["token"])
    assert after["version"] == created["version"] + 1 and after["to_act"] == 1


def test_a_turn_gets_the_grace_to_be_claimed(client, redis, app, config) -> None:
    """A job a worker has just taken is in no queue and not claimed yet: the first look only notes
    it; it is recovered when still unclaimed BOT_GRACE_SECONDS later."""
    created = bot_first(client)
    queue = Queue(config.BOT_QUEUE, connection=redis)
    queue.remove(job_id_for(created["id"], created["version"]))
    service = app.extensions["coven"]
    loaded = service.look(created["id"])
    assert service.ensure_progress(loaded) is False and queue.job_ids == []
    time.sleep(config.BOT_GRACE_SECONDS + 0.1)
    assert service.ensure_progress(loaded) is True and queue.count == 1


def test_a_claimed_turn_is_left_alone_however_long_it_takes(client, redis, app, config) -> None:
    created = bot_first(client)
    queue = Queue(config.BOT_QUEUE, connection=redis)
    queue.remove(job_id_for(created["id"], created["version"]))
    service = app.extensions["coven"]
    assert service.bots.claim(created["id"], created["version"], "worker-a")
    assert not service.bots.claim(created["id"], created["version"], "worker-b")  # one holder at a time
    redis.hset(bot_key(created["id"]), "unclaimed_since", repr(time.time() - 600))
    overdue(redis, created["id"], created["version"])
    assert service.sweep_bots() == 0
    view(client, created["id"])
    assert queue.job_ids == []
    due = redis.zscore(DUE_KEY, f"{created['id']}:{created['version']}")
    assert due == pytest.approx(time.time() + config.BOT_LEASE_SECONDS + config.BOT_GRACE_SECONDS, abs=3)


def test_a_lease_that_runs_out_frees_the_turn(client, redis, app, config) -> None:
    created = bot_first(client)
    service = app.extensions["coven"]
    assert service.store.claim_turn(created["id"], created["version"], "worker-a", lease=0.05)
    assert service.store.turn_claim(created["id"])[:2] == (created["version"], "worker-a")
    time.sleep(0.1)
    assert service.store.turn_claim(created["id"]) is None
    assert not service.bots.renew(created["id"], created["version"], "worker-a")  # its holder learns it
    assert service.bots.claim(created["id"], created["version"], "worker-b")


def test_a_job_that_finds_its_turn_claimed_does_nothing(client, redis, app) -> None:
    created = bot_first(client)
    assert app.extensions["coven"].bots.claim(created["id"], created["version"], "another-worker")
    result = play_bot_turn(created["id"], created["version"])
    assert result["played"] is False and result["reason"] == "claimed"
    assert view(client, created["id"])["version"] == created["version"]


def test_bots_chain_to_the_end_of_an_all_bot_match(client, run_bots) -> None:
    response = client.post("/v1/matches", json={
        "game": "witches", "seats": [{"type": "bot", "level": "random"}] * 3})
    created = response.get_json()
    assert response.status_code == 201 and created["you"] is None and "token" not in created
    run_bots()
    final = view(client, created["id"])
    assert final["status"] == "finished" and final["outcome"]["winners"]


def test_event_stream_reports_a_thinking_bot(client, app) -> None:
    import json
    import threading

    created = bot_first(client)
    response = client.get(f"/v1/matches/{created['id']}/events", buffered=False)
    chunks = iter(response.response)

    def next_event(kind: str) -> dict:
        while True:
            chunk = next(chunks)
            chunk = chunk.decode() if isinstance(chunk, bytes) else chunk
            if f"event: {kind}" in chunk:
                data = next(line for line in chunk.splitlines() if line.startswith("data: "))
                return json.loads(data.removeprefix("data: "))

    assert next_event("match")["bot"]["status"] == "queued"
    report = {"status": "thinking", "iterations": 9, "elapsed": 0.1, "best_visits": 3, "best_move": ""}
    service = app.extensions["coven"]
    threading.Timer(0.2, service.report_bot, (created["id"], created["version"], report)).start()
    bot = next_event("bot")
    assert bot["status"] == "thinking" and bot["iterations"] == 9
    response.close()


def test_the_sweep_recovers_a_turn_nobody_watches(client, redis, app, config, run_bots) -> None:
    created = bot_first(client)
    queue = Queue(config.BOT_QUEUE, connection=redis)
    humans_only = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    service = app.extensions["coven"]
    Queue(config.BOT_QUEUE, connection=redis).remove(job_id_for(created["id"], created["version"]))
    assert service.sweep_bots() == 0  # not due yet: the turn has its budget and grace to be claimed
    lose(redis, config, created["id"], created["version"])  # and no view or wait comes to notice
    assert service.sweep_bots() == 1
    assert queue.job_ids == [job_id_for(created["id"], created["version"], 1)]
    assert service.sweep_bots() == 0  # queued now: nothing more to do
    run_bots()
    assert view(client, created["id"])["to_act"] == 1
    assert view(client, humans_only["id"])["version"] == humans_only["version"]


def test_the_sweep_command_reports_what_it_recovered(client, redis, app, config) -> None:
    created = bot_first(client)
    lose(redis, config, created["id"], created["version"])
    result = app.test_cli_runner().invoke(args=["sweep-bots", "--once"])
    assert result.exit_code == 0 and "re-enqueued 1 bot turn(s)" in result.output
    assert Queue(config.BOT_QUEUE, connection=redis).job_ids == [job_id_for(created["id"], created["version"], 1)]
    again = app.test_cli_runner().invoke(args=["sweep-bots", "--once"])
    assert "re-enqueued 0 bot turn(s)" in again.output


def test_bot_turns_of_matches_with_a_person_are_served_first(client, redis, config) -> None:
    from rq import SimpleWorker

    bots_only = client.post("/v1/matches", json={
        "game": "witches", "seats": [{"type": "bot", "level": "random"}] * 2}).get_json()
    with_person = bot_first(client)  # queued after the bots-only match's turn
    queues = {name: Queue(name, connection=redis) for name in (config.BOT_QUEUE, config.BOTS_ONLY_QUEUE)}
    assert queues[config.BOTS_ONLY_QUEUE].job_ids == [job_id_for(bots_only["id"], bots_only["version"])]
    assert queues[config.BOT_QUEUE].job_ids == [job_id_for(with_person["id"], with_person["version"])]
    worker = SimpleWorker(list(queues.values()), connection=redis)
    worker.work(burst=True, max_jobs=1, logging_level="WARNING")
    assert view(client, with_person["id"])["version"] == with_person["version"] + 1
    assert view(client, bots_only["id"])["version"] == bots_only["version"]


def test_the_sweep_reads_only_due_bot_turns(client, redis, app, run_bots) -> None:
    humans = [create(client, "witches", [{"type": "human"}, {"type": "human"}]) for _ in range(5)]
    assert redis.zcard(DUE_KEY) == 0  # matches without a bot turn cost the sweeper nothing
    created = bot_first(client)
    assert redis.zrange(DUE_KEY, 0, -1) == [f"{created['id']}:{created['version']}".encode()]
    run_bots()  # the bot plays; a human is to act
    assert view(client, created["id"])["to_act"] == 1
    assert redis.zcard(DUE_KEY) == 0
    assert app.extensions["coven"].sweep_bots() == 0
    assert all(view(client, h["id"])["version"] == h["version"] for h in humans)


def test_a_stale_due_entry_is_dropped(client, redis, app) -> None:
    created = bot_first(client)
    play_bot_turn(created["id"], created["version"])
    redis.zadd(DUE_KEY, {f"{created['id']}:{created['version']}": 0})  # e.g. a process died before removing it
    redis.zadd(DUE_KEY, {"gone:3": 0})  # a match that expired
    assert app.extensions["coven"].sweep_bots() == 0
    assert redis.zcard(DUE_KEY) == 0


def test_the_retry_budget_is_per_turn(client, redis, app, config, run_bots) -> None:
    service = app.extensions["coven"]
    created = create(client, "witches", [{"type": "bot", "level": "random"}] * 2, seed="budget")
    for _ in range(3):  # three turns in a row, each losing its worker the whole budget's worth
        version = view(client, created["id"])["version"]
        for _ in range(MAX_RECOVERIES):
            lose(redis, config, created["id"], version)
            assert service.sweep_bots() == 1
        Job.fetch(current_job_id(redis, created["id"], version), connection=redis).perform()
        assert view(client, created["id"])["version"] == version + 1


def test_a_turn_out_of_retries_shows_failed_and_is_tried_again_later(client, redis, app, config, run_bots) -> None:
    service = app.extensions["coven"]
    created = bot_first(client)
    mid, version = created["id"], created["version"]
    for _ in range(MAX_RECOVERIES):
        lose(redis, config, mid, version)
        assert service.sweep_bots() == 1
    lose(redis, config, mid, version)
    assert service.sweep_bots() == 0  # out of retries for now
    assert view(client, mid)["bot"]["status"] == "failed"
    counted = {k.decode(): v.decode() for k, v in redis.hgetall("coven:metrics").items()}
    assert counted["failed"] == "1" and counted["recovered"] == str(MAX_RECOVERIES)  # in /metrics
    retry_at = redis.zscore(DUE_KEY, f"{mid}:{version}")
    assert retry_at == pytest.approx(time.time() + service.config.BOT_RETRY_SECONDS, abs=5)
    assert service.sweep_bots() == 0 and view(client, mid)["bot"]["status"] == "failed"  # not yet
    redis.hset(bot_key(mid), "retry_at", repr(time.time() - 1))  # a minute later
    overdue(redis, mid, version)
    assert service.sweep_bots() == 1
    assert view(client, mid)["bot"]["status"] == "queued"
    run_bots()
    assert view(client, mid)["version"] == version + 1 and redis.zcard(DUE_KEY) == 0


def test_a_look_before_the_mover_queued_the_turn_is_no_recovery(client, redis, app, config) -> None:
    """A waiter woken by the save may look before the process that saved the move has queued the
    bot's turn: it leaves the queueing to that process, and nothing counts as recovered."""
    created = bot_first(client)
    queue = Queue(config.BOT_QUEUE, connection=redis)
    job_id = job_id_for(created["id"], created["version"])
    queue.remove(job_id)
    Job.fetch(job_id, connection=redis).delete()
    redis.delete(bot_key(created["id"]))  # as just after the save, before the enqueue
    service = app.extensions["coven"]
    assert service.ensure_progress(service.look(created["id"])) is False
    assert service.bots.enqueue(created["id"], created["version"], "random") is not None  # the mover, now
    assert queue.job_ids == [job_id] and redis.hget("coven:metrics", "recovered") is None


def test_a_worker_stops_listening_for_commands_within_seconds(redis, monkeypatch) -> None:
    """RQ's teardown stops the thread that listens for its commands, and redis-py 8.2 waits for that
    thread: it must not sit out a minute's poll (a supervisor kills a worker that slow to stop). The
    listener here has already read the answer to the unsubscribe, the race a loaded machine loses."""
    monkeypatch.setattr(worker_module, "die_with_parent", lambda: None)  # not the test process's
    worker = worker_module.BotWorker([Queue("stopping", connection=redis)], connection=redis)
    worker.subscribe()
    until = time.monotonic() + 10
    while not worker.pubsub.subscribed and time.monotonic() < until:
        time.sleep(0.01)
    worker.pubsub.unsubscribe()
    while worker.pubsub.subscribed and time.monotonic() < until:
        time.sleep(0.01)
    assert not worker.pubsub.subscribed, "the listener never read the unsubscribe"
    started = time.monotonic()
    worker.unsubscribe()
    assert time.monotonic() - started < 10
    assert not worker.pubsub_thread.is_alive()


#: A pool's stand-in: forks a worker that waits for a Redis nobody serves, prints its pid, sleeps.
_PARENT_OF_A_WAITING_WORKER = """
import os, sys, time
from redis import Redis
from rq import Queue
from api.jobs.worker import BotWorker
redis = Redis.from_url(sys.argv[1])
child = os.fork()
if child == 0:
    BotWorker([Queue("q", connection=redis)], connection=redis)
    os._exit(0)
print(child, flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signals are Linux's")
def test_a_worker_waiting_for_redis_dies_with_its_pool() -> None:
    """A worker (re)started by a pool while Redis is away waits for it; if the pool is killed then,
    the worker goes too, instead of outliving it and serving the queues beside the next pool."""
    pool = subprocess.Popen([sys.executable, "-c", _PARENT_OF_A_WAITING_WORKER, f"redis://127.0.0.1:{free_port()}/0"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert pool.stdout is not None
    worker = int(pool.stdout.readline())
    time.sleep(1.0)  # it is waiting for Redis by now
    pool.kill()
    pool.wait()
    until = time.monotonic() + 20
    while time.monotonic() < until and _alive(worker):
        time.sleep(0.1)
    gone = not _alive(worker)
    if not gone:
        os.kill(worker, signal.SIGKILL)
    assert gone, "the worker outlived its pool"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
