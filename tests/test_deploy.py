"""The deployment kit, built and run: the image (from Debian's packages and a wheelhouse, no
network inside the build), the compose stack of deploy/compose.yaml playing a match of every
game against a bot through its published port, Redis and a bot worker crashed mid-game with
nothing lost, a backup of Redis restored, then the stack taken down.

Needs docker and compose; fails, never skips, naming what is missing (`make deploy-tools`
installs and starts them as root). The figures (image size, build, start, recoveries) are
printed, and written to the file DEPLOY_FIGURES names (`make bench-deploy`: bench/results/deploy.json),
so that `make test` leaves the tree as it found it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import pytest
import yaml

from api.runtime.config import Config
from engine import all_games
from tests.conftest import free_port
from tests.deploy_support import (
    COMPOSE_FILE,
    IMAGE,
    ROOT,
    Stack,
    build_image,
    compose_command,
    crash,
    debian_bases,
    freeze,
    image_size,
    run,
    stack_up,
    thaw,
    wait_for_api,
    wheelhouse,
)

CLUSTER_FILE = ROOT / "deploy" / "compose.cluster.yaml"

#: A clean machine makes three base images and compiles the hot path before the first test.
pytestmark = pytest.mark.timeout(1800)

FIGURES = os.environ.get("DEPLOY_FIGURES")
WORKERS = 2
SERVICES = 4 + WORKERS  # redis, web, sweeper, analyst and the workers


def call(method: str, url: str, body: dict | None = None, token: str | None = None, timeout: float = 40) -> dict:
    """One JSON request to the stack's published port."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return json.load(answer)


class Match:
    """A match of a person against one bot, played as the README's curl session plays it."""

    def __init__(self, api: str, game: str, level: str = "random"):
        created = call("POST", f"{api}/v1/matches",
                       {"game": game, "seats": [{"type": "human"}, {"type": "bot", "level": level}]})
        self.url, self.token = f"{api}/v1/matches/{created['id']}", created["token"]
        self.id = created["id"]
        self.view = call("GET", self.url, token=self.token)

    def wait(self, after: int, seconds: float = 30) -> dict:
        """The view once the version is past `after` (or `seconds` later)."""
        self.view = call("GET", f"{self.url}?after_version={after}&wait={seconds:g}", token=self.token)
        return self.view

    def play_my_turn(self) -> int:
        """Play the first legal move (it must be our turn); the version it made."""
        assert self.view["to_act"] == self.view["you"], self.view
        answer = call("POST", f"{self.url}/moves", {"move": self.view["legal_moves"][0],
                                                   "version": self.view["version"]}, token=self.token)
        self.view = answer
        return answer["version"]

    def until_my_turn(self) -> dict:
        """Wait for the bot until it is our turn again (or the match is over)."""
        for _ in range(100):
            if self.view["status"] == "finished" or self.view["to_act"] == self.view["you"]:
                return self.view
            self.wait(self.view["version"])
        pytest.fail(f"the bot did not play: {self.view}")

    def play_to_the_end(self, max_moves: int = 400) -> dict:
        """Play our turns, wait for the bot's, until the match is finished."""
        for _ in range(max_moves):
            if self.until_my_turn()["status"] == "finished":
                return self.view
            self.play_my_turn()
        pytest.fail(f"not finished after {max_moves} of our moves: {self.view}")


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    """The image built and the compose stack up, from nothing; down (with its volume) after."""
    compose = compose_command()
    figures: dict[str, float] = {}
    started = time.monotonic()
    debian_bases()
    wheelhouse()
    figures["prepare_seconds"] = time.monotonic() - started
    figures["build_seconds"] = build_image()
    figures["image_bytes"] = image_size()
    port = free_port()
    env = {**os.environ, "COVEN_IMAGE": IMAGE, "REDIS_IMAGE": "coven-base:bookworm-redis",
           "COVEN_PORT": str(port), "WORKERS": str(WORKERS), "HEALTH_INTERVAL": "2s",
           "RATE_LIMITS_ENABLED": "0", "BOT_GRACE_SECONDS": "2", "BOT_SWEEP_SECONDS": "1",
           "WEB_CONCURRENCY": "1"}
    with stack_up(Stack(compose, f"coventest{os.getpid()}", env, api=f"http://127.0.0.1:{port}", figures=figures),
                  SERVICES) as up:
        yield up
    print(json.dumps(figures, indent=2))
    if not FIGURES:
        return
    Path(FIGURES).parent.mkdir(parents=True, exist_ok=True)
    Path(FIGURES).write_text(json.dumps({"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                   "commit": run(["git", "rev-parse", "--short", "HEAD"], check=False,
                                                 cwd=ROOT).stdout.strip(),
                                   "machine": f"{os.cpu_count()} cores", **figures}, indent=2) + "\n")


def test_the_image_runs_as_a_user_with_the_hot_path_compiled_and_no_compiler(stack: Stack) -> None:
    checked = run(["docker", "run", "--rm", IMAGE, "sh", "-c", "id -u; command -v gcc cc || echo none; "
                   "python -c 'import importlib; from engine.compiled import HOT_MODULES, compiled_modules; "
                   "[importlib.import_module(m) for m in HOT_MODULES]; print(len(compiled_modules()), len(HOT_MODULES))'"])
    uid, compiler, compiled = checked.stdout.split("\n")[:3]
    assert uid != "0" and compiler == "none"
    built, hot = compiled.split()
    assert built == hot, f"only {built} of {hot} hot modules are compiled in the image"


@pytest.mark.parametrize("game_id", [game.info.id for game in all_games()])
def test_the_stack_plays_a_match_of_every_game_through_its_published_port(stack: Stack, game_id: str) -> None:
    match = Match(stack.api, game_id)
    ended = match.play_to_the_end()
    assert ended["status"] == "finished" and ended["outcome"]["winners"]
    assert call("GET", f"{match.url}/log")["entries"]


def test_metrics_and_health_answer_on_the_private_port_only(stack: Stack) -> None:
    for path in ("/metrics", "/readyz", "/healthz"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{stack.api}{path}", timeout=10)
        assert refused.value.code == 404, path
    inside = stack("exec", "-T", "web", "python", "-c", "import urllib.request; print(urllib.request.urlopen("
                   "'http://127.0.0.1:9100/metrics', timeout=10).read().decode())").stdout
    assert "coven_bot_workers" in inside and "coven_ready 1.0" in inside
    ports = run(["docker", "port", stack.container("web")]).stdout
    assert "8000/tcp" in ports and "9100" not in ports


def test_redis_crashed_mid_match_comes_back_with_the_match_at_its_version(stack: Stack) -> None:
    match = Match(stack.api, "witches")
    for _ in range(3):
        match.until_my_turn()
        match.play_my_turn()
    version = match.until_my_turn()["version"]
    crash(stack.container("redis"))
    crashed = time.monotonic()
    while True:  # the API answers 503 while Redis is away, then the match as it was
        try:
            view = call("GET", match.url, token=match.token, timeout=5)
            break
        except (urllib.error.URLError, OSError) as error:
            assert time.monotonic() - crashed < 60, f"Redis did not come back: {error}\n{stack.logs()}"
            time.sleep(0.1)
    stack.figures["redis_crash_match_readable_seconds"] = time.monotonic() - crashed
    assert view["version"] == version and view["to_act"] == view["you"]
    match.view = view
    assert match.play_to_the_end()["status"] == "finished"  # the bot plays on: workers back on the queue
    stack.figures["redis_crash_match_finished_seconds"] = time.monotonic() - crashed
    assert int(stack.redis_cli("exists", "coven:metrics")) == 1, "the counters did not survive"
    stack.wait_healthy(SERVICES)
    stack.figures["redis_crash_all_healthy_seconds"] = time.monotonic() - crashed


def test_workers_crashed_mid_turn_are_restarted_and_the_turn_played(stack: Stack) -> None:
    """Every worker crashed as a move gives the `hard` bot its turn: the turn is lost with its
    worker (or still queued); the restarted workers play it. The workers are frozen before the
    move, so that a fast bot cannot play its turn before the crash."""
    match = Match(stack.api, "witches", level="hard")
    for _ in range(20):
        match.until_my_turn()
        workers = stack.containers("worker")
        for worker in workers:
            freeze(worker)
        version = match.play_my_turn()
        if match.view["status"] == "finished" or match.view["to_act"] == match.view["you"]:
            for worker in workers:
                thaw(worker)
            continue  # no bot turn to lose (we won the trick and lead again)
        for worker in workers:
            crash(worker)
        crashed = time.monotonic()
        for _ in range(4):  # a long-poll lasts 30 s at most
            if match.wait(version)["version"] > version:
                break
        assert match.view["version"] > version, f"the turn was not played again\n{stack.logs()}"
        stack.figures["worker_crash_turn_played_seconds"] = time.monotonic() - crashed
        stack.wait_healthy(SERVICES)
        stack.figures["worker_crash_all_healthy_seconds"] = time.monotonic() - crashed
        for worker in workers:
            restarts = run(["docker", "inspect", "--format", "{{.RestartCount}}", worker]).stdout.strip()
            assert int(restarts) >= 1, "a crashed worker was not restarted"
        assert match.play_to_the_end()["status"] == "finished"
        return
    pytest.fail("every move of 20 gave the turn back to us: no bot turn to lose")


def test_a_backup_of_redis_restores_the_matches_at_their_versions(stack: Stack, tmp_path: Path) -> None:
    match = Match(stack.api, "enchanters")
    for _ in range(2):
        match.until_my_turn()
        match.play_my_turn()
    saved = match.until_my_turn()["version"]
    backup = tmp_path / "redis.rdb"
    env = {**stack.env, "COMPOSE": " ".join(stack.compose), "COMPOSE_FILE": str(COMPOSE_FILE),
           "COMPOSE_PROJECT_NAME": stack.project}
    run(["sh", str(ROOT / "deploy" / "redis-backup.sh"), str(backup)], env=env, timeout=120)
    match.play_my_turn()  # a move after the backup: the restore goes back to before it
    match.until_my_turn()
    assert match.view["version"] > saved
    started = time.monotonic()
    run(["sh", str(ROOT / "deploy" / "redis-restore.sh"), str(backup)], env=env, timeout=300)
    wait_for_api(stack.api, timeout=120)
    view = call("GET", match.url, token=match.token)
    stack.figures["restore_seconds"] = time.monotonic() - started
    assert view["version"] == saved
    match.view = view
    match.play_my_turn()  # the restored match plays on (the move may leave the turn with us)
    assert match.until_my_turn()["version"] >= saved + 1
    stack.wait_healthy(SERVICES)


def test_nginx_in_front_keeps_long_polls_and_event_streams_open(stack: Stack, tmp_path: Path) -> None:
    """Debian's nginx with deploy/proxy/nginx.conf before the stack: a match played through it,
    its long-polls answered, and an event stream's first event delivered at once (unbuffered)."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.fail("nginx is missing: apt-get install nginx-light (`make deploy-tools` as root)")
    port = free_port()
    site = (ROOT / "deploy" / "proxy" / "nginx.conf").read_text()
    site = site.replace("127.0.0.1:8000", stack.api.removeprefix("http://")).replace("listen 80;", f"listen 127.0.0.1:{port};")
    temp = " ".join(f"{kind}_temp_path {tmp_path}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (tmp_path / "nginx.conf").write_text(
        f"daemon off; user root; pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log;\n"
        f"events {{}}\nhttp {{ access_log off; {temp}\n{site}\n}}\n")
    server = subprocess.Popen([nginx, "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        proxied = f"http://127.0.0.1:{port}"
        wait_for_api(proxied, timeout=20)
        match = Match(proxied, "cube")
        stream = urllib.request.urlopen(urllib.request.Request(
            f"{match.url}/events", headers={"Authorization": f"Bearer {match.token}"}), timeout=10)
        with stream:  # the current view is sent at once: nginx must not hold it in a buffer
            first = []
            while len(first) < 8 and not any(line.startswith("data:") for line in first):
                first.append(stream.readline().decode())
        assert any(line.startswith("data:") for line in first), first
        ended = match.play_to_the_end()
        assert ended["status"] == "finished"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_cluster_variant_is_a_valid_override(stack: Stack) -> None:
    both = Stack(stack.compose, "coventestcluster", stack.env, files=[COMPOSE_FILE, CLUSTER_FILE])
    document = yaml.safe_load(both("config").stdout)
    for name in ("web", "worker", "analyst", "sweeper"):
        environment = document["services"][name]["environment"]
        assert environment["REDIS_CLUSTER"] == "1" and environment["QUEUE_REDIS_URL"] == "redis://redis:6379/0"
    assert {"matches-1", "matches-2", "matches-3", "cluster-init", "redis"} <= set(document["services"])


def test_the_compose_file_passes_every_setting_through() -> None:
    """Configuration is by environment only: every field of api/config.py reaches the processes
    (PORT and METRICS_PORT are the image's own)."""
    document = yaml.safe_load(COMPOSE_FILE.read_text())
    environment = document["x-coven"]["environment"]
    settings = {f.name for f in fields(Config)} - {"PORT", "METRICS_PORT"}
    assert settings <= set(environment), sorted(settings - set(environment))
    for name in ("web", "worker", "analyst", "sweeper"):
        assert document["services"][name]["environment"] == environment
