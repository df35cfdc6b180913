"""Notification mails reach a real SMTP server (aiosmtpd), and a misbehaving one loses nothing."""

from datetime import timedelta

from app.clock import use_clock, utcnow
from app.notifications.mail import failure_text
from app.notifications.models import MAIL_FAILED, MAIL_QUEUED, MAIL_SENT
from app.notifications.preferences import choose_email_kinds


def _failed_deployment(portal, owner, name="Notebook for the course", reason="boom"):
    deployment = portal.deployment(owner, name=name)
    portal.record(deployment, "failed", source="sync", reason=reason)
    return deployment


def test_a_mail_arrives_with_its_headers_both_parts_and_a_link_to_the_page(portal, smtp_server):
    ada = portal.user()
    deployment = portal.deployment(ada, outputs={"endpoint": "https://203.0.113.7:8888/lab"})
    with portal.app.app_context():
        from app.auth.models import User
        from app.extensions import db

        choose_email_kinds(db.session.get(User, ada), {"ready"})
    portal.record(deployment, "ready", source="callback")
    assert portal.send().sent == 1
    [message] = smtp_server.wait_for(1)
    assert message["Subject"] == "Notebook for the course is ready"
    assert message["To"] == "ada@example.org"
    assert message["From"] == "Research Cloud Portal <cloud@portal.test>"
    assert message["Auto-Submitted"] == "auto-generated"
    assert message["Message-ID"]
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    page = f"https://portal.test/deployments/{deployment}"
    assert f"See Notebook for the course in the portal: {page}" in text
    assert "Open Notebook for the course: https://203.0.113.7:8888/lab" in text
    assert f'<a href="{page}">See Notebook for the course in the portal</a>' in html
    assert '<a href="https://203.0.113.7:8888/lab">Open Notebook for the course</a>' in html
    assert "Choose what you get by e-mail: https://portal.test/account/#email-choices" in text
    [notice] = portal.notifications(ada)
    assert notice.mail_status == MAIL_SENT and notice.mail_attempts == 1


def test_names_and_reasons_are_escaped_in_the_html_part_and_kept_as_typed_in_the_text(
    portal, smtp_server
):
    ada = portal.user()
    _failed_deployment(portal, ada, name="<b>Fish & Chips</b>", reason="<script>x</script>")
    portal.send()
    [message] = smtp_server.wait_for(1)
    assert message["Subject"] == "<b>Fish & Chips</b> failed to start"
    html = message.get_body(("html",)).get_content()
    assert "&lt;b&gt;Fish &amp; Chips&lt;/b&gt;" in html
    assert "&lt;script&gt;x&lt;/script&gt;" in html
    assert "<script>" not in html and "<b>Fish" not in html
    text = message.get_body(("plain",)).get_content()
    assert "The orchestrator said: <script>x</script>" in text


def test_each_mail_is_sent_once_however_many_passes_run(portal, smtp_server):
    ada = portal.user()
    for number in range(3):
        _failed_deployment(portal, ada, name=f"Run {number}")
    assert portal.send().sent == 3
    assert portal.send().sent == 0
    assert sorted(m["Subject"] for m in smtp_server.wait_for(3)) == [
        "Run 0 failed to start",
        "Run 1 failed to start",
        "Run 2 failed to start",
    ]


def test_people_get_by_mail_only_the_kinds_they_chose(portal, smtp_server):
    from app.auth.models import User
    from app.extensions import db

    ada = portal.user()
    bob = portal.user("bob", "bob@example.org")
    with portal.app.app_context():
        choose_email_kinds(db.session.get(User, ada), {"ready"})
    for owner in (ada, bob):
        deployment = portal.deployment(owner, name=f"For {owner}")
        portal.record(deployment, "ready", source="sync")
        _failed_deployment(portal, owner, name=f"Failed for {owner}")
    assert portal.send().sent == 2
    received = {(m["To"], m["Subject"]) for m in smtp_server.wait_for(2)}
    assert received == {
        ("ada@example.org", f"For {ada} is ready"),
        ("bob@example.org", f"Failed for {bob} failed to start"),
    }
    # Everything is shown in the portal all the same.
    assert len(portal.notifications()) == 4


def _later(minutes):
    moment = utcnow() + timedelta(minutes=minutes)
    return lambda: moment


def test_a_server_that_is_down_is_retried_with_back_off_then_given_up_and_shown(
    make_app, smtp_server, closed_port
):
    from tests.notifications.conftest import Portal

    settings = {**smtp_server.settings(), "MAIL_PORT": closed_port}
    portal = Portal(make_app(**settings, NOTIFICATIONS_MAX_ATTEMPTS=3))
    ada = portal.user()
    _failed_deployment(portal, ada)
    start = utcnow()
    with use_clock(lambda: start):
        assert portal.send().retrying == 1
    [notice] = portal.notifications(ada)
    assert notice.mail_status == MAIL_QUEUED and notice.mail_attempts == 1
    assert "refused the connection" in failure_text(notice.mail_error)
    assert notice.mail_next_at == start + timedelta(seconds=60)
    # Not due before its time.
    with use_clock(lambda: start + timedelta(seconds=59)):
        assert portal.send().retrying == 0
    second = start + timedelta(seconds=60)
    with use_clock(lambda: second):
        assert portal.send().retrying == 1
    assert portal.notifications(ada)[0].mail_next_at == second + timedelta(seconds=120)
    with use_clock(lambda: second + timedelta(seconds=120)):
        assert portal.send().failed == 1
    [notice] = portal.notifications(ada)
    assert notice.mail_status == MAIL_FAILED and notice.mail_attempts == 3
    assert notice.mail_next_at is None
    assert smtp_server.messages == []


def test_a_slow_server_within_the_timeout_gets_the_mail(make_app, smtp_server):
    from tests.notifications.conftest import Portal

    portal = Portal(make_app(**smtp_server.settings(), MAIL_TIMEOUT=10))
    smtp_server.inbox.greeting_delay = 0.5
    ada = portal.user()
    _failed_deployment(portal, ada)
    assert portal.send().sent == 1
    assert len(smtp_server.wait_for(1)) == 1


def test_a_server_slower_than_the_timeout_costs_an_attempt_and_the_mail_goes_later(
    portal, smtp_server
):
    ada = portal.user()
    _failed_deployment(portal, ada)
    smtp_server.hold_greeting()
    assert portal.send().retrying == 1
    [notice] = portal.notifications(ada)
    assert "did not answer within 2 seconds" in failure_text(notice.mail_error)
    smtp_server.release()
    with use_clock(_later(2)):
        assert portal.send().sent == 1
    assert len(smtp_server.wait_for(1)) == 1
    assert portal.notifications(ada)[0].mail_status == MAIL_SENT


def test_a_server_refusing_the_message_for_now_is_retried_and_its_answer_shown(portal, smtp_server):
    ada = portal.user()
    _failed_deployment(portal, ada)
    smtp_server.inbox.refuse_data = "451 4.7.1 Greylisted, try again later"
    assert portal.send().retrying == 1
    [notice] = portal.notifications(ada)
    assert "refused the message: 451 4.7.1 Greylisted, try again later" in failure_text(
        notice.mail_error
    )
    smtp_server.inbox.refuse_data = None
    with use_clock(_later(2)):
        assert portal.send().sent == 1
    assert [m["Subject"] for m in smtp_server.wait_for(1)] == [
        "Notebook for the course failed to start"
    ]


def test_a_server_refusing_the_message_for_good_gives_up_until_an_operator_queues_it(
    portal, smtp_server
):
    from app.notifications.outbox import requeue

    ada = portal.user()
    _failed_deployment(portal, ada)
    smtp_server.inbox.refuse_data = "554 5.7.1 Message rejected as spam"
    result = portal.send()
    assert (result.retrying, result.failed) == (0, 1)
    [notice] = portal.notifications(ada)
    assert notice.mail_status == MAIL_FAILED
    assert "554 5.7.1 Message rejected as spam" in failure_text(notice.mail_error)
    with use_clock(_later(2)):
        assert portal.send().sent == 0  # not tried again on its own
    smtp_server.inbox.refuse_data = None
    with portal.app.app_context():
        requeue(notice.id)
    assert portal.send().sent == 1


def test_a_refused_recipient_is_named_in_the_failure(portal, smtp_server):
    ada = portal.user()
    _failed_deployment(portal, ada)
    smtp_server.inbox.refuse_recipients = "550 5.1.1 No such user here"
    portal.send()
    error = failure_text(portal.notifications(ada)[0].mail_error)
    assert "refused the recipient (ada@example.org: 550 5.1.1 No such user here)" in error


def test_mail_goes_to_the_address_the_directory_or_identity_provider_gave_at_login(
    portal, smtp_server
):
    from app.auth.identity import Identity
    from app.auth.operations import record_identity

    with portal.app.app_context():
        ldap = record_identity(Identity("ldap", "grace", "grace", "Grace", "grace@lab.example"))
        oidc = record_identity(Identity("iam", "sub-7", "alan", "Alan", "alan@iam.example"))
        owners = {ldap.id: "grace@lab.example", oidc.id: "alan@iam.example"}
    for owner in owners:
        _failed_deployment(portal, owner, name=f"Run of {owner}")
    assert portal.send().sent == 2
    received = {m["To"]: m["Subject"] for m in smtp_server.wait_for(2)}
    assert received == {
        address: f"Run of {owner} failed to start" for owner, address in owners.items()
    }
