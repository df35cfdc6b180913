"""The launch form's live cost and fit box, the refusal at submit, and the usage panel."""

import html

import pytest

from app.auth.models import User
from app.extensions import db
from tests.conftest import People, csrf_from
from tests.quotas.conftest import Quotas, charge

FORM = "/catalogue/jupyter-ml-gpu/"
VALUES = {
    "num_gpus": "1",
    "gpu_model": "T4",
    "num_cpus": "8",
    "mem_size": "32 GB",
    "disk_size": "100 GB",
    "cuda_min_version": "12.2",
    "jupyter_password": "a long enough password 1",
}


@pytest.fixture
def setup(catalogue_app):
    people = People(catalogue_app, catalogue_app.test_client())
    user_id = people.login_as("user", username="rita")
    quotas = Quotas(catalogue_app)
    return people.client, quotas, user_id


def post_summary(client, **values):
    token = csrf_from(client.get(FORM).get_data(as_text=True))
    response = client.post(FORM + "summary", data={"csrf_token": token, **VALUES, **values})
    assert response.status_code == 200
    return " ".join(html.unescape(response.get_data(as_text=True)).split())


def test_the_box_shows_the_cost_and_fits_without_limits(setup):
    client, _quotas, _user = setup
    box = post_summary(client)
    assert "Fits</strong>: no limits apply to you" in box
    assert "1 × T4" in box


def test_a_batch_job_that_asks_for_no_disk_says_so_rather_than_a_dash(setup):
    client, quotas, user = setup
    quotas.update_user(user, groups=["gpu-users"])  # the batch-job template is theirs
    form = "/catalogue/chronos-gpu-job/"
    token = csrf_from(client.get(form).get_data(as_text=True))
    answer = client.post(form + "summary", data={"csrf_token": token})
    box = " ".join(html.unescape(answer.get_data(as_text=True)).split())
    disk = box.split("Disk</dt>", 1)[1].split("</dd>", 1)[0]
    assert disk.endswith("none asked for") and "\u2014" not in disk


def test_the_box_shows_bars_and_a_plain_fit_within_the_limit(setup):
    client, quotas, user = setup
    quotas.limit("user", user, gpus="2", cores="64")
    box = post_summary(client, num_gpus="2")
    assert "Fits</strong> within your quota" in box
    assert 'aria-label="GPUs: 0 GPUs held, 2 GPUs requested, limit 2 GPUs"' in box


def test_the_box_says_what_does_not_fit_and_links_the_holders(setup):
    client, quotas, user = setup
    quotas.limit("user", user, gpus="2")
    held = quotas.hold(user, charge(gpus=1), name="old run")
    box = post_summary(client, num_gpus="2")
    assert "Does not fit:" in box
    assert "It needs 2 GPUs, but deployment" in box and "already holds 1 GPU of your limit" in box
    assert f'href="/deployments/{held}"' in box and ">old run</a>" in box
    assert "(1 GPU over)" in box
    assert "Fits" in post_summary(client, num_gpus="1")


def test_a_per_model_limit_shows_in_the_box(setup):
    client, quotas, user = setup
    quotas.limit("user", user, gpu_models={"A100": "1"})
    box = post_summary(client, num_gpus="2", gpu_model="A100")
    assert "It needs 2 A100 GPUs, but your limit is 1 A100 GPU (1 A100 GPU over)." in box
    assert "Fits" in post_summary(client, num_gpus="2", gpu_model="T4")


def test_a_launch_over_the_limit_is_refused_with_the_typed_values_kept(setup):
    client, quotas, user = setup
    quotas.limit("user", user, gpus="1")
    token = csrf_from(client.get(FORM).get_data(as_text=True))
    response = client.post(
        FORM, data={"csrf_token": token, **VALUES, "num_gpus": "2", "num_cpus": "16"}
    )
    page = " ".join(response.get_data(as_text=True).split())
    assert response.status_code == 409
    assert "This launch does not fit your quota. It needs 2 GPUs, but your limit is 1 GPU" in page
    assert "(1 GPU over)" in page
    assert 'value="16"' in page or '<option selected value="16">' in page
    with client.application.app_context():
        from app.deployments.models import Deployment

        assert db.session.scalar(db.select(db.func.count()).select_from(Deployment)) == 0


def test_my_deployments_shows_the_usage_panel(setup):
    client, quotas, user = setup
    quotas.limit("user", user, gpus="4")
    quotas.hold(
        user, {**charge(cores=8, gpus=1), "summary": "1 × (8 cores, 1 GPU)"}, name="notebook"
    )
    page = " ".join(client.get("/deployments/").get_data(as_text=True).split())
    details = " ".join(
        client.get("/quotas/mine", headers={"HX-Request": "true"}).get_data(as_text=True).split()
    )
    own_page = " ".join(client.get("/quotas/mine").get_data(as_text=True).split())

    assert "My usage" in page
    assert "GPUs: 1 GPU held, limit 4 GPUs" in page
    # What holds it is read when the panel is opened (or on a page of its own without script).
    assert 'hx-get="/quotas/mine"' in page and 'href="/quotas/mine"' in page
    for text in (details, own_page):
        assert ">notebook</a>" in text and "8 cores, 1 GPU" in text
        assert "Core-hours" in text and "GPU-hours" in text
    assert "<html" not in details and "GPUs: 1 GPU held, limit 4 GPUs" in own_page


def test_someone_elses_deployments_do_not_count_against_me(setup):
    client, quotas, user = setup
    other = quotas.user("someone")
    quotas.limit("user", user, gpus="1")
    quotas.hold(other, charge(gpus=5))
    assert "Fits" in post_summary(client)
    with client.application.app_context():
        assert db.session.get(User, other).username == "someone"


def test_the_box_checks_the_pool_of_the_group_charged_and_only_a_group_of_mine(setup):
    client, quotas, user = setup
    quotas.update_user(user, groups=["physics"])
    colleague = quotas.user("colleague", groups=["physics"])
    quotas.limit("group", "physics", gpus="2")
    quotas.limit("group", "chemistry", gpus="0")
    quotas.hold(colleague, charge(gpus=2), group_name="physics", name="colleague's run")
    box = post_summary(client, group="physics")
    assert "Pool of group physics" in box
    assert (
        "It needs 1 GPU, but the members of group physics already hold 2 GPUs of its pool, "
        "limited to 2 GPUs (1 GPU over)." in box
    )
    # Someone else's deployment is neither named nor linked, and deleting is not advised.
    assert "colleague" not in box and "/deployments/" not in box
    assert "delete a deployment" not in box
    assert "Choose smaller sizes: none of what holds it is yours." in box
    # No group named: the launch charges the first of mine, and so does the box.
    assert "Pool of group physics" in post_summary(client)
    # Not a group of mine: its pool is never counted (the launch refuses the choice).
    chemistry = post_summary(client, group="chemistry")
    assert "Pool of group chemistry" not in chemistry and "Pool of group physics" in chemistry


def test_the_inputs_behind_each_resource_are_named_for_a_refusal():
    from app.quotas.preview import inputs_behind

    template = {
        "tosca_definitions_version": "tosca_simple_yaml_1_0",
        "topology_template": {
            "inputs": {
                "cpus": {"type": "integer", "default": 2},
                "ram": {"type": "scalar-unit.size", "default": "4 GB"},
                "workers": {"type": "integer", "default": 1},
            },
            "node_templates": {
                "vm": {
                    "type": "tosca.nodes.indigo.Compute",
                    "capabilities": {
                        "host": {
                            "properties": {
                                "num_cpus": {"get_input": "cpus"},
                                "mem_size": {"get_input": "ram"},
                            }
                        },
                        "scalable": {"properties": {"count": {"get_input": "workers"}}},
                    },
                }
            },
        },
    }
    assert inputs_behind(template, {}, {"cores"}) == ["cpus", "workers"]
    assert inputs_behind(template, {}, {"memory"}) == ["ram", "workers"]
    assert inputs_behind(template, {}, {"gpus"}) == ["workers"]
