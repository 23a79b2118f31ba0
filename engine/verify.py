"""`python -m engine.verify FILE|URL`: check a finished match's chance against its revealed seed.

FILE is a match log as `GET /v1/matches/{id}/log` returns it once the match is
finished (`-` reads standard input); URL is that log's address or the match's
(`…/log` is then appended). Exit status 0 when the seed matches its commitment
and every chance event of the log is the one the seed draws, 1 when not (the
first differing entry is named), 2 when the log cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from typing import Any

from engine.errors import EngineError
from engine.fairness import Discrepancy, check_log
from engine.registry import get_game


def verify(document: dict[str, Any]) -> Discrepancy | None:
    """The first discrepancy of a finished match's log document, or None when it checks out."""
    fairness = document.get("fairness") or {}
    if not fairness.get("seed"):
        raise ValueError("the log reveals no seed: is the match finished?")
    moves = [entry["move"] for entry in sorted(document["entries"], key=lambda entry: entry["index"])]
    return check_log(get_game(document["game"]), int(document["players"]), document.get("options"),
                     fairness["seed"], fairness["commitment"], moves)


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
    print(f"ok: the seed matches its commitment and all {count} entries replay from it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
