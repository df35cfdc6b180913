"""type libraries, re-validation and folder import state

Revision ID: 4e8a0c6d2b93
Revises: 3c7f4b2e8d10
Create Date: 2026-11-24 04:40:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "4e8a0c6d2b93"
down_revision = "3c7f4b2e8d10"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "type_libraries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("version", sa.String(length=200), nullable=False),
        sa.Column("patterns", sa.JSON(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("updated_by", sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "type_library_files",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("library_id", sa.Integer(), nullable=False),
        sa.Column("path", sa.String(length=500), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["library_id"], ["type_libraries.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("library_id", "path", name="uq_type_library_file"),
    )
    with op.batch_alter_table("catalogue_templates") as batch_op:
        batch_op.add_column(
            sa.Column("source", sa.String(length=500), nullable=False, server_default="")
        )
        batch_op.add_column(sa.Column("imported_revision_id", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("imported_digest", sa.String(length=64), nullable=False, server_default="")
        )
    with op.batch_alter_table("template_revisions") as batch_op:
        batch_op.add_column(sa.Column("validated_at", sa.DateTime(), nullable=True))


def downgrade():
    with op.batch_alter_table("template_revisions") as batch_op:
        batch_op.drop_column("validated_at")
    with op.batch_alter_table("catalogue_templates") as batch_op:
        batch_op.drop_column("imported_digest")
        batch_op.drop_column("imported_revision_id")
        batch_op.drop_column("source")
    op.drop_table("type_library_files")
    op.drop_table("type_libraries")
