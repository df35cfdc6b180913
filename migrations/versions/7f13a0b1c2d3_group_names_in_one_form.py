"""group names in one form: no slash at either end ("/physics/cms" becomes "physics/cms")

Revision ID: 7f13a0b1c2d3
Revises: 7e0a1b2c3d4e
Create Date: 2026-11-25 10:00:00

Logins now store groups the way app.auth.groups writes them, and operators' typed names are
read the same way. Stored data follows: users' groups, and the quota limits and their history
named after a group. Where a group had limits under both spellings, the row changed last is
kept (it is the one an operator meant most recently). Not undone on downgrade: the old code
reads the new form as well as it read names that never had a slash.
"""

import json

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "7f13a0b1c2d3"
down_revision = "7e0a1b2c3d4e"
branch_labels = None
depends_on = None

GROUP_SCOPES = ("member", "group")


def _normal(name):
    return str(name).strip().strip("/").strip()


def _groups_of(value):
    if isinstance(value, str):
        value = json.loads(value or "[]")
    return value or []


def upgrade():
    connection = op.get_bind()
    users = sa.table("users", sa.column("id", sa.Integer), sa.column("groups", sa.JSON))
    for user_id, stored in connection.execute(sa.select(users.c.id, users.c.groups)).all():
        groups = _groups_of(stored)
        normal = sorted({_normal(g) for g in groups if _normal(g)})
        if normal != groups:
            connection.execute(users.update().where(users.c.id == user_id).values(groups=normal))

    limits = sa.table(
        "quota_limits",
        sa.column("id", sa.Integer),
        sa.column("scope", sa.String),
        sa.column("subject", sa.String),
        sa.column("updated_at", sa.DateTime),
    )
    rows = connection.execute(
        sa.select(limits.c.id, limits.c.scope, limits.c.subject)
        .where(limits.c.scope.in_(GROUP_SCOPES))
        .order_by(limits.c.updated_at.desc(), limits.c.id.desc())
    ).all()
    kept = set()
    for row_id, scope, subject in rows:
        key = (scope, _normal(subject))
        if key in kept:
            connection.execute(limits.delete().where(limits.c.id == row_id))
        else:
            kept.add(key)
    # Renamed once no two rows can meet under one name (the pair is unique).
    for row_id, scope, subject in rows:
        if subject != _normal(subject) and (scope, _normal(subject)) in kept:
            connection.execute(
                limits.update().where(limits.c.id == row_id).values(subject=_normal(subject))
            )

    changes = sa.table(
        "quota_changes",
        sa.column("id", sa.Integer),
        sa.column("scope", sa.String),
        sa.column("subject", sa.String),
    )
    named = connection.execute(
        sa.select(changes.c.id, changes.c.subject).where(changes.c.scope.in_(GROUP_SCOPES))
    ).all()
    for row_id, subject in named:
        if subject != _normal(subject):
            connection.execute(
                changes.update().where(changes.c.id == row_id).values(subject=_normal(subject))
            )


def downgrade():
    pass
