"""``flask backends``: what the portal can say of the places it deploys to."""

from __future__ import annotations

import sys

import click
from flask.cli import AppGroup

from app.backends import registry

backends_cli = AppGroup("backends", help="The places deployments are made.")


@backends_cli.command("check")
def check() -> None:
    """Say whether each configured backend answers, and as whom the portal calls it. Exits
    with status 1 when a configured backend does not answer."""
    failed = False
    for name in registry.NAMES:
        try:
            answers, who, said = registry.kind(name).check()
        except ValueError as error:
            click.echo(f"{name:5} {registry.label(name)}: not configured ({error})")
            continue
        failed |= not answers
        verdict = "answers" if answers else "does not answer"
        click.echo(f"{name:5} {registry.label(name)}: {verdict}, calling as {who}: {said}")
    if failed:
        sys.exit(1)
