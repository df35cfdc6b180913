"""deployments counted by status and template from an index, for the operators' metrics

Revision ID: 8f3b2d6a1c90
Revises: 8c15d2e3f4a5
Create Date: 2026-11-25 10:15:00

"""

from alembic import op


# revision identifiers, used by Alembic.
revision = "8f3b2d6a1c90"
down_revision = "8c15d2e3f4a5"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index(
        "ix_deployments_status_template",
        "deployments",
        ["status", "template_slug", "deleted"],
    )


def downgrade():
    op.drop_index("ix_deployments_status_template", table_name="deployments")
