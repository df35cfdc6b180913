"""``rcp share`` and ``rcp unshare``: who one of your deployments is shared with; ``rcp
take-over``: one shared with you, or in a group you manage, becomes yours once its owner's
account is disabled."""

from __future__ import annotations

from urllib.parse import quote

import click

from app.cli_client.tables import table


def _whom(user: str | None, group: str | None) -> str:
    if bool(user) == bool(group):
        raise click.UsageError("Name one person (--user) or one group (--group).")
    return f"users/{quote(user, safe='')}" if user else f"groups/{quote(group.strip('/'))}"


def _shares_lines(d: dict) -> list[str]:
    rows = [[i["kind"], i["name"], i["role"]] for i in d["items"]]
    if not rows:
        return ["Not shared with anyone."]
    return table(["KIND", "NAME", "ROLE"], rows).splitlines()


def register_share_commands(cli, command, portal_of, print_answer) -> None:
    """Add ``share``, ``unshare`` and ``take-over`` to the ``rcp`` group ``cli``."""

    @cli.command("share")
    @click.argument("deployment_id", type=int)
    @click.option("--user", help="A person's username.")
    @click.option("--group", help="A group you are in.")
    @click.option(
        "--role",
        type=click.Choice(["viewer", "co-owner"]),
        help="viewer sees it; co-owner also extends, deletes, relaunches and reveals secrets.",
    )
    @command
    def share(deployment_id, user, group, role, as_json):
        """Share your deployment with a person or a group; without --user or --group, list
        who it is shared with."""
        portal = portal_of()
        if not user and not group:
            data = portal.get(f"/deployments/{deployment_id}/shares")
        else:
            path = f"/deployments/{deployment_id}/shares/{_whom(user, group)}"
            data = portal.put(path, {"role": role or "viewer"})
        print_answer(data, as_json, lambda d: click.echo("\n".join(_shares_lines(d))))

    @cli.command("unshare")
    @click.argument("deployment_id", type=int)
    @click.option("--user", help="A person's username.")
    @click.option("--group", help="A group.")
    @command
    def unshare(deployment_id, user, group, as_json):
        """Stop sharing your deployment with a person or a group (holds at once)."""
        portal = portal_of()
        portal.delete(f"/deployments/{deployment_id}/shares/{_whom(user, group)}")
        data = portal.get(f"/deployments/{deployment_id}/shares")
        print_answer(data, as_json, lambda d: click.echo("\n".join(_shares_lines(d))))

    @cli.command("take-over")
    @click.argument("deployment_id", type=int)
    @command
    def take_over(deployment_id, as_json):
        """Become the owner of a deployment whose owner's account is disabled (you co-own it,
        manage its group, or are an admin); it is then charged to you, if it fits your quota
        and budget."""
        data = portal_of().post(f"/deployments/{deployment_id}/take-over")

        def human(d):
            group = f" and group {d['group']}" if d.get("group") else ""
            click.echo(f"You own {d['name']} ({d['id']}) now; it is charged to you{group}.")

        print_answer(data, as_json, human)
