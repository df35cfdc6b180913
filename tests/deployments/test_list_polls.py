"""The list's poll: when nothing a person's list shows has changed, the answer is 204 (htmx
leaves the rows as they are) from their change stamp alone, with no row read and nothing
rendered; every kind of change answers in full."""

import pytest
from flask import template_rendered
from sqlalchemy import event

from app.auth.models import User
from app.backends.paas import schemas
from app.clock import utcnow
from app.deployments import operations, queries, stamps, tracking
from app.deployments.models import Deployment
from app.extensions import db

POLL = "/deployments/rows?poll=1"
HTMX = {"HX-Request": "true"}


def poll(client, tag=None):
    headers = dict(HTMX, **({"X-List-Stamp": tag} if tag else {}))
    return client.get(POLL, headers=headers)


def full_poll(client) -> str:
    response = poll(client)
    assert response.status_code == 200
    tag = response.headers["X-List-Stamp"]
    # htmx sends it back with the next poll.
    assert f"""hx-headers='{{"X-List-Stamp": "{tag}"}}'""" in response.get_data(as_text=True)
    return tag


@pytest.fixture
def watched(app):
    """What a request did: the templates it rendered and the SQL it ran."""
    seen = {"templates": [], "sql": []}

    def rendered(_sender, template, **_extra):
        seen["templates"].append(template.name)

    def executed(_conn, _cursor, statement, *_args):
        seen["sql"].append(statement)

    with app.app_context():
        engine = db.engine
    template_rendered.connect(rendered, app)
    event.listen(engine, "before_cursor_execute", executed)
    yield seen
    event.remove(engine, "before_cursor_execute", executed)
    template_rendered.disconnect(rendered, app)


def test_an_unchanged_poll_is_answered_no_content_without_reading_a_row(
    client, login_as, make_deployment, watched
):
    user_id = login_as()
    make_deployment(user_id, status="creating", name="Thesis notebook")
    tag = full_poll(client)
    watched["templates"].clear(), watched["sql"].clear()

    response = poll(client, tag)

    assert response.status_code == 204
    assert response.get_data() == b""
    assert watched["templates"] == []
    # Only the stamp, read from its index: no row of the list is loaded.
    assert not [sql for sql in watched["sql"] if "deployments.name" in sql]


def test_the_full_page_carries_the_tag_so_the_first_poll_is_cheap_too(
    client, login_as, make_deployment
):
    make_deployment(login_as(), status="creating")
    page = client.get("/deployments/")
    assert page.headers["Cache-Control"] == "no-store"  # the tag never rides on the cache
    tag = poll(client).headers["X-List-Stamp"]
    assert f'"X-List-Stamp": "{tag}"' in page.get_data(as_text=True)
    assert poll(client, tag).status_code == 204


def _set(app, deployment_id, **fields):
    with app.app_context():
        deployment = db.session.get(Deployment, deployment_id)
        for name, value in fields.items():
            setattr(deployment, name, value)
        db.session.commit()


def _apply(app, deployment_id, source="sync", **json):
    with app.app_context():
        deployment = db.session.get(Deployment, deployment_id)
        body = {"uuid": deployment.uuid, "status": deployment.status, **json}
        state = schemas.DeploymentState.from_json(body).remote()
        tracking.apply_state(deployment, state, source=source)
        db.session.commit()


CHANGES = {
    "a status from the sync worker": lambda app, d: _apply(app, d, status="ready"),
    "a failure with its reason": lambda app, d: _apply(
        app, d, status="failed", statusReason="No quota left at the site."
    ),
    "outputs arriving": lambda app, d: _apply(
        app, d, outputs={"jupyter_endpoint": "https://nb.example.org/"}
    ),
    "the site chosen": lambda app, d: _apply(app, d, cloudProviderName="CLOUD-BARI"),
    "a vanished deployment": lambda app, d: _gone(app, d),
    "a renamed deployment": lambda app, d: _set(app, d, name="Renamed"),
}


def _gone(app, deployment_id):
    with app.app_context():
        tracking.mark_gone(db.session.get(Deployment, deployment_id), source="sync")
        db.session.commit()


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_each_change_to_what_the_list_shows_answers_the_next_poll_in_full(
    app, client, login_as, make_deployment, change
):
    deployment_id = make_deployment(login_as(), status="creating")
    tag = full_poll(client)
    assert poll(client, tag).status_code == 204

    CHANGES[change](app, deployment_id)

    response = poll(client, tag)
    assert response.status_code == 200
    assert response.headers["X-List-Stamp"] != tag
    assert poll(client, response.headers["X-List-Stamp"]).status_code == 204


def test_a_status_change_from_a_callback_answers_the_next_poll_in_full(
    app, client, login_as, make_deployment
):
    deployment_id = make_deployment(
        login_as(), status="creating", reference_secret="s3cret-callback"
    )
    tag = full_poll(client)
    with app.app_context():
        uuid = db.session.get(Deployment, deployment_id).uuid

    answer = client.post(
        f"/deployments/callback/{deployment_id}/s3cret-callback",
        json={"uuid": uuid, "status": "CREATE_COMPLETE"},
    )

    assert answer.status_code < 300
    response = poll(client, tag)
    assert response.status_code == 200
    assert 'data-status="ready"' in response.get_data(as_text=True)


def test_a_launch_and_a_delete_each_answer_the_next_poll_in_full(
    app, client, login_as, make_deployment, launch_as
):
    user_id = login_as()
    make_deployment(user_id, status="creating")
    tag = full_poll(client)

    launched = launch_as(user_id)
    response = poll(client, tag)
    assert response.status_code == 200
    assert f'id="deployment-{launched}"' in response.get_data(as_text=True)
    tag = response.headers["X-List-Stamp"]

    with app.app_context():
        user = db.session.get(User, user_id)
        operations.delete(user, db.session.get(Deployment, launched))
    response = poll(client, tag)
    assert response.status_code == 200
    assert response.headers["X-List-Stamp"] != tag


def test_a_check_that_changes_nothing_shown_keeps_the_poll_not_modified(
    app, client, login_as, make_deployment
):
    deployment_id = make_deployment(login_as(), status="creating")
    tag = full_poll(client)

    # The sync worker asked and learnt nothing new; a failed ask only reschedules.
    _apply(app, deployment_id)
    with app.app_context():
        tracking.check_failed(db.session.get(Deployment, deployment_id))
        db.session.commit()
    _set(app, deployment_id, checked_at=utcnow(), claimed_until=None)

    assert poll(client, tag).status_code == 204


def test_someone_elses_change_keeps_my_poll_not_modified(
    app, people, client, login_as, make_deployment
):
    other = make_deployment(people.create("grace"), status="creating")
    make_deployment(login_as(), status="creating")
    tag = full_poll(client)

    _apply(app, other, status="ready")

    assert poll(client, tag).status_code == 204


def test_filters_have_their_own_tag(client, login_as, make_deployment):
    make_deployment(login_as(), status="creating")
    tag = full_poll(client)
    narrowed = client.get(POLL + "&status=progress", headers={**HTMX, "X-List-Stamp": tag})
    assert narrowed.status_code == 200


def test_an_admin_looking_at_everyones_list_is_answered_in_full(client, login_as, make_deployment):
    make_deployment(login_as("admin"), status="creating")
    response = client.get(POLL + "&user=*", headers=HTMX)
    assert response.status_code == 200
    assert "X-List-Stamp" not in response.headers


def test_every_column_the_list_reads_moves_the_stamp():
    assert {column.key for column in queries.LIST_COLUMNS} <= set(stamps.SHOWN)


def test_a_change_landing_while_the_page_is_built_is_picked_up_by_the_next_poll(
    app, client, login_as, make_deployment, monkeypatch
):
    user_id = login_as()
    deployment_id = make_deployment(user_id, status="creating")
    list_page = queries.list_page

    def rows_then_a_callback(*args, **kwargs):
        listed = list_page(*args, **kwargs)  # the rows as they were
        with app.app_context():  # another request commits the change meanwhile
            db.session.get(Deployment, deployment_id).status = "ready"
            db.session.commit()
        return listed

    monkeypatch.setattr(queries, "list_page", rows_then_a_callback)
    page = client.get("/deployments/").get_data(as_text=True)
    monkeypatch.setattr(queries, "list_page", list_page)
    tag = page.split('"X-List-Stamp": "', 1)[1].split('"', 1)[0]

    answer = poll(client, tag)

    assert answer.status_code == 200 and "Ready" in answer.get_data(as_text=True)
