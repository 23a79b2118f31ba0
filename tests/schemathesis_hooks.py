"""Schemathesis hooks (loaded by the CLI through SCHEMATHESIS_HOOKS): point path parameters at
real matches and send their seat token, so the checks reach past 404 and 401.

COVEN_MATCHES (JSON) lists `{"id", "token"}` of a few live matches; COVEN_API is the server.
Joins get a fresh waiting match each, since a join fills the seat it takes.
"""

from __future__ import annotations

import json
import os
import urllib.request
import zlib

import schemathesis

MATCHES = json.loads(os.environ.get("COVEN_MATCHES", "[]"))
BY_ID = {match["id"]: match for match in MATCHES}


def _fresh_waiting_match() -> dict:
    body = json.dumps({"game": "cube", "seats": [{"type": "human"}, {"type": "human"}]}).encode()
    request = urllib.request.Request(os.environ["COVEN_API"] + "/v1/matches", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def real_match(generated: str) -> dict | None:
    """The live match standing for a generated match id (the same one every time, whichever hook
    asks first); None for one in ten ids, kept as generated to see the 404s."""
    if generated in BY_ID:
        return BY_ID[generated]
    digest = zlib.crc32(generated.encode("utf-8", "surrogatepass"))
    return None if digest % 10 == 0 else MATCHES[digest % len(MATCHES)]


@schemathesis.hook
def map_case(context: schemathesis.HookContext, case: schemathesis.Case) -> schemathesis.Case:
    """Most cases name a live match; a join gets a fresh one to take a seat in."""
    generated = (case.path_parameters or {}).get("match_id")
    if not isinstance(generated, str):
        return case
    if case.operation.path.endswith("/join"):
        case.path_parameters["match_id"] = _fresh_waiting_match()["id"]
    elif (match := real_match(generated)) is not None:
        case.path_parameters["match_id"] = match["id"]
    return case


@schemathesis.auth(refresh_interval=None)
class SeatToken:
    """The seat token of the match a case names (schemathesis leaves it out where a check wants
    the request without credentials)."""

    def get(self, case: schemathesis.Case, context: schemathesis.AuthContext) -> dict[str, dict]:
        return BY_ID

    def set(self, case: schemathesis.Case, data: dict[str, dict], context: schemathesis.AuthContext) -> None:
        generated = (case.path_parameters or {}).get("match_id")
        match = real_match(generated) if isinstance(generated, str) else None
        if match is not None:
            case.path_parameters["match_id"] = match["id"]
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {match['token']}"}
