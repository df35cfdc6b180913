"""The list's rows are filled in Python (app.deployments.row_markup): every value a person or a
backend wrote is escaped as a template escapes it, and a row shows what changed at the next
request, since nothing of a row is kept between requests."""

import pytest
from markupsafe import Markup, escape

from app.deployments import row_markup
from app.deployments.models import Deployment
from app.extensions import db
from tests.deployments.pages_support import page_text, row_of

TRICKY = '<b>"Bob\'s" & co</b>'


@pytest.mark.parametrize(
    "value", ["plain", TRICKY, "", "it's", 'a"b', "&amp;", None, 42, Markup("<i>ok</i>")]
)
def test_a_value_is_placed_as_jinja_places_it(value):
    assert row_markup.text(value) == str(escape(value))


@pytest.mark.parametrize("value", ["plain", TRICKY, "", "&amp;", "<<>>''\"\"&&", "é · —"])
def test_a_text_is_escaped_as_markupsafe_escapes_it(value):
    assert row_markup.escaped(value) == str(escape(value))


def test_every_value_a_row_shows_is_escaped(client, login_as, make_deployment, no_orchestrator):
    user_id = login_as()
    made = make_deployment(
        user_id,
        name=TRICKY,
        group_name=TRICKY,
        region=TRICKY,
        site=TRICKY,
        status="failed",
        status_reason=TRICKY,
        outputs={"node_ip": TRICKY},
    )
    row = row_of(page_text(client, "/deployments/"), made)

    assert "<b>" not in row
    assert row.count("&lt;b&gt;&#34;Bob&#39;s&#34; &amp; co&lt;/b&gt;") >= 6
    assert 'aria-label="Delete &lt;b&gt;&#34;Bob&#39;s&#34; &amp; co&lt;/b&gt;"' in row


def test_a_status_change_shows_at_the_next_request(
    app, client, login_as, make_deployment, no_orchestrator
):
    user_id = login_as()
    made = make_deployment(user_id, status="ready")
    assert 'data-status="ready"' in row_of(page_text(client, "/deployments/"), made)
    with app.app_context():
        db.session.get(Deployment, made).status = "failed"
        db.session.commit()

    for url in ("/deployments/", "/deployments/rows"):
        assert 'data-status="failed"' in row_of(page_text(client, url), made)
