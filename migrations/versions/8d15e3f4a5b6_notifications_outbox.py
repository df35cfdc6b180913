"""notifications: the outbox and what people want by e-mail

Revision ID: 8d15e3f4a5b6
Revises: 7f13a0b1c2d3
Create Date: 2026-11-25 10:00:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "8d15e3f4a5b6"
# Chained after the group-names revision that reached main first (both branched from
# 7e0a1b2c3d4e); two heads would stop `flask db upgrade`.
down_revision = "7f13a0b1c2d3"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.Integer(), nullable=True),
        sa.Column("event_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("read_at", sa.DateTime(), nullable=True),
        sa.Column("mail_status", sa.String(length=10), nullable=False),
        sa.Column("mail_to", sa.String(length=255), nullable=True),
        sa.Column("mail_attempts", sa.Integer(), nullable=False),
        sa.Column("mail_next_at", sa.DateTime(), nullable=True),
        sa.Column("mail_claim", sa.String(length=32), nullable=True),
        sa.Column("mail_claimed_until", sa.DateTime(), nullable=True),
        sa.Column("mail_sent_at", sa.DateTime(), nullable=True),
        sa.Column("mail_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["deployment_id"], ["deployments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["event_id"], ["deployment_events.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("event_id"),
    )
    with op.batch_alter_table("notifications") as batch_op:
        batch_op.create_index("ix_notifications_user_read", ["user_id", "read_at"])
        batch_op.create_index("ix_notifications_mail_due", ["mail_status", "mail_next_at"])
        batch_op.create_index("ix_notifications_deployment_id", ["deployment_id"])

    op.create_table(
        "notification_preferences",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("email_kinds", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id"),
    )


def downgrade():
    op.drop_table("notification_preferences")
    with op.batch_alter_table("notifications") as batch_op:
        batch_op.drop_index("ix_notifications_deployment_id")
        batch_op.drop_index("ix_notifications_mail_due")
        batch_op.drop_index("ix_notifications_user_read")
    op.drop_table("notifications")
