"""The IM backend against a real Infrastructure Manager 2.0.0 (tests/fixtures/im_server.py)."""

import secrets

import pytest

from app.backends.base import CreateRequest, NotFound, Phase, Refused
from app.backends.im.client import MAX_MESSAGE
from tests.backends.im.conftest import DATA, template, wait_until_settled


def create(backend, name, inputs=None, tag=None):
    tag = tag or secrets.token_hex(6)
    return backend.create(CreateRequest(template=template(name), inputs=inputs or {}, tag=tag))


def test_a_template_without_interfaces_becomes_ready_with_its_outputs(im_backend):
    made = create(im_backend, "compute.yaml", {"num_cpus": 2})
    assert made.phase is Phase.CREATING and made.backend_id

    state = wait_until_settled(im_backend, made.backend_id)

    assert state.phase is Phase.READY
    assert state.raw_state == "configured"
    assert state.outputs == {"node_ip": "10.0.0.1", "cpus_asked": 2}
    assert state.reason is None


def test_a_ready_template_whose_outputs_say_no_address_gets_its_machines_address(im_backend):
    text = template("compute.yaml").replace(
        "    node_ip:\n      value: { get_attribute: [ node, private_address ] }\n", ""
    )
    made = im_backend.create(CreateRequest(template=text, inputs={}, tag=secrets.token_hex(6)))

    state = wait_until_settled(im_backend, made.backend_id)
    listed = {s.backend_id: s for s in im_backend.list_mine()}[made.backend_id]

    # IM's machine "node" has one interface, 10.0.0.1; nothing else of its RADL (which holds
    # its credentials) is kept.
    assert state.outputs == {"cpus_asked": 1, "node_address": "10.0.0.1"}
    assert listed.outputs == state.outputs


def test_the_input_values_and_the_tag_are_written_into_the_template_im_keeps(im_backend):
    made = create(im_backend, "compute.yaml", {"num_cpus": 3}, tag="kept-tag_1")

    kept = im_backend.template(made.backend_id)

    assert "portal-deployment:kept-tag_1" in kept
    assert "default: 3" in kept


def test_a_template_with_interfaces_fails_with_a_reason_in_plain_words(im_backend):
    made = create(im_backend, "configured-app.yaml")

    state = wait_until_settled(im_backend, made.backend_id)

    assert state.phase is Phase.FAILED
    assert state.raw_state == "unconfigured"
    assert "public address" in state.reason
    assert "Master VM" not in state.reason
    assert "No correct Master VM found" in state.details["log"]
    assert "No correct Master VM found" in im_backend.log(made.backend_id)


def refused_create(backend, name) -> Refused:
    """The refusal of a create that IM must refuse. IM 2.0.0 now and then accepts a template
    whose types it could not load, when it parses another one at the same moment (tosca-parser
    collects errors in state shared by the whole process): such a create is removed and sent
    again."""
    for _attempt in range(3):
        try:
            made = create(backend, name)
        except Refused as refused:
            return refused
        wait_until_settled(backend, made.backend_id)
        backend.delete(made.backend_id, force=True)
    pytest.fail(f"IM accepted {name} three times")


def test_a_template_whose_imports_im_cannot_fetch_is_refused_with_a_short_reason(
    make_im_backend, quiet_im
):
    refusing = make_im_backend(url=quiet_im.url)
    refused = refused_create(refusing, "url-import.yaml")

    assert refused.status_code == 400
    assert refused.message == (
        "The Infrastructure Manager does not know the type tosca.nodes.indigo.Compute that the "
        "template uses: it could not load the type definitions the template imports, so it made "
        "nothing. Please tell your administrators."
    )
    # IM's own words, for admins: cut short, without its traceback.
    detail = refused.detail
    assert detail.startswith("Error parsing request body")
    assert 'Type "tosca.nodes.indigo.Compute" is not a valid type' in detail
    assert len(detail) <= MAX_MESSAGE
    assert "File " not in detail and "Traceback" not in detail
    assert refusing.list_mine() == []


def test_a_script_im_cannot_download_is_refused_in_a_sentence_naming_its_address(
    make_im_backend, quiet_im
):
    refusing = make_im_backend(url=quiet_im.url)
    address = "https://raw.githubusercontent.com/example/recipes/main/configure.yml"
    text = template("configured-app.yaml").replace(
        (DATA / "configure.yml").resolve().as_uri(), address
    )
    with pytest.raises(Refused) as refused:
        refusing.create(CreateRequest(template=text, inputs={}, tag="no-script"))

    said = refused.value.message
    assert said.startswith(f"The Infrastructure Manager could not download {address}, a script")
    assert "ConnectionPool" not in said and "Errno" not in said
    assert "NameResolutionError" in refused.value.detail
    assert refusing.list_mine() == []


def test_list_mine_gives_each_deployment_its_tag_and_find_gets_a_lost_create_back(im_backend):
    first = create(im_backend, "compute.yaml", tag="first-one")
    second = create(im_backend, "compute.yaml", tag="first-one-and-more")

    listed = {state.backend_id: state.tag for state in im_backend.list_mine()}
    found = im_backend.find("first-one")

    assert listed == {first.backend_id: "first-one", second.backend_id: "first-one-and-more"}
    assert found.backend_id == first.backend_id
    assert im_backend.find("never-made") is None


def test_ims_own_filter_is_not_trusted_because_im_2_0_ignores_it(im_backend):
    made = create(im_backend, "compute.yaml")

    assert im_backend.client.list_ids("matches-nothing-at-all") == [made.backend_id]


def test_a_deleted_deployment_is_not_found_any_more(im_backend):
    made = create(im_backend, "compute.yaml")
    wait_until_settled(im_backend, made.backend_id)

    im_backend.delete(made.backend_id)

    with pytest.raises(NotFound):
        im_backend.state(made.backend_id)
    with pytest.raises(NotFound):
        im_backend.delete(made.backend_id)
    assert im_backend.list_mine() == []
