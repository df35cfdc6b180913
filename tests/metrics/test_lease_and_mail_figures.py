"""Lease events and notification mails in /metrics: a warning given by the expiry pass, a mail
that reached the test's SMTP server, and one given up on, each counted once under its name."""

from datetime import UTC, datetime, timedelta

from app.clock import use_clock
from app.leases.editing import parse_field, set_policy
from app.leases.expiry import expire_once
from tests.metrics.conftest import SLUG, Scrape
from tests.metrics.test_figures import _person, _sync_until
from tests.notifications.conftest import Portal


def test_a_lease_warning_is_counted_once(app, scrape, launch_as):
    with app.app_context():
        changes = {
            key: parse_field(key, text) for key, text in {"default": "3h", "warn": "1h"}.items()
        }
        set_policy(None, SLUG, None, changes, "GPU time")
    ada = _person(app, "ada")
    deployment_id = launch_as(ada)
    _sync_until(app, deployment_id, "ready")  # the lease starts: "lease-chosen"
    before = scrape()
    assert before.value("portal_lease_events_total", event="lease-chosen") >= 1

    warned_at = datetime.now(UTC) + timedelta(hours=2, minutes=10)
    with app.app_context(), use_clock(lambda: warned_at):
        assert expire_once().warned == 1
        assert expire_once().warned == 0  # not twice, and not counted twice

    after = scrape()
    grew = after.total("portal_lease_events_total", event="lease-warned") - before.total(
        "portal_lease_events_total", event="lease-warned"
    )
    assert grew == 1
    assert after.total("portal_lease_events_total", event="lease-expired") == before.total(
        "portal_lease_events_total", event="lease-expired"
    )


def _scrape(app) -> Scrape:
    answer = app.test_client().get("/metrics")
    assert answer.status_code == 200, answer.text
    return Scrape(answer.text)


def _failed_launch(portal: Portal) -> None:
    """A deployment failing to start: its owner's "failed" mail is on by default."""
    ada = portal.user("ada", email="ada@example.org")
    deployment_id = portal.deployment(ada)
    portal.record(deployment_id, "failed", reason="No quota left at the site")


def test_a_sent_mail_is_counted_by_kind(make_app, smtp_server):
    portal = Portal(make_app(**smtp_server.settings(), MAIL_TIMEOUT=2))
    before = _scrape(portal.app)
    _failed_launch(portal)

    assert portal.send().sent == 1
    [message] = smtp_server.wait_for(1)
    assert message["To"] == "ada@example.org"

    after = _scrape(portal.app)
    sent = {"kind": "failed", "outcome": "sent"}
    assert (
        after.value("portal_notifications_total", **sent)
        - before.value("portal_notifications_total", **sent)
        == 1
    )


def test_a_mail_given_up_is_counted_as_failed(make_app, smtp_server, closed_port):
    settings = {**smtp_server.settings(), "MAIL_PORT": closed_port}
    portal = Portal(make_app(**settings, MAIL_TIMEOUT=2, NOTIFICATIONS_MAX_ATTEMPTS=1))
    before = _scrape(portal.app)
    _failed_launch(portal)

    assert portal.send().failed == 1

    after = _scrape(portal.app)
    for outcome, grew in (("failed", 1), ("sent", 0)):
        labels = {"kind": "failed", "outcome": outcome}
        assert (
            after.value("portal_notifications_total", **labels)
            - before.value("portal_notifications_total", **labels)
            == grew
        )
