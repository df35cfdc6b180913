"""Catalogue curation: publishing, hiding, visible groups, history, diffs and restores; nobody
but admins reaches any of it, and changes reach every worker.
"""

import re

import pytest
from flask import url_for

from app.catalogue import operations
from app.catalogue.loader import catalogue
from tests.catalogue.admin_support import (
    ESCAPED,
    VM,
    VM_SIDECAR,
    XSS,
    page_text,
    save,
)
from tests.conftest import csrf_from, post_form


def test_an_admin_publishes_the_latest_revision_and_users_see_it(app, client, admin):
    save(app, "vm", create=True)
    response = post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/publish", {})

    assert response.status_code == 302
    assert "Published revision 1" in page_text(client, "/admin/catalogue/vm/")
    with app.app_context():
        assert catalogue().get("vm").revision_number == 1


def test_an_admin_publishes_a_chosen_older_revision(app, client, admin):
    save(app, "vm", create=True)
    save(app, "vm", VM.replace("default: 2", "default: 4"))
    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/publish", {"number": "1"})
    with app.app_context():
        assert catalogue().get("vm").revision_number == 1


def test_publishing_an_invalid_revision_is_refused_with_a_message(app, client, admin):
    save(app, "vm", "nope: [\n", "", create=True)
    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/publish", {})
    assert "has errors; fix them" in page_text(client, "/admin/catalogue/vm/")
    with app.app_context():
        assert catalogue().get("vm") is None


def test_hiding_takes_the_template_out_of_the_users_catalogue(app, client, admin):
    save(app, "vm", create=True, publish=True)
    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/hide", {})
    assert "is hidden from the catalogue" in page_text(client, "/admin/catalogue/vm/")
    with app.app_context():
        assert catalogue().get("vm") is None
        assert operations.get_template("vm").updated_by == "curator"


def test_setting_visible_groups_saves_a_revision_and_applies_it_when_live(app, client, admin):
    save(app, "vm", create=True, publish=True)

    post_form(
        client,
        "/admin/catalogue/vm/",
        "/admin/catalogue/vm/visibility",
        {"groups": "physics, astro-lab"},
    )

    with app.app_context():
        template = operations.get_template("vm")
        assert template.revisions[-1].message == "Visible to physics, astro-lab"
        assert '["physics", "astro-lab"]' in template.revisions[-1].sidecar_text
        assert catalogue().get("vm").parsed.visible_to == ["physics", "astro-lab"]
    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/visibility", {"groups": ""})
    with app.app_context():
        assert catalogue().get("vm").parsed.visible_to == []


def test_visible_groups_wait_for_publishing_when_there_are_pending_changes(app, client, admin):
    save(app, "vm", create=True, publish=True)
    save(app, "vm", VM.replace("default: 2", "default: 4"))
    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/visibility", {"groups": "gpu"})
    assert "once it is published" in page_text(client, "/admin/catalogue/vm/")
    with app.app_context():
        assert catalogue().get("vm").revision_number == 1


def test_visible_groups_in_block_style_are_replaced_and_comments_kept(app, client, admin):
    sidecar = "# Who may launch it\nvisible_to:\n  - old-group\n# Shown as\nname: Grouped\n"
    save(app, "vm", VM, sidecar, create=True)
    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/visibility", {"groups": "new"})
    with app.app_context():
        text = operations.get_template("vm").revisions[-1].sidecar_text
    assert text == '# Who may launch it\nvisible_to: ["new"]\n# Shown as\nname: Grouped\n'


def test_visible_groups_cannot_be_set_while_the_sidecar_is_broken(app, client, admin):
    save(app, "vm", VM, "name: [\n", create=True)
    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/visibility", {"groups": "x"})
    assert "fix it in the editor" in page_text(client, "/admin/catalogue/vm/")
    with app.app_context():
        assert len(operations.get_template("vm").revisions) == 1


def test_a_bad_group_name_is_refused_with_a_message(app, client, admin):
    save(app, "vm", create=True)
    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/visibility", {"groups": "a;b"})
    assert "Not a group name: a;b" in page_text(client, "/admin/catalogue/vm/")


# --- History: revisions, diff, restore --------------------------------------------------------


def test_the_history_lists_every_revision_with_author_time_and_message(app, client, admin):
    save(app, "vm", create=True, message="First")
    save(app, "vm", VM.replace("default: 2", "default: 4"), message="More cores")
    html = page_text(client, "/admin/catalogue/vm/")
    assert html.index('data-revision="2"') < html.index('data-revision="1"')
    assert "More cores" in html and "First" in html and "seed" in html


def test_a_templates_pages_are_titled_by_its_name_with_the_slug_beside_it(app, client, admin):
    save(app, "vm", create=True)
    for path in ("/admin/catalogue/vm/", "/admin/catalogue/vm/edit"):
        html = page_text(client, path)
        title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S).group(1)
        assert "Virtual machine" in heading and ">vm</span>" in heading, path
        if path.endswith("/vm/"):
            assert title.startswith("Virtual machine"), title


def test_the_diff_between_two_revisions_shows_added_and_removed_lines(app, client, admin):
    save(app, "vm", create=True)
    save(app, "vm", VM.replace("default: 2", "default: 4"), VM_SIDECAR + "tags: [x]\n")

    html = page_text(client, "/admin/catalogue/vm/diff?a=1&b=2")

    assert '<div class="del">-      default: 2</div>' in html
    assert '<div class="add">+      default: 4</div>' in html
    assert '<div class="hunk">@@' in html
    assert '<div class="add">+tags: [x]</div>' in html


def test_a_diff_of_unknown_revisions_compares_the_latest_two_instead(app, client, admin):
    save(app, "vm", create=True)
    save(app, "vm", VM.replace("default: 2", "default: 4"))
    for query in ("a=1&b=9", "a=x&b=", ""):
        assert "From revision 1 to revision 2" in page_text(
            client, f"/admin/catalogue/vm/diff?{query}"
        )


def test_restoring_an_old_revision_adds_it_as_a_new_one_and_publishes_when_live(app, client, admin):
    save(app, "vm", create=True, publish=True)
    save(app, "vm", VM.replace("default: 2", "default: 4"), publish=True)

    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/revisions/1/restore", {})

    with app.app_context():
        template = operations.get_template("vm")
        assert [r.number for r in template.revisions] == [1, 2, 3]
        assert template.revisions[-1].tosca_text == VM
        assert template.revisions[-1].author == "curator"
        assert catalogue().get("vm").revision_number == 3


def test_unknown_templates_and_revisions_are_not_found(app, client, admin):
    save(app, "vm", create=True)
    assert client.get("/admin/catalogue/nothing/").status_code == 404
    assert client.get("/admin/catalogue/vm/revisions/7").status_code == 404
    assert client.get("/admin/catalogue/vm/revisions/7/preview").status_code == 404


# --- Hostile text -----------------------------------------------------------------------------


def test_markup_in_descriptions_labels_help_and_messages_is_shown_as_text(app, client, admin):
    sidecar = re.sub(r"description: >-\n(  .*\n)+", f'description: "{XSS}"\n', VM_SIDECAR, count=1)
    sidecar = sidecar.replace("label: Cores", f'label: "{XSS}"').replace(
        "help: How many processor cores the machine gets.", f'help: "{XSS}"'
    )
    save(app, "vm", create=True, message=XSS)
    post_form(
        client,
        "/admin/catalogue/vm/edit",
        "/admin/catalogue/vm/edit",
        {"tosca_text": VM, "sidecar_text": sidecar, "message": XSS},
    )

    for url in (
        "/admin/catalogue/",
        "/admin/catalogue/vm/",
        "/admin/catalogue/vm/edit",
        "/admin/catalogue/vm/revisions/2",
        "/admin/catalogue/vm/revisions/2/preview",
        "/admin/catalogue/vm/diff?a=1&b=2",
    ):
        html = page_text(client, url)
        assert XSS not in html, url
    assert ESCAPED in page_text(client, "/admin/catalogue/vm/")  # the message
    preview = page_text(client, "/admin/catalogue/vm/revisions/2/preview")
    assert "has errors" not in preview
    assert preview.count(ESCAPED) >= 3  # description, label and help
    assert ESCAPED in page_text(client, "/admin/catalogue/vm/diff?a=1&b=2")


# --- Who may ----------------------------------------------------------------------------------


def _admin_routes(app):
    """Every (method, url) of the admin blueprint, with sample values for its arguments."""
    sample = {"slug": "vm", "number": 1, "name": "indigo-2025-08"}
    routes = []
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if rule.endpoint.startswith("catalogue_admin."):
                url = url_for(rule.endpoint, **{name: sample[name] for name in rule.arguments})
                routes += [(method, url) for method in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return routes


def test_the_admin_blueprint_has_the_routes_these_tests_walk(app):
    methods = {method for method, _url in _admin_routes(app)}
    assert len(_admin_routes(app)) >= 12
    assert methods == {"GET", "POST"}


@pytest.mark.parametrize("role", ["user", "operator"])
def test_researchers_and_operators_get_403_on_every_admin_route(app, client, login_as, role):
    save(app, "vm", create=True, publish=True)
    login_as(role)
    token = csrf_from(page_text(client, "/catalogue/"))

    for method, url in _admin_routes(app):
        response = client.open(url, method=method, data={"csrf_token": token, "slug": "x"})
        assert response.status_code == 403, (method, url)
    with app.app_context():
        assert len(operations.get_template("vm").revisions) == 1


def test_visitors_are_sent_to_log_in_from_every_admin_route(app, client):
    save(app, "vm", create=True)
    token = csrf_from(page_text(client, "/login"))
    for method, url in _admin_routes(app):
        response = client.open(url, method=method, data={"csrf_token": token})
        assert response.status_code == 302, (method, url)
        assert "/login" in response.headers["Location"], (method, url)


def test_a_post_without_a_csrf_token_changes_nothing(app, client, admin):
    save(app, "vm", create=True)
    response = client.post("/admin/catalogue/vm/publish", data={})
    assert response.status_code == 400
    with app.app_context():
        assert operations.get_template("vm").published_revision_id is None


# --- Every worker -----------------------------------------------------------------------------


def test_a_publish_through_one_worker_reaches_another_without_a_restart(make_app, tmp_path, people):
    shared = {
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/shared.sqlite",
        "CATALOGUE_RELOAD_SECONDS": 0,
    }
    first, second = make_app(**shared), make_app(**shared)
    save(first, "vm", create=True)
    with second.app_context():
        assert catalogue().get("vm") is None  # the second worker has loaded its catalogue

    client = first.test_client()
    people.app, people.client = first, client
    people.login_as("admin")
    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/publish", {})

    with second.app_context():
        entry = catalogue().get("vm")
        assert entry is not None and entry.revision_number == 1
    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/hide", {})
    with second.app_context():
        assert catalogue().get("vm") is None


def test_the_restore_confirmation_says_whether_it_publishes_and_a_draft_restore_does_not(
    app, client, admin
):
    save(app, "vm", create=True, publish=True)
    save(app, "vm", VM.replace("default: 2", "default: 4"), publish=True)

    html = page_text(client, "/admin/catalogue/vm/")
    assert "Restore revision 1 and publish it?" in html and "Restore and publish" in html
    assert "Restore revision 1 without publishing it?" in html
    post_form(
        client, "/admin/catalogue/vm/", "/admin/catalogue/vm/revisions/1/restore", {"publish": "0"}
    )

    with app.app_context():
        template = operations.get_template("vm")
        assert [r.number for r in template.revisions] == [1, 2, 3]
        assert catalogue().get("vm").revision_number == 2
