"""deployments shared with people and groups, as viewer or co-owner

Revision ID: b9b613cc02e9
Revises: 8b7b2bbe0132
Create Date: 2026-11-29 05:40:00

"""

from alembic import op
import sqlalchemy as sa


revision = "b9b613cc02e9"
down_revision = "8b7b2bbe0132"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "deployment_shares",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("granted_by_id", sa.Integer(), nullable=True),
        sa.Column("granted_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["deployment_id"], ["deployments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["granted_by_id"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("deployment_id", "kind", "name", name="uq_deployment_shares_whom"),
    )
    op.create_index(
        "ix_deployment_shares_user", "deployment_shares", ["user_id", "deployment_id"]
    )
    op.create_index(
        "ix_deployment_shares_group", "deployment_shares", ["kind", "name", "deployment_id"]
    )


def downgrade():
    op.drop_index("ix_deployment_shares_group", table_name="deployment_shares")
    op.drop_index("ix_deployment_shares_user", table_name="deployment_shares")
    op.drop_table("deployment_shares")
