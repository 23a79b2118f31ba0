"""The RQ job that plays one bot turn: load → search with the level's budget → apply through the service.

Enqueued by the web side (`api.store.bot_queue`) by dotted path, with job id
`bot-<match>-<version>`. A job whose version is no longer current does nothing,
so a duplicate or late job is harmless. The job claims the turn with a lease it
renews at every progress report; a job that finds the turn claimed by another
worker does nothing, and one that loses its lease while it searches (it froze
past it, and the turn was queued again) is counted as a duplicate search. The
move is applied with compare-and-set, so two workers racing on one turn apply it once.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import time
from typing import Any

from redis import Redis
from rq import get_current_job

from ai.levels import get_level
from ai.play import choose_move
from ai.search import Progress
from api.runtime import metrics
from api.runtime.config import Config
from api.service import MatchService
from api.store.connections import match_redis, queue_redis
from api.store.records import BotStatus
from engine.chance import bot_rng


def play_bot_turn(match_id: str, version: int) -> dict[str, Any]:
    """Play the bot turn at `version` of a match, if it is still that turn."""
    config = Config.from_env()
    service = MatchService(match_redis(config), config, _queue_connection(config))
    turn = service.bot_turn(match_id, version)
    if turn is None or turn.seat is None:
        return {"match": match_id, "version": version, "played": False, "reason": "stale"}
    record, game, seat = turn.record, turn.game, turn.seat
    holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
    if not service.bots.claim(match_id, version, holder):
        return {"match": match_id, "version": version, "played": False, "reason": "claimed"}
    level = get_level(turn.level_of(seat), record.game)
    started = time.time()
    service.report_bot(match_id, version, {"status": BotStatus.THINKING, "iterations": 0, "elapsed": 0.0,
                                           "best_visits": 0, "best_move": "", "started": repr(started)})

    searched = Progress(0, 0.0, None, 0)
    held = True

    def on_progress(progress: Progress) -> None:
        nonlocal searched, held
        searched = progress
        held = held and service.bots.renew(match_id, version, holder)
        best = game.move_to_json(progress.best_move) if progress.best_move is not None else None
        service.report_bot(match_id, version, {
            "status": BotStatus.THINKING,
            "iterations": progress.iterations,
            "elapsed": round(progress.elapsed, 3),
            "best_visits": progress.best_visits,
            "best_move": json.dumps(best) if best is not None else "",
        })

    move = choose_move(game, turn.state.clone(), seat, level, bot_rng(record.seed, version),
                       on_progress=on_progress)
    if not (held and service.bots.renew(match_id, version, holder)):
        metrics.count_duplicate_search(service.redis)
    after = service.play_bot(match_id, version, move)
    seconds = time.time() - started
    metrics.record_bot_turn(service.redis, record.game, level.name, seconds, searched.iterations,
                            searched.elapsed)
    return {
        "match": match_id,
        "version": version,
        "played": after is not None,
        "move": game.move_to_json(move),
        "seconds": round(seconds, 3),
    }


def _queue_connection(config: Config) -> Redis:
    """The bot queues' Redis (the job's own connection when run by RQ)."""
    job = get_current_job()
    if job is not None:
        return job.connection
    return queue_redis(config)
