"""the folder each imported template came from

Revision ID: 6c2e8a4f1d57
Revises: 5b1d9f3a7c42
Create Date: 2026-11-24 08:00:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "6c2e8a4f1d57"
down_revision = "5b1d9f3a7c42"
branch_labels = None
depends_on = None


def upgrade():
    # Empty for templates imported before: the next import of their folder records it.
    with op.batch_alter_table("catalogue_templates") as batch_op:
        batch_op.add_column(
            sa.Column("source_root", sa.String(length=500), server_default="", nullable=False)
        )


def downgrade():
    with op.batch_alter_table("catalogue_templates") as batch_op:
        batch_op.drop_column("source_root")
