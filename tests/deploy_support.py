"""Docker and compose for tests/test_deploy.py: what is missing (named, for a failure, never a
skip), base images made from Debian's packages, the wheelhouse, the image, a compose stack."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = ROOT / "deploy" / "compose.yaml"
WHEELS = ROOT / "deploy" / "wheels"
MIRROR = "http://deb.debian.org/debian"
SECURITY = "deb http://deb.debian.org/debian-security bookworm-security main"

#: The base images made from Debian bookworm's packages (public images may be unreachable):
#: the runtime's (Python 3.11), the build stage's (plus a C compiler), and Redis's.
BASES = {
    "coven-base:bookworm": ["python3"],
    "coven-base:bookworm-build": ["python3", "python3-venv", "python3-dev", "gcc", "libc6-dev"],
    "coven-base:bookworm-redis": ["redis-server"],
}
IMAGE = "coven:test"


def run(argv: list[str], timeout: float = 120, check: bool = True, **kwargs: Any) -> subprocess.CompletedProcess:
    """Run a command, its output captured; fail the test with that output when it fails."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and done.returncode != 0:
        pytest.fail(f"{' '.join(argv)} exited with {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return done


def compose_command() -> list[str]:
    """`docker compose` (the plugin) or Debian's `docker-compose`; fails naming what is missing."""
    if shutil.which("docker") is None:
        pytest.fail("docker is missing: `make deploy-tools` as root installs Debian's docker.io")
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=60)
    if info.returncode != 0:
        pytest.fail("docker cannot reach dockerd (`make deploy-tools` as root starts it):\n" + info.stderr[-2000:])
    if subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=60).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    pytest.fail("neither `docker compose` nor `docker-compose` is installed: `make deploy-tools` "
                "as root installs Debian's docker-compose")


def has_image(tag: str) -> bool:
    """Whether dockerd holds an image of that tag."""
    return subprocess.run(["docker", "image", "inspect", tag], capture_output=True, timeout=60).returncode == 0


def debian_bases() -> None:
    """Make the base images that are missing, with mmdebstrap (in parallel) and `docker import`."""
    missing = [tag for tag in BASES if not has_image(tag)]
    if not missing:
        return
    if shutil.which("mmdebstrap") is None:
        pytest.fail(f"mmdebstrap is missing (it makes the base images {missing}): `make deploy-tools` as root")
    jobs = []
    for tag in missing:
        command = (f"mmdebstrap --quiet --variant=minbase --include={','.join(BASES[tag])} bookworm - "
                   f"{MIRROR} '{SECURITY}' | docker import - {tag}")
        jobs.append((tag, subprocess.Popen(["bash", "-o", "pipefail", "-c", command], stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True)))
    for tag, job in jobs:
        output, _ = job.communicate(timeout=900)
        if job.returncode != 0:
            pytest.fail(f"could not make the base image {tag}:\n{output[-3000:]}")


def wheelhouse() -> None:
    """deploy/wheels: every dependency as a wheel, made on the host (the build has no network).
    async-timeout is redis-py's dependency on Python < 3.11.3, which Debian's 3.11.2 is."""
    import tomllib

    requirements = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--wheel-dir",
         str(WHEELS), *requirements, "setuptools>=68", "async-timeout>=4.0.3"], timeout=600)


def build_image() -> float:
    """Build the image from the Debian bases and the wheelhouse alone; the seconds it took."""
    started = time.monotonic()
    run(["docker", "build", "--quiet", "--tag", IMAGE, "--build-arg", "BASE_IMAGE=coven-base:bookworm",
         "--build-arg", "BUILD_IMAGE=coven-base:bookworm-build", "--build-arg", "WHEELS_ONLY=1", str(ROOT)],
        timeout=1200)
    return time.monotonic() - started


def image_size(tag: str = IMAGE) -> int:
    """The image's size in bytes, as `docker image inspect` reports it."""
    return int(run(["docker", "image", "inspect", "--format", "{{.Size}}", tag]).stdout.strip())


@dataclass
class Stack:
    """A compose project of deploy/compose.yaml, its published API and the seconds things took."""

    compose: list[str]
    project: str
    env: dict[str, str]
    files: list[Path] = field(default_factory=lambda: [COMPOSE_FILE])
    api: str = ""
    figures: dict[str, float] = field(default_factory=dict)

    def __call__(self, *args: str, timeout: float = 300, check: bool = True,
                 input: str | None = None) -> subprocess.CompletedProcess:
        """A compose command on this project."""
        files = [arg for path in self.files for arg in ("-f", str(path))]
        return run([*self.compose, *files, "-p", self.project, *args], timeout=timeout, check=check,
                   env=self.env, input=input)

    def container(self, service: str, index: int = 1) -> str:
        """The id of a service's container (its `index`-th replica)."""
        ids = self("ps", "-q", service).stdout.split()
        assert len(ids) >= index, f"{service} has {len(ids)} containers"
        return sorted(ids)[index - 1]

    def containers(self, service: str) -> list[str]:
        """The ids of every container of a service."""
        return self("ps", "-q", service).stdout.split()

    def health(self) -> dict[str, str]:
        """Each running container's name → its health (healthy, starting, unhealthy)."""
        ids = self("ps", "-q").stdout.split()
        states = {}
        for cid in ids:
            state = json.loads(run(["docker", "inspect", "--format", "{{json .State}}", cid]).stdout)
            name = run(["docker", "inspect", "--format", "{{.Name}}", cid]).stdout.strip().lstrip("/")
            states[name] = (state.get("Health") or {}).get("Status", state["Status"])
        return states

    def wait_healthy(self, services: int, timeout: float = 180) -> float:
        """Wait until `services` containers are healthy; the seconds that took."""
        started = time.monotonic()
        while True:
            states = self.health()
            if len(states) >= services and all(state == "healthy" for state in states.values()):
                return time.monotonic() - started
            if time.monotonic() - started > timeout:
                pytest.fail(f"the stack is not healthy after {timeout:.0f} s: {states}\n{self.logs()}")
            time.sleep(0.5)

    def redis_cli(self, *args: str) -> str:
        """redis-cli in the Redis container."""
        return self("exec", "-T", "redis", "redis-cli", *args, timeout=60).stdout.strip()

    def logs(self) -> str:
        """The last lines of every service's log (for a failure's message)."""
        return self("logs", "--no-color", "--tail", "40", check=False).stdout[-8000:]


def freeze(container: str) -> None:
    """Stop every process of the container where it stands (`docker pause`), so that a test can
    make a move that gives it work and be sure it has not done that work yet."""
    run(["docker", "pause", container])


def thaw(container: str, check: bool = True) -> None:
    """Let a frozen container run again."""
    run(["docker", "unpause", container], check=check)


def crash(container: str) -> None:
    """SIGKILL the container's first process from the host, as the kernel's OOM killer would:
    unlike `docker kill`, which docker counts as a manual stop, the restart policy applies.
    A frozen container dies as it is thawed, before it runs another instruction."""
    inspected = run(["docker", "inspect", "--format", "{{.State.Pid}} {{.State.Paused}}", container])
    pid, paused = inspected.stdout.split()
    assert pid != "0", f"{container} is not running"
    os.kill(int(pid), 9)
    if paused == "true":
        # With cgroup v2 the kill ends the frozen processes at once and there is nothing to thaw.
        thaw(container, check=False)


@contextlib.contextmanager
def stack_up(stack: Stack, services: int) -> Iterator[Stack]:
    """Bring the stack up (from nothing: its volume too), wait for it, yield it, take it down."""
    stack("down", "--volumes", "--remove-orphans", check=False)
    started = time.monotonic()
    try:
        stack("up", "--detach", "--no-build", timeout=300)
        wait_for_api(stack.api, timeout=120)
        stack.figures["start_api_answers_seconds"] = time.monotonic() - started
        stack.wait_healthy(services)
        stack.figures["start_all_healthy_seconds"] = time.monotonic() - started
        yield stack
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack("down", "--volumes", "--remove-orphans", check=False)


def wait_for_api(api: str, timeout: float) -> float:
    """Wait until GET /v1/games answers 200; the seconds that took."""
    started = time.monotonic()
    while True:
        try:
            with urllib.request.urlopen(f"{api}/v1/games", timeout=2) as answer:
                if answer.status == 200:
                    return time.monotonic() - started
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() - started > timeout:
            pytest.fail(f"{api} did not answer in {timeout:.0f} s")
        time.sleep(0.2)
