"""deployment events that are not status changes: a kind and details

Revision ID: 7e0a1b2c3d4e
Revises: 6c2e8a4f1d57
Create Date: 2026-11-25 09:30:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "7e0a1b2c3d4e"
down_revision = "6c2e8a4f1d57"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("deployment_events") as batch_op:
        batch_op.add_column(sa.Column("kind", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("details", sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table("deployment_events") as batch_op:
        batch_op.drop_column("details")
        batch_op.drop_column("kind")
