"""personal access tokens for the API, and its Idempotency-Key records

Revision ID: 9d16e3f4a5b6
Revises: 8d15e3f4a5b6
Create Date: 2026-11-25 10:00:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "9d16e3f4a5b6"
down_revision = "8d15e3f4a5b6"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "access_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("hint", sa.String(length=16), nullable=False),
        sa.Column("scopes", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("last_used_at", sa.DateTime(), nullable=True),
        sa.Column("last_used_address", sa.String(length=64), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("digest"),
    )
    with op.batch_alter_table("access_tokens") as batch_op:
        batch_op.create_index(batch_op.f("ix_access_tokens_user_id"), ["user_id"], unique=False)

    op.create_table(
        "api_idempotency_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("body", sa.JSON(), nullable=True),
        sa.Column("headers", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "key", name="uq_api_idempotency_user_key"),
    )
    with op.batch_alter_table("api_idempotency_keys") as batch_op:
        batch_op.create_index(
            batch_op.f("ix_api_idempotency_keys_created_at"), ["created_at"], unique=False
        )


def downgrade():
    with op.batch_alter_table("api_idempotency_keys") as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_idempotency_keys_created_at"))
    op.drop_table("api_idempotency_keys")
    with op.batch_alter_table("access_tokens") as batch_op:
        batch_op.drop_index(batch_op.f("ix_access_tokens_user_id"))
    op.drop_table("access_tokens")
