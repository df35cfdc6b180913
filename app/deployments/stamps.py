"""A person's change stamp: it moves whenever anything their list of deployments shows changes.

The list polls itself every few seconds while something is in progress; most polls find nothing
new. Rather than render the rows to learn that, the poll compares a stamp read from one index
(``ix_deployments_user_shown``): the number of the person's rows, the sum of their
``shown_version`` and the highest id. Every flush that changes a column the list shows bumps
that row's ``shown_version``, whoever writes it (launch, callback, sync, delete, adoption), in
the same UPDATE, so no extra row is locked and no writer can forget. A new row changes the count;
versions only grow, so the sum moves with every change.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import event, func, select
from sqlalchemy.orm import attributes

from app.deployments.models import Deployment
from app.extensions import db

# Every column a row of the list reads, or that decides whether or where a row is listed (the
# filters, the order, ``in_progress``). app.deployments.queries.LIST_COLUMNS must stay within it.
SHOWN = (
    "uuid",
    "user_id",
    "name",
    "template_slug",
    "revision_id",
    "template_name",
    "group_name",
    "charge",
    "status",
    "status_reason",
    "site",
    "region",
    "deployment_type",
    "outputs",
    "created_at",
    "deleted",
)


@event.listens_for(Deployment, "before_update")
def _bump_when_shown_changes(_mapper, _connection, deployment: Deployment) -> None:
    if any(attributes.get_history(deployment, name).has_changes() for name in SHOWN):
        # An expression, not a value read earlier: two writers never lose a bump.
        deployment.shown_version = Deployment.shown_version + 1


def stamp(user_id: int) -> tuple[int, int, int]:
    """The person's change stamp: (rows, sum of versions, highest id), from the index alone."""
    count, versions, highest = db.session.execute(
        select(
            func.count(Deployment.id),
            func.coalesce(func.sum(Deployment.shown_version), 0),
            func.coalesce(func.max(Deployment.id), 0),
        ).where(Deployment.user_id == user_id)
    ).one()
    return int(count), int(versions), int(highest)


def etag(user_id: int, *parts: object) -> str:
    """An entity tag for a view of ``user_id``'s deployments: their stamp and ``parts`` (what
    else the answer depends on, e.g. the filters and the portal's version)."""
    text = repr((user_id, stamp(user_id), parts))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
