"""Which line a request is in, its place there, and when what it waits for is due back.

A line is one limit that running deployments fill: a resource (GPUs of a model, GPUs, cores,
memory, disk, deployments) of one owner (a group's pool or a person's own limit). A request
joins the line of the limit it was short of when it asked (the pool before the person, a GPU
model before the other resources), and its place is its rank there by the written-down order
(``fairness``). A request its quotas let start but that no known site has room for joins the
line of what the sites lack (scope ``site``): it starts when a site has room.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import and_, func, or_, select

from app.deployments.models import Deployment
from app.extensions import db
from app.leases.models import Lease
from app.lines.fairness import Key
from app.lines.models import LineEntry
from app.quotas.amounts import amount_text
from app.quotas.fit import Assessment
from app.quotas.holding import holding_clause
from app.quotas.models import (
    GROUP,
    IN_GROUP,
    USER,
    QuotaCharge,
    QuotaGpuCharge,
    member_subject,
)
from app.quotas.usage import holders_of

RESOURCES = ("cores", "memory", "disk", "gpus", "deployments")
# The scope of the lines of requests no known site has room for.
SITE = "site"


@dataclass(frozen=True)
class Line:
    """One line: ``scope`` "group" or "user", ``subject`` the group's name or the user's id,
    ``resource`` and, for GPUs of one model, ``model``."""

    scope: str
    subject: str
    resource: str
    model: str | None = None

    @property
    def key(self) -> str:
        return f"{self.scope}:{self.subject}:{self.resource}:{self.model or ''}"

    @classmethod
    def from_key(cls, key: str) -> Line:
        scope, rest = key.split(":", 1)
        subject, resource, model = rest.rsplit(":", 2)
        return cls(scope, subject, resource, model or None)

    def words(self) -> str:
        """``A100 GPUs in group gpu-users``, ``GPUs under your own limit``."""
        what = self.what()
        if self.scope == GROUP:
            return _("%(what)s in group %(group)s", what=what, group=self.subject)
        if self.scope == SITE:
            return _("%(what)s free at a site", what=what)
        return _("%(what)s under your own limit", what=what)

    def operator_words(self, username: str | None = None) -> str:
        """The line named for operators: ``A100 GPUs in group gpu-users``, ``GPUs under the
        own limit of ada``."""
        if self.scope in (GROUP, SITE):
            return self.words()
        return _(
            "%(what)s under the own limit of %(user)s",
            what=self.what(),
            user=username or self.subject,
        )

    def what(self) -> str:
        if self.model:
            return _("%(model)s GPUs", model=self.model)
        return {
            "gpus": _("GPUs"),
            "cores": _("CPU cores"),
            "memory": _("memory"),
            "disk": _("disk"),
            "deployments": _("deployments"),
        }.get(self.resource, self.resource)


def line_of(user_id: int, assessments: list[Assessment]) -> Line | None:
    """The line of a request short of what ``assessments`` say (None if nothing is short)."""
    found = [(assessment, bar) for assessment in assessments for bar in assessment.misfits()]
    if not found:
        return None

    def rank(item):
        assessment, bar = item
        return (assessment.group is None or assessment.member, bar.model is None, bar.key != "gpus")

    assessment, bar = min(found, key=rank)
    # Short of their own limits inside a group: what frees it is their own deployments, as
    # for their own limit; they wait in their own line.
    if assessment.group is None or assessment.member:
        return Line(USER, str(user_id), bar.key, bar.model)
    return Line(GROUP, assessment.group, bar.key, bar.model)


def site_line(charge: dict) -> Line:
    """The line of a request no known site has room for: its GPUs (of its model) when it asks
    for any, else its cores."""
    models = sorted((charge.get("gpu_models") or {}).keys())
    if models or charge.get("gpus"):
        return Line(SITE, "any", "gpus", models[0] if models else None)
    return Line(SITE, "any", "cores")


def needs_of(user_id: int, group_name: str | None, charge: dict) -> dict[Key, float]:
    """What a request with ``charge`` needs of each limit it counts against."""
    amounts = {
        resource: 1.0 if resource == "deployments" else float(charge.get(resource) or 0)
        for resource in RESOURCES
    }
    models = {model: float(n) for model, n in (charge.get("gpu_models") or {}).items()}
    owners = [(USER, str(user_id))]
    if group_name:
        owners += [(GROUP, group_name), (IN_GROUP, member_subject(user_id, group_name))]
    needs: dict[Key, float] = {}
    for scope, subject in owners:
        for resource, amount in amounts.items():
            needs[(scope, subject, resource, None)] = amount
        for model, amount in models.items():
            needs[(scope, subject, "gpus", model)] = amount
    return needs


def sort_clause():
    """The order of a line in SQL (``fairness.order_key``)."""
    fair = current_app.config["LINE_FAIR_SHARE"]
    return func.coalesce(LineEntry.placed_at, LineEntry.fair_at if fair else LineEntry.enqueued_at)


def position(entry: LineEntry) -> int:
    """``entry``'s place in its line, 1 for the first."""
    fair = current_app.config["LINE_FAIR_SHARE"]
    mine = entry.placed_at or (entry.fair_at if fair else entry.enqueued_at)
    ahead = db.session.scalar(
        select(func.count())
        .select_from(LineEntry)
        .where(
            LineEntry.line == entry.line,
            or_(
                sort_clause() < mine,
                and_(sort_clause() == mine, LineEntry.deployment_id < entry.deployment_id),
            ),
        )
    )
    return int(ahead or 0) + 1


def due_back(entry: LineEntry, place: int) -> datetime | None:
    """About when what ``entry`` waits for comes back for it: the leases of the deployments
    that hold the line's resource, ending one after another, until what they hand back covers
    this request and those ahead of it. None when what holds it has no end set."""
    line = Line.from_key(entry.line)
    charge = entry.deployment.charge or {}
    if line.scope == SITE:
        # The sites' numbers say nothing of when room comes back; what the portal knows is
        # when its own deployments holding the same resource end (``Place`` says so).
        need = float(
            (charge.get("gpu_models") or {}).get(line.model, 0)
            if line.model
            else charge.get(line.resource) or 0
        )
        amounts = _site_holders(line)
    else:
        need = needs_of(entry.user_id, entry.deployment.group_name, charge).get(
            (line.scope, line.subject, line.resource, line.model), 0.0
        )
        holders = (
            holders_of(group_name=line.subject)
            if line.scope == GROUP
            else holders_of(user_id=int(line.subject))
        )
        amounts = {h.id: h.amount(line.resource, line.model) for h in holders}
        amounts = {key: value for key, value in amounts.items() if value > 0}
    if not amounts:
        return None
    ends = db.session.execute(
        select(Lease.deployment_id, func.coalesce(Lease.delete_at, Lease.ends_at))
        .where(Lease.deployment_id.in_(list(amounts)))
        .order_by(func.coalesce(Lease.delete_at, Lease.ends_at))
    ).all()
    # What must come back: this request's need, and as much again for each one ahead.
    wanted = need * place
    freed = 0.0
    for deployment_id, end in ends:
        if end is None:
            continue
        freed += amounts[deployment_id]
        if freed + 1e-9 >= wanted:
            return end
    return None


def _site_holders(line: Line) -> dict[int, float]:
    """What each of the portal's deployments holds of a site line's resource, whoever owns
    it: the GPUs of its model, all GPUs, or cores."""
    if line.model:
        amount = QuotaGpuCharge.count
        statement = select(Deployment.id, amount).join(
            QuotaGpuCharge, QuotaGpuCharge.deployment_id == Deployment.id
        )
        statement = statement.where(QuotaGpuCharge.model == line.model)
    else:
        amount = QuotaCharge.gpus if line.resource == "gpus" else QuotaCharge.cores
        statement = select(Deployment.id, amount).join(
            QuotaCharge, QuotaCharge.deployment_id == Deployment.id
        )
    rows = db.session.execute(statement.where(holding_clause(), amount > 0))
    return {deployment_id: float(held) for deployment_id, held in rows}


def amount_words(line: Line, amount: float) -> str:
    return amount_text(line.resource, amount, line.model)


def waiting_of(deployment_ids) -> dict[int, LineEntry]:
    """The line entries of those of ``deployment_ids`` that wait, by deployment id."""
    ids = list(deployment_ids)
    if not ids:
        return {}
    rows = db.session.scalars(select(LineEntry).where(LineEntry.deployment_id.in_(ids)))
    return {entry.deployment_id: entry for entry in rows}
