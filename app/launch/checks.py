"""What a launch is checked for before anything is recorded: the rate of launches, an earlier
identical launch still unconfirmed, and the group to charge. Nothing here commits."""

from __future__ import annotations

from datetime import timedelta

from flask import current_app
from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import func, select

from app.auth.models import User
from app.catalogue.loader import Entry
from app.clock import utcnow
from app.deployments import identity
from app.deployments.errors import LaunchError, TooManyLaunches
from app.deployments.models import Deployment
from app.deployments.status import AWAITING_ANSWER
from app.extensions import db


class LaunchPending(LaunchError):
    """An earlier launch of the same thing is still unconfirmed; launching again could create
    it twice. ``deployment_id`` is that earlier deployment."""

    status_code = 409

    def __init__(self, message: str, deployment_id: int):
        super().__init__(message)
        self.deployment_id = deployment_id


def check_rate(user: User) -> None:
    limit = current_app.config["LAUNCHES_PER_MINUTE"]
    if not limit:
        return
    recent = db.session.scalar(
        select(func.count(Deployment.id)).where(
            Deployment.user_id == user.id,
            Deployment.adopted.is_(False),
            Deployment.created_at >= utcnow() - timedelta(minutes=1),
        )
    )
    if recent >= limit:
        raise TooManyLaunches(
            ngettext(
                "You launched %(num)d time in the last minute, the most this portal allows; "
                "wait a minute and launch again. Nothing was launched.",
                "You launched %(num)d times in the last minute, the most this portal allows; "
                "wait a minute and launch again. Nothing was launched.",
                recent,
            )
        )


def check_pending(user: User, entry: Entry, clear: dict) -> None:
    pending = db.session.scalars(
        select(Deployment).where(
            Deployment.user_id == user.id,
            Deployment.template_slug == entry.slug,
            Deployment.status.in_(sorted(AWAITING_ANSWER)),
            Deployment.deleted.is_(False),
        )
    )
    for earlier in pending:
        if earlier.parameters == clear:
            raise LaunchPending(
                str(entry.backend_words.pending_launch) % {"name": earlier.name}, earlier.id
            )


def chosen_group(user: User, group: str | None) -> str | None:
    """The group to charge: ``group`` if the user is in it, else their first, else none."""
    groups = identity.groups_for(user)
    if group and group not in groups:
        raise LaunchError(
            _("You are not a member of the group \u201c%(group)s\u201d.", group=group), "group"
        )
    return group or (groups[0] if groups else None)
