"""`flask --app wsgi sweep-bots`: recover bot turns nobody's view or wait would recover, and
enforce turn clocks.

The Procfile runs it as the `sweeper` process: every `CLOCK_SWEEP_SECONDS` it queues the
takeover bot's move of each match whose clock ran out (the due set, by Redis time), and
every `BOT_SWEEP_SECONDS` it recovers lost or dead bot turns. Running several is harmless:
a turn is queued once per version, re-enqueued under a lock, and only when its job is
missing, failed or silent past its budget.
"""

from __future__ import annotations

import time

import click
from flask import current_app
from flask.cli import with_appcontext
from redis.exceptions import RedisError


@click.command("sweep-bots")
@click.option("--once", is_flag=True, help="Sweep once and exit (non-zero when Redis fails).")
@with_appcontext
def sweep_bots_command(once: bool) -> None:
    """Queue moves for seats out of time, and re-enqueue lost or dead bot turns."""
    service = current_app.extensions["coven"]
    next_bot_sweep = 0.0
    while True:
        try:
            timed_out = service.sweep_clocks()
            if timed_out:
                click.echo(f"sweep-bots: queued {timed_out} move(s) for seats out of time")
            if time.monotonic() >= next_bot_sweep:
                recovered = service.sweep_bots()
                next_bot_sweep = time.monotonic() + service.config.BOT_SWEEP_SECONDS
                if recovered or once:
                    click.echo(f"sweep-bots: re-enqueued {recovered} bot turn(s)")
        except RedisError as error:
            if once:
                raise click.ClickException(str(error)) from error
            click.echo(f"sweep-bots: {error}", err=True)  # Redis restarting: the next round retries
        if once:
            return
        time.sleep(service.config.CLOCK_SWEEP_SECONDS)
