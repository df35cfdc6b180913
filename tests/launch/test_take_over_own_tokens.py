"""People who call the orchestrator with their own token: a deployment is held there in the
name of whoever made it, and only they may act on it. Taken over, it is still asked about with
its maker's token: the new owner deletes it, the sync worker follows it. When the maker's
login can no longer be renewed, the page and the API say so, naming them."""

from __future__ import annotations

import pytest

from app.auth.models import User
from app.auth.operations import set_active
from app.auth.tokens import store_tokens
from app.deployments import sharing
from app.deployments.models import Deployment
from app.extensions import db
from app.launch import taking_over
from app.sync.polling import poll_due
from tests.api.conftest import Callers
from tests.conftest import csrf_from

HOLDER_WORDS = (
    "The PaaS Orchestrator holds this deployment in the name of olga, who made it there, and "
    "acts on it only for them; their login has expired and can no longer be renewed, so the "
    "portal cannot act on it there until olga logs in again."
)


class OwnTokens:
    """Olga, with her own token, launches at the emulator and shares the deployment with
    Carla as co-owner (Carla: with her own token too, or a local account that the portal's
    service identity acts for); then Olga's account is disabled and Carla takes it over."""

    def __init__(self, emulated, people_for, carla_local: bool):
        self.emulated, self.app = emulated, emulated.app
        self.olga = emulated.oidc_user("olga")
        if carla_local:
            self.client = self.app.test_client()
            people = people_for(self.app, self.client)
            self.carla = people.create("carla")
            with self.app.app_context():
                db.session.get(User, self.carla).groups = ["physics"]
                db.session.commit()
            people.login("carla")
        else:
            self.carla = emulated.oidc_user("carla")
        self.deployment_id = emulated.launch(self.olga)
        with self.app.app_context():
            olga = db.session.get(User, self.olga)
            deployment = db.session.get(Deployment, self.deployment_id)
            sharing.share(olga, deployment, "user", "carla", "co-owner")
            set_active(olga, False)
            db.session.commit()
            taking_over.take_over(db.session.get(User, self.carla), self.deployment_id)

    @property
    def uuid(self) -> str:
        return self.emulated.row(self.deployment_id).uuid

    def follow(self) -> str:
        """A sync pass (the listing in Olga's name) and the polls due; its status then."""
        self.emulated.sync()
        with self.app.app_context():
            poll_due()
        return self.emulated.row(self.deployment_id).status

    def expire_olgas_login(self) -> None:
        """Olga's stored token has expired, and there is nothing to renew it with."""
        with self.app.app_context():
            olga = db.session.get(User, self.olga)
            store_tokens(olga, "iam", {"access_token": "tok-olga", "expires_in": 0})

    def deletes(self) -> list[dict]:
        return [r for r in self.emulated.emulator.requests() if r["method"] == "DELETE"]

    def api_delete(self):
        token = Callers(self.app).token_for(self.carla)
        return self.app.test_client().delete(
            f"/api/v1/deployments/{self.deployment_id}",
            headers={"Authorization": f"Bearer {token}"},
        )


@pytest.mark.parametrize("carla_local", [False, True], ids=["own-token", "local"])
def test_taken_over_it_is_followed_and_deleted_with_its_makers_token(
    emulated, people_for, carla_local
):
    world = OwnTokens(emulated, people_for, carla_local)
    row = emulated.row(world.deployment_id)
    assert (row.user_id, row.backend_holder_id) == (world.carla, world.olga)
    emulated.emulator.set_status(world.uuid, "CREATE_COMPLETE")
    assert world.follow() == "ready"
    assert world.follow() == "ready"  # the listing in Olga's name keeps it; it never vanishes

    answer = world.api_delete()
    assert answer.status_code == 202, answer.get_json()
    assert answer.get_json()["owner"] == "carla"
    assert len(world.deletes()) == 1 and world.deletes()[0]["path"].endswith(world.uuid)
    assert emulated.row(world.deployment_id).status == "deleting"
    emulated.emulator.set_status(world.uuid, "DELETE_COMPLETE")
    assert world.follow() == "deleted"


def test_when_the_makers_login_cannot_be_renewed_the_page_and_the_api_say_so(emulated, people_for):
    world = OwnTokens(emulated, people_for, carla_local=True)
    emulated.emulator.set_status(world.uuid, "CREATE_COMPLETE")
    assert world.follow() == "ready"
    world.expire_olgas_login()

    page = f"/deployments/{world.deployment_id}"
    token = csrf_from(world.client.get(page).get_data(as_text=True))
    answer = world.client.post(f"{page}/delete", data={"csrf_token": token})
    shown = world.client.get(page).get_data(as_text=True) if answer.status_code == 302 else ""
    shown = (shown or answer.get_data(as_text=True)).replace("&#39;", "'")
    assert HOLDER_WORDS in shown

    answer = world.api_delete()
    assert answer.status_code == 502  # as any refusal met at the orchestrator
    assert HOLDER_WORDS in answer.get_json()["detail"]
    assert world.deletes() == []
    row = emulated.row(world.deployment_id)
    assert (row.status, row.deleted) == ("ready", False)
