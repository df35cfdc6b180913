"""A portal with something on every page, built once for a whole module of browser tests: the
starter catalogue, a researcher with a ready, a failed and a batch-job deployment, their
notifications and an access token, a researcher with nothing yet, an admin who is also an
operator, quota limits with their history.

Everything is put in place through the portal's own operations, so the pages show what a real
portal would; the orchestrator is the demo one, and no worker runs, so nothing moves on its own.
"""

import shutil
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta

import pytest

from app import create_app
from app.extensions import db
from tests.conftest import TEST_CONFIG
from tests.e2e.conftest import LiveServer, log_in

PASSWORD = "correct horse battery"
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# How long a browser test waits for what it expects (ms): a busy machine makes pages slow,
# never wrong.
WAIT = 20_000


@dataclass
class Tour:
    """The live portal and what was put in it: ids of users and deployments by name."""

    app: object
    url: str = ""
    users: dict[str, int] = field(default_factory=dict)
    deployments: dict[str, int] = field(default_factory=dict)
    # Each person's browser state once logged in: a context opened with it is logged in.
    logins: dict[str, dict] = field(default_factory=dict)

    def deploy(
        self,
        username: str,
        slug: str,
        parameters: dict,
        name: str,
        state=None,
        remember: bool = False,
    ) -> int:
        """Launch ``slug`` for ``username`` on the demo orchestrator; ``state`` (status,
        reason, outputs, deployment type) is then what the orchestrator reports of it, or
        "SUBMITTING" for a launch whose answer has not come yet. With ``remember`` the launch
        form fills itself with these values next time, as after a launch from the form."""
        from app.auth.models import User
        from app.backends.paas.schemas import DeploymentState
        from app.catalogue.loader import catalogue
        from app.deployments.status import Status
        from app.deployments.timeline import record_event
        from app.deployments.tracking import apply_state
        from app.launch.request import LaunchRequest
        from app.launch.workflow import launch

        with self.app.app_context():
            user = db.session.get(User, self.users[username])
            deployment = launch(
                LaunchRequest(
                    user, catalogue().get(slug), dict(parameters), name=name, remember=remember
                )
            )
            if state == Status.SUBMITTING:
                deployment.uuid = None
                record_event(deployment, Status.SUBMITTING, source="launch")
                db.session.commit()
            elif state:
                apply_state(
                    deployment,
                    DeploymentState(uuid=deployment.uuid, **state).remote(),
                    source="sync",
                )
                db.session.commit()
            return deployment.id


JUPYTER = {"jupyter_password": "a-long-notebook-password"}
JOB = {"command": "python train.py --epochs 10"}


def build_tour(tmp_path, starter_catalogue_db) -> Tour:
    from app.auth.access_tokens import create as create_token
    from app.auth.cli import create_local_user
    from app.auth.operations import grant_role
    from app.quotas.editing import set_limits

    target = tmp_path / "tour.sqlite"
    shutil.copy(starter_catalogue_db, target)
    app = create_app(
        {
            **TEST_CONFIG,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{target}",
            "ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS": None,
            "LAUNCHES_PER_MINUTE": 0,
        },
        instance_path=str(tmp_path / "instance"),
    )
    tour = Tour(app)
    with app.app_context():
        db.create_all()
        for username, name, roles in (
            ("ada", "Ada Lovelace", ()),
            ("newcomer", "Nora Newcomer", ()),
            ("grace", "Grace Hopper", ("admin", "operator")),
        ):
            user = create_local_user(username, PASSWORD, display_name=name)
            user.email = f"{username}@example.org"
            user.groups = ["gpu-users", "physics"]
            for role in roles:
                grant_role(user, role, granted_by="test")
            db.session.commit()
            tour.users[username] = user.id
        grace = db.session.get(type(user), tour.users["grace"])
        set_limits(grace, "group", "physics", {"cores": 64, "gpus": 1}, "The physics share")
        set_limits(grace, "site", "", {"cores": 512}, "What the site holds")
        ada = db.session.get(type(user), tour.users["ada"])
        create_token(ada, "Nightly analysis", ["deployments:read"], timedelta(days=30))

    tour.deployments["ready"] = tour.deploy(
        "ada",
        "jupyter-vm",
        JUPYTER,
        "Notebook for the calibration study",
        {
            "status": "CREATE_COMPLETE",
            "site": "RECAS-BARI",
            "outputs": {"jupyter_endpoint": "https://203.0.113.7:8888", "node_ip": "203.0.113.7"},
        },
        remember=True,
    )
    tour.deployments["failed"] = tour.deploy(
        "ada",
        "jupyter-vm",
        JUPYTER,
        "Notebook that did not start",
        {
            "status": "CREATE_FAILED",
            "status_reason": "Error launching the VMs of type tosca.nodes.indigo.Compute: "
            "no site had room for 4 cores",
        },
    )
    tour.deployments["job"] = tour.deploy(
        "ada",
        "chronos-gpu-job",
        JOB,
        "Training run",
        {"status": "CREATE_IN_PROGRESS", "site": "RECAS-BARI", "deployment_type": "CHRONOS"},
    )
    # A deployment in each of the other states a person sees, services and jobs.
    for key, slug, parameters, name, state in (
        (
            "creating",
            "jupyter-vm",
            JUPYTER,
            "Notebook being made",
            {"status": "CREATE_IN_PROGRESS"},
        ),
        (
            "deleting",
            "jupyter-vm",
            JUPYTER,
            "Notebook being deleted",
            {"status": "DELETE_IN_PROGRESS", "site": "RECAS-BARI"},
        ),
        (
            "deleted",
            "jupyter-vm",
            JUPYTER,
            "Notebook deleted",
            {"status": "DELETE_COMPLETE", "site": "RECAS-BARI"},
        ),
        (
            "job_queued",
            "chronos-gpu-job",
            JOB,
            "Training in line",
            {"status": "CREATE_IN_PROGRESS"},
        ),
        (
            "job_succeeded",
            "chronos-gpu-job",
            JOB,
            "Training that succeeded",
            {"status": "CREATE_COMPLETE", "site": "RECAS-BARI", "deployment_type": "CHRONOS"},
        ),
        (
            "job_failed",
            "chronos-gpu-job",
            JOB,
            "Training that failed",
            {
                "status": "CREATE_FAILED",
                "site": "RECAS-BARI",
                "deployment_type": "CHRONOS",
                "status_reason": "Chronos job 0f1e2d3c failed to execute",
            },
        ),
        # Last, and with settings of its own: until it is confirmed, the same launch again
        # would be refused as a possible double.
        (
            "submitting",
            "jupyter-vm",
            {**JUPYTER, "num_cpus": 1},
            "Notebook on its way",
            "SUBMITTING",
        ),
    ):
        tour.deployments[key] = tour.deploy("ada", slug, parameters, name, state)
    return tour


@contextmanager
def served_tour(tmp_path, starter_catalogue_db, chromium):
    """The tour's portal served live, everyone in it logged in once (``tour.logins``)."""
    from argon2 import PasswordHasher
    from playwright.sync_api import expect

    from app.auth import local

    # Logins are not what these tests are about: hash cheaply (the autouse fixture that does
    # this elsewhere lasts one test, this portal a module).
    with pytest.MonkeyPatch.context() as patch:
        cheap = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
        patch.setattr(local, "_hasher", cheap)
        patch.setattr(local, "_DUMMY_HASH", cheap.hash("not a real password"))
        tour = build_tour(tmp_path, starter_catalogue_db)
        with LiveServer(tour.app) as server:
            tour.url = server.url
            for username in tour.users:
                context = chromium.new_context()
                page = context.new_page()
                log_in(page, server.url, username, PASSWORD)
                expect(page.locator("#user-menu")).to_be_visible(timeout=WAIT)
                tour.logins[username] = context.storage_state()
                context.close()
            yield tour
