"""``flask lines admit``: one admission pass, which starts requests from the line (the command
stands with the line's others in ``flask lines``)."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from app.launch import admission
from app.lines.cli import lines_cli


@lines_cli.command("admit")
@with_appcontext
def admit_command() -> None:
    """Run one admission pass (the sync worker runs it after each of its passes)."""
    click.echo(str(admission.admit_once()))
