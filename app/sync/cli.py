"""``flask deployments ...``: the sync worker."""

import click
from flask.cli import AppGroup

from app.sync.passes import sync_once
from app.worker import chosen, run_duties, run_pass

deployments_cli = AppGroup("deployments", help="Keep deployments in step with the orchestrator.")

# Duties that had a command of their own before one worker ran them all, and keep it.
_OWN_COMMAND = ("mail",)


@deployments_cli.command("sync")
@click.option("--loop", is_flag=True, help="Keep running passes until stopped (SIGTERM/SIGINT).")
def sync_command(loop: bool) -> None:
    """Poll deployments in progress, adopt ones made elsewhere, settle unconfirmed launches;
    then the other duties' passes (leases, capacity, the line), as ``flask worker`` does
    without its mail."""
    if loop:
        run_duties(chosen(leaving=_OWN_COMMAND))
        return
    click.echo(sync_once().summary())
    for duty in chosen(leaving=("sync", *_OWN_COMMAND)):
        click.echo(f"{duty.name}: {run_pass(duty)}")
