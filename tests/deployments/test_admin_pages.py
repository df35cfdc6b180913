"""Who sees which deployments: owners their own, admins everyone's (and what admins do to
someone else's deployment is recorded)."""

import pytest

from tests.conftest import csrf_from


@pytest.fixture
def theirs(people, make_deployment):
    """A deployment of someone else's, with an output and a kept secret."""
    owner_id = people.create("grace")
    return make_deployment(
        owner_id,
        name="Grace's cluster",
        outputs={"jupyter_endpoint": "https://grace.example.org/", "kube_config": "kind: Config"},
        secrets={"jupyter_password": "grace-secret-1"},
    )


def post(client, url, data=None):
    token = csrf_from(client.get("/deployments/").get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **(data or {})})


def test_a_user_gets_404_for_everything_about_someone_elses_deployment(client, login_as, theirs):
    login_as()
    base = f"/deployments/{theirs}"

    for url in (
        "",
        "/status",
        "/outputs/kube_config",
        "/log",
        "/resources",
        "/template",
        "/delete",
    ):
        assert client.get(base + url).status_code == 404, url
    for url in (
        "/delete",
        "/reset",
        "/relaunch",
        "/secrets",
        "/secrets/forget",
        "/outputs/kube_config",
    ):
        assert post(client, base + url, {"name": "mine now"}).status_code == 404, url
    assert client.get(f"/catalogue/test-notebook/?from_deployment={theirs}").status_code == 404


def test_a_user_cannot_list_other_peoples_deployments_even_by_asking(
    client, login_as, make_deployment, theirs
):
    mine = make_deployment(login_as(), name="My own notebook")

    for query in ("", "?user=*", "?user=grace"):
        html = client.get("/deployments/" + query).get_data(as_text=True)
        assert "Grace&#39;s cluster" not in html and "grace.example.org" not in html, query
        assert f'id="deployment-{mine}"' in html, query
    assert 'name="user"' not in client.get("/deployments/").get_data(as_text=True)


def test_an_admin_sees_everyones_deployments_with_a_filter_by_user(
    client, people, login_as, make_deployment, theirs
):
    other = make_deployment(people.create("alan"), name="Alan's notebook")
    admin_id = login_as("admin")
    own = make_deployment(admin_id, name="Admin's notebook")

    def shown(query):
        html = client.get("/deployments/" + query).get_data(as_text=True)
        return {i for i in (theirs, other, own) if f'id="deployment-{i}"' in html}

    assert shown("") == {own}
    assert shown("?user=*") == {theirs, other, own}
    assert shown("?user=grace") == {theirs}
    assert shown("?user=GRACE&q=cluster") == {theirs}
    assert shown("?user=nobody") == set()
    everyone = client.get("/deployments/?user=*").get_data(as_text=True)
    assert '<th scope="col">Owner</th>' in everyone and "<div>grace</div>" in everyone


def test_an_admin_opens_someone_elses_deployment_but_cannot_reveal_its_secrets(
    client, login_as, theirs
):
    login_as("admin")

    page = client.get(f"/deployments/{theirs}")
    html = page.get_data(as_text=True)
    reveal = post(client, f"/deployments/{theirs}/secrets")

    assert page.status_code == 200 and "owned by <strong>grace</strong>" in html
    assert "Only the owner can reveal them." in html
    assert "grace-secret-1" not in html
    assert "grace-secret-1" not in reveal.get_data(as_text=True)


def test_an_admins_delete_of_someone_elses_deployment_is_done_and_recorded(emulated, people_for):
    deployment_id = emulated.launch(emulated.user("grace"))
    admin_id = emulated.user("root", admin=True)
    client = emulated.app.test_client()
    people_for(emulated.app, client).login("root")

    confirm = client.get(f"/deployments/{deployment_id}/delete").get_data(as_text=True)
    answer = post(client, f"/deployments/{deployment_id}/delete")

    assert "It belongs to grace; the action is recorded." in confirm
    assert answer.status_code == 302
    row = emulated.row(deployment_id)
    assert row.status == "deleting"
    assert (row.events[-1].source, row.events[-1].actor_id) == ("admin", admin_id)
    deletes = [r for r in emulated.emulator.requests() if r["method"] == "DELETE"]
    assert len(deletes) == 1 and row.uuid in deletes[0]["path"]


def test_the_whose_filter_speaks_of_everyone_in_words(
    client, people, login_as, make_deployment, theirs
):
    login_as("admin")
    html = client.get("/deployments/?user=Everyone").get_data(as_text=True)
    assert 'value="Everyone"' in html and "* for everyone" not in html
    assert 'placeholder="Mine, Everyone, or a username"' in html
    assert f'id="deployment-{theirs}"' in html
    assert "user=everyone" in client.get("/deployments/rows?user=everyone&status=failed").text
