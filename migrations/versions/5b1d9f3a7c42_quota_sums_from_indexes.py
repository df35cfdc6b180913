"""quota sums and the list's filters read from indexes

Revision ID: 5b1d9f3a7c42
Revises: 4e8a0c6d2b93
Create Date: 2026-11-24 07:10:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "5b1d9f3a7c42"
down_revision = "4e8a0c6d2b93"
branch_labels = None
depends_on = None

HOLDING = ["deleted", "status", "keeps_failed_attempt"]


def upgrade():
    with op.batch_alter_table("deployments") as batch_op:
        batch_op.add_column(
            sa.Column(
                "keeps_failed_attempt", sa.Boolean(), server_default=sa.false(), nullable=False
            )
        )
    deployments = sa.table(
        "deployments",
        sa.column("keeps_failed_attempt", sa.Boolean()),
        sa.column("request_options", sa.JSON()),
    )
    kept = deployments.c.request_options["keepLastAttempt"].as_boolean()
    op.execute(deployments.update().where(kept.is_(True)).values(keeps_failed_attempt=True))
    with op.batch_alter_table("deployments") as batch_op:
        batch_op.drop_index("ix_deployments_user_deleted")
        batch_op.create_index("ix_deployments_user_holding", ["user_id", *HOLDING])
        batch_op.create_index("ix_deployments_group_holding", ["group_name", *HOLDING])
        batch_op.create_index(
            "ix_deployments_user_templates",
            ["user_id", "deleted", "template_slug", "template_name"],
        )


def downgrade():
    with op.batch_alter_table("deployments") as batch_op:
        batch_op.drop_index("ix_deployments_user_templates")
        batch_op.drop_index("ix_deployments_group_holding")
        batch_op.drop_index("ix_deployments_user_holding")
        batch_op.create_index("ix_deployments_user_deleted", ["user_id", "deleted"])
        batch_op.drop_column("keeps_failed_attempt")
