"""rcp and the notifications for a template routed to a real IM: rcp launches it against a
running portal and waits for Ready, reads it, deletes it and waits for the end; its owner is told
of Ready with IM's outputs in the bell and by mail, and of a failure with IM's reason."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from app.auth.models import User
from app.catalogue.operations import publish, save_revision
from app.extensions import db
from app.notifications.models import Notification
from app.notifications.preferences import choose_email_kinds
from app.notifications.sending import send_once
from app.sync.passes import sync_once
from tests.api.conftest import Callers
from tests.backends.im.conftest import at_im, im_portal, sync_until, template

RCP = str(Path(sys.executable).with_name("rcp"))
FAILING_SIDECAR = "name: Configured application\nbackend: im\n"


class Serving:
    """The portal answering on a loopback port, with a sync worker beside it (threads of this
    test: rcp waits on the API while the worker follows IM)."""

    def __init__(self, app):
        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.stop = threading.Event()
        self.threads = [
            threading.Thread(target=self.server.serve_forever, daemon=True),
            threading.Thread(target=self._sync, daemon=True),
        ]

    def _sync(self) -> None:
        while not self.stop.is_set():
            with self.app.app_context():
                sync_once()
            self.stop.wait(0.2)

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop.set()
        self.server.shutdown()
        for thread in self.threads:
            thread.join(timeout=60)

    def rcp(self, *args: str, token: str, home: Path):
        """Run rcp; returns (exit code, output, stderr)."""
        result = subprocess.run(
            [RCP, *args],
            env={
                "PATH": os.environ["PATH"],
                "HOME": str(home),
                "RCP_URL": self.url,
                "RCP_TOKEN": token,
            },
            capture_output=True,
            text=True,
            timeout=300,
        )
        return result.returncode, result.stdout, result.stderr


@pytest.fixture
def mailing_portal(make_app, im_server, im_identity, smtp_server):
    return im_portal(make_app, im_server, im_identity, **smtp_server.settings(), MAIL_TIMEOUT=2)


def _person(app, kinds) -> tuple[int, str]:
    """Ada, with an address and the mails she chose; returns her id and an API token."""
    callers = Callers(app)
    ada = callers.user("ada")
    with app.app_context():
        user = db.session.get(User, ada)
        user.email = "ada@example.org"
        choose_email_kinds(user, set(kinds))
        db.session.commit()
    return ada, callers.token_for(ada)


def _notices(app, user_id: int) -> list[Notification]:
    with app.app_context():
        rows = list(
            db.session.scalars(
                db.select(Notification)
                .where(Notification.user_id == user_id)
                .order_by(Notification.id)
            )
        )
        for row in rows:
            db.session.expunge(row)
        return rows


def test_rcp_launches_on_im_waits_for_ready_and_deletes_and_ada_hears_of_ready_with_the_outputs(
    mailing_portal, im_server, im_identity, smtp_server, tmp_path
):
    from app.leases.editing import parse_field, set_policy

    app = mailing_portal
    ada, token = _person(app, {"ready", "failed"})
    with app.app_context():
        policy = {"default": "8h", "extend_step": "1h", "cap": "2d"}
        set_policy(
            None, "one-machine", None, {k: parse_field(k, v) for k, v in policy.items()}, "t"
        )
    with Serving(app) as portal:
        code, out, err = portal.rcp(
            "launch",
            "one-machine",
            "--name",
            "im-rcp",
            "--set",
            "num_cpus=2",
            "--wait",
            "--interval",
            "0.2",
            "--timeout",
            "120",
            "--json",
            token=token,
            home=tmp_path,
        )
        assert code == 0, err
        ready = json.loads(out)
        assert (ready["status"], ready["backend"]) == ("CREATE_COMPLETE", "im")
        assert ready["outputs"]["node_ip"] == "10.0.0.1"
        deployment_id = str(ready["id"])
        code, shown, err = portal.rcp("show", deployment_id, token=token, home=tmp_path)
        assert code == 0 and "CREATE_COMPLETE" in shown, err
        with at_im(im_server, im_identity) as im:
            assert len(im.client.list_ids()) == 1
        # Its lease started at Ready and is extended by the policy's step, as on its page.
        code, extended, err = portal.rcp("extend", deployment_id, token=token, home=tmp_path)
        assert code == 0 and "Extended: im-rcp" in extended, err

        code, _out, err = portal.rcp(
            "delete",
            deployment_id,
            "--wait",
            "--interval",
            "0.2",
            "--timeout",
            "120",
            token=token,
            home=tmp_path,
        )
        assert code == 0, err
        code, _out, err = portal.rcp("show", deployment_id, token=token, home=tmp_path)
        assert code == 4 and "no such deployment" in err
    with at_im(im_server, im_identity) as im:
        assert im.client.list_ids() == []

    # The bell: one notice of Ready, carrying the address IM gave.
    [notice] = [n for n in _notices(app, ada) if n.kind == "ready"]
    assert notice.deployment_id == int(deployment_id)
    assert any("10.0.0.1" in item["text"] for item in notice.details["access"]), notice.details
    # The mail: sent once, with the same address.
    with app.app_context():
        assert send_once().sent == 1
    [message] = smtp_server.wait_for(1)
    assert message["Subject"] == "im-rcp is ready" and message["To"] == "ada@example.org"
    assert "10.0.0.1" in message.get_body(("plain",)).get_content()


def test_ada_hears_by_mail_and_in_the_bell_that_her_im_launch_failed_and_why(
    mailing_portal, im_server, im_identity, smtp_server
):
    app = mailing_portal
    ada, token = _person(app, {"failed"})
    with app.app_context():
        text = template("configured-app.yaml")
        save_revision("configured-app", text, FAILING_SIDECAR, "t", create=True)
        publish("configured-app", "test")
    client = app.test_client()
    answer = client.post(
        "/api/v1/deployments",
        json={"name": "im-fails", "template": "configured-app", "parameters": {}},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 201, answer.get_json()
    row = sync_until(app, answer.get_json()["id"], lambda r: r.status != "creating", timeout=60)
    assert (row.status, row.backend_state) == ("failed", "unconfigured")

    [notice] = [n for n in _notices(app, ada) if n.kind == "failed"]
    assert "public address" in (notice.details.get("reason") or ""), notice.details
    with app.app_context():
        assert send_once().sent == 1
    [message] = smtp_server.wait_for(1)
    assert message["Subject"] == "im-fails failed to start"
    assert "public address" in message.get_body(("plain",)).get_content()
