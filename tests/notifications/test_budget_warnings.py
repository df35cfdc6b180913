"""Warnings of a budget nearly or wholly used: at 80 and at 100 per cent, once per budget,
period and threshold, to the person or to every manager of the group (named, and by
membership), in the portal and by mail, each by their own choices and in their language."""

from datetime import datetime, timedelta

import pytest

from app.auth.managers import name_manager
from app.auth.models import User
from app.clock import set_clock
from app.extensions import db
from app.notifications import kinds
from app.notifications.models import MAIL_NONE, MAIL_QUEUED, Notification
from app.notifications.preferences import choose_email_kinds
from app.notifications.wording import compose
from app.quotas.budget_warnings import warn_once
from app.quotas.budgets import set_budget
from app.quotas.models import GROUP, USER
from app.quotas.usage_models import BudgetWarning
from tests.clocks import Clock
from tests.quotas.conftest import Quotas, charge

START = datetime(2026, 11, 1, 0, 0)
A100 = "gpus:A100"


@pytest.fixture
def clock():
    at = Clock(START)
    set_clock(at)
    yield at
    set_clock(None)


def _budget(app, scope, subject, resource, hours, period_days=0):
    with app.app_context():
        set_budget(None, scope, str(subject), resource, hours, period_days, "term")


def _warn(app) -> int:
    with app.app_context():
        return warn_once().given


def _notices(app, user_id):
    with app.app_context():
        rows = list(
            db.session.scalars(
                db.select(Notification)
                .where(Notification.user_id == user_id, Notification.kind == kinds.BUDGET_WARNING)
                .order_by(Notification.id)
            )
        )
        for row in rows:
            db.session.expunge(row)
        return rows


def _words(app, notice, language="en"):
    with app.test_request_context(headers={"Accept-Language": language}):
        message = compose(notice)
        return message.subject, message.paragraphs


def test_a_group_budget_warns_each_of_its_managers_once_at_80_and_once_at_100_per_cent(
    portal, smtp_server, clock
):
    app = portal.app
    ada = portal.user("ada", "ada@example.org", groups=["physics"])
    bob = portal.user("bob", "bob@example.org")
    carol = portal.user(
        "carol", "carol@example.org", managed_by_membership=["physics"], locale="it"
    )
    dan = portal.user("dan", "dan@example.org")
    with app.app_context():
        name_manager("physics", db.session.get(User, bob), named_by="admin")
        name_manager("physics", db.session.get(User, dan), named_by="admin")
        db.session.get(User, dan).active = False  # may no longer log in: not told
        db.session.commit()
        # bob wants no budget mails: told in the portal only.
        choose_email_kinds(db.session.get(User, bob), set())
    quotas = Quotas(app)
    quotas.hold(ada, charge(gpus=10, gpu_models={"A100": 10}), group_name="physics")
    _budget(app, GROUP, "physics", A100, 2000)

    clock.at = START + timedelta(hours=150)  # 1,500 GPU-hours: 75 %
    assert _warn(app) == 0
    clock.at = START + timedelta(hours=162)  # 1,620: 81 %
    assert _warn(app) == 1
    assert _warn(app) == 0  # once per period and threshold
    [to_bob], [to_carol] = _notices(app, bob), _notices(app, carol)
    assert _notices(app, ada) == [] and _notices(app, dan) == []
    assert (to_bob.mail_status, to_carol.mail_status) == (MAIL_NONE, MAIL_QUEUED)
    subject, paragraphs = _words(app, to_bob)
    assert subject == "Group physics has used 81% of its 2,000 A100 GPU-hours"
    assert paragraphs[0] == (
        "Group physics has used 81% of its 2,000 A100 GPU-hours this month; renewed on 1 December."
    )
    assert paragraphs[1].startswith("380 A100 GPU-hours are left;")
    assert paragraphs[2] == "You are told as a manager of group physics."

    # Carol's mail, in her language, through the real SMTP server.
    assert portal.send().sent == 1
    [mail] = smtp_server.wait_for(1)
    assert mail["To"] == "carol@example.org"
    assert mail["Subject"].strip() == "Gruppo physics: 81% delle sue 2.000 ore-GPU A100 già usato"
    text = mail.get_body(("plain",)).get_content()
    assert "già usato questo mese; si rinnova il 1 dicembre." in text

    clock.at = START + timedelta(hours=200)  # 2,000: all of it
    assert _warn(app) == 1
    assert _warn(app) == 0
    latest = _notices(app, bob)[-1]
    assert _words(app, latest)[0] == "Group physics has used all of its 2,000 A100 GPU-hours"
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(BudgetWarning)) == 2

    # A new month warns again, once it is used as much.
    clock.at = datetime(2026, 12, 7, 16, 0)  # 160 hours of December: 80 %
    assert _warn(app) == 1
    assert [n.details["threshold"] for n in _notices(app, carol)] == [80, 100, 80]


def test_a_person_budget_warns_the_person_and_warns_again_when_it_is_raised(
    portal, smtp_server, clock
):
    app = portal.app
    ada = portal.user("ada", "ada@example.org")
    quotas = Quotas(app)
    quotas.hold(ada, charge(cores=10))
    _budget(app, USER, ada, "cores", 1000, period_days=30)
    clock.at = START + timedelta(hours=85)  # 850 core-hours: 85 %
    assert _warn(app) == 1
    [notice] = _notices(app, ada)
    subject, paragraphs = _words(app, notice)
    assert subject == "You have used 85% of your 1,000 core-hours"
    assert paragraphs[0] == "You have used 85% of your 1,000 core-hours over the last 30 days."
    assert len(paragraphs) == 2
    assert portal.send().sent == 1
    [mail] = smtp_server.wait_for(1)
    assert mail["Subject"] == subject and mail["To"] == "ada@example.org"

    _budget(app, USER, ada, "cores", 2000, period_days=30)  # 850 of 2,000: no warning
    assert _warn(app) == 0
    clock.at = START + timedelta(hours=160)  # 1,600 of 2,000: 80 % of the new amount
    assert _warn(app) == 1
    assert [n.details["hours"] for n in _notices(app, ada)] == [1000, 2000]


def test_a_group_without_managers_and_a_budget_of_nothing_tell_no_one(portal, clock):
    app = portal.app
    ada = portal.user("ada", "ada@example.org")
    Quotas(app).hold(ada, charge(cores=10), group_name="chemistry")
    _budget(app, GROUP, "chemistry", "cores", 10)
    _budget(app, USER, ada, "cores", 0)
    clock.at = START + timedelta(hours=5)
    assert _warn(app) == 1  # recorded once, though no one manages chemistry
    assert _warn(app) == 0
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Notification)) == 0
