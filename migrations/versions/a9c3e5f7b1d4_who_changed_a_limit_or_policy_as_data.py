"""who changed a limit or a lease policy is kept as data, not as an English word

Revision ID: a9c3e5f7b1d4
Revises: b2d4f6a8c0e3
Create Date: 2026-11-29 02:30:00

A change made from the command line (no account) was stored with the English words "command
line" as its author, and every page showed them so, Italian ones too. Such a change now keeps
no author's name, and pages word it in the reader's language; the rows written before are
rewritten so. A change whose account was since deleted keeps that account's name.
"""

from alembic import op
import sqlalchemy as sa


revision = "a9c3e5f7b1d4"
down_revision = "b2d4f6a8c0e3"
branch_labels = None
depends_on = None

TABLES = ("quota_changes", "lease_policy_changes")
# What the command line was stored as before.
STORED_WORDS = "command line"


def _set(table: str, old: str, new: str) -> None:
    changes = sa.table(table, sa.column("actor_id"), sa.column("actor_name"))
    op.execute(
        changes.update()
        .where(changes.c.actor_id.is_(None), changes.c.actor_name == old)
        .values(actor_name=new)
    )


def upgrade():
    for table in TABLES:
        _set(table, STORED_WORDS, "")


def downgrade():
    for table in TABLES:
        _set(table, "", STORED_WORDS)
