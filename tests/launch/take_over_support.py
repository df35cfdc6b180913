"""A deployment shared in every way, whose owner's account can be disabled, for the tests of
taking it over (the operation, its page, the API and rcp)."""

from __future__ import annotations

from app.auth import managers
from app.auth.models import User
from app.auth.operations import set_active
from app.catalogue.operations import publish, save_revision
from app.deployments import sharing
from app.deployments.models import Deployment
from app.extensions import db
from app.launch import taking_over
from tests.conftest import csrf_from
from tests.deployments.conftest import SIDECAR, TEMPLATE
from tests.quotas.conftest import Quotas, charge

A100 = charge(cores=4, gpus=2, gpu_models={"A100": 2})


class World:
    """Olga owns a deployment of 4 cores and 2 A100 GPUs charged to group physics, shared with
    Carla as co-owner, with Vera as viewer and with group optics as viewer; Mario manages
    physics; Ada is an admin, Oscar an operator, Otto a stranger in group chemistry."""

    def __init__(self, app, make_deployment, people_for):
        self.app, self.people_for = app, people_for
        self.quotas = Quotas(app)
        self.ids, self.clients = {}, {}
        for name, groups in (
            ("olga", ["physics", "optics"]),
            ("carla", ["physics"]),
            ("vera", ["optics"]),
            ("mario", ["biology"]),
            ("ada", []),
            ("oscar", []),
            ("otto", ["chemistry"]),
        ):
            client = app.test_client()
            helper = people_for(app, client)
            roles = {"ada": ("admin",), "oscar": ("operator",)}.get(name, ())
            self.ids[name] = helper.create(name, roles=roles)
            with app.app_context():
                db.session.get(User, self.ids[name]).groups = groups
                db.session.commit()
            helper.login(name)
            self.clients[name] = client
        with app.app_context():
            managers.name_manager("physics", self.user("mario"), "test")
        self.make_deployment = make_deployment
        self.deployment_id = self.fresh()

    def fresh(self) -> int:
        """Another deployment of Olga's, shared as the first."""
        deployment_id = self.make_deployment(
            self.ids["olga"], name="Shared cluster", group_name="physics", charge=A100
        )
        with self.app.app_context():
            olga = self.user("olga")
            deployment = db.session.get(Deployment, deployment_id)
            sharing.share(olga, deployment, "user", "carla", "co-owner")
            sharing.share(olga, deployment, "user", "vera", "viewer")
            sharing.share(olga, deployment, "group", "optics", "viewer")
        return deployment_id

    def user(self, name: str) -> User:
        return db.session.get(User, self.ids[name])

    def deployment(self) -> Deployment:
        return db.session.get(Deployment, self.deployment_id)

    def disable_owner(self) -> None:
        with self.app.app_context():
            set_active(self.user("olga"), False)
            db.session.commit()

    def take_over(self, name: str) -> Deployment:
        with self.app.app_context():
            return taking_over.take_over(self.user(name), self.deployment_id)

    def state(self):
        """(owner, group, shares, event kinds) as recorded."""
        with self.app.app_context():
            deployment = self.deployment()
            shares = sorted((s.kind, s.name, s.role) for s in sharing.shares_of(deployment))
            owner = db.session.get(User, deployment.user_id).username
            return owner, deployment.group_name, shares, [e.kind for e in deployment.events]

    def page(self, name: str) -> str:
        return self.clients[name].get(f"/deployments/{self.deployment_id}").get_data(as_text=True)

    def press(self, name: str):
        page = f"/deployments/{self.deployment_id}"
        token = csrf_from(self.clients[name].get("/deployments/").get_data(as_text=True))
        return self.clients[name].post(f"{page}/take-over", data={"csrf_token": token})


def service_app(make_app, closed_port_url, **settings):
    """A portal that calls the orchestrator in its own name for local accounts (a service
    identity), at an address where nothing answers: taking over asks it nothing."""
    portal = make_app(
        ORCHESTRATOR_URL=closed_port_url,
        ORCHESTRATOR_SERVICE_IDENTITY={"token": "service-token"},
        **settings,
    )
    with portal.app_context():
        save_revision("test-notebook", TEMPLATE, SIDECAR, "test", create=True)
        publish("test-notebook", "test")
    return portal
