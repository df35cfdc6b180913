"""Stored one-line texts lose their control characters on upgrade, on SQLite and PostgreSQL;
the orchestrator's own reasons keep their lines."""

from datetime import timedelta

import pytest
from flask_migrate import upgrade

from app.auth.access_tokens import AccessToken
from app.auth.cli import create_local_user
from app.clock import utcnow
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db
from app.quotas.models import QuotaChange

BEFORE = "d5a9c3e7f2b4"


def _texts_after_upgrade(make_app, url) -> dict:
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        # The step changes no table: the models describe the schema before it as well.
        upgrade(revision=BEFORE)
        ada = create_local_user("ada", "correct horse battery")
        deployment = Deployment(
            user_id=ada.id,
            name="poison\r\nX-A: b",
            template_slug="jupyter",
            template_name="Jupyter\tnotebook",
            group_name="\x1b[31mphysics\x1b[0m",
            parameters={},
            outputs={},
            charge={},
            request_options={},
            status="CREATE_COMPLETE",
        )
        db.session.add(deployment)
        db.session.flush()
        db.session.add_all(
            [
                DeploymentEvent(deployment_id=deployment.id, source="user", reason="why\u2028not"),
                DeploymentEvent(
                    deployment_id=deployment.id, source="sync", reason="line 1\nline 2"
                ),
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
        db.session.commit()
        upgrade()
        db.session.expire_all()
        stored = db.session.get(Deployment, deployment.id)
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
