"""the portal's own status words: stored statuses no longer are the orchestrator's

Revision ID: e1b7c4d2a9f3
Revises: d5a1c7e3f9b2
Create Date: 2026-11-27 21:50:00

Deployments are made by backends (the PaaS orchestrator today, the Infrastructure Manager
next), and each maps its own states onto the portal's words. Stored statuses (on deployments
and in their timelines) become those words; each deployment gains the name of its backend
(every one so far was made by the orchestrator: "paas") and keeps the backend's own word for
its state, for admins. The steering options kept with each create are renamed the portal's
way too. The mapping is copied here rather than imported, so that this step
replays the same whatever the code becomes. Statuses the portal adds itself (SUBMITTING,
UNCONFIRMED, NOT_LAUNCHED, VANISHED) and any it does not know stay as they are.
"""

from alembic import op
import sqlalchemy as sa


revision = "e1b7c4d2a9f3"
down_revision = "d5a1c7e3f9b2"
branch_labels = None
depends_on = None

WORDS = {
    "CREATE_IN_PROGRESS": "creating",
    "CREATE_COMPLETE": "ready",
    "CREATE_FAILED": "failed",
    "UPDATE_IN_PROGRESS": "updating",
    "UPDATE_COMPLETE": "updated",
    "UPDATE_FAILED": "update-failed",
    "DELETE_IN_PROGRESS": "deleting",
    "DELETE_COMPLETE": "deleted",
    "DELETE_FAILED": "delete-failed",
    "UNKNOWN": "unknown",
}
# The steering options kept with each create, from the orchestrator's names to the portal's.
OPTIONS = {
    "keepLastAttempt": "keep_failed_attempt",
    "timeoutMins": "timeout_minutes",
    "providerTimeoutMins": "provider_timeout_minutes",
    "maxProvidersRetry": "max_provider_retries",
    "userGroup": "group",
}
STATUS_COLUMNS = (
    ("deployments", "status"),
    ("deployment_events", "from_status"),
    ("deployment_events", "to_status"),
)


def _rename(mapping: dict[str, str]) -> None:
    for table, column in STATUS_COLUMNS:
        for old, new in mapping.items():
            op.execute(
                sa.text(f"UPDATE {table} SET {column} = :new WHERE {column} = :old").bindparams(
                    old=old, new=new
                )
            )


def _rename_options(mapping: dict[str, str]) -> None:
    connection = op.get_bind()
    table = sa.table("deployments", sa.column("id"), sa.column("request_options", sa.JSON))
    for row_id, options in connection.execute(sa.select(table.c.id, table.c.request_options)):
        if not isinstance(options, dict) or not set(options) & set(mapping):
            continue
        renamed = {mapping.get(key, key): value for key, value in options.items()}
        connection.execute(
            sa.update(table).where(table.c.id == row_id).values(request_options=renamed)
        )


def upgrade():
    with op.batch_alter_table("deployments") as batch:
        batch.add_column(
            sa.Column("backend", sa.String(length=20), nullable=False, server_default="paas")
        )
        batch.add_column(sa.Column("backend_state", sa.String(length=40), nullable=True))
    # The backend's own word, before the status becomes the portal's.
    op.execute(
        sa.text("UPDATE deployments SET backend_state = status WHERE status IN :known").bindparams(
            sa.bindparam("known", value=tuple(WORDS), expanding=True)
        )
    )
    _rename(WORDS)
    _rename_options(OPTIONS)


def downgrade():
    _rename_options({new: old for old, new in OPTIONS.items()})
    _rename({new: old for old, new in WORDS.items()})
    with op.batch_alter_table("deployments") as batch:
        batch.drop_column("backend_state")
        batch.drop_column("backend")
