"""Stored one-line texts lose their control characters on upgrade, on SQLite and PostgreSQL;
the orchestrator's own reasons keep their lines."""

from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask_migrate import upgrade

from app.auth.access_tokens import AccessToken
from app.clock import utcnow
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db
from app.quotas.models import QuotaChange
from tests.db.old_rows import local_account_as_then

BEFORE = "d5a9c3e7f2b4"
DEPLOYMENT_COLUMNS = (
    "user_id",
    "name",
    "template_slug",
    "template_name",
    "group_name",
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
    "id",
)


def _texts_after_upgrade(make_app, url) -> dict:
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        # The step changes no table: the models describe the schema before it as well.
        upgrade(revision=BEFORE)
        ada = local_account_as_then("ada")
        # Written as the table was then: later steps add columns the models already have.
        deployments = sa.table(
            "deployments",
            *(sa.column(name) for name in DEPLOYMENT_COLUMNS),
        )
        deployment_id = db.session.execute(
            sa.insert(deployments)
            .values(
                user_id=ada.id,
                name="poison\r\nX-A: b",
                template_slug="jupyter",
                template_name="Jupyter\tnotebook",
                group_name="\x1b[31mphysics\x1b[0m",
                parameters="{}",
                outputs="{}",
                charge="{}",
                request_options="{}",
                status="CREATE_COMPLETE",
                adopted=False,
                deleted=False,
                check_failures=0,
                created_at=utcnow(),
                updated_at=utcnow(),
            )
            .returning(deployments.c.id)
        ).scalar_one()
        db.session.add_all(
            [
                AccessToken(
                    user_id=ada.id,
                    name="laptop\x07\x07",
                    digest="d" * 64,
                    hint="rcp_d",
                    expires_at=utcnow() + timedelta(days=1),
                ),
                QuotaChange(scope="user", subject="ada", reason=" more\x85GPUs\r\n"),
            ]
        )
        events = sa.table(
            "deployment_events",
            *(sa.column(name) for name in ("deployment_id", "source", "reason", "at")),
        )
        db.session.execute(
            sa.insert(events),
            [
                {
                    "deployment_id": deployment_id,
                    "source": "user",
                    "reason": "why\u2028not",
                    "at": utcnow(),
                },
                {
                    "deployment_id": deployment_id,
                    "source": "sync",
                    "reason": "line 1\nline 2",
                    "at": utcnow(),
                },
            ],
        )
        db.session.commit()
        upgrade()
        db.session.expire_all()
        stored = db.session.get(Deployment, deployment_id)
        reasons = db.session.scalars(
            db.select(DeploymentEvent.reason).order_by(DeploymentEvent.id)
        ).all()
        return {
            "name": stored.name,
            "template_name": stored.template_name,
            "group_name": stored.group_name,
            "reasons": reasons,
            "token": db.session.scalar(db.select(AccessToken.name)),
            "quota_reason": db.session.scalar(db.select(QuotaChange.reason)),
        }


EXPECTED = {
    "name": "poison X-A: b",
    "template_name": "Jupyter notebook",
    "group_name": "[31mphysics [0m",
    "reasons": ["why not", "line 1\nline 2"],
    "token": "laptop",
    "quota_reason": "more GPUs",
}


def test_stored_one_line_texts_lose_their_control_characters_on_sqlite(make_app, tmp_path):
    assert _texts_after_upgrade(make_app, f"sqlite:///{tmp_path}/t.sqlite") == EXPECTED


@pytest.mark.postgres
def test_stored_one_line_texts_lose_their_control_characters_on_postgresql(
    make_app, empty_postgres_url
):
    assert _texts_after_upgrade(make_app, empty_postgres_url) == EXPECTED
