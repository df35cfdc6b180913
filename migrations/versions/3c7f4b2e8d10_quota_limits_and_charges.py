"""quota limits, their history and deployment charges

Revision ID: 3c7f4b2e8d10
Revises: 2d6e91a7b3f2
Create Date: 2026-11-24 04:40:00

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "3c7f4b2e8d10"
down_revision = "2d6e91a7b3f2"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "quota_limits",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.String(length=10), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("limits", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("scope", "subject", name="uq_quota_limits_scope_subject"),
    )
    op.create_table(
        "quota_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("actor_id", sa.Integer(), nullable=True),
        sa.Column("actor_name", sa.String(length=255), nullable=False),
        sa.Column("scope", sa.String(length=10), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("old", sa.JSON(), nullable=False),
        sa.Column("new", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["actor_id"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("quota_changes", schema=None) as batch_op:
        batch_op.create_index("ix_quota_changes_at", ["at"], unique=False)
        batch_op.create_index(
            "ix_quota_changes_scope_subject", ["scope", "subject", "at"], unique=False
        )
    op.create_table(
        "quota_charges",
        sa.Column("deployment_id", sa.Integer(), nullable=False),
        sa.Column("cores", sa.Float(), nullable=False),
        sa.Column("memory", sa.BigInteger(), nullable=False),
        sa.Column("disk", sa.BigInteger(), nullable=False),
        sa.Column("gpus", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["deployment_id"], ["deployments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("deployment_id"),
    )
    op.create_table(
        "quota_gpu_charges",
        sa.Column("deployment_id", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(length=64), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["deployment_id"], ["deployments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("deployment_id", "model"),
    )
    _copy_existing_charges()


def _copy_existing_charges():
    # Deployments recorded before these tables keep what their charge says.
    import json

    bind = op.get_bind()
    deployments = sa.table("deployments", sa.column("id", sa.Integer), sa.column("charge", sa.JSON))
    charges, gpu_charges = [], []
    for deployment_id, charge in bind.execute(sa.select(deployments.c.id, deployments.c.charge)):
        if isinstance(charge, str):
            charge = json.loads(charge)
        if not isinstance(charge, dict) or not charge:
            continue

        def number(key):
            value = charge.get(key)
            return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

        charges.append(
            {
                "deployment_id": deployment_id,
                "cores": float(number("cores")),
                "memory": int(number("memory")),
                "disk": int(number("disk")),
                "gpus": int(number("gpus")),
            }
        )
        models = charge.get("gpu_models") if isinstance(charge.get("gpu_models"), dict) else {}
        gpu_charges.extend(
            {"deployment_id": deployment_id, "model": str(model)[:64], "count": int(count)}
            for model, count in models.items()
            if isinstance(count, (int, float)) and count
        )
    if charges:
        op.bulk_insert(
            sa.table(
                "quota_charges",
                sa.column("deployment_id", sa.Integer),
                sa.column("cores", sa.Float),
                sa.column("memory", sa.BigInteger),
                sa.column("disk", sa.BigInteger),
                sa.column("gpus", sa.Integer),
            ),
            charges,
        )
    if gpu_charges:
        op.bulk_insert(
            sa.table(
                "quota_gpu_charges",
                sa.column("deployment_id", sa.Integer),
                sa.column("model", sa.String),
                sa.column("count", sa.Integer),
            ),
            gpu_charges,
        )


def downgrade():
    op.drop_table("quota_gpu_charges")
    op.drop_table("quota_charges")
    with op.batch_alter_table("quota_changes", schema=None) as batch_op:
        batch_op.drop_index("ix_quota_changes_scope_subject")
        batch_op.drop_index("ix_quota_changes_at")
    op.drop_table("quota_changes")
    op.drop_table("quota_limits")
