"""rolling windows' budget warnings follow the window: each warning says for which period it
was given and when it was re-armed

Revision ID: 5c2e8a4f1d9b
Revises: 7b9d1f3a5c8e
Create Date: 2026-11-29 12:45:00

``budget_warnings.period_days`` is the budget's period when the warning was given (a warning
given for another period is given afresh); ``rearmed_at`` is when the use of a rolling window
fell back enough below the threshold for it to warn again (None: not yet, or a calendar
month's warning). Warnings already given keep the period their budget has now, and stay given.
"""

from alembic import op
import sqlalchemy as sa


revision = "5c2e8a4f1d9b"
down_revision = "7b9d1f3a5c8e"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("budget_warnings") as batch:
        batch.add_column(sa.Column("period_days", sa.Integer(), server_default="0", nullable=False))
        batch.add_column(sa.Column("rearmed_at", sa.DateTime(), nullable=True))
    op.execute(
        "UPDATE budget_warnings SET period_days = (SELECT usage_budgets.period_days FROM "
        "usage_budgets WHERE usage_budgets.id = budget_warnings.budget_id)"
    )


def downgrade():
    with op.batch_alter_table("budget_warnings") as batch:
        batch.drop_column("rearmed_at")
        batch.drop_column("period_days")
