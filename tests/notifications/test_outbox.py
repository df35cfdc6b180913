"""Timeline entries become notifications in the same transaction, per the agreed mapping."""

import pytest

from app.auth.models import User
from app.deployments.models import Deployment
from app.deployments.operations import delete
from app.deployments.timeline import record_event
from app.extensions import db
from app.notifications.models import MAIL_NONE, MAIL_QUEUED, Notification
from app.notifications.wording import compose


def test_a_deployment_becoming_ready_tells_its_owner_with_its_access_link(portal):
    ada = portal.user()
    deployment = portal.deployment(ada, outputs={"jupyter_endpoint": "https://203.0.113.7:8888"})
    portal.record(deployment, "ready", source="sync")
    [notice] = portal.notifications(ada)
    assert notice.kind == "ready"
    assert notice.details["link"] == "https://203.0.113.7:8888"
    with portal.app.app_context():
        message = compose(notice)
    assert message.subject == "Notebook for the course is ready"
    assert message.access_link == "https://203.0.113.7:8888"


def test_a_failed_creation_says_why_in_plain_words_and_what_to_try_next(portal):
    ada = portal.user()
    deployment = portal.deployment(ada)
    portal.record(deployment, "failed", source="callback", reason="Error: Quota exceeded for cores")
    [notice] = portal.notifications(ada)
    with portal.app.app_context():
        message = compose(notice)
    assert message.subject == "Notebook for the course failed to start"
    text = " ".join(message.paragraphs)
    assert "no room left under its quota" in text
    assert "The orchestrator said: Error: Quota exceeded for cores" in text
    assert "What to try next" in text


def test_a_failed_delete_tells_the_owner(portal):
    ada = portal.user()
    deployment = portal.deployment(ada, status="deleting")
    portal.record(deployment, "delete-failed", source="sync", reason="volume busy")
    [notice] = portal.notifications(ada)
    assert notice.kind == "delete-failed"
    assert notice.details["reason"] == "volume busy"


def test_a_person_resetting_a_stuck_delete_is_not_told_what_they_did(portal):
    ada = portal.user()
    deployment = portal.deployment(ada, status="deleting")
    portal.record(deployment, "delete-failed", source="user", actor_id=ada)
    assert portal.notifications(ada) == []


def test_status_changes_that_matter_to_nobody_write_nothing(portal):
    ada = portal.user()
    deployment = portal.deployment(ada, status="SUBMITTING")
    portal.record(deployment, "creating", source="launch")
    portal.record(deployment, "creating", source="user", actor_id=ada)
    assert portal.notifications(ada) == []


@pytest.mark.parametrize(
    ("event_kind", "details", "kind", "subject"),
    [
        (
            "lease-warned",
            {"ends_at": "2026-11-27T14:00:00Z", "before_minutes": 60},
            "lease-warning",
            "Notebook for the course ends in 1 hour",
        ),
        (
            "lease-expired",
            {"ends_at": "2026-11-27T14:00:00Z", "delete_at": "2026-11-27T16:00:00Z"},
            "lease-expired",
            "Time is up for Notebook for the course",
        ),
        (
            "lease-deleted",
            {},
            "lease-deleted",
            "Notebook for the course was deleted when its time was up",
        ),
        (
            "failed-cleanup",
            {"failed_at": "2026-11-24T09:00:00Z"},
            "failed-cleanup",
            "Failed deployment Notebook for the course was removed",
        ),
    ],
)
def test_lease_events_tell_the_owner(portal, event_kind, details, kind, subject):
    ada = portal.user()
    deployment = portal.deployment(ada, status="ready")
    portal.record(deployment, None, source="portal", kind=event_kind, details=details)
    [notice] = portal.notifications(ada)
    assert notice.kind == kind
    with portal.app.app_context():
        assert compose(notice).subject == subject


def test_the_expiry_notice_says_when_the_deployment_will_be_deleted(portal):
    ada = portal.user()
    deployment = portal.deployment(ada, status="ready")
    details = {"ends_at": "2026-11-27T14:00:00Z", "delete_at": "2026-11-27T16:00:00Z"}
    portal.record(deployment, None, source="portal", kind="lease-expired", details=details)
    with portal.app.app_context():
        text = " ".join(compose(portal.notifications(ada)[0]).paragraphs)
    assert "ended at Nov 27, 2026, 14:00 UTC" in text
    assert "deleted at Nov 27, 2026, 16:00 UTC" in text


def test_an_owner_extending_their_own_lease_is_not_told_but_an_operator_extending_it_is(portal):
    ada = portal.user()
    operator = portal.user("olga", "olga@example.org")
    deployment = portal.deployment(ada, status="ready")
    own = {"ends_at": "2026-11-28T14:00:00Z", "previous_ends_at": "2026-11-27T14:00:00Z"}
    portal.record(deployment, None, source="user", actor_id=ada, kind="lease-extended", details=own)
    assert portal.notifications(ada) == []
    by_operator = {**own, "past_cap": True, "reason": "thesis deadline"}
    portal.record(
        deployment,
        None,
        source="admin",
        actor_id=operator,
        kind="lease-extended",
        details=by_operator,
    )
    [notice] = portal.notifications(ada)
    assert notice.kind == "lease-extended"
    with portal.app.app_context():
        text = " ".join(compose(notice).paragraphs)
    assert "now ends at Nov 28, 2026, 14:00 UTC" in text
    assert "Their reason: thesis deadline" in text


def test_an_admin_deleting_someone_elses_deployment_tells_its_owner(portal):
    ada = portal.user()
    root = portal.user("root", "root@example.org")
    mine = portal.deployment(ada, status="NOT_LAUNCHED")
    theirs = portal.deployment(ada, status="NOT_LAUNCHED", name="Old cluster")
    with portal.app.app_context():
        from app.auth.operations import grant_role

        grant_role(db.session.get(User, root), "admin", granted_by="test")
        db.session.commit()
        delete(db.session.get(User, ada), db.session.get(Deployment, mine))
        delete(db.session.get(User, root), db.session.get(Deployment, theirs))
        kinds = [e.kind for d in (mine, theirs) for e in db.session.get(Deployment, d).events]
    assert kinds == ["delete-requested", "delete-requested"]
    [notice] = portal.notifications(ada)
    assert notice.kind == "deleted-by-admin"
    assert notice.details["name"] == "Old cluster"


def test_an_event_rolled_back_leaves_no_notification(portal):
    ada = portal.user()
    deployment_id = portal.deployment(ada)
    with portal.app.app_context():
        deployment = db.session.get(Deployment, deployment_id)
        record_event(deployment, "failed", source="sync", reason="boom")
        db.session.flush()
        assert db.session.scalar(db.select(db.func.count()).select_from(Notification)) == 1
        db.session.rollback()
    assert portal.notifications() == []


def test_mail_is_queued_only_for_the_kinds_chosen_and_people_with_an_address(portal):
    ada = portal.user()
    nobody = portal.user("bob", email="")
    for owner in (ada, nobody):
        deployment = portal.deployment(owner)
        portal.record(deployment, "ready", source="sync")
        portal.record(deployment, "failed", source="sync")
    statuses = {(n.user_id, n.kind): n.mail_status for n in portal.notifications()}
    # By default: failures and expiry warnings by mail, the rest in the portal only.
    assert statuses == {
        (ada, "ready"): MAIL_NONE,
        (ada, "failed"): MAIL_QUEUED,
        (nobody, "ready"): MAIL_NONE,
        (nobody, "failed"): MAIL_NONE,
    }


def test_without_a_mail_server_notifications_are_for_the_portal_only(portal_without_mail):
    ada = portal_without_mail.user()
    deployment = portal_without_mail.deployment(ada)
    portal_without_mail.record(deployment, "failed", source="sync", reason="boom")
    [notice] = portal_without_mail.notifications(ada)
    assert notice.mail_status == MAIL_NONE
    assert portal_without_mail.send().summary() == "0 sent, 0 to retry, 0 failed for good"


def test_a_deployment_recorded_in_the_same_flush_as_its_event_gets_its_notice_and_mail(portal):
    ada = portal.user()
    with portal.app.app_context():
        deployment = Deployment(
            user_id=ada, name="Fresh", template_slug="vm", template_name="VM", status="SUBMITTING"
        )
        db.session.add(deployment)
        record_event(deployment, "failed", source="launch", reason="refused")
        db.session.commit()
    [notice] = portal.notifications(ada)
    assert notice.kind == "failed" and notice.mail_status == MAIL_QUEUED
