"""the sites the portal knows, what each had free, and when each capacity source is due

Revision ID: a1c3e5f7b9d2
Revises: f2c8d5e1b7a4
Create Date: 2026-11-28 00:30:00

Three new tables; nothing existing changes. No site is known until an operator adds one.
"""

import sqlalchemy as sa
from alembic import op

revision = "a1c3e5f7b9d2"
down_revision = "f2c8d5e1b7a4"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "capacity_site",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("backend", sa.String(length=20), nullable=False),
        sa.Column("placement", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "capacity_snapshot",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("source_key", sa.String(length=64), nullable=False),
        sa.Column("read_at", sa.DateTime(), nullable=False),
        sa.Column("maintenance", sa.Boolean(), nullable=False),
        sa.Column("cores", sa.Integer(), nullable=True),
        sa.Column("memory_gib", sa.Double(), nullable=True),
        sa.Column("disk_gib", sa.Double(), nullable=True),
        sa.Column("instances", sa.Integer(), nullable=True),
        sa.Column("gpus", sa.JSON(), nullable=False),
        sa.Column("gpus_known", sa.Boolean(), nullable=False),
        sa.Column("problem", sa.Text(), nullable=True),
        sa.Column("problem_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["site_id"], ["capacity_site.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("site_id"),
    )
    op.create_index(
        op.f("ix_capacity_snapshot_source_key"), "capacity_snapshot", ["source_key"], unique=False
    )
    op.create_table(
        "capacity_read",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("next_at", sa.DateTime(), nullable=False),
        sa.Column("read_at", sa.DateTime(), nullable=True),
        sa.Column("problem", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("key"),
    )


def downgrade():
    op.drop_table("capacity_read")
    op.drop_index(op.f("ix_capacity_snapshot_source_key"), table_name="capacity_snapshot")
    op.drop_table("capacity_snapshot")
    op.drop_table("capacity_site")
