"""Groups of local accounts work exactly as directory groups do."""

import pytest

GPU_TEMPLATE = 'href="/catalogue/chronos-gpu-job/"'


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


def test_a_local_account_in_gpu_users_sees_the_gpu_template_and_others_do_not(people, app):
    people.create("ada")
    people.create("bob")
    app.test_cli_runner().invoke(args=["users", "groups", "ada", "--add", "gpu-users"])
    ada, bob = app.test_client(), app.test_client()
    people.login("ada", client=ada)
    people.login("bob", client=bob)
    assert GPU_TEMPLATE in ada.get("/catalogue/").get_data(as_text=True)
    assert GPU_TEMPLATE not in bob.get("/catalogue/").get_data(as_text=True)
    assert ada.get("/catalogue/chronos-gpu-job/").status_code == 200
    assert bob.get("/catalogue/chronos-gpu-job/").status_code == 404


def test_the_account_page_shows_the_groups(people, client, app):
    people.create("ada")
    app.test_cli_runner().invoke(args=["users", "groups", "ada", "--add", "gpu-users"])
    people.login("ada")
    assert "gpu-users" in client.get("/account/").get_data(as_text=True)
