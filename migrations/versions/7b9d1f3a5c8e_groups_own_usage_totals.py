"""each group's own usage totals, beside its members'

Revision ID: 7b9d1f3a5c8e
Revises: 5a7c9e1b3d2f
Create Date: 2026-11-29 13:00:00

A group's use per day and month was the sum of its members' rows, read at every Group page,
budget check and chart: hundreds of rows per day for a large group. Each group now has its
own rows (``user_id`` 0) kept beside them as pieces are folded. They are written here from the
members' rows already folded, and the group index leads with the owner so that either kind is
read as one range.
"""

from alembic import op
import sqlalchemy as sa


revision = "7b9d1f3a5c8e"
down_revision = "5a7c9e1b3d2f"
branch_labels = None
depends_on = None


def upgrade():
    op.execute(
        sa.text(
            "INSERT INTO usage_totals "
            "(span, start, user_id, group_name, gpu_model, core_hours, memory_gb_hours, gpu_hours) "
            "SELECT span, start, 0, group_name, gpu_model, "
            "SUM(core_hours), SUM(memory_gb_hours), SUM(gpu_hours) "
            "FROM usage_totals WHERE group_name != '' AND user_id != 0 "
            "GROUP BY span, start, group_name, gpu_model"
        )
    )
    op.drop_index("ix_usage_totals_group", table_name="usage_totals")
    op.create_index(
        "ix_usage_totals_group", "usage_totals", ["span", "group_name", "user_id", "start"]
    )


def downgrade():
    op.drop_index("ix_usage_totals_group", table_name="usage_totals")
    op.create_index("ix_usage_totals_group", "usage_totals", ["span", "group_name", "start"])
    op.execute(sa.text("DELETE FROM usage_totals WHERE user_id = 0"))
