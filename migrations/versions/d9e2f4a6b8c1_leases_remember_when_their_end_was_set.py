"""leases remember when their current end was set

Revision ID: d9e2f4a6b8c1
Revises: f2c8d5e1b7a4
Create Date: 2026-11-28 00:10:00

A warning that falls before the moment the current end was chosen (a 24-hour warning on an
8-hour lease) is not given. Existing leases count from their start: an extended one may skip
fewer warnings than it would have, never more.
"""

from alembic import op
import sqlalchemy as sa


revision = "d9e2f4a6b8c1"
down_revision = "f2c8d5e1b7a4"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("leases", schema=None) as batch_op:
        batch_op.add_column(sa.Column("end_set_at", sa.DateTime(), nullable=True))
    leases = sa.table(
        "leases", sa.column("started_at", sa.DateTime()), sa.column("end_set_at", sa.DateTime())
    )
    op.execute(leases.update().values(end_set_at=leases.c.started_at))


def downgrade():
    with op.batch_alter_table("leases", schema=None) as batch_op:
        batch_op.drop_column("end_set_at")
