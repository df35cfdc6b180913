"""a version on each deployment, bumped when the list would show it differently

Revision ID: b7c4d2e9f1a3
Revises: 8f3b2d6a1c90
Create Date: 2026-11-25 10:15:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "b7c4d2e9f1a3"
down_revision = "8f3b2d6a1c90"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("deployments") as batch_op:
        batch_op.add_column(
            sa.Column("shown_version", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.create_index(
            "ix_deployments_user_shown", ["user_id", "shown_version", "id"], unique=False
        )


def downgrade():
    with op.batch_alter_table("deployments") as batch_op:
        batch_op.drop_index("ix_deployments_user_shown")
        batch_op.drop_column("shown_version")
