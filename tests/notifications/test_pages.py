"""The notifications menu and page, the Account page's e-mail choices, and the operators' list
of undelivered mail."""

import re

from flask import render_template
from flask_login import login_required
from sqlalchemy import event

from app.deployments.models import Deployment
from app.deployments.timeline import record_event
from app.extensions import db
from app.notifications.models import MAIL_FAILED
from tests.conftest import People, csrf_from, post_form


def _choices(html: str) -> list[str]:
    """The e-mail choices' checkboxes on a page (the Account page has others: token scopes)."""
    return [
        tag
        for tag in re.findall(r"<input[^>]*>", html)
        if 'type="checkbox"' in tag and 'name="kinds"' in tag
    ]


def _ticked(html: str) -> set[str]:
    """The values of the ticked e-mail choices on a page."""
    return {
        re.search(r'value="([^"]+)"', tag).group(1)
        for tag in _choices(html)
        if re.search(r"\bchecked\b", tag)
    }


def _notices(portal, owner, count):
    for number in range(count):
        deployment = portal.deployment(owner, name=f"Run {number}")
        portal.record(deployment, "failed", source="sync", reason="boom")


def _logged_in(portal, username="ada", roles=()):
    client = portal.app.test_client()
    people = People(portal.app, client)
    user_id = people.create(username, roles=roles, email=f"{username}@example.org")
    assert people.login(username).status_code == 302
    return client, user_id


def test_the_navigation_bar_shows_the_unread_count_and_the_latest_notices(portal_without_mail):
    client, ada = _logged_in(portal_without_mail)
    html = client.get("/deployments/").get_data(as_text=True)
    assert "No unread notifications" in html
    _notices(portal_without_mail, ada, 2)
    html = client.get("/deployments/").get_data(as_text=True)
    assert 'class="badge rounded-pill text-bg-danger notification-count">2' in html
    assert "2 unread notifications" in html
    assert "Run 1 failed to start" in html and "Run 0 failed to start" in html


def test_the_menu_lists_the_five_newest_unread_notices_newest_first(portal_without_mail):
    client, ada = _logged_in(portal_without_mail)
    _notices(portal_without_mail, ada, 7)
    html = client.get("/deployments/").get_data(as_text=True)
    menu = html.split('class="dropdown-menu dropdown-menu-end notifications-menu"')[1]
    menu = menu.split("</div>\n</li>")[0]
    subjects = re.findall(r'<span class="d-block fw-semibold">([^<]*)</span>', menu)
    assert subjects == [f"Run {n} failed to start" for n in (6, 5, 4, 3, 2)]
    links = re.findall(r'href="/notifications/#notification-(\d+)"', menu)
    assert len(links) == 5 and links == sorted(links, key=int, reverse=True)
    assert len(re.findall(r'<time datetime="[^"]+Z">', menu)) == 5


def test_the_bar_counts_unread_notices_in_the_login_check(portal_without_mail):
    app = portal_without_mail.app
    client, ada = _logged_in(portal_without_mail)
    _notices(portal_without_mail, ada, 1)
    seen = []
    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    html = client.get("/catalogue/").get_data(as_text=True)
    assert 'notification-count">1<' in html
    # The login check comes first; no query of the menu's own counts the notices.
    assert "user_sessions" in seen[0] and not any("count(" in s for s in seen[1:])


def test_a_notice_recorded_while_the_page_is_made_is_counted_on_it(portal_without_mail):
    app = portal_without_mail.app
    ada_runs = {}

    @app.get("/test/record-then-draw")
    @login_required
    def record_then_draw():
        record_event(
            db.session.get(Deployment, ada_runs["id"]),
            "failed",
            source="sync",
            reason="boom",
        )
        db.session.commit()
        return render_template("notifications/index.html", notifications=[])

    client, ada = _logged_in(portal_without_mail)
    ada_runs["id"] = portal_without_mail.deployment(ada, name="Run 0")
    html = client.get("/test/record-then-draw").get_data(as_text=True)
    assert 'notification-count">1<' in html


def test_the_page_lists_notifications_and_marks_them_read(portal_without_mail):
    client, ada = _logged_in(portal_without_mail)
    _notices(portal_without_mail, ada, 2)
    page = client.get("/notifications/").get_data(as_text=True)
    assert "Run 0 failed to start" in page and "What to try next" in page
    first = portal_without_mail.notifications(ada)[0].id
    answer = post_form(client, "/notifications/", f"/notifications/{first}/read", {})
    assert answer.status_code == 302
    html = client.get("/notifications/").get_data(as_text=True)
    assert 'notification-count">1<' in html
    assert "Run 0 failed to start" in html
    post_form(client, "/notifications/", "/notifications/read-all", {})
    html = client.get("/notifications/").get_data(as_text=True)
    assert "No unread notifications" in html
    assert all(n.read_at for n in portal_without_mail.notifications(ada))


def test_nobody_marks_someone_elses_notification_read(portal_without_mail):
    _client, ada = _logged_in(portal_without_mail)
    _notices(portal_without_mail, ada, 1)
    other, _bob = _logged_in(portal_without_mail, "bob")
    notice = portal_without_mail.notifications(ada)[0].id
    answer = post_form(other, "/notifications/", f"/notifications/{notice}/read", {})
    assert answer.status_code == 404
    assert portal_without_mail.notifications(ada)[0].read_at is None


def test_the_account_page_has_a_labelled_checkbox_per_kind_with_the_defaults_ticked(portal):
    client, _ada = _logged_in(portal)
    html = client.get("/account/").get_data(as_text=True)
    assert "What you get by e-mail" in html
    assert "are also sent to ada@example.org" in html
    assert len(_choices(html)) == 14
    for label in (
        "A deployment is ready",
        "A deployment failed to start",
        "Deleting a deployment failed",
    ):
        assert f">{label}</label>" in html
    assert _ticked(html) == {
        "failed",
        "lease-warning",
        "line-started",
        "line-dropped",
        "line-removed",
        "budget-warning",
    }


def test_choices_saved_on_the_account_page_decide_what_is_mailed(portal):
    client, ada = _logged_in(portal)
    page = client.get("/account/").get_data(as_text=True)
    answer = client.post(
        "/notifications/email-choices",
        data={"csrf_token": csrf_from(page), "kinds": ["ready", "delete-failed"]},
        follow_redirects=True,
    )
    html = answer.get_data(as_text=True)
    assert "Your e-mail choices are saved." in html
    assert _ticked(html) == {"ready", "delete-failed"}
    _notices(portal, ada, 1)
    assert portal.notifications(ada)[0].mail_status == "none"


def test_a_forged_kind_is_refused_in_words_and_nothing_is_saved(portal):
    client, _ada = _logged_in(portal)
    page = client.get("/account/").get_data(as_text=True)
    answer = client.post(
        "/notifications/email-choices",
        data={"csrf_token": csrf_from(page), "kinds": ["ready", "everything"]},
        follow_redirects=True,
    )
    html = answer.get_data(as_text=True)
    assert "Your e-mail choices were not saved" in html
    assert "not a valid choice" in html
    assert _ticked(html) == {
        "failed",
        "lease-warning",
        "line-started",
        "line-dropped",
        "line-removed",
        "budget-warning",
    }


def test_operators_see_undelivered_mail_and_can_send_it_again(make_app, smtp_server, closed_port):
    from tests.notifications.conftest import Portal

    settings = {**smtp_server.settings(), "MAIL_PORT": closed_port}
    portal = Portal(make_app(**settings, NOTIFICATIONS_MAX_ATTEMPTS=1))
    user_client, ada = _logged_in(portal)
    _notices(portal, ada, 1)
    portal.send()
    assert portal.notifications(ada)[0].mail_status == MAIL_FAILED
    assert user_client.get("/notifications/undelivered").status_code == 403
    operator, _olga = _logged_in(portal, "olga", roles=("operator",))
    html = operator.get("/notifications/undelivered").get_data(as_text=True)
    assert "ada@example.org" in html and "Run 0 failed to start" in html
    assert "refused the connection" in html and "Given up" in html
    assert "Undelivered mail" in operator.get("/notifications/").get_data(as_text=True)
    notice = portal.notifications(ada)[0].id
    answer = post_form(
        operator, "/notifications/undelivered", f"/notifications/{notice}/resend", {}
    )
    assert answer.status_code == 302
    [again] = portal.notifications(ada)
    assert again.mail_status == "queued" and again.mail_attempts == 0
