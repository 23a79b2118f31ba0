"""`make strength`'s head-to-head rows, each with when, at which commit and on what it was played.

`tests/test_strength.py` records every check it plays in `bench/results/strength.json` when
`STRENGTH_RESULTS` names that file (`make strength` does), one row per check, replaced when the
check is played again; the docs' strength page renders them (`bench.tables.strength_table`).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ai.arena import MatchResult
from bench.search import provenance


def measured(result: MatchResult) -> dict[str, Any]:
    """What a played match's row says of its result and run, in every results file of matches: the
    score's rate and 95% interval, a's CPU a move, and when, at which commit and on what it ran."""
    low, high = result.interval()
    return {
        "rate": round(result.rate, 4), "low": round(low, 4), "high": round(high, 4),
        "seconds_a_per_move": round(result.seconds_per_move(), 4),
        "date": datetime.now(UTC).isoformat(timespec="seconds"), **provenance(),
    }


def row(game: str, a: str, b: str, result: MatchResult, seed: str, target: str, met: bool,
        note: str = "") -> dict[str, Any]:
    """One check as the results file keeps it: the match, its score and interval, its target (and
    what else the check measured, in `note`)."""
    return {
        "game": game, "a": a, "b": b, "games": result.games, "seed": seed,
        "wins": result.wins, "ties": result.ties, "losses": result.losses,
        "target": target, "met": met, "note": note, **measured(result),
    }


def record(path: Path, key: str, fields: dict[str, Any]) -> None:
    """Put the row `key` into the results file at `path`, keeping every other row."""
    report = json.loads(path.read_text()) if path.exists() else {"rows": {}}
    report["rows"][key] = fields
    report["rows"] = dict(sorted(report["rows"].items()))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")
