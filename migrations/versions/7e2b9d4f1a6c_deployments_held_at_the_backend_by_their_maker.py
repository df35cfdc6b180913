"""a deployment taken over is still held at its backend by the person who made it there

Revision ID: 7e2b9d4f1a6c
Revises: 5c2e8a4f1d9b
Create Date: 2026-11-29 12:40:00

``deployments.backend_holder_id`` names the person whose identity the backend holds the
deployment in, when that is not its owner (it was taken over); null, as for every deployment
until now: its owner.
"""

from alembic import op
import sqlalchemy as sa


revision = "7e2b9d4f1a6c"
down_revision = "5c2e8a4f1d9b"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("deployments") as batch_op:
        batch_op.add_column(sa.Column("backend_holder_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            "fk_deployments_backend_holder",
            "users",
            ["backend_holder_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch_op.create_index("ix_deployments_backend_holder_id", ["backend_holder_id"])


def downgrade():
    with op.batch_alter_table("deployments") as batch_op:
        batch_op.drop_index("ix_deployments_backend_holder_id")
        batch_op.drop_constraint("fk_deployments_backend_holder", type_="foreignkey")
        batch_op.drop_column("backend_holder_id")
