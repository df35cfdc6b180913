"""Sharing a deployment: its owner shares it on its page with a person or a group, as viewer
or co-owner; revoking holds at the next request; every action by someone else is on the
timeline with who did it; the deployment stays charged to its owner."""

from __future__ import annotations

from datetime import timedelta

from app.auth.models import User
from app.deployments import sharing
from app.deployments.models import Deployment
from app.extensions import db
from app.notifications.models import Notification
from tests.conftest import csrf_from


def person(app, people_for, username, groups=(), locale=None):
    """A logged-in browser for a new local account in ``groups``."""
    client = app.test_client()
    helper = people_for(app, client)
    user_id = helper.create(username)
    with app.app_context():
        user = db.session.get(User, user_id)
        user.groups, user.locale, user.email = list(groups), locale, f"{username}@example.org"
        db.session.commit()
    helper.login(username)
    return client, user_id


def form(client, page, action, data):
    token = csrf_from(client.get(page).get_data(as_text=True))
    return client.post(action, data={"csrf_token": token, **data})


def test_the_owner_shares_on_the_page_and_a_revoked_viewer_is_answered_404_at_once(
    app, people_for, make_deployment
):
    owner, owner_id = person(app, people_for, "olga", groups=["physics"])
    viewer, _viewer_id = person(app, people_for, "vera")
    deployment_id = make_deployment(owner_id, name="Shared notebook", group_name="physics")
    page = f"/deployments/{deployment_id}"
    assert viewer.get(page).status_code == 404

    answer = form(owner, page, f"{page}/shares", {"kind": "user", "name": "vera", "role": "viewer"})
    assert answer.status_code == 302
    html = owner.get(page).get_data(as_text=True)
    assert "Who has access" in html and "Shared with vera as viewer." in html

    seen = viewer.get(page).get_data(as_text=True)
    assert "Shared notebook" in seen and "owned by" in seen and "olga" in seen
    assert "Delete…" not in seen and "Share it" not in seen
    assert viewer.get(f"{page}/status").status_code == 200
    listed = viewer.get("/deployments/?shared=1").get_data(as_text=True)
    assert "Shared notebook" in listed and "Shared with you as viewer" in listed
    assert "Shared notebook" not in viewer.get("/deployments/").get_data(as_text=True)

    form(owner, page, f"{page}/shares/remove", {"kind": "user", "name": "vera"})
    assert viewer.get(page).status_code == 404
    assert viewer.get(f"{page}/status").status_code == 404
    assert "Shared notebook" not in viewer.get("/deployments/?shared=1").get_data(as_text=True)
    steps = owner.get(page).get_data(as_text=True)
    assert "Shared with vera as viewer" in steps and "No longer shared with vera" in steps


def test_a_group_share_reaches_its_members_only_and_only_groups_the_owner_is_in(
    app, people_for, make_deployment
):
    owner, owner_id = person(app, people_for, "olga", groups=["physics"])
    member, _ = person(app, people_for, "mario", groups=["physics"])
    outsider, _ = person(app, people_for, "otto", groups=["chemistry"])
    deployment_id = make_deployment(owner_id, group_name="physics")
    page = f"/deployments/{deployment_id}"
    refused = form(owner, page, f"{page}/shares", {"kind": "group", "name": "chemistry"})
    assert refused.status_code == 302
    assert "You can share with the groups you are in; chemistry is not one." in (
        owner.get(page).get_data(as_text=True)
    )
    form(owner, page, f"{page}/shares", {"kind": "group", "name": "/physics/", "role": "viewer"})
    assert member.get(page).status_code == 200
    assert outsider.get(page).status_code == 404
    with app.app_context():
        shares = sharing.shares_of(db.session.get(Deployment, deployment_id))
        assert [(s.kind, s.name, s.role, s.granted_by) for s in shares] == [
            ("group", "physics", "viewer", "olga")
        ]


def test_a_co_owner_reveals_and_deletes_and_each_is_recorded_with_who_did_it(
    app, people_for, make_deployment
):
    owner, owner_id = person(app, people_for, "olga", groups=["physics"])
    co, _ = person(app, people_for, "carla")
    deployment_id = make_deployment(
        owner_id, group_name="physics", secret_outputs={"node_creds": "pw-123"}
    )
    page = f"/deployments/{deployment_id}"
    form(owner, page, f"{page}/shares", {"kind": "user", "name": "carla", "role": "co-owner"})
    # A co-owner may not share it further: the same answer as for a deployment not theirs.
    assert form(co, page, f"{page}/shares", {"name": "olga", "role": "viewer"}).status_code == 404

    revealed = form(co, page, f"{page}/secrets", {})
    assert "pw-123" in revealed.get_data(as_text=True)
    timeline = owner.get(page).get_data(as_text=True)
    assert "Passwords and credentials revealed" in timeline and "co-owner by carla" in timeline

    assert form(co, f"{page}/delete", f"{page}/delete", {}).status_code == 302
    with app.app_context():
        deployment = db.session.get(Deployment, deployment_id)
        acted = [
            (e.kind, e.source, db.session.get(User, e.actor_id).username)
            for e in deployment.events
            if e.actor_id
        ]
        assert acted == [
            ("shared", "user", "olga"),
            ("secrets-revealed", "co-owner", "carla"),
            ("delete-requested", "co-owner", "carla"),
        ]
        # Still its owner's: the delete is told to its owner, and it was never charged to
        # anyone else.
        assert deployment.user_id == owner_id
        told = db.session.scalars(db.select(Notification).where(Notification.user_id == owner_id))
        assert [n.kind for n in told] == ["deleted-by-admin"]


def test_lease_warnings_reach_the_owner_and_each_co_owner_in_their_own_language(
    app, people_for, make_deployment
):
    from app.deployments.timeline import record_event
    from app.notifications import mail

    app.config["MAIL_SERVER"] = "127.0.0.1"  # mails are queued, none is sent here
    _o, owner_id = person(app, people_for, "olga", groups=["physics"], locale="en")
    _c, co_id = person(app, people_for, "carla", locale="it")
    _v, viewer_id = person(app, people_for, "vera")
    deployment_id = make_deployment(owner_id, name="Notebook", group_name="physics")
    with app.app_context():
        owner = db.session.get(User, owner_id)
        deployment = db.session.get(Deployment, deployment_id)
        sharing.share(owner, deployment, "user", "carla", "co-owner")
        sharing.share(owner, deployment, "user", "vera", "viewer")
        ends = (deployment.created_at + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        record_event(
            deployment,
            None,
            source="portal",
            kind="lease-warned",
            details={"ends_at": ends, "delete_at": ends},
        )
        db.session.commit()
        told = list(
            db.session.scalars(db.select(Notification).where(Notification.kind == "lease-warning"))
        )
        assert {n.user_id: n.mail_to for n in told} == {
            owner_id: "olga@example.org",
            co_id: "carla@example.org",
        }
        assert viewer_id not in {n.user_id for n in told}
        with mail.portal_links():
            subjects = {n.user_id: mail.build(n).subject for n in told}
    assert subjects[owner_id] != subjects[co_id]
    assert "Notebook" in subjects[owner_id] and "Notebook" in subjects[co_id]
