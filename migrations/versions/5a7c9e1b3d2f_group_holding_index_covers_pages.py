"""the group's holding index also carries owner, launch time and id

Revision ID: 5a7c9e1b3d2f
Revises: 3f6a9c1e5b7d
Create Date: 2026-11-29 13:20:00

The Group page counts what each member runs charged to the group and pages the group's
running deployments newest first. With the owner, the launch time and the id at the end of
``ix_deployments_group_holding``, both are answered from the index alone, however many
deployments the group runs.
"""

from alembic import op


revision = "5a7c9e1b3d2f"
down_revision = "3f6a9c1e5b7d"
branch_labels = None
depends_on = None

HOLDING = ["group_name", "deleted", "status", "keeps_failed_attempt", "runs_once"]


def upgrade():
    op.drop_index("ix_deployments_group_holding", table_name="deployments")
    op.create_index(
        "ix_deployments_group_holding",
        "deployments",
        [*HOLDING, "user_id", "created_at", "id"],
    )


def downgrade():
    op.drop_index("ix_deployments_group_holding", table_name="deployments")
    op.create_index("ix_deployments_group_holding", "deployments", HOLDING)
