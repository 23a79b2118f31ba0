"""`flask --app wsgi sweep-bots`: recover bot turns that nobody's view or wait would recover.

The Procfile runs it as the `sweeper` process, every `BOT_SWEEP_SECONDS`. Running
several is harmless: a turn is re-enqueued under a lock, and only when its job is
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
    """Re-enqueue every active match's lost or dead bot turn, every BOT_SWEEP_SECONDS."""
    service = current_app.extensions["coven"]
    while True:
        try:
            recovered = service.sweep_bots()
        except RedisError as error:
            if once:
                raise click.ClickException(str(error)) from error
            click.echo(f"sweep-bots: {error}", err=True)  # Redis restarting: the next round retries
        else:
            if recovered or once:
                click.echo(f"sweep-bots: re-enqueued {recovered} bot turn(s)")
        if once:
            return
        time.sleep(service.config.BOT_SWEEP_SECONDS)
