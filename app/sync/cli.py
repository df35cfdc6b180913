"""``flask deployments ...``: the sync worker."""

import click
from flask.cli import AppGroup

from app.sync.passes import other_passes, sync_loop, sync_once

deployments_cli = AppGroup("deployments", help="Keep deployments in step with the orchestrator.")


@deployments_cli.command("sync")
@click.option("--loop", is_flag=True, help="Keep running passes until stopped (SIGTERM/SIGINT).")
def sync_command(loop: bool) -> None:
    """Poll deployments in progress, adopt ones made elsewhere, settle unconfirmed launches."""
    if loop:
        sync_loop()
        return
    click.echo(sync_once().summary())
    for name, outcome in other_passes().items():
        click.echo(f"{name}: {outcome}")
