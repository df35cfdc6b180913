"""Operators add, change and remove sites on the Capacity page: every refusal is shown beside
the field it concerns with what was typed kept, a removal is confirmed first and says what it
means, researchers get 403, and a form sent without its CSRF token changes nothing."""

import re
from html import unescape

import pytest

from app.capacity import operations
from app.capacity.models import CapacitySnapshot
from app.capacity.sites import all_sites
from app.deployments.models import Deployment
from app.extensions import db
from tests.conftest import csrf_from
from tests.launch.site_support import add_site as add_site_read

NEW = "/capacity/sites/new"


@pytest.fixture
def portal(make_app):
    app = make_app()
    with app.app_context():
        operations.add_site("RECAS-BARI", "paas", "sla-recas-bari")
    return app


@pytest.fixture
def operator(portal, people_for):
    client = portal.test_client()
    people_for(portal, client).login_as("operator")
    return client


def text(response) -> str:
    return unescape(response.get_data(as_text=True))


def send(client, page_url, url=None, headers=None, **data):
    """Send the form of ``page_url`` (to ``url``, else the page itself) with ``data``."""
    page = client.get(page_url, headers=headers)
    assert page.status_code == 200, page.status_code
    token = csrf_from(page.get_data(as_text=True))
    return client.post(url or page_url, data={"csrf_token": token, **data}, headers=headers)


def message_beside(page: str, field: str) -> str:
    """The text of the error message that follows the control ``field`` on ``page``."""
    after = page[page.index(f'id="{field}"') :]
    feedback = re.search(
        r'class="invalid-feedback">(.*?)</div>\s*(<div[^>]*class="form-text|</div>)', after, re.S
    )
    return re.sub(r"<[^>]+>", "", feedback[1]).strip() if feedback else ""


def sites(app) -> list[tuple[str, str, str]]:
    with app.app_context():
        return [(site.name, site.backend, site.placement) for site in all_sites()]


def test_the_capacity_page_offers_to_add_change_and_remove_sites(operator):
    page = text(operator.get("/capacity/"))
    assert f'href="{NEW}"' in page and "Add a site" in page
    assert 'href="/capacity/sites/RECAS-BARI/edit"' in page
    assert 'href="/capacity/sites/RECAS-BARI/remove"' in page
    assert 'aria-label="Remove RECAS-BARI"' in page


def test_an_operator_adds_a_site_and_is_told_so(portal, operator):
    form = text(operator.get(NEW))
    assert "PaaS Orchestrator" in form and "Infrastructure Manager" in form
    assert "The SLA id the orchestrator's placement policy names for the site" in form
    assert "The id of the site's cloud line in IM_CLOUDS" in form
    answer = send(operator, NEW, name=" CLOUD-VENETO ", backend="im", placement="veneto")
    assert answer.status_code == 302 and answer.location.endswith("/capacity/")
    assert "Site CLOUD-VENETO added." in text(operator.get("/capacity/"))
    assert sites(portal) == [
        ("CLOUD-VENETO", "im", "veneto"),
        ("RECAS-BARI", "paas", "sla-recas-bari"),
    ]


def test_a_site_of_the_orchestrator_may_leave_its_placement_empty(portal, operator):
    answer = send(operator, NEW, name="INFN-PADOVA", backend="paas", placement="")
    assert answer.status_code == 302
    assert ("INFN-PADOVA", "paas", "") in sites(portal)


@pytest.mark.parametrize(
    ("typed", "field", "words"),
    [
        (
            {"name": "bad/name", "backend": "paas", "placement": "sla-x"},
            "name",
            "“bad/name” cannot name a site: use up to 100 letters",
        ),
        (
            {"name": "", "backend": "paas", "placement": "sla-x"},
            "name",
            "Give the site a name, such as RECAS-BARI.",
        ),
        (
            {"name": "recas-bari", "backend": "slurm", "placement": "sla-x"},
            "backend",
            "No backend is called “slurm”; the backends are paas, im.",
        ),
        (
            {"name": "RECAS-BARI", "backend": "paas", "placement": "sla-other"},
            "name",
            "A site is already called “RECAS-BARI”.",
        ),
        (
            {"name": "CLOUD-VENETO", "backend": "im", "placement": "  "},
            "placement",
            "Give a placement: Infrastructure Manager reaches a site only through it.",
        ),
        (
            {"name": "CLOUD-VENETO", "backend": "im", "placement": "veneto\x1b[31m"},
            "placement",
            "The placement must be a single line without control characters",
        ),
        (
            {"name": "CLOUD-VENETO", "backend": "im", "placement": "v" * 256},
            "placement",
            "The placement is longer than 255 characters.",
        ),
    ],
)
def test_a_refused_site_is_explained_beside_its_field_with_what_was_typed_kept(
    portal, operator, typed, field, words
):
    answer = send(operator, NEW, **typed)
    page = text(answer)
    assert answer.status_code == 400
    # The message sits under the field it concerns, which is marked invalid.
    assert message_beside(page, field).startswith(words)
    assert "is-invalid" in re.search(rf'<(input|select)[^>]* id="{field}"[^>]*>', page)[0]
    if typed["name"]:
        assert f'value="{typed["name"]}"' in page
    if typed["placement"].strip() and "\x1b" not in typed["placement"]:
        assert f'value="{typed["placement"]}"' in page
    assert sites(portal) == [("RECAS-BARI", "paas", "sla-recas-bari")]


def test_an_im_site_on_a_cloud_im_clouds_does_not_set_up_is_explained_beside_its_placement(
    portal, operator
):
    portal.config["IM_CLOUDS"] = ["id = recas; type = OpenStack", "id = veneto; type = Dummy"]
    answer = send(operator, NEW, name="NOWHERE", backend="im", placement="nosuchcloud")

    page = text(answer)
    assert answer.status_code == 400
    assert message_beside(page, "placement").startswith(
        "IM_CLOUDS sets up no cloud with the id “nosuchcloud”, so the Infrastructure Manager "
        "could never deploy there. Give the id of one of its cloud lines: recas, veneto."
    )
    assert 'value="nosuchcloud"' in page
    assert sites(portal) == [("RECAS-BARI", "paas", "sla-recas-bari")]


def test_an_operator_changes_a_site_and_is_told_so(portal, operator):
    form = text(operator.get("/capacity/sites/RECAS-BARI/edit"))
    assert 'value="RECAS-BARI"' in form and 'value="sla-recas-bari"' in form
    assert '<option selected value="paas">' in form
    answer = send(
        operator,
        "/capacity/sites/RECAS-BARI/edit",
        name="BARI",
        backend="im",
        placement="recas",
    )
    assert answer.status_code == 302
    assert "Site BARI saved." in text(operator.get("/capacity/"))
    assert sites(portal) == [("BARI", "im", "recas")]


def test_a_refused_change_keeps_what_was_typed_and_changes_nothing(portal, operator):
    with portal.app_context():
        operations.add_site("CLOUD-VENETO", "im", "veneto")
    answer = send(
        operator,
        "/capacity/sites/CLOUD-VENETO/edit",
        name="RECAS-BARI",
        backend="im",
        placement="veneto-gpu",
    )
    page = text(answer)
    assert answer.status_code == 400
    assert message_beside(page, "name") == "A site is already called “RECAS-BARI”."
    assert 'value="RECAS-BARI"' in page and 'value="veneto-gpu"' in page
    assert ("CLOUD-VENETO", "im", "veneto") in sites(portal)


def test_changing_a_site_removed_meanwhile_says_so_and_keeps_what_was_typed(portal, operator):
    page = operator.get("/capacity/sites/RECAS-BARI/edit")
    with portal.app_context():
        operations.remove_site("RECAS-BARI")
    answer = operator.post(
        "/capacity/sites/RECAS-BARI/edit",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "name": "BARI",
            "backend": "paas",
            "placement": "sla-bari",
        },
    )
    shown = text(answer)
    assert answer.status_code == 404
    assert (
        "No site is called “RECAS-BARI”. Someone may have removed it meanwhile; nothing was "
        "changed." in shown
    )
    assert 'value="BARI"' in shown and 'value="sla-bari"' in shown
    assert sites(portal) == []


def test_a_site_that_is_not_known_has_no_form(operator):
    assert operator.get("/capacity/sites/NOWHERE/edit").status_code == 404
    assert operator.get("/capacity/sites/NOWHERE/remove").status_code == 404


def test_removal_is_confirmed_first_and_says_what_it_means(portal, operator, people_for):
    add_site_read(portal, "CLOUD-VENETO", backend="im", placement="veneto")
    owner = people_for(portal, portal.test_client()).create("ada")
    with portal.app_context():
        db.session.add(
            Deployment(
                user_id=owner,
                uuid="11111111-0000-4000-8000-000000000002",
                name="Thesis",
                template_slug="jupyter-vm",
                template_name="Jupyter",
                status="ready",
                site="CLOUD-VENETO",
            )
        )
        db.session.commit()
    confirm = text(operator.get("/capacity/sites/CLOUD-VENETO/remove"))
    assert "Remove the site CLOUD-VENETO?" in confirm
    assert "its capacity numbers go" in confirm
    assert "Deployments that went there keep the site they recorded" in confirm
    assert "Infrastructure Manager · placement veneto" in confirm
    assert sites(portal)[0][0] == "CLOUD-VENETO"  # asking changes nothing

    answer = send(operator, "/capacity/sites/CLOUD-VENETO/remove")
    assert answer.status_code == 302
    assert "Site CLOUD-VENETO removed, with what it had free." in text(operator.get("/capacity/"))
    assert sites(portal) == [("RECAS-BARI", "paas", "sla-recas-bari")]
    with portal.app_context():
        assert db.session.query(CapacitySnapshot).count() == 0
        assert db.session.query(Deployment).one().site == "CLOUD-VENETO"


def test_removing_a_site_removed_meanwhile_says_so(portal, operator):
    page = operator.get("/capacity/sites/RECAS-BARI/remove")
    with portal.app_context():
        operations.remove_site("RECAS-BARI")
    answer = operator.post(
        "/capacity/sites/RECAS-BARI/remove",
        data={"csrf_token": csrf_from(page.get_data(as_text=True))},
    )
    shown = text(answer)
    assert answer.status_code == 404
    assert "No site is called “RECAS-BARI”. Someone may have removed it meanwhile" in shown
    assert "Remove RECAS-BARI</button>" not in shown and "Back to the sites" in shown


@pytest.mark.parametrize(
    "url", [NEW, "/capacity/sites/RECAS-BARI/edit", "/capacity/sites/RECAS-BARI/remove"]
)
def test_researchers_get_403_and_no_form(portal, people_for, url):
    client = portal.test_client()
    people_for(portal, client).login_as("user")
    shown = client.get(url)
    assert shown.status_code == 403
    assert 'name="placement"' not in text(shown) and "Remove RECAS-BARI" not in text(shown)
    token = csrf_from(client.get("/account/").get_data(as_text=True))
    sent = client.post(url, data={"csrf_token": token, "name": "X", "backend": "paas"})
    assert sent.status_code == 403
    assert sites(portal) == [("RECAS-BARI", "paas", "sla-recas-bari")]


def test_admins_manage_sites_too(portal, people_for):
    client = portal.test_client()
    people_for(portal, client).login_as("admin")
    answer = send(client, NEW, name="CNAF", backend="paas", placement="sla-cnaf")
    assert answer.status_code == 302
    assert ("CNAF", "paas", "sla-cnaf") in sites(portal)


def test_people_not_logged_in_are_sent_to_the_login(portal):
    answer = portal.test_client().get(NEW)
    assert answer.status_code == 302 and "/login" in answer.location


@pytest.mark.parametrize(
    ("url", "data"),
    [
        (NEW, {"name": "CNAF", "backend": "paas", "placement": "sla-cnaf"}),
        ("/capacity/sites/RECAS-BARI/edit", {"name": "BARI", "backend": "paas"}),
        ("/capacity/sites/RECAS-BARI/remove", {}),
    ],
)
def test_a_form_without_its_csrf_token_changes_nothing(portal, operator, url, data):
    answer = operator.post(url, data=data)
    assert answer.status_code == 400
    assert "The form had expired or was sent from elsewhere" in text(answer)
    assert sites(portal) == [("RECAS-BARI", "paas", "sla-recas-bari")]


def test_the_forms_and_their_messages_speak_italian(portal, operator):
    italian = {"Accept-Language": "it"}
    form = text(operator.get(NEW, headers=italian))
    assert "Aggiungi un sito" in form and "Collocazione" in form
    answer = send(operator, NEW, headers=italian, name="VENETO", backend="im", placement="")
    shown = text(answer)
    assert answer.status_code == 400
    assert "Indica una collocazione" in shown
    confirm = text(operator.get("/capacity/sites/RECAS-BARI/remove", headers=italian))
    assert "Rimuovere il sito RECAS-BARI?" in confirm
    send(operator, "/capacity/sites/RECAS-BARI/remove", headers=italian)
    assert "Sito RECAS-BARI rimosso" in text(operator.get("/capacity/", headers=italian))
