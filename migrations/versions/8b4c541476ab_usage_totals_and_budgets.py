"""usage kept as running totals per day and month, and budgets over a period

Revision ID: 8b4c541476ab
Revises: b9b613cc02e9
Create Date: 2026-11-29 05:20:00

Usage is written down as deployments hold resources (``usage_marks``, ``usage_pieces``) and
folded into ``usage_totals``; ``usage_budgets`` holds hours per period. Deployments that hold
resources when this runs, and the history before it, are written down by
``flask quota usage rebuild`` (run it once after upgrading).
"""

from alembic import op
import sqlalchemy as sa


revision = "8b4c541476ab"
down_revision = "b9b613cc02e9"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "usage_totals",
        sa.Column("span", sa.String(length=5), nullable=False),
        sa.Column("start", sa.Date(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("group_name", sa.String(length=255), nullable=False),
        sa.Column("gpu_model", sa.String(length=64), nullable=False),
        sa.Column("core_hours", sa.Float(), nullable=False),
        sa.Column("memory_gb_hours", sa.Float(), nullable=False),
        sa.Column("gpu_hours", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("span", "start", "user_id", "group_name", "gpu_model"),
    )
    op.create_index("ix_usage_totals_user", "usage_totals", ["span", "user_id", "start"])
    op.create_index("ix_usage_totals_group", "usage_totals", ["span", "group_name", "start"])
    op.create_table(
        "usage_marks",
        sa.Column("deployment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("group_name", sa.String(length=255), nullable=False),
        sa.Column("since", sa.DateTime(), nullable=False),
        sa.Column("cores", sa.Float(), nullable=False),
        sa.Column("memory_gb", sa.Float(), nullable=False),
        sa.Column("gpu_models", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["deployment_id"], ["deployments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("deployment_id"),
    )
    op.create_index("ix_usage_marks_user", "usage_marks", ["user_id"])
    op.create_index("ix_usage_marks_group", "usage_marks", ["group_name"])
    op.create_table(
        "usage_pieces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("group_name", sa.String(length=255), nullable=False),
        sa.Column("start", sa.DateTime(), nullable=False),
        sa.Column("end", sa.DateTime(), nullable=False),
        sa.Column("cores", sa.Float(), nullable=False),
        sa.Column("memory_gb", sa.Float(), nullable=False),
        sa.Column("gpu_models", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_usage_pieces_user", "usage_pieces", ["user_id"])
    op.create_index("ix_usage_pieces_group", "usage_pieces", ["group_name"])
    op.create_table(
        "usage_budgets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.String(length=10), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("resource", sa.String(length=80), nullable=False),
        sa.Column("hours", sa.Float(), nullable=False),
        sa.Column("period_days", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("actor_name", sa.String(length=255), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "uq_usage_budgets_subject", "usage_budgets", ["scope", "subject", "resource"], unique=True
    )


def downgrade():
    op.drop_table("usage_budgets")
    op.drop_table("usage_pieces")
    op.drop_table("usage_marks")
    op.drop_table("usage_totals")
