"""The ``rcp`` commands. Human tables by default, ``--json`` for scripts.

Exit codes: 0 done; 1 failed (the portal or the orchestrator failed, it could not be reached, or
a deployment waited for with --wait failed or took too long); 2 wrong usage or no settings;
3 refused by the portal (token, scope, invalid values, quota, the line, no site with room,
rate limit; a dry run of a launch that would be refused); 4 not found;
5 not available on this portal.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from functools import wraps

import click
import yaml

from app.cli_client import config
from app.cli_client.api import ApiError, Failed, Portal, Unavailable
from app.cli_client.share_commands import register_share_commands
from app.cli_client.tables import budget_lines, deployment_lines, lease_lines, site_lines, table
from app.text import one_line_option

READY = {"CREATE_COMPLETE", "UPDATE_COMPLETE"}
FAILED = {"CREATE_FAILED", "UPDATE_FAILED", "NOT_LAUNCHED", "VANISHED", "DELETE_FAILED"}
# Answers worth the same request again, with the same Idempotency-Key, after a pause: the key
# is still being answered, or an identical launch (another key's) is still being confirmed. The
# key makes the retry safe: the portal launches once per key whatever happens.
RETRIED_KINDS = {"idempotency-key-in-use", "launch-pending"}
RETRY_SECONDS = 300


def _portal() -> Portal:
    try:
        settings = config.load()
    except config.ConfigError as error:
        click.echo(f"rcp: {error}", err=True)
        sys.exit(2)
    return Portal(settings.url, settings.token)


def command(view):
    """Add --json, and turn API errors into their message and exit code."""

    @click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
    @wraps(view)
    def run(*args, **kwargs):
        try:
            return view(*args, **kwargs)
        except ApiError as error:
            if kwargs.get("as_json"):
                click.echo(json.dumps(error.problem or {"detail": error.message}, indent=2))
            click.echo(f"rcp: {error.message}", err=True)
            sys.exit(error.exit_code)

    return run


def _print(data, as_json: bool, human) -> None:
    if as_json:
        click.echo(json.dumps(data, indent=2, sort_keys=False))
    else:
        human(data)


@click.group(help=__doc__)
@click.version_option(package_name="research-cloud-portal", prog_name="rcp")
def cli():
    pass


@cli.command("templates")
@command
def templates(as_json):
    """The templates you may launch."""
    data = _portal().get("/templates")
    _print(
        data,
        as_json,
        lambda d: click.echo(
            table(
                ["SLUG", "NAME", "REVISION"],
                [[t["slug"], t["name"], t["revision"]] for t in d["items"]],
            )
        ),
    )


@cli.command("template")
@click.argument("slug")
@command
def template(slug, as_json):
    """One template's inputs: names, types, defaults and constraints."""
    data = _portal().get(f"/templates/{slug}")

    def human(d):
        click.echo(f"{d['name']} ({d['slug']}, revision {d['revision']})")
        rows = []
        for item in d["inputs"]:
            notes = [
                n
                for n, on in (
                    ("required", item["required"]),
                    ("secret", item["secret"]),
                    ("generated if omitted", item["generated"]),
                )
                if on
            ]
            default = (
                "" if not item["has_default"] or item["secret"] else json.dumps(item["default"])
            )
            limits = "; ".join(json.dumps(c) for c in item["constraints"])
            rows.append(
                [item["name"], item["type"], default, ", ".join(notes), item["label"], limits]
            )
        click.echo(table(["INPUT", "TYPE", "DEFAULT", "NOTES", "LABEL", "CONSTRAINTS"], rows))

    _print(data, as_json, human)


def _values(pairs, from_file) -> dict:
    values = {}
    if from_file:
        loaded = yaml.safe_load(from_file.read())
        if loaded is not None and not isinstance(loaded, dict):
            raise click.UsageError(
                f"{from_file.name} must hold a mapping of input names to values."
            )
        values.update(loaded or {})
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise click.UsageError(f"--set takes name=value, not {pair!r}.")
        # "4" is a number and "true" a truth value, as in a values file.
        values[name.strip()] = yaml.safe_load(text) if text.strip() else ""
    return values


def _post_retrying(portal: Portal, path: str, body: dict, key: str, **params):
    """POST with ``key``; a request still under way or a lost answer is asked again with the
    same key, so that the portal acts once whatever happens on the way."""
    deadline, lost = time.monotonic() + RETRY_SECONDS, 0
    while True:
        try:
            return portal.post(path, body, key=key, **params)
        except Failed as error:
            lost += 1
            if error.problem or lost > 2:
                raise
        except ApiError as error:
            if error.kind not in RETRIED_KINDS or time.monotonic() > deadline:
                raise
        time.sleep(1)


def _wait(portal: Portal, deployment_id: int, interval: float, timeout: float, gone: bool):
    deadline = time.monotonic() + timeout
    while True:
        try:
            data = portal.get(f"/deployments/{deployment_id}")
        except ApiError as error:
            if gone and error.exit_code == 4:
                return None
            raise
        status = data["status"]
        if not gone and status in READY:
            return data
        if status in FAILED and (not gone or status == "DELETE_FAILED"):
            raise Failed(
                f"Deployment {deployment_id} is {status}: {data.get('status_reason') or ''}".strip()
            )
        if time.monotonic() > deadline:
            raise Failed(f"Deployment {deployment_id} is still {status} after {timeout:.0f} s.")
        time.sleep(interval)


@cli.command("launch")
@click.argument("slug")
@click.option(
    "--name", default="", callback=one_line_option("--name"), help="The deployment's name."
)
@click.option("--set", "pairs", multiple=True, metavar="NAME=VALUE", help="An input value.")
@click.option("--from-file", type=click.File("r"), help="A YAML file of input values.")
@click.option(
    "--group", default=None, callback=one_line_option("--group"), help="The group to charge."
)
@click.option(
    "--site",
    default=None,
    callback=one_line_option("--site"),
    help="The site to deploy at (see --dry-run); default: left to the portal.",
)
@click.option(
    "--dry-run", is_flag=True, help="Only show the cost, whether it fits, and at which sites."
)
@click.option("--wait", is_flag=True, help="Wait until it is ready (or failed).")
@click.option(
    "--wait-in-line",
    is_flag=True,
    help="When what it needs is held or kept for the line, or no site has room, wait in line "
    "(prints its place).",
)
@click.option("--key", default=None, help="Idempotency-Key: the same key never launches twice.")
@click.option("--interval", default=5.0, show_default=True, help="Seconds between checks.")
@click.option("--timeout", default=3600.0, show_default=True, help="Seconds --wait waits.")
@command
def launch(
    slug,
    name,
    pairs,
    from_file,
    group,
    site,
    dry_run,
    wait,
    wait_in_line,
    key,
    interval,
    timeout,
    as_json,
):
    """Launch template SLUG (values from --from-file, then --set)."""
    portal = _portal()
    body = {"template": slug, "name": name, "parameters": _values(pairs, from_file)}
    if group:
        body["group"] = group
    if site:
        body["site"] = site
    if wait_in_line and not dry_run:
        body["wait"] = True
    if dry_run:
        data = portal.post("/deployments", body, dry_run="true")

        def human(d):
            fit = d["fit"]
            click.echo("Fits your quota." if fit["fits"] else "Does NOT fit your quota:")
            for line in [*fit["problems"], *([fit["refusal"]] if fit["refusal"] else [])]:
                click.echo(f"  {line}")
            for line in budget_lines(d.get("budget")):
                click.echo(line)
            for held in (d.get("line_ahead"), d.get("no_room")):
                if held:
                    click.echo(f"  {held}")
            if d.get("binding"):
                click.echo(f"Held back by: {d['binding']}")
            if outcome := _outcome_line(d):
                click.echo(outcome)
            # The portal's own sentence, in units people read (the JSON keeps the raw figures).
            click.echo(f"Request: {d['cost'].get('summary') or 'nothing that counts'}")
            for line in site_lines(d.get("sites") or [], d.get("placement")):
                click.echo(line)

        _print(data, as_json, human)
        # The launch itself would be refused: the same exit code as its refusal.
        if data.get("outcome", "start" if data["fit"]["fits"] else "refuse") != "start":
            sys.exit(3)
        return
    data = _post_retrying(portal, "/deployments", body, key or str(uuid.uuid4()))
    if data.get("queue") and not as_json:
        click.echo(f"Waiting in line: place {data['queue']['position']}.")
    if wait:
        data = _wait(portal, data["id"], interval, timeout, gone=False)
    _print(data, as_json, lambda d: click.echo("\n".join(deployment_lines(d))))


def _outcome_line(dry: dict) -> str:
    """What the launch would do, in a line (the dry run's ``outcome``)."""
    outcome = dry.get("outcome")
    if outcome == "start":
        return "A launch would start now."
    if outcome == "wait":
        return "A launch would be refused now; it may wait in line (--wait-in-line)."
    return "A launch would be refused." if outcome else ""


@cli.command("list")
@click.option(
    "--status",
    type=click.Choice(["progress", "ready", "succeeded", "failed", "gone"]),
    help="ready: services ready to use; succeeded: batch jobs that ran and succeeded.",
)
@click.option("--template", default="", help="Only this template's.")
@click.option("--page", default=1, show_default=True, help="Page, counted from 1.")
@click.option("--size", default=50, show_default=True)
@click.option("--shared", is_flag=True, help="Those shared with you, not yours.")
@command
def list_deployments(status, template, page, size, shared, as_json):
    """Your deployments (or those shared with you), newest first."""
    data = _portal().get(
        "/deployments", status=status, template=template, page=page, size=size, shared=shared
    )

    def human(d):
        rows = [
            [i["id"], i["name"], i["template"], i["status"], i["created_at"][:16]]
            + ([i.get("owner", ""), i.get("access", "")] if shared else [])
            for i in d["items"]
        ]
        heads = ["ID", "NAME", "TEMPLATE", "STATUS", "CREATED"]
        click.echo(table(heads + (["OWNER", "ACCESS"] if shared else []), rows))
        click.echo(f"Page {d['page']} of {d['pages']}, {d['total']} in all.")

    _print(data, as_json, human)


@cli.command("show")
@click.argument("deployment_id", type=int)
@command
def show(deployment_id, as_json):
    """One deployment: status, outputs, timeline."""
    data = _portal().get(f"/deployments/{deployment_id}")
    _print(data, as_json, lambda d: click.echo("\n".join(deployment_lines(d, timeline=True))))


@cli.command("secret")
@click.argument("deployment_id", type=int)
@click.argument("name")
@command
def secret(deployment_id, name, as_json):
    """Print one kept secret of your deployment (a generated password, a secret output)."""
    values = _portal().post(f"/deployments/{deployment_id}/secrets")["values"]
    if name not in values:
        known = ", ".join(sorted(values)) or "none"
        click.echo(f"rcp: No secret named {name!r}; kept secrets: {known}.", err=True)
        sys.exit(4)
    _print({name: values[name]}, as_json, lambda d: click.echo(d[name]))


@cli.command("delete")
@click.argument("deployment_id", type=int)
@click.option("--wait", is_flag=True, help="Wait until it is gone.")
@click.option("--interval", default=5.0, show_default=True)
@click.option("--timeout", default=3600.0, show_default=True)
@command
def delete(deployment_id, wait, interval, timeout, as_json):
    """Delete a deployment."""
    portal = _portal()
    data = portal.delete(f"/deployments/{deployment_id}")
    if wait:
        _wait(portal, deployment_id, interval, timeout, gone=True)
        data = {**data, "status": "DELETE_COMPLETE"}
    _print(data, as_json, lambda d: click.echo(f"{d['id']}\t{d['name']}\t{d['status']}"))


@cli.command("extend")
@click.argument("deployment_id", type=int)
@click.option(
    "--hours",
    type=click.IntRange(min=1),
    help="The extend step of its policy, in hours (refused if it is not); omit for the step.",
)
@command
def extend(deployment_id, hours, as_json):
    """Extend a deployment's lease by its policy's step, as its page's Extend button does."""
    portal = _portal()
    if not portal.exists("POST", "/deployments/{deployment_id}/lease"):
        raise Unavailable("Extending a deployment's lease is not available on this portal.")
    body = {"hours": hours} if hours is not None else {}
    data = portal.post(f"/deployments/{deployment_id}/lease", body)

    def human(d):
        click.echo(f"Extended: {d['name']} ({d['id']}) now ends {d['lease']['ends_at']}.")
        click.echo("\n".join(lease_lines(d["lease"])))

    _print(data, as_json, human)


# The portal is looked up when a command runs, as every command here does.
register_share_commands(cli, command, lambda: _portal(), _print)


def main() -> None:
    cli(prog_name="rcp")


# Commands kept in modules of their own register on ``cli`` when this module is read.
from app.cli_client import usage as _usage  # noqa: E402, F401
