"""catalogue templates name the backend that deploys them

Revision ID: f2c8d5e1b7a4
Revises: e1b7c4d2a9f3
Create Date: 2026-11-28 10:00:00

Each template may name the backend that deploys it ("paas", "im"); every existing template keeps
the site's default (NULL).
"""

from alembic import op
import sqlalchemy as sa


revision = "f2c8d5e1b7a4"
down_revision = "e1b7c4d2a9f3"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("catalogue_templates", schema=None) as batch_op:
        batch_op.add_column(sa.Column("backend", sa.String(length=20), nullable=True))


def downgrade():
    with op.batch_alter_table("catalogue_templates", schema=None) as batch_op:
        batch_op.drop_column("backend")
