"""each person's language and time zone

Revision ID: c3e5a7f9b1d2
Revises: b7c4d2e9f1a3
Create Date: 2026-11-25 12:40:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "c3e5a7f9b1d2"
down_revision = "b7c4d2e9f1a3"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("users") as batch_op:
        batch_op.add_column(sa.Column("locale", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("timezone", sa.String(length=64), nullable=True))


def downgrade():
    with op.batch_alter_table("users") as batch_op:
        batch_op.drop_column("timezone")
        batch_op.drop_column("locale")
