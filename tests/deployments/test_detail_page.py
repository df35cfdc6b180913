"""The deployment page: outputs, status, timeline, settings, actions, secrets and what is
loaded from the orchestrator on demand."""

import re

from app.extensions import db
from tests.conftest import csrf_from
from tests.deployments.pages_support import (
    compact,
    page_text,
)


def test_output_values_are_escaped_and_only_web_addresses_become_links(
    client, login_as, make_deployment
):
    deployment_id = make_deployment(
        login_as(),
        outputs={
            "jupyter_endpoint": "javascript:alert(1)",
            "node_ip": "<script>alert('x')</script>",
            "extra_link": "data:text/html,<b>hi</b>",
        },
    )

    listing = page_text(client, "/deployments/")
    detail = page_text(client, f"/deployments/{deployment_id}")

    for html in (listing, detail):
        assert "<script>alert" not in html
        assert 'href="javascript:' not in html and 'href="data:' not in html
        assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert "Open Notebook" not in listing


def test_lists_and_objects_in_outputs_are_shown_readably_not_as_json(
    client, login_as, make_deployment
):
    deployment_id = make_deployment(
        login_as(),
        outputs={
            "node_ip": ["192.0.2.1", "192.0.2.2"],
            "cluster_nodes": [
                {"name": "wn-1", "address": "https://wn1.example.org/"},
                {"name": "wn-2", "address": "javascript:void(0)"},
            ],
            "endpoint_info": {"port": 8443, "secure": True},
        },
    )

    html = compact(page_text(client, f"/deployments/{deployment_id}"))

    assert '<li><span class="structured-text">192.0.2.1</span></li>' in html
    assert '<th scope="col">Address</th>' in html and '<th scope="col">Name</th>' in html
    assert '<a href="https://wn1.example.org/"' in html and 'href="javascript:' not in html
    assert "<dt>Port</dt>" in html and "Yes" in html
    assert '{"port"' not in html and "[&#34;192" not in html


def test_an_output_given_as_null_is_said_to_be_not_given_with_nothing_to_copy(
    client, login_as, make_deployment
):
    deployment_id = make_deployment(login_as(), outputs={"node_ip": None, "node_name": ""})

    html = compact(page_text(client, f"/deployments/{deployment_id}"))

    assert html.count('<span class="text-body-secondary output-empty">Not given</span>') == 2
    assert "null" not in html and 'data-copy-value=""' not in html


def test_the_deployment_page_explains_a_failure_plainly_and_keeps_the_orchestrators_words(
    client, login_as, make_deployment, no_orchestrator
):
    deployment_id = make_deployment(
        login_as(),
        status="failed",
        status_reason="Error creating VM: Quota exceeded for instances: Requested 1, used 10",
    )

    html = page_text(client, f"/deployments/{deployment_id}")

    assert "The cloud site has no room left under its quota" in html
    assert "What the orchestrator said" in html and "Quota exceeded for instances" in html


def test_the_timeline_names_each_step_and_who_caused_it(
    client, login_as, make_deployment, no_orchestrator
):
    deployment_id = make_deployment(
        login_as(),
        events=[
            ("SUBMITTING", "launch", None),
            ("creating", "launch", None),
            ("ready", "callback", None),
            ("deleting", "admin", "Delete by the administrator root."),
            ("deleting", "sync", "Delete still under way. Checked again later."),
        ],
    )

    html = page_text(client, f"/deployments/{deployment_id}")
    timeline = html[html.index('class="timeline') :]

    steps = re.findall(r'<div class="fw-semibold">([^<]+)</div>', timeline)
    assert steps == ["Submitting", "Creating", "Ready", "Deleting", "Delete still under way"]
    assert "Checked again later." in timeline
    assert "orchestrator notice" in timeline and "administrator" in timeline
    assert "Delete by the administrator root." in timeline


def test_the_deployment_page_shows_settings_template_and_offers_editing_to_relaunch(
    client, login_as, make_deployment, no_orchestrator
):
    deployment_id = make_deployment(login_as(), parameters={"num_cpus": 3, "ssh_public_key": ""})

    html = page_text(client, f"/deployments/{deployment_id}")
    template = page_text(client, f"/deployments/{deployment_id}/template")

    assert 'title="num_cpus">Cores</th><td class="text-break">3</td>' in html
    assert f"/catalogue/test-notebook/?from_deployment={deployment_id}" in html
    # The test template's password is typed at launch, so only editing can relaunch it.
    assert f'action="/deployments/{deployment_id}/relaunch"' not in html
    assert 'title="Jupyter password must be typed again">Edit and relaunch' in html
    assert "tosca_definitions_version: tosca_simple_yaml_1_0" in template


def test_edit_and_relaunch_prefills_the_launch_form_with_the_deployments_settings(
    client, login_as, make_deployment
):
    deployment_id = make_deployment(login_as(), parameters={"num_cpus": 7})

    form = page_text(client, f"/catalogue/test-notebook/?from_deployment={deployment_id}")

    assert re.search(r'name="[^"]*num_cpus"[^>]*value="7"|value="7"[^>]*name="[^"]*num_cpus"', form)


def test_deleting_asks_for_confirmation_first(client, login_as, make_deployment, no_orchestrator):
    deployment_id = make_deployment(login_as(), name="Precious")

    html = page_text(client, f"/deployments/{deployment_id}/delete")

    assert "Delete Precious?" in html and "cannot be undone" in html
    assert f'action="/deployments/{deployment_id}/delete"' in html
    assert "Force the delete" not in html


def test_a_delete_under_way_offers_reset_and_force(client, login_as, make_deployment):
    deployment_id = make_deployment(login_as(), status="deleting")

    html = page_text(client, f"/deployments/{deployment_id}/delete")

    assert f'action="/deployments/{deployment_id}/reset"' in html
    assert 'name="force" value="1"' in html


def test_a_failed_delete_offers_force_but_no_reset(client, login_as, make_deployment):
    # The orchestrator resets only a delete still under way; a failed one is deleted again.
    deployment_id = make_deployment(login_as(), status="delete-failed")

    html = page_text(client, f"/deployments/{deployment_id}/delete")

    assert f'action="/deployments/{deployment_id}/reset"' not in html
    assert 'name="force" value="1"' in html


def test_a_download_output_is_served_as_a_file(client, login_as, make_deployment):
    deployment_id = make_deployment(
        login_as(), outputs={"kube_config": "apiVersion: v1\nkind: Config\n"}
    )

    html = page_text(client, f"/deployments/{deployment_id}")
    answer = client.get(f"/deployments/{deployment_id}/outputs/kube_config")

    assert "Download Cluster configuration" in html
    assert answer.headers["Content-Disposition"].startswith("attachment;")
    assert answer.get_data(as_text=True) == "apiVersion: v1\nkind: Config\n"
    assert client.get(f"/deployments/{deployment_id}/outputs/nothing").status_code == 404


def test_the_owner_reveals_a_generated_password_on_click_and_can_forget_it(
    app, client, login_as, make_deployment
):
    deployment_id = make_deployment(
        login_as(), parameters={"num_cpus": 2}, secrets={"jupyter_password": "pw-Xy7"}
    )
    url = f"/deployments/{deployment_id}"

    page = page_text(client, url)
    token = csrf_from(page)
    revealed = client.post(
        url + "/secrets", data={"csrf_token": token}, headers={"HX-Request": "true"}
    )
    forgotten = client.post(url + "/secrets/forget", data={"csrf_token": token})
    after = page_text(client, url)

    assert "pw-Xy7" not in page and "Show password" in page
    assert revealed.status_code == 200 and "pw-Xy7" in revealed.get_data(as_text=True)
    assert "<html" not in revealed.get_data(as_text=True)  # the htmx answer is the panel alone
    assert forgotten.status_code == 302
    assert "Show password" not in after and "pw-Xy7" not in after


def test_revealing_without_scripts_shows_the_whole_page_with_the_password(
    client, login_as, make_deployment
):
    deployment_id = make_deployment(login_as(), secrets={"jupyter_password": "pw-9"})
    url = f"/deployments/{deployment_id}"

    answer = client.post(url + "/secrets", data={"csrf_token": csrf_from(page_text(client, url))})

    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "<html" in html and "pw-9" in html


def test_the_log_and_the_machines_load_on_demand(emulated, people_for):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)
    client = emulated.app.test_client()
    people_for(emulated.app, client).login("ada")
    uuid = emulated.row(deployment_id).uuid
    emulated.emulator.set_status(uuid, "CREATE_COMPLETE")

    log = client.get(f"/deployments/{deployment_id}/log", headers={"HX-Request": "true"})
    machines = client.get(f"/deployments/{deployment_id}/resources", headers={"HX-Request": "true"})
    whole = client.get(f"/deployments/{deployment_id}/resources")

    assert log.status_code == 200 and '<pre class="deployment-log' in log.get_data(as_text=True)
    assert "resources-table" in machines.get_data(as_text=True)
    assert "<html" not in machines.get_data(as_text=True)
    whole = whole.get_data(as_text=True)
    assert "<html" in whole and "resources-table" in whole


def test_on_demand_panels_say_plainly_when_the_orchestrator_hangs(emulated, people_for):
    deployment_id = emulated.launch(emulated.user("ada"))
    client = emulated.app.test_client()
    people_for(emulated.app, client).login("ada")
    with emulated.app.app_context():
        from app.deployments.models import Deployment

        db.session.get(Deployment, deployment_id).template_text = None
        db.session.commit()
    emulated.emulator.set_faults(hang=True)

    for what in ("log", "resources", "template"):
        answer = client.get(f"/deployments/{deployment_id}/{what}", headers={"HX-Request": "true"})
        html = answer.get_data(as_text=True)
        assert answer.status_code == 200, what
        assert 'class="alert alert-warning' in html, what
        assert "The orchestrator is not answering right now" in html, what
    emulated.emulator.clear_faults()


def test_secret_outputs_are_revealed_readably_and_a_kept_kubeconfig_downloads_by_post(
    client, login_as, make_deployment
):
    deployment_id = make_deployment(
        login_as(),
        outputs={"node_ip": "192.0.2.7"},
        secret_outputs={
            "node_creds": {"user": "cloudadm", "token": "tok-<b>1</b>"},
            "kube_config": "apiVersion: v1\nkind: Config\n",
        },
    )
    url = f"/deployments/{deployment_id}"
    page = page_text(client, url)
    token = csrf_from(page)

    revealed = client.post(url + "/secrets", data={"csrf_token": token}).get_data(as_text=True)
    download = client.post(url + "/outputs/kube_config", data={"csrf_token": token})

    assert "Passwords and credentials" in page and "Login" in page and "cloudadm" not in page
    assert client.get(url + "/outputs/kube_config").status_code == 404  # never by a plain GET
    shown = compact(revealed)
    assert '<dt>User</dt><dd><span class="structured-text">cloudadm</span>' in shown
    assert "tok-&lt;b&gt;1&lt;/b&gt;" in shown and '{"token"' not in shown
    assert f'action="{url}/outputs/kube_config"' in revealed
    assert download.headers["Content-Disposition"].startswith("attachment;")
    assert download.get_data(as_text=True) == "apiVersion: v1\nkind: Config\n"


PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACBk\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)


def test_a_private_key_keeps_its_lines_under_a_human_label_with_copy_and_download(
    client, login_as, make_deployment
):
    deployment_id = make_deployment(
        login_as(),
        secret_outputs={
            "node_creds": {"user": "cloudadm", "token_type": "private_key", "token": PRIVATE_KEY}
        },
    )
    url = f"/deployments/{deployment_id}"
    token = csrf_from(page_text(client, url))

    revealed = client.post(url + "/secrets", data={"csrf_token": token}).get_data(as_text=True)
    download = client.post(url + "/outputs/node_creds?part=key", data={"csrf_token": token})

    shown = compact(revealed)
    assert "<dt>Private key</dt>" in shown and "<dt>Token</dt>" not in shown
    assert "<dt>User name</dt>" in shown and "token_type" not in shown.lower()
    assert f'<pre class="output-text mb-2">{PRIVATE_KEY}</pre>' in revealed
    assert f'data-copy-value="{PRIVATE_KEY}"' in revealed
    assert f'action="{url}/outputs/node_creds?part=key"' in revealed
    assert "Download key" in revealed
    assert download.status_code == 200 and download.get_data(as_text=True) == PRIVATE_KEY
    assert download.mimetype == "application/x-pem-file"
    disposition = download.headers["Content-Disposition"]
    assert disposition == f'attachment; filename="test-notebook-{deployment_id}-private-key.pem"'
    assert client.get(url + "/outputs/node_creds?part=key").status_code == 404


def test_outputs_without_a_label_are_named_in_words_people_use():
    from app.tosca.display import output_label

    assert output_label("node_creds") == "Login credentials"
    assert output_label("ssh_private_key") == output_label("private_key") == "Private key"
    assert output_label("jupyter_url") == "Jupyter address"
    assert output_label("master_ip") == "Master IP address"


def test_settings_read_as_people_write_them_ports_cores_and_systems(
    client, login_as, make_deployment
):
    deployment_id = make_deployment(
        login_as(),
        parameters={
            "num_cpus": 2.0,
            "os_image": "ubuntu-22.04",
            "ports": {
                "ssh": {"protocol": "tcp", "source": 22},
                "jupyter": {"protocol": "tcp", "source": 8888},
            },
        },
    )

    html = page_text(client, f"/deployments/{deployment_id}")

    assert '<td class="text-break">2</td>' in html and '"text-break">2.0<' not in html
    assert "22/tcp, 8888/tcp" in html and "&#34;protocol&#34;" not in html
    assert "Ubuntu 22.04 LTS" in html and "ubuntu-22.04" not in html
