"""Leases as the pages show them: time left, its tone, the end, and whether one may extend."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from flask_babel import gettext as _
from flask_babel import ngettext
from flask_login import current_user
from sqlalchemy import select

from app.clock import utcnow
from app.extensions import db
from app.leases.clock_text import iso, shown
from app.leases.durations import spoken_duration
from app.leases.models import DELETE_FAILED, DELETING, GRACE, RUNNING, WAITING, Lease
from app.leases.operations import ExtendOffer, offer
from app.leases.policy import Policy, resolve


def time_left(until: datetime, now: datetime) -> str:
    """``2 days 3 hours``, ``5 hours 10 minutes``, ``4 minutes``; for the countdown's first
    drawing (the page's script keeps it current)."""
    minutes = max(int((until - now).total_seconds() // 60), 0)
    days, hours, mins = minutes // 1440, minutes % 1440 // 60, minutes % 60
    if days:
        return _(
            "%(days)s %(hours)s",
            days=ngettext("%(num)d day", "%(num)d days", days),
            hours=ngettext("%(num)d hour", "%(num)d hours", hours),
        )
    if hours:
        return _(
            "%(hours)s %(mins)s",
            hours=ngettext("%(num)d hour", "%(num)d hours", hours),
            mins=ngettext("%(num)d minute", "%(num)d minutes", mins),
        )
    return ngettext("%(num)d minute", "%(num)d minutes", mins)


@dataclass
class LeaseView:
    state: str
    tone: str  # secondary, warning (after the first warning), danger (grace, delete failed)
    ends_at: datetime | None
    delete_at: datetime | None
    minutes: int | None
    left: str
    extend: ExtendOffer
    problem: str | None
    may_override: bool
    chosen: str | None
    # When the countdown turns amber (the first warning), for the page's script.
    amber_at: datetime | None = None
    now: datetime | None = None

    @property
    def now_iso(self) -> str | None:
        return iso(self.now)

    @property
    def amber_iso(self) -> str | None:
        return iso(self.amber_at)

    @property
    def new_end_iso(self) -> str | None:
        return iso(self.extend.new_end)

    @property
    def new_end_text(self) -> str:
        return shown(self.extend.new_end)

    @property
    def ends_iso(self) -> str | None:
        return iso(self.ends_at)

    @property
    def ends_text(self) -> str:
        return shown(self.ends_at)

    @property
    def delete_iso(self) -> str | None:
        return iso(self.delete_at)

    @property
    def delete_text(self) -> str:
        return shown(self.delete_at)

    @property
    def cap_iso(self) -> str | None:
        return iso(self.extend.cap_end)

    @property
    def cap_text(self) -> str:
        return shown(self.extend.cap_end)


def view(lease: Lease, policy: Policy, now: datetime) -> LeaseView:
    tone, left = "secondary", ""
    if lease.state == RUNNING and lease.ends_at:
        first = policy.warnings[0] if policy.warnings else None
        warned = lease.warned_before is not None or (
            first is not None and now >= lease.ends_at - timedelta(minutes=first)
        )
        tone, left = ("warning" if warned else "secondary"), time_left(lease.ends_at, now)
    elif lease.state == GRACE and lease.delete_at:
        tone, left = "danger", time_left(lease.delete_at, now)
    elif lease.state in (DELETING, DELETE_FAILED):
        tone = "danger"
    return LeaseView(
        state=lease.state,
        tone=tone,
        ends_at=lease.ends_at,
        delete_at=lease.delete_at,
        minutes=lease.minutes,
        left=left,
        extend=offer(lease, policy, now),
        problem=lease.problem,
        may_override=bool(current_user and (current_user.is_operator or current_user.is_admin)),
        chosen=spoken_duration(lease.minutes) if lease.minutes and lease.state == WAITING else None,
        amber_at=(
            lease.ends_at - timedelta(minutes=policy.warnings[0])
            if policy.warnings and lease.ends_at and tone == "secondary"
            else None
        ),
        now=now,
    )


def load(deployments) -> dict[int, LeaseView]:
    """The lease of each deployment that has one worth showing, in one query."""
    ids = [d.id for d in deployments]
    leases = db.session.scalars(select(Lease).where(Lease.deployment_id.in_(ids))).all()
    by_id = {d.id: d for d in deployments}
    policies: dict[tuple, Policy] = {}
    now = utcnow()
    shown_leases = {}
    for lease in leases:
        if lease.state not in (WAITING, RUNNING, GRACE, DELETING, DELETE_FAILED):
            continue
        if lease.state == WAITING and not lease.minutes:
            continue
        deployment = by_id[lease.deployment_id]
        key = (deployment.template_slug, deployment.group_name)
        if key not in policies:
            policies[key] = resolve(*key)
        shown_leases[lease.deployment_id] = view(lease, policies[key], now)
    return shown_leases
