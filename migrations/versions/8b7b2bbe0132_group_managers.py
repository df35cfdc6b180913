"""group managers: named by operators, or by membership of another group

Revision ID: 8b7b2bbe0132
Revises: 878252bb6c2e
Create Date: 2026-11-29 05:10:00

A group's managers are named by operators (``group_managers``) or follow from membership of
another group (``GROUP_MANAGER_GROUPS``), kept per person at each login
(``users.managed_by_membership``; empty until their next login).
"""

from alembic import op
import sqlalchemy as sa


revision = "8b7b2bbe0132"
down_revision = "878252bb6c2e"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("users") as batch_op:
        batch_op.add_column(
            sa.Column("managed_by_membership", sa.JSON(), nullable=False, server_default="[]")
        )
    op.create_table(
        "group_managers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("group_name", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("named_by", sa.String(length=255), nullable=False),
        sa.Column("named_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("group_name", "user_id", name="uq_group_managers_group_user"),
    )
    op.create_index("ix_group_managers_user", "group_managers", ["user_id"])


def downgrade():
    op.drop_index("ix_group_managers_user", table_name="group_managers")
    op.drop_table("group_managers")
    with op.batch_alter_table("users") as batch_op:
        batch_op.drop_column("managed_by_membership")
