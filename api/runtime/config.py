"""One configuration object, read from the environment; tests subclass or override it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

#: Where `make docs` builds the documentation site that /guide serves: site/ in the checkout.
SITE_DIR = Path(__file__).resolve().parents[2] / "site"


def _parse(raw: str, default: Any) -> Any:
    """An environment variable's text as a value of the type of the setting's default."""
    value = raw.strip()
    if isinstance(default, bool):
        return value.lower() in ("1", "true", "yes", "on")
    if isinstance(default, int):
        return int(value)
    if isinstance(default, float):
        return float(value)
    if isinstance(default, tuple):
        return tuple(item.strip() for item in value.split(",") if item.strip())
    return value


@dataclass(frozen=True)
class Config:
    """Every setting of the web process and the bot worker, with its default."""

    REDIS_URL: str = "redis://localhost:6379/0"
    #: Matches live on a Redis Cluster: REDIS_URL names one of its nodes (the others are discovered).
    REDIS_CLUSTER: bool = False
    #: The (single, non-cluster) Redis that RQ's bot queues use; empty: REDIS_URL's.
    QUEUE_REDIS_URL: str = ""
    PORT: int = 8000
    #: When set, /metrics, /healthz and /readyz are served on this port only, and the API on
    #: PORT only (gunicorn listens on both): publish PORT, keep this one private. 0: all on PORT.
    METRICS_PORT: int = 0
    #: Finished matches (and every key of theirs) expire this long after the last move.
    MATCH_TTL_SECONDS: int = 24 * 3600
    #: Matches still waiting for players expire this long after creation or the last join.
    WAITING_TTL_SECONDS: int = 24 * 3600
    #: Active matches with no move for this long are abandoned and expire.
    IDLE_TTL_SECONDS: int = 7 * 24 * 3600
    #: How long a stored Idempotency-Key response is replayed.
    IDEMPOTENCY_TTL_SECONDS: int = 24 * 3600
    #: Origins allowed by CORS ("*" for any); empty disables CORS headers.
    CORS_ORIGINS: tuple[str, ...] = ("*",)
    #: Upper bound of `wait` on GET /v1/matches/{id}.
    LONG_POLL_MAX_SECONDS: float = 30.0
    #: An event stream is closed after this long; clients reconnect with Last-Event-ID.
    SSE_MAX_SECONDS: float = 300.0
    #: A comment line is sent on an idle event stream this often.
    SSE_KEEPALIVE_SECONDS: float = 15.0
    #: A quiet WebSocket channel pings its client this often (proxies close silent connections).
    SOCKET_PING_SECONDS: float = 25.0
    #: A stream ticket (POST /v1/matches/{id}/stream-ticket) must be used within this long.
    STREAM_TICKET_SECONDS: int = 60
    #: RQ queue of the bot turns of matches with a human seat (workers serve it first).
    BOT_QUEUE: str = "bots"
    #: RQ queue of the bot turns of bots-only matches (served when BOT_QUEUE is empty).
    BOTS_ONLY_QUEUE: str = "bots-only"
    #: Bot worker processes `make run` (and `python -m api.jobs.worker`) starts; 0: one per core.
    BOT_WORKERS: int = 0
    #: RQ queue of the analyses players ask for (never served before a bot turn).
    ANALYSIS_QUEUE: str = "analyses"
    #: Worker processes of their own for analyses (`python -m api.jobs.worker analyses`, at a lower
    #: CPU priority); 0: the bot workers take analyses, only when no bot turn waits.
    ANALYSIS_WORKERS: int = 1
    #: Analyses queued or running at once, per client address and per match; more are refused (429).
    ANALYSES_PER_ADDRESS: int = 4
    ANALYSES_PER_MATCH: int = 4
    #: A bot turn nobody claimed (and whose job waits in no queue) this long is presumed lost.
    BOT_GRACE_SECONDS: float = 10.0
    #: The lease a worker holds on the bot turn it plays, renewed as it searches; one that runs
    #: out (the worker died or froze) lets the sweeper queue the turn again.
    BOT_LEASE_SECONDS: float = 15.0
    #: The `sweeper` process looks for lost or dead bot turns this often.
    BOT_SWEEP_SECONDS: float = 5.0
    #: A bot turn re-enqueued MAX_RECOVERIES times in a row shows `failed`; it is tried again after this.
    BOT_RETRY_SECONDS: float = 60.0
    #: Request bodies larger than this are refused with 413.
    MAX_CONTENT_LENGTH: int = 64 * 1024
    #: Matches listed by GET /v1/matches at most.
    LIST_LIMIT: int = 100
    #: /readyz counts only the bot workers that sent a heartbeat within this many seconds (an
    #: idle worker sends one every WORKER_TTL_SECONDS - 15 seconds, a busy one every 5).
    READY_WORKER_SECONDS: float = 15.0
    #: RQ workers' time to live: an idle worker refreshes its heartbeat 15 s before it runs out,
    #: and a worker that died leaves RQ's registry once it has run out (the sweeper cleans it).
    WORKER_TTL_SECONDS: int = 20
    #: Level of the JSON logs (DEBUG, INFO, WARNING, ERROR).
    LOG_LEVEL: str = "INFO"
    #: The share (0 to 1) of answered requests that get an access line: every refused or failed
    #: one (status 400 and up) and every slow one (a second or more) gets one whatever this says.
    ACCESS_LOG_SAMPLE: float = 1.0
    #: Rate limits on (Flask-Limiter, counters in REDIS_URL's Redis, shared by every web process).
    RATE_LIMITS_ENABLED: bool = True
    #: Match creations per client address (limits' syntax: "N/unit", several joined by ";").
    RATE_LIMIT_CREATE: str = "20/minute;200/hour"
    #: Joins per client address.
    RATE_LIMIT_JOIN: str = "30/minute;300/hour"
    #: Moves per seat token.
    RATE_LIMIT_MOVE: str = "30/second;1800/minute"
    #: Stream tickets (POST /v1/matches/{id}/stream-ticket) per seat token.
    RATE_LIMIT_TICKET: str = "30/minute;300/hour"
    #: Analyses (POST /v1/matches/{id}/analysis, a search on the bot workers) per seat token.
    RATE_LIMIT_ANALYSIS: str = "6/minute;60/hour"
    #: Reads (every GET under /v1) per client address.
    RATE_LIMIT_READ: str = "50/second;1200/minute"
    #: Matches still waiting for players that one client address may have open at once.
    OPEN_MATCHES_PER_ADDRESS: int = 10
    #: Proxies in front of the web process whose X-Forwarded-For is trusted (0: none; the
    #: client address is then the peer's).
    TRUSTED_PROXY_HOPS: int = 0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """The configuration named by the environment (each setting a variable of its name),
        defaults elsewhere. An empty variable counts as unset, but a list's: `CORS_ORIGINS=`
        allows no origin. A value of the wrong type is a ValueError naming the variable."""
        environ = os.environ if environ is None else environ
        base = cls()
        changes: dict[str, Any] = {}
        for setting in fields(cls):
            raw, default = environ.get(setting.name), getattr(base, setting.name)
            if raw is None or (not raw.strip() and not isinstance(default, tuple)):
                continue
            try:
                changes[setting.name] = _parse(raw, default)
            except ValueError:
                raise ValueError(f"{setting.name}={raw!r} is not a {type(default).__name__}") from None
        return replace(base, **changes)

    @property
    def queue_redis_url(self) -> str:
        """The Redis of the bot queues: QUEUE_REDIS_URL, else REDIS_URL."""
        return self.QUEUE_REDIS_URL or self.REDIS_URL

    @property
    def bot_workers(self) -> int:
        """How many bot workers to start: BOT_WORKERS, else one per core."""
        return self.BOT_WORKERS if self.BOT_WORKERS > 0 else (os.cpu_count() or 1)

    def as_flask(self) -> dict[str, Any]:
        """The settings as Flask config keys."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
