"""``flask leases ...``: show and set lease policies (every change recorded), run one expiry
pass."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from app.leases.editing import UNSET, all_policies, parse_field, set_policy
from app.leases.errors import InvalidPolicy
from app.leases.expiry import expire_once
from app.leases.policy import BY_KEY, FIELDS, describe, level_label, resolve, stored_levels
from app.text import one_line_option

leases_cli = AppGroup("leases", help="Show and set lease policies; end leases that are due.")

# The command line's option for each field: --max-initial for max_initial, and so on.
_OPTIONS = {f.key: "--" + f.key.replace("_", "-") for f in FIELDS if f.key != "no_expiry"}


@leases_cli.command("show")
@click.option("--template", "slug", help="The policy in force for this template.")
@click.option("--group", help="The policy in force for this group.")
def show(slug: str | None, group: str | None) -> None:
    """The policy in force (each field and the level that sets it), and every level set."""
    policy = resolve(slug, group)
    click.echo(f"In force for {level_label(slug or '', group or '')}:")
    if not policy.values:
        click.echo("  nothing set: deployments do not expire")
    for spec in FIELDS:
        if spec.key in policy.values:
            value = describe({spec.key: policy.values[spec.key]}).split(" ", 1)[1]
            click.echo(
                f"  {spec.key.replace('_', '-'):<15} {value:<12} ({policy.sources[spec.key]})"
            )
    click.echo("  expires: " + ("yes" if policy.expires else "no"))
    rows = all_policies()
    if rows and not (slug or group):
        click.echo("Levels set:")
        for row in rows:
            click.echo(
                f"  {level_label(row.template_slug, row.group_name)}: {describe(row.values)}"
            )


def _options(function):
    for key, option in reversed(_OPTIONS.items()):
        function = click.option(option, key, metavar="TEXT", help=str(BY_KEY[key].help))(function)
    return function


@leases_cli.command("set")
@click.option("--site", is_flag=True, help="Set the site's policy.")
@click.option(
    "--group",
    callback=one_line_option("--group"),
    help="Set group G's policy (with --template: the template in G).",
)
@click.option("--template", "slug", help="Set template SLUG's policy.")
@_options
@click.option("--no-expiry", is_flag=True, help="Deployments here never expire.")
@click.option(
    "--unset",
    multiple=True,
    metavar="FIELD",
    help="Let the next level decide FIELD again (e.g. --unset cap --unset no-expiry).",
)
@click.option(
    "--if-unset",
    is_flag=True,
    help="Leave the level alone if anything is set there already (for set-up scripts).",
)
@click.option(
    "--reason",
    required=True,
    callback=one_line_option("--reason"),
    help="Why: kept in the history.",
)
def set_command(site, group, slug, no_expiry, unset, if_unset, reason, **values) -> None:
    """Set fields of one level's policy; durations like 90m, 8h, 3d, lists like 24h,1h."""
    if site == bool(group or slug):
        raise click.UsageError(
            "Give exactly one of --site, --group G, --template SLUG [--group G]."
        )
    label = level_label(slug or "", group or "")
    if if_unset and stored_levels(slug, group).get((slug or "", group or "")):
        click.echo(f"Policy of {label} already set; left as it is.")
        return
    try:
        changes = {key: parse_field(key, text) for key, text in values.items() if text is not None}
        if no_expiry:
            changes["no_expiry"] = True
        for name in unset:
            key = name.replace("-", "_")
            if key not in BY_KEY:
                raise InvalidPolicy(f"--unset: there is no field {name!r}.")
            changes[key] = UNSET
        if not changes:
            raise click.UsageError("Name at least one field to set or --unset.")
        change = set_policy(None, slug, group, changes, reason)
    except InvalidPolicy as error:
        raise click.ClickException(error.message) from None
    if change is None:
        click.echo(f"Policy of {label} unchanged.")
    else:
        click.echo(f"Policy of {label}: {describe(change.new)}.")


@leases_cli.command("expire")
def expire() -> None:
    """One expiry pass: warnings, ends, and deletes that are due (the sync worker runs it)."""
    click.echo(expire_once().summary())
