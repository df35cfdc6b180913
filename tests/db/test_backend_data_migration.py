"""The orchestrator's owner and task of each deployment move into its backend's data on upgrade,
its callback secret becomes the reference secret, and the downgrade puts all back, on SQLite
and PostgreSQL."""

import pytest
import sqlalchemy as sa
from flask_migrate import downgrade, upgrade

from app.clock import utcnow
from app.extensions import db
from tests.db.old_rows import empty_database_url, local_account_as_then

BEFORE = "a1c3e5f7b9d2"
# name: (callback_secret, orchestrator_owner, task)
STORED = {
    "both": ("s-1", "sub-1@https://iam.test/", "DEPLOYER"),
    "owner only": ("s-2", "sub-2@https://iam.test/", None),
    "task only": ("s-3", None, "NONE"),
    "adopted": (None, None, None),
}
DEPLOYMENTS = sa.table(
    "deployments",
    *(
        sa.column(name)
        for name in (
            "id",
            "user_id",
            "name",
            "template_slug",
            "template_name",
            "parameters",
            "outputs",
            "charge",
            "request_options",
            "status",
            "adopted",
            "deleted",
            "check_failures",
            "created_at",
            "updated_at",
            "callback_secret",
            "orchestrator_owner",
            "task",
        )
    ),
)


def _upgrade_and_back(make_app, url):
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        upgrade(revision=BEFORE)
        ada = local_account_as_then("ada")
        now = utcnow()
        for number, (name, (secret, owner, task)) in enumerate(STORED.items(), start=1):
            db.session.execute(
                sa.insert(DEPLOYMENTS).values(
                    id=number,
                    user_id=ada.id,
                    name=name,
                    template_slug="vm",
                    template_name="VM",
                    parameters="{}",
                    outputs="{}",
                    charge="{}",
                    request_options="{}",
                    status="ready",
                    adopted=secret is None,
                    deleted=False,
                    check_failures=0,
                    created_at=now,
                    updated_at=now,
                    callback_secret=secret,
                    orchestrator_owner=owner,
                    task=task,
                )
            )
        db.session.commit()
        upgrade()
        data = sa.table("deployments", sa.column("name"), sa.column("backend_data", sa.JSON))
        after = dict(db.session.execute(sa.select(data.c.name, data.c.backend_data)).all())
        secrets = dict(
            db.session.execute(sa.text("SELECT name, reference_secret FROM deployments")).all()
        )
        columns = {column["name"] for column in sa.inspect(db.engine).get_columns("deployments")}
        db.session.commit()
        downgrade(revision=BEFORE)
        back = {
            name: (secret, owner, task)
            for name, secret, owner, task in db.session.execute(
                sa.text("SELECT name, callback_secret, orchestrator_owner, task FROM deployments")
            )
        }
        db.session.commit()
        return after, secrets, columns, back


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_orchestrators_words_move_into_its_data_and_come_back(
    database, make_app, tmp_path, request
):
    url = empty_database_url(database, tmp_path, request)
    data, secrets, columns, back = _upgrade_and_back(make_app, url)
    assert data == {
        "both": {"owner": "sub-1@https://iam.test/", "task": "DEPLOYER"},
        "owner only": {"owner": "sub-2@https://iam.test/"},
        "task only": {"task": "NONE"},
        "adopted": {},
    }
    assert secrets == {name: stored[0] for name, stored in STORED.items()}
    assert not columns & {"callback_secret", "orchestrator_owner", "task"}
    assert back == STORED
