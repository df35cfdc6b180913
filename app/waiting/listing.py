"""Every line as operators see it: its requests in order, with their owners, what they ask
for, how long they have waited and why."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from flask import abort
from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.auth.models import User
from app.deployments.models import Deployment
from app.extensions import db
from app.waiting import lines
from app.waiting.models import LineEntry
from app.waiting.presenters import Place, place_of


@dataclass
class ShownLine:
    key: str
    words: str
    entries: list[tuple[LineEntry, str, Place]] = field(default_factory=list)


def every_line(limit: int = 2000) -> list[ShownLine]:
    """The lines with their first ``limit`` requests overall, each line in its order."""
    entries = list(
        db.session.scalars(
            select(LineEntry)
            .join(Deployment, Deployment.id == LineEntry.deployment_id)
            .where(Deployment.status == "WAITING", Deployment.deleted.is_(False))
            .options(selectinload(LineEntry.deployment))
            .order_by(LineEntry.line, lines.sort_clause(), LineEntry.deployment_id)
            .limit(limit)
        )
    )
    owners = dict(
        db.session.execute(
            select(User.id, User.username).where(User.id.in_({e.user_id for e in entries}))
        ).all()
    )
    shown: dict[str, ShownLine] = defaultdict(lambda: ShownLine("", ""))
    for entry in entries:
        line = shown[entry.line]
        if not line.key:
            owner = owners.get(entry.user_id)
            line.key = entry.line
            line.words = lines.Line.from_key(entry.line).operator_words(owner)
        line.entries.append((entry, owners.get(entry.user_id, "?"), place_of(entry)))
    return list(shown.values())


def waiting_deployment(deployment_id: int) -> Deployment:
    """The waiting request ``deployment_id`` (404 when there is none: operators act on any)."""
    deployment = db.session.get(Deployment, deployment_id)
    if deployment is None or deployment.deleted:
        abort(404, _("There is no such request in any line."))
    return deployment
