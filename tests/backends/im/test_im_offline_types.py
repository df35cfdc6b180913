"""A starter template launches on a real Infrastructure Manager that cannot reach the internet.

The INDIGO types a starter imports from GitHub name, as their operations' implementations,
Ansible playbooks on GitHub too, and IM downloads both while it creates, refusing the create
when it cannot. The portal serves the shipped types and those playbooks at ``/types/`` and
points the template at them: IM, in a namespace with no route out, fetches them from the portal
(served by the test, reached through ``ImServer.serve_portal``)."""

import threading
from contextlib import contextmanager
from pathlib import Path

from werkzeug.serving import make_server

from app.catalogue.operations import publish, save_revision
from tests.api.conftest import Callers
from tests.backends.im.conftest import TIMEOUT, at_im, sync_until
from tests.fixtures.im_server import DUMMY_CLOUD, PORTAL_URL

CATALOGUE = Path(__file__).parents[3] / "tosca-catalog"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ada@laptop"


@contextmanager
def served_to_im(app, im_server):
    """The portal ``app`` on a loopback port of the test, reached by IM at PORTAL_URL; yields
    the paths IM asked for."""
    asked: list[str] = []

    def recording(environ, start_response):
        asked.append(environ.get("PATH_INFO", ""))
        return app(environ, start_response)

    server = make_server("127.0.0.1", 0, recording, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    relay = im_server.serve_portal(server.server_address)
    try:
        yield asked
    finally:
        relay.close()
        server.shutdown()
        thread.join(10)


def test_the_starter_vm_launches_on_an_im_with_no_internet_with_types_and_playbooks_of_the_portal(
    make_app, im_server, im_identity
):
    username, password = im_identity
    portal = make_app(
        ORCHESTRATOR_URL="demo",
        IM_URL=im_server.url,
        IM_CLOUDS=DUMMY_CLOUD,
        IM_USERNAME=username,
        IM_PASSWORD=password,
        IM_TIMEOUT=list(TIMEOUT),
        PORTAL_BASE_URL=PORTAL_URL,
        DEPLOYMENTS_SYNC_INTERVAL_SECONDS=0,
        LAUNCHES_PER_MINUTE=0,
    )
    sidecar = (CATALOGUE / "vm.portal.yaml").read_text() + "\nbackend: im\n"
    with portal.app_context():
        save_revision("vm", (CATALOGUE / "vm.yaml").read_text(), sidecar, "t", create=True)
        publish("vm", "test")
    ada = Callers(portal)("ada")

    with served_to_im(portal, im_server) as asked:
        answer = ada.launch(name="offline-vm", template="vm", parameters={"ssh_public_key": KEY})
        assert answer.status_code == 201, answer.get_json()
        row = sync_until(portal, answer.get_json()["id"], lambda r: r.backend_state == "running")

    with at_im(im_server, im_identity) as im:
        try:
            assert (row.status, row.backend, row.backend_state) == ("creating", "im", "running")
            assert "/types/indigo-2025-08/custom_types.yaml" in asked
            # IM wrote the playbook into the recipes it keeps; it caches what it downloaded by
            # address for its lifetime, so an earlier test may have been the one to ask for it.
            radl = im.client._json("GET", f"/infrastructures/{row.uuid}/radl").get("radl")
            # The playbook's play, in IM's recipe for the machine.
            assert "- role: indigo-dc.os_users" in str(radl)
        finally:
            for infid in im.client.list_ids():
                im.delete(infid, force=True)
