"""My deployments: what the list shows, how it filters and pages, and that it renders from the
database alone."""

import re

import pytest
from sqlalchemy import event

from app.extensions import db
from tests.deployments.pages_support import (
    GB,
    page_text,
    row_of,
    rows_of,
)


def test_the_list_shows_each_deployment_with_what_a_researcher_needs(
    client, login_as, make_deployment, no_orchestrator
):
    user_id = login_as()
    deployment_id = make_deployment(
        user_id,
        name="Thesis notebook",
        uuid="5f1d2c3b-aaaa-4bbb-8ccc-123456789abc",
        group_name="physics-lab",
        site="CLOUD-INFN-BARI",
        region="bari-1",
        charge={"cores": 4, "memory": 8 * GB, "disk": 50 * GB, "gpus": 1},
        outputs={"jupyter_endpoint": "https://nb.example.org/", "node_ip": "192.0.2.7"},
    )

    row = row_of(page_text(client, "/deployments/"), deployment_id)

    assert "Thesis notebook" in row and ">5f1d2c3b<" in row
    assert 'data-copy-value="5f1d2c3b-aaaa-4bbb-8ccc-123456789abc"' in row
    assert "Test notebook" in row and "physics-lab" in row
    assert "CLOUD-INFN-BARI · bari-1" in row
    assert "text-bg-success" in row and "Ready" in row
    assert re.sub(r"<[^>]+>", "", row).count("4 cores, 8 GB memory, 50 GB disk, 1 GPU") == 1
    assert 'href="https://nb.example.org/"' in row and "Open Notebook" in row
    assert "ssh 192.0.2.7" in row


def test_a_deployment_being_deleted_offers_no_way_in_on_its_row_or_its_page(
    client, login_as, make_deployment, no_orchestrator
):
    user_id = login_as()
    deployment_id = make_deployment(
        user_id,
        status="deleting",
        outputs={"jupyter_endpoint": "https://nb.example.org/", "node_ip": "192.0.2.7"},
    )

    row = row_of(page_text(client, "/deployments/"), deployment_id)
    page = page_text(client, f"/deployments/{deployment_id}")

    assert "Open Notebook" not in row and 'href="https://nb.example.org/"' not in row
    assert "ssh 192.0.2.7" not in row
    assert "Open Notebook" not in page


@pytest.mark.parametrize(
    ("status", "words", "spinner"),
    [
        ("SUBMITTING", "Submitting", True),
        ("UNCONFIRMED", "Checking with the orchestrator", True),
        ("creating", "Creating", True),
        ("NOT_LAUNCHED", "Not launched", False),
        ("VANISHED", "Gone from the orchestrator", False),
        ("failed", "Failed", False),
        ("delete-failed", "Delete failed", False),
    ],
)
def test_statuses_are_worded_plainly_with_a_spinner_while_in_progress(
    client, login_as, make_deployment, status, words, spinner
):
    deployment_id = make_deployment(login_as(), status=status)

    row = row_of(page_text(client, "/deployments/"), deployment_id)

    assert f"<span>{words}</span>" in row
    assert ("spinner-border" in row) is spinner


def test_rows_poll_only_while_something_is_in_progress_and_never_ask_the_orchestrator(
    app, client, login_as, make_deployment, no_orchestrator
):
    user_id = login_as()
    make_deployment(user_id, status="ready")
    quiet = page_text(client, "/deployments/rows")
    busy_id = make_deployment(user_id, status="creating")
    busy = page_text(client, "/deployments/rows?poll=1")

    assert "hx-trigger" not in quiet
    assert 'hx-trigger="every 5s"' in busy and "/deployments/rows?poll=1" in busy
    with app.app_context():
        from app.deployments.models import Deployment

        db.session.get(Deployment, busy_id).status = "ready"
        db.session.commit()
    assert "hx-trigger" not in page_text(client, "/deployments/rows?poll=1")


def test_the_refresh_button_is_a_plain_link_keeping_the_filters(client, login_as, make_deployment):
    make_deployment(login_as())

    html = page_text(client, "/deployments/?status=ready&q=note")

    assert re.search(
        r'<a class="btn btn-outline-secondary" href="/deployments/\?[^"]*">Refresh</a>', html
    )
    refresh = re.search(r'href="(/deployments/\?[^"]*)">Refresh', html).group(1)
    assert "status=ready" in refresh and "q=note" in refresh


def test_filters_narrow_by_status_template_and_words(client, login_as, make_deployment):
    user_id = login_as()
    ready = make_deployment(user_id, name="Alpha analysis", status="ready")
    failed = make_deployment(user_id, name="Beta run", status="failed")
    other = make_deployment(
        user_id, name="Gamma cluster", template_slug="k8s", template_name="Kubernetes"
    )

    def shown(query):
        html = page_text(client, "/deployments/?" + query)
        return {i for i in (ready, failed, other) if f'id="deployment-{i}"' in html}

    assert shown("") == {ready, failed, other}
    assert shown("status=ready") == {ready, other}
    assert shown("status=failed") == {failed}
    assert shown("template=k8s") == {other}
    assert shown("q=beta") == {failed}
    assert shown("q=alpha+analysis") == {ready}
    assert shown("status=nonsense") == {ready, failed, other}
    assert "No deployment matches these filters" in page_text(client, "/deployments/?q=zzz")
    assert "Kubernetes" in page_text(client, "/deployments/")  # the template filter offers it


def test_words_with_like_wildcards_match_only_themselves(client, login_as, make_deployment):
    user_id = login_as()
    percent = make_deployment(user_id, name="100% done")
    plain = make_deployment(user_id, name="1000 done")

    html = page_text(client, "/deployments/?q=100%25")

    assert f'id="deployment-{percent}"' in html and f'id="deployment-{plain}"' not in html


def test_paging_shows_newest_first_and_links_to_older_ones(app, client, login_as, make_deployment):
    from datetime import timedelta

    from app.clock import utcnow

    user_id = login_as()
    app.config["DEPLOYMENTS_PAGE_SIZE"] = 10
    start = utcnow() - timedelta(days=1)
    ids = [
        make_deployment(user_id, name=f"Run {n:02d}", created_at=start + timedelta(minutes=n))
        for n in range(23)
    ]

    first = rows_of(page_text(client, "/deployments/"))
    third = rows_of(page_text(client, "/deployments/?page=3"))
    beyond = rows_of(page_text(client, "/deployments/?page=99"))

    assert "1–10 of 23" in first and "Page 1 of 3" in first
    assert first.index("Run 22") < first.index("Run 13") and "Run 12" not in first
    assert 'href="/deployments/?page=2">Older' in first
    assert "21–23 of 23" in third and "Run 00" in third and "Run 03" not in third
    assert "Page 3 of 3" in beyond and f'id="deployment-{ids[0]}"' in beyond


def test_the_list_costs_the_same_queries_for_many_rows_as_for_few(
    app, client, login_as, make_deployment
):
    user_id = login_as()
    outputs = {"jupyter_endpoint": "https://nb.example.org/", "node_ip": "192.0.2.7"}
    make_deployment(user_id, outputs=outputs)

    def statements(url):
        count = [0]

        def counted(*args):
            count[0] += 1

        with app.app_context():
            engine = db.engine
        event.listen(engine, "before_cursor_execute", counted)
        try:
            page_text(client, url)
        finally:
            event.remove(engine, "before_cursor_execute", counted)
        return count[0]

    # What a worker reads once and keeps (the catalogue, each revision's template for its
    # name in the reader's language) is read by a first visit; the catalogue's check for
    # changes, due every few seconds, is not the list's (a slow machine would see it due).
    app.config["CATALOGUE_RELOAD_SECONDS"] = 3600
    statements("/deployments/")
    few = statements("/deployments/")
    for _ in range(20):
        make_deployment(user_id, outputs=outputs, status="creating")
    many = statements("/deployments/")

    assert many == few


def test_phone_layout_labels_every_cell_for_stacking(client, login_as, make_deployment):
    deployment_id = make_deployment(login_as())

    row = row_of(page_text(client, "/deployments/"), deployment_id)

    for label in ("Status", "Group and site", "Created", "Resources", "Access"):
        assert f'data-label="{label}"' in row
    assert "Delete</a>" in row and f'href="/deployments/{deployment_id}"' in row


def test_an_empty_list_after_deployments_says_none_at_the_moment_and_links_the_catalogue(
    client, login_as, make_deployment
):
    user_id = login_as()
    assert "You have no deployments yet." in page_text(client, "/deployments/")
    make_deployment(user_id, status="deleted", deleted=True)

    html = page_text(client, "/deployments/")

    assert "No deployments at the moment." in html and "no deployments yet" not in html
    assert '<a href="/catalogue/">Launch an application from the catalogue</a>' in html


def test_the_rows_bring_the_usage_figures_along_so_a_finished_delete_frees_them(
    app, client, login_as, make_deployment
):
    user_id = login_as()
    busy_id = make_deployment(user_id, status="deleting", charge={"cores": 4, "memory": 8 * GB})
    before = page_text(client, "/deployments/rows?poll=1")
    assert re.search(r'id="usage-summary" hx-swap-oob="true">\s*4 cores', before)
    with app.app_context():
        from app.deployments.models import Deployment

        row = db.session.get(Deployment, busy_id)
        row.status, row.deleted = "deleted", True
        db.session.commit()

    after = page_text(client, "/deployments/rows?poll=1")

    assert re.search(r'id="usage-summary" hx-swap-oob="true">\s*0 cores', after)
    assert 'id="usage-bars" hx-swap-oob="true"' in after
    # The full page has the panel itself, figures not marked for swapping.
    page = page_text(client, "/deployments/")
    assert page.count('id="usage-summary"') == 1 and "hx-swap-oob" not in page


def test_a_deployment_seen_again_does_not_read_its_template_again(
    app, client, login_as, make_deployment
):
    """A revision never changes: its parsed template (output labels, the name in the reader's
    language) is read once per worker, not at every view of the page or the list."""
    user_id = login_as()
    outputs = {"jupyter_endpoint": "https://nb.example.org/", "node_ip": "192.0.2.7"}
    deployment_id = make_deployment(user_id, outputs=outputs)
    read = []

    def reading_templates(_conn, _cursor, statement, *_args):
        if "template_revisions.parsed" in statement:
            read.append(statement)

    page_text(client, f"/deployments/{deployment_id}")
    page_text(client, "/deployments/")
    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", reading_templates)
    try:
        for language in ("en", "it", "en"):
            client.get(f"/deployments/{deployment_id}", headers={"Accept-Language": language})
            client.get("/deployments/", headers={"Accept-Language": language})
    finally:
        event.remove(engine, "before_cursor_execute", reading_templates)

    assert read == []
