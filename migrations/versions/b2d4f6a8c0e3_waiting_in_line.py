"""a request that does not fit for now waits in line

Revision ID: b2d4f6a8c0e3
Revises: c7e1a3b5d9f2
Create Date: 2026-11-28 00:30:00

A waiting request is a deployment row with the status WAITING (charged nothing) and a row of
``line_entries`` holding its place until it leaves the line.
"""

from alembic import op
import sqlalchemy as sa


revision = "b2d4f6a8c0e3"
down_revision = "c7e1a3b5d9f2"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "line_entries",
        sa.Column("deployment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("line", sa.String(length=400), nullable=False),
        sa.Column("enqueued_at", sa.DateTime(), nullable=False),
        sa.Column("fair_at", sa.DateTime(), nullable=False),
        sa.Column("placed_at", sa.DateTime(), nullable=True),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("recent_gpu_hours", sa.Float(), nullable=False),
        sa.Column("inputs_sealed", sa.Text(), nullable=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["deployment_id"], ["deployments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("deployment_id"),
    )
    op.create_index("ix_line_entries_line", "line_entries", ["line", "fair_at"])
    op.create_index("ix_line_entries_expires", "line_entries", ["expires_at"])
    op.create_index("ix_line_entries_user_id", "line_entries", ["user_id"])


def downgrade():
    op.drop_index("ix_line_entries_user_id", table_name="line_entries")
    op.drop_index("ix_line_entries_expires", table_name="line_entries")
    op.drop_index("ix_line_entries_line", table_name="line_entries")
    op.drop_table("line_entries")
