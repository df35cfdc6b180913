"""who made a catalogue change or granted a role, when no person did, is kept as a kind

Revision ID: 878252bb6c2e
Revises: c3e5a7b9d1f4
Create Date: 2026-11-29 05:30:00

Revisions, templates and type libraries changed from the command line or by the folder import,
and roles granted from the command line or at the first setup, were stored with the English
words "cli", "import" and "bootstrap" where a person's name goes, and every page showed them
so, Italian ones too. They are kept as kinds now (``app.actors``), worded in the reader's
language when shown; the rows written before are rewritten so, except where the word is the
name of an account (a person called "import" keeps their name).
"""

from alembic import op
import sqlalchemy as sa


revision = "878252bb6c2e"
down_revision = "c3e5a7b9d1f4"
branch_labels = None
depends_on = None

# (table, column) holding who made the change.
COLUMNS = (
    ("template_revisions", "author"),
    ("catalogue_templates", "updated_by"),
    ("type_libraries", "updated_by"),
    ("role_grants", "granted_by"),
)
# The words stored before, and the kinds that replace them (app/actors.py).
KINDS = {"cli": ":command-line", "import": ":folder-import", "bootstrap": ":setup"}


def _set(old: str, new: str) -> None:
    users = sa.table("users", sa.column("username"))
    an_account = sa.exists().where(users.c.username == old)
    for table, column in COLUMNS:
        rows = sa.table(table, sa.column(column))
        op.execute(
            rows.update()
            .where(rows.c[column] == old, ~an_account)
            .values({column: new})
        )


def upgrade():
    for word, kind in KINDS.items():
        _set(word, kind)


def downgrade():
    for word, kind in KINDS.items():
        _set(kind, word)
