"""one-line texts without control characters: stored names and reasons lose their line breaks

Revision ID: d5a1c7e3f9b2
Revises: d5a9c3e7f2b4
Create Date: 2026-11-27 17:40:00

The portal now refuses control characters (line breaks, tabs, escapes, NUL, U+2028/U+2029) in
the one-line texts people and scripts give it (see app/text.py). Texts stored before the rule
follow it: each run of control characters becomes one space, and the text is trimmed. The rule
is copied here rather than imported, so that this step replays the same whatever app/text.py
becomes. Timeline reasons written by the orchestrator (sources "sync" and "callback") are its
own, possibly several lines, and stay as they are; so do texts that are documents (TOSCA,
sidecars) and group names that are keys of a unique index (quota limits, lease policies), which
come from the identity provider and are compared as they arrive. Not undone on downgrade: the
old code reads one-line texts as well.
"""

import re

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "d5a1c7e3f9b2"
down_revision = "d5a9c3e7f2b4"
branch_labels = None
depends_on = None

_RUNS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
# (table, column, a condition on the rows to read, or None)
ONE_LINE = (
    ("deployments", "name", None),
    ("deployments", "template_name", None),
    ("deployments", "group_name", None),
    ("access_tokens", "name", None),
    ("deployment_events", "reason", ("source", ("sync", "callback"))),
    ("quota_changes", "reason", None),
    ("lease_policy_changes", "reason", None),
    ("template_revisions", "message", None),
)


def _flatten(text):
    return _RUNS.sub(" ", text).strip()


def upgrade():
    connection = op.get_bind()
    for table_name, column_name, not_from in ONE_LINE:
        columns = [sa.column("id", sa.Integer), sa.column(column_name, sa.Text)]
        if not_from:
            columns.append(sa.column(not_from[0], sa.String))
        table = sa.table(table_name, *columns)
        column = table.c[column_name]
        query = sa.select(table.c.id, column).where(column.is_not(None))
        if not_from:
            query = query.where(table.c[not_from[0]].not_in(not_from[1]))
        changed = [
            {"row": row_id, "text": _flatten(text)}
            for row_id, text in connection.execute(query)
            if _RUNS.search(text)
        ]
        if changed:
            connection.execute(
                table.update()
                .where(table.c.id == sa.bindparam("row"))
                .values({column_name: sa.bindparam("text")}),
                changed,
            )


def downgrade():
    pass
