"""Leases as the pages show them: time left, its tone, the end, and whether one may extend."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache

from flask_babel import get_translations, ngettext
from flask_babel import gettext as _
from flask_login import current_user
from sqlalchemy import bindparam, select

from app.clock import utcnow
from app.extensions import db
from app.leases import schedule
from app.leases.clock_text import iso, shown
from app.leases.durations import spoken_duration
from app.leases.models import DELETE_FAILED, DELETING, DONE, GRACE, RUNNING, WAITING, Lease
from app.leases.operations import ExtendOffer, offer
from app.leases.policy import Policy, resolve, resolver
from app.leases.wording import problem_shown

# The countdown's units: the same messages ``time_left`` says, handed to the page's script.
_UNITS = {
    "day": ("%(num)d day", "%(num)d days"),
    "hour": ("%(num)d hour", "%(num)d hours"),
    "minute": ("%(num)d minute", "%(num)d minutes"),
}


def countdown_words() -> dict[str, str]:
    """The countdown's words in the reader's language, for the script that keeps it current
    (``static/js/leases.js``): each unit's forms for one and for more (``%(num)d`` where the
    number goes), and the two ways two units are joined."""
    translations = get_translations()
    words = {}
    for unit, (one, many) in _UNITS.items():
        words[f"{unit}-one"] = translations.ungettext(one, many, 1)
        words[f"{unit}-other"] = translations.ungettext(one, many, 2)
    words["days-hours"] = translations.ugettext("%(days)s %(hours)s")
    words["hours-minutes"] = translations.ugettext("%(hours)s %(mins)s")
    return words


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


def _warned(lease: Lease, policy: Policy, now: datetime) -> bool:
    """Whether a running lease is past its first warning, by the policy as it is now: a warning
    given under an older policy with longer warnings does not make it amber early."""
    first = schedule.first_warning_at(lease, policy)
    return first is not None and now >= first


def view(lease: Lease, policy: Policy, now: datetime) -> LeaseView:
    tone, left = "secondary", ""
    if lease.state == RUNNING and lease.ends_at:
        warned = _warned(lease, policy, now)
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
        problem=problem_shown(lease.problem),
        may_override=bool(current_user and (current_user.is_operator or current_user.is_admin)),
        chosen=spoken_duration(lease.minutes) if lease.minutes and lease.state == WAITING else None,
        amber_at=(
            schedule.first_warning_at(lease, policy)
            if lease.ends_at and tone == "secondary"
            else None
        ),
        now=now,
    )


# The states whose lease a page shows (a waiting one only once a duration was chosen).
_SHOWN = (WAITING, RUNNING, GRACE, DELETING, DELETE_FAILED)


@cache
def _leases_of():
    """The leases of a page's deployments ("ids"), as plain rows of the table's columns, named
    as ``Lease``'s attributes: a page only reads them, and a statement naming the entity went
    through the ORM's loading, each lease built and tracked, at every list page. Built once."""
    table = Lease.__table__
    return select(table).where(table.c.deployment_id.in_(bindparam("ids", expanding=True)))


def load(deployments) -> dict[int, LeaseView]:
    """The lease of each deployment that has one worth showing, in one query."""
    ids = [d.id for d in deployments]
    leases = db.session.connection().execute(_leases_of(), {"ids": ids}).all()
    by_id = {d.id: d for d in deployments}
    policies: dict[tuple, Policy] = {}
    now = utcnow()
    shown_leases = {}
    for lease in leases:
        if lease.state not in _SHOWN:
            continue
        if lease.state == WAITING and not lease.minutes:
            continue
        deployment = by_id[lease.deployment_id]
        key = (deployment.template_slug, deployment.group_name)
        if key not in policies:
            policies[key] = resolve(*key)
        shown_leases[lease.deployment_id] = view(lease, policies[key], now)
    return shown_leases


# A lease's phase as scripts read it (the API): a small fixed vocabulary over the states.
PHASES = ("none", "running", "warned", "grace", "expired")


@dataclass
class LeaseSummary:
    """A deployment's lease for scripts: the same figures and refusal the page shows."""

    state: str  # one of PHASES
    ends_at: datetime | None
    delete_at: datetime | None
    minutes: int | None  # the duration chosen (its clock may not have started)
    extend: ExtendOffer
    extends_used: int
    extends_left: int | None  # None: no limit
    cap_minutes: int | None  # None: no cap
    cap_end: datetime | None  # the latest the lease may be extended to, once started


def phase(lease: Lease | None, policy: Policy, now: datetime) -> str:
    """none (no clock running: no lease, waiting for ready, a failed creation), running,
    warned (past the first warning), grace (ended, not yet deleted), expired (deleted or
    being deleted at its end)."""
    if lease is None or lease.ends_at is None:
        return "none"
    if lease.state == RUNNING:
        return "warned" if _warned(lease, policy, now) else "running"
    if lease.state == GRACE:
        return "grace"
    if lease.state in (DELETING, DELETE_FAILED) or (lease.state == DONE and lease.ends_at <= now):
        return "expired"
    return "none"


def summary(lease: Lease | None, policy: Policy, now: datetime) -> LeaseSummary:
    if not policy.extend_step:
        left = 0
    elif policy.max_extends is None:
        left = None
    else:
        left = max(policy.max_extends - (lease.extends if lease else 0), 0)
    return LeaseSummary(
        state=phase(lease, policy, now),
        ends_at=lease.ends_at if lease else None,
        delete_at=lease.delete_at if lease else None,
        minutes=lease.minutes if lease else None,
        extend=offer(lease, policy, now),
        extends_used=lease.extends if lease else 0,
        extends_left=left,
        cap_minutes=policy.cap,
        cap_end=policy.cap_end(lease.started_at) if lease and lease.started_at else None,
    )


def summaries(deployments) -> dict[int, LeaseSummary]:
    """Every deployment's lease summary (including "none"), in one query for the leases and
    one for the policies."""
    ids = [d.id for d in deployments]
    leases = {
        lease.deployment_id: lease
        for lease in db.session.scalars(select(Lease).where(Lease.deployment_id.in_(ids)))
    }
    policies, now = resolver(), utcnow()
    return {
        d.id: summary(leases.get(d.id), policies(d.template_slug, d.group_name), now)
        for d in deployments
    }
