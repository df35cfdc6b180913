"""Catalogue changes and role grants stored with the English words "cli", "import" and
"bootstrap" as who made them are kept as kinds on upgrade (worded in the reader's language when
shown), and get the words back on downgrade; a person's name stays, even a person called
"bootstrap". On SQLite and PostgreSQL."""

from pathlib import Path

import pytest
import sqlalchemy as sa
from flask_migrate import downgrade, upgrade

from app import actors
from app.auth.cli import create_local_user
from app.auth.models import RoleGrant
from app.auth.operations import grant_role
from app.catalogue.models import CatalogueTemplate, TemplateRevision
from app.catalogue.operations import save_revision
from app.extensions import db

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
    url = (
        f"sqlite:///{tmp_path / 'portal.db'}"
        if database == "sqlite"
        else request.getfixturevalue("empty_postgres_url")
    )
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    vm = ((CATALOGUE / "vm.yaml").read_text(), (CATALOGUE / "vm.portal.yaml").read_text())
    with app.app_context():
        db.drop_all()
        upgrade(revision=BEFORE)
        ada = create_local_user("ada", "correct horse battery")
        grace = create_local_user("grace", "correct horse battery")
        # A person whose name is one of the words: their changes stay theirs.
        create_local_user("bootstrap", "correct horse battery")
        save_revision("vm", *vm, "import", create=True)
        save_revision("vm", *vm, "ada", "second")
        save_revision("small-vm", *vm, "cli", create=True)
        grant_role(ada, "admin", granted_by="cli")
        grant_role(grace, "operator", granted_by="bootstrap")
        grant_role(grace, "admin", granted_by="ada")
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
