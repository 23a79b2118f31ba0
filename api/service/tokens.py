"""Seat tokens: 256 random bits handed out once, stored only as their SHA-256."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from api.service.errors import Unauthorized
from api.store.records import MatchRecord


def new_token() -> str:
    """A fresh 256-bit seat token, URL-safe."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The SHA-256 under which a seat token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of_token(record: MatchRecord, token: str | None) -> int | None:
    """The seat whose token this is; None without a token; Unauthorized for a wrong one."""
    if token is None:
        return None
    digest = hash_token(token)
    found = None
    for index, seat in enumerate(record.seats):  # every seat compared: no timing hint
        if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
            found = index
    if found is None:
        raise Unauthorized("this token holds no seat of this match")
    return found
