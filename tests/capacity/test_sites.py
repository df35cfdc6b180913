"""Operators name the sites with ``flask sites``; bad input is refused in words and changes
nothing; a deployment's site is shown by the name the portal knows it by."""

import pytest

from app.capacity.models import Site
from app.capacity.sites import all_sites
from app.extensions import db


@pytest.fixture
def app(make_app):
    return make_app()


def run(app, *args):
    return app.test_cli_runner().invoke(args=["sites", *args])


def test_sites_are_added_listed_changed_and_removed(app):
    added = run(app, "add", "RECAS-BARI", "--backend", "paas", "--placement", "provider-RECAS")
    assert added.exit_code == 0 and "Site RECAS-BARI added" in added.output
    assert (
        run(app, "add", "CLOUD-VENETO", "--backend", "im", "--placement", "veneto").exit_code == 0
    )
    listed = run(app, "list").output.splitlines()
    assert listed[0].split() == ["CLOUD-VENETO", "im", "veneto"]
    assert listed[1].split() == ["RECAS-BARI", "paas", "provider-RECAS"]
    edited = run(app, "edit", "RECAS-BARI", "--name", "BARI", "--placement", "provider-BARI")
    assert edited.exit_code == 0
    assert run(app, "remove", "CLOUD-VENETO").exit_code == 0
    with app.app_context():
        assert [(s.name, s.backend, s.placement) for s in all_sites()] == [
            ("BARI", "paas", "provider-BARI")
        ]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("add", "RECAS-BARI", "--backend", "paas"), "A site is already called “RECAS-BARI”."),
        (("add", "NEW", "--backend", "slurm"), "No backend is called “slurm”; the backends are"),
        (("add", "bad/name", "--backend", "paas"), "“bad/name” cannot name a site"),
        (("edit", "NOWHERE", "--placement", "x"), "No site is called “NOWHERE”."),
        (("edit", "RECAS-BARI"), "Nothing to change"),
        (("remove", "NOWHERE"), "No site is called “NOWHERE”."),
        (("edit", "RECAS-BARI", "--backend", "nomad"), "No backend is called “nomad”"),
    ],
)
def test_bad_input_is_refused_in_words_and_changes_nothing(app, args, words):
    run(app, "add", "RECAS-BARI", "--backend", "paas", "--placement", "provider-RECAS")
    result = run(app, *args)
    assert result.exit_code != 0
    assert words in result.output
    with app.app_context():
        assert [(s.name, s.backend, s.placement) for s in db.session.query(Site)] == [
            ("RECAS-BARI", "paas", "provider-RECAS")
        ]


def test_no_site_known_is_said_in_words(app):
    assert "No site is known yet" in run(app, "list").output


def test_a_deployments_recorded_site_is_shown_by_its_known_name(app):
    run(app, "add", "RECAS-BARI", "--backend", "paas", "--placement", "provider-RECAS")
    with app.test_request_context():
        render = app.jinja_env.globals["known_site"]
        assert render("provider-RECAS").name == "RECAS-BARI"
        assert render("RECAS-BARI").name == "RECAS-BARI"
        assert render("provider-ELSEWHERE") is None and render(None) is None


def test_a_site_reported_with_the_backends_prefix_is_shown_by_its_known_name(app):
    # Sent there by an SLA id, reported back by the orchestrator as its provider's name.
    run(app, "add", "RECAS-BARI", "--backend", "paas", "--placement", "sla-recas-bari")
    with app.test_request_context():
        render = app.jinja_env.globals["known_site"]
        assert render("provider-RECAS-BARI").name == "RECAS-BARI"
        assert render("provider-recas-bari").name == "RECAS-BARI"
        assert render("provider-BARI") is None and render("RECAS-BARI-2") is None


def test_an_im_site_on_a_cloud_im_clouds_does_not_set_up_is_refused_naming_the_clouds(make_app):
    app = make_app(IM_CLOUDS="id = recas; type = OpenStack\nid = veneto; type = OpenStack")
    refused = run(app, "add", "NOWHERE", "--backend", "im", "--placement", "nosuchcloud")

    assert refused.exit_code != 0
    assert "IM_CLOUDS sets up no cloud with the id “nosuchcloud”" in refused.output
    assert "recas, veneto" in refused.output
    assert run(app, "add", "BARI", "--backend", "im", "--placement", "recas").exit_code == 0
    moved = run(app, "edit", "BARI", "--placement", "bari")
    assert moved.exit_code != 0 and "“bari”" in moved.output
    with app.app_context():
        assert [(s.name, s.placement) for s in all_sites()] == [("BARI", "recas")]


def test_a_site_added_or_renamed_is_named_at_the_next_request_and_no_site_object_is_made(app):
    """Rows name their sites from the sites' names read as plain rows, afresh at each request:
    a change shows at the next one, and no Site is built and tracked for it."""
    known_site = app.jinja_env.globals["known_site"]
    with app.test_request_context():
        assert known_site("provider-RECAS") is None
    run(app, "add", "RECAS-BARI", "--backend", "paas", "--placement", "provider-RECAS")
    with app.test_request_context():
        assert known_site("provider-RECAS").name == "RECAS-BARI"
        assert not [kept for kept in db.session.identity_map.values() if isinstance(kept, Site)]
    run(app, "edit", "RECAS-BARI", "--name", "BARI")
    with app.test_request_context():
        assert known_site("provider-RECAS").name == "BARI"
