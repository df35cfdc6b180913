"""``flask notifications ...``: the mail worker, and a check of the mail settings."""

import click
from flask.cli import AppGroup

from app.notifications.errors import MailSettingsError
from app.notifications.sending import send_once, send_test
from app.worker import chosen, run_duties

notifications_cli = AppGroup("notifications", help="Send notification mails; check the settings.")


@notifications_cli.command("send")
@click.option("--loop", is_flag=True, help="Keep running passes until stopped (SIGTERM/SIGINT).")
def send_command(loop: bool) -> None:
    """Send the notification mails that are due (nothing without PORTAL_MAIL_SERVER)."""
    if loop:
        run_duties(chosen(("mail",)))
        return
    click.echo(send_once().summary())


@notifications_cli.command("send-test")
@click.argument("address")
def send_test_command(address: str) -> None:
    """Send a test message to ADDRESS with the configured mail settings; say what failed."""
    try:
        send_test(address)
    except MailSettingsError as error:
        raise click.ClickException(error.message) from error
    click.echo(f"Sent a test message to {address}; check that it arrived.")
