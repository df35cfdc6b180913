"""Composing a notification's e-mail (plain text and HTML) and talking to the SMTP server.

Flask-Mailman does the composition and the SMTP conversation; this module adds the portal's
words, the link to the deployment's page, and sentences that say what failed.
"""

from __future__ import annotations

import json
import smtplib
import socket
import ssl
from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app, render_template, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_mailman import EmailMultiAlternatives
from flask_mailman.backends.smtp import EmailBackend
from flask_mailman.message import sanitize_address

from app import deadlines
from app.extensions import mail
from app.i18n import read_by
from app.notifications.models import Notification
from app.notifications.wording import Message, compose
from app.text import flatten, visible

# What the worker catches around one SMTP conversation: everything else is a bug.
MAIL_ERRORS = (OSError, smtplib.SMTPException)


def page_url(notification: Notification) -> str | None:
    """The absolute address of the deployment's page (needs a request context whose base
    URL is PORTAL_BASE_URL; see ``portal_links``)."""
    if notification.deployment_id is None:
        return None
    return url_for("deployments.detail", deployment_id=notification.deployment_id, _external=True)


def portal_links():
    """A request context in which ``url_for(..., _external=True)`` gives the portal's public
    addresses, for work done outside any request (the worker, the command line)."""
    return current_app.test_request_context(base_url=current_app.config["PORTAL_BASE_URL"])


def build(notification: Notification, connection=None) -> EmailMultiAlternatives:
    """The e-mail for ``notification``: subject, plain text and an HTML alternative, in
    the recipient's language and time zone. Built through to its bytes' headers and envelope
    here, so that whatever makes it unbuildable (an address with a line break, a kind this
    portal does not know) is raised now, by this mail, not amid the SMTP conversation."""
    with read_by(notification.user):
        email = _email(
            compose(notification),
            page_url(notification),
            (notification.details or {}).get("name"),
            [notification.mail_to],
            connection,
        )
    email.message()
    for address in email.recipients():
        sanitize_address(address, email.encoding or "utf-8")
    return email


def _email(message: Message, link: str | None, name: str | None, to: list[str], connection):
    context = {
        "message": message,
        "page_url": link,
        "name": name,
        "language": str(get_locale() or current_app.config["DEFAULT_LOCALE"]),
        "account_url": url_for("account.index", _external=True, _anchor="email-choices"),
    }
    email = EmailMultiAlternatives(
        # Stored names may predate the one-line rule: a line break in a header is refused.
        subject=flatten(message.subject),
        body=render_template("notifications/mail.txt", **context),
        from_email=current_app.config["MAIL_DEFAULT_SENDER"],
        to=to,
        connection=connection,
        # RFC 3834: tells vacation responders not to answer a machine.
        headers={"Auto-Submitted": "auto-generated"},
    )
    email.attach_alternative(render_template("notifications/mail.html", **context), "text/html")
    return email


def test_email(address: str, connection=None) -> EmailMultiAlternatives:
    """A short message proving that the settings reach ``address``."""
    message = Message(
        _("Test message from %(portal)s", portal=current_app.config["PORTAL_NAME"]),
        [_("The portal's mail settings work: this message reached you.")],
    )
    return _email(message, None, None, [address], connection)


class _Watched:
    """An SMTP client whose socket the current conversation's deadline can end."""

    def _get_socket(self, host, port, timeout):
        sock = super()._get_socket(host, port, timeout)
        # The socket of the moment: STARTTLS replaces it with its TLS one.
        deadlines.watch(lambda: getattr(self, "sock", None) or sock)
        return sock


class _WatchedSMTP(_Watched, smtplib.SMTP):
    pass


class _WatchedSMTPSSL(_Watched, smtplib.SMTP_SSL):
    pass


class _DeadlineBackend(EmailBackend):
    """Flask-Mailman's SMTP backend, its connections ended at the conversation's deadline."""

    @property
    def connection_class(self):
        return _WatchedSMTPSSL if self.use_ssl else _WatchedSMTP


def connection():
    """An SMTP connection with the portal's settings, not yet open. Hold each conversation on
    it inside ``deadline()``."""
    return mail.get_connection(backend=_DeadlineBackend)


@contextmanager
def deadline(smtp) -> Iterator[deadlines.Deadline]:
    """The overall deadline of one mail's conversation on ``smtp`` (a ``connection()``, open
    or not; MAIL_DEADLINE): ``with deadline(smtp) as d:`` around opening and sending; after a
    failure, ``d.expired`` says it was the time."""
    with deadlines.within(current_app.config["MAIL_DEADLINE"]) as watching:
        # A connection kept open from the mail before: its socket is this mail's to end too.
        watching.watch(lambda: getattr(smtp.connection, "sock", None))
        yield watching


# What can go wrong in one SMTP conversation. A failure is kept on the notification as its
# kind and figures (JSON), and put in words when an operator reads it, in their language.
FAILURES = {
    "refused": _l(
        "The mail server %(server)s refused the connection (is it running on that port?)."
    ),
    "timeout": _l("The mail server %(server)s did not answer within %(seconds)s seconds."),
    "deadline": _l(
        "The mail server %(server)s did not finish receiving the mail within %(seconds)s "
        "seconds (it answered too slowly); it is tried again later."
    ),
    "unresolved": _l("The mail server's name %(name)s could not be resolved."),
    "tls": _l(
        "TLS with the mail server %(server)s failed (%(error)s); check MAIL_USE_TLS and "
        "MAIL_USE_SSL."
    ),
    "login": _l("The mail server %(server)s refused the login: %(answer)s"),
    "recipient": _l("The mail server %(server)s refused the recipient (%(refused)s)."),
    "sender": _l("The mail server %(server)s refused the sender %(sender)s: %(answer)s"),
    "message": _l("The mail server %(server)s refused the message: %(answer)s"),
    "closed": _l("The mail server %(server)s closed the connection unexpectedly."),
    "other": _l("The conversation with the mail server %(server)s failed: %(error)s"),
    "unbuildable": _l(
        "This mail could not be composed (%(error)s); it is not tried again until an operator "
        "sends it again."
    ),
}


def failure(error: BaseException, *, expired: bool = False) -> str:
    """What went wrong in one SMTP conversation, as kept on the notification (see
    ``failure_text``); ``expired`` when the conversation's deadline ended it."""
    config = current_app.config
    server = f"{config['MAIL_SERVER']}:{config['MAIL_PORT']}"
    found: dict = {"kind": "other", "server": server, "error": str(error)}
    if expired:
        found = {"kind": "deadline", "server": server, "seconds": config["MAIL_DEADLINE"]}
    elif isinstance(error, ConnectionRefusedError):
        found = {"kind": "refused", "server": server}
    # smtplib reports a read that timed out as a disconnection, the timeout as its cause.
    elif isinstance(error, TimeoutError) or isinstance(error.__context__, TimeoutError):
        found = {"kind": "timeout", "server": server, "seconds": config["MAIL_TIMEOUT"]}
    elif isinstance(error, socket.gaierror):
        found = {"kind": "unresolved", "name": config["MAIL_SERVER"]}
    elif isinstance(error, ssl.SSLError):
        found = {"kind": "tls", "server": server, "error": str(error)}
    elif isinstance(error, smtplib.SMTPAuthenticationError):
        found = {"kind": "login", "server": server, "answer": _said(error)}
    elif isinstance(error, smtplib.SMTPRecipientsRefused):
        refused = "; ".join(
            f"{address}: {_said(answer)}" for address, answer in error.recipients.items()
        )
        found = {"kind": "recipient", "server": server, "refused": refused}
    elif isinstance(error, smtplib.SMTPSenderRefused):
        sender = error.sender.decode() if isinstance(error.sender, bytes) else error.sender
        found = {"kind": "sender", "server": server, "sender": sender, "answer": _said(error)}
    elif isinstance(error, smtplib.SMTPResponseException):
        found = {"kind": "message", "server": server, "answer": _said(error)}
    elif isinstance(error, smtplib.SMTPServerDisconnected):
        found = {"kind": "closed", "server": server}
    return json.dumps(found)


def unbuildable(error: BaseException) -> str:
    """Why a mail could not be built, as kept on the notification (see ``failure_text``)."""
    return json.dumps({"kind": "unbuildable", "error": visible(f"{type(error).__name__}: {error}")})


def refused_for_good(error: BaseException) -> bool:
    """Whether the server refused this very mail with a permanent (5xx) answer: its recipient,
    its sender or its content. Sending it again gives the same answer, so it is not retried.
    A refused login or a server that cannot be reached is the site's problem, not the mail's:
    those are tried again once the server is fixed."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        answers = [answer for answer in error.recipients.values()]
        return bool(answers) and all(_permanent(code) for code, _text in answers)
    if isinstance(error, smtplib.SMTPAuthenticationError):
        return False
    if isinstance(error, (smtplib.SMTPSenderRefused, smtplib.SMTPDataError)):
        return _permanent(error.smtp_code)
    return False


def _permanent(code) -> bool:
    return isinstance(code, int) and 500 <= code < 600


def failure_text(kept: str | None) -> str:
    """A kept failure in words, in the reader's language ("" for none; a failure kept as
    a sentence by an earlier version is shown as it is)."""
    if not kept:
        return ""
    try:
        found = json.loads(kept)
        return str(FAILURES[found.pop("kind")]) % found
    except (ValueError, KeyError, TypeError, AttributeError):
        return kept


def describe(error: BaseException, *, expired: bool = False) -> str:
    """What went wrong in one SMTP conversation, in a sentence for an operator."""
    return failure_text(failure(error, expired=expired))


def _said(error) -> str:
    """The server's own answer: "550 No such user here"."""
    code, text = error if isinstance(error, tuple) else (error.smtp_code, error.smtp_error)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {text}".strip()
