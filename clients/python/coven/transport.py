"""When and how long to wait before retrying a request: server back-off first, then exponential.

Every POST carries an `Idempotency-Key` (the same on each retry), so a retry after a lost answer
never plays a move twice. `Retry-After`, then `RateLimit` (`r=0;t=N`: nothing left for N
seconds) say how long to wait; otherwise the wait doubles from `base` up to `cap`.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

import httpx

#: Statuses worth retrying: rate limited, or the server (or a proxy before it) briefly unavailable.
RETRIED = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a request that may succeed later."""

    attempts: int = 6
    base: float = 0.25
    cap: float = 30.0

    def delay(self, attempt: int, response: httpx.Response | None = None) -> float:
        """Seconds to wait before retry number `attempt` (0 for the first)."""
        told = server_backoff(response) if response is not None else None
        if told is not None:
            return min(told, self.cap)
        return min(self.base * 2.0 ** attempt, self.cap)


def server_backoff(response: httpx.Response) -> float | None:
    """What the server asks a client to wait: `Retry-After` seconds, or the `t` of an exhausted `RateLimit`."""
    retry_after = response.headers.get("Retry-After")
    if retry_after and retry_after.strip().isdigit():
        return float(retry_after)
    limit = response.headers.get("RateLimit")
    if limit:
        remaining = re.search(r"\br=(\d+)", limit)
        reset = re.search(r"\bt=(\d+)", limit)
        if remaining and reset and int(remaining.group(1)) == 0:
            return float(reset.group(1))
    return None


def is_retried(response: httpx.Response) -> bool:
    return response.status_code in RETRIED


def new_idempotency_key() -> str:
    return uuid.uuid4().hex
