"""Telling people that a budget is nearly or wholly used (``BUDGET_WARNINGS``, from the
quotas' budgets pass): the person whose budget it is, or every manager of the group (named,
or by membership), each in the portal and by mail by their own choices. The figures are kept
with each notice; the words are found when it is read, in its reader's language
(``wording``)."""

from __future__ import annotations

from app.auth.managers import managers_of
from app.auth.models import User
from app.clock import utcnow
from app.extensions import db
from app.notifications import kinds
from app.notifications.listener import queue_mail
from app.notifications.models import Notification

# The budgets' scopes, as the quotas write them.
_GROUP = "group"


def tell_budget_reached(news) -> None:
    """A notice of ``news`` (a ``BudgetReached``) for each person it concerns, added to the
    session: the budgets pass commits them with its record of the warning."""
    details = {
        "scope": news.scope,
        "owner": news.owner,
        "counts": news.counts,
        "model": news.model,
        "hours": news.hours,
        "used": round(news.used, 3),
        "threshold": news.threshold,
        "period_days": news.period_days,
        "renews_on": news.renews_on.isoformat() if news.renews_on else None,
    }
    for reader in readers(news.scope, news.subject):
        notice = Notification(
            user_id=reader.id,
            deployment_id=None,
            kind=kinds.BUDGET_WARNING,
            details=dict(details),
            created_at=utcnow(),
        )
        queue_mail(notice, reader)
        db.session.add(notice)


def readers(scope: str, subject: str) -> list[User]:
    """Who is told of a budget of ``scope`` and ``subject``: the group's managers, or the
    person; those who may no longer log in are not."""
    if scope == _GROUP:
        people = managers_of(subject)
    else:
        person = db.session.get(User, int(subject))
        people = [person] if person is not None else []
    return [person for person in people if person.active]
