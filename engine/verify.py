"""`python -m engine.verify FILE|URL`: check a finished match's whole log against its revealed seed.

FILE is a match log as `GET /v1/matches/{id}/log` returns it once the match is
finished (`-` reads standard input); URL is that log's address or the match's
(`…/log` is then appended). Exit status 0 when the commitment is that of the
seed, game, options and seat count, every entry replays (each chance event is
the one the seed draws, each move legal and made by the seat to act) and the
log reaches the end it claims (all its entries, the game over, the outcome it
states); 1 when not (the first differing entry, the commitment or the end is
named); 2 when the log cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from typing import Any

from engine.errors import EngineError
from engine.fairness import Discrepancy, Ending, LogEntry, check_log
from engine.registry import get_game


def verify(document: dict[str, Any]) -> Discrepancy | None:
    """The first discrepancy of a finished match's log document, or None when it checks out."""
    fairness = document.get("fairness") or {}
    if not fairness.get("seed"):
        raise ValueError("the log reveals no seed: is the match finished?")
    entries = []
    for position, entry in enumerate(document["entries"]):
        if entry["index"] != position:
            return Discrepancy(position, f"numbered {entry['index']}: the entries are out of order or one is missing")
        entries.append(LogEntry(entry["seat"], entry["move"], bool(entry["chance"])))
    return check_log(get_game(document["game"]), int(document["players"]), document.get("options"),
                     fairness["seed"], fairness["commitment"], entries, ending_of(document))


def ending_of(document: dict[str, Any]) -> Ending:
    """The end a log document claims (ValueError when it claims none: not a finished match's log)."""
    status = document.get("status")
    if status not in ("finished", "cancelled") or "length" not in document:
        raise ValueError(f"the log does not say how the match ended (status {status!r}, length)")
    return Ending(status == "finished", tuple(int(seat) for seat in document.get("resigned") or ()),
                  document.get("outcome"), int(document["length"]))


def read_document(source: str) -> dict[str, Any]:
    """The log document named by a path, `-`, or an http(s) URL of the match or of its log."""
    if source.startswith(("http://", "https://")):
        url = source.rstrip("/")
        if not url.endswith("/log"):
            url += "/log"
        request = urllib.request.Request(url, headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - http(s) only
            document = json.load(response)
    elif source == "-":
        document = json.load(sys.stdin)
    else:
        with open(source, encoding="utf-8") as file:
            document = json.load(file)
    if not isinstance(document, dict):
        raise ValueError("a match log is a JSON object")
    return document


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.verify", description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a finished match's log: a file, '-', or the match's URL")
    args = parser.parse_args(argv)
    try:
        document = read_document(args.source)
        found = verify(document)
    except (OSError, ValueError, KeyError, TypeError, EngineError) as error:
        print(f"cannot verify {args.source}: {error}", file=sys.stderr)
        return 2
    if found is not None:
        print(f"MISMATCH at {found}")
        return 1
    count = len(document["entries"])
    print(f"ok: the commitment binds this seed and setup, and all {count} entries replay from it to the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
