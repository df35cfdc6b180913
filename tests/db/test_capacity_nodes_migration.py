"""A cluster's snapshot gains what each node has free on upgrade (none until its source is read
again), and loses it on downgrade keeping the sums, on SQLite and PostgreSQL."""

import pytest
import sqlalchemy as sa
from flask_migrate import downgrade, upgrade

from app.clock import utcnow
from app.extensions import db
from tests.db.old_rows import empty_database_url

BEFORE = "a9c3e5f7b1d4"
THIS = "c3e5a7b9d1f4"


def _snapshot():
    return db.session.execute(
        sa.text("SELECT cores, gpus FROM capacity_snapshot ORDER BY id")
    ).all()


def _columns() -> set[str]:
    return {column["name"] for column in sa.inspect(db.engine).get_columns("capacity_snapshot")}


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_snapshot_keeps_its_sums_through_the_per_node_column_both_ways(
    database, make_app, tmp_path, request
):
    url = empty_database_url(database, tmp_path, request)
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        upgrade(revision=BEFORE)
        assert "nodes" not in _columns()
        db.session.commit()
        now = utcnow()
        db.session.execute(
            sa.text(
                "INSERT INTO capacity_site (id, name, backend, placement, created_at)"
                " VALUES (1, 'RECAS-BARI', 'paas', '', :now)"
            ),
            {"now": now},
        )
        db.session.execute(
            sa.text(
                "INSERT INTO capacity_snapshot (site_id, source, source_key, read_at,"
                " maintenance, cores, gpus, gpus_known) VALUES (1, 'cluster-stats', 'k', :now,"
                " false, 160, '{\"A100\": 4}', true)"
            ),
            {"now": now},
        )
        db.session.commit()

        upgrade(revision=THIS)
        assert "nodes" in _columns()
        assert db.session.execute(sa.text("SELECT nodes FROM capacity_snapshot")).scalar() is None
        db.session.execute(
            sa.text("UPDATE capacity_snapshot SET nodes = :nodes"),
            {"nodes": '[{"cores": 8, "memory_gib": 1, "disk_gib": 1, "gpus": {"A100": 4}}]'},
        )
        db.session.commit()
        kept = _snapshot()
        db.session.commit()

        downgrade(revision=BEFORE)
        assert "nodes" not in _columns()
        assert _snapshot() == kept
        db.session.commit()
