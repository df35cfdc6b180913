"""One mail's whole conversation with the mail server has a deadline (MAIL_DEADLINE): a server
that greets, or answers the message, a byte now and then never trips the per-step timeout, yet
the worker gives it up in time, keeps the mail to retry, and says why; the test message from
the command line the same."""

import time

import pytest

from app.auth.models import User
from app.extensions import db
from app.notifications import mail
from app.notifications.errors import MailSettingsError
from app.notifications.models import MAIL_QUEUED
from app.notifications.preferences import choose_email_kinds
from app.notifications.sending import send_test
from tests.fixtures.dribbling_tcp import GIVE_UP, dribbling_server
from tests.notifications.conftest import Portal

TOO_SLOW = "did not finish receiving the mail within 1 seconds"


def _settings(port: int) -> dict:
    return {
        "MAIL_SERVER": "127.0.0.1",
        "MAIL_PORT": port,
        "MAIL_DEFAULT_SENDER": "Research Cloud Portal <cloud@portal.test>",
        "PORTAL_BASE_URL": "https://portal.test",
        "MAIL_TIMEOUT": 1,
        "MAIL_DEADLINE": 1,
    }


@pytest.mark.parametrize("behaviour", ["smtp-greeting", "smtp-data"])
def test_a_mail_server_that_dribbles_is_given_up_at_the_deadline_and_the_mail_retried(
    make_app, behaviour
):
    with dribbling_server(behaviour) as server:
        portal = Portal(make_app(**_settings(server.port)))
        ada = portal.user()
        with portal.app.app_context():
            choose_email_kinds(db.session.get(User, ada), {"ready"})
        portal.record(portal.deployment(ada), "ready", source="callback")
        started = time.monotonic()
        result = portal.send()
        took = time.monotonic() - started
    assert server.calls == 1
    assert (result.sent, result.retrying) == (0, 1)
    assert took < GIVE_UP / 2, took
    [notice] = portal.notifications(ada)
    assert notice.mail_status == MAIL_QUEUED
    with portal.app.test_request_context():
        assert TOO_SLOW in mail.failure_text(notice.mail_error)


def test_the_test_message_to_a_dribbling_server_says_it_took_too_long(make_app):
    with dribbling_server("smtp-greeting") as server:
        app = make_app(**_settings(server.port))
        started = time.monotonic()
        with app.app_context(), pytest.raises(MailSettingsError) as failed:
            send_test("ada@example.org")
        took = time.monotonic() - started
    assert took < GIVE_UP / 2, took
    assert TOO_SLOW in str(failed.value)
