"""the portal's own revision messages, kept in words translated when shown

Revision ID: c4f8e2a9d6b1
Revises: c3e5a7f9b1d2
Create Date: 2026-11-25 12:50:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "c4f8e2a9d6b1"
down_revision = "c3e5a7f9b1d2"
branch_labels = None
depends_on = None


def upgrade():
    # Existing rows keep their English message (NULL here): shown as written.
    with op.batch_alter_table("template_revisions") as batch_op:
        batch_op.add_column(sa.Column("message_words", sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table("template_revisions") as batch_op:
        batch_op.drop_column("message_words")
