"""The group's holding index puts the launch time and id right after the group and the
deleted flag on upgrade (the Group page's newest-first pages read in order and stop), and
takes its former order back on downgrade. On SQLite and PostgreSQL."""

import pytest
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect

from app.extensions import db
from tests.db.old_rows import empty_database_url

BEFORE = "7e2b9d4f1a6c"
NEW = ["group_name", "deleted", "created_at", "id", "status", "keeps_failed_attempt"]
NEW += ["runs_once", "user_id"]
OLD = ["group_name", "deleted", "status", "keeps_failed_attempt", "runs_once", "user_id"]
OLD += ["created_at", "id"]


def _columns() -> list[str]:
    indexes = inspect(db.engine).get_indexes("deployments")
    return next(i["column_names"] for i in indexes if i["name"] == "ix_deployments_group_holding")


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_group_holding_index_is_in_launch_order_and_back_on_downgrade(
    database, make_app, tmp_path, request
):
    url = empty_database_url(database, tmp_path, request)
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        upgrade(revision=BEFORE)
        assert _columns() == OLD
        upgrade(revision="9c4e1a7b3d5f")
        assert _columns() == NEW
        downgrade(revision=BEFORE)
        assert _columns() == OLD
