"""``flask lines``: list the lines, move or remove a request (``flask lines admit``, the
admission pass, is the launch's: ``app.launch.cli``)."""

from __future__ import annotations

import click
from flask.cli import with_appcontext
from werkzeug.exceptions import NotFound

from app.auth.models import User
from app.errors import PortalError
from app.extensions import db
from app.lines import listing, operations


@click.group("lines", help="Requests waiting in line for resources held now.")
def lines_cli() -> None:
    pass


@lines_cli.command("list")
@with_appcontext
def list_command() -> None:
    """Every line, its requests in order."""
    shown = listing.every_line()
    if not shown:
        click.echo("No request waits in line.")
    for line in shown:
        click.echo(f"{line.key} ({line.words})")
        for entry, owner, place in line.entries:
            click.echo(
                f"  {place.position:>4}  #{entry.deployment_id}  {owner}  {entry.enqueued_at}"
            )


def _steering(name: str, deployment_id: int):
    """The person named by ``--as`` and the request, if they may move or remove it (an
    operator any, a group's manager those charged to their group)."""
    user = db.session.scalar(db.select(User).where(User.username == name))
    if user is None:
        raise click.ClickException(f"There is no user {name!r}.")
    try:
        return user, listing.steerable(user, deployment_id)
    except NotFound as error:
        raise click.ClickException(
            f"{name} may not move or remove request {deployment_id}, or it does not exist."
        ) from error


@lines_cli.command("move")
@click.argument("deployment_id", type=int)
@click.argument("place", type=int)
@click.option("--reason", required=True, help="Why; the owner is told.")
@click.option(
    "--as",
    "actor",
    required=True,
    help="Who acts, for the record: an operator, or a manager of the request's group.",
)
@with_appcontext
def move_command(deployment_id: int, place: int, reason: str, actor: str) -> None:
    """Move a waiting request to PLACE (1 = first) in its line."""
    try:
        moved = operations.move(*_steering(actor, deployment_id), place, reason)
    except PortalError as error:
        raise click.ClickException(error.message) from error
    click.echo(f"Request {deployment_id} is now at place {moved}.")


@lines_cli.command("remove")
@click.argument("deployment_id", type=int)
@click.option("--reason", required=True, help="Why; the owner is told.")
@click.option(
    "--as",
    "actor",
    required=True,
    help="Who acts, for the record: an operator, or a manager of the request's group.",
)
@with_appcontext
def remove_command(deployment_id: int, reason: str, actor: str) -> None:
    """Remove a waiting request from its line (nothing is launched)."""
    try:
        operations.remove(*_steering(actor, deployment_id), reason)
    except PortalError as error:
        raise click.ClickException(error.message) from error
    click.echo(f"Request {deployment_id} was removed from its line.")
