"""The ready notice carries the ways in whichever process learns of Ready first: a sync worker
that has just started (nothing of the template read yet in its memory) learns the state and the
outputs in one answer, as it does from the Infrastructure Manager, and the mail still gives the
machine's address."""

from pathlib import Path

from app.auth.models import User
from app.backends.base import Phase, RemoteState
from app.catalogue.operations import save_revision
from app.deployments import tracking
from app.deployments.models import Deployment
from app.extensions import db
from app.notifications.preferences import choose_email_kinds

CATALOGUE = Path(__file__).resolve().parents[2] / "tosca-catalog"
OUTPUTS = {"node_ip": "203.0.113.9", "ssh_access": "cloudadm@203.0.113.9"}


def test_a_worker_that_just_started_tells_the_address_in_the_ready_mail(portal, smtp_server):
    ada = portal.user()
    with portal.app.app_context():
        choose_email_kinds(db.session.get(User, ada), {"ready"})
        revision = save_revision(
            "vm",
            (CATALOGUE / "vm.yaml").read_text(),
            (CATALOGUE / "vm.portal.yaml").read_text(),
            "test",
            create=True,
        )
        db.session.commit()
        revision_id = revision.id
    machine = portal.deployment(
        ada, name="my-vm", uuid="inf-1", template_slug="vm", revision_id=revision_id
    )

    with portal.app.app_context():
        # A process just started: no template read yet.
        portal.app.extensions.pop("portal_caches", None)
        row = db.session.get(Deployment, machine)
        state = RemoteState("inf-1", Phase.READY, raw_state="configured", outputs=OUTPUTS)
        assert tracking.apply_state(row, state, source="sync")
        db.session.commit()

    [notice] = [n for n in portal.notifications(ada) if n.kind == "ready"]
    assert [item["text"] for item in notice.details["access"]] == list(OUTPUTS.values())
    assert portal.send().sent == 1
    [message] = smtp_server.wait_for(1)
    text = message.get_body(("plain",)).get_content()
    assert "203.0.113.9" in text and "ssh cloudadm@203.0.113.9" in text
