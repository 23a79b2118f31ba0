"""The RQ job that runs one analysis: load the match → search the seat to act's decision → store the top moves.

Enqueued by `api.service.analysis.request` by dotted path on the analysis queue. The search
is the bots' own (`ai.search.search`) with the caller's budget; it samples worlds from
the analysed seat's information only, so the result reveals nothing that seat cannot see.
"""

from __future__ import annotations

import random
import secrets
import time
from typing import Any

from redis import Redis
from rq import get_current_job

from ai.search import search
from api.runtime.config import Config
from api.service import MatchService
from api.service.analysis import TOP_MOVES, AnalysisStatus, finished, load, report
from api.store.connections import match_redis, queue_redis

#: An analysis stops after this many seconds whatever its simulation count.
MAX_SECONDS = 10.0


def run_analysis(match_id: str, analysis_id: str) -> dict[str, Any]:
    """Search the position an analysis was asked for, if the match is still there."""
    config = Config.from_env()
    redis = match_redis(config)
    data = load(redis, match_id, analysis_id)
    if data is None:
        return {"analysis": analysis_id, "status": "expired"}
    try:
        return _analyse(config, redis, match_id, analysis_id, data)
    finally:
        finished(redis, match_id, analysis_id, data.get("address", "unknown"))


def _analyse(config: Config, redis: Any, match_id: str, analysis_id: str, data: dict[str, str]) -> dict[str, Any]:
    service = MatchService(redis, config, _queue_connection(config))
    loaded = service.load(match_id)
    version, seat = int(data["version"]), int(data["seat"])
    if loaded.record.version != version or loaded.to_act != seat:
        report(redis, match_id, analysis_id, AnalysisStatus.STALE)
        return {"analysis": analysis_id, "status": AnalysisStatus.STALE.value}
    report(redis, match_id, analysis_id, AnalysisStatus.RUNNING)
    game = loaded.game
    started = time.perf_counter()
    found = search(game, loaded.state, seat, random.Random(secrets.randbits(64)),
                   iterations=int(data["simulations"]), seconds=MAX_SECONDS, stop_early=False)
    total = sum(found.visits.values()) or 1
    ranked = sorted(found.visits, key=lambda move: (-found.visits[move], -found.values[move]))
    result = {
        "simulations": found.iterations,
        "seconds": round(time.perf_counter() - started, 3),
        "moves": [
            {
                "move": game.move_to_json(move),
                "visits": found.visits[move],
                "share": round(found.visits[move] / total, 4),
                "win_chance": round(found.values[move], 4),
            }
            for move in ranked[:TOP_MOVES]
        ],
    }
    report(redis, match_id, analysis_id, AnalysisStatus.DONE, result)
    return {"analysis": analysis_id, "status": AnalysisStatus.DONE.value}


def _queue_connection(config: Config) -> Redis:
    """The bot queues' Redis (the job's own connection when run by RQ)."""
    job = get_current_job()
    if job is not None:
        return job.connection
    return queue_redis(config)
