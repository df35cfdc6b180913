"""``flask groups managers ...``: who manages a group, named by operators.

Managers by membership of another group come from ``GROUP_MANAGER_GROUPS`` at each login;
``list`` shows both kinds.
"""

import click
from flask import current_app
from flask.cli import AppGroup

from app.auth import managers
from app.auth.groups import normalise_group, normalise_groups
from app.auth.models import User
from app.text import one_line_option

groups_cli = AppGroup("groups", help="Manage groups: who manages them.")
managers_cli = AppGroup("managers", help="Name or remove the managers of a group.")
groups_cli.add_command(managers_cli)


def _group(name: str) -> str:
    group = normalise_group(name)
    if not group:
        raise click.ClickException("Give a group name.")
    return group


def _person(username: str, provider: str | None) -> User:
    """The one account named ``username`` (of ``provider`` when given); ClickException if
    there is none or several."""
    found = managers.people_named(username, provider)
    if not found:
        raise click.ClickException(f"No user named {username!r}.")
    if len(found) > 1:
        providers = ", ".join(sorted(user.provider for user in found))
        raise click.ClickException(
            f"Several accounts are named {username!r} ({providers}): say which with --provider."
        )
    return found[0]


_provider = click.option("--provider", default=None, help="The account's login provider.")


@managers_cli.command("add")
@click.argument("group", callback=one_line_option("GROUP"))
@click.argument("username")
@_provider
def add(group, username, provider):
    """Name USERNAME a manager of GROUP."""
    group, user = _group(group), _person(username, provider)
    if managers.name_manager(group, user, named_by="cli"):
        click.echo(f"{username} now manages {group}.")
    else:
        click.echo(f"{username} already managed {group}.")


@managers_cli.command("remove")
@click.argument("group")
@click.argument("username")
@_provider
def remove(group, username, provider):
    """Stop USERNAME being a named manager of GROUP."""
    group, user = _group(group), _person(username, provider)
    if managers.remove_manager(group, user):
        click.echo(f"{username} no longer manages {group} by name.")
    else:
        click.echo(f"{username} was not named a manager of {group}.")
    if group in (user.managed_by_membership or ()):
        click.echo(f"{username} still manages {group} by membership (GROUP_MANAGER_GROUPS).")


@managers_cli.command("list")
@click.argument("group", required=False)
def list_managers(group):
    """List the managers of GROUP (of every group without one): named, and by membership."""
    group = _group(group) if group is not None else None
    mapping = current_app.config["GROUP_MANAGER_GROUPS"] or {}
    rows = [
        (row.group_name, row.user.username, row.user.provider, f"named by {row.named_by}")
        for row in managers.named_managers(group)
    ]
    groups = [group] if group is not None else normalise_groups(mapping)
    for name in groups:
        rows += [
            (name, user.username, user.provider, "by membership")
            for user in managers.managers_by_membership(name)
        ]
    click.echo(f"{'GROUP':24} {'USERNAME':24} {'PROVIDER':10} HOW")
    for name, username, provider, how in sorted(rows):
        click.echo(f"{name:24} {username:24} {provider:10} {how}")
    for name in groups:
        managing = normalise_groups(
            by for key, bys in mapping.items() if normalise_group(key) == name for by in bys
        )
        if managing:
            click.echo(f"Members of {', '.join(managing)} manage {name} (GROUP_MANAGER_GROUPS).")
    if not rows and group is not None:
        click.echo(f"{group} has no managers.")
