"""The launch form's sites: each one's verdict for the request with its source and age, in
English and Italian; the choice of a site stored with the request and sent to the orchestrator
as its SLA placement policy; a bad choice refused in words, with nothing launched."""

import re

from app.deployments.models import Deployment
from app.extensions import db
from tests.conftest import csrf_from
from tests.launch.site_support import add_site, two_sites
from tests.launch.test_launch_form import login


def form_data(page_html: str, **values) -> dict:
    return {
        "csrf_token": csrf_from(page_html),
        "num_cpus": "1",
        "jupyter_password": "s3cret-passw0rd",
        "ssh_public_key": "",
        **values,
    }


def summary_of(client, page_html: str, **values) -> str:
    return client.post(
        "/catalogue/test-notebook/summary", data=form_data(page_html, **values)
    ).get_data(as_text=True)


def test_the_form_shows_each_sites_verdict_with_its_source_and_age(emulated):
    emulated.user("ada")
    two_sites(emulated.app)
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)

    assert "Where it can run" in page
    assert "Fits your quota, and 1 of 2 sites has room for it." in page
    bari = page[page.index('data-site="RECAS-BARI"') :]
    assert "fits" in bari[:600] and "cluster statistics, read 3 minutes ago" in bari[:900]
    cnaf = page[page.index('data-site="CLOUD-CNAF"') :][:900]
    assert "does not fit" in cnaf
    assert "needs 1 core, none free at CLOUD-CNAF" in cnaf
    # The portal's choice is the default; a site with no room cannot be picked.
    assert re.search(r'id="site-any" value="" checked', page)
    assert "Unless you choose a site above, the orchestrator picks" in page
    assert re.search(r'value="CLOUD-CNAF"[^>]*disabled', page, re.S)
    assert not re.search(r'value="RECAS-BARI"[^>]*disabled', page.split("</div>")[0])


def test_the_live_box_follows_the_values_and_the_chosen_site(emulated):
    emulated.user("ada")
    two_sites(emulated.app)
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)

    box = summary_of(client, page, num_cpus="100", site="RECAS-BARI")
    assert "needs 100 cores, 64 free at RECAS-BARI" in box
    assert "RECAS-BARI may not have room for it" in box
    # The picked site stays picked (and enabled) although it no longer fits.
    assert re.search(r'value="RECAS-BARI"\s+aria-describedby="[^"]+" checked>', box)


def test_the_form_speaks_italian(emulated):
    emulated.user("ada")
    two_sites(emulated.app)
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/", headers={"Accept-Language": "it"})
    html = page.get_data(as_text=True)
    assert "Dove può girare" in html
    assert "statistiche del cluster, letto 3 minuti fa" in html
    assert "non ci sta" in html and "richiede 1 core, disponibilità a CLOUD-CNAF: nessuna" in html
    assert "Lascia scegliere al portale" in html


def test_a_stale_site_or_one_in_maintenance_may_not_fit_and_never_blocks_launch(emulated, app):
    emulated.user("ada")
    add_site(emulated.app, "OLD", minutes_old=600)
    add_site(emulated.app, "SHUT", maintenance=True)
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    assert page.count("may not fit") >= 2
    assert "the numbers of OLD are old" in page and "SHUT is in maintenance" in page
    assert not re.search(r'id="launch-button"[^>]*disabled', page)


def test_a_picked_site_goes_to_the_orchestrator_as_its_sla_placement(emulated):
    emulated.user("ada")
    two_sites(emulated.app)
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)

    answer = client.post("/catalogue/test-notebook/", data=form_data(page, site="RECAS-BARI"))

    assert answer.status_code == 302
    [held] = emulated.emulator.deployments()
    sent = emulated.emulator.submitted(held["uuid"])["template"]
    assert "tosca.policies.indigo.SlaPlacement" in sent and "sla_id: sla-recas-bari" in sent
    with emulated.app.app_context():
        deployment = db.session.scalar(db.select(Deployment))
        assert deployment.request_options["site"] == "RECAS-BARI"
        assert deployment.request_options["placement"] == "sla-recas-bari"
    emulated.emulator.configure(complete_after_polls=1)
    emulated.sync()
    emulated.sync()
    [held] = emulated.emulator.deployments()
    assert held["cloudProviderName"] == "provider-RECAS-BARI"


def test_leaving_the_site_to_the_portal_sends_no_placement(emulated):
    emulated.user("ada")
    two_sites(emulated.app)
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    assert (
        client.post("/catalogue/test-notebook/", data=form_data(page, site="")).status_code == 302
    )
    [held] = emulated.emulator.deployments()
    assert "policies" not in emulated.emulator.submitted(held["uuid"])["template"]


def test_an_unknown_site_is_refused_in_words_and_nothing_is_launched(emulated):
    emulated.user("ada")
    two_sites(emulated.app)
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    answer = client.post("/catalogue/test-notebook/", data=form_data(page, site="NOWHERE"))
    assert answer.status_code == 400
    assert "There is no site named “NOWHERE”; nothing was launched." in answer.get_data(
        as_text=True
    )
    assert emulated.emulator.deployments() == []


def test_a_site_of_another_backend_is_refused(emulated):
    emulated.user("ada")
    add_site(emulated.app, "IM-SITE", backend="im", placement="cloud-one")
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    assert "IM-SITE" not in page  # only the sites of the template's backend are listed
    answer = client.post("/catalogue/test-notebook/", data=form_data(page, site="IM-SITE"))
    assert answer.status_code == 400
    assert "is not reached by the service that runs this application" in answer.get_data(
        as_text=True
    )
    assert emulated.emulator.deployments() == []


def test_without_any_site_read_the_form_shows_no_site_list(emulated):
    emulated.user("ada")
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    assert "Where it can run" not in page


def test_a_relaunch_goes_to_the_same_site(emulated):
    ada = emulated.user("ada")
    two_sites(emulated.app)
    first = emulated.launch(ada, "secret-notebook", site="RECAS-BARI")
    with emulated.app.app_context():
        from app.auth.models import User
        from app.launch.relaunching import relaunch

        again = relaunch(db.session.get(User, ada), db.session.get(Deployment, first), name="b")
        assert again.request_options["site"] == "RECAS-BARI"


def test_a_backend_that_cannot_place_shows_the_sites_but_offers_no_choice(emulated, monkeypatch):
    from dataclasses import replace

    from app.backends.paas.backend import PaasBackend

    real = PaasBackend.capabilities
    monkeypatch.setattr(
        PaasBackend, "capabilities", classmethod(lambda cls: replace(real(), site_choice=False))
    )
    emulated.user("ada")
    two_sites(emulated.app)
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    assert 'data-site="RECAS-BARI"' in page
    assert 'name="site"' not in page
    assert "The service that runs this application picks the site itself." in page
    answer = client.post("/catalogue/test-notebook/", data=form_data(page, site="RECAS-BARI"))
    assert answer.status_code == 400
    assert "chooses the site itself; leave the site out" in answer.get_data(as_text=True)
    assert emulated.emulator.deployments() == []
