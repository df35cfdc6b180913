"""whether a deployment is a batch job that runs once: finished, it holds nothing

Revision ID: d5a9c3e7f2b4
Revises: c4f8e2a9d6b1
Create Date: 2026-11-27 17:40:00

"""

from alembic import op
import sqlalchemy as sa

from app.deployments.job_text import runs_once


# revision identifiers, used by Alembic.
revision = "d5a9c3e7f2b4"
down_revision = "c4f8e2a9d6b1"
branch_labels = None
depends_on = None

OLD_HOLDING = ["deleted", "status", "keeps_failed_attempt"]
HOLDING = [*OLD_HOLDING, "runs_once"]


def upgrade():
    with op.batch_alter_table("deployments") as batch_op:
        batch_op.add_column(
            sa.Column("runs_once", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    deployments = sa.table(
        "deployments",
        sa.column("id", sa.Integer()),
        sa.column("template_text", sa.Text()),
        sa.column("parameters", sa.JSON()),
        sa.column("runs_once", sa.Boolean()),
    )
    # Only rows whose text names a Chronos node can be jobs; the rule itself reads each one.
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(deployments.c.id, deployments.c.template_text, deployments.c.parameters).where(
            deployments.c.template_text.like("%Chronos%")
        )
    )
    once = [row.id for row in rows if runs_once(row.template_text, row.parameters)]
    if once:
        op.execute(deployments.update().where(deployments.c.id.in_(once)).values(runs_once=True))
    with op.batch_alter_table("deployments") as batch_op:
        batch_op.drop_index("ix_deployments_user_holding")
        batch_op.drop_index("ix_deployments_group_holding")
        batch_op.create_index("ix_deployments_user_holding", ["user_id", *HOLDING])
        batch_op.create_index("ix_deployments_group_holding", ["group_name", *HOLDING])


def downgrade():
    with op.batch_alter_table("deployments") as batch_op:
        batch_op.drop_index("ix_deployments_group_holding")
        batch_op.drop_index("ix_deployments_user_holding")
        batch_op.create_index("ix_deployments_user_holding", ["user_id", *OLD_HOLDING])
        batch_op.create_index("ix_deployments_group_holding", ["group_name", *OLD_HOLDING])
        batch_op.drop_column("runs_once")
