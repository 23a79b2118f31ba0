"""`flask --app wsgi sweep-bots`: look after the turns that are due — recover bot turns nobody's
view or wait would recover, and play for the seats whose turn clock ran out.

The Procfile runs it as the `sweeper` process. It reads the due set (`api.store.bot_queue`): bot turns
by when they should have news, clocked human turns by their deadline. It sleeps until the
next entry is due, or `BOT_SWEEP_SECONDS` at most. Running several is harmless: a turn is
queued once per version, re-enqueued under a lock, and only when its job is missing, failed
or silent past its budget.
"""

from __future__ import annotations

import logging
import time

import click
from flask import current_app
from flask.cli import with_appcontext
from redis.exceptions import RedisError

from api.runtime.logs import REDIS_OUTAGE
from api.runtime.probe import HEARTBEAT_FILE  # its age is the sweeper's health check

log = logging.getLogger("coven.sweeper")

#: How often the sweeper takes dead workers out of RQ's registry.
WORKER_CLEAN_SECONDS = 10.0
#: The sweeper never naps shorter than this, however close the next due turn.
MIN_NAP_SECONDS = 0.05


@click.command("sweep-bots")
@click.option("--once", is_flag=True, help="Sweep once and exit (non-zero when Redis fails).")
@with_appcontext
def sweep_bots_command(once: bool) -> None:
    """Queue the turns that are due: lost or dead bot turns, and seats out of time."""
    service = current_app.extensions["coven"]
    cleaned = 0.0
    while True:
        nap = service.config.BOT_SWEEP_SECONDS
        try:
            recovered = service.sweep_bots()
            next_due = service.store.next_due()
            if time.monotonic() - cleaned >= WORKER_CLEAN_SECONDS:
                service.bots.forget_dead_workers()
                cleaned = time.monotonic()
        except RedisError as error:
            if once:
                raise click.ClickException(str(error)) from error
            REDIS_OUTAGE.lost(error)  # Redis restarting: the next round retries
        else:
            REDIS_OUTAGE.back()
            HEARTBEAT_FILE.touch()
            if once:
                click.echo(f"sweep-bots: re-enqueued {recovered} bot turn(s)")
            elif recovered:
                log.info("re-enqueued %d bot turn(s)", recovered)
            if next_due is not None:
                nap = min(nap, max(MIN_NAP_SECONDS, next_due - time.time()))
        if once:
            return
        time.sleep(nap)
