"""Rate limits: Flask-Limiter with its counters in the shared Redis, so every web process on
every host counts together.

Who is limited by what (each limit an environment variable, see `api/config.py`):

- creating and joining matches: per client address (`RATE_LIMIT_CREATE`, `RATE_LIMIT_JOIN`),
  plus a cap on the matches one address has left waiting for players (`OPEN_MATCHES_PER_ADDRESS`);
- moves, stream tickets and analyses (each a search on the bot workers): per seat token
  (`RATE_LIMIT_MOVE`, `RATE_LIMIT_TICKET`, `RATE_LIMIT_ANALYSIS`);
- reads (every GET under /v1): per client address (`RATE_LIMIT_READ`).

A refused request gets 429 problem+json with `Retry-After`; every limited answer carries the
IETF `RateLimit-Policy` and `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers).
The client address is the peer's, or — behind `TRUSTED_PROXY_HOPS` proxies — the one those
proxies put in `X-Forwarded-For` (werkzeug's ProxyFix, wired in the app factory). IPv6
addresses count per /64, the block one subscriber usually holds.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, current_app, request
from flask_limiter import Limiter, RateLimitExceeded, RequestLimit
from flask_limiter.util import get_remote_address
from limits import parse_many

from api.runtime.config import Config
from api.store.storage import Store
from api.web.errors import problem

#: Endpoints with a limit of their own: endpoint → (policy name, config key, who is counted).
POLICIES: dict[str, tuple[str, str, str]] = {
    "matches.create": ("create", "RATE_LIMIT_CREATE", "address"),
    "matches.join": ("join", "RATE_LIMIT_JOIN", "address"),
    "matches.play": ("move", "RATE_LIMIT_MOVE", "seat"),
    # a seat's other commands count against its moves: one budget per seat token
    "matches.resign": ("move", "RATE_LIMIT_MOVE", "seat"),
    "matches.leave": ("move", "RATE_LIMIT_MOVE", "seat"),
    "matches.rematch": ("move", "RATE_LIMIT_MOVE", "seat"),
    "matches.cancel": ("move", "RATE_LIMIT_MOVE", "seat"),
    "matches.stream_ticket": ("ticket", "RATE_LIMIT_TICKET", "seat"),
    "analysis.request_analysis": ("analysis", "RATE_LIMIT_ANALYSIS", "seat"),
}
READ_POLICY = "read"
#: Where the app keeps its limiter (`app.extensions`), for the WebSocket channel's move budget.
LIMITER = "coven.limiter"


class TooManyOpenMatches(Exception):
    """The client address already has OPEN_MATCHES_PER_ADDRESS matches waiting for players;
    `retry_after`: seconds until the first of them expires at the latest (None: unknown)."""

    def __init__(self, cap: int, retry_after: int | None):
        super().__init__(f"at most {cap} matches waiting for players per client address")
        self.cap = cap
        self.retry_after = retry_after


# --- who is counted ----------------------------------------------------------------------


def client_address() -> str:
    """The client's address (after ProxyFix); an IPv6 address stands for its /64."""
    address = get_remote_address() or "unknown"
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def seat_or_address() -> str:
    """The seat token's digest when the request bears one, else the client address."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and token:
        return "seat:" + hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return client_address()


KEY_FUNCTIONS: dict[str, Callable[[], str]] = {"address": client_address, "seat": seat_or_address}


# --- the cap on open matches ----------------------------------------------------------------


def check_open_matches(store: Store, config: Config, seats: list[dict[str, Any]]) -> None:
    """Refuse (429) a match that would wait for players when the caller's address already has
    too many waiting."""
    if not config.RATE_LIMITS_ENABLED or sum(seat.get("type") == "human" for seat in seats) < 2:
        return
    waiting = store.waiting_matches_of(client_address())
    if len(waiting) >= config.OPEN_MATCHES_PER_ADDRESS:
        # the cap frees when one is joined (nobody can tell when) or at the latest when the first expires
        raise TooManyOpenMatches(config.OPEN_MATCHES_PER_ADDRESS, store.first_expiry(waiting))


def remember_open_match(store: Store, config: Config, match_id: str, status: str) -> None:
    """Count a new match against its creator's address while it waits for players."""
    if config.RATE_LIMITS_ENABLED and status == "waiting":
        store.remember_open_match(client_address(), match_id, config.WAITING_TTL_SECONDS)


# --- wiring ------------------------------------------------------------------------------------


def _storage_uri(config: Config) -> str:
    """Where the counters live: the matches' Redis (a cluster one in the `limits` library's words)."""
    if config.REDIS_CLUSTER:
        return "redis+cluster://" + config.REDIS_URL.split("://", 1)[1].split("/", 1)[0]
    if config.REDIS_URL.startswith("unix://"):
        return "redis+unix://" + config.REDIS_URL.removeprefix("unix://")
    return config.REDIS_URL


def _storage_options(config: Config) -> dict[str, Any]:
    """A blocking pool for the counters (redis-py's default pool raises past 100 connections,
    which hundreds of requests under gevent reach)."""
    if config.REDIS_CLUSTER:
        return {"health_check_interval": 30}
    from api.store.connections import blocking_pool

    return {"connection_pool": blocking_pool(config.REDIS_URL)}


def init_app(app: Flask, config: Config) -> Limiter:
    """Rate-limit `app`'s routes (call after the blueprints are registered)."""
    app.config.update(RATELIMIT_ENABLED=config.RATE_LIMITS_ENABLED, RATELIMIT_HEADERS_ENABLED=False)
    limiter = Limiter(
        key_func=client_address,
        app=app,
        storage_uri=_storage_uri(config),
        storage_options=_storage_options(config),
        strategy="sliding-window-counter",
        key_prefix="coven",
        application_limits=[lambda: current_app.config["RATE_LIMIT_READ"]],
        application_limits_exempt_when=_not_a_read,
    )
    app.extensions[LIMITER] = limiter
    # (only when enabled: a disabled limiter still evaluates a decorated view's limits)
    for endpoint, (policy, setting, counted) in POLICIES.items() if config.RATE_LIMITS_ENABLED else ():
        limit = limiter.shared_limit(
            _setting(setting), scope=policy, key_func=KEY_FUNCTIONS[counted],
            deduct_when=_not_refused,  # a request refused with 429 (a cap) costs no quota
        )
        limited: Any = limit(app.view_functions[endpoint])  # the view, counted first
        app.view_functions[endpoint] = limited

    @app.errorhandler(RateLimitExceeded)
    def too_many_requests(error: RateLimitExceeded) -> Response:
        breached = limiter.current_limit
        name = _policy_name(breached) if breached else "limit"
        response = problem(429, "Too many requests",
                           f"rate limit {name} ({error.description}) reached; retry later",
                           policy=name)
        return response

    @app.errorhandler(TooManyOpenMatches)
    def too_many_open(error: TooManyOpenMatches) -> Response:
        response = problem(429, "Too many open matches",
                           f"{error}: wait until one is joined or expires", policy="open-matches")
        if error.retry_after is not None:
            response.headers["Retry-After"] = str(error.retry_after)
        return response

    def rate_limit_headers(response: Response) -> Response:
        limits = limiter.current_limits if limiter.enabled else []
        if limits:
            _add_headers(response, limits, limiter.current_limit)
        return response

    # After Flask-Limiter's own hook, which makes the deductions of the limits counted only when
    # the answer is not a refusal: the headers then say what is left (hooks run last-first).
    hooks = app.after_request_funcs.setdefault(None, [])
    hooks.insert(next((index for index, hook in enumerate(hooks) if getattr(hook, "args", ())[:1] == (limiter,)),
                      len(hooks)), rate_limit_headers)

    return limiter


def _add_headers(response: Response, limits: list[RequestLimit], current: RequestLimit | None) -> None:
    """RateLimit-Policy for every limit that applied; RateLimit (and, on 429, Retry-After) for the
    one nearest to refusing."""
    response.headers["RateLimit-Policy"] = ", ".join(
        f'"{_policy_name(lim)}";q={lim.limit.amount};w={lim.limit.get_expiry()}' for lim in limits
    )
    if current is None:
        return
    reset_in = max(1, math.ceil(current.window[0] - time.time()))
    remaining = 0 if current.breached else max(0, current.remaining)
    response.headers["RateLimit"] = f'"{_policy_name(current)}";r={remaining};t={reset_in}'
    if response.status_code == 429 and current.breached:  # refused by this limit, not by a cap
        response.headers["Retry-After"] = str(reset_in)


def _policy_name(limit: RequestLimit) -> str:
    """`create-per-minute`, `read-per-second`: the scope and the window of a limit."""
    scope = limit.request_args[-1] if limit.request_args else "limit"
    item = limit.limit
    window = item.GRANULARITY.name if item.multiples == 1 else f"{item.multiples}-{item.GRANULARITY.name}s"
    return f"{READ_POLICY if scope == 'global' else scope}-per-{window}"


def _not_refused(response: Response) -> bool:
    """Whether an answer counts against its limit: everything but a refusal for too many."""
    return response.status_code != 429


def _setting(name: str) -> Callable[[], str]:
    return lambda: current_app.config[name]


def _not_a_read() -> bool:
    """Only GETs under /v1 count as reads (health, metrics and the documents are free)."""
    return request.method not in ("GET", "HEAD") or not request.path.startswith("/v1/")


def channel_move_budget(match_id: str, seat: int | None) -> Callable[[], bool]:
    """The check of a WebSocket channel's move budget (True while under it): RATE_LIMIT_MOVE, counted
    together with the seat token's POSTed moves when the channel was opened with the token, per
    match and seat when with a ticket."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    limiter = app.extensions.get(LIMITER)
    if limiter is None or not limiter.enabled:
        return lambda: True
    key = seat_or_address() if "Authorization" in request.headers else f"seat:{match_id}:{seat}"
    items = parse_many(app.config["RATE_LIMIT_MOVE"])
    strategy = limiter.limiter

    def allow() -> bool:
        return all([strategy.hit(item, "coven", key, "move") for item in items])  # every window counts

    return allow
