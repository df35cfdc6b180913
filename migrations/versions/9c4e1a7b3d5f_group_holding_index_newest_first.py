"""the group's holding index keeps each group's live deployments in launch order

Revision ID: 9c4e1a7b3d5f
Revises: 7e2b9d4f1a6c
Create Date: 2026-11-29 17:20:00

The Group page lists the deployments a group runs newest first, a page at a time. With the
launch time and the id right after the group and the deleted flag in
``ix_deployments_group_holding``, a page is read in order from the index and the reading stops
at its last row, where the index led by status had every running deployment of the group
read and sorted for each page. The per-member counts and the pool's sums read the same
entries as before, the status and owner still in the index.
"""

from alembic import op

revision = "9c4e1a7b3d5f"
down_revision = "7e2b9d4f1a6c"
branch_labels = None
depends_on = None

HOLDING = ["status", "keeps_failed_attempt", "runs_once"]


def upgrade():
    op.drop_index("ix_deployments_group_holding", table_name="deployments")
    op.create_index(
        "ix_deployments_group_holding",
        "deployments",
        ["group_name", "deleted", "created_at", "id", *HOLDING, "user_id"],
    )


def downgrade():
    op.drop_index("ix_deployments_group_holding", table_name="deployments")
    op.create_index(
        "ix_deployments_group_holding",
        "deployments",
        ["group_name", "deleted", *HOLDING, "user_id", "created_at", "id"],
    )
