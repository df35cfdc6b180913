"""Catalogue changes and role grants stored with the English words "cli", "import" and
"bootstrap" as who made them are kept as kinds on upgrade (worded in the reader's language when
shown), and get the words back on downgrade; a person's name stays, even a person called
"bootstrap". On SQLite and PostgreSQL."""

from pathlib import Path

import pytest
import sqlalchemy as sa
from flask_migrate import downgrade, upgrade

from app import actors
from app.auth.models import RoleGrant
from app.catalogue.models import CatalogueTemplate, TemplateRevision
from app.catalogue.operations import save_revision
from app.extensions import db
from tests.db.old_rows import empty_database_url, local_account_as_then

BEFORE = "c3e5a7b9d1f4"
CATALOGUE = Path(__file__).resolve().parents[2] / "tosca-catalog"


def _who() -> dict:
    return {
        "revisions": list(
            db.session.scalars(sa.select(TemplateRevision.author).order_by(TemplateRevision.id))
        ),
        "templates": list(
            db.session.scalars(
                sa.select(CatalogueTemplate.updated_by).order_by(CatalogueTemplate.slug)
            )
        ),
        "grants": list(db.session.scalars(sa.select(RoleGrant.granted_by).order_by(RoleGrant.id))),
    }


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_words_become_kinds_and_come_back_on_downgrade(database, make_app, tmp_path, request):
    url = empty_database_url(database, tmp_path, request)
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    vm = ((CATALOGUE / "vm.yaml").read_text(), (CATALOGUE / "vm.portal.yaml").read_text())
    with app.app_context():
        db.drop_all()
        upgrade(revision=BEFORE)
        ada = local_account_as_then("ada")
        grace = local_account_as_then("grace")
        # A person whose name is one of the words: their changes stay theirs.
        local_account_as_then("bootstrap")
        save_revision("vm", *vm, "import", create=True)
        save_revision("vm", *vm, "ada", "second")
        save_revision("small-vm", *vm, "cli", create=True)
        for user, role, by in (
            (ada, "admin", "cli"),
            (grace, "operator", "bootstrap"),
            (grace, "admin", "ada"),
        ):
            db.session.add(RoleGrant(user_id=user.id, role=role, granted_by=by))
        db.session.commit()

        upgrade()
        after = _who()
        db.session.commit()
        downgrade(revision=BEFORE)
        back = _who()
        db.session.commit()

    assert after == {
        "revisions": [actors.FOLDER_IMPORT, "ada", actors.COMMAND_LINE],
        "templates": [actors.COMMAND_LINE, "ada"],
        "grants": [actors.COMMAND_LINE, "bootstrap", "ada"],
    }
    assert back == {
        "revisions": ["import", "ada", "cli"],
        "templates": ["cli", "ada"],
        "grants": ["cli", "bootstrap", "ada"],
    }
