"""a cluster's free capacity is kept per node

Revision ID: c3e5a7b9d1f4
Revises: a9c3e5f7b1d4
Create Date: 2026-11-29 02:00:00

A site known through cluster statistics has no quota of machines: what each of its nodes has
free is kept (``capacity_snapshot.nodes``), so that a request is judged node by node. Rows
read before have none until their source is read again (sums only, as before).
"""

from alembic import op
import sqlalchemy as sa


revision = "c3e5a7b9d1f4"
down_revision = "a9c3e5f7b1d4"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("capacity_snapshot") as batch_op:
        batch_op.add_column(sa.Column("nodes", sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table("capacity_snapshot") as batch_op:
        batch_op.drop_column("nodes")
