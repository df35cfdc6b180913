"""The mail worker: sends the outbox's due mails, never from a web request.

It is the mail duty of the worker (``flask worker``, which ``make run`` starts, or alone
``flask notifications send --loop``), in a thread of its own: a long batch holds up no other
duty. A pass claims a batch of due mails (see ``outbox.claim``), sends them over one SMTP
connection, and records each outcome as soon as it is known, so a worker that dies mid-batch
resends at most the mail it was sending; its claims lapse and another worker takes the rest.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from flask import current_app
from sqlalchemy.exc import SQLAlchemyError

from app.instruments import count_notification
from app.notifications import mail, outbox
from app.notifications.models import MAIL_FAILED

log = logging.getLogger(__name__)


@dataclass
class SendResult:
    sent: int = 0
    retrying: int = 0
    failed: int = 0

    @property
    def acted(self) -> bool:
        return bool(self.sent or self.retrying or self.failed)

    def __str__(self) -> str:
        return self.summary()

    def summary(self) -> str:
        return f"{self.sent} sent, {self.retrying} to retry, {self.failed} failed for good"


def send_once() -> SendResult:
    """Send one batch of due mails. Does nothing without a mail server configured."""
    result = SendResult()
    if not current_app.config.get("MAIL_SERVER"):
        return result
    token, claimed = outbox.claim(current_app.config["NOTIFICATIONS_SEND_BATCH"])
    if not claimed:
        return result
    connection = mail.connection()
    with mail.portal_links():
        try:
            for notification in claimed:
                _send_one(notification, token, connection, result)
        finally:
            with mail.deadline(connection):
                _close(connection)
    return result


def _send_one(notification, token: str, connection, result: SendResult) -> None:
    """Build and send one claimed mail, recording its outcome. What goes wrong with this mail
    (it cannot be built, the server refuses it) is its own failure: the pass goes on."""
    try:
        email = mail.build(notification, connection)
    except SQLAlchemyError:  # the database, not the mail: the pass fails and its claims lapse
        raise
    except Exception as error:  # whatever stops one mail must not stop the others
        # Building gives the same result every time: it is not tried again unless an operator
        # queues it once the cause is fixed.
        log.warning("Mail %s cannot be built: %r", notification.id, error)
        outbox.mark_attempt_failed(notification, token, mail.unbuildable(error), for_good=True)
        result.failed += 1
        count_notification(notification.kind, "failed")
        return
    try:
        with mail.deadline(connection) as deadline:
            try:
                connection.open()
                connection.send_messages([email])
            except mail.MAIL_ERRORS:
                # Closed within the deadline too: a polite QUIT to a server that dribbles
                # would wait on it again.
                _close(connection)
                raise
    except mail.MAIL_ERRORS as error:
        kept = mail.failure(error, expired=deadline.expired)
        status = outbox.mark_attempt_failed(
            notification, token, kept, for_good=mail.refused_for_good(error)
        )
        if status == MAIL_FAILED:
            result.failed += 1
            count_notification(notification.kind, "failed")
            log.warning("Mail %s failed for good: %s", notification.id, error)
        else:
            result.retrying += 1
    else:
        # False when our claim lapsed meanwhile: the mail is another worker's to record.
        if outbox.mark_sent(notification.id, token):
            result.sent += 1
            count_notification(notification.kind, "sent")


def _close(connection) -> None:
    try:
        connection.close()
    except mail.MAIL_ERRORS:  # the server already went away: nothing left to close
        connection.connection = None


def send_test(address: str) -> None:
    """Send a test message to ``address`` now. Raises MailSettingsError saying what failed."""
    from app.notifications.errors import MailSettingsError

    config = current_app.config
    if not config.get("MAIL_SERVER"):
        raise MailSettingsError(
            "No mail server is configured: set PORTAL_MAIL_SERVER (and PORTAL_MAIL_PORT, "
            "PORTAL_MAIL_DEFAULT_SENDER); until then notifications are shown in the portal only."
        )
    if "@" not in address:
        raise MailSettingsError(f"{address!r} is not an e-mail address.")
    connection = mail.connection()
    with mail.deadline(connection) as deadline:
        try:
            connection.open()
            with mail.portal_links():
                connection.send_messages([mail.test_email(address, connection)])
        except mail.MAIL_ERRORS as error:
            raise MailSettingsError(mail.describe(error, expired=deadline.expired)) from error
        finally:
            _close(connection)
