"""warnings given that a budget is nearly or wholly used, once per budget, period, threshold

Revision ID: 3f6a9c1e5b7d
Revises: 8b4c541476ab
Create Date: 2026-11-29 08:40:00

``budget_warnings`` holds one row per warning given: its key (budget, period start,
threshold) lets hosts racing to give the same warning insert it once.
"""

from alembic import op
import sqlalchemy as sa


revision = "3f6a9c1e5b7d"
down_revision = "8b4c541476ab"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "budget_warnings",
        sa.Column("budget_id", sa.Integer(), nullable=False),
        sa.Column("period_start", sa.DateTime(), nullable=False),
        sa.Column("threshold", sa.Integer(), nullable=False),
        sa.Column("hours", sa.Float(), nullable=False),
        sa.Column("used", sa.Float(), nullable=False),
        sa.Column("warned_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["budget_id"], ["usage_budgets.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("budget_id", "period_start", "threshold"),
    )


def downgrade():
    op.drop_table("budget_warnings")
