"""``flask users ...``: manage local accounts and role grants from the command line."""

import os
import secrets

import click
from flask.cli import AppGroup
from sqlalchemy import select

from app import actors
from app.auth import local
from app.auth.errors import (
    AccountExists,
    EmailNotEditable,
    GroupsNotEditable,
    InvalidEmail,
    InvalidGroupName,
    PasswordRefused,
)
from app.auth.models import User
from app.auth.operations import (
    change_local_groups,
    create_local_account,
    end_all_sessions,
    grant_role,
    revoke_role,
    set_active,
    set_email,
)
from app.auth.passwords import check_new_password
from app.auth.roles import GRANTABLE_ROLES
from app.extensions import db
from app.locks import one_host_at_a_time
from app.text import one_line_option

users_cli = AppGroup("users", help="Manage accounts and roles.")


def _generate_password() -> str:
    return secrets.token_urlsafe(12)


def _password_from(variable: str | None) -> str:
    """The password in environment ``variable`` (empty when unset), if the rule for local
    passwords accepts it; raises ClickException saying what the rule wants otherwise."""
    given = os.environ.get(variable, "") if variable else ""
    if given:
        try:
            check_new_password(given)
        except PasswordRefused as error:
            raise click.ClickException(f"${variable}: {error.message}") from None
    return given


def _find(username: str, provider: str) -> User:
    user = db.session.scalar(
        select(User).where(User.provider == provider, User.username == username)
    )
    if user is None:
        raise click.ClickException(f"No {provider} user named {username!r}.")
    return user


def create_local_user(
    username: str, password: str, display_name: str = "", email: str = ""
) -> User:
    """Create a local account; raises ClickException if the name is taken or the address
    could not be one."""
    try:
        return create_local_account(username, password, display_name, email)
    except (AccountExists, InvalidEmail) as error:
        raise click.ClickException(error.message) from None


@users_cli.command("create")
@click.argument("username", callback=one_line_option("USERNAME"))
@click.option(
    "--name",
    "display_name",
    default="",
    callback=one_line_option("--name"),
    help="Full name shown in the portal.",
)
@click.option("--email", default="", callback=one_line_option("--email"))
@click.option("--role", type=click.Choice(GRANTABLE_ROLES), multiple=True, help="Grant a role.")
@click.option(
    "--password-env",
    metavar="VAR",
    help="Take the password from this environment variable instead of generating one.",
)
def create(username, display_name, email, role, password_env):
    """Create a local account and print its password once."""
    given = _password_from(password_env)
    password = given or _generate_password()
    user = create_local_user(username, password, display_name, email)
    for r in role:
        grant_role(user, r, granted_by=actors.COMMAND_LINE)
    if not given:
        click.echo(f"Created {username}; password (shown once): {password}")
    else:
        click.echo(f"Created {username} with the password from ${password_env}.")


@users_cli.command("email")
@click.argument("username")
@click.argument("address")
def email(username, address):
    """Give local account USERNAME the e-mail ADDRESS its notices go to ("" removes it)."""
    user = _find(username, local.PROVIDER)
    try:
        kept = set_email(user, address)
    except (EmailNotEditable, InvalidEmail) as error:
        raise click.ClickException(error.message) from None
    click.echo(
        f"Notices for {username} now go to {kept}."
        if kept
        else f"{username} has no e-mail address now."
    )


@users_cli.command("reset-password")
@click.argument("username")
@click.option("--password-env", metavar="VAR", help="Take the new password from this variable.")
def reset_password(username, password_env):
    """Give a local account a new password and log out its sessions."""
    user = _find(username, local.PROVIDER)
    given = _password_from(password_env)
    password = given or _generate_password()
    user.password_hash = local.hash_password(password)
    end_all_sessions(user)
    if given:
        click.echo(f"Password of {username} reset from ${password_env}.")
    else:
        click.echo(f"New password for {username} (shown once): {password}")


@users_cli.command("grant")
@click.argument("username")
@click.argument("role", type=click.Choice(GRANTABLE_ROLES))
@click.option("--provider", default=local.PROVIDER, show_default=True)
def grant(username, role, provider):
    """Give a user a role on top of those their groups confer."""
    user = _find(username, provider)
    if grant_role(user, role, granted_by=actors.COMMAND_LINE):
        click.echo(f"{username} is now {role}.")
    else:
        click.echo(f"{username} already had the {role} grant.")


@users_cli.command("revoke")
@click.argument("username")
@click.argument("role", type=click.Choice(GRANTABLE_ROLES))
@click.option("--provider", default=local.PROVIDER, show_default=True)
def revoke(username, role, provider):
    """Take back a granted role (roles from groups follow the groups)."""
    user = _find(username, provider)
    if revoke_role(user, role):
        click.echo(f"{username} is no longer {role} by grant.")
    else:
        click.echo(f"{username} had no {role} grant.")


@users_cli.command("disable")
@click.argument("username")
@click.option("--provider", default=local.PROVIDER, show_default=True)
def disable(username, provider):
    """Stop a user from logging in, and end their sessions."""
    set_active(_find(username, provider), False)
    click.echo(f"{username} can no longer log in.")


@users_cli.command("enable")
@click.argument("username")
@click.option("--provider", default=local.PROVIDER, show_default=True)
def enable(username, provider):
    """Let a disabled user log in again."""
    set_active(_find(username, provider), True)
    click.echo(f"{username} can log in again.")


@users_cli.command("list")
def list_users():
    """List every user with provider, roles and groups."""
    click.echo(f"{'PROVIDER':10} {'USERNAME':24} {'ROLES':22} GROUPS")
    for user in db.session.scalars(select(User).order_by(User.provider, User.username)):
        state = " (disabled)" if not user.active else ""
        roles = ", ".join(sorted(user.roles))
        groups = ", ".join(user.groups or ()) or "-"
        click.echo(f"{user.provider:10} {user.username:24} {roles:22} {groups}{state}")


@users_cli.command("groups")
@click.argument("username")
@click.option(
    "--add",
    "add",
    multiple=True,
    metavar="GROUP",
    callback=one_line_option("--add"),
    help="Put the user in a group.",
)
@click.option("--remove", "remove", multiple=True, metavar="GROUP", help="Take them out of one.")
def groups(username, add, remove):
    """Show or change the groups of a local account.

    Groups of local accounts work as LDAP and OIDC groups do: they decide which templates the
    account sees, its roles (ROLE_GROUPS), and the group quotas it may charge.
    """
    user = _find(username, local.PROVIDER)
    try:
        names = change_local_groups(user, add=add, remove=remove) if add or remove else user.groups
    except (GroupsNotEditable, InvalidGroupName) as error:
        raise click.ClickException(error.message) from None
    click.echo(f"{username} is in: {', '.join(names) if names else 'no group'}")


@users_cli.command("bootstrap")
def bootstrap():
    """Create the first local admin and researcher unless they exist.

    Passwords come from PORTAL_ADMIN_PASSWORD and PORTAL_RESEARCHER_PASSWORD, or are generated
    and printed once.
    """
    with one_host_at_a_time("users bootstrap"):
        _bootstrap_accounts()


def _bootstrap_accounts() -> None:
    for username, display_name, env, roles in (
        ("admin", "Portal administrator", "PORTAL_ADMIN_PASSWORD", ("admin",)),
        ("researcher", "Demo researcher", "PORTAL_RESEARCHER_PASSWORD", ()),
    ):
        if local.find_local_user(username):
            click.echo(
                f"Local account {username!r} exists already "
                f"(new password: flask users reset-password {username})."
            )
            continue
        given = _password_from(env)
        password = given or _generate_password()
        user = create_local_user(username, password, display_name)
        for role in roles:
            grant_role(user, role, granted_by=actors.SETUP)
        if given:
            click.echo(f"Created local account {username!r} with the password from ${env}.")
        else:
            click.echo(f"Created local account {username!r}; password (shown once): {password}")
