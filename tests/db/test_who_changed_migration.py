"""Changes of limits and lease policies made from the command line, stored before with the
English words "command line" as their author, keep no author's name on upgrade (pages word it
in the reader's language) and get the words back on downgrade; a person's name, and a deleted
account's, stay as they were. On SQLite and PostgreSQL."""

import pytest
import sqlalchemy as sa
from flask_migrate import downgrade, upgrade

from app.clock import utcnow
from app.extensions import db
from tests.db.old_rows import empty_database_url, local_account_as_then

BEFORE = "b2d4f6a8c0e3"
QUOTA_CHANGES = sa.table(
    "quota_changes",
    *(sa.column(c) for c in ("id", "at", "actor_id", "actor_name", "scope", "subject")),
    *(sa.column(c) for c in ("old", "new")),
    sa.column("reason"),
)
POLICY_CHANGES = sa.table(
    "lease_policy_changes",
    *(sa.column(c) for c in ("id", "at", "actor_id", "actor_name", "template_slug")),
    sa.column("group_name"),
    *(sa.column(c) for c in ("old", "new", "reason")),
)
# (actor is ada, stored name): the command line, ada, and an account deleted since.
WHO = [(False, "command line"), (True, "ada"), (False, "grace")]


def _names(table) -> list[str]:
    return list(db.session.scalars(sa.select(table.c.actor_name).order_by(table.c.id)))


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_command_line_is_kept_as_no_one_and_comes_back_on_downgrade(
    database, make_app, tmp_path, request
):
    url = empty_database_url(database, tmp_path, request)
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        upgrade(revision=BEFORE)
        ada = local_account_as_then("ada")
        now = utcnow()
        for is_ada, name in WHO:
            actor = ada.id if is_ada else None
            common = {"at": now, "actor_id": actor, "actor_name": name, "old": "{}", "new": "{}"}
            db.session.execute(
                sa.insert(QUOTA_CHANGES).values(
                    **common, scope="group", subject="physics", reason="r"
                )
            )
            db.session.execute(
                sa.insert(POLICY_CHANGES).values(
                    **common, template_slug="", group_name="", reason="r"
                )
            )
        db.session.commit()

        upgrade()
        after = (_names(QUOTA_CHANGES), _names(POLICY_CHANGES))
        db.session.commit()
        downgrade(revision=BEFORE)
        back = (_names(QUOTA_CHANGES), _names(POLICY_CHANGES))
        db.session.commit()

    assert after == (["", "ada", "grace"], ["", "ada", "grace"])
    assert back == (["command line", "ada", "grace"], ["command line", "ada", "grace"])
