"""Budget warnings given before they followed rolling windows stay given on upgrade: each
takes its budget's period, and none is re-armed; downgrade drops the new columns and keeps the
warnings. On SQLite and PostgreSQL."""

from datetime import datetime

import pytest
import sqlalchemy as sa
from flask_migrate import downgrade, upgrade

from app.extensions import db
from tests.db.old_rows import empty_database_url

BEFORE = "7b9d1f3a5c8e"
BUDGETS = sa.table(
    "usage_budgets",
    *(sa.column(c) for c in ("id", "scope", "subject", "resource", "hours", "period_days")),
    *(sa.column(c) for c in ("reason", "actor_name", "updated_at")),
)
WARNINGS = sa.table(
    "budget_warnings",
    *(sa.column(c) for c in ("budget_id", "period_start", "threshold", "hours", "used")),
    sa.column("warned_at"),
)
NOW = datetime(2026, 11, 20, 12, 0)


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_warnings_given_before_keep_their_budgets_period_and_stay_given(
    database, make_app, tmp_path, request
):
    url = empty_database_url(database, tmp_path, request)
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        upgrade(revision=BEFORE)
        for budget_id, period_days, start in ((1, 0, datetime(2026, 11, 1)), (2, 30, NOW)):
            db.session.execute(
                sa.insert(BUDGETS).values(
                    id=budget_id,
                    scope="group",
                    subject=f"group-{budget_id}",
                    resource="cores",
                    hours=100.0,
                    period_days=period_days,
                    reason="term",
                    actor_name="",
                    updated_at=NOW,
                )
            )
            db.session.execute(
                sa.insert(WARNINGS).values(
                    budget_id=budget_id,
                    period_start=start.replace(hour=0),
                    threshold=80,
                    hours=100.0,
                    used=85.0,
                    warned_at=NOW,
                )
            )
        db.session.commit()
        upgrade()
        rows = db.session.execute(
            sa.text(
                "SELECT budget_id, period_days, rearmed_at FROM budget_warnings ORDER BY budget_id"
            )
        ).all()
        assert [tuple(row) for row in rows] == [(1, 0, None), (2, 30, None)]
        db.session.rollback()  # the migration's connection alters the table
        downgrade(revision=BEFORE)
        columns = {c["name"] for c in sa.inspect(db.engine).get_columns("budget_warnings")}
        assert "rearmed_at" not in columns and "period_days" not in columns
        assert db.session.scalar(sa.text("SELECT count(*) FROM budget_warnings")) == 2
        db.session.rollback()
        upgrade()
