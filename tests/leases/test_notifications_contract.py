"""Lease events reach notifications as agreed (/docs: README "Notifications"): the expiry pass
records its timeline events, the notifications feature's listener turns them into the owner's
notifications in the same transaction, and the mail worker sends the ones the owner chose to
the test's SMTP server."""

import pytest

from app.auth.models import User
from app.extensions import db
from app.notifications.models import MAIL_NONE, MAIL_QUEUED, MAIL_SENT, Notification
from app.notifications.preferences import choose_email_kinds
from app.notifications.sending import send_once


@pytest.fixture
def emulated_settings(emulated_settings, smtp_server):
    # Mail to the test's server; callbacks still go where the leases tests send them.
    return {**smtp_server.settings(), **emulated_settings, "MAIL_TIMEOUT": 2}


def _owner(emulated, email_kinds: set[str]) -> int:
    ada = emulated.user("ada")
    with emulated.app.app_context():
        user = db.session.get(User, ada)
        user.email = "ada@example.org"
        db.session.commit()
        choose_email_kinds(user, email_kinds)
    return ada


def _notifications(app, user_id: int) -> list[Notification]:
    with app.app_context():
        rows = list(
            db.session.scalars(
                db.select(Notification)
                .where(Notification.user_id == user_id)
                .order_by(Notification.id)
            )
        )
        for row in rows:
            db.session.expunge(row)
        return rows


def _send(app):
    with app.app_context():
        return send_once()


def test_a_lease_that_expires_tells_its_owner_and_mails_the_warning(
    emulated, leases, clock, smtp_server
):
    leases.policy(default="3h", warn="1h", grace="30m")
    ada = _owner(emulated, {"lease-warning"})  # the warning by mail; the rest in the portal
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    # Ready is told; the lease starting ("lease-chosen") is not.
    assert [n.kind for n in _notifications(emulated.app, ada)] == ["ready"]

    clock.move(hours=2, minutes=5)
    assert leases.expire().warned == 1
    _ready, warning = _notifications(emulated.app, ada)
    assert warning.kind == "lease-warning" and warning.mail_status == MAIL_QUEUED
    assert warning.deployment_id == deployment_id and warning.details["before_minutes"] == 60
    assert _send(emulated.app).sent == 1
    [message] = smtp_server.wait_for(1)
    assert message["To"] == "ada@example.org"
    name = emulated.row(deployment_id).name
    assert name in message["Subject"]
    text = message.get_body(("plain",)).get_content()
    assert f"/deployments/{deployment_id}" in text  # the link to its page

    clock.move(hours=1)
    assert leases.expire().expired == 1
    clock.move(minutes=31)
    assert leases.expire().deleted == 1

    told = _notifications(emulated.app, ada)[1:]
    assert [n.kind for n in told] == ["lease-warning", "lease-expired", "lease-deleted"]
    assert told[0].mail_status == MAIL_SENT
    assert told[1].details["delete_at"] and told[1].details["ends_at"]
    # Not chosen for mail: shown in the portal only.
    assert [n.mail_status for n in told[1:]] == [MAIL_NONE, MAIL_NONE]
    assert _send(emulated.app).sent == 0


def test_a_refused_delete_at_expiry_tells_the_owner(emulated, leases, clock, smtp_server):
    leases.policy(default="1h", grace="0m")
    ada = _owner(emulated, {"delete-failed"})
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    emulated.emulator.set_faults(error_rate=1.0, paths=["DELETE /deployments/*"])
    clock.move(minutes=61)
    leases.expire()  # ends
    assert leases.expire().delete_failed == 1

    kinds = [n.kind for n in _notifications(emulated.app, ada)]
    assert kinds == ["ready", "lease-expired", "lease-deleted", "delete-failed"]
    assert _send(emulated.app).sent == 1
    [message] = smtp_server.wait_for(1)
    assert "failed" in message["Subject"] and message["To"] == "ada@example.org"
