"""leases: policies per site, group and template, their history, and each deployment's lease

Revision ID: 8c15d2e3f4a5
Revises: 9d16e3f4a5b6
Create Date: 2026-11-25 10:00:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "8c15d2e3f4a5"
down_revision = "9d16e3f4a5b6"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "lease_policies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("template_slug", sa.String(length=100), nullable=False),
        sa.Column("group_name", sa.String(length=255), nullable=False),
        sa.Column("values", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("template_slug", "group_name", name="uq_lease_policies_level"),
    )
    op.create_table(
        "lease_policy_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("actor_id", sa.Integer(), nullable=True),
        sa.Column("actor_name", sa.String(length=255), nullable=False),
        sa.Column("template_slug", sa.String(length=100), nullable=False),
        sa.Column("group_name", sa.String(length=255), nullable=False),
        sa.Column("old", sa.JSON(), nullable=False),
        sa.Column("new", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["actor_id"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("lease_policy_changes") as batch_op:
        batch_op.create_index("ix_lease_policy_changes_at", ["at"], unique=False)
        batch_op.create_index(
            "ix_lease_policy_changes_level", ["template_slug", "group_name", "at"], unique=False
        )
    op.create_table(
        "leases",
        sa.Column("deployment_id", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("minutes", sa.Integer(), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("ends_at", sa.DateTime(), nullable=True),
        sa.Column("extends", sa.Integer(), nullable=False),
        sa.Column("warned_before", sa.Integer(), nullable=True),
        sa.Column("delete_at", sa.DateTime(), nullable=True),
        sa.Column("failed_at", sa.DateTime(), nullable=True),
        sa.Column("next_at", sa.DateTime(), nullable=True),
        sa.Column("problem", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["deployment_id"], ["deployments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("deployment_id"),
    )
    with op.batch_alter_table("leases") as batch_op:
        batch_op.create_index("ix_leases_next_at", ["next_at"], unique=False)


def downgrade():
    with op.batch_alter_table("leases") as batch_op:
        batch_op.drop_index("ix_leases_next_at")
    op.drop_table("leases")
    with op.batch_alter_table("lease_policy_changes") as batch_op:
        batch_op.drop_index("ix_lease_policy_changes_level")
        batch_op.drop_index("ix_lease_policy_changes_at")
    op.drop_table("lease_policy_changes")
    op.drop_table("lease_policies")
