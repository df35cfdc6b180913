"""A request that waited in line: the mail that it started says its owner is told again when it
is ready, so whoever gets that mail gets the ready one too, "A deployment is ready" ticked or
not (it is not, by default)."""

from app.notifications.preferences import choose_email_kinds


def _waited_then_ready(portal, owner, name):
    deployment = portal.deployment(owner, name=name, status="WAITING")
    portal.record(deployment, "SUBMITTING", source="portal", kind="line-started")
    portal.record(deployment, "creating", source="launch")
    portal.record(deployment, "ready", source="callback")
    return deployment


def test_whoever_is_mailed_that_a_waiting_request_started_is_mailed_when_it_is_ready(
    portal, smtp_server
):
    ada, grace = portal.user(), portal.user("grace", email="grace@example.org")
    with portal.app.app_context():
        from app.auth.models import User
        from app.extensions import db

        # Grace wants no mail about the line: neither the start nor, then, the ready.
        choose_email_kinds(db.session.get(User, grace), {"failed"})
    _waited_then_ready(portal, ada, "Thesis analysis")
    _waited_then_ready(portal, grace, "Grace's analysis")
    # A launch of Ada's that never waited: its ready notice stays in the portal, by default.
    launched = portal.deployment(ada, name="Quick notebook")
    portal.record(launched, "ready", source="callback")

    assert portal.send().sent == 2
    mails = {message["Subject"]: message for message in smtp_server.wait_for(2)}
    started = "Thesis analysis left the line and is starting"
    assert sorted(mails) == ["Thesis analysis is ready", started]
    assert {message["To"] for message in mails.values()} == {"ada@example.org"}
    promise = "You are told again when it is ready."
    assert promise in mails[started].get_body(("plain",)).get_content()
