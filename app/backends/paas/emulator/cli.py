"""The ``emulate`` command: the orchestrator emulator as a real HTTP server.

It is ``flask orchestrator emulate``, and ``python -m app.backends.paas.cli`` without the
portal's configuration (both in ``app/backends/paas/cli.py``).
"""

from __future__ import annotations

import contextlib
import re
import secrets
import sys

import click

from app.backends.paas.emulator.rules import GROUP_RULES, Identity


def parse_token(text: str) -> tuple[str, Identity]:
    """``TOKEN=subject@issuer[:group,group]`` as (token, identity); raises click.BadParameter.

    The issuer may be a URL: a part after its last colon counts as groups unless it is the
    rest of the URL (``//host``) or a port (``8443/``).
    """
    token, equals, owner = text.partition("=")
    subject, at, rest = owner.partition("@")
    if not (token and equals and subject and at and rest):
        raise click.BadParameter(f"{text!r} is not TOKEN=subject@issuer[:group,group]")
    issuer, groups = rest, ()
    head, colon, tail = rest.rpartition(":")
    if colon and head and not tail.startswith("/") and not re.match(r"^\d+(/|$)", tail):
        issuer, groups = head, tuple(group for group in tail.split(",") if group)
    return token, Identity(subject, issuer, groups)


def _faults(options: dict) -> dict:
    faults = {
        "latency": options["latency"],
        "error_rate": options["error_rate"],
        "error_status": options["error_status"],
        "error_body": not options["no_error_body"],
        "gateway_errors": options["gateway_errors"],
        "hang": options["hang"],
        "lose_create_response": options["lose_create_response"] or False,
        "fail_creates": options["fail_creates"],
        "fail_next_creates": options["fail_next_creates"],
    }
    if options["fault_path"]:
        faults["paths"] = list(options["fault_path"])
    return faults


@click.command("emulate")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=8081,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0: any free port; the URL is printed).",
)
@click.option(
    "--token",
    "tokens",
    multiple=True,
    metavar="TOKEN=SUBJECT@ISSUER[:G1,G2]",
    help="A bearer token to accept, its owner and groups claim. Repeatable.",
)
@click.option(
    "--control-secret",
    envvar="ORCHESTRATOR_EMULATOR_CONTROL_SECRET",
    help="Secret for the /__emulator__/ control API (X-Emulator-Secret header). "
    "Default: a random one, printed.",
)
@click.option(
    "--group-rule",
    type=click.Choice(GROUP_RULES),
    default="infn",
    show_default=True,
    help="infn: userGroup required and checked as the INFN fork does; given: "
    "checked when sent; indigo: not checked.",
)
@click.option(
    "--complete-after-seconds",
    type=float,
    default=10.0,
    show_default=True,
    help="Seconds a create, update or delete takes.",
)
@click.option(
    "--complete-after-polls", type=int, default=None, help="Or: reads of the deployment it takes."
)
@click.option("--manual", is_flag=True, help="Deployments move only when told to (control API).")
@click.option("--latency", type=float, default=0.0, help="Seconds before every answer.")
@click.option(
    "--error-rate",
    type=click.FloatRange(0, 1),
    default=0.0,
    help="Share of calls answered with --error-status.",
)
@click.option("--error-status", type=click.IntRange(100, 599), default=500)
@click.option("--no-error-body", is_flag=True, help="Injected errors have an empty body.")
@click.option(
    "--gateway-errors", is_flag=True, help="Errors in the {error, error_description} form."
)
@click.option("--hang", is_flag=True, help="Never answer (until the fault is cleared).")
@click.option(
    "--lose-create-response",
    type=click.Choice(["drop", "504"]),
    default=None,
    help="Store creates, then drop the connection or answer 504.",
)
@click.option("--fail-creates", is_flag=True, help="Every new deployment ends CREATE_FAILED.")
@click.option(
    "--fail-next-creates",
    type=click.IntRange(0),
    default=0,
    help="The next N new deployments end CREATE_FAILED.",
)
@click.option(
    "--fault-path",
    multiple=True,
    metavar="[METHOD ]PATTERN",
    help="Apply network faults only to matching calls, e.g. 'POST /deployments'. Repeatable.",
)
@click.option(
    "--store", default=":memory:", show_default=True, help="SQLite file keeping the deployments."
)
def emulate(**options) -> None:
    """Serve an emulated PaaS orchestrator over HTTP until interrupted."""
    from app.backends.paas.emulator.core import create_emulator, emulator_of
    from app.backends.paas.emulator.server import EmulatorServer
    from app.backends.paas.emulator.store import EmulatorStore

    tokens = dict(parse_token(text) for text in options["tokens"])
    secret = options["control_secret"] or secrets.token_urlsafe(24)
    polls, seconds = options["complete_after_polls"], options["complete_after_seconds"]
    if options["manual"]:
        polls = seconds = None
    app = create_emulator(
        None,
        EmulatorStore(options["store"]),
        complete_after_polls=polls,
        complete_after_seconds=seconds,
        group_rule=options["group_rule"],
        control_secret=secret,
    )
    state = emulator_of(app)
    state.tokens.update(tokens)
    try:
        state.faults.update(**_faults(options))
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    server = EmulatorServer(app, options["host"], options["port"])
    click.echo(f"Serving the orchestrator emulator on {server.url}", nl=True)
    if not options["control_secret"]:
        click.echo(f"Control secret: {secret}")
    click.echo("Nothing is deployed for real. Ctrl-C stops it.")
    sys.stdout.flush()
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
