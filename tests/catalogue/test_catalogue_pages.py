"""The researcher's catalogue: cards, search, tag filters, group visibility and launch forms."""

import re

import pytest

from app.auth.models import User
from app.extensions import db
from tests.conftest import People, csrf_from

STARTER = [
    "chronos-gpu-job",
    "jupyter-ml-gpu",
    "jupyter-vm",
    "kubernetes-cluster",
    "marathon-gpu-container",
    "mesos-cluster",
    "vm",
]


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


@pytest.fixture
def researcher(people, app):
    return people.login_as("user", username="ada")


def _join_group(app, user_id, *groups):
    with app.app_context():
        user = db.session.get(User, user_id)
        user.groups = list(groups)
        db.session.commit()


def test_the_catalogue_shows_a_card_for_each_template_open_to_everyone(client, researcher):
    html = client.get("/catalogue/").get_data(as_text=True)
    for slug in STARTER:
        if slug == "chronos-gpu-job":  # restricted to the gpu-users group
            assert f'href="/catalogue/{slug}/"' not in html
        else:
            assert f'href="/catalogue/{slug}/"' in html
    assert "Jupyter on a virtual machine" in html


def test_a_group_restricted_template_appears_for_members_and_admins(
    client, app, researcher, people
):
    _join_group(app, researcher, "gpu-users")
    assert 'href="/catalogue/chronos-gpu-job/"' in client.get("/catalogue/").get_data(as_text=True)
    admin_client = app.test_client()
    People(app, admin_client).login_as("admin")
    assert admin_client.get("/catalogue/chronos-gpu-job/").status_code == 200


def test_a_restricted_template_is_not_found_for_outsiders(client, researcher):
    assert client.get("/catalogue/chronos-gpu-job/").status_code == 404


def test_search_matches_every_word_in_name_description_or_tags(client, researcher):
    html = client.get("/catalogue/?q=kubernetes").get_data(as_text=True)
    assert 'href="/catalogue/kubernetes-cluster/"' in html
    assert 'href="/catalogue/vm/"' not in html
    nothing = client.get("/catalogue/?q=fortran+quantum+teapot").get_data(as_text=True)
    assert "No application matches" in nothing


def test_htmx_searches_get_only_the_cards(client, researcher):
    response = client.get("/catalogue/?q=jupyter", headers={"HX-Request": "true"})
    html = response.get_data(as_text=True)
    assert "<html" not in html and 'href="/catalogue/jupyter-vm/"' in html


def test_a_tag_filter_narrows_the_cards(client, researcher, app):
    from app.catalogue.loader import catalogue

    with app.test_request_context():
        tagged = {
            e.slug
            for e in catalogue().entries()
            if "gpu" in e.parsed.tags and not e.parsed.visible_to
        }
    html = client.get("/catalogue/?tag=gpu").get_data(as_text=True)
    for slug in STARTER:
        assert (f'href="/catalogue/{slug}/"' in html) == (slug in tagged)
    assert tagged


@pytest.mark.parametrize("slug", [s for s in STARTER if s != "chronos-gpu-job"])
def test_every_open_starter_template_has_a_launch_page_with_a_summary(client, researcher, slug):
    response = client.get(f"/catalogue/{slug}/")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "What will be requested" in html and "CPU cores" in html
    assert 'name="csrf_token"' in html


def test_the_launch_page_shows_errors_beside_fields_and_keeps_the_values(client, researcher):
    page = client.get("/catalogue/vm/").get_data(as_text=True)
    response = client.post(
        "/catalogue/vm/",
        data={
            "csrf_token": csrf_from(page),
            "ssh_public_key": "not a key",
            "username": "ada lovelace",
        },
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "Some values need your attention" in html
    assert "is-invalid" in html
    assert "ada lovelace" in html  # what the user typed is still there


def _total(html: str, label: str) -> str:
    match = re.search(rf"<dt[^>]*>{label}</dt>\s*<dd[^>]*>([^<]*)<", html)
    assert match, f"no {label} total in the summary"
    return match.group(1).strip()


def test_the_summary_endpoint_recomputes_totals_from_the_form(client, researcher):
    page = client.get("/catalogue/jupyter-vm/").get_data(as_text=True)
    assert _total(page, "CPU cores") == "2"  # the template's default
    response = client.post(
        "/catalogue/jupyter-vm/summary",
        data={"csrf_token": csrf_from(page), "num_cpus": "8", "mem_size": "16 GB"},
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "<html" not in html and "What will be requested" in html
    assert _total(html, "CPU cores") == "8"
    assert _total(html, "Memory") == "16 GB"


def test_a_rejected_form_asks_for_its_password_again(client, researcher):
    page = client.get("/catalogue/jupyter-vm/").get_data(as_text=True)
    response = client.post(
        "/catalogue/jupyter-vm/",
        data={
            "csrf_token": csrf_from(page),
            "jupyter_password": "a-fine-passw0rd",
            "num_cpus": "999",
        },
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    field = re.search(r'<input[^>]*name="jupyter_password"[^>]*>', html).group(0)
    assert 'placeholder="Type it again"' in field
    assert "Passwords are not sent back to the page: type it again." in html
    assert "a-fine-passw0rd" not in html and "Leave empty to generate one" not in field


def test_names_descriptions_labels_and_help_are_escaped(client, researcher, app):
    from pathlib import Path

    from app.catalogue.operations import publish, save_revision

    tosca = (Path(app.config["CATALOGUE_DIR"]) / "vm.yaml").read_text()
    sidecar = (
        "name: <b>bold</b>\n"
        "description: <script>alert(1)</script>\n"
        "inputs:\n"
        "  username: {label: '<img src=x onerror=alert(2)>', help: '<script>alert(3)</script>'}\n"
    )
    with app.app_context():
        revision = save_revision("xss", tosca, sidecar, "test", create=True)
        assert revision.valid, revision.parsed
        publish("xss", "test")
    for url in ("/catalogue/", "/catalogue/xss/"):
        html = client.get(url).get_data(as_text=True)
        assert "<script>alert(" not in html and "<img src=x" not in html and "<b>bold" not in html
        assert "&lt;b&gt;bold&lt;/b&gt;" in html
    launch = client.get("/catalogue/xss/").get_data(as_text=True)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in launch
    assert "&lt;img src=x onerror=alert(2)&gt;" in launch
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in launch


def test_a_large_catalogue_is_shown_a_page_of_cards_at_a_time(
    make_app, starter_catalogue_db, tmp_path, people_for
):
    import shutil

    target = tmp_path / "paged.sqlite"
    shutil.copy(starter_catalogue_db, target)
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{target}", CATALOGUE_PAGE_SIZE=4)
    client = app.test_client()
    people_for(app, client).login_as("admin")
    first = client.get("/catalogue/").get_data(as_text=True)
    assert first.count('class="card h-100 app-card"') == 4
    assert "Show 3 more" in first
    more = client.get("/catalogue/?page=2", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert more.count('class="card h-100 app-card"') == 3
    assert "more-cards" not in more and "<html" not in more


def _field_value(html: str, name: str) -> str:
    """The value a text field or select shows in ``html``."""
    match = re.search(rf'<input[^>]*name="{name}"[^>]*value="([^"]*)"', html)
    if match:
        return match.group(1)
    select = re.search(rf'<select[^>]*name="{name}".*?</select>', html, re.DOTALL)
    assert select, f"no field {name}"
    chosen = re.search(
        r'<option selected value="([^"]*)"|<option value="([^"]*)" selected', select[0]
    )
    assert chosen, f"nothing chosen in {name}"
    return chosen.group(1) or chosen.group(2)


def test_a_preset_sets_every_field_it_names_and_resets_the_others_without_scripts(
    client, researcher
):
    page = client.get("/catalogue/jupyter-ml-gpu/").get_data(as_text=True)
    four = client.post(
        "/catalogue/jupyter-ml-gpu/",
        data={"csrf_token": csrf_from(page), "apply_preset": "2"},
    ).get_data(as_text=True)
    assert _field_value(four, "disk_size") == "500 GB"

    # "One T4" names no disk: the disk goes back to the template's 100 GB, not Four A100's.
    one = client.post(
        "/catalogue/jupyter-ml-gpu/",
        data={
            "csrf_token": csrf_from(four),
            "num_gpus": "4",
            "gpu_model": "A100",
            "num_cpus": "64",
            "mem_size": "256 GB",
            "disk_size": "500 GB",
            "apply_preset": "0",
        },
    )
    html = one.get_data(as_text=True)
    assert one.status_code == 200 and "is-invalid" not in html
    assert _field_value(html, "disk_size") == "100 GB"
    assert _field_value(html, "num_cpus") == "8" and _field_value(html, "gpu_model") == "T4"
    assert "preset-button active" in html


def test_the_name_field_and_the_server_keep_one_length_limit(client, researcher):
    from app.deployments.models import NAME_MAX_LENGTH

    page = client.get("/catalogue/vm/").get_data(as_text=True)
    assert (
        f'maxlength="{NAME_MAX_LENGTH}"'
        in re.search(r'<input[^>]*id="deployment_name"[^>]*>', page)[0]
    )
    refused = client.post(
        "/catalogue/vm/",
        data={"csrf_token": csrf_from(page), "deployment_name": "n" * (NAME_MAX_LENGTH + 1)},
    ).get_data(as_text=True)
    assert f"Keep the name to {NAME_MAX_LENGTH} characters or fewer." in refused


def test_launch_is_off_with_its_reason_while_the_box_says_it_does_not_fit(client, researcher, app):
    page = client.get("/catalogue/vm/").get_data(as_text=True)
    assert (
        re.search(r'<button type="submit" id="launch-button"[^>]*>', page)[0].count("disabled") == 0
    )
    assert 'data-launchable="yes"' in page
