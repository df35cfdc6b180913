"""Stored statuses become the portal's own words on upgrade, and the orchestrator's again on
downgrade, on SQLite and PostgreSQL; each deployment learns its backend and keeps the
orchestrator's word for its state."""

import pytest
import sqlalchemy as sa
from flask_migrate import downgrade, upgrade

from app.clock import utcnow
from app.extensions import db
from tests.db.old_rows import empty_database_url, local_account_as_then

BEFORE = "d5a1c7e3f9b2"
STATUSES = {
    "CREATE_IN_PROGRESS": "creating",
    "CREATE_COMPLETE": "ready",
    "CREATE_FAILED": "failed",
    "UPDATE_COMPLETE": "updated",
    "DELETE_IN_PROGRESS": "deleting",
    "DELETE_COMPLETE": "deleted",
    "DELETE_FAILED": "delete-failed",
    "UNKNOWN": "unknown",
    # The portal's own, and one from a newer orchestrator no one mapped: as they were.
    "UNCONFIRMED": "UNCONFIRMED",
    "NOT_LAUNCHED": "NOT_LAUNCHED",
    "PAUSE_IN_PROGRESS": "PAUSE_IN_PROGRESS",
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
        )
    ),
)
EVENTS = sa.table(
    "deployment_events",
    *(sa.column(name) for name in ("deployment_id", "from_status", "to_status", "source", "at")),
)


def _rows():
    return db.session.execute(
        sa.text("SELECT name, status FROM deployments ORDER BY id")
    ).all(), db.session.execute(
        sa.text("SELECT from_status, to_status FROM deployment_events ORDER BY id")
    ).all()


def _upgrade_and_back(make_app, url):
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        upgrade(revision=BEFORE)
        ada = local_account_as_then("ada")
        now = utcnow()
        for number, status in enumerate(STATUSES, start=1):
            db.session.execute(
                sa.insert(DEPLOYMENTS).values(
                    id=number,
                    user_id=ada.id,
                    name=status,
                    template_slug="vm",
                    template_name="VM",
                    parameters="{}",
                    outputs="{}",
                    charge="{}",
                    request_options="{}",
                    status=status,
                    adopted=False,
                    deleted=False,
                    check_failures=0,
                    created_at=now,
                    updated_at=now,
                )
            )
        steps = [(None, "SUBMITTING"), ("SUBMITTING", "CREATE_IN_PROGRESS")]
        steps.append(("CREATE_IN_PROGRESS", "CREATE_COMPLETE"))
        db.session.execute(
            sa.insert(EVENTS),
            [
                {
                    "deployment_id": 1,
                    "from_status": old,
                    "to_status": new,
                    "at": now,
                    "source": "sync",
                }
                for old, new in steps
            ],
        )
        db.session.commit()
        upgrade()
        after = _rows()
        backends = db.session.execute(
            sa.text("SELECT name, backend, backend_state FROM deployments ORDER BY id")
        ).all()
        db.session.commit()
        downgrade(revision=BEFORE)
        back = _rows()
        db.session.commit()
        return after, backends, back


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_stored_statuses_become_the_portals_words_and_come_back(
    database, make_app, tmp_path, request
):
    url = empty_database_url(database, tmp_path, request)
    (deployments, events), backends, (old_deployments, old_events) = _upgrade_and_back(
        make_app, url
    )
    assert deployments == [(old, new) for old, new in STATUSES.items()]
    assert events == [
        (None, "SUBMITTING"),
        ("SUBMITTING", "creating"),
        ("creating", "ready"),
    ]
    mapped = {old for old, new in STATUSES.items() if old != new}
    assert backends == [(old, "paas", old if old in mapped else None) for old in STATUSES]
    assert old_deployments == [(old, old) for old in STATUSES]
    assert old_events == [
        (None, "SUBMITTING"),
        ("SUBMITTING", "CREATE_IN_PROGRESS"),
        ("CREATE_IN_PROGRESS", "CREATE_COMPLETE"),
    ]
