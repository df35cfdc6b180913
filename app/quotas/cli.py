"""``flask quota ...``: show and set limits from the command line (every change recorded)."""

from __future__ import annotations

import click
from flask.cli import AppGroup
from sqlalchemy import select

from app.auth.models import User
from app.extensions import db
from app.published import published
from app.quotas.editing import check_model, describe_limits, parse_limit, set_limits
from app.quotas.errors import InvalidLimit
from app.quotas.fit import RESOURCES, assess
from app.quotas.limits import limits_for
from app.quotas.models import GROUP, MEMBER, SITE, USER
from app.quotas.usage import holders_of, usage_of
from app.text import one_line_option

quota_cli = AppGroup("quota", help="Show and set quota limits.")


def _find_user(username: str, provider: str | None) -> User:
    query = select(User).where(User.username == username)
    if provider:
        query = query.where(User.provider == provider)
    found = db.session.scalars(query.order_by(User.provider)).all()
    if not found:
        where = f" from {provider}" if provider else ""
        raise click.ClickException(f"No user named {username!r}{where}.")
    if len(found) > 1:
        providers = ", ".join(user.provider for user in found)
        raise click.ClickException(
            f"Several users are named {username!r} (providers: {providers}); add --provider."
        )
    return found[0]


@quota_cli.command("show")
@click.argument("username")
@click.option("--provider", help="The user's identity provider (local, ldap, an OIDC name).")
def show(username: str, provider: str | None) -> None:
    """Limits in force for USERNAME, what they hold, and which deployments hold it."""
    user = _find_user(username, provider)
    limits = limits_for(user)
    used = usage_of(user_id=user.id, models=limits.gpu_models)
    assessment = assess(None, limits, used, {"gpu_models": {}}, list, show_unlimited=True)
    click.echo(f"{user.username} ({user.provider}), groups: {', '.join(user.groups or []) or '-'}")
    labels = dict(RESOURCES)
    for bar in assessment.bars:
        label = str(bar.label if bar.model else labels[bar.key])
        limit = "unlimited" if bar.limit is None else bar.text(bar.limit)
        source = limits.sources.get(f"gpu:{bar.model}" if bar.model else bar.key, "not set")
        click.echo(f"  {label:<16} {bar.text(bar.used):>14} held of {limit:<14} ({source})")
    holders = holders_of(user_id=user.id)
    click.echo(f"Held by {len(holders)} deployment{'s' if len(holders) != 1 else ''}:")
    for holder in holders:
        group = f", group {holder.group_name}" if holder.group_name else ""
        summary = holder.charge.get("summary") or "nothing counted"
        click.echo(f"  #{holder.id} {holder.name} [{published(holder.status)}{group}] {summary}")


def _changes(values: dict, models: tuple[str, ...]) -> dict:
    changes = {}
    for key, text in values.items():
        if text is not None:
            changes[key] = parse_limit(key, text)
    per_model = {}
    for item in models:
        if "=" not in item:
            raise InvalidLimit(f"--gpu-model takes MODEL=N, got {item!r}.")
        name, text = item.split("=", 1)
        model = check_model(name)
        per_model[model] = parse_limit(model, text)
    if per_model:
        changes["gpu_models"] = per_model
    return changes


@quota_cli.command("set")
@click.option("--user", "username", help="Set USERNAME's own limits.")
@click.option("--provider", help="With --user: the user's identity provider.")
@click.option(
    "--group",
    callback=one_line_option("--group"),
    help="Set the default limits of each member of GROUP.",
)
@click.option(
    "--group-pool",
    callback=one_line_option("--group-pool"),
    help="Set the limits of GROUP-POOL's shared pool.",
)
@click.option("--site", is_flag=True, help="Set the site default.")
@click.option("--cores", help="CPU cores, or 'unlimited'; '' clears.")
@click.option("--gpus", help="GPUs of any model, or 'unlimited'; '' clears.")
@click.option(
    "--gpu-model",
    "gpu_models",
    multiple=True,
    metavar="MODEL=N",
    help="GPUs of one model (repeatable); N may be 'unlimited', '' clears.",
)
@click.option("--memory", help="A size such as '64 GB', or 'unlimited'; '' clears.")
@click.option("--disk", help="A size such as '1 TB', or 'unlimited'; '' clears.")
@click.option("--deployments", help="Deployments at once, or 'unlimited'; '' clears.")
@click.option(
    "--reason",
    required=True,
    callback=one_line_option("--reason"),
    help="Why: kept in the history.",
)
def set_command(
    username,
    provider,
    group,
    group_pool,
    site,
    cores,
    gpus,
    gpu_models,
    memory,
    disk,
    deployments,
    reason,
) -> None:
    """Change limits of a user, a group's members, a group's pool, or the site."""
    targets = [bool(username), bool(group), bool(group_pool), bool(site)]
    if sum(targets) != 1:
        raise click.UsageError("Give exactly one of --user, --group, --group-pool or --site.")
    if provider and not username:
        raise click.UsageError("--provider goes with --user.")
    values = {
        "cores": cores,
        "gpus": gpus,
        "memory": memory,
        "disk": disk,
        "deployments": deployments,
    }
    try:
        changes = _changes(values, gpu_models)
        if not changes:
            raise click.UsageError("Give at least one limit to set.")
        if username:
            scope, subject = USER, str(_find_user(username, provider).id)
        elif group:
            scope, subject = MEMBER, group
        elif group_pool:
            scope, subject = GROUP, group_pool
        else:
            scope, subject = SITE, ""
        change = set_limits(None, scope, subject, changes, reason)
    except InvalidLimit as error:
        raise click.ClickException(error.message) from None
    if change is None:
        click.echo("Nothing changed.")
    else:
        click.echo(f"{describe_limits(change.old)} -> {describe_limits(change.new)}")


__all__ = ["quota_cli"]


# ``flask quota budget ...`` lives in a module of its own and registers on ``quota_cli``.
from app.quotas import budget_cli as _budget_cli  # noqa: E402, F401
