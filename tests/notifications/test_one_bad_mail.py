"""One mail that cannot be built, or that the server refuses for good, fails alone: it is
counted, listed under Undelivered mail with its reason, and the mails around it are sent."""

import pytest
from sqlalchemy import update

from app.extensions import db
from app.notifications.mail import failure_text
from app.notifications.models import MAIL_FAILED, MAIL_QUEUED, MAIL_SENT, Notification
from tests.notifications.test_pages import _logged_in


def _batch_of_three(portal) -> list[int]:
    """Three due mails, to ada, bob and carl, claimed in that order by one pass."""
    owners = [portal.user(name, email=f"{name}@example.org") for name in ("ada", "bob", "carl")]
    for owner in owners:
        deployment = portal.deployment(owner, name=f"Run of {owner}")
        portal.record(deployment, "failed", source="sync", reason="boom")
    return [n.id for n in portal.notifications()]


def _plant(portal, notification_id: int, **values) -> None:
    with portal.app.app_context():
        db.session.execute(
            update(Notification).where(Notification.id == notification_id).values(**values)
        )
        db.session.commit()


def _undelivered_page(portal) -> str:
    operator, _olga = _logged_in(portal, "olga", roles=("operator",))
    answer = operator.get("/notifications/undelivered")
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


UNBUILDABLE = {
    "an address with a line break": (
        {"mail_to": "bob@example.org\r\nBcc: eve@example.org"},
        "Header values can't contain newlines",
    ),
    "a kind this portal does not know": ({"kind": "from-a-newer-portal"}, "KeyError"),
}


@pytest.mark.parametrize("planted", UNBUILDABLE.values(), ids=UNBUILDABLE.keys())
def test_a_mail_that_cannot_be_built_fails_alone_and_the_mails_around_it_are_sent(
    portal, smtp_server, planted
):
    values, said = planted
    ada, bob, carl = _batch_of_three(portal)
    _plant(portal, bob, **values)
    result = portal.send()
    assert (result.sent, result.failed, result.retrying) == (2, 1, 0)
    received = smtp_server.wait_for(2)
    assert sorted(m["To"] for m in received) == ["ada@example.org", "carl@example.org"]
    state = {n.id: n for n in portal.notifications()}
    assert state[ada].mail_status == state[carl].mail_status == MAIL_SENT
    bad = state[bob]
    assert (bad.mail_status, bad.mail_attempts, bad.mail_claim) == (MAIL_FAILED, 1, None)
    reason = failure_text(bad.mail_error)
    assert "This mail could not be composed" in reason and said in reason
    # Given up at once: building it again gives the same failure.
    assert portal.send().failed == 0
    html = _undelivered_page(portal)
    assert "This mail could not be composed" in html and "Given up" in html
    assert len(smtp_server.messages) == 2


def test_a_recipient_refused_for_good_fails_alone_and_the_mails_around_it_are_sent(
    portal, smtp_server
):
    ada, bob, carl = _batch_of_three(portal)
    smtp_server.inbox.refuse_addresses["bob@example.org"] = "550 5.1.1 No such user here"
    result = portal.send()
    assert (result.sent, result.retrying, result.failed) == (2, 0, 1)
    received = smtp_server.wait_for(2)
    assert sorted(m["To"] for m in received) == ["ada@example.org", "carl@example.org"]
    state = {n.id: n for n in portal.notifications()}
    assert state[ada].mail_status == state[carl].mail_status == MAIL_SENT
    # A permanent refusal of this mail: given up at once, not retried with back-off.
    assert (state[bob].mail_status, state[bob].mail_attempts) == (MAIL_FAILED, 1)
    html = _undelivered_page(portal)
    assert "bob@example.org: 550 5.1.1 No such user here" in html and "Given up" in html


def test_a_recipient_refused_for_now_is_tried_again(portal, smtp_server):
    _ada, bob, _carl = _batch_of_three(portal)
    smtp_server.inbox.refuse_addresses["bob@example.org"] = "450 4.2.1 Mailbox busy, try later"
    result = portal.send()
    assert (result.sent, result.retrying, result.failed) == (2, 1, 0)
    state = {n.id: n for n in portal.notifications()}
    assert (state[bob].mail_status, state[bob].mail_attempts) == (MAIL_QUEUED, 1)


def test_a_name_stored_with_a_line_break_gives_a_one_line_subject(portal, smtp_server):
    ada = portal.user()
    deployment = portal.deployment(ada, name="poison\r\nX-A: b")
    portal.record(deployment, "failed", source="sync", reason="boom")
    assert portal.send().sent == 1
    [message] = smtp_server.wait_for(1)
    assert message["Subject"] == "poison X-A: b failed to start"
    assert message["X-A"] is None
