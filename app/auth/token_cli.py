"""``flask tokens ...``: personal access tokens from the command line (for operators and
provisioning scripts). ``create`` prints the token alone on its last line."""

import click
from flask.cli import AppGroup

from app.auth import access_tokens
from app.auth.cli import _find
from app.auth.local import PROVIDER as LOCAL
from app.errors import NotFound
from app.text import one_line_option

tokens_cli = AppGroup("tokens", help="Create, list and revoke personal access tokens.")


def _fail(error: access_tokens.InvalidToken):
    raise click.ClickException(error.message)


@tokens_cli.command("create")
@click.argument("username")
@click.option(
    "--name",
    required=True,
    callback=one_line_option("--name"),
    help="What the token is for, e.g. the script's name.",
)
@click.option(
    "--scopes",
    required=True,
    help=f"Comma-separated, among: {', '.join(access_tokens.SCOPES)}.",
)
@click.option("--expires", default="30d", show_default=True, help="Lifetime: 30d, 12h, 2w.")
@click.option("--provider", default=LOCAL, show_default=True, help="The account's provider.")
def create(username, name, scopes, expires, provider):
    """Create a token for USERNAME; it is shown once, on the last line."""
    user = _find(username, provider)
    try:
        record, token = access_tokens.create(
            user, name, access_tokens.parse_scopes(scopes), access_tokens.parse_lifetime(expires)
        )
    except access_tokens.InvalidToken as error:
        _fail(error)
    click.echo(
        f"Token {record.name!r} for {user.username} ({', '.join(record.scopes)}), "
        f"expires {record.expires_at:%Y-%m-%d %H:%M} UTC. It is shown only now:"
    )
    click.echo(token)


@tokens_cli.command("list")
@click.argument("username")
@click.option("--provider", default=LOCAL, show_default=True)
def list_tokens(username, provider):
    """USERNAME's tokens that are not revoked, one a line under a header (tab-separated;
    times in UTC)."""
    user = _find(username, provider)
    records = access_tokens.tokens_of(user)
    if not records:
        click.echo(f"{user.username} has no tokens.")
        return
    click.echo("ID\tTOKEN\tNAME\tSCOPES\tEXPIRES (UTC)\tSTATE\tLAST USED (UTC)")
    for record in records:
        used = f"{record.last_used_at:%Y-%m-%d %H:%M}" if record.last_used_at else "never"
        state = "live" if record.live else "expired"
        click.echo(
            f"{record.id}\t{record.hint}…\t{record.name}\t{','.join(record.scopes)}\t"
            f"{record.expires_at:%Y-%m-%d %H:%M}\t{state}\t{used}"
        )


@tokens_cli.command("revoke")
@click.argument("username")
@click.argument("token_id", type=int)
@click.option("--provider", default=LOCAL, show_default=True)
def revoke(username, token_id, provider):
    """Revoke USERNAME's token TOKEN_ID (as listed)."""
    user = _find(username, provider)
    try:
        access_tokens.revoke(user, token_id)
    except NotFound as error:
        raise click.ClickException(error.message) from error
    click.echo(f"Token {token_id} of {user.username} is revoked.")
