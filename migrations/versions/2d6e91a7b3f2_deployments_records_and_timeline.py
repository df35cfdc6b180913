"""deployments recorded before submission, timeline, secrets, groups

Revision ID: 2d6e91a7b3f2
Revises: 1a9e5e55a0c1
Create Date: 2026-11-24 04:40:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "2d6e91a7b3f2"
down_revision = "1a9e5e55a0c1"
branch_labels = None
depends_on = None

# Orchestrator statuses the sync worker keeps asking about.
IN_PROGRESS = ("CREATE_IN_PROGRESS", "UPDATE_IN_PROGRESS", "DELETE_IN_PROGRESS")


def upgrade():
    with op.batch_alter_table("deployments", schema=None) as batch_op:
        # A row is now written before the orchestrator gives it a uuid.
        batch_op.alter_column("uuid", existing_type=sa.String(length=64), nullable=True)
        batch_op.add_column(
            sa.Column("name", sa.String(length=255), nullable=False, server_default="")
        )
        batch_op.add_column(sa.Column("template_text", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("secrets_sealed", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("group_name", sa.String(length=255), nullable=True))
        batch_op.add_column(
            sa.Column("request_options", sa.JSON(), nullable=False, server_default="{}")
        )
        batch_op.add_column(sa.Column("charge", sa.JSON(), nullable=False, server_default="{}"))
        batch_op.add_column(sa.Column("region", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("deployment_type", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("secret_outputs_sealed", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("callback_secret", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("orchestrator_owner", sa.String(length=512), nullable=True))
        batch_op.add_column(
            sa.Column("adopted", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("submitted_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("next_check_at", sa.DateTime(), nullable=True))
        batch_op.add_column(
            sa.Column("check_failures", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.add_column(sa.Column("claimed_until", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("deleted_at", sa.DateTime(), nullable=True))
        batch_op.create_index(
            "ix_deployments_user_created", ["user_id", "created_at"], unique=False
        )
        batch_op.create_index("ix_deployments_next_check", ["next_check_at"], unique=False)

    op.create_table(
        "deployment_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("from_status", sa.String(length=40), nullable=True),
        sa.Column("to_status", sa.String(length=40), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("actor_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["actor_id"], ["users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["deployment_id"], ["deployments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("deployment_events", schema=None) as batch_op:
        batch_op.create_index("ix_deployment_events_deployment_id", ["deployment_id"], unique=False)

    op.create_table(
        "deployment_listings",
        sa.Column("identity", sa.String(length=64), nullable=False),
        sa.Column("next_at", sa.DateTime(), nullable=False),
        sa.Column("listed_at", sa.DateTime(), nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("identity"),
    )

    # Existing rows: named after their template, submitted when recorded, in-progress ones due
    # for a check at once, and a first timeline entry saying what was known before.
    deployments = sa.table(
        "deployments",
        sa.column("id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("status", sa.String),
        sa.column("template_name", sa.String),
        sa.column("created_at", sa.DateTime),
        sa.column("submitted_at", sa.DateTime),
        sa.column("next_check_at", sa.DateTime),
        sa.column("deleted", sa.Boolean),
        sa.column("deleted_at", sa.DateTime),
        sa.column("updated_at", sa.DateTime),
    )
    op.execute(
        deployments.update().values(
            name=deployments.c.template_name, submitted_at=deployments.c.created_at
        )
    )
    op.execute(
        deployments.update()
        .where(deployments.c.status.in_(IN_PROGRESS), deployments.c.deleted == sa.false())
        .values(next_check_at=sa.func.current_timestamp())
    )
    op.execute(
        deployments.update()
        .where(deployments.c.deleted == sa.true())
        .values(deleted_at=deployments.c.updated_at)
    )
    events = sa.table(
        "deployment_events",
        sa.column("deployment_id", sa.Integer),
        sa.column("at", sa.DateTime),
        sa.column("from_status", sa.String),
        sa.column("to_status", sa.String),
        sa.column("reason", sa.Text),
        sa.column("source", sa.String),
    )
    op.execute(
        events.insert().from_select(
            ["deployment_id", "at", "to_status", "reason", "source"],
            sa.select(
                deployments.c.id,
                deployments.c.created_at,
                deployments.c.status,
                sa.literal("Launched before the portal kept a timeline."),
                sa.literal("launch"),
            ),
        )
    )

    with op.batch_alter_table("deployments", schema=None) as batch_op:
        # Defaults belong to the application; they were only needed to fill existing rows.
        batch_op.alter_column("name", server_default=None, existing_type=sa.String(length=255))
        batch_op.alter_column("request_options", server_default=None, existing_type=sa.JSON())
        batch_op.alter_column("charge", server_default=None, existing_type=sa.JSON())
        batch_op.alter_column("adopted", server_default=None, existing_type=sa.Boolean())
        batch_op.alter_column("check_failures", server_default=None, existing_type=sa.Integer())


def downgrade():
    op.drop_table("deployment_listings")
    with op.batch_alter_table("deployment_events", schema=None) as batch_op:
        batch_op.drop_index("ix_deployment_events_deployment_id")
    op.drop_table("deployment_events")

    # Rows never confirmed by the orchestrator have no uuid, which the older schema requires:
    # they never existed there, so they go.
    deployments = sa.table("deployments", sa.column("uuid", sa.String))
    op.execute(deployments.delete().where(deployments.c.uuid.is_(None)))
    with op.batch_alter_table("deployments", schema=None) as batch_op:
        batch_op.drop_index("ix_deployments_next_check")
        batch_op.drop_index("ix_deployments_user_created")
        for column in (
            "deleted_at",
            "claimed_until",
            "check_failures",
            "next_check_at",
            "submitted_at",
            "adopted",
            "orchestrator_owner",
            "callback_secret",
            "secret_outputs_sealed",
            "deployment_type",
            "region",
            "charge",
            "request_options",
            "group_name",
            "secrets_sealed",
            "template_text",
            "name",
        ):
            batch_op.drop_column(column)
        batch_op.alter_column("uuid", existing_type=sa.String(length=64), nullable=False)
