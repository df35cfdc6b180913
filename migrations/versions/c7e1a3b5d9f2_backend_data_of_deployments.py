"""what a backend keeps of a deployment is the backend's: its owner and task move into its data

Revision ID: c7e1a3b5d9f2
Revises: a1c3e5f7b9d2
Create Date: 2026-11-28 11:00:00

The orchestrator's word for who made a deployment (``orchestrator_owner``) and its current task
(``task``) were columns of every deployment, whatever its backend. They move into
``backend_data``, a JSON object the deployment's backend alone writes (as ``owner`` and
``task``; a missing value is left out). The secret a backend refers back to the record with is
the portal's, whichever backend holds it (in a callback address or in a tag):
``callback_secret`` becomes ``reference_secret``. Values are moved by one statement per
column on both databases, so 100,000 rows move without being read into Python; the downgrade
puts them back.
"""

from alembic import op
import sqlalchemy as sa


revision = "c7e1a3b5d9f2"
down_revision = "a1c3e5f7b9d2"
branch_labels = None
depends_on = None

# The data's keys for the old columns: the orchestrator backend's (app/backends/paas).
MOVED = (("orchestrator_owner", "owner", 512), ("task", "task", 40))


def _postgres() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def upgrade():
    with op.batch_alter_table("deployments") as batch:
        batch.add_column(sa.Column("backend_data", sa.JSON(), nullable=False, server_default="{}"))
        batch.alter_column(
            "callback_secret",
            new_column_name="reference_secret",
            existing_type=sa.String(length=64),
            existing_nullable=True,
        )
    pairs = ", ".join(f"'{key}', {column}" for column, key, _length in MOVED)
    # Both drop the keys whose value is NULL (a JSON merge patch removes them).
    data = (
        f"json_strip_nulls(json_build_object({pairs}))"
        if _postgres()
        else f"json_patch('{{}}', json_object({pairs}))"
    )
    some = " OR ".join(f"{column} IS NOT NULL" for column, _key, _length in MOVED)
    op.execute(sa.text(f"UPDATE deployments SET backend_data = {data} WHERE {some}"))
    with op.batch_alter_table("deployments") as batch:
        for column, _key, _length in MOVED:
            batch.drop_column(column)


def downgrade():
    with op.batch_alter_table("deployments") as batch:
        for column, _key, length in MOVED:
            batch.add_column(sa.Column(column, sa.String(length=length), nullable=True))
        batch.alter_column(
            "reference_secret",
            new_column_name="callback_secret",
            existing_type=sa.String(length=64),
            existing_nullable=True,
        )
    for column, key, length in MOVED:
        value = (
            f"backend_data ->> '{key}'" if _postgres() else f"json_extract(backend_data, '$.{key}')"
        )
        op.execute(sa.text(f"UPDATE deployments SET {column} = substr({value}, 1, {length})"))
    with op.batch_alter_table("deployments") as batch:
        batch.drop_column("backend_data")
